/* CPU reference executor (i8_backend_cpu_reference): runs any graph of the IR node by node
 * with the operators of ref_ops.c, activations in NHWC float32.
 *
 * prepare checks every node against its inputs and weights (so run can trust the shapes),
 * re-lays conv weights out once (channel blocks, see i8_ref_conv_relayout; own copies), plans activation
 * memory for max_batch images: a buffer is free after its last user, a new output takes the
 * smallest free buffer that fits (else grows the largest free one, else adds a buffer), and
 * the buffers are carved from one allocation. run converts the NCHW input, executes the nodes
 * in order and writes the output node's values as logits. Batch-norm, linear and bias
 * parameters are read from the graph at run time; with a pre_node_hook, a conv's weights are
 * re-laid out again after the hook (the hook may have changed them). The hook may change
 * weight values only, not node fields or weight shapes (those were checked at prepare).
 * opts->threads > 0 sets the OpenMP thread count for the duration of run (restored after).
 *
 * FP8 emulation (docs/fp8.md): an FP8 conv (precision I8_PREC_FP8, weights already dequantized
 * in the graph by quant/quantize.c) reads the fake-quantized copy of its input,
 * i8_fp8_fake_quant(v, 1.0f / s, s) with s = the producer's out_scale, and, when residual_fp8,
 * the fake-quantized copy of its residual x (s = x's producer out_scale); the conv itself and
 * its epilogue run in float32 as for any conv. As on the GPU, every activation of an FP8 graph
 * (but the logits) is a binary16 value for the layers that read it as fp16, and the e4m3 copy
 * that an FP8 read sees quantizes the value its producer computed: the float result of an FP8
 * conv (whose epilogue writes the e4m3 copy next to, not from, its fp16 rounding), else the
 * fp16 value. So the outputs of FP8 convs, and the concats holding them, keep their float
 * values in act[] ("unrounded"); a layer reading one as fp16 reads a rounded copy. The copies
 * (fake-quantized or rounded) of a node's input and residual live in two scratch buffers. A
 * pre_node_hook sees act[] as stored. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef _OPENMP
#include <omp.h>
#endif

#include "backends/backend.h"
#include "backends/cpu/ref_ops.h"
#include "quant/fp8.h"

typedef struct ref_ctx {
    i8_graph *g;
    i8_backend_options opts;
    float **act;          /* [n_nodes] output of each node: [max_batch][h][w][c], in arena */
    float **conv_w;       /* [n_nodes] re-laid-out weights of conv nodes, else NULL */
    float *arena;
    float *read_copy[2];   /* FP8 emulation: input / residual as the node reads it (e4m3 or fp16 copy) */
    unsigned char *unrounded; /* [n_nodes] act[] holds float values (FP8 conv outputs, concats of them) */
    int f16_storage;       /* FP8 graphs (or opts.f16_activations): activations stored as binary16, as on the GPU */
    int n_buffers;
    size_t arena_floats, naive_floats;
} ref_ctx;

/* ---- validation ----------------------------------------------------------------------------- */

/* c*h*w of a node (shapes are checked positive; overflow is caught in plan_memory). */
static size_t node_elems(const i8_node *nd) { return (size_t)nd->c * (size_t)nd->h * (size_t)nd->w; }

/* Weight idx must exist, hold data and have exactly shape d[0..ndim). */
static infer8_status check_weight(const i8_graph *g, const i8_node *nd, const char *what, int idx, int ndim,
                                  const int64_t *d, i8_err *err) {
    if (idx < 0 || idx >= g->n_weights)
        return i8_fail(err, INFER8_E_INVALID_ARGUMENT, "node %s: %s weight index %d out of range (0..%d)", nd->name,
                       what, idx, g->n_weights - 1);
    const i8_weight *wt = &g->weights[idx];
    int same = wt->ndim == ndim && wt->data != NULL;
    for (int k = 0; same && k < ndim; k++) same = wt->shape[k] == d[k];
    if (!same) {
        char want[96], got[96];
        int a = 0, b = 0;
        for (int k = 0; k < ndim; k++) a += snprintf(want + a, sizeof want - (size_t)a, k ? ", %lld" : "%lld", (long long)d[k]);
        for (int k = 0; k < wt->ndim && k < 4; k++)
            b += snprintf(got + b, sizeof got - (size_t)b, k ? ", %lld" : "%lld", (long long)wt->shape[k]);
        if (!b) got[0] = 0;
        return i8_fail(err, INFER8_E_SHAPE, "node %s: %s weight %s: expected shape [%s], found [%s]%s", nd->name, what,
                       wt->name, want, got, wt->data ? "" : " without data");
    }
    return INFER8_OK;
}

