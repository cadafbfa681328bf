/* CUDA backend (i8_backend_cuda): runs the optimized graph on one NVIDIA GPU with NHWC fp16
 * activations and fp32 accumulation.
 *
 * prepare: uploads weights (fp16, [c_out][kh][kw][c_in], residual scale folded in), places every
 *   node's output (concat inputs write straight into their channel slice of the concat buffer,
 *   nested concats included), plans the activation arena once by liveness over the dependency
 *   DAG (a buffer is reused only by a node that depends on every earlier user of it, so
 *   concurrent branches never share memory), and assigns streams (a node continues its first
 *   input's stream when it is that input's first consumer, otherwise it forks to another).
 * per batch size (first run / time_forward / profile of that size): tunes each distinct conv
 *   problem (cuda_conv.c), then captures the whole forward -- fork/join across the streams with
 *   events -- into one CUDA graph that later runs replay.
 * run: input copy (float32 NCHW) -> graph replay (its first node converts to NHWC fp16) ->
 *   logits copy (float32). Library and CUDA errors become INFER8_E_DEVICE at this boundary.
 * run_u8: the uint8 crops are copied instead (a quarter of the bytes) and the first node
 *   normalizes them on the GPU; a second graph per batch size, captured on first use.
 * FP8 graphs (conv precision I8_PREC_FP8): e4m3 twins of tensors read as FP8 and the e4m3 conv
 *   kernel, cuda_fp8.c / cuda_fp8.cu; fp16 graphs are planned and run exactly as before. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "backends/cuda/cuda_private.h"
#include "quant/calibrate.h"
#include "quant/fp8.h"

#define CU_TRY(call)                                                                                         \
    do {                                                                                                     \
        cudaError_t e_ = (call);                                                                             \
        if (e_ != cudaSuccess)                                                                               \
            return i8_fail(err, INFER8_E_DEVICE, "cuda: %s: %s", #call, cudaGetErrorString(e_));             \
    } while (0)

static double now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

int i8_cuda_device_count(void) {
    int n = 0;
    if (cudaGetDeviceCount(&n) != cudaSuccess) {
        cudaGetLastError();
        return 0;
    }
    return n;
}

static int is_f32_op(i8_op op) { return op == I8_OP_GLOBAL_AVGPOOL || op == I8_OP_LINEAR; }

void *i8_cuda_view_ptr(const cu_ctx *c, int node) {
    const cu_view *v = &c->views[node];
    const cu_storage *s = &c->stor[v->storage];
    return c->arena + s->offset + (size_t)v->ch_off * (s->f32 ? 4 : 2);
}

int i8_cuda_view_ld(const cu_ctx *c, int node) { return c->views[node].ld; }

/* ---------------------------------------------------------------- support */

static int cuda_supports_node(const i8_graph *g, const i8_node *nd) {
    switch (nd->op) {
    case I8_OP_INPUT:
    case I8_OP_MAXPOOL:
    case I8_OP_AVGPOOL:
    case I8_OP_CONCAT:
    case I8_OP_GLOBAL_AVGPOOL:
    case I8_OP_BATCHNORM:
    case I8_OP_RELU:
    case I8_OP_RESIDUAL: return 1;
    case I8_OP_CONV: {
        if (nd->n_inputs < 1 || nd->weight < 0) return 0;
        if (nd->residual >= 0 && nd->n_inputs < 2) return 0;
        /* FP8 convs run on the e4m3 kernel (cuda_fp8.cu), which needs the weight scales */
        if (nd->precision == I8_PREC_FP8 && nd->weight_scales < 0) return 0;
        if (nd->residual_fp8 && nd->residual < 0) return 0;
        const i8_node *in = &g->nodes[nd->inputs[0]];
        /* the own kernel moves 8 channels per 16-byte load; the image input is padded to 8 */
        return in->op == I8_OP_INPUT || in->c % 8 == 0;
    }
    case I8_OP_LINEAR: {
        if (nd->n_inputs < 1 || nd->weight < 0) return 0;
        const i8_node *in = &g->nodes[nd->inputs[0]];
        return in->h == 1 && in->w == 1; /* NHWC flatten equals NCHW flatten only at 1x1 */
    }
    default: return 0;
    }
}

/* ---------------------------------------------------------------- planning */

typedef uint64_t word;
#define BIT_SET(b, i) ((b)[(i) / 64] |= (word)1 << ((i) % 64))

/* Output placement (views, storages) with concat inputs aliased into their slices. */
static infer8_status place_outputs(cu_ctx *c, i8_err *err) {
    const i8_graph *g = c->g;
    int n = g->n_nodes;
    for (int i = n - 1; i >= 0; i--) {
        const i8_node *nd = &g->nodes[i];
        if (c->views[i].storage < 0) {
            int s = c->n_stor++;
            cu_storage *st = &c->stor[s];
            st->f32 = is_f32_op(nd->op);
            st->ld = nd->op == I8_OP_INPUT ? (nd->c + 7) / 8 * 8 : nd->c;
            size_t px;
            if (!i8_mul3_size((size_t)nd->h, (size_t)nd->w, (size_t)st->ld, &px) ||
                !i8_mul_size(px, st->f32 ? 4 : 2, &st->bytes_per_image))
                return i8_fail(err, INFER8_E_LIMIT, "cuda: node '%s': activation size overflows", nd->name);
            c->views[i] = (cu_view){s, 0, st->ld};
        }
        if (nd->op != I8_OP_CONCAT) continue;
        int off = c->views[i].ch_off;
        for (int j = 0; j < nd->n_inputs; j++) {
            int p = nd->inputs[j], dup = 0;
            for (int k = 0; k < nd->n_inputs; k++) dup |= k != j && nd->inputs[k] == p;
            const i8_node *pn = &g->nodes[p];
            if (!dup && c->views[p].storage < 0 && pn->op != I8_OP_INPUT && !is_f32_op(pn->op) && off % 8 == 0 &&
                c->views[i].ld % 8 == 0 && pn->h == nd->h && pn->w == nd->w) {
                c->views[p] = (cu_view){c->views[i].storage, off, c->views[i].ld};
                c->rt[i].alias_mask |= 1u << j;
            }
            off += pn->c;
        }
    }
    return INFER8_OK;
}

/* Liveness over the dependency DAG: storage S may take the memory of earlier storages only
 * when every node that touched them is an ancestor of every writer of S. */
static infer8_status plan_arena(cu_ctx *c, i8_err *err) {
    const i8_graph *g = c->g;
    int n = g->n_nodes, ns = c->n_stor, W = (n + 63) / 64;
    infer8_status rc = INFER8_OK;
    word *anc = i8_calloc((size_t)n * W, sizeof(word), err);
    word *users = i8_calloc((size_t)ns * W, sizeof(word), err);
    word *slot_users = i8_calloc((size_t)ns * W, sizeof(word), err);
    size_t *slot_size = i8_calloc((size_t)ns, sizeof(size_t), err);
    int *stor_slot = i8_calloc((size_t)ns, sizeof(int), err);
    int *first = i8_calloc((size_t)ns, sizeof(int), err);
    if (!anc || !users || !slot_users || !slot_size || !stor_slot || !first) {
        rc = err->code;
        goto out;
    }
    for (int s = 0; s < ns; s++) stor_slot[s] = -1, first[s] = -1;
    for (int i = 0; i < n; i++) {
        const i8_node *nd = &g->nodes[i];
        for (int j = 0; j < nd->n_inputs; j++) {
            int p = nd->inputs[j];
            for (int k = 0; k < W; k++) anc[(size_t)i * W + k] |= anc[(size_t)p * W + k];
            BIT_SET(&anc[(size_t)i * W], p);
            BIT_SET(&users[(size_t)c->views[p].storage * W], i);
        }
        int s = c->views[i].storage;
        BIT_SET(&users[(size_t)s * W], i);
        if (first[s] < 0) first[s] = i;
    }
    int n_slots = 0;
    for (int i = 0; i < n; i++) {
        int s = c->views[i].storage;
        if (first[s] != i) continue;
        size_t need;
        if (!i8_mul_size(c->stor[s].bytes_per_image, (size_t)c->max_batch, &need) || need > ((size_t)1 << 40)) {
            rc = i8_fail(err, INFER8_E_LIMIT, "cuda: node '%s': activation too large", g->nodes[i].name);
            goto out;
        }
        need = (need + 255) / 256 * 256;
        int best = -1;
        for (int k = 0; k < n_slots; k++) {
            int ok = 1;
            for (int w = i; w < n && ok; w++) { /* every writer of s */
                if (c->views[w].storage != s) continue;
                for (int q = 0; q < W; q++)
                    if (slot_users[(size_t)k * W + q] & ~anc[(size_t)w * W + q]) ok = 0;
            }
            if (!ok) continue;
            if (best < 0) best = k;
            else {
                int fits_k = slot_size[k] >= need, fits_b = slot_size[best] >= need;
                if ((fits_k && (!fits_b || slot_size[k] < slot_size[best])) ||
                    (!fits_k && !fits_b && slot_size[k] > slot_size[best]))
                    best = k;
            }
        }
        if (best < 0) best = n_slots++;
        if (slot_size[best] < need) slot_size[best] = need;
        for (int q = 0; q < W; q++) slot_users[(size_t)best * W + q] |= users[(size_t)s * W + q];
        stor_slot[s] = best;
    }
    size_t off = 0;
    size_t *slot_off = i8_calloc((size_t)(n_slots ? n_slots : 1), sizeof(size_t), err);
    if (!slot_off) {
        rc = err->code;
        goto out;
    }
    for (int k = 0; k < n_slots; k++) {
        slot_off[k] = off;
        if (!i8_add_size(off, slot_size[k], &off)) {
            free(slot_off);
            rc = i8_fail(err, INFER8_E_LIMIT, "cuda: activation arena size overflows");
            goto out;
        }
    }
    for (int s = 0; s < ns; s++) c->stor[s].offset = stor_slot[s] >= 0 ? slot_off[stor_slot[s]] : 0;
    c->arena_bytes = off;
    free(slot_off);
out:
    free(anc);
    free(users);
    free(slot_users);
    free(slot_size);
    free(stor_slot);
    free(first);
    return rc;
}

static void assign_streams(cu_ctx *c) {
    const i8_graph *g = c->g;
    int n = g->n_nodes, rr = 0;
    unsigned char *taken = calloc((size_t)n, 1);
    int used[CU_STREAMS] = {1};
    for (int i = 0; i < n; i++) {
        const i8_node *nd = &g->nodes[i];
        int s = 0;
        if (nd->n_inputs > 0) {
            int p = nd->inputs[0];
            if (taken && !taken[p]) {
                s = c->rt[p].stream;
                taken[p] = 1;
            } else {
                s = 1 + rr++ % (CU_STREAMS - 1);
            }
        }
        c->rt[i].stream = s;
        used[s] = 1;
        for (int j = 0; j < nd->n_inputs; j++)
            if (c->rt[nd->inputs[j]].stream != s) c->rt[nd->inputs[j]].need_event = 1;
    }
    c->streams_used = 0;
    for (int s = 0; s < CU_STREAMS; s++) c->streams_used += used[s];
    free(taken);
}

/* ---------------------------------------------------------------- weights */

static infer8_status upload(void **dst, const void *src, size_t bytes, i8_err *err) {
    CU_TRY(cudaMalloc(dst, bytes ? bytes : 16));
    CU_TRY(cudaMemcpy(*dst, src, bytes, cudaMemcpyHostToDevice));
    return INFER8_OK;
}

