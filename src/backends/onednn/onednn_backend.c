/* oneDNN CPU backend ("cpu-onednn"): executes an optimized graph (batchnorm folded, relu and
 * 1x1 residual projections fused into convolutions) with oneDNN 2.x primitives through its C API.
 *
 * What happens where:
 *   prepare   picks one activation layout per node, decides which nodes write straight into a
 *             channel slice of a concat output (no concat copy) and which fused residual convs
 *             write in place over their input x; no primitive is created yet.
 *   run(n)    on the first call with batch n builds a plan for n: primitives, memory objects
 *             and a liveness-planned activation arena; later calls with n reuse it. Weights are
 *             reordered into the layout the convolution chose once per (node, layout) and
 *             shared between plans.
 *
 * Layout: oneDNN picks. At prepare a probe convolution with format_tag any tells which
 * activation layout its fastest implementation wants on this CPU (nChw16c with AVX-512,
 * nChw8c with AVX2, else nhwc); every node whose channel count is a multiple of the block uses
 * it, others use nhwc. Weights use format any and are reordered once. The input stays NCHW
 * (the first convolution reads the caller's buffer directly in fp32).
 *
 * Fused residual conv, out = act(x + s*(conv(w) + b)): oneDNN's sum post-op computes
 * dst = conv_result + sum_scale * dst_prev. We reorder the weights with output scale s and
 * store s*b as bias, so conv' = s*conv + s*b, put x into dst first (in place when the conv is
 * x's last reader, else a reorder copies it), and append sum(1.0) then eltwise relu.
 *
 * Precision: fp32 by default; with options->bf16 activations and conv/linear weights are
 * bfloat16 (accumulation in fp32, biases fp32) when the CPU has AVX-512 BF16 or AMX.
 *
 * FP8 emulation, the reference executor's (ref_executor.c, docs/fp8.md) with oneDNN's fp32
 * convolutions: the FP8 convs' weights are already dequantized in the graph; a conv reading a
 * tensor as FP8 reads its fake-quantized copy (i8_fp8_fake_quant with the producer's
 * out_scale), made once per tensor right after its producer (as the GPU's epilogue writes the
 * e4m3 copy). As there, every other activation is stored as binary16 (rounded in place after
 * its node), except the outputs of FP8 convs and the concats holding them, which keep their
 * float values; a layer reading one of those as fp16 reads a rounded copy. These element-wise
 * passes are plan steps of their own (no oneDNN primitive) over dense buffers, so an FP8 graph
 * writes no concat slices and no residual in place. Only the fp32 accumulation order differs
 * from the reference executor.
 *
 * Calibration (options->collect_hist, as the CUDA backend): after each node k with a histogram,
 * a pass adds its whole batch output to it (i8_calib_collect: batch max first, then counts, so
 * the layout's element order does not matter); such a node writes a dense buffer of its own.
 * Not thread-safe: one context per thread (oneDNN's OpenMP team is sized by omp_set_num_threads
 * on the calling thread before each run). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <dnnl.h>
#include <dnnl_debug.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#include "backends/backend.h"
#include "quant/calibrate.h"
#include "quant/fp8.h"

/* Element-wise passes of the FP8 emulation (steps without a oneDNN primitive). */
typedef enum elementwise_kind { EW_NONE = 0, EW_FAKE_QUANT, EW_ROUND_F16, EW_COLLECT } elementwise_kind;

/* One oneDNN primitive execution, or (prim NULL) an element-wise pass args[0] -> args[1]. */
typedef struct step {
    dnnl_primitive_t prim;
    int node;
    int nargs;
    dnnl_exec_arg_t args[8];
    elementwise_kind ew;
    float scale;                  /* EW_FAKE_QUANT: the tensor's static scale */
    size_t count;                 /* floats in the buffer */
    struct i8_calib_hist *hist;   /* EW_COLLECT: the histogram args[0] is added to */
} step;

/* Everything built for one batch size. */
typedef struct plan {
    int n;
    step *steps;
    int n_steps, cap_steps;
    dnnl_memory_t *mems;          /* every memory object of the plan, for destroy */
    int n_mems, cap_mems;
    dnnl_memory_t *node_mem;      /* [n_nodes] activation memory per node (NULL if none) */
    dnnl_memory_t *fq_mem;        /* [n_nodes] FP8 emulation: the fake-quantized copy FP8 readers take */
    dnnl_memory_t *r_mem;         /* [n_nodes] FP8 emulation: the binary16-rounded copy of a float output */
    dnnl_memory_desc_t *node_md;  /* [n_nodes] */
    void **slots;                 /* activation buffers (64-byte aligned) */
    int n_slots;
    dnnl_memory_t input_mem;      /* f32 NCHW, handle = caller's input each run */
    dnnl_memory_t logits_mem;     /* f32 [n][classes], handle = caller's logits each run */
} plan;

/* One reordered copy of a node's weights in the layout a primitive chose. */
typedef struct wcopy {
    dnnl_memory_desc_t md;
    dnnl_memory_t mem;
    void *data;
} wcopy;

typedef struct node_info {
    int layout_blocked;           /* 1: nChw<blk>c, 0: nhwc */
    int alias_parent;             /* concat node whose channel slice this node writes, or -1 */
    int alias_offset;             /* channel offset in that concat */
    int inplace_of;               /* fused residual conv writing over x's buffer: x, else -1 */
    int last_use;                 /* index of the last node reading this one */
    float *bias_scaled;           /* s*b for fused residual convs (owned), else NULL */
    wcopy *w;                     /* reordered weights, one per layout seen */
    int n_w;
    int fq_last, r_last;          /* FP8 emulation: last reader of the fake-quantized / rounded copy, -1 if none */
    int unrounded;                /* FP8 emulation: output kept in float (FP8 conv, concat of one) */
} node_info;

typedef struct ctx {
    i8_graph *g;
    i8_backend_options opts;
    int threads;
    int blk;                      /* activation channel block: 16, 8 or 0 (nhwc) */
    int bf16;
    int f16_storage;              /* FP8 emulation: the graph reads FP8 (see the top of this file) */
    dnnl_data_type_t act_dt;
    dnnl_engine_t engine;
    dnnl_stream_t stream;
    node_info *info;
    plan **plans;                 /* [max_batch + 1], built lazily */
    float *time_input;            /* last input given to run, for time_forward */
    int time_input_n;
    float *time_logits;
    char device[256];
} ctx;

#define DN(call, what)                                                                                   \
    do {                                                                                                 \
        dnnl_status_t st_ = (call);                                                                      \
        if (st_ != dnnl_success)                                                                         \
            return i8_fail(err, INFER8_E_DEVICE, "onednn: %s: %s", (what), dnnl_status2str(st_));      \
    } while (0)

#define DNN(call, what, node)                                                                            \
    do {                                                                                                 \
        dnnl_status_t st_ = (call);                                                                      \
        if (st_ != dnnl_success)                                                                         \
            return i8_fail(err, INFER8_E_DEVICE, "onednn: node %s: %s: %s", (node)->name, (what),       \
                           dnnl_status2str(st_));                                                        \
    } while (0)

/* ---------------------------------------------------------------- support ---------------- */

static int supports_node(const i8_graph *g, const i8_node *nd)
{
    (void)g;
    switch (nd->op) {
    case I8_OP_CONV: /* FP8 reads are emulated (top of this file) */
    case I8_OP_INPUT:
    case I8_OP_BATCHNORM:
    case I8_OP_RELU:
    case I8_OP_MAXPOOL:
    case I8_OP_AVGPOOL:
    case I8_OP_CONCAT:
    case I8_OP_RESIDUAL:
    case I8_OP_GLOBAL_AVGPOOL:
    case I8_OP_LINEAR:
        return 1;
    default:
        return 0;
    }
}

/* Nodes that may write into a concat slice (the input is the caller's buffer; linear is 2-D). */
static int is_conv_like_input(const i8_node *nd) { return nd->op != I8_OP_INPUT && nd->op != I8_OP_LINEAR; }

/* ---------------------------------------------------------------- prepare ---------------- */

/* Which activation block the probe convolution's fastest implementation picks. */
static infer8_status probe_layout(ctx *c, int *blk, i8_err *err)
{
    dnnl_dims_t src = {1, 64, 35, 35}, wei = {64, 64, 3, 3}, dst = {1, 64, 35, 35};
    dnnl_dims_t one = {1, 1}, pad = {1, 1};
    dnnl_memory_desc_t smd, wmd, dmd, got, want;
    DN(dnnl_memory_desc_init_by_tag(&smd, 4, src, c->act_dt, dnnl_format_tag_any), "probe md");
    DN(dnnl_memory_desc_init_by_tag(&wmd, 4, wei, c->act_dt, dnnl_format_tag_any), "probe md");
    DN(dnnl_memory_desc_init_by_tag(&dmd, 4, dst, c->act_dt, dnnl_format_tag_any), "probe md");
    dnnl_convolution_desc_t cd;
    DN(dnnl_convolution_forward_desc_init(&cd, dnnl_forward_inference, dnnl_convolution_direct, &smd, &wmd, NULL,
                                          &dmd, one, pad, pad),
       "probe conv");
    dnnl_primitive_desc_t pd;
    DN(dnnl_primitive_desc_create(&pd, &cd, NULL, c->engine, NULL), "probe conv (no implementation)");
    got = *dnnl_primitive_desc_query_md(pd, dnnl_query_dst_md, 0);
    dnnl_primitive_desc_destroy(pd);
    *blk = 0;
    static const struct { dnnl_format_tag_t tag; int blk; } cand[] = {{dnnl_nChw16c, 16}, {dnnl_nChw8c, 8}};
    for (size_t i = 0; i < I8_ARRAY_LEN(cand); i++) {
        DN(dnnl_memory_desc_init_by_tag(&want, 4, dst, c->act_dt, cand[i].tag), "probe md");
        if (dnnl_memory_desc_equal(&got, &want)) *blk = cand[i].blk;
    }
    return INFER8_OK;
}

