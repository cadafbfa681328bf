/* Graph IR: node and weight tables, compaction after passes, structural validation, totals
 * for inspect. Passes live in their own files (fold_batchnorm.c, fuse.c), listings in
 * describe.c. Nothing here computes activations. */
#include "graph/graph.h"

#include <stdlib.h>
#include <string.h>

static const char *const op_names[I8_OP_COUNT] = {
    [I8_OP_INPUT] = "input",         [I8_OP_CONV] = "conv",
    [I8_OP_BATCHNORM] = "batchnorm", [I8_OP_RELU] = "relu",
    [I8_OP_MAXPOOL] = "maxpool",     [I8_OP_AVGPOOL] = "avgpool",
    [I8_OP_CONCAT] = "concat",       [I8_OP_RESIDUAL] = "residual",
    [I8_OP_GLOBAL_AVGPOOL] = "global_avgpool", [I8_OP_LINEAR] = "linear",
};

const char *i8_op_name(i8_op op) {
    if ((int)op < 0 || op >= I8_OP_COUNT) return "removed";
    return op_names[op];
}

const char *i8_precision_name(i8_precision p) {
    switch (p) {
    case I8_PREC_FP32: return "fp32";
    case I8_PREC_FP16: return "fp16";
    case I8_PREC_FP8: return "fp8";
    }
    return "unknown";
}

int i8_node_reads_fp8(const i8_node *nd) {
    return nd->op == I8_OP_CONV && (nd->precision == I8_PREC_FP8 || nd->residual_fp8);
}

int i8_node_reads_fp8_slot(const i8_node *nd, int k) {
    if (nd->op != I8_OP_CONV) return 0;
    if (k == 0) return nd->precision == I8_PREC_FP8;
    return k == 1 && nd->residual_fp8 && nd->residual == nd->inputs[1];
}

int i8_node_read_slot(const i8_node *nd, int slot) {
    if (nd->op == I8_OP_CONCAT || nd->op == I8_OP_INPUT) return -1;
    if (slot == 0) return nd->n_inputs > 0 ? nd->inputs[0] : -1;
    if (nd->op == I8_OP_CONV) return nd->residual;
    return nd->op == I8_OP_RESIDUAL && nd->n_inputs > 1 ? nd->inputs[1] : -1;
}

static void copy_name(char *dst, size_t size, const char *src) {
    size_t n = src ? strlen(src) : 0;
    if (n >= size) n = size - 1;
    if (n) memcpy(dst, src, n);
    dst[n] = 0;
}

i8_node i8_node_blank(i8_op op, const char *name) {
    i8_node n;
    memset(&n, 0, sizeof n);
    copy_name(n.name, sizeof n.name, name);
    n.op = op;
    for (int i = 0; i < I8_MAX_INPUTS; i++) n.inputs[i] = -1;
    n.kh = n.kw = n.sh = n.sw = 1;
    n.weight = n.bias = -1;
    n.bn_gamma = n.bn_beta = n.bn_mean = n.bn_var = -1;
    n.act = I8_ACT_NONE;
    n.residual = -1;
    n.residual_scale = 1.0f;
    n.block = -1;
    n.precision = I8_PREC_FP32;
    n.out_scale = 0.0f;
    n.weight_scales = -1;
    n.residual_fp8 = 0;
    return n;
}

infer8_status i8_graph_init(i8_graph *g, const char *arch, int in_c, int in_h, int in_w, i8_err *err) {
    memset(g, 0, sizeof *g);
    g->output = -1;
    if (in_c < 1 || in_h < 1 || in_w < 1)
        return i8_fail(err, INFER8_E_INVALID_ARGUMENT, "%s: input shape %dx%dx%d must be positive", arch ? arch : "graph",
                       in_c, in_h, in_w);
    copy_name(g->arch, sizeof g->arch, arch);
    g->input_c = in_c;
    g->input_h = in_h;
    g->input_w = in_w;
    i8_node in = i8_node_blank(I8_OP_INPUT, "input");
    in.c = in_c;
    in.h = in_h;
    in.w = in_w;
    int idx;
    infer8_status st = i8_graph_add_node(g, &in, &idx, err);
    if (st != INFER8_OK) i8_graph_free(g);
    return st;
}