static infer8_status check_vec(const i8_graph *g, const i8_node *nd, const char *what, int idx, int c, i8_err *err) {
    const int64_t d[1] = {c};
    return check_weight(g, nd, what, idx, 1, d, err);
}

/* Output size of a window op along one axis (floor rounding); -1 if the window does not fit. */
static int window_out(int in, int k, int s, int p) {
    const long long padded = (long long)in + 2LL * p;
    if (k < 1 || s < 1 || p < 0 || padded < k || padded > (1 << 30)) return -1;
    return (int)((padded - k) / s + 1);
}

static infer8_status check_window(const i8_node *nd, const i8_node *in, int pool, i8_err *err) {
    const int oh = window_out(in->h, nd->kh, nd->sh, nd->ph), ow = window_out(in->w, nd->kw, nd->sw, nd->pw);
    /* pools: PyTorch requires pad <= kernel/2, so every window holds at least one input */
    if (pool && (2 * nd->ph > nd->kh || 2 * nd->pw > nd->kw))
        return i8_fail(err, INFER8_E_SHAPE, "node %s: padding (%d,%d) exceeds half the kernel (%d,%d)", nd->name, nd->ph,
                       nd->pw, nd->kh, nd->kw);
    if (oh != nd->h || ow != nd->w)
        return i8_fail(err, INFER8_E_SHAPE,
                       "node %s: kernel (%d,%d) stride (%d,%d) padding (%d,%d) on %dx%d gives %dx%d, node says %dx%d",
                       nd->name, nd->kh, nd->kw, nd->sh, nd->sw, nd->ph, nd->pw, in->h, in->w, oh, ow, nd->h, nd->w);
    return INFER8_OK;
}

static int same_shape(const i8_node *a, const i8_node *b) { return a->c == b->c && a->h == b->h && a->w == b->w; }

