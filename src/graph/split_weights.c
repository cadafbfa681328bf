/* i8_pass_split_weights (graph.h): a selected conv y = act(conv(x, W) + b) becomes
 *   lo:  t = conv(x, W - hi)                 (no bias, no act; named "<name>.lo")
 *   hi:  y = act(t + 1 * (conv(x, hi) + b))  (the original node, t as its fused residual)
 * with hi = W rounded to binary16. hi is exact in fp16 and W - hi is exact in float, so hi + lo
 * is W in float, and an fp16 engine that rounds lo too keeps about 22 bits of every weight
 * instead of 11. Why: random (synth) weights amplify fp16 weight rounding in the first layers
 * beyond issue 4's parity limits (docs/performance.md, session 19); the split trades one more
 * conv per selected layer for that precision. t is ~2^-11 of y, so its own fp16 rounding is
 * below y's. */
#include <stdlib.h>
#include <string.h>

#include "graph/graph.h"

infer8_status i8_pass_split_weights(i8_graph *g, const uint8_t *select, int *n_split, i8_err *err) {
    int count = 0;
    for (int k = 0; k < g->n_nodes; k++) {
        if (!select[k]) continue;
        const i8_node *nd = &g->nodes[k];
        if (nd->op != I8_OP_CONV)
            return i8_fail(err, INFER8_E_INVALID_ARGUMENT, "split weights: node '%s' is a %s, not a convolution",
                           nd->name, i8_op_name(nd->op));
        if (nd->precision == I8_PREC_FP8)
            return i8_fail(err, INFER8_E_INVALID_ARGUMENT, "split weights: conv '%s' runs FP8 (e4m3 weights)", nd->name);
        if (nd->residual >= 0)
            return i8_fail(err, INFER8_E_INVALID_ARGUMENT,
                           "split weights: conv '%s' already has a fused residual (its epilogue adds x)", nd->name);
        if (strlen(nd->name) + 3 >= I8_NAME_MAX)
            return i8_fail(err, INFER8_E_INVALID_ARGUMENT, "split weights: conv name '%s' too long for '.lo'", nd->name);
        count++;
    }
    *n_split = count;
    if (!count) return INFER8_OK;

    const int n_old = g->n_nodes, n_new = n_old + count;
    i8_node *nodes = i8_calloc((size_t)n_new, sizeof *nodes, err);
    int *map = i8_calloc((size_t)n_old, sizeof *map, err);
    if (!nodes || !map) {
        free(nodes);
        free(map);
        return INFER8_E_NOMEM;
    }
    infer8_status st = INFER8_OK;
    int j = 0;
    for (int k = 0; k < n_old; k++) {
        i8_node nd = g->nodes[k];
        for (int i = 0; i < nd.n_inputs; i++) nd.inputs[i] = map[nd.inputs[i]];
        if (nd.residual >= 0) nd.residual = map[nd.residual];
        if (select[k]) {
            const i8_weight *w = &g->weights[nd.weight];
            size_t n = 1;
            for (int d = 0; d < w->ndim; d++) n *= (size_t)w->shape[d];
            float *lo = malloc(n * sizeof *lo);
            if (!lo) {
                st = i8_fail(err, INFER8_E_NOMEM, "split weights: out of memory (%s)", nd.name);
                break;
            }
            for (size_t e = 0; e < n; e++) {
                const float hi = i8_f16_round(w->data[e]);
                lo[e] = w->data[e] - hi; /* exact: W and hi share their leading bits */
                w->data[e] = hi;
            }
            char name[sizeof w->name];
            snprintf(name, sizeof name, "%.*s.lo", (int)sizeof w->name - 4, w->name);
            int lo_w = -1;
            int64_t shape[4];
            memcpy(shape, w->shape, sizeof shape);
            if ((st = i8_graph_add_weight(g, name, w->ndim, shape, lo, &lo_w, err))) break; /* w may move */
            i8_node low = nd;
            snprintf(low.name, sizeof low.name, "%s.lo", nd.name);
            low.weight = lo_w;
            low.bias = -1;
            low.act = I8_ACT_NONE;
            low.n_inputs = 1;
            low.residual = -1;
            low.residual_scale = 1.0f;
            low.out_scale = 0.0f;
            low.weight_scales = -1;
            low.residual_fp8 = 0;
            nodes[j] = low;
            nd.residual = j++;
            nd.inputs[1] = nd.residual;
            nd.n_inputs = 2;
            nd.residual_scale = 1.0f;
        }
        map[k] = j;
        nodes[j++] = nd;
    }
    if (st) {
        free(nodes);
        free(map);
        return st;
    }
    g->output = g->output >= 0 ? map[g->output] : -1;
    free(g->nodes);
    free(map);
    g->nodes = nodes;
    g->n_nodes = g->cap_nodes = n_new;
    if ((st = i8_graph_validate(g, err)) != INFER8_OK) return i8_err_prefix(err, "split weights: result");
    return INFER8_OK;
}

int i8_node_is_split(const i8_graph *g, int k) {
    const i8_node *nd = &g->nodes[k];
    if (nd->op != I8_OP_CONV || nd->residual < 0) return 0;
    const i8_node *lo = &g->nodes[nd->residual];
    const size_t n = strlen(nd->name);
    return lo->op == I8_OP_CONV && !strncmp(lo->name, nd->name, n) && !strcmp(lo->name + n, ".lo");
}