static infer8_status upload_node(cu_ctx *c, int i, i8_err *err) {
    const i8_graph *g = c->g;
    const i8_node *nd = &g->nodes[i];
    cu_node_rt *rt = &c->rt[i];
    infer8_status rc = INFER8_OK;
    uint16_t *w16 = NULL, *b16 = NULL;
    float *b32 = NULL, *al = NULL, *be = NULL;
    if (nd->op == I8_OP_CONV && nd->precision == I8_PREC_FP8) return i8_cuda_fp8_upload(c, i, err);
    if (nd->op == I8_OP_CONV) {
        const i8_node *in = &g->nodes[nd->inputs[0]];
        const i8_weight *wt = &g->weights[nd->weight];
        int ci = in->c, cp = c->stor[c->views[nd->inputs[0]].storage].ld, co = nd->c, kh = nd->kh, kw = nd->kw;
        if (in->op != I8_OP_INPUT) cp = ci;
        rt->c_in_phys = cp;
        if (wt->ndim != 4 || wt->shape[0] != co || wt->shape[1] != ci || wt->shape[2] != kh || wt->shape[3] != kw)
            return i8_fail(err, INFER8_E_SHAPE, "cuda: conv '%s': weight '%s' shape does not match the node", nd->name,
                           wt->name);
        float scale = nd->residual >= 0 ? nd->residual_scale : 1.0f;
        size_t count = (size_t)co * kh * kw * cp;
        w16 = i8_calloc(count, 2, err);
        b16 = i8_calloc((size_t)co, 2, err);
        b32 = i8_calloc((size_t)co, 4, err);
        if (!w16 || !b16 || !b32) {
            rc = err->code;
            goto out;
        }
        for (int o = 0; o < co; o++)
            for (int y = 0; y < kh; y++)
                for (int x = 0; x < kw; x++)
                    for (int k = 0; k < ci; k++)
                        w16[(((size_t)o * kh + y) * kw + x) * cp + k] =
                            i8_f32_to_f16(scale * wt->data[(((size_t)o * ci + k) * kh + y) * kw + x]);
        for (int o = 0; o < co; o++) {
            b32[o] = nd->bias >= 0 ? scale * g->weights[nd->bias].data[o] : 0.0f;
            b16[o] = i8_f32_to_f16(b32[o]);
        }
        if ((rc = upload(&rt->w16, w16, count * 2, err)) || (rc = upload(&rt->b16, b16, (size_t)co * 2, err)) ||
            (rc = upload((void **)&rt->b32, b32, (size_t)co * 4, err)))
            goto out;
        c->weight_bytes += count * 2 + (size_t)co * 6;
    } else if (nd->op == I8_OP_LINEAR) {
        const i8_weight *wt = &g->weights[nd->weight];
        const i8_node *in = &g->nodes[nd->inputs[0]];
        if (wt->ndim != 2 || wt->shape[0] != nd->c || wt->shape[1] != in->c)
            return i8_fail(err, INFER8_E_SHAPE, "cuda: linear '%s': weight '%s' shape does not match", nd->name,
                           wt->name);
        size_t count = (size_t)nd->c * in->c;
        w16 = i8_malloc(count * 2, err);
        b32 = i8_calloc((size_t)nd->c, 4, err);
        if (!w16 || !b32) {
            rc = err->code;
            goto out;
        }
        for (size_t k = 0; k < count; k++) w16[k] = i8_f32_to_f16(wt->data[k]);
        if (nd->bias >= 0) memcpy(b32, g->weights[nd->bias].data, (size_t)nd->c * 4);
        if ((rc = upload(&rt->w16, w16, count * 2, err)) || (rc = upload((void **)&rt->b32, b32, (size_t)nd->c * 4, err)))
            goto out;
        c->weight_bytes += count * 2 + (size_t)nd->c * 4;
    } else if (nd->op == I8_OP_AVGPOOL && nd->bias >= 0) { /* a pool moved below its 1x1 conv */
        if ((rc = upload((void **)&rt->b32, g->weights[nd->bias].data, (size_t)nd->c * 4, err))) goto out;
        c->weight_bytes += (size_t)nd->c * 4;
    } else if (nd->op == I8_OP_BATCHNORM) {
        int ch = nd->c;
        al = i8_malloc((size_t)ch * 4, err);
        be = i8_malloc((size_t)ch * 4, err);
        if (!al || !be) {
            rc = err->code;
            goto out;
        }
        for (int k = 0; k < ch; k++) {
            float inv = 1.0f / sqrtf(g->weights[nd->bn_var].data[k] + nd->bn_eps);
            al[k] = inv * g->weights[nd->bn_gamma].data[k];
            be[k] = g->weights[nd->bn_beta].data[k] - g->weights[nd->bn_mean].data[k] * al[k];
        }
        if ((rc = upload((void **)&rt->alpha, al, (size_t)ch * 4, err)) ||
            (rc = upload((void **)&rt->beta, be, (size_t)ch * 4, err)))
            goto out;
    }
out:
    free(w16);
    free(b16);
    free(b32);
    free(al);
    free(be);
    return rc;
}

/* ---------------------------------------------------------------- launching */

/* u8: the input node normalizes the uint8 images of in_stage_u8 (run_u8), else it converts the
 * floats of in_stage */
static int launch_node(cu_ctx *c, cu_batch *b, int i, cudaStream_t s, int ws_index, int u8) {
    const i8_graph *g = c->g;
    const i8_node *nd = &g->nodes[i];
    int n = b->n;
    void *y = i8_cuda_view_ptr(c, i);
    int y_ld = i8_cuda_view_ld(c, i);
    const i8_node *in = nd->n_inputs > 0 ? &g->nodes[nd->inputs[0]] : NULL;
    const void *x = in ? i8_cuda_view_ptr(c, nd->inputs[0]) : NULL;
    int x_ld = in ? i8_cuda_view_ld(c, nd->inputs[0]) : 0;
    size_t pixels = (size_t)n * nd->h * nd->w;
    switch (nd->op) {
    case I8_OP_INPUT:
        return u8 ? i8_cuda_input_u8_to_nhwc(c->in_stage_u8, n, g->input_h, g->input_w, c->u8_mean, c->u8_std,
                                                y, y_ld, s)
                  : i8_cuda_input_to_nhwc(c->in_stage, n, g->input_c, g->input_h, g->input_w, y, y_ld, s);
    case I8_OP_CONV: return i8_cuda_conv_launch(c, b, i, s, ws_index);
    case I8_OP_MAXPOOL:
    case I8_OP_AVGPOOL: {
        int mode = nd->op == I8_OP_MAXPOOL ? 0 : nd->count_include_pad ? 2 : 1;
        /* in a storage read as FP8 the pool writes the e4m3 twin too (cuda_fp8.c) */
        const cu_storage *st = &c->stor[c->views[i].storage];
        return i8_cuda_pool(x, n, in->h, in->w, in->c, x_ld, st->no_f16 ? NULL : y, i8_cuda_view_qptr(c, i),
                            st->q ? i8_fp8_inv_scale(st->q_scale) : 1.0f, nd->h, nd->w, y_ld, nd->kh, nd->kw, nd->sh,
                            nd->sw, nd->ph, nd->pw, mode, c->rt[i].b32, nd->act == I8_ACT_RELU, s);
    }
    case I8_OP_CONCAT: {
        int off = 0;
        for (int j = 0; j < nd->n_inputs; j++) {
            int p = nd->inputs[j];
            if (!(c->rt[i].alias_mask & (1u << j))) {
                int rc = i8_cuda_pointwise(i8_cuda_view_ptr(c, p), i8_cuda_view_ld(c, p), NULL, NULL, NULL, 0, 0.0f,
                                           0, (unsigned char *)y + (size_t)off * 2, y_ld, pixels, g->nodes[p].c, s);
                if (rc) return rc;
            }
            off += g->nodes[p].c;
        }
        return 0;
    }
    case I8_OP_GLOBAL_AVGPOOL: return i8_cuda_global_avgpool(x, n, in->h * in->w, in->c, x_ld, (float *)y, s);
    case I8_OP_LINEAR:
        return i8_cuda_linear(x, !is_f32_op(in->op), n, in->c, nd->c, c->rt[i].w16, c->rt[i].b32, (float *)y, s);
    case I8_OP_BATCHNORM:
        return i8_cuda_pointwise(x, x_ld, c->rt[i].alpha, c->rt[i].beta, NULL, 0, 0.0f, 0, y, y_ld, pixels, nd->c, s);
    case I8_OP_RELU: return i8_cuda_pointwise(x, x_ld, NULL, NULL, NULL, 0, 0.0f, 1, y, y_ld, pixels, nd->c, s);
    case I8_OP_RESIDUAL:
        return i8_cuda_pointwise(x, x_ld, NULL, NULL, i8_cuda_view_ptr(c, nd->inputs[1]),
                                 i8_cuda_view_ld(c, nd->inputs[1]), nd->residual_scale, nd->act == I8_ACT_RELU, y,
                                 y_ld, pixels, nd->c, s);
    default: return -1;
    }
}

/* Whole forward over the streams: each node waits for the events of inputs made on other
 * lanes; a lane that changes priority (b->prio) orders its two streams by lane_ev; at the end
 * stream 0 joins every other stream used (required to close a capture). */
static int launch_all(cu_ctx *c, cu_batch *b, int u8, int *failed_node) {
    const i8_graph *g = c->g;
    int used[CU_STREAMS][2] = {{1, 0}}, on_hi[CU_STREAMS] = {0};
    for (int i = 0; i < g->n_nodes; i++) {
        const i8_node *nd = &g->nodes[i];
        const int si = c->rt[i].stream, hi = b->prio && b->prio[i] && c->streams_hi[si];
        cudaStream_t s = hi ? c->streams_hi[si] : c->streams[si];
        if (hi != on_hi[si] && (used[si][0] || used[si][1])) { /* the lane's earlier nodes come first */
            cudaStream_t prev = on_hi[si] ? c->streams_hi[si] : c->streams[si];
            if (cudaEventRecord(c->lane_ev[si], prev) != cudaSuccess || cudaStreamWaitEvent(s, c->lane_ev[si], 0) != cudaSuccess) {
                *failed_node = i;
                return -1;
            }
        }
        on_hi[si] = hi;
        used[si][hi] = 1;
        for (int j = 0; j < nd->n_inputs; j++) {
            int p = nd->inputs[j];
            if (c->rt[p].stream != si && cudaStreamWaitEvent(s, c->ev[p], 0) != cudaSuccess) {
                *failed_node = i;
                return -1;
            }
        }
        /* merged siblings (b->merge): the group's first node launches one conv for all; the others
         * launch nothing and, on another lane, wait for it (their consumers wait on them) */
        const int group = b->merge ? c->rt[i].merge_group - 1 : -1;
        const int lead = group >= 0 ? c->merges[group].nodes[0] : -1;
        /* pairs (b->pair): the first's launch makes the second's outputs (the second's memory is
         * free by then: i8_cuda_fp8_pair_plan); the second launches nothing, its lane waiting for
         * the first above */
        const int pk = b->pair && group < 0 ? c->rt[i].pair - 1 : -1;
        const int paired = pk >= 0 && b->pair_var[pk] >= 0 && !(b->merge && c->rt[c->pairs[pk].first].merge_group);
        int rc = 0;
        if (paired && c->pairs[pk].first == i) rc = i8_cuda_fp8_pair_launch(c, b->n, pk, b->pair_var[pk], s, si);
        else if (paired) rc = 0;
        else if (group < 0) rc = launch_node(c, b, i, s, si, u8);
        else if (lead == i) {
            rc = i8_cuda_fp8_merged_launch(c, b->n, group, b->merge == 2, s, si);
            if (rc == 0 && cudaEventRecord(c->ev[i], s) != cudaSuccess) rc = -1;
        } else if (c->rt[lead].stream != si && cudaStreamWaitEvent(s, c->ev[lead], 0) != cudaSuccess)
            rc = -1;
        if (rc == 0 && c->rt[i].need_event && (group < 0 || lead != i) && cudaEventRecord(c->ev[i], s) != cudaSuccess) rc = -1;
        if (rc) {
            *failed_node = i;
            return rc;
        }
    }
    for (int si = 0; si < CU_STREAMS; si++)
        for (int hi = 0; hi < 2; hi++) {
            if (!used[si][hi] || (si == 0 && !hi)) continue;
            cudaStream_t s = hi ? c->streams_hi[si] : c->streams[si];
            if (cudaEventRecord(c->join[si], s) != cudaSuccess || cudaStreamWaitEvent(c->streams[0], c->join[si], 0) != cudaSuccess)
                return -1;
        }
    const i8_node *o = &g->nodes[g->output];
    int rc = i8_cuda_output_to_nchw(i8_cuda_view_ptr(c, g->output), c->stor[c->views[g->output].storage].f32, b->n,
                                    o->c, o->h, o->w, i8_cuda_view_ld(c, g->output), c->out_stage, c->streams[0]);
    if (rc) *failed_node = g->output;
    return rc;
}

