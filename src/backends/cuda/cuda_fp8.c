/* FP8 part of the CUDA backend (host side): which tensors get an e4m3 twin written by their
 * producers' epilogues (dual fp16 + e4m3 output, or e4m3 only), weight upload as e4m3 codes
 * with per-channel multipliers, and the launch of the FP8 conv kernel (cuda_fp8.cu).
 *
 * Placement: e4m3 twins mirror the fp16 storages (same ld, same channel slices, so a concat's
 * inputs write their e4m3 slices in place just as their fp16 ones). A twin lives in the same
 * arena slot as its fp16 storage, after it (max_batch images of fp16, then of e4m3), so the
 * liveness planning of cuda_backend.c covers it unchanged. A storage whose nodes are read only
 * as FP8 keeps no fp16 copy at all. Writers of a twin: FP8 convs (e4m3 of their float result)
 * and pools (e4m3 of their fp16 result; an Inception reduction block concatenates a max pool
 * with FP8 branches). Where a twin cannot be made (an fp16 conv or a concat copy writes the
 * storage, or two FP8 readers want different scales), the FP8 conv quantizes the fp16 tensor
 * while loading it; for the parts an FP8 conv wrote, that is the fp16 rounding of the value the
 * contract quantizes, so such storages are counted (INFER8_CUDA_DEBUG names them). None occur
 * in the three families' recipes. Numerics: docs/fp8.md. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backends/cuda/cuda_private.h"
#include "quant/fp8.h"

i8_fp8_variant_set i8_fp8_variant_set_parse(const char *list, int n_variants) {
    i8_fp8_variant_set s = {{0}};
    for (const char *v = list; v && *v;) {
        char *end;
        long k = strtol(v, &end, 10);
        if (end == v) break; /* not a number: the rest is ignored */
        if (k >= 0 && k < n_variants) i8_fp8_variant_set_add(&s, (int)k);
        v = *end == ',' ? end + 1 : end;
    }
    return s;
}

static int scale_ok(float s) {
    return s >= 1.17549435e-38f && s <= 3.40282347e38f && i8_fp8_inv_scale(s) <= 3.40282347e38f;
}

static int is_fp8_conv(const i8_node *nd) { return nd->op == I8_OP_CONV && nd->precision == I8_PREC_FP8; }

/* INFER8_CUDA_FP8_LT=2: a 1x1 FP8 conv without residual writes fp16 (its storage gets no e4m3
 * twin; FP8 readers quantize while loading), so that cuBLASLt can run it: cuBLASLt offers e4m3
 * GEMMs with outer-vector scales for fp16 output, not for e4m3 output (measured on the H200).
 * INFER8_CUDA_FP8_LT=3: the same for the 1x1 convs with a fused residual only (the residual
 * block outputs; cuBLASLt adds the fp16 residual as its C matrix), the others keep their twins. */
static int lt_prefers_f16(const i8_graph *g, const i8_node *nd, int mode) {
    if (!(is_fp8_conv(nd) && nd->kh == 1 && nd->kw == 1 && nd->sh == 1 && nd->sw == 1 && !nd->ph && !nd->pw &&
          g->nodes[nd->inputs[0]].c % 16 == 0 && nd->c % 8 == 0))
        return 0;
    return mode == 2 ? nd->residual < 0 : mode == 3 ? nd->residual >= 0 && !nd->residual_fp8 : 0;
}