void i8_graph_free(i8_graph *g) {
    if (!g) return;
    for (int i = 0; i < g->n_weights; i++) free(g->weights[i].data);
    free(g->weights);
    free(g->nodes);
    memset(g, 0, sizeof *g);
    g->output = -1;
}

infer8_status i8_graph_add_node(i8_graph *g, const i8_node *node, int *index, i8_err *err) {
    if (g->n_nodes == g->cap_nodes) {
        int cap = g->cap_nodes ? g->cap_nodes * 2 : 256;
        if (cap > (1 << 24)) return i8_fail(err, INFER8_E_LIMIT, "%s: too many graph nodes", g->arch);
        i8_node *p = i8_realloc(g->nodes, (size_t)cap * sizeof *p, err);
        if (!p) return INFER8_E_NOMEM;
        g->nodes = p;
        g->cap_nodes = cap;
    }
    g->nodes[g->n_nodes] = *node;
    if (index) *index = g->n_nodes;
    g->n_nodes++;
    return INFER8_OK;
}

infer8_status i8_graph_add_weight(i8_graph *g, const char *name, int ndim, const int64_t *shape, float *data,
                                  int *index, i8_err *err) {
    if (ndim < 1 || ndim > 4) {
        free(data);
        return i8_fail(err, INFER8_E_INTERNAL, "%s: weight rank %d not in 1..4", name, ndim);
    }
    if (g->n_weights == g->cap_weights) {
        int cap = g->cap_weights ? g->cap_weights * 2 : 512;
        if (cap > (1 << 24)) {
            free(data);
            return i8_fail(err, INFER8_E_LIMIT, "%s: too many graph weights", g->arch);
        }
        i8_weight *p = i8_realloc(g->weights, (size_t)cap * sizeof *p, err);
        if (!p) {
            free(data);
            return INFER8_E_NOMEM;
        }
        g->weights = p;
        g->cap_weights = cap;
    }
    i8_weight *w = &g->weights[g->n_weights];
    memset(w, 0, sizeof *w);
    copy_name(w->name, sizeof w->name, name);
    w->ndim = ndim;
    for (int i = 0; i < ndim; i++) w->shape[i] = shape[i];
    w->data = data;
    if (index) *index = g->n_weights;
    g->n_weights++;
    return INFER8_OK;
}

/* ---- compaction ---- */

/* Pointers to every weight index field of a node, in a fixed order. */
static int node_weight_refs(i8_node *n, int **refs) {
    refs[0] = &n->weight;
    refs[1] = &n->bias;
    refs[2] = &n->bn_gamma;
    refs[3] = &n->bn_beta;
    refs[4] = &n->bn_mean;
    refs[5] = &n->bn_var;
    refs[6] = &n->weight_scales;
    return 7;
}