int i8_cuda_captured_ms(cu_ctx *c, cudaStream_t s, int (*launch)(void *arg), void *arg, int replays, float *ms) {
    cudaGraphExec_t exec = i8_cuda_capture(s, launch, arg, NULL, NULL, NULL); /* the tuner's: uncounted */
    if (exec && cudaGraphLaunch(exec, s) != cudaSuccess) { /* warm-up replay (uploads the graph) */
        cudaGraphExecDestroy(exec);
        cudaGetLastError();
        exec = NULL;
    }
    if (!exec) return 1;
    *ms = i8_cuda_replays_ms(c->t0, c->t1, s, exec, replays);
    cudaGraphExecDestroy(exec);
    return *ms < 0.0f ? -1 : 0;
}

typedef struct forward_launch { cu_ctx *c; cu_batch *b; int u8, failed; } forward_launch;

static int launch_forward(void *arg) {
    forward_launch *f = arg;
    return launch_all(f->c, f->b, f->u8, &f->failed);
}

/* The forward of batch b (from the uint8 input if u8) captured as a CUDA graph and instantiated;
 * NULL when it cannot be. */
static cudaGraphExec_t capture(cu_ctx *c, cu_batch *b, int u8) {
    forward_launch f = {c, b, u8, -1};
    int rc = -1;
    cudaError_t e = cudaErrorUnknown;
    int nodes = -1;
    cudaGraphExec_t exec = i8_cuda_capture(c->streams[0], launch_forward, &f, &rc, &e, &nodes);
    if (!exec && getenv("INFER8_CUDA_DEBUG"))
        fprintf(stderr, "cuda: capture failed (node %d, rc %d, %s)\n", f.failed, rc, cudaGetErrorString(e));
    if (exec && !u8) {
        b->counted[b->counted_next] = exec, b->counted_nodes[b->counted_next] = nodes;
        b->counted_next = (b->counted_next + 1) % CU_COUNTED;
    }
    return exec;
}

/* Replay time of exec in ms: the fastest of 5 rounds of 10 replays, after 3 warm-up replays;
 * negative on an error. */
static float graph_ms(cu_ctx *c, cudaGraphExec_t exec) {
    float best = INFINITY;
    if (i8_cuda_replays_ms(c->t0, c->t1, c->streams[0], exec, 3) < 0.0f) return -1.0f;
    for (int r = 0; r < 5; r++) {
        const float ms = i8_cuda_replays_ms(c->t0, c->t1, c->streams[0], exec, 10);
        if (ms < 0.0f) return -1.0f;
        if (ms / 10.0f < best) best = ms / 10.0f;
    }
    return best;
}

/* n candidate graphs timed interleaved, twice, each one's faster round kept (ms[k]; < 0 where a
 * graph is NULL or a replay failed): every whole-graph choice compares its candidates so. */
static void graphs_ms(cu_ctx *c, const cudaGraphExec_t *graphs, int n, float *ms) {
    for (int k = 0; k < n; k++) ms[k] = -1.0f;
    for (int round = 0; round < 2; round++)
        for (int k = 0; k < n; k++) {
            const float x = graphs[k] ? graph_ms(c, graphs[k]) : -1.0f;
            if (x >= 0.0f && (ms[k] < 0.0f || x < ms[k])) ms[k] = x;
        }
}

/* 1 when preset tactics carry a recorded graph choice: every record CHOSEN (else an older bundle,
 * or tactics tuned without the choice) */
static int preset_chosen(const cu_ctx *c, const cu_batch *b) {
    if (!b->preset) return 0;
    for (int i = 0; i < c->g->n_nodes; i++)
        if (!(b->preset[i].flags & I8_CUDA_TACTIC_FLAG_CHOSEN)) return 0;
    return 1;
}

/* The flags any preset record carries (0 without preset tactics): the whole-batch choices (PDL,
 * MERGE, MERGE_WIDE) are set on every record or none. */
static uint32_t preset_flags(const cu_ctx *c, const cu_batch *b) {
    uint32_t f = 0;
    for (int i = 0; b->preset && i < c->g->n_nodes; i++) f |= b->preset[i].flags;
    return f;
}

/* A whole-batch choice in every record's flags: the bits of `mask` become `bits` */
static void record_batch_flags(const cu_ctx *c, cu_batch *b, uint32_t mask, uint32_t bits) {
    for (int i = 0; i < c->g->n_nodes; i++) b->tactics[i].flags = (b->tactics[i].flags & ~mask) | bits;
}

/* The tuner times each conv alone, but a TMA kernel holds whole SMs (one block each, most of
 * their shared memory) while concurrent branches wait for room: the forward may be faster with
 * those convs on their fastest other own kernel (cu_conv_plan.alt; session 15 measured IRv2 at
 * batch 1 slower with the TMA kernels than without). Both graphs are timed; the faster is kept,
 * and its tactics are the ones a bundle stores. INFER8_CUDA_GRAPH_CHOICE=0 keeps the tuned one. */
static infer8_status choose_plain(cu_ctx *c, cu_batch *b, i8_err *err) {
    int swapped = 0, back = 0;
    /* the plans now hold the alternatives; b->exec replays what it captured, the tuned ones */
    infer8_status rc = i8_cuda_conv_swap_alt(c, b, &swapped, err);
    if (rc != INFER8_OK || !swapped) return rc;
    /* timed interleaved, each graph's faster round kept (graphs_ms), as the later choices are, so
     * that both see the same drift: the first graph timed after the tuning can measure well above
     * its later times (IRv2 at batch 1: 0.7657 here, 0.7512 in the merge choice next, session 61;
     * 0.7841 and 0.7738, session 62). Timed once each in turn, as until session 62, one tuning
     * kept the plain graph by 0.2 us although its one moved conv (a halo kernel for the TMA one)
     * ran 17.5 us in place of 6.6: 0.760 ms, where the same code's other tuning ran 0.750 */
    cudaGraphExec_t plain = capture(c, b, 0);
    const cudaGraphExec_t pair[2] = {b->exec, plain};
    float pair_ms[2];
    graphs_ms(c, pair, 2, pair_ms);
    const float tuned = pair_ms[0], plain_ms = pair_ms[1];
    b->stats.graph_tuned_ms = tuned, b->stats.graph_plain_ms = plain_ms, b->stats.graph_swapped_convs = swapped;
    if (getenv("INFER8_CUDA_DEBUG"))
        fprintf(stderr, "cuda: batch %d: graph as tuned %.4f ms, with %d TMA convs on other kernels %.4f ms\n", b->n,
                (double)tuned, swapped, (double)plain_ms);
    if (plain && plain_ms >= 0.0f && (tuned < 0.0f || plain_ms < tuned)) {
        cudaGraphExecDestroy(b->exec);
        b->exec = plain;
        b->stats.graph_plain = 1;
        return INFER8_OK;
    }
    if (plain) cudaGraphExecDestroy(plain); /* b->exec stays */
    rc = i8_cuda_conv_swap_alt(c, b, &back, err); /* the tuned tactics, which b->exec runs */
    CU_TRY(cudaStreamSynchronize(c->streams[0]));
    return rc;
}

/* A whole-graph candidate's time as choose_launch could run it (choose_own, choose_merge), from its
 * plain and PDL forms' replay times (pdl_ms < 0: not timed): the faster form where choose_launch may
 * pick PDL (c->pdl_mode 1), the PDL form where it forces it (2), the plain one without PDL (0) */
static float launch_judged_ms(const cu_ctx *c, float plain_ms, float pdl_ms) {
    if (c->pdl_mode <= 0 || plain_ms < 0.0f || pdl_ms < 0.0f) return plain_ms;
    return c->pdl_mode == 2 || pdl_ms < plain_ms ? pdl_ms : plain_ms;
}

/* Whether a graph's PDL form differs from its plain one: programmatic dependent launch applies
 * only to the own FP8 kernels (single and merged), so without them both forms are one graph, and
 * timing the "PDL" form would only add a second sample of the plain one (the faster of two samples
 * would favour that candidate). choose_own, choose_merge and choose_launch capture the PDL form only
 * where this holds, under the tactics and merge now set. */
static int pdl_form_differs(const cu_ctx *c, const cu_batch *b) {
    return c->pdl_mode > 0 && (b->stats.convs_per_kind[I8_CUDA_TACTIC_FP8] > 0 || b->merge > 0);
}

/* The graph as now set (tactics, merge) captured with PDL; NULL where that form does not differ
 * from the plain one (pdl_form_differs) or the capture failed */
static cudaGraphExec_t capture_pdl_form(cu_ctx *c, cu_batch *b) {
    if (!pdl_form_differs(c, b)) return NULL;
    b->pdl = 1;
    cudaGraphExec_t exec = capture(c, b, 0);
    b->pdl = 0;
    return exec;
}

/* Of n whole-graph candidates timed plain (ms[k]) and with PDL (ms[n + k]; < 0: not timed or not
 * captured), the fastest as launch_judged_ms judges them; 0, the graph as chosen so far, unless
 * another was timed faster (choose_own, choose_merge) */
static int fastest_judged(const cu_ctx *c, const float *ms, int n) {
    int keep = 0;
    float best = launch_judged_ms(c, ms[0], ms[n]);
    for (int k = 1; k < n; k++) {
        const float judged = launch_judged_ms(c, ms[k], ms[n + k]);
        if (judged >= 0.0f && (best < 0.0f || judged < best)) keep = k, best = judged;
    }
    return keep;
}

/* Each conv's tactic was timed alone; in the forward, beside concurrent branches, another may
 * serve the whole graph better. inception_v4 at batch 32 ran 2.933 ms with every FP8 conv on the
 * own kernels and 3.011 ms as tuned, where 33 convs had cuDNN e4m3 configs that won alone by 1%
 * and 8 halo kernels (session 29). Two candidates are captured: the cuDNN e4m3 winners on the own
 * kernel they beat, and that with the halo winners on their fastest kernel without halo too. Each
 * of them and the graph as chosen so far is captured also with PDL where that form differs
 * (pdl_form_differs), since PDL relaxes only the own kernels' edges, so a candidate with more of
 * them may be the faster graph only under it (session 61: IRv2 at batch 1 with every FP8 conv on
 * own kernels ran 0.889 ms plain, 0.814 with PDL, where the tuned graph ran 0.750). All are timed
 * interleaved (graphs_ms) and each graph judged by launch_judged_ms, as choose_merge does: timed
 * one after another, as until session 63, the first graph timed after the tuning could measure
 * well above its later times (choose_plain). The fastest is kept, and its tactics are what a
 * bundle stores. After choose_plain; skipped where the plain graph won. */