infer8_status i8_cuda_fp8_plan(cu_ctx *c, i8_err *err) {
    const i8_graph *g = c->g;
    int n = g->n_nodes, ns = c->n_stor;
    c->fp8 = 0;
    for (int j = 0; j < n; j++) {
        const i8_node *nd = &g->nodes[j];
        if (nd->residual_fp8 && (nd->op != I8_OP_CONV || nd->residual < 0 || nd->n_inputs < 2 ||
                                 !scale_ok(g->nodes[nd->residual].out_scale)))
            return i8_fail(err, INFER8_E_INVALID_ARGUMENT,
                           "cuda: node '%s': residual_fp8 needs a fused residual conv whose x has an out_scale",
                           nd->name);
        if (!is_fp8_conv(nd)) continue;
        c->fp8 = 1;
        const i8_node *in = &g->nodes[nd->inputs[0]];
        if (!scale_ok(in->out_scale))
            return i8_fail(err, INFER8_E_INVALID_ARGUMENT, "cuda: FP8 conv '%s': input '%s' has out_scale %g (need > 0)",
                           nd->name, in->name, (double)in->out_scale);
        if (nd->weight_scales < 0 || nd->weight_scales >= g->n_weights)
            return i8_fail(err, INFER8_E_INVALID_ARGUMENT, "cuda: FP8 conv '%s' has no weight scales", nd->name);
        const i8_weight *ws = &g->weights[nd->weight_scales];
        if (ws->ndim != 1 || ws->shape[0] != nd->c)
            return i8_fail(err, INFER8_E_SHAPE, "cuda: FP8 conv '%s': weight scales '%s' are not [%d]", nd->name,
                           ws->name, nd->c);
    }
    if (!c->fp8) return INFER8_OK; /* fp16 graphs: nothing changes */
    /* cuDNN's e4m3 graphs join the tuning of every FP8 conv that fits (2-3x faster per conv
     * than the own kernel on the H200); INFER8_CUDA_FP8_DNN=0 leaves them out */
    const char *dnn = getenv("INFER8_CUDA_FP8_DNN");
    c->fp8_dnn = !dnn || atoi(dnn) > 0;
    /* INFER8_CUDA_FP8_TMA=0 leaves the TMA kernels out of the tuning (an A/B of whole graphs:
     * they win conv by conv, timed alone, but take a whole SM per block beside concurrent
     * branches) */
    const char *tma = getenv("INFER8_CUDA_FP8_TMA");
    c->fp8_tma = !tma || atoi(tma) > 0;
    /* INFER8_CUDA_TMA_GRID=N: the TMA kernels launch at most N blocks, each looping over its
     * share of the tiles, in tuning and graphs alike (test_fp8_tma_tile_loop: many tiles per
     * block). Capping them in the product lost in sessions 22 and 24 (docs/fp8.md). */
    const char *grid = getenv("INFER8_CUDA_TMA_GRID");
    c->tma_grid_forced = grid && atoi(grid) > 0 ? atoi(grid) : 0;
    /* INFER8_CUDA_TMA_STORE=0: the TMA kernels store their outputs through 16- / 8-byte stores, the
     * path they take where the outputs' alignment does not allow TMA stores (tests) */
    const char *store = getenv("INFER8_CUDA_TMA_STORE");
    c->tma_store_off = store && atoi(store) == 0;
    /* INFER8_CUDA_TMA_EARLY=0: the TMA kernels fetch no tensor maps and issue no weights ahead of
     * their producer's loop (before griddep_wait under PDL), as before session 60 (the A/B of that
     * change; since session 61 the early path runs in every launch, not under PDL alone) */
    const char *early = getenv("INFER8_CUDA_TMA_EARLY");
    c->tma_early_off = early && atoi(early) == 0;
    /* INFER8_CUDA_TMA_STORE_DRAIN=1: each block of a TMA kernel waits at its end until its TMA
     * stores have written global memory, as before session 61 (the A/B; without, until they have
     * read its shared memory) */
    const char *drain = getenv("INFER8_CUDA_TMA_STORE_DRAIN");
    c->tma_store_drain = drain && atoi(drain) > 0;
    /* INFER8_CUDA_HALO_PREFETCH=1: the halo kernels load a K slab's A fragments while the slab
     * before runs its wgmma; 2: also two slabs' wgmma at a time where BN is 32 (same sums, same
     * order; conv_fp8_halo_kernel's PIPE; session 52). Opt-in: 3% slower than without in session
     * 58. (Session 58's mode 3, registers capped for more blocks per SM, ran 11-15% slower in
     * session 59 and is gone.) */
    const char *prefetch = getenv("INFER8_CUDA_HALO_PREFETCH");
    const int halo_mode = prefetch ? atoi(prefetch) : 0;
    c->halo_prefetch = halo_mode == 1 || halo_mode == 2 ? halo_mode : 0;
    /* INFER8_CUDA_PDL: whether the forward's own FP8 kernels start their setup while the kernel
     * before them in the stream ends (cuda_pdl.cuh): 0 never, 2 always, else timed (choose_launch) */
    const char *pdl = getenv("INFER8_CUDA_PDL");
    c->pdl_mode = pdl ? atoi(pdl) : 1;
    c->fp8_only = i8_fp8_variant_set_parse(getenv("INFER8_CUDA_FP8_VARIANT"), i8_cuda_conv_fp8_variants());
    /* INFER8_CUDA_FP8_SKIP=v[,v...]: left out of the tuning unless INFER8_CUDA_FP8_VARIANT names them
     * (an A/B of whole graphs in one process); INFER8_CUDA_FP8_MIXED=0 adds the mixed-width im2col
     * kernels (session 50's A/B) */
    c->fp8_skip = i8_fp8_variant_set_parse(getenv("INFER8_CUDA_FP8_SKIP"), i8_cuda_conv_fp8_variants());
    /* as do INFER8_CUDA_FP8_C64=0 the 64-channel im2col sub-slices (variants 70-72) and
     * INFER8_CUDA_FP8_M64=0 the mixed kernels with 64-channel rests (73-75), both tuned by default
     * since session 57, when they passed their GPU tests and took v4's and v3's 3x3 64 -> 96
     * (70-72) and v4's convs over 192 and 448 channels (73-75) */
    const char *mixed = getenv("INFER8_CUDA_FP8_MIXED"), *c64 = getenv("INFER8_CUDA_FP8_C64"),
               *m64 = getenv("INFER8_CUDA_FP8_M64");
    const int mixed_off = mixed && atoi(mixed) <= 0, c64_off = c64 && atoi(c64) <= 0, m64_off = m64 && atoi(m64) <= 0;
    for (int v = 0; v < i8_cuda_conv_fp8_variants(); v++)
        if ((mixed_off && i8_cuda_conv_fp8_mixed_rest(v)) || (c64_off && i8_cuda_conv_fp8_im2col_span(v) == 64) ||
            (m64_off && i8_cuda_conv_fp8_mixed_rest(v) == 64))
            i8_fp8_variant_set_add(&c->fp8_skip, v);
    /* INFER8_CUDA_FP8_LT (cuBLASLt e4m3 GEMMs for the 1x1 convs; buffers: i8_cuda_fp8_setup) */
    const char *lt = getenv("INFER8_CUDA_FP8_LT");
    if (lt && atoi(lt) > 0) {
        for (int j = 0; j < n && !c->fp8_lt; j++)
            if (is_fp8_conv(&g->nodes[j]) && g->nodes[j].kh == 1 && g->nodes[j].kw == 1)
                c->fp8_lt = atoi(lt) >= 3 ? 3 : atoi(lt) == 2 ? 2 : 1;
    }

    /* how each storage is used, gathered over every node */
    typedef struct storage_use {
        float scale;                 /* the FP8 readers' scale (the first one seen) */
        unsigned char read8;         /* some FP8 conv reads it */
        unsigned char scale_differs; /* FP8 readers disagree on the scale */
        unsigned char read16;        /* something reads it as fp16 */
        unsigned char bad_writer;    /* a writer cannot write the e4m3 twin */
        unsigned char fp8_writer;    /* an FP8 conv writes it */
    } storage_use;
    storage_use *use = i8_calloc((size_t)ns, sizeof *use, err);
    if (!use) return err->code;
    for (int j = 0; j < n; j++) {
        const i8_node *nd = &g->nodes[j];
        for (int k = 0; k < nd->n_inputs; k++) {
            int p = nd->inputs[k];
            storage_use *u = &use[c->views[p].storage];
            if (nd->op == I8_OP_CONCAT && (c->rt[j].alias_mask >> k) & 1u) continue; /* written in place */
            if (i8_node_reads_fp8_slot(nd, k)) {
                float sc = g->nodes[p].out_scale;
                if (!u->read8) u->read8 = 1, u->scale = sc;
                else if (u->scale != sc) u->scale_differs = 1;
            } else {
                u->read16 = 1;
            }
        }
        storage_use *u = &use[c->views[j].storage];
        if (nd->op == I8_OP_CONCAT) {
            unsigned all = nd->n_inputs >= 32 ? ~0u : (1u << nd->n_inputs) - 1u;
            if ((c->rt[j].alias_mask & all) != all) u->bad_writer = 1; /* copies fp16 slices */
        } else if (is_fp8_conv(nd)) {
            u->fp8_writer = 1;
            if (lt_prefers_f16(g, nd, c->fp8_lt)) u->bad_writer = 1;
        } else if (nd->op != I8_OP_MAXPOOL && nd->op != I8_OP_AVGPOOL) {
            u->bad_writer = 1;
        }
    }
    use[c->views[g->output].storage].read16 = 1;
    c->fp8_load_fallbacks = 0;
    for (int s = 0; s < ns; s++) {
        cu_storage *st = &c->stor[s];
        const storage_use *u = &use[s];
        if (!u->read8) continue;
        if (u->scale_differs || u->bad_writer || st->f32 || st->ld % 8) {
            if (!u->fp8_writer) continue; /* fp16 values: quantizing them on load is the contract */
            c->fp8_load_fallbacks++;
            if (getenv("INFER8_CUDA_DEBUG"))
                for (int j = 0; j < n; j++)
                    if (c->views[j].storage == s && c->views[j].ch_off == 0 && g->nodes[j].op != I8_OP_CONCAT)
                        fprintf(stderr, "cuda fp8: storage of '%s' is read as FP8 without a twin (%s): its "
                                        "readers quantize the fp16 values\n",
                                g->nodes[j].name,
                                u->scale_differs ? "FP8 readers disagree on the scale"
                                : u->bad_writer  ? "a writer cannot write e4m3"
                                                 : "layout");
            continue;
        }
        size_t f16 = st->bytes_per_image;
        st->q = 1;
        st->q_scale = u->scale;
        st->no_f16 = !u->read16;
        st->bytes_per_image = (st->no_f16 ? 0 : f16) + f16 / 2;
        st->q_offset = st->no_f16 ? 0 : f16 * (size_t)c->max_batch; /* overflow excluded by plan_arena */
    }
    free(use);
    return INFER8_OK;
}

infer8_status i8_cuda_fp8_setup(cu_ctx *c, i8_err *err) {
    if (!c->fp8) return INFER8_OK;
    int ce = i8_cuda_conv_fp8_setup();
    if (!ce) ce = i8_cuda_tma_driver(&c->sm_count, &c->tma_encode_tiled, &c->tma_encode_im2col);
    if (ce) return i8_fail(err, INFER8_E_DEVICE, "cuda: FP8 kernel setup: %s", cudaGetErrorString((cudaError_t)ce));
    if (!c->fp8_lt) return INFER8_OK;
    /* B scale vector (one 1.0f per pixel) and a C matrix the e4m3-output GEMMs never read
     * (beta 0) but must be given: sized for the largest 1x1 FP8 conv */
    const i8_graph *g = c->g;
    size_t pixels = 0, c_bytes = 0;
    for (int j = 0; j < g->n_nodes; j++) {
        const i8_node *nd = &g->nodes[j];
        if (!is_fp8_conv(nd) || nd->kh != 1 || nd->kw != 1) continue;
        size_t px = (size_t)c->max_batch * (size_t)nd->h * (size_t)nd->w;
        if (px > pixels) pixels = px;
        if (px * (size_t)nd->c * 2 > c_bytes) c_bytes = px * (size_t)nd->c * 2;
    }
    float *host = i8_malloc(pixels * sizeof(float), err);
    if (!host) return err->code;
    for (size_t i = 0; i < pixels; i++) host[i] = 1.0f;
    cudaError_t e = cudaMalloc((void **)&c->ones, pixels * sizeof(float));
    if (e == cudaSuccess) e = cudaMemcpy(c->ones, host, pixels * sizeof(float), cudaMemcpyHostToDevice);
    if (e == cudaSuccess) e = cudaMalloc(&c->lt8_c, c_bytes);
    free(host);
    if (e != cudaSuccess) return i8_fail(err, INFER8_E_DEVICE, "cuda: FP8 GEMM buffers: %s", cudaGetErrorString(e));
    c->n_ones = pixels;
    return INFER8_OK;
}