static infer8_status check_node(const i8_graph *g, int k, i8_err *err) {
    const i8_node *nd = &g->nodes[k];
    if ((int)nd->op < 0 || nd->op >= I8_OP_COUNT)
        return i8_fail(err, INFER8_E_INVALID_ARGUMENT, "node %d (%s): invalid op %d", k, nd->name, (int)nd->op);
    if (nd->c < 1 || nd->h < 1 || nd->w < 1)
        return i8_fail(err, INFER8_E_SHAPE, "node %s: empty output shape [%d, %d, %d]", nd->name, nd->c, nd->h, nd->w);
    if (nd->n_inputs < 0 || nd->n_inputs > I8_MAX_INPUTS)
        return i8_fail(err, INFER8_E_INVALID_ARGUMENT, "node %s: %d inputs", nd->name, nd->n_inputs);
    for (int j = 0; j < nd->n_inputs; j++)
        if (nd->inputs[j] < 0 || nd->inputs[j] >= k)
            return i8_fail(err, INFER8_E_INVALID_ARGUMENT, "node %s: input %d is node %d, not an earlier node",
                           nd->name, j, nd->inputs[j]);
    static const int want_inputs[I8_OP_COUNT] = {
        [I8_OP_INPUT] = 0, [I8_OP_CONV] = 1, [I8_OP_BATCHNORM] = 1, [I8_OP_RELU] = 1, [I8_OP_MAXPOOL] = 1,
        [I8_OP_AVGPOOL] = 1, [I8_OP_CONCAT] = -1, [I8_OP_RESIDUAL] = 2, [I8_OP_GLOBAL_AVGPOOL] = 1, [I8_OP_LINEAR] = 1};
    int want = want_inputs[nd->op];
    if (nd->op == I8_OP_CONV && nd->residual >= 0) want = 2;
    if ((want >= 0 && nd->n_inputs != want) || (want < 0 && nd->n_inputs < 1))
        return i8_fail(err, INFER8_E_INVALID_ARGUMENT, "node %s (%s): %d inputs", nd->name, i8_op_name(nd->op),
                       nd->n_inputs);
    const i8_node *in = nd->n_inputs > 0 ? &g->nodes[nd->inputs[0]] : NULL;
    infer8_status st = INFER8_OK;
    switch (nd->op) {
    case I8_OP_INPUT:
        if (nd->c != g->input_c || nd->h != g->input_h || nd->w != g->input_w)
            return i8_fail(err, INFER8_E_SHAPE, "node %s: shape [%d, %d, %d] differs from the graph input [%d, %d, %d]",
                           nd->name, nd->c, nd->h, nd->w, g->input_c, g->input_h, g->input_w);
        return INFER8_OK;
    case I8_OP_CONV: {
        const int64_t d[4] = {nd->c, in->c, nd->kh, nd->kw};
        if ((st = check_window(nd, in, 0, err)) || (st = check_weight(g, nd, "conv", nd->weight, 4, d, err)))
            return st;
        if (nd->bias >= 0 && (st = check_vec(g, nd, "bias", nd->bias, nd->c, err))) return st;
        if (nd->residual >= 0 && (nd->residual != nd->inputs[1] || !same_shape(&g->nodes[nd->residual], nd)))
            return i8_fail(err, INFER8_E_SHAPE, "node %s: residual %d must be inputs[1] with the output's shape",
                           nd->name, nd->residual);
        /* FP8: the tensors read as FP8 need a usable static scale (1/s finite, s normal) */
        if (nd->precision == I8_PREC_FP8 && !i8_fp8_scale_usable(in->out_scale))
            return i8_fail(err, INFER8_E_INVALID_ARGUMENT, "node %s: FP8 conv input '%s' has out_scale %g (need > 0)",
                           nd->name, in->name, (double)in->out_scale);
        if (nd->residual_fp8 && (nd->residual < 0 || !i8_fp8_scale_usable(g->nodes[nd->residual].out_scale)))
            return i8_fail(err, INFER8_E_INVALID_ARGUMENT, "node %s: residual_fp8 needs a residual input with an out_scale",
                           nd->name);
        return INFER8_OK;
    }
    case I8_OP_BATCHNORM:
        if (!same_shape(in, nd)) break;
        if ((st = check_vec(g, nd, "bn_gamma", nd->bn_gamma, nd->c, err)) ||
            (st = check_vec(g, nd, "bn_beta", nd->bn_beta, nd->c, err)) ||
            (st = check_vec(g, nd, "bn_mean", nd->bn_mean, nd->c, err)) ||
            (st = check_vec(g, nd, "bn_var", nd->bn_var, nd->c, err)))
            return st;
        return INFER8_OK;
    case I8_OP_RELU:
        return same_shape(in, nd) ? INFER8_OK : i8_fail(err, INFER8_E_SHAPE, "node %s: shape differs from input", nd->name);
    case I8_OP_MAXPOOL:
    case I8_OP_AVGPOOL:
        if (in->c != nd->c) break;
        if (nd->bias >= 0 && (st = check_vec(g, nd, "bias", nd->bias, nd->c, err))) return st;
        return check_window(nd, in, 1, err);
    case I8_OP_CONCAT: {
        long sum = 0;
        for (int j = 0; j < nd->n_inputs; j++) {
            const i8_node *x = &g->nodes[nd->inputs[j]];
            if (x->h != nd->h || x->w != nd->w)
                return i8_fail(err, INFER8_E_SHAPE, "node %s: input %s is %dx%d, output %dx%d", nd->name, x->name, x->h,
                               x->w, nd->h, nd->w);
            sum += x->c;
        }
        if (sum != nd->c) break;
        return INFER8_OK;
    }
    case I8_OP_RESIDUAL:
        if (!same_shape(in, nd) || !same_shape(&g->nodes[nd->inputs[1]], nd)) break;
        return INFER8_OK;
    case I8_OP_GLOBAL_AVGPOOL:
        if (in->c != nd->c || nd->h != 1 || nd->w != 1) break;
        return INFER8_OK;
    case I8_OP_LINEAR: {
        if (in->h != 1 || in->w != 1 || nd->h != 1 || nd->w != 1)
            return i8_fail(err, INFER8_E_UNSUPPORTED, "node %s: linear needs a [c][1][1] input, got [%d, %d, %d]",
                           nd->name, in->c, in->h, in->w);
        const int64_t d[2] = {nd->c, in->c};
        if ((st = check_weight(g, nd, "linear", nd->weight, 2, d, err))) return st;
        if (nd->bias >= 0 && (st = check_vec(g, nd, "bias", nd->bias, nd->c, err))) return st;
        return INFER8_OK;
    }
    default:
        break;
    }
    return i8_fail(err, INFER8_E_SHAPE, "node %s (%s): output shape [%d, %d, %d] inconsistent with its inputs",
                   nd->name, i8_op_name(nd->op), nd->c, nd->h, nd->w);
}