static infer8_status choose_own(cu_ctx *c, cu_batch *b, i8_err *err) {
    /* INFER8_CUDA_OWN_CHOICE=0 skips this choice; 1 or 2 (tests) keeps the last candidate up to
     * that one that moved a conv, whatever its time */
    const char *env = getenv("INFER8_CUDA_OWN_CHOICE");
    const int forced = env ? atoi(env) : -1;
    /* a tactic kind forced by INFER8_CUDA_TACTIC is the user's choice, not a candidate's */
    if (forced == 0 || c->force_kind || b->stats.graph_plain || !b->n_plans || !b->exec) return INFER8_OK;
    b->stats.graph_base_ms = b->stats.graph_own_ms[0] = b->stats.graph_own_ms[1] = -1.0f; /* not timed */
    b->stats.graph_base_pdl_ms = b->stats.graph_own_pdl_ms[0] = b->stats.graph_own_pdl_ms[1] = -1.0f;
    i8_cuda_tactic *saved = i8_malloc(sizeof *saved * (size_t)b->n_plans, err);
    if (!saved) return err->code;
    infer8_status rc = INFER8_OK;
    /* graphs[k]: as chosen so far (k 0), candidate mode k (1, 2); graphs[3 + k] the same with PDL */
    cudaGraphExec_t graphs[6] = {b->exec, NULL, NULL, NULL, NULL, NULL};
    int last_moved = -1;
    for (int mode = 1; mode <= 2 && rc == INFER8_OK; mode++) {
        int moved = 0;
        rc = i8_cuda_conv_swap_own(c, b, mode, saved, &moved, err);
        if (rc == INFER8_OK && moved > 0 && moved != last_moved) { /* mode 2 without halo convs: the same graph */
            graphs[mode] = capture(c, b, 0);
            if (graphs[mode]) graphs[3 + mode] = capture_pdl_form(c, b);
            b->stats.graph_own_convs[mode - 1] = moved;
        }
        last_moved = moved;
        if (rc == INFER8_OK) rc = i8_cuda_conv_restore(c, b, saved, err);
    }
    int keep = 0;
    if (rc == INFER8_OK && (graphs[1] || graphs[2])) {
        graphs[3] = capture_pdl_form(c, b); /* the graph as chosen so far, under its own tactics again */
        float ms[6];
        graphs_ms(c, graphs, 6, ms);
        if (forced >= 1) { /* the last candidate captured up to the one forced */
            for (int k = 1; k <= forced && k < 3; k++)
                if (graphs[k]) keep = k;
        } else {
            keep = fastest_judged(c, ms, 3);
        }
        b->stats.graph_base_ms = ms[0], b->stats.graph_base_pdl_ms = ms[3]; /* < 0 where not captured (graphs_ms) */
        for (int k = 1; k < 3; k++) b->stats.graph_own_ms[k - 1] = ms[k], b->stats.graph_own_pdl_ms[k - 1] = ms[3 + k];
        if (getenv("INFER8_CUDA_DEBUG"))
            fprintf(stderr,
                    "cuda: batch %d: graph %.4f ms (PDL %.4f), with %d convs on own kernels %.4f ms (PDL %.4f), "
                    "%d also without halo %.4f ms (PDL %.4f): %s kept\n",
                    b->n, (double)ms[0], (double)ms[3], b->stats.graph_own_convs[0], (double)ms[1], (double)ms[4],
                    b->stats.graph_own_convs[1], (double)ms[2], (double)ms[5],
                    keep == 2 ? "the last" : keep == 1 ? "the second" : "the first");
    }
    if (rc == INFER8_OK && keep > 0) { /* the tactics of the graph kept */
        int moved = 0;
        rc = i8_cuda_conv_swap_own(c, b, keep, saved, &moved, err);
        if (rc == INFER8_OK) {
            b->exec = graphs[keep], graphs[keep] = NULL;
            b->stats.graph_own = keep;
        } else {
            keep = 0;
        }
    }
    for (int k = 1; k < 6; k++)
        if (graphs[k]) cudaGraphExecDestroy(graphs[k]);
    if (keep > 0) cudaGraphExecDestroy(graphs[0]); /* the graph as chosen before, replaced */
    free(saved);
    if (rc == INFER8_OK) CU_TRY(cudaStreamSynchronize(c->streams[0]));
    return rc;
}

/* Node costs for the critical path: each conv's tuned time (tactic ms), every other node
 * I8_CRITICAL_PATH_NONCONV_MS; nodes on chains within SLACK_MS of the longest count as on it. */
#define SLACK_MS 0.0005

/* Records the batch's choice in its tactics' flags (i8_cuda_tactic), which a bundle stores. */
static void record_priority_choice(const cu_ctx *c, cu_batch *b) {
    for (int i = 0; i < c->g->n_nodes; i++)
        b->tactics[i].flags = I8_CUDA_TACTIC_FLAG_CHOSEN | (b->prio && b->prio[i] ? I8_CUDA_TACTIC_FLAG_PRIORITY : 0u);
}

/* The choice stored with preset tactics (every record CHOSEN): *prio_out is the nodes to put on
 * high-priority streams (NULL when the stored graph had none). Returns 0 when nothing usable
 * was stored (tuned without the choice, or an older bundle: its records' flags are 0). */
static int stored_priority(const cu_ctx *c, const cu_batch *b, unsigned char **prio_out, int *count, i8_err *err) {
    const int n = c->g->n_nodes;
    *prio_out = NULL, *count = 0;
    if (!preset_chosen(c, b)) return 0;
    for (int i = 0; i < n; i++) *count += (b->preset[i].flags & I8_CUDA_TACTIC_FLAG_PRIORITY) != 0;
    if (!*count) return 1;
    unsigned char *prio = i8_calloc((size_t)n, 1, err);
    if (!prio) return -1;
    for (int i = 0; i < n; i++) prio[i] = (b->preset[i].flags & I8_CUDA_TACTIC_FLAG_PRIORITY) != 0;
    *prio_out = prio;
    return 1;
}

/* Two ways to launch the graph as chosen, chosen together (session 36; they were chosen one after
 * the other before, and on the H200 each changed what the other was worth: PDL on top of a
 * priority graph lost where PDL without priorities won, docs/performance.md "Session 34"):
 * - stream priorities. Concurrent branches share the SMs, and by default the block scheduler
 *   serves their kernels alike, so a branch with slack can delay the one every later node waits
 *   for. The forward is captured with the critical path's nodes on high-priority streams
 *   (launch_all).
 * - programmatic dependent launch (cuda_pdl.cuh). The own FP8 kernels start while the kernel
 *   before them in the stream ends: their blocks set up, then wait for that kernel's writes. Only
 *   batches that run own FP8 kernels have this candidate; the tuner timed each conv without it.
 * Every allowed combination is captured and all are timed, interleaved, and the fastest kept.
 * Preset tactics whose records carry CHOSEN restore the choice untimed (I8_CUDA_TACTIC_FLAG_PRIORITY
 * on the path's nodes, _PDL on every record): the timing costs about 1 s at IRv2 batch 32, and
 * restored tactics have no times to find the path by. INFER8_CUDA_PRIORITY and INFER8_CUDA_PDL each
 * take 0 (never), 2 (always, untimed; tests, diagnosis) or 1 (timed, the default); with both
 * forced one graph is captured and none is timed. The choice is recorded in the tactics' flags. */
static int priority_mode(void) {
    const char *env = getenv("INFER8_CUDA_PRIORITY");
    return env ? atoi(env) : 1;
}

/* The nodes of the critical path by the tuned times (b->stats.prio_nodes of them), as a 0/1 array
 * to free; NULL on failure (err set). */
static unsigned char *critical_path(const cu_ctx *c, cu_batch *b, i8_err *err) {
    const int n = c->g->n_nodes;
    unsigned char *prio = i8_calloc((size_t)n, 1, err);
    double *cost = i8_calloc((size_t)n, sizeof(double), err);
    infer8_status rc = prio && cost ? INFER8_OK : err->code;
    for (int i = 0; i < n && !rc; i++) {
        const double t = b->tactics[i].ms;
        cost[i] = c->g->nodes[i].op == I8_OP_CONV && t > 0.0 ? t : I8_CRITICAL_PATH_NONCONV_MS;
    }
    if (!rc) rc = i8_graph_critical_path(c->g, cost, SLACK_MS, prio, &b->stats.prio_nodes, NULL, err);
    free(cost);
    if (rc) {
        free(prio);
        return NULL;
    }
    return prio;
}

static infer8_status choose_launch(cu_ctx *c, cu_batch *b, i8_err *err) {
    const int pmode = priority_mode(), lmode = c->pdl_mode, chosen = preset_chosen(c, b);
    const int own = b->stats.convs_per_kind[I8_CUDA_TACTIC_FP8]; /* node_take_plan keeps it per tactic */
    const int can_prio = pmode > 0 && c->streams_hi[0] && c->streams_used >= 2, can_pdl = pdl_form_differs(c, b);
    for (int k = 0; k < 4; k++) b->stats.launch_ms[k] = 0.0f;
    b->pdl = 0;
    if (!b->exec || (!can_prio && !can_pdl)) return INFER8_OK;
    /* each dimension's allowed values, as a bit set: 1 off, 2 on */
    unsigned char *prio = NULL;
    int prio_set = 1, pdl_set = 1, stored_count = 0;
    if (can_prio) {
        const int stored = pmode == 1 ? stored_priority(c, b, &prio, &stored_count, err) : 0;
        if (stored < 0) return err->code;
        b->stats.prio_restored = stored;
        prio_set = stored ? (prio ? 2 : 1) : pmode == 2 ? 2 : 3;
        if (stored) b->stats.prio_nodes = stored_count;
    }
    if (can_pdl) {
        const int restore = lmode == 1 && chosen;
        b->stats.pdl_restored = restore;
        pdl_set = restore ? ((preset_flags(c, b) & I8_CUDA_TACTIC_FLAG_PDL) ? 2 : 1) : lmode == 2 ? 2 : 3;
    }
    if ((prio_set & 2) && !prio && !(prio = critical_path(c, b, err))) return err->code;
    /* candidate k: priorities if bit 0, PDL if bit 1; [0] is the graph as chosen so far */
    cudaGraphExec_t cand[4] = {NULL, NULL, NULL, NULL};
    int count = 0;
    for (int k = 0; k < 4; k++) {
        const int p = k & 1, l = k >> 1;
        if (!(prio_set & (1 << p)) || !(pdl_set & (1 << l))) continue;
        b->prio = p ? prio : NULL, b->pdl = l;
        cand[k] = k ? capture(c, b, 0) : b->exec;
        count += cand[k] != NULL;
    }
    float ms[4] = {-1.0f, -1.0f, -1.0f, -1.0f};
    if (count > 1) graphs_ms(c, cand, 4, ms);
    int keep = -1;
    for (int k = 0; k < 4; k++) /* the fastest timed; untimed, the one candidate */
        if (cand[k] && (keep < 0 || (ms[k] >= 0.0f && (ms[keep] < 0.0f || ms[k] < ms[keep])))) keep = k;
    if (keep < 0) keep = 0; /* the only candidate failed to capture: the graph as chosen runs */
    for (int k = 0; k < 4; k++)
        if (prio_set & (1 << (k & 1)) && pdl_set & (1 << (k >> 1))) b->stats.launch_ms[k] = ms[k];
    for (int k = 1; k < 4; k++)
        if (cand[k] && k != keep) cudaGraphExecDestroy(cand[k]);
    if (keep != 0) {
        cudaGraphExecDestroy(b->exec);
        b->exec = cand[keep];
    }
    b->pdl = keep >> 1;
    if (keep & 1) {
        b->prio = prio;
    } else {
        b->prio = NULL;
        free(prio);
    }
    b->stats.graph_prio = keep & 1, b->stats.graph_pdl = keep >> 1;
    if (getenv("INFER8_CUDA_DEBUG")) { /* as launch_ms: 0 not a candidate, < 0 untimed */
        const float *t = b->stats.launch_ms;
        fprintf(stderr,
                "cuda: batch %d: graph %.4f ms; %d critical-path nodes at high priority %.4f ms; programmatic dependent "
                "launch of %d own FP8 convs %.4f ms, with both %.4f ms: %s kept%s\n",
                b->n, (double)t[0], b->stats.prio_nodes, (double)t[1], own, (double)t[2], (double)t[3],
                keep == 3 ? "both" : keep == 2 ? "PDL" : keep == 1 ? "priorities" : "neither",
                count > 1 ? "" : " (untimed)");
    }
    if (can_prio) record_priority_choice(c, b);
    record_batch_flags(c, b, I8_CUDA_TACTIC_FLAG_PDL, b->pdl ? I8_CUDA_TACTIC_FLAG_PDL : 0u);
    CU_TRY(cudaStreamSynchronize(c->streams[0]));
    return INFER8_OK;
}