void *i8_cuda_view_qptr(const cu_ctx *c, int node) {
    const cu_view *v = &c->views[node];
    const cu_storage *s = &c->stor[v->storage];
    if (!s->q) return NULL;
    return c->arena + s->offset + s->q_offset + (size_t)v->ch_off;
}

static infer8_status upload(void **dst, const void *src, size_t bytes, i8_err *err) {
    cudaError_t e = cudaMalloc(dst, bytes ? bytes : 16);
    if (e == cudaSuccess) e = cudaMemcpy(*dst, src, bytes, cudaMemcpyHostToDevice);
    if (e != cudaSuccess) return i8_fail(err, INFER8_E_DEVICE, "cuda: FP8 weight upload: %s", cudaGetErrorString(e));
    return INFER8_OK;
}

infer8_status i8_cuda_fp8_upload(cu_ctx *c, int i, i8_err *err) {
    const i8_graph *g = c->g;
    const i8_node *nd = &g->nodes[i];
    cu_node_rt *rt = &c->rt[i];
    const i8_node *in = &g->nodes[nd->inputs[0]];
    const i8_weight *wt = &g->weights[nd->weight];
    const float *wsc = g->weights[nd->weight_scales].data;
    int ci = in->c, cp = in->op == I8_OP_INPUT ? c->stor[c->views[nd->inputs[0]].storage].ld : ci;
    int co = nd->c, kh = nd->kh, kw = nd->kw;
    rt->c_in_phys = cp;
    if (wt->ndim != 4 || wt->shape[0] != co || wt->shape[1] != ci || wt->shape[2] != kh || wt->shape[3] != kw)
        return i8_fail(err, INFER8_E_SHAPE, "cuda: conv '%s': weight '%s' shape does not match the node", nd->name,
                       wt->name);
    float rs = nd->residual >= 0 ? nd->residual_scale : 1.0f, in_scale = in->out_scale;
    size_t count = (size_t)co * kh * kw * cp;
    infer8_status rc = INFER8_OK;
    uint8_t *wq = i8_calloc(count, 1, err); /* code 0 = +0 for padded channels */
    float *mult = i8_calloc((size_t)co, 4, err), *b32 = i8_calloc((size_t)co, 4, err);
    if (!wq || !mult || !b32) {
        rc = err->code;
        goto out;
    }
    for (int o = 0; o < co; o++) {
        float s = wsc[o];
        if (!scale_ok(s)) {
            rc = i8_fail(err, INFER8_E_FORMAT, "cuda: FP8 conv '%s': weight scale [%d] = %g", nd->name, o, (double)s);
            goto out;
        }
        for (int y = 0; y < kh; y++)
            for (int x = 0; x < kw; x++)
                for (int k = 0; k < ci; k++) {
                    float w = wt->data[(((size_t)o * ci + k) * kh + y) * kw + x];
                    /* w = e4m3(q) * s rounded once: w / s recovers e4m3(q) to within an ulp */
                    uint8_t q = i8_fp8_from_f32(w / s);
                    float back = i8_fp8_to_f32(q) * s;
                    if (!(fabsf(back - w) <= 1e-6f * fabsf(w))) {
                        rc = i8_fail(err, INFER8_E_INVALID_ARGUMENT,
                                     "cuda: FP8 conv '%s': weight '%s' [%d][%d][%d][%d] = %g is not an e4m3 value "
                                     "times its scale %g",
                                     nd->name, wt->name, o, k, y, x, (double)w, (double)s);
                        goto out;
                    }
                    wq[(((size_t)o * kh + y) * kw + x) * cp + k] = q;
                }
        mult[o] = in_scale * s * rs;
        b32[o] = nd->bias >= 0 ? rs * g->weights[nd->bias].data[o] : 0.0f;
    }
    if ((rc = upload((void **)&rt->wq, wq, count, err)) || (rc = upload((void **)&rt->mult, mult, (size_t)co * 4, err)) ||
        (rc = upload((void **)&rt->b32, b32, (size_t)co * 4, err)))
        goto out;
    if (c->fp8_lt || c->fp8_dnn) { /* cuBLASLt's epilogue takes an fp16 bias; both a device scale */
        uint16_t *b16 = i8_malloc((size_t)co * 2, err);
        if (!b16) {
            rc = err->code;
            goto out;
        }
        for (int o = 0; o < co; o++) b16[o] = i8_f32_to_f16(b32[o]);
        rc = upload(&rt->b16, b16, (size_t)co * 2, err);
        free(b16);
        if (rc) goto out;
        const cu_storage *st = &c->stor[c->views[i].storage];
        float dscale = st->q ? i8_fp8_inv_scale(st->q_scale) : 1.0f;
        if ((rc = upload((void **)&rt->dscale, &dscale, sizeof dscale, err))) goto out;
    }
    c->weight_bytes += count + (size_t)co * 8;
out:
    free(wq);
    free(mult);
    free(b32);
    return rc;
}

void i8_cuda_fp8_sig(const cu_ctx *c, int node, cu_conv_sig *s) {
    const i8_node *nd = &c->g->nodes[node];
    if (!is_fp8_conv(nd)) return;
    const cu_storage *st = &c->stor[c->views[node].storage];
    s->fp8 = 1;
    s->a_q = i8_cuda_view_qptr(c, nd->inputs[0]) != NULL;
    if (nd->residual < 0) s->res_mode = I8_FP8_RES_NONE;
    else if (!nd->residual_fp8) s->res_mode = I8_FP8_RES_F16;
    else s->res_mode = i8_cuda_view_qptr(c, nd->inputs[1]) ? I8_FP8_RES_Q : I8_FP8_RES_F16_FQ;
    s->out_f16 = !st->no_f16;
    s->out_q = st->q;
    s->align_xq = s->a_q ? i8_cuda_align_of(i8_cuda_view_qptr(c, nd->inputs[0])) : 0;
    s->align_yq = st->q ? i8_cuda_align_of(i8_cuda_view_qptr(c, node)) : 0;
}