/* Number of times node j appears as an input of later nodes. */
static int reader_count(const i8_graph *g, int j)
{
    int count = 0;
    for (int i = j + 1; i < g->n_nodes; i++)
        for (int k = 0; k < g->nodes[i].n_inputs; k++) count += g->nodes[i].inputs[k] == j;
    return count;
}

/* FP8 emulation: whether the graph needs it, which outputs stay float, and who reads which copy. */
static infer8_status plan_fp8_emulation(ctx *c, i8_err *err)
{
    i8_graph *g = c->g;
    for (int i = 0; i < g->n_nodes; i++) {
        c->info[i].fq_last = c->info[i].r_last = -1;
        c->f16_storage |= i8_node_reads_fp8(&g->nodes[i]);
    }
    if (!c->f16_storage) return INFER8_OK;
    if (c->bf16)
        return i8_fail(err, INFER8_E_UNSUPPORTED, "onednn: the FP8 emulation computes in fp32, not bf16");
    for (int i = 0; i < g->n_nodes; i++) {
        const i8_node *nd = &g->nodes[i];
        node_info *ni = &c->info[i];
        if (nd->op == I8_OP_CONCAT) {
            for (int k = 0; k < nd->n_inputs; k++) ni->unrounded |= c->info[nd->inputs[k]].unrounded;
            continue;
        }
        ni->unrounded = nd->op == I8_OP_CONV && nd->precision == I8_PREC_FP8 && i != g->output;
        for (int slot = 0; slot < 2; slot++) {
            int q = i8_node_read_slot(nd, slot);
            if (q < 0) continue;
            if (i8_node_reads_fp8_slot(nd, slot)) {
                if (!i8_fp8_scale_usable(g->nodes[q].out_scale))
                    return i8_fail(err, INFER8_E_INVALID_ARGUMENT, "onednn: node %s reads '%s' as FP8 with out_scale %g (need > 0)",
                                   nd->name, g->nodes[q].name, g->nodes[q].out_scale);
                c->info[q].fq_last = i;
            } else if (c->info[q].unrounded)
                c->info[q].r_last = i;
        }
    }
    return INFER8_OK;
}

static infer8_status plan_layouts(ctx *c, i8_err *err)
{
    i8_graph *g = c->g;
    for (int i = 0; i < g->n_nodes; i++) {
        node_info *ni = &c->info[i];
        const i8_node *nd = &g->nodes[i];
        ni->layout_blocked = c->blk && nd->c % c->blk == 0 && nd->op != I8_OP_INPUT && nd->op != I8_OP_LINEAR;
        ni->alias_parent = -1;
        ni->inplace_of = -1;
        ni->last_use = i == g->output ? g->n_nodes : i;
    }
    for (int i = 0; i < g->n_nodes; i++)
        for (int k = 0; k < g->nodes[i].n_inputs; k++) c->info[g->nodes[i].inputs[k]].last_use = I8_MAX(c->info[g->nodes[i].inputs[k]].last_use, i);

    /* Concat-free: an input read only by this concat writes straight into its channel slice. */
    for (int i = 0; i < g->n_nodes; i++) {
        const i8_node *nd = &g->nodes[i];
        if (nd->op != I8_OP_CONCAT) continue;
        int off = 0;
        for (int k = 0; k < nd->n_inputs; k++) {
            int p = nd->inputs[k];
            const i8_node *pn = &g->nodes[p];
            int collected = c->opts.collect_hist && c->opts.collect_hist[p];
            int ok = !c->f16_storage && !collected && is_conv_like_input(pn) && p != g->output && reader_count(g, p) == 1 &&
                     c->info[p].layout_blocked == c->info[i].layout_blocked &&
                     (!c->info[i].layout_blocked || off % c->blk == 0);
            if (ok) {
                c->info[p].alias_parent = i;
                c->info[p].alias_offset = off;
            }
            off += pn->c;
        }
    }
    (void)err;
    return INFER8_OK;
}

/* In place residual: the fused conv is x's last reader and neither is a concat slice. */
static void plan_inplace(ctx *c)
{
    i8_graph *g = c->g;
    for (int i = 0; i < g->n_nodes; i++) {
        const i8_node *nd = &g->nodes[i];
        if (nd->op != I8_OP_CONV || nd->residual < 0 || c->f16_storage) continue;
        int x = nd->residual;
        if (c->info[i].alias_parent >= 0 || c->info[x].alias_parent >= 0 || g->nodes[x].op == I8_OP_INPUT ||
            g->nodes[x].op == I8_OP_LINEAR || x == g->output || c->info[x].last_use != i ||
            nd->inputs[0] == x || c->info[x].layout_blocked != c->info[i].layout_blocked)
            continue;
        c->info[i].inplace_of = x;
    }
}

static infer8_status check_graph(const i8_graph *g, i8_err *err)
{
    if (g->n_nodes < 2 || g->output < 0 || g->output >= g->n_nodes)
        return i8_fail(err, INFER8_E_INVALID_ARGUMENT, "onednn: graph %s has no output node", g->arch);
    for (int i = 0; i < g->n_nodes; i++) {
        const i8_node *nd = &g->nodes[i];
        if (!supports_node(g, nd))
            return i8_fail(err, INFER8_E_UNSUPPORTED, "onednn: node %s: op %s not supported", nd->name,
                           i8_op_name(nd->op));
        for (int k = 0; k < nd->n_inputs; k++)
            if (nd->inputs[k] < 0 || nd->inputs[k] >= i)
                return i8_fail(err, INFER8_E_INVALID_ARGUMENT, "onednn: node %s: input %d out of order", nd->name,
                               k);
        if (nd->op == I8_OP_INPUT && i != 0)
            return i8_fail(err, INFER8_E_UNSUPPORTED, "onednn: node %s: input must be node 0", nd->name);
        if ((nd->op == I8_OP_CONV || nd->op == I8_OP_LINEAR) && (nd->weight < 0 || nd->weight >= g->n_weights))
            return i8_fail(err, INFER8_E_INVALID_ARGUMENT, "onednn: node %s: no weight", nd->name);
        if (nd->op == I8_OP_CONV && nd->residual >= 0 && (nd->n_inputs != 2 || nd->inputs[1] != nd->residual))
            return i8_fail(err, INFER8_E_INVALID_ARGUMENT, "onednn: node %s: residual must be inputs[1]", nd->name);
        if (nd->op == I8_OP_LINEAR) {
            const i8_node *in = &g->nodes[nd->inputs[0]];
            const i8_weight *w = &g->weights[nd->weight];
            if (w->ndim != 2 || w->shape[0] != nd->c || w->shape[1] != (int64_t)in->c * in->h * in->w)
                return i8_fail(err, INFER8_E_SHAPE, "onednn: node %s: linear weight shape mismatch", nd->name);
        }
    }
    const i8_node *out = &g->nodes[g->output];
    if ((int64_t)out->c * out->h * out->w != g->num_classes)
        return i8_fail(err, INFER8_E_SHAPE, "onednn: output node %s has %d*%d*%d values, expected %d classes",
                       out->name, out->c, out->h, out->w, g->num_classes);
    return INFER8_OK;
}

static int cpu_has_flag(const char *flag)
{
    FILE *f = fopen("/proc/cpuinfo", "r");
    if (!f) return 0;
    char line[8192];
    int found = 0;
    size_t len = strlen(flag);
    while (!found && fgets(line, sizeof line, f)) {
        if (strncmp(line, "flags", 5) != 0) continue;
        for (char *p = strstr(line, flag); p; p = strstr(p + 1, flag))
            if ((p == line || p[-1] == ' ') && (p[len] == ' ' || p[len] == '\n' || p[len] == 0)) found = 1;
        break;
    }
    fclose(f);
    return found;
}

static void cpu_model(char *buf, size_t size)
{
    snprintf(buf, size, "unknown CPU");
    FILE *f = fopen("/proc/cpuinfo", "r");
    if (!f) return;
    char line[1024];
    while (fgets(line, sizeof line, f)) {
        if (strncmp(line, "model name", 10) != 0) continue;
        char *p = strchr(line, ':');
        if (!p) break;
        p++;
        while (*p == ' ') p++;
        p[strcspn(p, "\n")] = 0;
        snprintf(buf, size, "%s", p);
        break;
    }
    fclose(f);
}

/* Sizes the OpenMP team oneDNN uses on this thread; returns the previous setting so the
 * caller's own OpenMP code is left as it was (restore_threads). */
static int set_threads(const ctx *c)
{
#ifdef _OPENMP
    int old = omp_get_max_threads();
    omp_set_num_threads(c->threads);
    return old;
#else
    (void)c;
    return 0;
#endif
}