/* Sibling 1x1 convs (one input each group, c->merges) run as one conv on the merged TMA kernel
 * (i8_cuda_conv_fp8_tma_multi): the input read once and one launch instead of two to four, each
 * sibling keeping its outputs and e4m3 scale. The graph as chosen is captured with the groups
 * merged on the BN 64 kernel and on the BN 128 one, each of the three also with PDL where
 * choose_launch may pick it; all are timed interleaved and the fastest as judged by
 * launch_judged_ms is kept (since session 62; by plain times alone before). Preset tactics whose records carry CHOSEN restore the choice untimed
 * (I8_CUDA_TACTIC_FLAG_MERGE, _MERGE_WIDE). INFER8_CUDA_MERGE = 0 never merges, 2 / 3 merge on BN
 * 64 / 128 untimed (tests). Before the priority and launch choices, which then see the merged graph. */
static infer8_status choose_merge(cu_ctx *c, cu_batch *b, i8_err *err) {
    const int mode = c->merge_mode, chosen = preset_chosen(c, b);
    const uint32_t pf = preset_flags(c, b);
    const int stored = pf & I8_CUDA_TACTIC_FLAG_MERGE ? (pf & I8_CUDA_TACTIC_FLAG_MERGE_WIDE ? 2 : 1) : 0;
    b->merge = 0;
    if (mode <= 0 || c->n_merges == 0 || !b->exec) return INFER8_OK;
    const int restore = mode == 1 && chosen;
    b->stats.merge_groups = c->n_merges, b->stats.merge_restored = restore;
    b->stats.graph_nomerge_ms = b->stats.graph_merge_ms[0] = b->stats.graph_merge_ms[1] = -1.0f;
    b->stats.graph_nomerge_pdl_ms = b->stats.graph_merge_pdl_ms[0] = b->stats.graph_merge_pdl_ms[1] = -1.0f;
    if (restore || mode >= 2) { /* one graph, untimed */
        const int want = restore ? stored : mode == 3 ? 2 : 1;
        if (want) {
            b->merge = want;
            cudaGraphExec_t with = capture(c, b, 0);
            if (with) {
                cudaGraphExecDestroy(b->exec);
                b->exec = with;
            } else {
                b->merge = 0;
            }
        }
    } else {
        /* graphs[k]: as chosen (k 0), merged on BN 64 (1), on BN 128 (2); graphs[3 + k] the same
         * with PDL, where choose_launch may pick it: each candidate is judged by the form it would
         * run in (launch_judged_ms). Judged by their plain forms alone, as until session 62, IRv2 at
         * batch 32 kept BN 64 (3.032 ms against 3.075 unmerged) and then ran 2.992 with PDL, where
         * the unmerged graph had run 2.858 with PDL (choose_own's timing, the same call). */
        cudaGraphExec_t graphs[6] = {b->exec, NULL, NULL, NULL, NULL, NULL};
        for (int k = 1; k < 3; k++) {
            b->merge = k;
            graphs[k] = capture(c, b, 0);
        }
        for (int k = 0; k < 3; k++) {
            b->merge = k;
            graphs[3 + k] = capture_pdl_form(c, b);
        }
        float ms[6];
        graphs_ms(c, graphs, 6, ms);
        const int keep = fastest_judged(c, ms, 3);
        b->stats.graph_nomerge_ms = ms[0], b->stats.graph_merge_ms[0] = ms[1], b->stats.graph_merge_ms[1] = ms[2];
        b->stats.graph_nomerge_pdl_ms = ms[3], b->stats.graph_merge_pdl_ms[0] = ms[4], b->stats.graph_merge_pdl_ms[1] = ms[5];
        for (int k = 1; k < 6; k++)
            if (graphs[k] && k != keep) cudaGraphExecDestroy(graphs[k]);
        b->merge = keep;
        if (keep) {
            cudaGraphExecDestroy(b->exec);
            b->exec = graphs[keep];
        }
        if (getenv("INFER8_CUDA_DEBUG"))
            fprintf(stderr,
                    "cuda: batch %d: graph %.4f ms (PDL %.4f), with %d sibling groups merged %.4f ms (PDL %.4f, BN 64) / "
                    "%.4f ms (PDL %.4f, BN 128)\n",
                    b->n, (double)ms[0], (double)ms[3], c->n_merges, (double)ms[1], (double)ms[4], (double)ms[2], (double)ms[5]);
    }
    b->stats.graph_merge = b->merge;
    CU_TRY(cudaStreamSynchronize(c->streams[0]));
    return INFER8_OK;
}

/* A pair variant timed alone as the tuner times a conv: PAIR_REPS launches captured as one graph,
 * replayed twice after a warm-up */
#define PAIR_REPS 10
typedef struct pair_reps {
    cu_ctx *c;
    int n, k, variant;
    cudaStream_t s;
} pair_reps;
static int pair_reps_launch(void *arg) {
    const pair_reps *r = arg;
    int rc = 0;
    for (int i = 0; i < PAIR_REPS && !rc; i++) rc = i8_cuda_fp8_pair_launch(r->c, r->n, r->k, r->variant, r->s, 0);
    return rc;
}
static float pair_ms(cu_ctx *c, int n, int k, int variant) {
    pair_reps r = {c, n, k, variant, c->streams[0]};
    float ms = -1.0f;
    for (int i = 0; i < 2; i++)
        if (i8_cuda_fp8_pair_launch(c, n, k, variant, r.s, 0) != 0) {
            cudaGetLastError();
            cudaStreamSynchronize(r.s);
            return -1.0f;
        }
    if (i8_cuda_captured_ms(c, r.s, pair_reps_launch, &r, 2, &ms) != 0) {
        cudaGetLastError();
        cudaStreamSynchronize(r.s);
        return -1.0f;
    }
    return ms / (2 * PAIR_REPS);
}

/* Pairs (c->pairs: a branch's reduction 1x1 and the one spatial conv that reads it) run as one pair
 * kernel (i8_cuda_conv_fp8_pair): a launch and the intermediate's round trip through memory fewer
 * on the batch-1 chain. Each pair takes its fastest variant among those whose outputs agree with
 * its two convs' (i8_cuda_fp8_pair_check), timed alone as the tuner times convs, and is left as two
 * kernels where that is not faster than their two tuned times; the graph as chosen (merge
 * included) is then captured with those pairs and kept where its replays are faster (timed
 * interleaved). Preset tactics whose records carry CHOSEN restore the choice untimed: flag PAIR on
 * every record when pairs run, each pair's variant + 1 in its 1x1's record (flags / PAIR_V0, 0:
 * unpaired). Opt-in: INFER8_CUDA_PAIR = 1 makes this choice, 2 + v pairs every pair that variant v
 * runs, untimed (tests); unset or 0 never pairs (session 54 measured every pair kernel slower than
 * its two convs). After the merge choice, before the priority and launch ones. */
static infer8_status choose_pair(cu_ctx *c, cu_batch *b, i8_err *err) {
    const int mode = c->pair_mode, chosen = preset_chosen(c, b);
    b->pair = 0;
    b->stats.graph_nopair_ms = b->stats.graph_pair_ms = -1.0f;
    b->stats.pair_checks_failed = b->stats.pairs_on = 0;
    if (mode <= 0 || c->n_pairs == 0 || !b->exec) return INFER8_OK;
    if (!b->pair_var && !(b->pair_var = i8_malloc(sizeof(int) * (size_t)c->n_pairs, err))) return err->code;
    const int restore = mode == 1 && chosen;
    b->stats.pairs = c->n_pairs, b->stats.pair_restored = restore;
    if (restore && !(preset_flags(c, b) & I8_CUDA_TACTIC_FLAG_PAIR)) return INFER8_OK; /* chosen without pairs */
    float two = 0.0f, one = 0.0f; /* the paired convs' tuned times, and their pairs' */
    for (int k = 0; k < c->n_pairs; k++) {
        const int first = c->pairs[k].first, second = c->pairs[k].second;
        int want = -1; /* restored or forced variant */
        if (restore) want = (int)((b->preset[first].flags / I8_CUDA_TACTIC_FLAG_PAIR_V0) & 15u) - 1;
        else if (mode >= 2) want = mode - 2;
        b->pair_var[k] = -1;
        float best = -1.0f;
        int best_v = -1;
        for (int v = 0; v < I8_FP8_PAIR_VARIANTS; v++) {
            if ((restore || mode >= 2) && v != want) continue;
            if (!i8_cuda_fp8_pair_fits(c, b->n, k, v)) continue;
            if (!i8_cuda_fp8_pair_check(c, b->n, k, v)) {
                b->stats.pair_checks_failed++;
                continue;
            }
            const float ms = restore || mode >= 2 ? 0.0f : pair_ms(c, b->n, k, v);
            if (ms >= 0.0f && (best < 0.0f || ms < best)) best = ms, best_v = v;
        }
        const float sep = b->tactics[first].ms + b->tactics[second].ms;
        b->pair_var[k] = best_v >= 0 && (mode != 1 || restore || best < sep) ? best_v : -1;
        if (getenv("INFER8_CUDA_DEBUG") && mode == 1 && !restore)
            fprintf(stderr, "cuda: batch %d: pair %s -> %s: two convs %.4f ms, pair %.4f ms (%s)%s\n", b->n,
                    c->g->nodes[first].name, c->g->nodes[second].name, (double)sep, (double)best,
                    best_v >= 0 ? i8_cuda_conv_fp8_pair_name(best_v) : "none",
                    b->pair_var[k] >= 0 ? "" : ", left as two");
        if (b->pair_var[k] >= 0) b->stats.pairs_on++, two += sep, one += best;
    }
    b->stats.pairs_two_ms = two, b->stats.pairs_one_ms = one;
    if (b->stats.pairs_on == 0) return INFER8_OK;
    b->pair = 1;
    cudaGraphExec_t with = capture(c, b, 0);
    if (!with) {
        b->pair = 0;
        return INFER8_OK;
    }
    if (restore || mode >= 2) { /* one graph, untimed */
        cudaGraphExecDestroy(b->exec);
        b->exec = with;
    } else {
        const cudaGraphExec_t graphs[2] = {b->exec, with};
        float ms[2];
        graphs_ms(c, graphs, 2, ms);
        b->stats.graph_nopair_ms = ms[0], b->stats.graph_pair_ms = ms[1];
        if (ms[1] >= 0.0f && (ms[0] < 0.0f || ms[1] < ms[0])) {
            cudaGraphExecDestroy(b->exec);
            b->exec = with;
        } else {
            cudaGraphExecDestroy(with);
            b->pair = 0;
        }
        if (getenv("INFER8_CUDA_DEBUG"))
            fprintf(stderr, "cuda: batch %d: graph %.4f ms, with %d of %d pairs as one kernel %.4f ms (alone: %.4f -> %.4f ms)\n",
                    b->n, (double)ms[0], b->stats.pairs_on, c->n_pairs, (double)ms[1], (double)two, (double)one);
    }
    b->stats.graph_pair = b->pair;
    CU_TRY(cudaStreamSynchronize(c->streams[0]));
    return INFER8_OK;
}

/* The pair choice in the records' flags: PAIR on every record when pairs run, each pair's variant
 * + 1 on its 1x1's (0 where it runs as two) */
static void record_pair_choice(const cu_ctx *c, cu_batch *b) {
    const uint32_t mask = I8_CUDA_TACTIC_FLAG_PAIR | I8_CUDA_TACTIC_FLAG_PAIR_V0 * 15u;
    record_batch_flags(c, b, mask, b->pair ? I8_CUDA_TACTIC_FLAG_PAIR : 0u);
    if (!b->pair || !b->pair_var) return;
    for (int k = 0; k < c->n_pairs; k++)
        if (b->pair_var[k] >= 0) b->tactics[c->pairs[k].first].flags |= I8_CUDA_TACTIC_FLAG_PAIR_V0 * (uint32_t)(b->pair_var[k] + 1);
}