/* the kernel arguments of FP8 conv `node` at batch n (split-K workspace wsi) */
static i8_cuda_fp8_conv_args fp8_args(const cu_ctx *c, int n, const cu_conv_sig *g, int node, int wsi) {
    const i8_node *nd = &c->g->nodes[node];
    int in = nd->inputs[0];
    i8_cuda_fp8_conv_args a;
    memset(&a, 0, sizeof a);
    a.x = g->a_q ? i8_cuda_view_qptr(c, in) : i8_cuda_view_ptr(c, in);
    a.x_fp8 = g->a_q;
    a.x_inv = i8_fp8_inv_scale(c->g->nodes[in].out_scale);
    a.n = n, a.h = g->h, a.w = g->w, a.c_in = g->c_in, a.x_ld = g->x_ld;
    a.wq = c->rt[node].wq;
    a.mult = c->rt[node].mult;
    a.bias = c->rt[node].b32;
    a.res_mode = g->res_mode;
    if (g->res_mode != I8_FP8_RES_NONE) {
        int r = nd->inputs[1];
        a.res = g->res_mode == I8_FP8_RES_Q ? i8_cuda_view_qptr(c, r) : i8_cuda_view_ptr(c, r);
        a.res_ld = i8_cuda_view_ld(c, r);
        a.res_scale = c->g->nodes[r].out_scale;
        a.res_inv = i8_fp8_inv_scale(a.res_scale);
    }
    a.y = g->out_f16 ? i8_cuda_view_ptr(c, node) : NULL;
    a.yq = g->out_q ? i8_cuda_view_qptr(c, node) : NULL;
    a.y_ld = g->y_ld;
    a.y_inv = g->out_q ? i8_fp8_inv_scale(c->stor[c->views[node].storage].q_scale) : 0.0f;
    a.ho = g->ho, a.wo = g->wo, a.c_out = g->c_out, a.kh = g->kh, a.kw = g->kw;
    a.sh = g->sh, a.sw = g->sw, a.ph = g->ph, a.pw = g->pw, a.relu = g->relu;
    a.partial = c->ws[wsi], a.partial_bytes = CU_WORKSPACE_BYTES;
    a.counters = c->counters[wsi], a.n_counters = CU_SPLIT_COUNTERS;
    const int cap = c->tma_grid_forced;
    a.sm_count = cap > 0 && cap < c->sm_count ? cap : c->sm_count; /* the TMA kernels' grid */
    a.tma_encode_tiled = c->tma_encode_tiled, a.tma_encode_im2col = c->tma_encode_im2col;
    a.tma_store_off = c->tma_store_off;
    a.tma_early_off = c->tma_early_off;
    a.tma_store_drain = c->tma_store_drain;
    a.halo_prefetch = c->halo_prefetch;
    a.pdl = c->batches && n >= 1 && n <= c->max_batch ? c->batches[n].pdl : 0; /* 0 while tuning */
    return a;
}

