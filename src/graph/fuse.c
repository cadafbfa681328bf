/* Pass: fuse epilogues into convolutions.
 *   conv -> relu (the relu is the conv's only reader)        => conv.act = RELU
 *   residual(x, conv) with conv 1x1 + bias, read only there  => conv.residual = x,
 *       conv.inputs[1] = x, out = act(x + scale * (conv + bias)), act = the residual's act
 * Fused nodes are removed, their readers rewired to the conv, the graph compacted. */
#include "graph/graph.h"

#include <stdlib.h>

/* Replaces every later reference to node `from` by `to`. */
static void rewire(i8_graph *g, int from, int to) {
    for (int j = from + 1; j < g->n_nodes; j++) {
        i8_node *u = &g->nodes[j];
        for (int k = 0; k < u->n_inputs; k++)
            if (u->inputs[k] == from) u->inputs[k] = to;
        if (u->residual == from) u->residual = to;
    }
    if (g->output == from) g->output = to;
}

infer8_status i8_pass_fuse(i8_graph *g, i8_err *err) {
    infer8_status st = i8_graph_validate(g, err);
    if (st != INFER8_OK) return i8_err_prefix(err, "fuse: input graph");
    int *uses = NULL;
    if ((st = i8_graph_count_uses(g, &uses, err)) != INFER8_OK) return st;

    for (int i = 0; i < g->n_nodes; i++) {
        i8_node *n = &g->nodes[i];
        if (n->op == I8_OP_RELU) {
            int c = n->inputs[0];
            i8_node *conv = &g->nodes[c];
            if (conv->op != I8_OP_CONV || uses[c] != 1 || conv->act != I8_ACT_NONE) continue;
            conv->act = I8_ACT_RELU;
        } else if (n->op == I8_OP_RESIDUAL) {
            int x = n->inputs[0], c = n->inputs[1];
            i8_node *conv = &g->nodes[c];
            if (conv->op != I8_OP_CONV || uses[c] != 1 || conv->act != I8_ACT_NONE || conv->residual >= 0 ||
                conv->bias < 0 || conv->kh != 1 || conv->kw != 1 || x >= c)
                continue;
            conv->residual = x;
            conv->inputs[1] = x;
            conv->n_inputs = 2;
            conv->residual_scale = n->residual_scale;
            conv->act = n->act;
        } else {
            continue;
        }
        /* node i is absorbed by its conv: readers of i read the conv */
        int c = n->op == I8_OP_RELU ? n->inputs[0] : n->inputs[1];
        uses[c] = uses[i];
        n->op = I8_OP_COUNT;
        rewire(g, i, c);
    }
    free(uses);
    if ((st = i8_graph_compact(g, err)) != INFER8_OK) return st;
    if ((st = i8_graph_validate(g, err)) != INFER8_OK) return i8_err_prefix(err, "fuse: result");
    return INFER8_OK;
}