/* The merge choice in every record's flags (after choose_launch rewrote them) */
static void record_merge_choice(const cu_ctx *c, cu_batch *b) {
    record_batch_flags(c, b, I8_CUDA_TACTIC_FLAG_MERGE | I8_CUDA_TACTIC_FLAG_MERGE_WIDE,
                       (b->merge ? I8_CUDA_TACTIC_FLAG_MERGE : 0u) | (b->merge == 2 ? I8_CUDA_TACTIC_FLAG_MERGE_WIDE : 0u));
}

static infer8_status choose_graph(cu_ctx *c, cu_batch *b, i8_err *err) {
    const char *choice = getenv("INFER8_CUDA_GRAPH_CHOICE");
    if (!b->exec || (choice && atoi(choice) <= 0)) return INFER8_OK;
    infer8_status rc = choose_plain(c, b, err);
    if (rc == INFER8_OK) rc = choose_own(c, b, err);
    if (rc == INFER8_OK) rc = choose_merge(c, b, err);
    if (rc == INFER8_OK) rc = choose_pair(c, b, err);
    if (rc == INFER8_OK) rc = choose_launch(c, b, err);
    if (rc == INFER8_OK) record_merge_choice(c, b), record_pair_choice(c, b);
    return rc;
}

static infer8_status ensure_batch(cu_ctx *c, int n, i8_err *err) {
    if (n < 1 || n > c->max_batch)
        return i8_fail(err, INFER8_E_INVALID_ARGUMENT, "cuda: batch %d outside 1..%d", n, c->max_batch);
    cu_batch *b = &c->batches[n];
    if (b->built) return INFER8_OK;
    int nn = c->g->n_nodes;
    b->n = n;
    if (!b->node_plan) b->node_plan = i8_malloc(sizeof(int) * (size_t)nn, err);
    if (!b->varpack) b->varpack = i8_calloc((size_t)nn, sizeof(cudnnBackendDescriptor_t), err);
    if (!b->tactics) b->tactics = i8_calloc((size_t)nn, sizeof(i8_cuda_tactic), err);
    if (!b->node_plan || !b->varpack || !b->tactics) return err->code;
    for (int i = 0; i < nn; i++) b->node_plan[i] = -1;
    memset(b->tactics, 0, sizeof(i8_cuda_tactic) * (size_t)nn); /* node_take_plan counts what it replaces */
    memset(&b->stats, 0, sizeof b->stats);
    free(b->prio);
    b->prio = NULL;
    b->pdl = 0; /* the tuner times each conv without it (choose_launch decides for the graph) */
    b->merge = 0; /* each sibling tuned alone (choose_merge decides for the graph) */
    b->pair = 0;  /* each pair's convs tuned alone (choose_pair decides) */
    c->cudnn_spent_s = 0; /* the cuDNN plan-building budget applies per batch size */
    c->cudnn_fp16_left = c->cudnn_share ? i8_cuda_conv_fp16_problems(c, b) : 0; /* only the shared rule reads it */
    double t0 = now_s();
    /* INFER8_CUDA_PDL_TUNE=1 (experiment): each conv timed with programmatic dependent launch,
     * its back-to-back launches overlapping as in a PDL graph */
    const char *pt = getenv("INFER8_CUDA_PDL_TUNE");
    b->pdl = pt && atoi(pt) > 0 && c->pdl_mode > 0;
    for (int i = 0; i < nn; i++) {
        if (c->g->nodes[i].op != I8_OP_CONV) continue;
        infer8_status rc = i8_cuda_conv_setup(c, b, i, err);
        if (rc != INFER8_OK) return b->pdl = 0, rc;
    }
    infer8_status rc = i8_cuda_conv_tune_deferred(c, b, err);
    b->pdl = 0;
    if (rc != INFER8_OK) return rc;
    CU_TRY(cudaStreamSynchronize(c->streams[0]));
    b->stats.tune_seconds = now_s() - t0;
    /* how far the cuDNN budget reached depends on how fast plans build on this machine */
    if (!b->preset && getenv("INFER8_CUDA_DEBUG"))
        fprintf(stderr,
                "cuda: batch %d: %d conv problems tuned in %.1f s; cuDNN budget %.0f s %s (%s), %d fp16 problems "
                "on cuDNN's first config only, %d on some of their configs\n",
                n, b->stats.problems, b->stats.tune_seconds, c->cudnn_budget_s,
                c->cudnn_spent_s > c->cudnn_budget_s ? "spent" : "not spent",
                c->cudnn_share ? "shared equally" : "first come, first served", b->stats.cudnn_after_budget,
                b->stats.cudnn_cut_short);
    if (b->preset && getenv("INFER8_CUDA_DEBUG"))
        fprintf(stderr, "cuda: batch %d: %d stored tactics kept, %d tuned again (%.2f s)\n", n, b->stats.presets_kept,
                b->stats.presets_retuned, b->stats.tune_seconds);
    for (int i = 0; i < nn; i++) {
        const i8_cuda_tactic *t = &b->tactics[i];
        if (t->kind == I8_CUDA_TACTIC_CUBLASLT || t->kind == I8_CUDA_TACTIC_CUDNN || t->kind == I8_CUDA_TACTIC_FP8_LT ||
            t->kind == I8_CUDA_TACTIC_FP8_DNN) {
            size_t need = t->workspace;
            if (need > b->stats.workspace_bytes) b->stats.workspace_bytes = need;
        }
    }
    /* capture; a forward that cannot be captured still runs, launched node by node (and a
     * calibration forward never uses the graph: collect_forward) */
    b->exec = NULL;
    if (!getenv("INFER8_CUDA_NO_GRAPH") && !c->collect_index) {
        b->exec = capture(c, b, 0);
        infer8_status rc = choose_graph(c, b, err);
        if (rc != INFER8_OK) return rc;
    }
    b->stats.graph_captured = b->exec != NULL;
    b->stats.kernel_nodes = -1; /* the kept graph's, newest capture first (a destroyed one's handle may recur) */
    for (int k = 1; b->exec && k <= CU_COUNTED; k++) {
        const int at = (b->counted_next - k + CU_COUNTED) % CU_COUNTED;
        if (b->counted[at] == b->exec) {
            b->stats.kernel_nodes = b->counted_nodes[at];
            break;
        }
    }
    b->stats.streams_used = c->streams_used;
    b->stats.arena_bytes = c->arena_bytes;
    b->stats.weight_bytes = c->weight_bytes;
    b->built = 1;
    return INFER8_OK;
}

/* The forward launched node by node (no graph) */
static infer8_status launch_nodes(cu_ctx *c, cu_batch *b, int u8, i8_err *err) {
    int failed = -1;
    int rc = launch_all(c, b, u8, &failed);
    if (rc)
        return i8_fail(err, INFER8_E_DEVICE, "cuda: node %d ('%s') failed to launch (status %d)", failed,
                       failed >= 0 ? c->g->nodes[failed].name : "join", rc);
    return INFER8_OK;
}

static infer8_status forward(cu_ctx *c, cu_batch *b, i8_err *err) {
    if (b->exec) {
        CU_TRY(cudaGraphLaunch(b->exec, c->streams[0]));
        return INFER8_OK;
    }
    return launch_nodes(c, b, 0, err);
}

/* ---------------------------------------------------------------- ops table */

static void cuda_destroy(void *vctx) {
    cu_ctx *c = vctx;
    if (!c) return;
    cudaDeviceSynchronize();
    if (c->batches)
        for (int n = 0; n <= c->max_batch; n++) {
            cu_batch *b = &c->batches[n];
            if (b->exec) cudaGraphExecDestroy(b->exec);
            if (b->exec_u8) cudaGraphExecDestroy(b->exec_u8);
            if (b->varpack)
                for (int i = 0; i < c->g->n_nodes; i++)
                    if (b->varpack[i]) cudnnBackendDestroyDescriptor(b->varpack[i]);
            i8_cuda_conv_free_batch(c, b);
            free(b->node_plan);
            free(b->varpack);
            free(b->tactics);
            free(b->pair_var);
            free(b->preset);
            free(b->prio);
        }
    free(c->batches);
    if (c->rt)
        for (int i = 0; i < c->g->n_nodes; i++) {
            cudaFree(c->rt[i].w16);
            cudaFree(c->rt[i].b16);
            cudaFree(c->rt[i].alpha);
            cudaFree(c->rt[i].beta);
            cudaFree(c->rt[i].dscale);
            if (!c->rt[i].merge_group) { /* a merged sibling's are rows of its group's (c->merges) */
                cudaFree(c->rt[i].b32);
                cudaFree(c->rt[i].wq);
                cudaFree(c->rt[i].mult);
            }
        }
    for (int k = 0; k < c->n_merges; k++) {
        cudaFree(c->merges[k].wq);
        cudaFree(c->merges[k].mult);
        cudaFree(c->merges[k].bias);
    }
    free(c->merges);
    free(c->pairs);
    if (c->ev)
        for (int i = 0; i < c->g->n_nodes; i++)
            if (c->ev[i]) cudaEventDestroy(c->ev[i]);
    for (int s = 0; s < CU_STREAMS; s++) {
        if (c->join[s]) cudaEventDestroy(c->join[s]);
        if (c->ws[s]) cudaFree(c->ws[s]);
        if (c->counters[s]) cudaFree(c->counters[s]);
        if (c->streams[s]) cudaStreamDestroy(c->streams[s]);
        if (c->streams_hi[s]) cudaStreamDestroy(c->streams_hi[s]);
        if (c->lane_ev[s]) cudaEventDestroy(c->lane_ev[s]);
    }
    if (c->t0) cudaEventDestroy(c->t0);
    if (c->t1) cudaEventDestroy(c->t1);
    cudaFree(c->in_stage_u8);
    cudaFree(c->collect_dev);
    cudaFree(c->collect_scratch);
    free(c->collect_index);
    cudaFree(c->arena);
    cudaFree(c->ones);
    cudaFree(c->lt8_c);
    cudaFree(c->in_stage);
    cudaFree(c->out_stage);
    if (c->dnn) cudnnDestroy(c->dnn);
    if (c->lt) c->lt_fn.destroy(c->lt);
    i8_cublaslt_close(&c->lt_fn);
    free(c->ev);
    free(c->rt);
    free(c->views);
    free(c->stor);
    free(c);
}

/* Calibration mode: device copies of the requested histograms (starting from the host's
 * contents). cuDNN is not tuned (heuristic order only): the statistics need the activations,
 * not the fastest forward. */
static infer8_status collect_setup(cu_ctx *c, i8_calib_hist **hist, i8_err *err) {
    const i8_graph *g = c->g;
    for (int i = 0; i < g->n_nodes; i++)
        if (g->nodes[i].precision == I8_PREC_FP8)
            return i8_fail(err, INFER8_E_INVALID_ARGUMENT,
                           "cuda: calibration needs an fp16-planned graph, node '%s' is FP8", g->nodes[i].name);
    if (!(c->collect_index = i8_malloc(sizeof(int) * (size_t)g->n_nodes, err))) return err->code;
    c->n_collect = 0;
    for (int i = 0; i < g->n_nodes; i++) {
        c->collect_index[i] = -1;
        if (!hist[i]) continue;
        const cu_view *v = &c->views[i];
        if (v->storage < 0 || c->stor[v->storage].f32)
            return i8_fail(err, INFER8_E_UNSUPPORTED, "cuda: calibration of node '%s' (%s): not an fp16 activation",
                           g->nodes[i].name, i8_op_name(g->nodes[i].op));
        c->collect_index[i] = c->n_collect++;
    }
    c->collect_host = hist;
    c->cudnn_budget_s = 0.0;
    CU_TRY(cudaMalloc((void **)&c->collect_scratch, sizeof(unsigned)));
    CU_TRY(cudaMemset(c->collect_scratch, 0, sizeof(unsigned)));
    if (!c->n_collect) return INFER8_OK;
    CU_TRY(cudaMalloc((void **)&c->collect_dev, sizeof(i8_calib_hist) * (size_t)c->n_collect));
    for (int i = 0; i < g->n_nodes; i++)
        if (c->collect_index[i] >= 0)
            CU_TRY(cudaMemcpy(c->collect_dev + c->collect_index[i], hist[i], sizeof(i8_calib_hist),
                              cudaMemcpyHostToDevice));
    return INFER8_OK;
}