static void restore_threads(int old)
{
#ifdef _OPENMP
    if (old > 0) omp_set_num_threads(old);
#else
    (void)old;
#endif
}

static void destroy(void *vctx);
static infer8_status probe_aliases(ctx *c, i8_err *err);

static infer8_status prepare(void **out, i8_graph *g, const i8_backend_options *opts, i8_err *err)
{
    if (!out || !g || !opts || opts->max_batch < 1)
        return i8_fail(err, INFER8_E_INVALID_ARGUMENT, "onednn: prepare needs a graph and max_batch >= 1");
    infer8_status st = check_graph(g, err);
    if (st) return st;
    ctx *c = i8_calloc(1, sizeof *c, err);
    if (!c) return err->code;
    c->g = g;
    c->opts = *opts;
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    c->threads = opts->threads > 0 ? opts->threads : (cores > 0 ? (int)cores : 1);
    c->bf16 = opts->bf16;
    if (c->bf16 && !cpu_has_flag("avx512_bf16") && !cpu_has_flag("amx_bf16")) {
        free(c);
        return i8_fail(err, INFER8_E_UNSUPPORTED, "onednn: bf16 needs a CPU with avx512_bf16 or amx_bf16");
    }
    if (c->bf16 && opts->collect_hist) {
        free(c);
        return i8_fail(err, INFER8_E_UNSUPPORTED, "onednn: calibration statistics are collected in fp32, not bf16");
    }
    c->act_dt = c->bf16 ? dnnl_bf16 : dnnl_f32;
    if (dnnl_engine_create(&c->engine, dnnl_cpu, 0) != dnnl_success ||
        dnnl_stream_create(&c->stream, c->engine, dnnl_stream_default_flags) != dnnl_success) {
        destroy(c);
        return i8_fail(err, INFER8_E_DEVICE, "onednn: cannot create the CPU engine or stream");
    }
    c->info = i8_calloc((size_t)g->n_nodes, sizeof *c->info, err);
    c->plans = i8_calloc((size_t)opts->max_batch + 1, sizeof *c->plans, err);
    if (!c->info || !c->plans) {
        destroy(c);
        return err->code;
    }
    int old = set_threads(c);
    if ((st = plan_fp8_emulation(c, err)) || (st = probe_layout(c, &c->blk, err)) || (st = plan_layouts(c, err)) ||
        (st = probe_aliases(c, err))) {
        restore_threads(old);
        destroy(c);
        return st;
    }
    restore_threads(old);
    plan_inplace(c);
    /* Scaled biases for fused residual convs: conv' = s*conv + s*b (weights scaled at reorder). */
    for (int i = 0; i < g->n_nodes; i++) {
        const i8_node *nd = &g->nodes[i];
        if (nd->op != I8_OP_CONV || nd->residual < 0 || nd->bias < 0) continue;
        float *b = i8_malloc(sizeof(float) * (size_t)nd->c, err);
        if (!b) {
            destroy(c);
            return err->code;
        }
        for (int k = 0; k < nd->c; k++) b[k] = nd->residual_scale * g->weights[nd->bias].data[k];
        c->info[i].bias_scaled = b;
    }
    char model[160];
    cpu_model(model, sizeof model);
    const dnnl_version_t *v = dnnl_version();
    snprintf(c->device, sizeof c->device, "%s, %d threads, oneDNN %d.%d.%d (%s), %s activations %s", model,
             c->threads, v->major, v->minor, v->patch, v->cpu_runtime == DNNL_RUNTIME_OMP ? "OpenMP" : "other runtime",
             c->bf16 ? "bf16" : "fp32", c->blk == 16 ? "nChw16c" : c->blk == 8 ? "nChw8c" : "nhwc");
    if (c->f16_storage) /* appended: the device string is truncated, never overrun */
        snprintf(c->device + strlen(c->device), sizeof c->device - strlen(c->device),
                 "; FP8 emulated (e4m3 reads, binary16 storage)");
    *out = c;
    return INFER8_OK;
}

/* ---------------------------------------------------------------- plan building --------- */

static infer8_status add_step(plan *p, dnnl_primitive_t prim, int node, int nargs, const dnnl_exec_arg_t *args,
                              i8_err *err)
{
    if (p->n_steps == p->cap_steps) {
        int cap = p->cap_steps ? 2 * p->cap_steps : 64;
        step *s = i8_realloc(p->steps, sizeof *s * (size_t)cap, err);
        if (!s) {
            if (prim) dnnl_primitive_destroy(prim);
            return err->code;
        }
        p->steps = s;
        p->cap_steps = cap;
    }
    step *s = &p->steps[p->n_steps++];
    memset(s, 0, sizeof *s);
    s->prim = prim;
    s->node = node;
    s->nargs = nargs;
    memcpy(s->args, args, sizeof *args * (size_t)nargs);
    return INFER8_OK;
}

static infer8_status new_mem(plan *p, ctx *c, const dnnl_memory_desc_t *md, void *handle, dnnl_memory_t *out,
                             i8_err *err)
{
    if (p->n_mems == p->cap_mems) {
        int cap = p->cap_mems ? 2 * p->cap_mems : 64;
        dnnl_memory_t *m = i8_realloc(p->mems, sizeof *m * (size_t)cap, err);
        if (!m) return err->code;
        p->mems = m;
        p->cap_mems = cap;
    }
    DN(dnnl_memory_create(out, md, c->engine, handle), "memory create");
    p->mems[p->n_mems++] = *out;
    return INFER8_OK;
}

/* Creates pd's primitive and appends it as a step; destroys pd. */
static infer8_status add_prim(plan *p, dnnl_primitive_desc_t pd, int node, int nargs, const dnnl_exec_arg_t *args,
                              i8_err *err)
{
    dnnl_primitive_t prim;
    dnnl_status_t s = dnnl_primitive_create(&prim, pd);
    dnnl_primitive_desc_destroy(pd);
    if (s != dnnl_success) return i8_fail(err, INFER8_E_DEVICE, "onednn: primitive create: %s", dnnl_status2str(s));
    return add_step(p, prim, node, nargs, args, err);
}

/* Appends a reorder src -> dst (both plan memories). */
static infer8_status add_reorder(plan *p, ctx *c, int node, dnnl_memory_t src, dnnl_memory_t dst, i8_err *err)
{
    const dnnl_memory_desc_t *smd, *dmd;
    dnnl_memory_get_memory_desc(src, &smd);
    dnnl_memory_get_memory_desc(dst, &dmd);
    dnnl_primitive_desc_t pd;
    DN(dnnl_reorder_primitive_desc_create(&pd, smd, c->engine, dmd, c->engine, NULL), "reorder");
    dnnl_exec_arg_t a[2] = {{DNNL_ARG_FROM, src}, {DNNL_ARG_TO, dst}};
    return add_prim(p, pd, node, 2, a, err);
}

/* Appends an FP8-emulation pass src -> dst (same descriptor; src == dst rounds in place). */
static infer8_status add_elementwise(plan *p, int node, elementwise_kind kind, dnnl_memory_t src, dnnl_memory_t dst,
                                     float scale, i8_err *err)
{
    dnnl_exec_arg_t a[2] = {{DNNL_ARG_FROM, src}, {DNNL_ARG_TO, dst}};
    infer8_status st = add_step(p, NULL, node, 2, a, err);
    if (st) return st;
    const dnnl_memory_desc_t *md;
    dnnl_memory_get_memory_desc(src, &md);
    step *s = &p->steps[p->n_steps - 1];
    s->ew = kind;
    s->scale = scale;
    s->count = dnnl_memory_desc_get_size(md) / sizeof(float);
    return INFER8_OK;
}

/* After node i, as the reference executor stores it: rounded to binary16 in place unless it
 * keeps float values; then the fake-quantized copy for its FP8 readers (from the stored
 * values) and the rounded copy for the fp16 readers of a float output. */
static infer8_status add_emulation_steps(ctx *c, plan *p, int i, i8_err *err)
{
    const node_info *ni = &c->info[i];
    infer8_status st = INFER8_OK;
    if (!c->f16_storage) return st;
    if (i != c->g->output && !ni->unrounded)
        st = add_elementwise(p, i, EW_ROUND_F16, p->node_mem[i], p->node_mem[i], 1.0f, err);
    if (!st && ni->fq_last >= 0)
        st = add_elementwise(p, i, EW_FAKE_QUANT, p->node_mem[i], p->fq_mem[i], c->g->nodes[i].out_scale, err);
    if (!st && ni->r_last >= 0) st = add_elementwise(p, i, EW_ROUND_F16, p->node_mem[i], p->r_mem[i], 1.0f, err);
    return st;
}

/* The memory node i reads in slot `slot` (i8_node_read_slot): in the FP8 emulation the
 * fake-quantized copy for an FP8 read and the rounded copy of a float output for an fp16 read;
 * else the producer's own. */
static dnnl_memory_t read_mem(const ctx *c, const plan *p, int i, int slot)
{
    const i8_node *nd = &c->g->nodes[i];
    int q = i8_node_read_slot(nd, slot);
    if (q < 0) q = nd->inputs[slot]; /* not reached: callers read defined slots */
    if (c->f16_storage && i8_node_reads_fp8_slot(nd, slot)) return p->fq_mem[q];
    if (c->f16_storage && c->info[q].unrounded) return p->r_mem[q];
    return p->node_mem[q];
}