/* ---- memory plan ---------------------------------------------------------------------------- */

/* Assigns each node a buffer (see the file comment) and allocates the arena. */
static infer8_status plan_memory(ref_ctx *x, i8_err *err) {
    const i8_graph *g = x->g;
    const int nn = g->n_nodes;
    infer8_status st = INFER8_E_NOMEM;
    int *last_use = i8_calloc((size_t)nn, sizeof(int), err), *buf_of = i8_calloc((size_t)nn, sizeof(int), err);
    size_t *buf_size = i8_calloc((size_t)nn, sizeof(size_t), err);
    char *buf_free = i8_calloc((size_t)nn, 1, err);
    if (!last_use || !buf_of || !buf_size || !buf_free) goto done;
    for (int k = 0; k < nn; k++) {
        last_use[k] = k;
        for (int j = 0; j < g->nodes[k].n_inputs; j++) last_use[g->nodes[k].inputs[j]] = k;
    }
    last_use[g->output] = nn; /* the logits stay */
    int nb = 0;
    for (int k = 0; k < nn; k++) {
        const i8_node *nd = &g->nodes[k];
        size_t elems, need;
        if (!i8_mul3_size((size_t)nd->c, (size_t)nd->h, (size_t)nd->w, &elems) ||
            !i8_mul_size(elems, (size_t)x->opts.max_batch, &need) ||
            !i8_add_size(x->naive_floats, need, &x->naive_floats)) {
            st = i8_fail(err, INFER8_E_LIMIT, "node %s: activation size overflows", g->nodes[k].name);
            goto done;
        }
        int best = -1, largest = -1;
        for (int b = 0; b < nb; b++) {
            if (!buf_free[b]) continue;
            if (buf_size[b] >= need && (best < 0 || buf_size[b] < buf_size[best])) best = b;
            if (largest < 0 || buf_size[b] > buf_size[largest]) largest = b;
        }
        if (best < 0) best = largest;
        if (best < 0) best = nb++;
        if (buf_size[best] < need) buf_size[best] = need;
        buf_free[best] = 0;
        buf_of[k] = best;
        /* release after assigning, so an output never shares memory with its inputs */
        for (int j = 0; j < g->nodes[k].n_inputs; j++)
            if (last_use[g->nodes[k].inputs[j]] == k) buf_free[buf_of[g->nodes[k].inputs[j]]] = 1;
        if (last_use[k] == k) buf_free[best] = 1;
    }
    size_t total = 0;
    size_t *offset = buf_size; /* reuse: sizes become offsets (each rounded up to 64 bytes) */
    for (int b = 0; b < nb; b++) {
        size_t sz = (buf_size[b] + 15) / 16 * 16, off = total;
        if (sz < buf_size[b] || !i8_add_size(total, sz, &total)) {
            st = i8_fail(err, INFER8_E_LIMIT, "activation arena size overflows");
            goto done;
        }
        offset[b] = off;
    }
    size_t bytes;
    if (!i8_mul_size(total, sizeof(float), &bytes)) {
        st = i8_fail(err, INFER8_E_LIMIT, "activation arena size overflows");
        goto done;
    }
    if (!(x->arena = i8_malloc(bytes, err))) goto done;
    for (int k = 0; k < nn; k++) x->act[k] = x->arena + offset[buf_of[k]];
    x->n_buffers = nb;
    x->arena_floats = total;
    st = INFER8_OK;
done:
    free(last_use);
    free(buf_of);
    free(buf_size);
    free(buf_free);
    return st;
}

/* ---- backend entry points ------------------------------------------------------------------- */