/* Calibration forward: every node in order on stream 0 (no graph, no concurrency, so a tensor
 * is read before any later node can reuse its memory), each requested output binned right
 * after its node; then the histograms are copied back to the host. */
static infer8_status collect_forward(cu_ctx *c, cu_batch *b, int u8, i8_err *err) {
    const i8_graph *g = c->g;
    cudaStream_t s = c->streams[0];
    for (int i = 0; i < g->n_nodes; i++) {
        int rc = launch_node(c, b, i, s, c->rt[i].stream, u8);
        if (!rc && c->collect_index[i] >= 0) {
            const i8_node *nd = &g->nodes[i];
            rc = i8_cuda_calib_collect(i8_cuda_view_ptr(c, i), (size_t)b->n * nd->h * nd->w, nd->c,
                                       i8_cuda_view_ld(c, i), c->collect_dev + c->collect_index[i],
                                       c->collect_scratch, s);
        }
        if (rc) return i8_fail(err, INFER8_E_DEVICE, "cuda: calibration forward: node '%s' failed (%d)",
                               g->nodes[i].name, rc);
    }
    const i8_node *o = &g->nodes[g->output];
    if (i8_cuda_output_to_nchw(i8_cuda_view_ptr(c, g->output), c->stor[c->views[g->output].storage].f32, b->n, o->c,
                               o->h, o->w, i8_cuda_view_ld(c, g->output), c->out_stage, s))
        return i8_fail(err, INFER8_E_DEVICE, "cuda: calibration forward: output conversion failed");
    CU_TRY(cudaStreamSynchronize(s));
    for (int i = 0; i < g->n_nodes; i++)
        if (c->collect_index[i] >= 0)
            CU_TRY(cudaMemcpy(c->collect_host[i], c->collect_dev + c->collect_index[i], sizeof(i8_calib_hist),
                              cudaMemcpyDeviceToHost));
    return INFER8_OK;
}

/* What prepare and plan_memory both refuse: a node the backend cannot run, no output, no input
 * node first */
static infer8_status check_graph(const i8_graph *g, i8_err *err) {
    for (int i = 0; i < g->n_nodes; i++)
        if (!cuda_supports_node(g, &g->nodes[i]))
            return i8_fail(err, INFER8_E_UNSUPPORTED, "cuda: node '%s' (%s) is not supported by the CUDA backend",
                           g->nodes[i].name, i8_op_name(g->nodes[i].op));
    if (g->output < 0 || g->output >= g->n_nodes)
        return i8_fail(err, INFER8_E_INVALID_ARGUMENT, "cuda: graph has no output");
    if (g->nodes[0].op != I8_OP_INPUT) return i8_fail(err, INFER8_E_UNSUPPORTED, "cuda: node 0 must be the input");
    return INFER8_OK;
}

/* Host-only planning into c->views / c->stor (allocated, n_nodes each): every output placed (concat
 * inputs in their slices), e4m3 twins of the tensors read as FP8 (they grow their storages before
 * the arena is planned), then the arena by liveness */
static infer8_status plan_memory_layout(cu_ctx *c, i8_err *err) {
    for (int i = 0; i < c->g->n_nodes; i++) c->views[i].storage = -1;
    infer8_status rc;
    if ((rc = place_outputs(c, err)) || (rc = i8_cuda_fp8_plan(c, err))) return rc;
    return plan_arena(c, err);
}

static infer8_status prepare_inner(cu_ctx *c, i8_graph *g, const i8_backend_options *opts, i8_err *err) {
    int n = g->n_nodes;
    infer8_status rc = check_graph(g, err);
    if (rc) return rc;
    const char *force = getenv("INFER8_CUDA_TACTIC");
    c->force_kind = !force ? 0 : !strcmp(force, "own") ? I8_CUDA_TACTIC_OWN
                               : !strcmp(force, "cublaslt") ? I8_CUDA_TACTIC_CUBLASLT
                               : !strcmp(force, "cudnn") ? I8_CUDA_TACTIC_CUDNN : 0;
    const char *own_only = getenv("INFER8_CUDA_OWN_VARIANT");
    c->own_only = own_only && *own_only ? atoi(own_only) : -1;
    const char *budget = getenv("INFER8_CUDA_CUDNN_BUDGET");
    /* seconds of cuDNN plan building per batch size (opt level; the environment overrides it) */
    c->cudnn_budget_s = budget                      ? atof(budget)
                        : opts->cudnn_budget_s < 0.0  ? 0.0
                        : opts->cudnn_budget_s > 0.0  ? opts->cudnn_budget_s
                                                      : I8_CUDNN_BUDGET_DEFAULT_S;
    const char *share = getenv("INFER8_CUDA_CUDNN_SHARE"); /* 1: an equal share per fp16 problem (cudnn_budget.h) */
    c->cudnn_share = share && atoi(share) > 0;
    const char *lossy = getenv("INFER8_CUDA_LOSSY_ENGINES");
    c->cudnn_lossy_ok = lossy && atoi(lossy) > 0;

    CU_TRY(cudaGetDevice(&c->device));
    CU_TRY(cudaDeviceGetAttribute(&c->sm_count, cudaDevAttrMultiProcessorCount, c->device));
    cudnnStatus_t ds = cudnnCreate(&c->dnn);
    if (ds != CUDNN_STATUS_SUCCESS)
        return i8_fail(err, INFER8_E_DEVICE, "cuda: cudnnCreate: %s", cudnnGetErrorString(ds));
    if ((rc = i8_cublaslt_open(&c->lt_fn, NULL, err))) return rc;
    if (c->lt_fn.create(&c->lt) != CUBLAS_STATUS_SUCCESS)
        return i8_fail(err, INFER8_E_DEVICE, "cuda: cublasLtCreate failed");
    int least_prio = 0, greatest_prio = 0;
    CU_TRY(cudaDeviceGetStreamPriorityRange(&least_prio, &greatest_prio));
    for (int s = 0; s < CU_STREAMS; s++) {
        CU_TRY(cudaStreamCreateWithFlags(&c->streams[s], cudaStreamNonBlocking));
        if (greatest_prio != least_prio) {
            CU_TRY(cudaStreamCreateWithPriority(&c->streams_hi[s], cudaStreamNonBlocking, greatest_prio));
            CU_TRY(cudaEventCreateWithFlags(&c->lane_ev[s], cudaEventDisableTiming));
        }
        CU_TRY(cudaEventCreateWithFlags(&c->join[s], cudaEventDisableTiming));
        CU_TRY(cudaMalloc(&c->ws[s], CU_WORKSPACE_BYTES));
        CU_TRY(cudaMalloc((void **)&c->counters[s], CU_SPLIT_COUNTERS * sizeof(unsigned)));
        CU_TRY(cudaMemset(c->counters[s], 0, CU_SPLIT_COUNTERS * sizeof(unsigned)));
    }
    CU_TRY(cudaEventCreate(&c->t0));
    CU_TRY(cudaEventCreate(&c->t1));
    c->ev = i8_calloc((size_t)n, sizeof(cudaEvent_t), err);
    c->rt = i8_calloc((size_t)n, sizeof(cu_node_rt), err);
    c->views = i8_calloc((size_t)n, sizeof(cu_view), err);
    c->stor = i8_calloc((size_t)n, sizeof(cu_storage), err);
    c->batches = i8_calloc((size_t)c->max_batch + 1, sizeof(cu_batch), err);
    if (!c->ev || !c->rt || !c->views || !c->stor || !c->batches) return err->code;
    if ((rc = plan_memory_layout(c, err)) || (rc = i8_cuda_fp8_setup(c, err))) return rc;
    assign_streams(c);
    for (int i = 0; i < n; i++)
        if (c->rt[i].need_event) CU_TRY(cudaEventCreateWithFlags(&c->ev[i], cudaEventDisableTiming));
    CU_TRY(cudaMalloc((void **)&c->arena, c->arena_bytes ? c->arena_bytes : 256));
    /* non-zero contents so tuning never times on zeros */
    if (i8_cuda_fill_pattern(c->arena, c->arena_bytes / 2, 12345u, c->streams[0]))
        return i8_fail(err, INFER8_E_DEVICE, "cuda: fill kernel failed to launch");
    for (int i = 0; i < n; i++)
        if ((rc = upload_node(c, i, err))) return rc;
    if ((rc = i8_cuda_fp8_merge_plan(c, err))) return rc;
    if ((rc = i8_cuda_fp8_pair_plan(c, err))) return rc;
    size_t in_count;
    if (!i8_mul3_size((size_t)c->max_batch * g->input_c, (size_t)g->input_h, (size_t)g->input_w, &in_count))
        return i8_fail(err, INFER8_E_LIMIT, "cuda: input size overflows");
    CU_TRY(cudaMalloc((void **)&c->in_stage, in_count * 4));
    {
        const i8_node *o = &g->nodes[g->output];
        size_t out_count;
        if (!i8_mul3_size((size_t)c->max_batch * o->c, (size_t)o->h, (size_t)o->w, &out_count))
            return i8_fail(err, INFER8_E_LIMIT, "cuda: output size overflows");
        CU_TRY(cudaMalloc((void **)&c->out_stage, out_count * 4));
    }
    {
        float *h = i8_malloc(in_count * 4, err);
        if (!h) return err->code;
        i8_rng r;
        i8_rng_seed(&r, 7);
        for (size_t k = 0; k < in_count; k++) h[k] = (float)(2.0 * i8_rng_uniform(&r) - 1.0);
        cudaError_t e = cudaMemcpy(c->in_stage, h, in_count * 4, cudaMemcpyHostToDevice);
        free(h);
        if (e != cudaSuccess) return i8_fail(err, INFER8_E_DEVICE, "cuda: input upload: %s", cudaGetErrorString(e));
    }
    if (opts->collect_hist && (rc = collect_setup(c, opts->collect_hist, err))) return rc;
    CU_TRY(cudaDeviceSynchronize());
    return INFER8_OK;
}

static infer8_status cuda_prepare(void **ctx, i8_graph *g, const i8_backend_options *opts, i8_err *err) {
    if (!ctx || !g || !opts || opts->max_batch < 1)
        return i8_fail(err, INFER8_E_INVALID_ARGUMENT, "cuda: prepare needs a graph and max_batch >= 1");
    if (i8_cuda_device_count() < 1) return i8_fail(err, INFER8_E_UNSUPPORTED, "cuda: no CUDA device");
    cu_ctx *c = i8_calloc(1, sizeof *c, err);
    if (!c) return err->code;
    c->g = g;
    c->max_batch = opts->max_batch;
    infer8_status rc = prepare_inner(c, g, opts, err);
    if (rc != INFER8_OK) {
        cudaGetLastError();
        cuda_destroy(c);
        return rc;
    }
    *ctx = c;
    return INFER8_OK;
}

/* The logits of the forward just launched on stream 0, copied back (float32) once it is done */
static infer8_status copy_logits(cu_ctx *c, int n, float *logits, i8_err *err) {
    const i8_node *out = &c->g->nodes[c->g->output];
    CU_TRY(cudaMemcpyAsync(logits, c->out_stage, (size_t)n * out->c * out->h * out->w * 4, cudaMemcpyDeviceToHost,
                           c->streams[0]));
    CU_TRY(cudaStreamSynchronize(c->streams[0]));
    return INFER8_OK;
}

static infer8_status cuda_run(void *vctx, int n, const float *input, float *logits, i8_err *err) {
    cu_ctx *c = vctx;
    infer8_status rc = ensure_batch(c, n, err);
    if (rc) return rc;
    const i8_graph *g = c->g;
    size_t in_bytes = (size_t)n * g->input_c * g->input_h * g->input_w * 4;
    CU_TRY(cudaMemcpyAsync(c->in_stage, input, in_bytes, cudaMemcpyHostToDevice, c->streams[0]));
    if ((rc = c->collect_index ? collect_forward(c, &c->batches[n], 0, err) : forward(c, &c->batches[n], err)))
        return rc;
    return copy_logits(c, n, logits, err);
}