infer8_status i8_graph_compact(i8_graph *g, i8_err *err) {
    int *node_map = i8_malloc((size_t)(g->n_nodes ? g->n_nodes : 1) * sizeof(int), err);
    int *weight_map = i8_calloc((size_t)(g->n_weights ? g->n_weights : 1), sizeof(int), err);
    if (!node_map || !weight_map) {
        free(node_map);
        free(weight_map);
        return INFER8_E_NOMEM;
    }
    int kept = 0;
    for (int i = 0; i < g->n_nodes; i++) node_map[i] = g->nodes[i].op == I8_OP_COUNT ? -1 : kept++;

    /* weights referenced by surviving nodes */
    for (int i = 0; i < g->n_nodes; i++) {
        i8_node *n = &g->nodes[i];
        if (n->op == I8_OP_COUNT) continue;
        int *refs[7];
        int nr = node_weight_refs(n, refs);
        for (int r = 0; r < nr; r++) {
            int wi = *refs[r];
            if (wi < -1 || wi >= g->n_weights) {
                free(node_map);
                free(weight_map);
                return i8_fail(err, INFER8_E_INTERNAL, "%s: node '%s' references weight %d of %d", g->arch, n->name, wi,
                               g->n_weights);
            }
            if (wi >= 0) weight_map[wi] = 1;
        }
    }
    int kept_w = 0;
    for (int i = 0; i < g->n_weights; i++) weight_map[i] = weight_map[i] ? kept_w++ : -1;

    /* renumber node references before moving anything, so errors leave the graph intact */
    for (int i = 0; i < g->n_nodes; i++) {
        i8_node *n = &g->nodes[i];
        if (n->op == I8_OP_COUNT) continue;
        for (int k = 0; k < n->n_inputs; k++) {
            int in = n->inputs[k];
            if (in < 0 || in >= g->n_nodes || node_map[in] < 0) {
                free(node_map);
                free(weight_map);
                return i8_fail(err, INFER8_E_INTERNAL, "%s: node '%s' input %d refers to removed or invalid node %d",
                               g->arch, n->name, k, in);
            }
        }
        if (n->residual >= g->n_nodes || (n->residual >= 0 && node_map[n->residual] < 0)) {
            free(node_map);
            free(weight_map);
            return i8_fail(err, INFER8_E_INTERNAL, "%s: node '%s' residual refers to removed node %d", g->arch, n->name,
                           n->residual);
        }
    }
    if (g->output >= 0 && (g->output >= g->n_nodes || node_map[g->output] < 0)) {
        free(node_map);
        free(weight_map);
        return i8_fail(err, INFER8_E_INTERNAL, "%s: graph output refers to removed node %d", g->arch, g->output);
    }

    int dst = 0;
    for (int i = 0; i < g->n_nodes; i++) {
        i8_node n = g->nodes[i];
        if (n.op == I8_OP_COUNT) continue;
        for (int k = 0; k < n.n_inputs; k++) n.inputs[k] = node_map[n.inputs[k]];
        if (n.residual >= 0) n.residual = node_map[n.residual];
        int *refs[7];
        int nr = node_weight_refs(&n, refs);
        for (int r = 0; r < nr; r++)
            if (*refs[r] >= 0) *refs[r] = weight_map[*refs[r]];
        g->nodes[dst++] = n;
    }
    g->n_nodes = dst;
    if (g->output >= 0) g->output = node_map[g->output];

    int wdst = 0;
    for (int i = 0; i < g->n_weights; i++) {
        if (weight_map[i] < 0) {
            free(g->weights[i].data);
            continue;
        }
        g->weights[wdst++] = g->weights[i];
    }
    g->n_weights = wdst;
    free(node_map);
    free(weight_map);
    return INFER8_OK;
}

/* ---- validation ---- */

/* Output extent of a window op, floor rounding; <= 0 when the input is too small. */
static int64_t window_out(int64_t in, int k, int s, int p) {
    if (s < 1) return 0;
    int64_t span = in + 2 * (int64_t)p - k;
    if (span < 0) return 0;
    return span / s + 1;
}

static infer8_status check_weight(const i8_graph *g, const i8_node *n, const char *what, int wi, int ndim,
                                  const int64_t *shape, i8_err *err) {
    if (wi < 0 || wi >= g->n_weights)
        return i8_fail(err, INFER8_E_INTERNAL, "%s: node '%s' %s weight index %d invalid (%d weights)", g->arch, n->name,
                       what, wi, g->n_weights);
    const i8_weight *w = &g->weights[wi];
    int ok = w->ndim == ndim && w->data != NULL;
    for (int i = 0; ok && i < ndim; i++) ok = w->shape[i] == shape[i];
    if (!ok) {
        char want[96], got[96];
        int off = snprintf(want, sizeof want, "[");
        for (int i = 0; i < ndim; i++) off += snprintf(want + off, sizeof want - off, "%s%lld", i ? ", " : "", (long long)shape[i]);
        snprintf(want + off, sizeof want - off, "]");
        off = snprintf(got, sizeof got, "[");
        for (int i = 0; i < w->ndim && i < 4; i++)
            off += snprintf(got + off, sizeof got - off, "%s%lld", i ? ", " : "", (long long)w->shape[i]);
        snprintf(got + off, sizeof got - off, "]");
        return i8_fail(err, INFER8_E_SHAPE, "%s: node '%s' %s weight '%s': expected shape %s, found %s%s", g->arch, n->name,
                       what, w->name, want, got, w->data ? "" : " (no data)");
    }
    return INFER8_OK;
}