/* Runs a one-off reorder now (weights). attr may carry an output scale. */
static infer8_status reorder_now(ctx *c, dnnl_memory_t src, dnnl_memory_t dst, const_dnnl_primitive_attr_t attr,
                                 i8_err *err)
{
    const dnnl_memory_desc_t *smd, *dmd;
    dnnl_memory_get_memory_desc(src, &smd);
    dnnl_memory_get_memory_desc(dst, &dmd);
    dnnl_primitive_desc_t pd;
    DN(dnnl_reorder_primitive_desc_create(&pd, smd, c->engine, dmd, c->engine, attr), "weight reorder");
    dnnl_primitive_t prim;
    dnnl_status_t s = dnnl_primitive_create(&prim, pd);
    dnnl_primitive_desc_destroy(pd);
    if (s != dnnl_success) return i8_fail(err, INFER8_E_DEVICE, "onednn: weight reorder: %s", dnnl_status2str(s));
    dnnl_exec_arg_t a[2] = {{DNNL_ARG_FROM, src}, {DNNL_ARG_TO, dst}};
    s = dnnl_primitive_execute(prim, c->stream, 2, a);
    if (s == dnnl_success) s = dnnl_stream_wait(c->stream);
    dnnl_primitive_destroy(prim);
    if (s != dnnl_success) return i8_fail(err, INFER8_E_DEVICE, "onednn: weight reorder: %s", dnnl_status2str(s));
    return INFER8_OK;
}

/* The node's weights in layout `want` (reordered once per layout, scaled by `scale`). */
static infer8_status get_weights(ctx *c, int node, const dnnl_memory_desc_t *want, int ndim, const dnnl_dims_t dims,
                                 float scale, dnnl_memory_t *out, i8_err *err)
{
    node_info *ni = &c->info[node];
    for (int k = 0; k < ni->n_w; k++)
        if (dnnl_memory_desc_equal(&ni->w[k].md, want)) {
            *out = ni->w[k].mem;
            return INFER8_OK;
        }
    const i8_weight *w = &c->g->weights[c->g->nodes[node].weight];
    dnnl_memory_desc_t src_md;
    DN(dnnl_memory_desc_init_by_tag(&src_md, ndim, dims, dnnl_f32, ndim == 4 ? dnnl_oihw : dnnl_nc), "weight md");
    size_t size = dnnl_memory_desc_get_size(want);
    wcopy *grown = i8_realloc(ni->w, sizeof *grown * (size_t)(ni->n_w + 1), err);
    if (!grown) return err->code;
    ni->w = grown;
    wcopy *wc = &ni->w[ni->n_w];
    memset(wc, 0, sizeof *wc);
    wc->md = *want;
    wc->data = aligned_alloc(64, (size + 63) / 64 * 64);
    if (!wc->data) return i8_fail(err, INFER8_E_NOMEM, "onednn: out of memory for weights of %s", w->name);
    ni->n_w++;
    dnnl_memory_t src;
    DN(dnnl_memory_create(&src, &src_md, c->engine, w->data), "weight memory");
    if (dnnl_memory_create(&wc->mem, want, c->engine, wc->data) != dnnl_success) {
        dnnl_memory_destroy(src);
        return i8_fail(err, INFER8_E_DEVICE, "onednn: weight memory for %s", w->name);
    }
    dnnl_primitive_attr_t attr = NULL;
    infer8_status st = INFER8_OK;
    if (scale != 1.0f) {
        if (dnnl_primitive_attr_create(&attr) != dnnl_success ||
            dnnl_primitive_attr_set_output_scales(attr, 1, 0, &scale) != dnnl_success)
            st = i8_fail(err, INFER8_E_DEVICE, "onednn: weight scale attribute for %s", w->name);
    }
    if (!st) st = reorder_now(c, src, wc->mem, attr, err);
    if (attr) dnnl_primitive_attr_destroy(attr);
    dnnl_memory_destroy(src);
    *out = wc->mem;
    return st;
}

/* Activation memory descriptor of node i for batch n (a channel slice of its concat parent if aliased). */
static infer8_status node_md(ctx *c, plan *p, int i, dnnl_memory_desc_t *md, i8_err *err)
{
    const i8_node *nd = &c->g->nodes[i];
    const node_info *ni = &c->info[i];
    dnnl_dims_t dims = {p->n, nd->c, nd->h, nd->w};
    if (ni->alias_parent >= 0) {
        dnnl_dims_t off = {0, ni->alias_offset, 0, 0};
        DN(dnnl_memory_desc_init_submemory(md, &p->node_md[ni->alias_parent], dims, off), "concat slice md");
        return INFER8_OK;
    }
    dnnl_format_tag_t tag = nd->op == I8_OP_INPUT || nd->op == I8_OP_LINEAR ? dnnl_nchw
                            : !ni->layout_blocked                          ? dnnl_nhwc
                            : c->blk == 16                                 ? dnnl_nChw16c
                                                                           : dnnl_nChw8c;
    DN(dnnl_memory_desc_init_by_tag(md, 4, dims, c->act_dt, tag), "activation md");
    return INFER8_OK;
}

/* Descriptors of every node for batch p->n into p->node_md. */
static infer8_status plan_mds(ctx *c, plan *p, i8_err *err)
{
    int nn = c->g->n_nodes;
    infer8_status st = INFER8_OK;
    for (int i = nn - 1; i >= 0 && !st; i--)
        if (c->info[i].alias_parent < 0) st = node_md(c, p, i, &p->node_md[i], err);
    /* A slice of a slice needs its parent's descriptor first: walk backwards (parent index > i). */
    for (int i = nn - 1; i >= 0 && !st; i--)
        if (c->info[i].alias_parent >= 0) st = node_md(c, p, i, &p->node_md[i], err);
    for (int i = 0; i < nn && !st; i++)
        if (c->info[i].inplace_of >= 0) p->node_md[i] = p->node_md[c->info[i].inplace_of];
    return st;
}

static infer8_status conv_pd(ctx *c, int i, const dnnl_memory_desc_t *src, const dnnl_memory_desc_t *dst,
                             dnnl_primitive_desc_t *pd, i8_err *err);
static infer8_status pool_pd(ctx *c, int i, const dnnl_memory_desc_t *src, const dnnl_memory_desc_t *dst,
                             dnnl_primitive_desc_t *pd, i8_err *err);
static int pd_is_ref(const_dnnl_primitive_desc_t pd);

/* Writing into a concat slice is worth it only if the producer keeps a fast kernel with the
 * strided destination (oneDNN 2.6's nhwc brgemm convs and jit pools do not accept one and
 * fall back to reference code): ask oneDNN at batch 1, keep the alias only where it does. */
static infer8_status probe_aliases(ctx *c, i8_err *err)
{
    plan p = {.n = 1};
    p.node_md = i8_calloc((size_t)c->g->n_nodes, sizeof *p.node_md, err);
    if (!p.node_md) return err->code;
    infer8_status st = plan_mds(c, &p, err);
    for (int i = 0; i < c->g->n_nodes && !st; i++) {
        const i8_node *nd = &c->g->nodes[i];
        if (c->info[i].alias_parent < 0) continue;
        dnnl_primitive_desc_t pd = NULL;
        if (nd->op == I8_OP_CONV) st = conv_pd(c, i, &p.node_md[nd->inputs[0]], &p.node_md[i], &pd, err);
        else if (nd->op == I8_OP_MAXPOOL || nd->op == I8_OP_AVGPOOL) st = pool_pd(c, i, &p.node_md[nd->inputs[0]], &p.node_md[i], &pd, err);
        else continue;
        if (!st && pd_is_ref(pd)) c->info[i].alias_parent = -1;
        if (pd) dnnl_primitive_desc_destroy(pd);
        if (st) { /* no primitive at all for the slice: try the dense layout */
            c->info[i].alias_parent = -1;
            i8_err_clear(err);
            st = INFER8_OK;
        }
    }
    free(p.node_md);
    return st;
}

/* Node whose buffer node i lives in. */
static int root_of(const ctx *c, int i)
{
    for (;;) {
        if (c->info[i].alias_parent >= 0) i = c->info[i].alias_parent;
        else if (c->info[i].inplace_of >= 0) i = c->info[i].inplace_of;
        else return i;
    }
}

/* Liveness-planned buffers: each root buffer lives from its first writer to its last reader;
 * buffers whose lifetimes do not overlap share a slot (best fit, grown when needed). Entries
 * 0..nn-1 are the nodes' roots; nn + i and 2 nn + i the FP8 emulation's fake-quantized and
 * rounded copies of node i, alive from node i to their last reader. root_ptr has 3 nn entries. */