#define MERGE_TRY(call)                                                                                     \
    do {                                                                                                     \
        cudaError_t e_ = (call);                                                                             \
        if (e_ != cudaSuccess) return i8_fail(err, INFER8_E_DEVICE, "cuda: sibling merge: %s: %s", #call, cudaGetErrorString(e_)); \
    } while (0)

/* Sibling group k's arguments at batch n: the first node's, with the group's weights and c_out,
 * and the table of each sibling's outputs (*o) */
static i8_cuda_fp8_conv_args merged_args(const cu_ctx *c, int n, int k, int wsi, i8_cuda_fp8_outs *o) {
    const cu_merge *m = &c->merges[k];
    cu_conv_sig g;
    i8_cuda_conv_sig(c, m->nodes[0], &g);
    i8_cuda_fp8_conv_args a = fp8_args(c, n, &g, m->nodes[0], wsi);
    a.wq = m->wq, a.mult = m->mult, a.bias = m->bias, a.c_out = m->c_out;
    a.y = a.yq = NULL;
    memset(o, 0, sizeof *o);
    o->n = m->n;
    for (int j = 0, c0 = 0; j < m->n; j++) {
        const int node = m->nodes[j];
        const cu_storage *st = &c->stor[c->views[node].storage];
        o->c0[j] = c0, c0 += c->g->nodes[node].c, o->c0[j + 1] = c0;
        o->y[j] = st->no_f16 ? NULL : i8_cuda_view_ptr(c, node);
        o->yq[j] = st->q ? i8_cuda_view_qptr(c, node) : NULL;
        o->ld[j] = i8_cuda_view_ld(c, node);
        o->inv[j] = st->q ? i8_fp8_inv_scale(st->q_scale) : 1.0f;
        if (o->y[j] && !a.y) a.y = o->y[j], a.y_ld = o->ld[j]; /* "some range has fp16 output" */
        if (o->yq[j] && !a.yq) a.yq = o->yq[j], a.y_ld = o->ld[j];
    }
    return a;
}

int i8_cuda_fp8_merged_launch(cu_ctx *c, int n, int group, int wide, cudaStream_t s, int wsi) {
    i8_cuda_fp8_outs o;
    const i8_cuda_fp8_conv_args a = merged_args(c, n, group, wsi, &o);
    return i8_cuda_conv_fp8_tma_multi(&a, &o, wide, s);
}

/* whether node i may join a sibling group reading `input`: an FP8 1x1 stride-1 conv without
 * residual that reads the input's e4m3 twin */
static int merge_candidate(const cu_ctx *c, int i, int input) {
    const i8_node *nd = &c->g->nodes[i];
    return is_fp8_conv(nd) && nd->n_inputs == 1 && nd->inputs[0] == input && nd->residual < 0 && nd->kh == 1 &&
           nd->kw == 1 && nd->sh == 1 && nd->sw == 1 && !nd->ph && !nd->pw && nd->c % 8 == 0 &&
           i8_cuda_view_qptr(c, input) != NULL && c->rt[i].wq && c->rt[i].mult && c->rt[i].b32;
}

infer8_status i8_cuda_fp8_merge_plan(cu_ctx *c, i8_err *err) {
    const i8_graph *g = c->g;
    const char *env = getenv("INFER8_CUDA_MERGE");
    c->merge_mode = env ? atoi(env) : 1;
    if (!c->fp8 || c->merge_mode <= 0) return INFER8_OK;
    const int n = g->n_nodes;
    c->merges = i8_calloc((size_t)n, sizeof(cu_merge), err);
    if (!c->merges) return err->code;
    for (int p = 0; p < n; p++) {
        cu_merge m;
        memset(&m, 0, sizeof m);
        int relu = -1;
        for (int i = p + 1; i < n && m.n < I8_FP8_MAX_OUTS; i++) {
            if (!merge_candidate(c, i, p) || c->rt[i].merge_group) continue;
            const int r = g->nodes[i].act == I8_ACT_RELU;
            if (relu >= 0 && r != relu) continue;
            relu = r, m.nodes[m.n++] = i, m.c_out += g->nodes[i].c;
        }
        if (m.n < 2) continue;
        /* the merged kernel must take these outputs (alignment, strides): the table at batch 1 */
        const int k = c->n_merges;
        c->merges[k] = m;
        i8_cuda_fp8_outs o;
        i8_cuda_fp8_conv_args a = merged_args(c, 1, k, 0, &o);
        if (!i8_cuda_conv_fp8_tma_multi_fits(&a, &o)) continue;
        c->n_merges++; /* counted now, so that destroy frees whatever the steps below allocated */
        /* concatenated weights, multipliers and biases, copied on the device; each sibling then
         * reads its own rows of them and its separate copies are freed, so that merging costs no
         * device memory (the separate kernels take any 16-byte aligned weights: offsets are
         * multiples of 8 channels) */
        const size_t kin = (size_t)c->rt[m.nodes[0]].c_in_phys;
        cu_merge *mm = &c->merges[k];
        MERGE_TRY(cudaMalloc((void **)&mm->wq, (size_t)m.c_out * kin));
        MERGE_TRY(cudaMalloc((void **)&mm->mult, (size_t)m.c_out * 4));
        MERGE_TRY(cudaMalloc((void **)&mm->bias, (size_t)m.c_out * 4));
        for (int j = 0, c0 = 0; j < m.n; j++) {
            const int i = m.nodes[j], co = g->nodes[i].c;
            if (c->rt[i].c_in_phys != (int)kin)
                return i8_fail(err, INFER8_E_INTERNAL, "cuda: sibling convs '%s' and '%s' read one input with different widths",
                               g->nodes[m.nodes[0]].name, g->nodes[i].name);
            MERGE_TRY(cudaMemcpy(mm->wq + (size_t)c0 * kin, c->rt[i].wq, (size_t)co * kin, cudaMemcpyDeviceToDevice));
            MERGE_TRY(cudaMemcpy(mm->mult + c0, c->rt[i].mult, (size_t)co * 4, cudaMemcpyDeviceToDevice));
            MERGE_TRY(cudaMemcpy(mm->bias + c0, c->rt[i].b32, (size_t)co * 4, cudaMemcpyDeviceToDevice));
            cudaFree(c->rt[i].wq), cudaFree(c->rt[i].mult), cudaFree(c->rt[i].b32);
            c->rt[i].wq = mm->wq + (size_t)c0 * kin, c->rt[i].mult = mm->mult + c0, c->rt[i].b32 = mm->bias + c0;
            c->rt[i].merge_group = k + 1; /* its weights are the group's: destroy frees them there */
            c0 += co;
        }
        /* the first node's event: siblings on other lanes wait for it when merged */
        if (!c->ev[m.nodes[0]]) MERGE_TRY(cudaEventCreateWithFlags(&c->ev[m.nodes[0]], cudaEventDisableTiming));
    }
    return INFER8_OK;
}

/* pair k's two argument sets at batch n (split-K workspace wsi, unused by the pair kernels) */
static void pair_args(const cu_ctx *c, int n, int k, int wsi, i8_cuda_fp8_conv_args *a1, i8_cuda_fp8_conv_args *a2) {
    cu_conv_sig g1, g2;
    i8_cuda_conv_sig(c, c->pairs[k].first, &g1);
    i8_cuda_conv_sig(c, c->pairs[k].second, &g2);
    *a1 = fp8_args(c, n, &g1, c->pairs[k].first, wsi);
    *a2 = fp8_args(c, n, &g2, c->pairs[k].second, wsi);
}

int i8_cuda_fp8_pair_fits(const cu_ctx *c, int n, int k, int variant) {
    i8_cuda_fp8_conv_args a1, a2;
    pair_args(c, n, k, 0, &a1, &a2);
    return i8_cuda_conv_fp8_pair_fits(&a1, &a2, variant);
}

int i8_cuda_fp8_pair_launch(cu_ctx *c, int n, int k, int variant, cudaStream_t s, int wsi) {
    i8_cuda_fp8_conv_args a1, a2;
    pair_args(c, n, k, wsi, &a1, &a2);
    return i8_cuda_conv_fp8_pair(&a1, &a2, variant, s);
}

/* the arena bytes storage s spans (max_batch images) */
static void storage_span(const cu_ctx *c, int s, size_t *lo, size_t *hi) {
    *lo = c->stor[s].offset;
    *hi = *lo + (c->stor[s].bytes_per_image * (size_t)c->max_batch + 255) / 256 * 256;
}

/* whether FP8 spatial conv j, the one reader of the FP8 1x1 i, makes a pair with it
 * (i8_cuda_fp8_pair_plan; a pair variant must also run them) */
static int pair_candidate(const cu_ctx *c, int i, int j) {
    const i8_graph *g = c->g;
    const i8_node *a = &g->nodes[i], *b = &g->nodes[j];
    if (!is_fp8_conv(a) || !is_fp8_conv(b) || a->n_inputs != 1 || a->residual >= 0 || b->residual >= 0 || a->kh != 1 ||
        a->kw != 1 || a->sh != 1 || a->sw != 1 || a->ph || a->pw || i == g->output || (b->kh == 1 && b->kw == 1) ||
        !c->rt[i].wq || !c->rt[j].wq || !c->rt[i].mult || !c->rt[j].mult)
        return 0;
    const cu_storage *st = &c->stor[c->views[i].storage];
    if (!st->q || !st->no_f16) return 0; /* the intermediate: read as e4m3 only */
    size_t in_lo, in_hi, out_lo, out_hi;
    storage_span(c, c->views[a->inputs[0]].storage, &in_lo, &in_hi);
    storage_span(c, c->views[j].storage, &out_lo, &out_hi);
    return out_hi <= in_lo || in_hi <= out_lo;
}

infer8_status i8_cuda_fp8_pair_plan(cu_ctx *c, i8_err *err) {
    const i8_graph *g = c->g;
    /* opt-in: sessions 54-55 measured every pair kernel slower than its two convs (docs/performance.md) */
    const char *env = getenv("INFER8_CUDA_PAIR");
    c->pair_mode = env ? atoi(env) : 0;
    if (!c->fp8 || c->pair_mode <= 0) return INFER8_OK;
    c->pairs = i8_calloc((size_t)g->n_nodes, sizeof(cu_pair), err);
    int *readers = i8_calloc((size_t)g->n_nodes, sizeof(int), err);
    if (!c->pairs || !readers) {
        free(readers);
        return err->code;
    }
    for (int m = 0; m < g->n_nodes; m++)
        for (int q = 0; q < g->nodes[m].n_inputs; q++) readers[g->nodes[m].inputs[q]]++;
    for (int j = 0; j < g->n_nodes; j++) {
        if (g->nodes[j].n_inputs != 1) continue;
        const int i = g->nodes[j].inputs[0]; /* read by j alone, so in no other pair */
        if (readers[i] != 1 || !pair_candidate(c, i, j)) continue;
        const int k = c->n_pairs;
        c->pairs[k].first = i, c->pairs[k].second = j;
        int fits = 0;
        for (int v = 0; v < I8_FP8_PAIR_VARIANTS; v++) fits |= i8_cuda_fp8_pair_fits(c, 1, k, v);
        if (!fits) continue;
        c->rt[i].pair = c->rt[j].pair = k + 1;
        c->n_pairs++;
    }
    free(readers);
    return INFER8_OK;
}

int i8_cuda_fp8_launch(cu_ctx *c, int n, const cu_conv_sig *g, int node, int variant, cudaStream_t s, int wsi) {
    const i8_cuda_fp8_conv_args a = fp8_args(c, n, g, node, wsi);
    return i8_cuda_conv_fp8(&a, variant, s);
}

int i8_cuda_fp8_fits(const cu_ctx *c, int n, const cu_conv_sig *g, int node, int variant) {
    const i8_cuda_fp8_conv_args a = fp8_args(c, n, g, node, 0);
    return i8_cuda_conv_fp8_fits(&a, variant);
}

/* ---- cuBLASLt e4m3 GEMM for 1x1 FP8 convs (experimental: INFER8_CUDA_FP8_LT=1) ----
 * D[c_out x pixels] = epilogue(A^T B) with A = the e4m3 weight codes [c_out][c_in] (K-major),
 * B = the input's e4m3 twin (NHWC: a pixel's channels are contiguous), outer-vector scales
 * mult[o] (input scale x weight scale x residual scale) for A's rows and 1.0f for B's columns,
 * fp16 bias and ReLU in the epilogue; D is the e4m3 twin (D scale 1 / out_scale) or the fp16
 * output (C = fp16 residual x with beta 1, else beta 0). Same numbers as the own kernel up to
 * summation order (both quantize v itself, docs/fp8.md); i8_cuda_fp8_lt_check compares it
 * with the own kernel before a GEMM is used. */

int i8_cuda_fp8_lt_fits(const cu_ctx *c, const cu_conv_sig *g) {
    if (!c->fp8_lt || !g->fp8 || !g->a_q || g->kh != 1 || g->kw != 1 || g->sh != 1 || g->sw != 1 || g->ph || g->pw)
        return 0;
    if (g->c_in % 16 || g->x_ld % 16 || g->c_out % 8) return 0;
    if (g->out_q && !g->out_f16) return g->res_mode == I8_FP8_RES_NONE;     /* e4m3 only */
    if (g->out_f16 && !g->out_q) return g->res_mode == I8_FP8_RES_NONE || g->res_mode == I8_FP8_RES_F16;
    return 0;                                                            /* dual output: own kernel */
}

int i8_cuda_fp8_lt_setup(cu_ctx *c, int n, cu_conv_plan *p, int node, cublasLtMatmulHeuristicResult_t *res, int max) {
    const cu_conv_sig *g = &p->sig;
    const cu_node_rt *rt = &c->rt[node];
    const i8_node *nd = &c->g->nodes[node];
    uint64_t m = (uint64_t)n * g->h * g->w, k = (uint64_t)g->c_in, co = (uint64_t)g->c_out;
    if (m > c->n_ones || !rt->b16 || !rt->dscale) return 0;
    int32_t vec = CUBLASLT_MATMUL_MATRIX_SCALE_OUTER_VEC_32F;
    const void *as = rt->mult, *bs = c->ones, *ds = rt->dscale;
    const int e4m3_out = g->out_q;
    const int64_t ldc = e4m3_out ? (int64_t)co : g->res_mode == I8_FP8_RES_F16 ? g->res_ld : g->y_ld;
    if (!i8_cuda_lt_desc(c, p, g->relu, rt->b16, CUDA_R_16F) ||
        c->lt_fn.desc_set_attribute(p->mm, CUBLASLT_MATMUL_DESC_A_SCALE_MODE, &vec, sizeof vec) ||
        c->lt_fn.desc_set_attribute(p->mm, CUBLASLT_MATMUL_DESC_B_SCALE_MODE, &vec, sizeof vec) ||
        c->lt_fn.desc_set_attribute(p->mm, CUBLASLT_MATMUL_DESC_A_SCALE_POINTER, &as, sizeof as) ||
        c->lt_fn.desc_set_attribute(p->mm, CUBLASLT_MATMUL_DESC_B_SCALE_POINTER, &bs, sizeof bs) ||
        (e4m3_out && c->lt_fn.desc_set_attribute(p->mm, CUBLASLT_MATMUL_DESC_D_SCALE_POINTER, &ds, sizeof ds)) ||
        c->lt_fn.layout_create(&p->la, CUDA_R_8F_E4M3, k, co, (int64_t)k) ||
        c->lt_fn.layout_create(&p->lb, CUDA_R_8F_E4M3, k, m, g->x_ld) ||
        c->lt_fn.layout_create(&p->lc, CUDA_R_16F, co, m, ldc) ||
        c->lt_fn.layout_create(&p->ld, e4m3_out ? CUDA_R_8F_E4M3 : CUDA_R_16F, co, m, g->y_ld))
        return 0;
    uint32_t al_b = (uint32_t)i8_cuda_align_of(i8_cuda_view_qptr(c, nd->inputs[0]));
    uint32_t al_d = (uint32_t)i8_cuda_align_of(e4m3_out ? i8_cuda_view_qptr(c, node) : i8_cuda_view_ptr(c, node));
    uint32_t al_c = e4m3_out ? 256 : g->res_mode == I8_FP8_RES_F16 ? (uint32_t)g->align_r : al_d;
    return i8_cuda_lt_heuristic(c, p, 16, al_b, al_c, al_d, res, max);
}

int i8_cuda_fp8_lt_launch(cu_ctx *c, int n, const cu_conv_plan *p, int node, cudaStream_t s, int wsi) {
    const cu_conv_sig *g = &p->sig;
    const i8_node *nd = &c->g->nodes[node];
    (void)n;
    const void *x = i8_cuda_view_qptr(c, nd->inputs[0]), *a = c->rt[node].wq;
    void *d = g->out_q ? i8_cuda_view_qptr(c, node) : i8_cuda_view_ptr(c, node);
    const void *cm = g->out_q ? c->lt8_c : g->res_mode == I8_FP8_RES_F16 ? i8_cuda_view_ptr(c, nd->inputs[1]) : d;
    float alpha = 1.0f, beta = !g->out_q && g->res_mode == I8_FP8_RES_F16 ? 1.0f : 0.0f;
    cublasLtMatmulAlgo_t algo;
    memcpy(&algo, p->tac.algo, sizeof algo);
    return (int)c->lt_fn.matmul(c->lt, p->mm, &alpha, a, p->la, x, p->lb, &beta, cm, p->lc, d, p->ld, &algo,
                                c->ws[wsi], CU_WORKSPACE_BYTES, s);
}

/* Copies node's output slice (n images) to host: its e4m3 codes (q) or its fp16 halves. */
static int fetch_output(cu_ctx *c, int n, const cu_conv_sig *g, int node, int q, void *host) {
    size_t pixels = (size_t)n * g->ho * g->wo, elem = q ? 1 : 2;
    const void *src = q ? i8_cuda_view_qptr(c, node) : i8_cuda_view_ptr(c, node);
    return cudaMemcpy2D(host, (size_t)g->c_out * elem, src, (size_t)g->y_ld * elem, (size_t)g->c_out * elem, pixels,
                        cudaMemcpyDeviceToHost) == cudaSuccess;
}

/* fp16 outputs agree: max |got - want| <= F16_TOL max |want| (a NaN difference never does);
 * *maxd, *maxr: those two maxima, for reports */
#define F16_TOL 1e-2
static int halves_close(const uint16_t *want, const uint16_t *got, size_t count, double *maxd, double *maxr) {
    *maxd = 0.0, *maxr = 0.0;
    for (size_t i = 0; i < count; i++) {
        double a = i8_f16_to_f32(want[i]), b = i8_f16_to_f32(got[i]), d = fabs(a - b);
        if (!(d <= *maxd)) *maxd = d;
        if (fabs(a) > *maxr) *maxr = fabs(a);
    }
    return *maxd <= F16_TOL * *maxr;
}

/* Runs launch (own kernel or candidate) and fetches every output the node writes. */
static int run_and_fetch(cu_ctx *c, int n, const cu_conv_sig *g, int node, int (*launch)(void *user, cudaStream_t s),
                         void *user, uint8_t *q, uint16_t *h) {
    cudaStream_t s = c->streams[0];
    return !launch(user, s) && cudaStreamSynchronize(s) == cudaSuccess &&
           (!g->out_q || fetch_output(c, n, g, node, 1, q)) && (!g->out_f16 || fetch_output(c, n, g, node, 0, h));
}

typedef struct own_launch_args {
    cu_ctx *c;
    int n, node, variant;
    const cu_conv_sig *g;
} own_launch_args;

static int own_launch_cb(void *user, cudaStream_t s) {
    const own_launch_args *a = user;
    return i8_cuda_fp8_launch(a->c, a->n, a->g, a->node, a->variant, s, 0);
}

/* Finite random values for a tensor the check feeds a kernel ([rows][cols], row stride ld
 * elements): e4m3 codes |x| <= 1.875 of both signs, or fp16 halves 1/8 <= |x| < 2. The arena
 * holds a fill pattern whose bytes include NaN codes and huge halves. Uploaded on stream s and
 * waited for: a plain cudaMemcpy from pageable memory may return before its DMA lands, and
 * does not order the backend's non-blocking streams (until session 14 the reference kernel,
 * run first, read the last rows before they arrived, and 12 correct candidates were rejected
 * per run). Returns the values as uploaded (packed rows), NULL on failure. */
static void *fill_finite(void *dst, size_t ld, size_t rows, size_t cols, int codes, uint32_t *r, cudaStream_t s) {
    const size_t elem = codes ? 1 : 2, row_bytes = cols * elem, bytes = rows * row_bytes;
    uint8_t *vals = malloc(bytes > 0 ? bytes : 1);
    if (!vals) return NULL;
    for (size_t i = 0; i < rows * cols; i++) {
        *r ^= *r << 13, *r ^= *r >> 17, *r ^= *r << 5;
        if (codes) vals[i] = (uint8_t)(*r & 0xbf); /* sign bit and codes 0..0x3f */
        else ((uint16_t *)vals)[i] = (uint16_t)((*r & 0x8000u) | (0x3000u + (*r >> 20) % 0x1000u));
    }
    if (cudaMemcpy2DAsync(dst, ld * elem, vals, row_bytes, row_bytes, rows, cudaMemcpyHostToDevice, s) != cudaSuccess ||
        cudaStreamSynchronize(s) != cudaSuccess) {
        free(vals);
        return NULL;
    }
    return vals;
}

/* One line on how far `got` is from `want` (e4m3 codes and / or fp16 halves, [rows][c_out]),
 * and the BM x 64 output tiles (BM 128) holding its wrong values: a code more than one step
 * and I8_FP8_NEAR_ZERO of the largest away (i8_fp8_code_far), or a half more than F16_TOL of
 * the largest away (halves_close's rule). */
static void explain_diff(const char *what, const cu_conv_sig *g, size_t rows, const uint8_t *wq, const uint8_t *gq,
                         const uint16_t *wh, const uint16_t *gh) {
    const size_t co = (size_t)g->c_out, count = rows * co;
    i8_fp8_codes_diff d = {0};
    double maxd = 0.0, maxr = 0.0;
    if (g->out_q) i8_fp8_codes_compare(wq, gq, count, &d);
    if (g->out_f16) halves_close(wh, gh, count, &maxd, &maxr);
    const size_t mt = (rows + 127) / 128, nt = (co + 63) / 64;
    unsigned char *bad_tile = calloc(mt * nt, 1);
    size_t bad = 0, first = count;
    for (size_t i = 0; i < count; i++) {
        int b = 0;
        if (g->out_q && wq[i] != gq[i] && i8_fp8_code_far(wq[i], gq[i], d.max_want)) b = 1;
        if (g->out_f16 && !(fabs((double)i8_f16_to_f32(wh[i]) - i8_f16_to_f32(gh[i])) <= F16_TOL * maxr)) b = 1;
        if (!b) continue;
        if (first == count) first = i;
        bad++;
        if (bad_tile) bad_tile[(i / co / 128) * nt + (i % co) / 64] = 1;
    }
    fprintf(stderr, "cuda fp8 check:   %s: codes differing %zu (far %zu, NaN %zu), fp16 max |diff| %.3g of %.3g; %zu wrong",
            what, d.differ, d.far, d.nan, maxd, maxr, bad);
    if (bad) {
        const size_t m = first / co, o = first % co;
        fprintf(stderr, ", first at row %zu (tile row %zu) channel %zu: want %g / %g, got %g / %g", m, m % 128, o,
                g->out_q ? (double)i8_fp8_to_f32(wq[first]) : 0.0, g->out_f16 ? (double)i8_f16_to_f32(wh[first]) : 0.0,
                g->out_q ? (double)i8_fp8_to_f32(gq[first]) : 0.0, g->out_f16 ? (double)i8_f16_to_f32(gh[first]) : 0.0);
        size_t tiles = 0;
        for (size_t t = 0; bad_tile && t < mt * nt; t++) tiles += bad_tile[t];
        fprintf(stderr, "; wrong tiles (128 x 64) %zu of %zu:", tiles, mt * nt);
        for (size_t t = 0, shown = 0; bad_tile && t < mt * nt && shown < 16; t++)
            if (bad_tile[t]) fprintf(stderr, " %zu,%zu", t / nt, t % nt), shown++;
    }
    fputc('\n', stderr);
    free(bad_tile);
}

/* Under INFER8_CUDA_DEBUG, after a rejection: is the input still what was uploaded (a run that
 * overwrote it would make the two disagree), does the candidate repeat its output, and which of
 * the two is wrong, against a float computation here (pointwise convs on e4m3 input without a
 * residual, up to 2^30 multiply-adds). in_vals: the input as uploaded, packed rows. */
static void explain_rejection(cu_ctx *c, int n, const cu_conv_sig *g, int node, const uint8_t *in_vals,
                              int (*launch)(void *user, cudaStream_t s), void *user, const uint8_t *wq,
                              const uint16_t *wh, const uint8_t *gq, const uint16_t *gh) {
    const i8_node *nd = &c->g->nodes[node];
    const size_t rows_in = (size_t)n * g->h * g->w, elem = g->a_q ? 1 : 2, row_bytes = (size_t)g->c_in * elem;
    const size_t rows = (size_t)n * g->ho * g->wo, co = (size_t)g->c_out, count = rows * co, ci = (size_t)g->c_in;
    uint8_t *in_now = malloc(rows_in * row_bytes), *q2 = malloc(count), *rq = malloc(count);
    uint16_t *h2 = malloc(count * 2), *rh = malloc(count * 2);
    uint8_t *w = malloc(co * ci);
    float *mult = malloc(co * 4), *bias = malloc(co * 4);
    if (!in_now || !q2 || !rq || !h2 || !rh || !w || !mult || !bias) goto done;
    const void *src = g->a_q ? i8_cuda_view_qptr(c, nd->inputs[0]) : i8_cuda_view_ptr(c, nd->inputs[0]);
    if (cudaMemcpy2D(in_now, row_bytes, src, (size_t)g->x_ld * elem, row_bytes, rows_in, cudaMemcpyDeviceToHost) ==
        cudaSuccess) {
        size_t changed = 0;
        for (size_t i = 0; i < rows_in * row_bytes; i++) changed += in_now[i] != in_vals[i];
        fprintf(stderr, "cuda fp8 check:   input after both runs: %zu of %zu bytes changed\n", changed,
                rows_in * row_bytes);
    }
    if (run_and_fetch(c, n, g, node, launch, user, q2, h2))
        explain_diff("candidate run again vs its first run", g, rows, gq, q2, gh, h2);
    const cu_node_rt *rt = &c->rt[node];
    if (!(g->kh == 1 && g->kw == 1 && g->sh == 1 && g->sw == 1 && !g->ph && !g->pw && g->a_q &&
          g->res_mode == I8_FP8_RES_NONE && (double)count * (double)ci <= 1073741824.0))
        goto done;
    if (cudaMemcpy(w, rt->wq, co * ci, cudaMemcpyDeviceToHost) != cudaSuccess ||
        cudaMemcpy(mult, rt->mult, co * 4, cudaMemcpyDeviceToHost) != cudaSuccess ||
        cudaMemcpy(bias, rt->b32, co * 4, cudaMemcpyDeviceToHost) != cudaSuccess)
        goto done;
    const float y_inv = g->out_q ? i8_fp8_inv_scale(c->stor[c->views[node].storage].q_scale) : 0.0f;
    float *wf = malloc(co * ci * 4), *xrow = malloc(ci * 4);
    if (!wf || !xrow) {
        free(wf);
        free(xrow);
        goto done;
    }
    i8_fp8_dequantize(w, co * ci, 1.0f, wf);
    for (size_t m = 0; m < rows; m++) {
        i8_fp8_dequantize(in_vals + m * ci, ci, 1.0f, xrow);
        for (size_t o = 0; o < co; o++) {
            float acc = 0.0f;
            for (size_t k = 0; k < ci; k++) acc += xrow[k] * wf[o * ci + k];
            float v = acc * mult[o] + bias[o];
            if (g->relu && v < 0.0f) v = 0.0f;
            rh[m * co + o] = i8_f32_to_f16(v);
            rq[m * co + o] = i8_fp8_from_f32(v * y_inv);
        }
    }
    free(wf);
    free(xrow);
    explain_diff("reference kernel vs host", g, rows, rq, wq, rh, wh);
    explain_diff("candidate vs host", g, rows, rq, gq, rh, gh);
done:
    free(in_now);
    free(q2);
    free(rq);
    free(h2);
    free(rh);
    free(w);
    free(mult);
    free(bias);
}

/* Whether node's outputs (n images) after `ref` and after `cand` (each launched on stream 0, then
 * fetched) agree: e4m3 codes by i8_fp8_codes_diff_close, fp16 within F16_TOL of max |want|. With
 * INFER8_CUDA_DEBUG a disagreement is reported under `what`, and explained (explain_rejection)
 * where in_vals, the input the check filled, is given. */
static int outputs_agree(cu_ctx *c, int n, const cu_conv_sig *g, int node, const char *what,
                         int (*ref)(void *user, cudaStream_t s), void *ref_user, int (*cand)(void *user, cudaStream_t s),
                         void *cand_user, const uint8_t *in_vals) {
    const size_t count = (size_t)n * g->ho * g->wo * (size_t)g->c_out;
    uint8_t *wq = malloc(count), *gq = malloc(count);
    uint16_t *wh = malloc(count * 2), *gh = malloc(count * 2);
    int ok = 0;
    if (wq && gq && wh && gh && run_and_fetch(c, n, g, node, ref, ref_user, wq, wh) &&
        run_and_fetch(c, n, g, node, cand, cand_user, gq, gh)) {
        i8_fp8_codes_diff d = {0};
        double maxd = 0.0, maxr = 0.0;
        if (g->out_q) i8_fp8_codes_compare(wq, gq, count, &d);
        const int q_ok = !g->out_q || i8_fp8_codes_diff_close(&d);
        const int h_ok = !g->out_f16 || halves_close(wh, gh, count, &maxd, &maxr);
        ok = q_ok && h_ok;
        /* why a candidate is rejected (is it rounding near zero, or a wrong kernel?) */
        if (!ok && getenv("INFER8_CUDA_DEBUG")) {
            fprintf(stderr,
                    "cuda fp8 check: %s b%d: e4m3 codes differing %zu of %zu (%.3f%%, at most 1%%), %zu more than one "
                    "step and %.1e of max apart, %zu NaN (max |want| %.3g); fp16 max |diff| %.3g of max |want| %.3g "
                    "(at most 1e-2)\n",
                    what, n, d.differ, d.count, d.count ? 100.0 * (double)d.differ / (double)d.count : 0.0, d.far,
                    I8_FP8_NEAR_ZERO, d.nan, (double)d.max_want, maxr > 0.0 ? maxd / maxr : maxd, maxr);
            if (in_vals) explain_rejection(c, n, g, node, in_vals, cand, cand_user, wq, wh, gq, gh);
        }
    }
    cudaGetLastError();
    free(wq);
    free(gq);
    free(wh);
    free(gh);
    return ok;
}

int i8_cuda_fp8_check(cu_ctx *c, int n, const cu_conv_sig *g, int node, int own_variant,
                      int (*launch)(void *user, cudaStream_t s), void *user) {
    /* finite inputs (and residual), so that the two outputs can be compared */
    const i8_node *nd = &c->g->nodes[node];
    uint32_t r = 2463534242u;
    void *dst = g->a_q ? i8_cuda_view_qptr(c, nd->inputs[0]) : i8_cuda_view_ptr(c, nd->inputs[0]);
    uint8_t *in_vals = fill_finite(dst, (size_t)g->x_ld, (size_t)n * g->h * g->w, (size_t)g->c_in, g->a_q, &r, c->streams[0]);
    if (!in_vals) return 0;
    if (g->res_mode != I8_FP8_RES_NONE) {
        const int res = nd->inputs[1], codes = g->res_mode == I8_FP8_RES_Q;
        void *rdst = codes ? i8_cuda_view_qptr(c, res) : i8_cuda_view_ptr(c, res);
        void *rvals = fill_finite(rdst, (size_t)i8_cuda_view_ld(c, res), (size_t)n * g->ho * g->wo, (size_t)g->c_out, codes,
                                  &r, c->streams[0]);
        if (!rvals) {
            free(in_vals);
            return 0;
        }
        free(rvals);
    }
    own_launch_args own = {c, n, node, own_variant, g};
    const int ok = outputs_agree(c, n, g, node, nd->name, own_launch_cb, &own, launch, user, in_vals);
    free(in_vals);
    return ok;
}

typedef struct pair_launch_args {
    cu_ctx *c;
    int n, k, variant;
} pair_launch_args;

/* the reference: the pair's two convs on the plain mma.sync kernel (variant 0), one after the other */
static int pair_ref_cb(void *user, cudaStream_t s) {
    const pair_launch_args *a = user;
    const cu_pair *p = &a->c->pairs[a->k];
    cu_conv_sig g1, g2;
    i8_cuda_conv_sig(a->c, p->first, &g1);
    i8_cuda_conv_sig(a->c, p->second, &g2);
    int rc = i8_cuda_fp8_launch(a->c, a->n, &g1, p->first, 0, s, 0);
    return rc ? rc : i8_cuda_fp8_launch(a->c, a->n, &g2, p->second, 0, s, 0);
}
static int pair_cb(void *user, cudaStream_t s) {
    const pair_launch_args *a = user;
    return i8_cuda_fp8_pair_launch(a->c, a->n, a->k, a->variant, s, 0);
}

int i8_cuda_fp8_pair_check(cu_ctx *c, int n, int k, int variant) {
    const cu_pair *p = &c->pairs[k];
    cu_conv_sig g1, g2;
    i8_cuda_conv_sig(c, p->first, &g1);
    i8_cuda_conv_sig(c, p->second, &g2);
    uint32_t r = 2463534242u;
    uint8_t *in_vals = fill_finite(i8_cuda_view_qptr(c, c->g->nodes[p->first].inputs[0]), (size_t)g1.x_ld,
                                   (size_t)n * g1.h * g1.w, (size_t)g1.c_in, 1, &r, c->streams[0]);
    if (!in_vals) return 0;
    free(in_vals);
    char what[160];
    snprintf(what, sizeof what, "pair %s -> %s on %s", c->g->nodes[p->first].name, c->g->nodes[p->second].name,
             i8_cuda_conv_fp8_pair_name(variant));
    pair_launch_args a = {c, n, k, variant};
    return outputs_agree(c, n, &g2, p->second, what, pair_ref_cb, &a, pair_cb, &a, NULL);
}

int i8_cuda_fp8_variant_check(cu_ctx *c, int n, const cu_conv_sig *g, int node, int own_variant, int variant) {
    own_launch_args a = {c, n, node, variant, g};
    return i8_cuda_fp8_check(c, n, g, node, own_variant, own_launch_cb, &a);
}

typedef struct lt_launch_args {
    cu_ctx *c;
    int n, node;
    const cu_conv_plan *p;
} lt_launch_args;

static int lt_launch_cb(void *user, cudaStream_t s) {
    const lt_launch_args *a = user;
    return i8_cuda_fp8_lt_launch(a->c, a->n, a->p, a->node, s, 0);
}

int i8_cuda_fp8_lt_check(cu_ctx *c, int n, const cu_conv_plan *p, int node, int own_variant) {
    lt_launch_args a = {c, n, node, p};
    return i8_cuda_fp8_check(c, n, &p->sig, node, own_variant, lt_launch_cb, &a);
}

/* ---- cuDNN e4m3 convolution graph (on unless INFER8_CUDA_FP8_DNN=0) ----
 * conv(x e4m3, w e4m3) in fp32 -> * mult[o] -> + bias[o] [-> + x fp16] [-> relu] -> fp16 output
 * and / or * (1 / out_scale) -> e4m3 output (graph in cuda_conv.c), the own kernel's numbers up
 * to summation order; i8_cuda_fp8_check compares it with the own kernel before it is timed. */
int i8_cuda_fp8_dnn_fits(const cu_ctx *c, const cu_conv_sig *g, int node) {
    if (!c->fp8_dnn || !g->fp8 || !g->a_q) return 0;
    if (g->res_mode != I8_FP8_RES_NONE && g->res_mode != I8_FP8_RES_F16) return 0;
    if (c->rt[node].c_in_phys != g->c_in || !c->rt[node].dscale) return 0;
    if (g->c_in % 16 || g->c_out % 16 || g->x_ld % 16 || g->y_ld % 16 || g->align_xq < 16) return 0;
    return !g->out_q || g->align_yq >= 16;
}