static infer8_status validate_node(const i8_graph *g, int idx, i8_err *err) {
    const i8_node *n = &g->nodes[idx];
    const char *a = g->arch;
    if ((int)n->op < 0 || n->op >= I8_OP_COUNT)
        return i8_fail(err, INFER8_E_INTERNAL, "%s: node %d '%s' has invalid op %d", a, idx, n->name, (int)n->op);
    if (n->n_inputs < 0 || n->n_inputs > I8_MAX_INPUTS)
        return i8_fail(err, INFER8_E_INTERNAL, "%s: node '%s' has %d inputs", a, n->name, n->n_inputs);
    for (int k = 0; k < n->n_inputs; k++)
        if (n->inputs[k] < 0 || n->inputs[k] >= idx)
            return i8_fail(err, INFER8_E_INTERNAL,
                           "%s: node %d '%s' input %d is node %d: not before it (graph not in topological order)", a,
                           idx, n->name, k, n->inputs[k]);
    if (n->c < 1 || n->h < 1 || n->w < 1)
        return i8_fail(err, INFER8_E_SHAPE, "%s: node '%s' output shape %dx%dx%d not positive", a, n->name, n->c, n->h,
                       n->w);
    if (n->act != I8_ACT_NONE && n->act != I8_ACT_RELU)
        return i8_fail(err, INFER8_E_INTERNAL, "%s: node '%s' has invalid act %d", a, n->name, (int)n->act);
    /* executors apply an act only where one can be fused: convs, residual adds, and average pools
     * moved below their 1x1 conv (i8_pass_sink_avgpool), which take its bias too */
    if (n->act != I8_ACT_NONE && n->op != I8_OP_CONV && n->op != I8_OP_RESIDUAL && n->op != I8_OP_AVGPOOL)
        return i8_fail(err, INFER8_E_INTERNAL, "%s: node '%s' (%s) has an act, which only conv, residual and avgpool take",
                       a, n->name, i8_op_name(n->op));
    if (n->bias >= 0 && n->op != I8_OP_CONV && n->op != I8_OP_LINEAR && n->op != I8_OP_AVGPOOL)
        return i8_fail(err, INFER8_E_INTERNAL, "%s: node '%s' (%s) has a bias, which only conv, linear and avgpool take", a,
                       n->name, i8_op_name(n->op));

    int want_inputs = 1;
    switch (n->op) {
    case I8_OP_INPUT: want_inputs = 0; break;
    case I8_OP_CONV: want_inputs = n->residual >= 0 ? 2 : 1; break;
    case I8_OP_RESIDUAL: want_inputs = 2; break;
    case I8_OP_CONCAT: want_inputs = -1; break;
    default: break;
    }
    if (want_inputs >= 0 && n->n_inputs != want_inputs)
        return i8_fail(err, INFER8_E_INTERNAL, "%s: node '%s' (%s) has %d inputs, expected %d", a, n->name,
                       i8_op_name(n->op), n->n_inputs, want_inputs);
    if (n->op != I8_OP_CONV && n->residual != -1)
        return i8_fail(err, INFER8_E_INTERNAL, "%s: node '%s' (%s) has a fused residual", a, n->name, i8_op_name(n->op));
    const i8_node *in = n->n_inputs > 0 ? &g->nodes[n->inputs[0]] : NULL;

    switch (n->op) {
    case I8_OP_INPUT:
        if (n->c != g->input_c || n->h != g->input_h || n->w != g->input_w)
            return i8_fail(err, INFER8_E_SHAPE, "%s: input node '%s' shape %dx%dx%d differs from graph input %dx%dx%d", a,
                           n->name, n->c, n->h, n->w, g->input_c, g->input_h, g->input_w);
        break;
    case I8_OP_CONV: {
        if (n->kh < 1 || n->kw < 1 || n->sh < 1 || n->sw < 1 || n->ph < 0 || n->pw < 0)
            return i8_fail(err, INFER8_E_INTERNAL, "%s: conv '%s' kernel %dx%d stride %dx%d padding %dx%d invalid", a,
                           n->name, n->kh, n->kw, n->sh, n->sw, n->ph, n->pw);
        int64_t oh = window_out(in->h, n->kh, n->sh, n->ph), ow = window_out(in->w, n->kw, n->sw, n->pw);
        if (oh != n->h || ow != n->w)
            return i8_fail(err, INFER8_E_SHAPE, "%s: conv '%s' output %dx%d, expected %lldx%lld from input %dx%d", a,
                           n->name, n->h, n->w, (long long)oh, (long long)ow, in->h, in->w);
        int64_t ws[4] = {n->c, in->c, n->kh, n->kw};
        infer8_status st = check_weight(g, n, "conv", n->weight, 4, ws, err);
        if (st) return st;
        if (n->bias >= 0) {
            int64_t bs[1] = {n->c};
            if ((st = check_weight(g, n, "bias", n->bias, 1, bs, err))) return st;
        }
        if (n->residual >= 0) {
            if (n->inputs[1] != n->residual)
                return i8_fail(err, INFER8_E_INTERNAL, "%s: conv '%s' residual %d is not its inputs[1] (%d)", a, n->name,
                               n->residual, n->inputs[1]);
            const i8_node *x = &g->nodes[n->residual];
            if (x->c != n->c || x->h != n->h || x->w != n->w)
                return i8_fail(err, INFER8_E_SHAPE, "%s: conv '%s' residual '%s' shape %dx%dx%d differs from %dx%dx%d", a,
                               n->name, x->name, x->c, x->h, x->w, n->c, n->h, n->w);
        }
        break;
    }
    case I8_OP_BATCHNORM: {
        if (in->c != n->c || in->h != n->h || in->w != n->w)
            return i8_fail(err, INFER8_E_SHAPE, "%s: batchnorm '%s' shape differs from its input '%s'", a, n->name,
                           in->name);
        if (!(n->bn_eps > 0.0f))
            return i8_fail(err, INFER8_E_INTERNAL, "%s: batchnorm '%s' eps %g must be > 0", a, n->name, (double)n->bn_eps);
        int64_t s[1] = {n->c};
        infer8_status st;
        if ((st = check_weight(g, n, "gamma", n->bn_gamma, 1, s, err))) return st;
        if ((st = check_weight(g, n, "beta", n->bn_beta, 1, s, err))) return st;
        if ((st = check_weight(g, n, "running_mean", n->bn_mean, 1, s, err))) return st;
        if ((st = check_weight(g, n, "running_var", n->bn_var, 1, s, err))) return st;
        break;
    }
    case I8_OP_RELU:
        if (in->c != n->c || in->h != n->h || in->w != n->w)
            return i8_fail(err, INFER8_E_SHAPE, "%s: relu '%s' shape differs from its input '%s'", a, n->name, in->name);
        break;
    case I8_OP_MAXPOOL:
    case I8_OP_AVGPOOL: {
        /* PyTorch requires padding <= half the kernel; a window then always overlaps the input */
        if (n->kh < 1 || n->kw < 1 || n->sh < 1 || n->sw < 1 || n->ph < 0 || n->pw < 0 || n->ph > n->kh / 2 ||
            n->pw > n->kw / 2) /* not 2 * ph: ph comes from files (bundles) and may be huge */
            return i8_fail(err, INFER8_E_INTERNAL, "%s: pool '%s' kernel %dx%d stride %dx%d padding %dx%d invalid", a,
                           n->name, n->kh, n->kw, n->sh, n->sw, n->ph, n->pw);
        int64_t oh = window_out(in->h, n->kh, n->sh, n->ph), ow = window_out(in->w, n->kw, n->sw, n->pw);
        if (n->c != in->c || oh != n->h || ow != n->w)
            return i8_fail(err, INFER8_E_SHAPE, "%s: pool '%s' output %dx%dx%d, expected %dx%lldx%lld from input %dx%dx%d",
                           a, n->name, n->c, n->h, n->w, in->c, (long long)oh, (long long)ow, in->c, in->h, in->w);
        if (n->bias >= 0) {
            int64_t bs[1] = {n->c};
            infer8_status st = check_weight(g, n, "bias", n->bias, 1, bs, err);
            if (st) return st;
        }
        break;
    }
    case I8_OP_CONCAT: {
        if (n->n_inputs < 1)
            return i8_fail(err, INFER8_E_INTERNAL, "%s: concat '%s' has no inputs", a, n->name);
        int64_t sum = 0;
        for (int k = 0; k < n->n_inputs; k++) {
            const i8_node *x = &g->nodes[n->inputs[k]];
            if (x->h != n->h || x->w != n->w)
                return i8_fail(err, INFER8_E_SHAPE, "%s: concat '%s' input %d '%s' is %dx%d, expected %dx%d", a, n->name, k,
                               x->name, x->h, x->w, n->h, n->w);
            sum += x->c;
        }
        if (sum != n->c)
            return i8_fail(err, INFER8_E_SHAPE, "%s: concat '%s' has %d channels, its inputs sum to %lld", a, n->name, n->c,
                           (long long)sum);
        break;
    }
    case I8_OP_RESIDUAL: {
        for (int k = 0; k < 2; k++) {
            const i8_node *x = &g->nodes[n->inputs[k]];
            if (x->c != n->c || x->h != n->h || x->w != n->w)
                return i8_fail(err, INFER8_E_SHAPE, "%s: residual '%s' input %d '%s' shape %dx%dx%d differs from %dx%dx%d", a,
                               n->name, k, x->name, x->c, x->h, x->w, n->c, n->h, n->w);
        }
        break;
    }
    case I8_OP_GLOBAL_AVGPOOL:
        if (n->c != in->c || n->h != 1 || n->w != 1)
            return i8_fail(err, INFER8_E_SHAPE, "%s: global pool '%s' output %dx%dx%d, expected %dx1x1", a, n->name, n->c,
                           n->h, n->w, in->c);
        break;
    case I8_OP_LINEAR: {
        if (n->h != 1 || n->w != 1)
            return i8_fail(err, INFER8_E_SHAPE, "%s: linear '%s' output %dx%dx%d, expected %dx1x1", a, n->name, n->c, n->h,
                           n->w, n->c);
        int64_t ws[2] = {n->c, (int64_t)in->c * in->h * in->w};
        int64_t bs[1] = {n->c};
        infer8_status st;
        if ((st = check_weight(g, n, "linear", n->weight, 2, ws, err))) return st;
        if ((st = check_weight(g, n, "bias", n->bias, 1, bs, err))) return st;
        break;
    }
    default: break;
    }
    return INFER8_OK;
}