static infer8_status plan_buffers(ctx *c, plan *p, void **root_ptr, i8_err *err)
{
    i8_graph *g = c->g;
    int nn = g->n_nodes, ne = 3 * nn;
    int *start = i8_malloc(sizeof(int) * (size_t)ne * 3, err);
    if (!start) return err->code;
    int *end = start + ne, *slot_of = start + 2 * ne;
    for (int e = 0; e < ne; e++) start[e] = nn, end[e] = -1, slot_of[e] = -1;
    for (int i = 0; i < nn; i++) {
        int r = root_of(c, i);
        start[r] = I8_MIN(start[r], i);
        end[r] = I8_MAX(end[r], c->info[i].last_use);
        if (c->info[i].fq_last >= 0) start[nn + i] = i, end[nn + i] = c->info[i].fq_last;
        if (c->info[i].r_last >= 0) start[2 * nn + i] = i, end[2 * nn + i] = c->info[i].r_last;
    }
    size_t *slot_size = i8_calloc((size_t)ne, sizeof(size_t), err);
    int *slot_busy = i8_calloc((size_t)ne, sizeof(int), err);
    infer8_status st = INFER8_OK;
    if (!slot_size || !slot_busy) st = err->code;
    int n_slots = 0;
    /* Entries in order of first write (node order, since start <= the node). */
    for (int t = 0; t < nn && !st; t++) {
        for (int e = 0; e < ne; e++) {
            int r = e % nn;
            if (start[e] != t || end[e] < 0 || (e < nn && r != root_of(c, r))) continue;
            const i8_node *nd = &g->nodes[r];
            if (e < nn && ((nd->op == I8_OP_INPUT && !c->bf16 && !c->f16_storage) || (nd->op == I8_OP_LINEAR && r == g->output)))
                continue;
            size_t need = dnnl_memory_desc_get_size(&p->node_md[r]);
            int best = -1, largest = -1;
            for (int s = 0; s < n_slots; s++) {
                if (slot_busy[s] >= t) continue;
                if (slot_size[s] >= need && (best < 0 || slot_size[s] < slot_size[best])) best = s;
                if (largest < 0 || slot_size[s] > slot_size[largest]) largest = s;
            }
            if (best < 0) best = largest >= 0 ? largest : n_slots++;
            if (slot_size[best] < need) slot_size[best] = need;
            slot_busy[best] = end[e];
            slot_of[e] = best;
        }
    }
    if (!st) {
        p->slots = i8_calloc((size_t)n_slots + 1, sizeof(void *), err);
        if (!p->slots) st = err->code;
    }
    for (int s = 0; s < n_slots && !st; s++) {
        p->slots[s] = aligned_alloc(64, (slot_size[s] + 63) / 64 * 64);
        if (!p->slots[s]) st = i8_fail(err, INFER8_E_NOMEM, "onednn: out of memory for %zu activation bytes", slot_size[s]);
        p->n_slots = s + 1;
    }
    for (int e = 0; e < ne && !st; e++) root_ptr[e] = slot_of[e] >= 0 ? p->slots[slot_of[e]] : NULL;
    free(slot_size);
    free(slot_busy);
    free(start);
    return st;
}

/* The node's epilogue as post-ops: a conv's fused residual (sum), an average pool's bias (bias_md:
 * a per-channel binary add, for a pool moved below its 1x1 conv; NULL: none), then the act. */
static dnnl_primitive_attr_t epilogue_attr(const i8_node *nd, const dnnl_memory_desc_t *bias_md)
{
    dnnl_primitive_attr_t attr = NULL;
    dnnl_post_ops_t po = NULL;
    if (dnnl_primitive_attr_create(&attr) != dnnl_success) return NULL;
    if (dnnl_post_ops_create(&po) != dnnl_success) goto fail;
    if (nd->residual >= 0 && dnnl_post_ops_append_sum(po, 1.0f) != dnnl_success) goto fail;
    if (bias_md && dnnl_post_ops_append_binary(po, dnnl_binary_add, bias_md) != dnnl_success) goto fail;
    if (nd->act == I8_ACT_RELU && dnnl_post_ops_append_eltwise(po, 1.0f, dnnl_eltwise_relu, 0.0f, 0.0f) != dnnl_success)
        goto fail;
    if (dnnl_primitive_attr_set_post_ops(attr, po) != dnnl_success) goto fail;
    dnnl_post_ops_destroy(po);
    return attr;
fail:
    if (po) dnnl_post_ops_destroy(po);
    dnnl_primitive_attr_destroy(attr);
    return NULL;
}

static int pd_is_ref(const_dnnl_primitive_desc_t pd)
{
    const char *impl = NULL;
    if (dnnl_primitive_desc_query(pd, dnnl_query_impl_info_str, 0, &impl) != dnnl_success || !impl) return 1;
    return strncmp(impl, "ref", 3) == 0;
}

/* Convolution primitive descriptor of node i from src md to dst md (weights any). */
static infer8_status conv_pd(ctx *c, int i, const dnnl_memory_desc_t *src, const dnnl_memory_desc_t *dst,
                             dnnl_primitive_desc_t *pd, i8_err *err)
{
    const i8_node *nd = &c->g->nodes[i];
    const i8_node *in = &c->g->nodes[nd->inputs[0]];
    dnnl_dims_t wdims = {nd->c, in->c, nd->kh, nd->kw}, bdims = {nd->c};
    dnnl_dims_t strides = {nd->sh, nd->sw}, pl = {nd->ph, nd->pw};
    dnnl_dims_t pr = {(nd->h - 1) * nd->sh + nd->kh - in->h - nd->ph, (nd->w - 1) * nd->sw + nd->kw - in->w - nd->pw};
    dnnl_memory_desc_t wmd, bmd;
    DNN(dnnl_memory_desc_init_by_tag(&wmd, 4, wdims, c->act_dt, dnnl_format_tag_any), "weight md", nd);
    DNN(dnnl_memory_desc_init_by_tag(&bmd, 1, bdims, dnnl_f32, dnnl_x), "bias md", nd);
    dnnl_convolution_desc_t cd;
    DNN(dnnl_convolution_forward_desc_init(&cd, dnnl_forward_inference, dnnl_convolution_direct, src, &wmd,
                                           nd->bias >= 0 ? &bmd : NULL, dst, strides, pl, pr),
        "conv desc", nd);
    dnnl_primitive_attr_t attr = epilogue_attr(nd, NULL);
    if (!attr) return i8_fail(err, INFER8_E_DEVICE, "onednn: node %s: post-op attributes", nd->name);
    dnnl_status_t s = dnnl_primitive_desc_create(pd, &cd, attr, c->engine, NULL);
    dnnl_primitive_attr_destroy(attr);
    DNN(s, "conv primitive desc", nd);
    return INFER8_OK;
}

/* A plan-private buffer (not shared through liveness) with a memory of descriptor md. */
static infer8_status private_mem(plan *p, ctx *c, const dnnl_memory_desc_t *md, dnnl_memory_t *out, i8_err *err)
{
    size_t size = dnnl_memory_desc_get_size(md);
    void **slots = i8_realloc(p->slots, sizeof *slots * (size_t)(p->n_slots + 1), err);
    if (!slots) return err->code;
    p->slots = slots;
    p->slots[p->n_slots] = aligned_alloc(64, (size + 63) / 64 * 64);
    if (!p->slots[p->n_slots]) return i8_fail(err, INFER8_E_NOMEM, "onednn: out of memory (%zu bytes)", size);
    return new_mem(p, c, md, p->slots[p->n_slots++], out, err);
}

static infer8_status build_conv(ctx *c, plan *p, int i, i8_err *err)
{
    const i8_node *nd = &c->g->nodes[i];
    const i8_node *in = &c->g->nodes[nd->inputs[0]];
    const i8_weight *w = &c->g->weights[nd->weight];
    if (w->ndim != 4 || w->shape[0] != nd->c || w->shape[1] != in->c || w->shape[2] != nd->kh || w->shape[3] != nd->kw)
        return i8_fail(err, INFER8_E_SHAPE, "onednn: node %s: conv weight %s shape mismatch", nd->name, w->name);
    dnnl_dims_t wdims = {nd->c, in->c, nd->kh, nd->kw}, bdims = {nd->c};
    dnnl_memory_desc_t bmd;
    DNN(dnnl_memory_desc_init_by_tag(&bmd, 1, bdims, dnnl_f32, dnnl_x), "bias md", nd);
    int has_bias = nd->bias >= 0;
    dnnl_primitive_desc_t pd;
    infer8_status st = conv_pd(c, i, &p->node_md[nd->inputs[0]], &p->node_md[i], &pd, err);
    if (st) return st;
    dnnl_memory_t src = read_mem(c, p, i, 0);
    if (pd_is_ref(pd)) {
        /* The producer's layout has no fast kernel (e.g. the 3-channel NCHW input): let oneDNN
         * choose the source layout and reorder into it. */
        dnnl_memory_desc_t any;
        dnnl_dims_t sdims = {p->n, in->c, in->h, in->w};
        DNN(dnnl_memory_desc_init_by_tag(&any, 4, sdims, c->act_dt, dnnl_format_tag_any), "src md", nd);
        dnnl_primitive_desc_t pd2;
        if (conv_pd(c, i, &any, &p->node_md[i], &pd2, err) == INFER8_OK) {
            if (!pd_is_ref(pd2)) {
                dnnl_memory_t tmp;
                st = private_mem(p, c, dnnl_primitive_desc_query_md(pd2, dnnl_query_src_md, 0), &tmp, err);
                if (!st) st = add_reorder(p, c, i, src, tmp, err);
                if (st) {
                    dnnl_primitive_desc_destroy(pd);
                    dnnl_primitive_desc_destroy(pd2);
                    return st;
                }
                src = tmp;
                dnnl_primitive_desc_destroy(pd);
                pd = pd2;
            } else
                dnnl_primitive_desc_destroy(pd2);
        }
    }
    dnnl_memory_t wmem, bmem = NULL;
    float scale = nd->residual >= 0 ? nd->residual_scale : 1.0f;
    st = get_weights(c, i, dnnl_primitive_desc_query_md(pd, dnnl_query_weights_md, 0), 4, wdims, scale, &wmem, err);
    if (!st && has_bias) {
        float *bias = c->info[i].bias_scaled ? c->info[i].bias_scaled : c->g->weights[nd->bias].data;
        st = new_mem(p, c, &bmd, bias, &bmem, err);
    }
    /* Residual not in place: copy x into dst before the conv adds onto it. */
    if (!st && nd->residual >= 0 && c->info[i].inplace_of < 0)
        st = add_reorder(p, c, i, read_mem(c, p, i, 1), p->node_mem[i], err);
    if (st) {
        dnnl_primitive_desc_destroy(pd);
        return st;
    }
    dnnl_exec_arg_t a[4] = {{DNNL_ARG_SRC, src}, {DNNL_ARG_WEIGHTS, wmem}, {DNNL_ARG_DST, p->node_mem[i]}, {DNNL_ARG_BIAS, bmem}};
    return add_prim(p, pd, i, has_bias ? 4 : 3, a, err);
}