static int ref_supports_node(const i8_graph *g, const i8_node *nd) {
    if ((int)nd->op < 0 || nd->op >= I8_OP_COUNT) return 0;
    if (nd->op == I8_OP_LINEAR) { /* flattening order would differ for a spatial input */
        if (nd->n_inputs < 1 || nd->inputs[0] < 0 || nd->inputs[0] >= g->n_nodes) return 0;
        const i8_node *in = &g->nodes[nd->inputs[0]];
        return in->h == 1 && in->w == 1;
    }
    return 1;
}

static void ref_destroy(void *ctx) {
    ref_ctx *x = ctx;
    if (!x) return;
    if (x->conv_w)
        for (int k = 0; k < x->g->n_nodes; k++) free(x->conv_w[k]);
    free(x->conv_w);
    free(x->act);
    free(x->arena);
    free(x->read_copy[0]);
    free(x->read_copy[1]);
    free(x->unrounded);
    free(x);
}

static void relayout_conv(ref_ctx *x, int k) {
    const i8_node *nd = &x->g->nodes[k];
    const i8_node *in = &x->g->nodes[nd->inputs[0]];
    i8_ref_conv_relayout(x->g->weights[nd->weight].data, nd->c, in->c, nd->kh, nd->kw, x->conv_w[k]);
}

static infer8_status ref_prepare(void **out, i8_graph *g, const i8_backend_options *opts, i8_err *err) {
    if (!out || !g || !opts) return i8_fail(err, INFER8_E_INVALID_ARGUMENT, "cpu-reference: NULL argument");
    if (opts->max_batch < 1 || opts->threads < 0)
        return i8_fail(err, INFER8_E_INVALID_ARGUMENT, "cpu-reference: max_batch %d, threads %d", opts->max_batch,
                       opts->threads);
    if (g->n_nodes < 1 || g->output < 0 || g->output >= g->n_nodes || !g->nodes)
        return i8_fail(err, INFER8_E_INVALID_ARGUMENT, "cpu-reference: graph has %d nodes, output %d", g->n_nodes,
                       g->output);
    infer8_status st;
    for (int k = 0; k < g->n_nodes; k++)
        if ((st = check_node(g, k, err))) return st;
    const i8_node *o = &g->nodes[g->output];
    if (g->num_classes > 0 && node_elems(o) != (size_t)g->num_classes)
        return i8_fail(err, INFER8_E_SHAPE, "cpu-reference: output node %s has %zu values, graph has %d classes",
                       o->name, node_elems(o), g->num_classes);

    ref_ctx *x = i8_calloc(1, sizeof *x, err);
    if (!x) return INFER8_E_NOMEM;
    x->g = g;
    x->opts = *opts;
    st = INFER8_E_NOMEM;
    if (!(x->act = i8_calloc((size_t)g->n_nodes, sizeof(float *), err)) ||
        !(x->conv_w = i8_calloc((size_t)g->n_nodes, sizeof(float *), err)))
        goto fail;
    for (int k = 0; k < g->n_nodes; k++) {
        const i8_node *nd = &g->nodes[k];
        if (nd->op != I8_OP_CONV) continue;
        size_t n;
        const int cin = g->nodes[nd->inputs[0]].c;
        if (!i8_mul3_size((size_t)nd->kh * (size_t)nd->kw, (size_t)cin, (size_t)i8_ref_conv_out_padded(nd->c), &n) ||
            !i8_mul_size(n, sizeof(float), &n)) {
            st = i8_fail(err, INFER8_E_LIMIT, "node %s: conv weight size overflows", nd->name);
            goto fail;
        }
        if (!(x->conv_w[k] = i8_malloc(n, err))) goto fail;
        relayout_conv(x, k);
    }
    if ((st = plan_memory(x, err))) goto fail;
    /* FP8 emulation: which outputs stay unrounded, and the scratch for the copies nodes read */
    int any_fp8 = 0;
    for (int k = 0; k < g->n_nodes; k++)
        any_fp8 |= i8_node_reads_fp8(&g->nodes[k]);
    x->f16_storage = any_fp8 || opts->f16_activations;
    if (!(x->unrounded = i8_calloc((size_t)g->n_nodes, 1, err))) goto fail;
    size_t copy_elems[2] = {0, 0};
    for (int k = 0; k < g->n_nodes; k++) {
        const i8_node *nd = &g->nodes[k];
        if (nd->op == I8_OP_CONCAT) {
            for (int j = 0; j < nd->n_inputs; j++) x->unrounded[k] |= x->unrounded[nd->inputs[j]];
            continue;
        }
        x->unrounded[k] = nd->op == I8_OP_CONV && nd->precision == I8_PREC_FP8 && k != g->output;
        for (int slot = 0; slot < 2; slot++) {
            int p = i8_node_read_slot(nd, slot);
            if (p >= 0 && (i8_node_reads_fp8_slot(nd, slot) || x->unrounded[p]) && node_elems(&g->nodes[p]) > copy_elems[slot])
                copy_elems[slot] = node_elems(&g->nodes[p]);
        }
    }
    for (int slot = 0; slot < 2; slot++) {
        size_t bytes;
        if (!copy_elems[slot]) continue;
        if (!i8_mul3_size(copy_elems[slot], (size_t)opts->max_batch, sizeof(float), &bytes)) {
            st = i8_fail(err, INFER8_E_LIMIT, "FP8 scratch size overflows");
            goto fail;
        }
        if (!(x->read_copy[slot] = i8_malloc(bytes, err))) goto fail;
    }
    *out = x;
    return INFER8_OK;
fail:
    ref_destroy(x);
    return st;
}