infer8_status i8_graph_validate(const i8_graph *g, i8_err *err) {
    if (g->n_nodes < 1 || !g->nodes) return i8_fail(err, INFER8_E_INTERNAL, "%s: graph has no nodes", g->arch);
    if (g->n_weights < 0 || (g->n_weights > 0 && !g->weights))
        return i8_fail(err, INFER8_E_INTERNAL, "%s: weight table invalid", g->arch);
    int inputs = 0;
    for (int i = 0; i < g->n_nodes; i++) {
        infer8_status st = validate_node(g, i, err);
        if (st != INFER8_OK) return st;
        inputs += g->nodes[i].op == I8_OP_INPUT;
    }
    if (inputs < 1) return i8_fail(err, INFER8_E_INTERNAL, "%s: graph has no input node", g->arch);
    if (g->output < 0 || g->output >= g->n_nodes)
        return i8_fail(err, INFER8_E_INTERNAL, "%s: output node index %d invalid (%d nodes)", g->arch, g->output,
                       g->n_nodes);
    const i8_node *out = &g->nodes[g->output];
    if (g->num_classes > 0 && (out->c != g->num_classes || out->h != 1 || out->w != 1))
        return i8_fail(err, INFER8_E_SHAPE, "%s: output node '%s' is %dx%dx%d, expected %dx1x1 logits", g->arch, out->name,
                       out->c, out->h, out->w, g->num_classes);
    return INFER8_OK;
}