/* The bias of an average pool, [1][c][1][1] f32, broadcast over batch and pixels. */
static dnnl_status_t pool_bias_md(const i8_node *nd, dnnl_memory_desc_t *md)
{
    dnnl_dims_t dims = {1, nd->c, 1, 1};
    return dnnl_memory_desc_init_by_tag(md, 4, dims, dnnl_f32, dnnl_nchw);
}

static infer8_status pool_pd(ctx *c, int i, const dnnl_memory_desc_t *src, const dnnl_memory_desc_t *dst,
                             dnnl_primitive_desc_t *pd, i8_err *err)
{
    const i8_node *nd = &c->g->nodes[i];
    const i8_node *in = &c->g->nodes[nd->inputs[0]];
    int kh = nd->kh, kw = nd->kw, sh = nd->sh, sw = nd->sw, ph = nd->ph, pw = nd->pw;
    dnnl_alg_kind_t alg = nd->op == I8_OP_MAXPOOL         ? dnnl_pooling_max
                          : nd->count_include_pad          ? dnnl_pooling_avg_include_padding
                                                           : dnnl_pooling_avg_exclude_padding;
    if (nd->op == I8_OP_GLOBAL_AVGPOOL) {
        kh = in->h, kw = in->w, sh = sw = 1, ph = pw = 0;
        alg = dnnl_pooling_avg_exclude_padding;
    }
    /* Floor rounding: the last window ends inside the left-padded input, so the right padding
     * oneDNN needs is (o-1)*s + k - i - p (never more than p; clipped at 0). */
    dnnl_dims_t strides = {sh, sw}, kernel = {kh, kw}, dil = {0, 0}, pl = {ph, pw};
    dnnl_dims_t pr = {I8_MAX(0, (nd->h - 1) * sh + kh - in->h - ph), I8_MAX(0, (nd->w - 1) * sw + kw - in->w - pw)};
    dnnl_pooling_v2_desc_t pdsc;
    DNN(dnnl_pooling_v2_forward_desc_init(&pdsc, dnnl_forward_inference, alg, src, dst, strides, kernel, dil, pl, pr),
        "pooling desc", nd);
    /* an average pool moved below its 1x1 conv (i8_pass_sink_avgpool) adds the conv's bias and
     * applies its act */
    dnnl_memory_desc_t bmd;
    if (nd->bias >= 0) DNN(pool_bias_md(nd, &bmd), "bias md", nd);
    dnnl_primitive_attr_t attr = epilogue_attr(nd, nd->bias >= 0 ? &bmd : NULL);
    if (!attr) return i8_fail(err, INFER8_E_DEVICE, "onednn: node %s: post-op attributes", nd->name);
    dnnl_status_t ds = dnnl_primitive_desc_create(pd, &pdsc, attr, c->engine, NULL);
    dnnl_primitive_attr_destroy(attr);
    DNN(ds, "pooling primitive desc", nd);
    return INFER8_OK;
}

static infer8_status build_pool(ctx *c, plan *p, int i, i8_err *err)
{
    const i8_node *nd = &c->g->nodes[i];
    dnnl_primitive_desc_t pd;
    infer8_status st = pool_pd(c, i, &p->node_md[nd->inputs[0]], &p->node_md[i], &pd, err);
    if (st) return st;
    dnnl_memory_t bmem = NULL;
    if (nd->bias >= 0) {
        dnnl_memory_desc_t bmd;
        if (pool_bias_md(nd, &bmd) != dnnl_success)
            st = i8_fail(err, INFER8_E_DEVICE, "onednn: node %s: bias memory descriptor", nd->name);
        if (!st) st = new_mem(p, c, &bmd, c->g->weights[nd->bias].data, &bmem, err);
        if (st) {
            dnnl_primitive_desc_destroy(pd);
            return st;
        }
    }
    dnnl_exec_arg_t a[3] = {{DNNL_ARG_SRC, read_mem(c, p, i, 0)},
                            {DNNL_ARG_DST, p->node_mem[i]},
                            {DNNL_ARG_ATTR_MULTIPLE_POST_OP(0) | DNNL_ARG_SRC_1, bmem}};
    return add_prim(p, pd, i, bmem ? 3 : 2, a, err);
}

static infer8_status build_linear(ctx *c, plan *p, int i, i8_err *err)
{
    const i8_node *nd = &c->g->nodes[i];
    const i8_node *in = &c->g->nodes[nd->inputs[0]];
    dnnl_dims_t wdims = {nd->c, in->c, in->h, in->w}, bdims = {nd->c}, ddims = {p->n, nd->c};
    dnnl_memory_desc_t wmd, bmd, dmd;
    DNN(dnnl_memory_desc_init_by_tag(&wmd, 4, wdims, c->act_dt, dnnl_format_tag_any), "weight md", nd);
    DNN(dnnl_memory_desc_init_by_tag(&bmd, 1, bdims, dnnl_f32, dnnl_x), "bias md", nd);
    /* Logits are always fp32; an inner node (tests only) keeps the activation type. */
    DNN(dnnl_memory_desc_init_by_tag(&dmd, 2, ddims, i == c->g->output ? dnnl_f32 : c->act_dt, dnnl_nc), "dst md", nd);
    int has_bias = nd->bias >= 0;
    dnnl_inner_product_desc_t ipd;
    DNN(dnnl_inner_product_forward_desc_init(&ipd, dnnl_forward_inference, &p->node_md[nd->inputs[0]], &wmd,
                                             has_bias ? &bmd : NULL, &dmd),
        "inner product desc", nd);
    dnnl_primitive_desc_t pd;
    DNN(dnnl_primitive_desc_create(&pd, &ipd, NULL, c->engine, NULL), "inner product primitive desc", nd);
    dnnl_memory_t wmem, bmem = NULL, dst = p->node_mem[i];
    infer8_status st = get_weights(c, i, dnnl_primitive_desc_query_md(pd, dnnl_query_weights_md, 0), 4, wdims, 1.0f,
                                   &wmem, err);
    if (!st && has_bias) st = new_mem(p, c, &bmd, c->g->weights[nd->bias].data, &bmem, err);
    if (!st && i != c->g->output) {
        /* Same bytes as the node's [n][c][1][1] nchw buffer, seen as 2-D. */
        void *h = NULL;
        dnnl_memory_get_data_handle(p->node_mem[i], &h);
        st = new_mem(p, c, &dmd, h, &dst, err);
    }
    if (st) {
        dnnl_primitive_desc_destroy(pd);
        return st;
    }
    dnnl_exec_arg_t a[4] = {{DNNL_ARG_SRC, read_mem(c, p, i, 0)},
                            {DNNL_ARG_WEIGHTS, wmem},
                            {DNNL_ARG_DST, dst},
                            {DNNL_ARG_BIAS, bmem}};
    return add_prim(p, pd, i, has_bias ? 4 : 3, a, err);
}

static infer8_status build_concat(ctx *c, plan *p, int i, i8_err *err)
{
    const i8_node *nd = &c->g->nodes[i];
    int off = 0;
    for (int k = 0; k < nd->n_inputs; k++) {
        int q = nd->inputs[k];
        const i8_node *in = &c->g->nodes[q];
        if (c->info[q].alias_parent != i) {
            /* Not written in place: copy into the channel slice. */
            dnnl_memory_desc_t smd;
            dnnl_dims_t dims = {p->n, in->c, in->h, in->w}, offs = {0, off, 0, 0};
            DNN(dnnl_memory_desc_init_submemory(&smd, &p->node_md[i], dims, offs), "concat slice md", nd);
            void *h = NULL;
            dnnl_memory_get_data_handle(p->node_mem[i], &h);
            dnnl_memory_t slice;
            infer8_status st = new_mem(p, c, &smd, h, &slice, err);
            if (!st) st = add_reorder(p, c, i, p->node_mem[q], slice, err);
            if (st) return st;
        }
        off += in->c;
    }
    return INFER8_OK;
}