static void window_shape(const i8_node *nd, const i8_node *in, int n, i8_ref_conv_shape *s) {
    *s = (i8_ref_conv_shape){.n = n, .in_h = in->h, .in_w = in->w, .in_c = in->c, .out_h = nd->h, .out_w = nd->w,
                             .out_c = nd->c, .kh = nd->kh, .kw = nd->kw, .sh = nd->sh, .sw = nd->sw, .ph = nd->ph,
                             .pw = nd->pw};
}

static const float *wdata(const i8_graph *g, int idx) { return idx >= 0 ? g->weights[idx].data : NULL; }

/* Node nd's view of read slot `slot` for n images: the e4m3 copy
 * (i8_fp8_fake_quant(v, 1.0f / s, s), s = the producer's out_scale) for FP8 reads, the binary16
 * rounding of an unrounded producer for fp16 reads, else the producer's act[] itself. */
static const float *read_slot(ref_ctx *x, const i8_node *nd, int slot, int n) {
    const int p = i8_node_read_slot(nd, slot);
    if (p < 0) return NULL;
    const i8_node *pn = &x->g->nodes[p];
    const size_t count = (size_t)n * node_elems(pn);
    const float *v = x->act[p];
    float *y = x->read_copy[slot];
    if (i8_node_reads_fp8_slot(nd, slot)) {
        i8_fp8_fake_quant_array(v, y, count, pn->out_scale);
        return y;
    }
    if (!x->unrounded[p]) return v;
    i8_f16_round_array(v, y, count);
    return y;
}