/* ---- statistics ---- */

static uint64_t weight_elems(const i8_weight *w) {
    uint64_t e = 1;
    for (int i = 0; i < w->ndim && i < 4; i++) e *= (uint64_t)(w->shape[i] > 0 ? w->shape[i] : 0);
    return e;
}

uint64_t i8_node_macs(const i8_graph *g, const i8_node *n) {
    if (n->n_inputs < 1 || n->inputs[0] < 0 || n->inputs[0] >= g->n_nodes) return 0;
    const i8_node *in = &g->nodes[n->inputs[0]];
    if (n->op == I8_OP_CONV)
        return (uint64_t)n->c * (uint64_t)n->h * (uint64_t)n->w * (uint64_t)in->c * (uint64_t)n->kh * (uint64_t)n->kw;
    if (n->op == I8_OP_LINEAR) return (uint64_t)n->c * (uint64_t)in->c * (uint64_t)in->h * (uint64_t)in->w;
    return 0;
}

void i8_graph_compute_stats(const i8_graph *g, i8_graph_stats *s) {
    memset(s, 0, sizeof *s);
    for (int i = 0; i < g->n_nodes; i++) {
        const i8_node *n = &g->nodes[i];
        if ((int)n->op >= 0 && n->op < I8_OP_COUNT) s->count_per_op[n->op]++;
        if (n->op == I8_OP_CONV) s->convolutions++;
        s->macs += i8_node_macs(g, n);
        uint64_t act = (uint64_t)(n->c > 0 ? n->c : 0) * (uint64_t)(n->h > 0 ? n->h : 0) * (uint64_t)(n->w > 0 ? n->w : 0);
        if (act > s->max_activation_elems) s->max_activation_elems = act;
    }
    /* running statistics are buffers, not parameters: find the weights nodes use that way */
    for (int wi = 0; wi < g->n_weights; wi++) {
        int stat = 0;
        for (int i = 0; i < g->n_nodes && !stat; i++) {
            const i8_node *n = &g->nodes[i];
            stat = n->op == I8_OP_BATCHNORM && (n->bn_mean == wi || n->bn_var == wi);
        }
        if (!stat) s->parameters += weight_elems(&g->weights[wi]);
    }
}