static infer8_status add_relu_inplace(ctx *c, plan *p, int i, i8_err *err)
{
    const i8_node *nd = &c->g->nodes[i];
    dnnl_eltwise_desc_t ed;
    DNN(dnnl_eltwise_forward_desc_init(&ed, dnnl_forward_inference, dnnl_eltwise_relu, &p->node_md[i], 0.0f, 0.0f),
        "relu desc", nd);
    dnnl_primitive_desc_t pd;
    DNN(dnnl_primitive_desc_create(&pd, &ed, NULL, c->engine, NULL), "relu primitive desc", nd);
    dnnl_exec_arg_t a[2] = {{DNNL_ARG_SRC, p->node_mem[i]}, {DNNL_ARG_DST, p->node_mem[i]}};
    return add_prim(p, pd, i, 2, a, err);
}

static infer8_status build_residual(ctx *c, plan *p, int i, i8_err *err)
{
    const i8_node *nd = &c->g->nodes[i];
    if (nd->n_inputs != 2) return i8_fail(err, INFER8_E_INVALID_ARGUMENT, "onednn: node %s: residual needs 2 inputs", nd->name);
    float scales[2] = {1.0f, nd->residual_scale};
    dnnl_memory_desc_t src[2] = {p->node_md[nd->inputs[0]], p->node_md[nd->inputs[1]]};
    dnnl_primitive_desc_t pd;
    DNN(dnnl_sum_primitive_desc_create(&pd, &p->node_md[i], 2, scales, src, NULL, c->engine), "sum primitive desc", nd);
    dnnl_exec_arg_t a[3] = {{DNNL_ARG_MULTIPLE_SRC, read_mem(c, p, i, 0)},
                            {DNNL_ARG_MULTIPLE_SRC + 1, read_mem(c, p, i, 1)},
                            {DNNL_ARG_DST, p->node_mem[i]}};
    infer8_status st = add_prim(p, pd, i, 3, a, err);
    if (!st && nd->act == I8_ACT_RELU) st = add_relu_inplace(c, p, i, err);
    return st;
}

static infer8_status build_batchnorm(ctx *c, plan *p, int i, i8_err *err)
{
    const i8_node *nd = &c->g->nodes[i];
    const int idx[4] = {nd->bn_mean, nd->bn_var, nd->bn_gamma, nd->bn_beta};
    const int arg[4] = {DNNL_ARG_MEAN, DNNL_ARG_VARIANCE, DNNL_ARG_SCALE, DNNL_ARG_SHIFT};
    infer8_status st = add_reorder(p, c, i, read_mem(c, p, i, 0), p->node_mem[i], err);
    if (st) return st;
    dnnl_batch_normalization_desc_t bd;
    DNN(dnnl_batch_normalization_forward_desc_init(&bd, dnnl_forward_inference, &p->node_md[i], nd->bn_eps,
                                                   dnnl_use_global_stats | dnnl_use_scale | dnnl_use_shift),
        "batchnorm desc", nd);
    dnnl_primitive_desc_t pd;
    DNN(dnnl_primitive_desc_create(&pd, &bd, NULL, c->engine, NULL), "batchnorm primitive desc", nd);
    dnnl_exec_arg_t a[6] = {{DNNL_ARG_SRC, p->node_mem[i]}, {DNNL_ARG_DST, p->node_mem[i]}};
    dnnl_dims_t dims = {nd->c};
    dnnl_memory_desc_t md;
    DNN(dnnl_memory_desc_init_by_tag(&md, 1, dims, dnnl_f32, dnnl_x), "batchnorm md", nd);
    for (int k = 0; k < 4 && !st; k++) {
        if (idx[k] < 0 || idx[k] >= c->g->n_weights || c->g->weights[idx[k]].shape[0] != nd->c)
            st = i8_fail(err, INFER8_E_INVALID_ARGUMENT, "onednn: node %s: batchnorm parameter %d missing", nd->name, k);
        else {
            a[2 + k].arg = arg[k];
            st = new_mem(p, c, &md, c->g->weights[idx[k]].data, &a[2 + k].memory, err);
        }
    }
    if (st) {
        dnnl_primitive_desc_destroy(pd);
        return st;
    }
    return add_prim(p, pd, i, 6, a, err);
}

static void plan_free(plan *p)
{
    if (!p) return;
    for (int s = 0; s < p->n_steps; s++)
        if (p->steps[s].prim) dnnl_primitive_destroy(p->steps[s].prim);
    for (int m = 0; m < p->n_mems; m++) dnnl_memory_destroy(p->mems[m]);
    for (int s = 0; s < p->n_slots; s++) free(p->slots[s]);
    free(p->slots);
    free(p->steps);
    free(p->mems);
    free(p->node_mem);
    free(p->fq_mem);
    free(p->r_mem);
    free(p->node_md);
    free(p);
}

static infer8_status build_plan(ctx *c, int n, plan **out, i8_err *err)
{
    i8_graph *g = c->g;
    int nn = g->n_nodes;
    plan *p = i8_calloc(1, sizeof *p, err);
    if (!p) return err->code;
    p->n = n;
    void **root_ptr = NULL;
    infer8_status st = INFER8_OK;
    p->node_mem = i8_calloc((size_t)nn, sizeof *p->node_mem, err);
    p->fq_mem = i8_calloc((size_t)nn, sizeof *p->fq_mem, err);
    p->r_mem = i8_calloc((size_t)nn, sizeof *p->r_mem, err);
    p->node_md = i8_calloc((size_t)nn, sizeof *p->node_md, err);
    root_ptr = i8_calloc((size_t)nn * 3, sizeof *root_ptr, err);
    if (!p->node_mem || !p->fq_mem || !p->r_mem || !p->node_md || !root_ptr) st = err->code;
    if (!st) st = plan_mds(c, p, err);
    if (!st) st = plan_buffers(c, p, root_ptr, err);

    /* Memories: input and logits take the caller's buffers at run time. */
    dnnl_memory_desc_t umd;
    dnnl_dims_t idims = {n, g->input_c, g->input_h, g->input_w};
    dnnl_dims_t ldims = {n, g->num_classes};
    if (!st && dnnl_memory_desc_init_by_tag(&umd, 4, idims, dnnl_f32, dnnl_nchw) != dnnl_success)
        st = i8_fail(err, INFER8_E_DEVICE, "onednn: input md");
    if (!st) st = new_mem(p, c, &umd, DNNL_MEMORY_NONE, &p->input_mem, err);
    if (!st && dnnl_memory_desc_init_by_tag(&umd, 2, ldims, dnnl_f32, dnnl_nc) != dnnl_success)
        st = i8_fail(err, INFER8_E_DEVICE, "onednn: logits md");
    if (!st) st = new_mem(p, c, &umd, DNNL_MEMORY_NONE, &p->logits_mem, err);
    for (int i = 0; i < nn && !st; i++) {
        const i8_node *nd = &g->nodes[i];
        if (nd->op == I8_OP_INPUT && !c->bf16 && !c->f16_storage) p->node_mem[i] = p->input_mem;
        else if (nd->op == I8_OP_LINEAR && i == g->output) p->node_mem[i] = p->logits_mem;
        else st = new_mem(p, c, &p->node_md[i], root_ptr[root_of(c, i)], &p->node_mem[i], err);
        if (!st && c->info[i].fq_last >= 0) st = new_mem(p, c, &p->node_md[i], root_ptr[nn + i], &p->fq_mem[i], err);
        if (!st && c->info[i].r_last >= 0) st = new_mem(p, c, &p->node_md[i], root_ptr[2 * nn + i], &p->r_mem[i], err);
    }
    /* Steps in node order. */
    for (int i = 0; i < nn && !st; i++) {
        switch (g->nodes[i].op) {
        case I8_OP_INPUT: /* a copy of its own when it is converted or rounded */
            if (c->bf16 || c->f16_storage) st = add_reorder(p, c, i, p->input_mem, p->node_mem[i], err);
            break;
        case I8_OP_CONV: st = build_conv(c, p, i, err); break;
        case I8_OP_MAXPOOL:
        case I8_OP_AVGPOOL:
        case I8_OP_GLOBAL_AVGPOOL: st = build_pool(c, p, i, err); break;
        case I8_OP_LINEAR: st = build_linear(c, p, i, err); break;
        case I8_OP_CONCAT: st = build_concat(c, p, i, err); break;
        case I8_OP_RESIDUAL: st = build_residual(c, p, i, err); break;
        case I8_OP_BATCHNORM: st = build_batchnorm(c, p, i, err); break;
        case I8_OP_RELU:
            st = add_reorder(p, c, i, read_mem(c, p, i, 0), p->node_mem[i], err);
            if (!st) st = add_relu_inplace(c, p, i, err);
            break;
        default: st = i8_fail(err, INFER8_E_UNSUPPORTED, "onednn: node %s: unsupported op", g->nodes[i].name);
        }
        if (!st) st = add_emulation_steps(c, p, i, err);
        if (!st && c->opts.collect_hist && c->opts.collect_hist[i]) {
            st = add_elementwise(p, i, EW_COLLECT, p->node_mem[i], p->node_mem[i], 1.0f, err);
            if (!st) p->steps[p->n_steps - 1].hist = c->opts.collect_hist[i];
        }
    }
    /* Output that is not a linear layer writing the logits directly (tests): copy as NCHW. */
    if (!st && !(g->nodes[g->output].op == I8_OP_LINEAR)) {
        const i8_node *o = &g->nodes[g->output];
        dnnl_dims_t od = {n, o->c, o->h, o->w};
        dnnl_memory_t view;
        if (dnnl_memory_desc_init_by_tag(&umd, 4, od, dnnl_f32, dnnl_nchw) != dnnl_success)
            st = i8_fail(err, INFER8_E_DEVICE, "onednn: output md");
        if (!st) st = new_mem(p, c, &umd, DNNL_MEMORY_NONE, &view, err);
        if (!st) {
            p->logits_mem = view; /* run sets this handle */
            st = add_reorder(p, c, g->output, p->node_mem[g->output], view, err);
        }
    }
    free(root_ptr);
    if (st) {
        plan_free(p);
        return st;
    }
    *out = p;
    return INFER8_OK;
}