/* The uint8 path: the input node normalizes in_stage_u8 on the GPU (i8_cuda_input_u8_to_nhwc),
 * in a second graph per batch size with the tactics the first one chose. Everything after the
 * input node is the float path's. */
static infer8_status cuda_run_u8(void *vctx, int n, const uint8_t *input, const float mean[3], const float std[3],
                                 float *logits, i8_err *err) {
    cu_ctx *c = vctx;
    const i8_graph *g = c->g;
    if (g->input_c != 3)
        return i8_fail(err, INFER8_E_UNSUPPORTED, "cuda: uint8 input needs 3 input channels, the graph has %d",
                       g->input_c);
    for (int k = 0; k < 3; k++)
        if (!(std[k] != 0.0f) || !isfinite(mean[k]) || !isfinite(std[k]))
            return i8_fail(err, INFER8_E_INVALID_ARGUMENT, "cuda: uint8 input: mean[%d] %g, std[%d] %g", k,
                           (double)mean[k], k, (double)std[k]);
    infer8_status rc = ensure_batch(c, n, err);
    if (rc) return rc;
    size_t per_image = (size_t)g->input_h * g->input_w * 3;
    if (!c->in_stage_u8) CU_TRY(cudaMalloc((void **)&c->in_stage_u8, (size_t)c->max_batch * per_image));
    if (memcmp(c->u8_mean, mean, sizeof c->u8_mean) || memcmp(c->u8_std, std, sizeof c->u8_std)) {
        /* another normalization: the graphs hold the old one as kernel arguments */
        CU_TRY(cudaStreamSynchronize(c->streams[0]));
        for (int k = 0; k <= c->max_batch; k++) {
            if (c->batches[k].exec_u8) cudaGraphExecDestroy(c->batches[k].exec_u8), c->batches[k].exec_u8 = NULL;
            c->batches[k].u8_capture_failed = 0;
        }
        memcpy(c->u8_mean, mean, sizeof c->u8_mean);
        memcpy(c->u8_std, std, sizeof c->u8_std);
    }
    cu_batch *b = &c->batches[n];
    CU_TRY(cudaMemcpyAsync(c->in_stage_u8, input, (size_t)n * per_image, cudaMemcpyHostToDevice, c->streams[0]));
    /* a capture that failed once is not tried again on every call (the float graph was made) */
    if (b->exec && !b->exec_u8 && !b->u8_capture_failed) b->u8_capture_failed = !(b->exec_u8 = capture(c, b, 1));
    if (b->exec_u8) {
        if (cudaGraphLaunch(b->exec_u8, c->streams[0]) != cudaSuccess)
            rc = i8_fail(err, INFER8_E_DEVICE, "cuda: graph launch (uint8 input) failed");
    } else {
        rc = c->collect_index ? collect_forward(c, b, 1, err) : launch_nodes(c, b, 1, err);
    }
    return rc ? rc : copy_logits(c, n, logits, err);
}

static infer8_status cuda_time_forward(void *vctx, int n, int iters, double *ms, i8_err *err) {
    cu_ctx *c = vctx;
    infer8_status rc = ensure_batch(c, n, err);
    if (rc) return rc;
    if (iters < 1) iters = 1;
    cu_batch *b = &c->batches[n];
    for (int i = 0; i < 5; i++)
        if ((rc = forward(c, b, err))) return rc;
    CU_TRY(cudaEventRecord(c->t0, c->streams[0]));
    for (int i = 0; i < iters; i++)
        if ((rc = forward(c, b, err))) return rc;
    CU_TRY(cudaEventRecord(c->t1, c->streams[0]));
    CU_TRY(cudaEventSynchronize(c->t1));
    float t = 0.0f;
    CU_TRY(cudaEventElapsedTime(&t, c->t0, c->t1));
    *ms = (double)t / iters;
    return INFER8_OK;
}

/* Node i of the forward launched PROFILE_REPS times back to back (cuda_profile's graph) */
typedef struct node_reps { cu_ctx *c; cu_batch *b; int node; } node_reps;
#define PROFILE_REPS 10

static int launch_node_reps(void *arg) {
    node_reps *r = arg;
    for (int k = 0; k < PROFILE_REPS; k++) {
        const int rc = launch_node(r->c, r->b, r->node, r->c->streams[0], r->c->rt[r->node].stream, 0);
        if (rc) return rc;
    }
    return 0;
}

/* Each node's time, as the tuner times a conv: replays of a graph of PROFILE_REPS launches of it
 * (iters replays after one warm-up), so that what is measured is the GPU's work. An event pair
 * around one launch on an idle GPU, as before session 37, also counted the launch's host cost,
 * most of a small node's time (a cuDNN graph execute costs the host more than a kernel launch:
 * docs/performance.md, "Session 36"). A node that cannot be captured is timed that way still. */
static infer8_status cuda_profile(void *vctx, int n, int iters, double *ms, i8_err *err) {
    cu_ctx *c = vctx;
    infer8_status rc = ensure_batch(c, n, err);
    if (rc) return rc;
    cu_batch *b = &c->batches[n];
    cudaStream_t s = c->streams[0];
    if (iters < 1) iters = 1;
    for (int i = 0; i < c->g->n_nodes; i++) {
        node_reps r = {c, b, i};
        float t = 0.0f;
        const int replayed = i8_cuda_captured_ms(c, s, launch_node_reps, &r, iters, &t);
        if (replayed < 0)
            return i8_fail(err, INFER8_E_DEVICE, "cuda: node '%s': %s", c->g->nodes[i].name,
                           cudaGetErrorString(cudaGetLastError()));
        if (replayed == 0) {
            ms[i] += (double)t / ((double)iters * PROFILE_REPS); /* added into, as infer8_profile promises */
            continue;
        }
        for (int it = 0; it < iters; it++) {
            CU_TRY(cudaEventRecord(c->t0, s));
            int lr = launch_node(c, b, i, s, c->rt[i].stream, 0);
            if (lr) return i8_fail(err, INFER8_E_DEVICE, "cuda: node '%s' failed (%d)", c->g->nodes[i].name, lr);
            CU_TRY(cudaEventRecord(c->t1, s));
            CU_TRY(cudaEventSynchronize(c->t1));
            float t = 0.0f;
            CU_TRY(cudaEventElapsedTime(&t, c->t0, c->t1));
            ms[i] += t / iters; /* mean per forward, as infer8_profile promises */
        }
    }
    return INFER8_OK;
}

static void cuda_describe_device(void *vctx, char *buf, size_t size) {
    cu_ctx *c = vctx;
    struct cudaDeviceProp prop;
    int drv = 0, rt = 0, dev = c ? c->device : 0;
    memset(&prop, 0, sizeof prop);
    if (cudaGetDeviceProperties(&prop, dev) != cudaSuccess) snprintf(prop.name, sizeof prop.name, "unknown GPU");
    cudaDriverGetVersion(&drv);
    cudaRuntimeGetVersion(&rt);
    /* cuBLASLt's version is known once a context has opened it (0: not opened) */
    size_t dnn = cudnnGetVersion(), lt = c && c->lt_fn.lib ? c->lt_fn.get_version() : 0;
    snprintf(buf, size, "%s (sm_%d%d, %d SMs), driver %d.%d, CUDA runtime %d.%d, cuDNN %zu.%zu.%zu, cuBLASLt %zu",
             prop.name, prop.major, prop.minor, prop.multiProcessorCount, drv / 1000, (drv % 1000) / 10, rt / 1000,
             (rt % 1000) / 10, dnn / 10000, (dnn % 10000) / 100, dnn % 100, lt);
}

/* The activation arena prepare would plan for g at max_batch, on the host only: the same output
 * placement (concat inputs in their slices), e4m3 twins and liveness planning, no CUDA call. */
static infer8_status cuda_plan_memory(const i8_graph *g, int max_batch, uint64_t *arena_bytes, i8_err *err) {
    if (!g || !arena_bytes || max_batch < 1)
        return i8_fail(err, INFER8_E_INVALID_ARGUMENT, "cuda: memory plan needs a graph and max_batch >= 1");
    infer8_status rc = check_graph(g, err);
    if (rc) return rc;
    const int n = g->n_nodes;
    cu_ctx c;
    memset(&c, 0, sizeof c);
    c.g = (i8_graph *)g; /* the planners only read it */
    c.max_batch = max_batch;
    c.rt = i8_calloc((size_t)n, sizeof(cu_node_rt), err);
    c.views = i8_calloc((size_t)n, sizeof(cu_view), err);
    c.stor = i8_calloc((size_t)n, sizeof(cu_storage), err);
    rc = c.rt && c.views && c.stor ? plan_memory_layout(&c, err) : err->code;
    if (!rc) *arena_bytes = c.arena_bytes;
    free(c.rt), free(c.views), free(c.stor);
    return rc;
}

const i8_backend_ops i8_backend_cuda = {
    .version = 1,
    .name = "cuda",
    .supports_node = cuda_supports_node,
    .prepare = cuda_prepare,
    .run = cuda_run,
    .destroy = cuda_destroy,
    .time_forward = cuda_time_forward,
    .profile = cuda_profile,
    .describe_device = cuda_describe_device,
    .plan_memory = cuda_plan_memory,
    .run_u8 = cuda_run_u8,
};

/* ---------------------------------------------------------------- internal interface */

size_t i8_cuda_arena_bytes(const void *ctx) { return ctx ? ((const cu_ctx *)ctx)->arena_bytes : 0; }

infer8_status i8_cuda_tactics(void *ctx, int n, const i8_cuda_tactic **tactics, i8_err *err) {
    cu_ctx *c = ctx;
    infer8_status rc = ensure_batch(c, n, err);
    if (rc) return rc;
    *tactics = c->batches[n].tactics;
    return INFER8_OK;
}

infer8_status i8_cuda_preset_tactics(void *ctx, int n, const i8_cuda_tactic *tactics, i8_err *err) {
    cu_ctx *c = ctx;
    if (n < 1 || n > c->max_batch || c->batches[n].built)
        return i8_fail(err, INFER8_E_INVALID_ARGUMENT, "cuda: cannot preset tactics of batch %d", n);
    cu_batch *b = &c->batches[n];
    if (!b->preset) b->preset = i8_malloc(sizeof(i8_cuda_tactic) * (size_t)c->g->n_nodes, err);
    if (!b->preset) return err->code;
    memcpy(b->preset, tactics, sizeof(i8_cuda_tactic) * (size_t)c->g->n_nodes);
    return INFER8_OK;
}

int i8_cuda_get_tuning(const void *ctx, int n, infer8_tuning *t) {
    i8_cuda_stats st;
    i8_cuda_get_stats(ctx, n, &st);
    t->conv_problems = st.problems;
    t->untuned_problems = st.cudnn_after_budget;
    t->partly_tuned_problems = st.cudnn_cut_short;
    t->restored_tactics = st.presets_kept;
    t->tune_seconds = st.tune_seconds;
    t->cudnn_budget_s = st.cudnn_budget_s;
    return st.built;
}

void i8_cuda_get_stats(const void *ctx, int n, i8_cuda_stats *stats) {
    const cu_ctx *c = ctx;
    memset(stats, 0, sizeof *stats);
    if (!c || n < 1 || n > c->max_batch) return;
    *stats = c->batches[n].stats;
    stats->arena_bytes = c->arena_bytes;
    stats->weight_bytes = c->weight_bytes;
    stats->streams_used = c->streams_used;
    stats->fp8_load_fallbacks = c->fp8_load_fallbacks;
    stats->halo_prefetch = c->halo_prefetch;
    stats->built = c->batches[n].built;
    stats->cudnn_budget_s = c->cudnn_budget_s;
}