infer8_status i8_graph_critical_path(const i8_graph *g, const double *cost, double slack, unsigned char *on_path,
                                     int *count, double *longest_out, i8_err *err) {
    const int n = g->n_nodes;
    /* head[i]: the longest chain ending with i; tail[i]: the longest starting with it */
    double *head = i8_calloc((size_t)(n ? n : 1) * 2, sizeof(double), err), longest = 0.0;
    if (!head) return INFER8_E_NOMEM;
    double *tail = head + n;
    for (int i = 0; i < n; i++) { /* inputs come before their readers (i8_graph_validate) */
        const i8_node *nd = &g->nodes[i];
        for (int k = 0; k < nd->n_inputs; k++)
            if (head[nd->inputs[k]] > head[i]) head[i] = head[nd->inputs[k]];
        head[i] += cost[i];
        tail[i] = cost[i];
    }
    for (int i = n - 1; i >= 0; i--) {
        const i8_node *nd = &g->nodes[i];
        for (int k = 0; k < nd->n_inputs; k++) {
            const int p = nd->inputs[k];
            if (cost[p] + tail[i] > tail[p]) tail[p] = cost[p] + tail[i];
        }
    }
    for (int i = 0; i < n; i++)
        if (head[i] + tail[i] - cost[i] > longest) longest = head[i] + tail[i] - cost[i];
    *count = 0;
    for (int i = 0; i < n; i++) *count += on_path[i] = head[i] + tail[i] - cost[i] >= longest - slack;
    if (longest_out) *longest_out = longest;
    free(head);
    return INFER8_OK;
}