/* ---------------------------------------------------------------- run -------------------- */

static infer8_status get_plan(ctx *c, int n, plan **p, i8_err *err)
{
    if (n < 1 || n > c->opts.max_batch)
        return i8_fail(err, INFER8_E_INVALID_ARGUMENT, "onednn: batch %d outside 1..%d", n, c->opts.max_batch);
    if (!c->plans[n]) {
        infer8_status st = build_plan(c, n, &c->plans[n], err);
        if (st) return st;
    }
    *p = c->plans[n];
    return INFER8_OK;
}

/* An FP8-emulation pass (run after the primitives before it have finished). */
static void run_elementwise(const step *s)
{
    void *src = NULL, *dst = NULL;
    dnnl_memory_get_data_handle(s->args[0].memory, &src);
    dnnl_memory_get_data_handle(s->args[1].memory, &dst);
    const float *x = src;
    float *y = dst;
    const size_t n = s->count;
    if (s->ew == EW_COLLECT) i8_calib_collect(s->hist, x, n); /* each parallel inside */
    else if (s->ew == EW_FAKE_QUANT) i8_fp8_fake_quant_array(x, y, n, s->scale);
    else i8_f16_round_array(x, y, n);
}

static dnnl_status_t exec_step(ctx *c, const step *s)
{
    if (s->prim) return dnnl_primitive_execute(s->prim, c->stream, s->nargs, s->args);
    dnnl_status_t r = dnnl_stream_wait(c->stream);
    if (r == dnnl_success) run_elementwise(s);
    return r;
}

static infer8_status execute(ctx *c, plan *p, const float *input, float *logits, i8_err *err)
{
    DN(dnnl_memory_set_data_handle(p->input_mem, (void *)input), "set input");
    DN(dnnl_memory_set_data_handle(p->logits_mem, logits), "set logits");
    for (int s = 0; s < p->n_steps; s++) {
        dnnl_status_t r = exec_step(c, &p->steps[s]);
        if (r != dnnl_success)
            return i8_fail(err, INFER8_E_DEVICE, "onednn: node %s: execute: %s", c->g->nodes[p->steps[s].node].name,
                           dnnl_status2str(r));
    }
    DN(dnnl_stream_wait(c->stream), "stream wait");
    return INFER8_OK;
}

static infer8_status run(void *vctx, int n, const float *input, float *logits, i8_err *err)
{
    ctx *c = vctx;
    plan *p = NULL;
    if (!c || !input || !logits) return i8_fail(err, INFER8_E_INVALID_ARGUMENT, "onednn: run: NULL argument");
    /* Threads first: oneDNN sizes its work partition when primitives are created. */
    int old = set_threads(c);
    infer8_status st = get_plan(c, n, &p, err);
    if (!st) st = execute(c, p, input, logits, err);
    restore_threads(old);
    if (st) return st;
    /* Keep the input for time_forward (cheap next to a forward pass; sizes were checked when
     * the plan's descriptors were made). */
    size_t per = (size_t)c->g->input_c * (size_t)c->g->input_h * (size_t)c->g->input_w;
    if (!c->time_input) {
        c->time_input = malloc(sizeof(float) * per * (size_t)c->opts.max_batch);
        if (!c->time_input) return INFER8_OK; /* time_forward will report the shortage */
    }
    memcpy(c->time_input, input, sizeof(float) * per * (size_t)n);
    c->time_input_n = n;
    return INFER8_OK;
}

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec * 1e-6;
}

static infer8_status time_forward(void *vctx, int n, int iters, double *ms, i8_err *err)
{
    ctx *c = vctx;
    plan *p = NULL;
    if (!c || iters < 1 || !ms) return i8_fail(err, INFER8_E_INVALID_ARGUMENT, "onednn: time_forward: bad arguments");
    int old = set_threads(c);
    infer8_status st = get_plan(c, n, &p, err);
    restore_threads(old);
    if (st) return st;
    size_t per = (size_t)c->g->input_c * (size_t)c->g->input_h * (size_t)c->g->input_w, total, bytes;
    if (!i8_mul_size(per, (size_t)c->opts.max_batch, &total) || !i8_mul_size(total, sizeof(float), &bytes))
        return i8_fail(err, INFER8_E_LIMIT, "onednn: input of %zu floats x batch %d overflows", per, c->opts.max_batch);
    if (!c->time_input) {
        c->time_input = i8_malloc(bytes, err);
        if (!c->time_input) return err->code;
        i8_rng r;
        i8_rng_seed(&r, 8);
        for (size_t k = 0; k < total; k++) c->time_input[k] = (float)(2.0 * i8_rng_uniform(&r) - 1.0);
        c->time_input_n = c->opts.max_batch;
    } else if (c->time_input_n < n) {
        for (size_t k = per * (size_t)c->time_input_n; k < per * (size_t)n; k++) c->time_input[k] = c->time_input[k % per];
        c->time_input_n = n;
    }
    if (!c->time_logits) {
        c->time_logits = i8_malloc(sizeof(float) * (size_t)c->g->num_classes * (size_t)c->opts.max_batch, err);
        if (!c->time_logits) return err->code;
    }
    old = set_threads(c);
    double t0 = now_ms();
    for (int k = 0; k < iters && !st; k++) st = execute(c, p, c->time_input, c->time_logits, err);
    double t1 = now_ms();
    restore_threads(old);
    if (st) return st;
    *ms = (t1 - t0) / iters;
    return INFER8_OK;
}

static infer8_status profile(void *vctx, int n, int iters, double *ms, i8_err *err)
{
    ctx *c = vctx;
    plan *p = NULL;
    if (!c || iters < 1 || !ms) return i8_fail(err, INFER8_E_INVALID_ARGUMENT, "onednn: profile: bad arguments");
    double dummy;
    infer8_status st = time_forward(c, n, 1, &dummy, err); /* builds the plan and the data */
    if (st) return st;
    p = c->plans[n];
    DN(dnnl_memory_set_data_handle(p->input_mem, c->time_input), "set input");
    DN(dnnl_memory_set_data_handle(p->logits_mem, c->time_logits), "set logits");
    int old = set_threads(c);
    dnnl_status_t r = dnnl_success;
    for (int k = 0; k < iters && r == dnnl_success; k++)
        for (int s = 0; s < p->n_steps && r == dnnl_success; s++) {
            double t0 = now_ms();
            r = exec_step(c, &p->steps[s]);
            if (r == dnnl_success) r = dnnl_stream_wait(c->stream);
            ms[p->steps[s].node] += (now_ms() - t0) / iters;
        }
    restore_threads(old);
    if (r != dnnl_success) return i8_fail(err, INFER8_E_DEVICE, "onednn: profile: %s", dnnl_status2str(r));
    return INFER8_OK;
}

static void describe_device(void *vctx, char *buf, size_t size)
{
    ctx *c = vctx;
    if (!buf || !size) return;
    if (c) {
        snprintf(buf, size, "%s", c->device);
        return;
    }
    char model[160];
    cpu_model(model, sizeof model);
    const dnnl_version_t *v = dnnl_version();
    snprintf(buf, size, "%s, oneDNN %d.%d.%d", model, v->major, v->minor, v->patch);
}

static void destroy(void *vctx)
{
    ctx *c = vctx;
    if (!c) return;
    if (c->plans)
        for (int n = 0; n <= c->opts.max_batch; n++) plan_free(c->plans[n]);
    if (c->info)
        for (int i = 0; i < c->g->n_nodes; i++) {
            for (int k = 0; k < c->info[i].n_w; k++) {
                dnnl_memory_destroy(c->info[i].w[k].mem);
                free(c->info[i].w[k].data);
            }
            free(c->info[i].w);
            free(c->info[i].bias_scaled);
        }
    if (c->stream) dnnl_stream_destroy(c->stream);
    if (c->engine) dnnl_engine_destroy(c->engine);
    free(c->info);
    free(c->plans);
    free(c->time_input);
    free(c->time_logits);
    free(c);
}

const i8_backend_ops i8_backend_cpu_onednn = {
    .version = 1,
    .name = "cpu-onednn",
    .supports_node = supports_node,
    .prepare = prepare,
    .run = run,
    .destroy = destroy,
    .time_forward = time_forward,
    .profile = profile,
    .describe_device = describe_device,
};
