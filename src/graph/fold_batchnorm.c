/* Pass: fold inference batchnorm into the convolution before it.
 *   y = (conv(x) + b - mean) * gamma / sqrt(var + eps) + beta
 *     = conv'(x) + b'  with  w'[o] = w[o] * f[o],  b'[o] = beta[o] + (b[o] - mean[o]) * f[o],
 *   f[o] = gamma[o] / sqrt(var[o] + eps), computed in double, stored as float.
 * Only a batchnorm whose input is a plain conv used by nothing else is folded (otherwise the
 * conv's other users would see the rescaled output). */
#include "graph/graph.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Number of nodes reading each node's output (the graph output counts as one reader). */
infer8_status i8_graph_count_uses(const i8_graph *g, int **uses_out, i8_err *err) {
    int *uses = i8_calloc((size_t)(g->n_nodes ? g->n_nodes : 1), sizeof(int), err);
    if (!uses) return INFER8_E_NOMEM;
    for (int i = 0; i < g->n_nodes; i++) {
        const i8_node *n = &g->nodes[i];
        for (int k = 0; k < n->n_inputs && k < I8_MAX_INPUTS; k++)
            if (n->inputs[k] >= 0 && n->inputs[k] < g->n_nodes) uses[n->inputs[k]]++;
    }
    if (g->output >= 0 && g->output < g->n_nodes) uses[g->output]++;
    *uses_out = uses;
    return INFER8_OK;
}

static int weight_refs(const i8_graph *g, int wi) {
    int r = 0;
    for (int i = 0; i < g->n_nodes; i++) {
        const i8_node *n = &g->nodes[i];
        if (n->op == I8_OP_COUNT) continue;
        r += (n->weight == wi) + (n->bias == wi) + (n->bn_gamma == wi) + (n->bn_beta == wi) + (n->bn_mean == wi) +
             (n->bn_var == wi);
    }
    return r;
}

/* The conv feeding batchnorm node i if it can be folded, else -1. */
static int foldable(const i8_graph *g, const int *uses, int i) {
    const i8_node *bn = &g->nodes[i];
    if (bn->op != I8_OP_BATCHNORM || bn->n_inputs != 1) return -1;
    int c = bn->inputs[0];
    const i8_node *conv = &g->nodes[c];
    if (conv->op != I8_OP_CONV || uses[c] != 1 || conv->act != I8_ACT_NONE || conv->residual >= 0) return -1;
    if (weight_refs(g, conv->weight) != 1 || (conv->bias >= 0 && weight_refs(g, conv->bias) != 1)) return -1;
    return c;
}

infer8_status i8_pass_fold_batchnorm(i8_graph *g, i8_err *err) {
    infer8_status st = i8_graph_validate(g, err);
    if (st != INFER8_OK) return i8_err_prefix(err, "fold_batchnorm: input graph");
    int *uses = NULL;
    if ((st = i8_graph_count_uses(g, &uses, err)) != INFER8_OK) return st;

    /* check every variance first so a bad checkpoint leaves the graph untouched */
    for (int i = 0; i < g->n_nodes; i++) {
        const i8_node *bn = &g->nodes[i];
        if (foldable(g, uses, i) < 0) continue;
        const i8_weight *var = &g->weights[bn->bn_var];
        for (int o = 0; o < bn->c; o++) {
            double v = (double)var->data[o] + (double)bn->bn_eps;
            if (!(v > 0.0) || !isfinite(v)) {
                free(uses);
                return i8_fail(err, INFER8_E_FORMAT, "%s: %s[%d] = %g: batchnorm variance + eps must be positive",
                               g->arch, var->name, o, (double)var->data[o]);
            }
        }
    }

    for (int i = 0; i < g->n_nodes; i++) {
        int c = foldable(g, uses, i);
        if (c < 0) continue;
        i8_node *bn = &g->nodes[i];
        int out_c = bn->c;
        float *bias = i8_malloc((size_t)out_c * sizeof(float), err);
        if (!bias) {
            free(uses);
            return INFER8_E_NOMEM;
        }
        i8_node *conv = &g->nodes[c];
        const float *gamma = g->weights[bn->bn_gamma].data, *beta = g->weights[bn->bn_beta].data;
        const float *mean = g->weights[bn->bn_mean].data, *var = g->weights[bn->bn_var].data;
        const float *old_bias = conv->bias >= 0 ? g->weights[conv->bias].data : NULL;
        i8_weight *w = &g->weights[conv->weight];
        size_t per_out = (size_t)w->shape[1] * (size_t)w->shape[2] * (size_t)w->shape[3];
        for (int o = 0; o < out_c; o++) {
            double f = (double)gamma[o] / sqrt((double)var[o] + (double)bn->bn_eps);
            float *wo = w->data + (size_t)o * per_out;
            for (size_t k = 0; k < per_out; k++) wo[k] = (float)((double)wo[k] * f);
            double b0 = old_bias ? (double)old_bias[o] : 0.0;
            bias[o] = (float)((double)beta[o] + (b0 - (double)mean[o]) * f);
        }
        /* the conv's weight now holds folded values: say so in its name */
        size_t len = strlen(w->name);
        if (len + 9 < sizeof w->name) memcpy(w->name + len, "(folded)", 9);
        char bname[I8_NAME_MAX + 32];
        snprintf(bname, sizeof bname, "%s.bias(folded)", conv->name);
        int64_t shape[1] = {out_c};
        int bi;
        /* may move g->weights; conv/bn pointers into g->nodes stay valid */
        if ((st = i8_graph_add_weight(g, bname, 1, shape, bias, &bi, err)) != INFER8_OK) {
            free(uses);
            return st;
        }
        conv->bias = bi;
        bn->op = I8_OP_COUNT;
        /* users of the batchnorm read the conv from now on */
        uses[c] = uses[i];
        for (int j = i + 1; j < g->n_nodes; j++) {
            i8_node *u = &g->nodes[j];
            for (int k = 0; k < u->n_inputs; k++)
                if (u->inputs[k] == i) u->inputs[k] = c;
            if (u->residual == i) u->residual = c;
        }
        if (g->output == i) g->output = c;
    }
    free(uses);
    if ((st = i8_graph_compact(g, err)) != INFER8_OK) return st;
    if ((st = i8_graph_validate(g, err)) != INFER8_OK) return i8_err_prefix(err, "fold_batchnorm: result");
    return INFER8_OK;
}