/* Computes node k for n images from the activations of its inputs. */
static void run_node(ref_ctx *x, int k, int n, const float *input_nchw) {
    const i8_graph *g = x->g;
    const i8_node *nd = &g->nodes[k];
    const i8_node *in = nd->n_inputs > 0 ? &g->nodes[nd->inputs[0]] : NULL;
    const float *a = read_slot(x, nd, 0, n);
    float *y = x->act[k];
    const size_t pixels = (size_t)n * nd->h * nd->w;
    i8_ref_conv_shape s;
    switch (nd->op) {
    case I8_OP_INPUT:
        i8_ref_nchw_to_nhwc(n, nd->c, nd->h, nd->w, input_nchw, y);
        break;
    case I8_OP_CONV:
        window_shape(nd, in, n, &s);
        (x->opts.accumulate_fp64 ? i8_ref_conv2d_f64 : i8_ref_conv2d)(&s, a, x->conv_w[k], wdata(g, nd->bias),
                                                                       read_slot(x, nd, 1, n), nd->residual_scale,
                                                                       nd->act, y);
        break;
    case I8_OP_BATCHNORM:
        i8_ref_batchnorm(pixels, nd->c, a, wdata(g, nd->bn_gamma), wdata(g, nd->bn_beta), wdata(g, nd->bn_mean),
                         wdata(g, nd->bn_var), nd->bn_eps, y);
        break;
    case I8_OP_RELU:
        i8_ref_relu(pixels * nd->c, a, y);
        break;
    case I8_OP_MAXPOOL:
        window_shape(nd, in, n, &s);
        i8_ref_maxpool(&s, a, y);
        break;
    case I8_OP_AVGPOOL:
        window_shape(nd, in, n, &s);
        i8_ref_avgpool(&s, nd->count_include_pad, a, nd->bias >= 0 ? wdata(g, nd->bias) : NULL, nd->act, y);
        break;
    case I8_OP_CONCAT: {
        const float *xs[I8_MAX_INPUTS];
        int cs[I8_MAX_INPUTS];
        for (int j = 0; j < nd->n_inputs; j++) {
            xs[j] = x->act[nd->inputs[j]];
            cs[j] = g->nodes[nd->inputs[j]].c;
        }
        i8_ref_concat(pixels, nd->n_inputs, xs, cs, y);
        break;
    }
    case I8_OP_RESIDUAL:
        i8_ref_residual(pixels * nd->c, a, read_slot(x, nd, 1, n), nd->residual_scale, nd->act, y);
        break;
    case I8_OP_GLOBAL_AVGPOOL:
        i8_ref_global_avgpool(n, in->h * in->w, nd->c, a, y);
        break;
    case I8_OP_LINEAR:
        (x->opts.accumulate_fp64 ? i8_ref_linear_f64 : i8_ref_linear)(n, in->c, nd->c, a, wdata(g, nd->weight),
                                                                       wdata(g, nd->bias), y);
        break;
    default:
        break; /* unreachable: prepare checked every op */
    }
}

static infer8_status ref_run(void *ctx, int n, const float *input_nchw, float *logits, i8_err *err) {
    ref_ctx *x = ctx;
    if (!x || !input_nchw || !logits) return i8_fail(err, INFER8_E_INVALID_ARGUMENT, "cpu-reference: NULL argument");
    if (n < 1 || n > x->opts.max_batch)
        return i8_fail(err, INFER8_E_INVALID_ARGUMENT, "cpu-reference: batch %d outside 1..%d", n, x->opts.max_batch);
    i8_graph *g = x->g;
#ifdef _OPENMP
    const int saved_threads = omp_get_max_threads();
    if (x->opts.threads > 0) omp_set_num_threads(x->opts.threads);
#endif
    infer8_status st = INFER8_OK;
    for (int k = 0; k < g->n_nodes && st == INFER8_OK; k++) {
        const i8_node *nd = &g->nodes[k];
        if (x->opts.pre_node_hook) {
            const float *ins[I8_MAX_INPUTS];
            for (int j = 0; j < nd->n_inputs; j++) ins[j] = x->act[nd->inputs[j]];
            st = x->opts.pre_node_hook(x->opts.hook_user, g, k, n, ins, err);
            if (st) break; /* an error, or I8_HOOK_STOP: the hook has what it needs (no logits) */
            if (nd->op == I8_OP_CONV) relayout_conv(x, k); /* the hook may have changed the weights */
        }
        run_node(x, k, n, input_nchw);
        if (x->f16_storage && k != g->output && !x->unrounded[k]) {
            i8_f16_round_array(x->act[k], x->act[k], (size_t)n * node_elems(nd));
        }
    }
    if (st == INFER8_OK) {
        const i8_node *o = &g->nodes[g->output];
        i8_ref_nhwc_to_nchw(n, o->c, o->h, o->w, x->act[g->output], logits);
    }
#ifdef _OPENMP
    omp_set_num_threads(saved_threads);
#endif
    return st == I8_HOOK_STOP ? INFER8_OK : st;
}

void i8_ref_executor_memory(const void *ctx, int *buffers, size_t *arena_floats, size_t *naive_floats) {
    const ref_ctx *x = ctx;
    if (buffers) *buffers = x->n_buffers;
    if (arena_floats) *arena_floats = x->arena_floats;
    if (naive_floats) *naive_floats = x->naive_floats;
}

const i8_backend_ops i8_backend_cpu_reference = {
    .version = 1,
    .name = "cpu-reference",
    .supports_node = ref_supports_node,
    .prepare = ref_prepare,
    .run = ref_run,
    .destroy = ref_destroy,
};
