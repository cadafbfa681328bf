/* i8_pass_sink_avgpool (graph.h): an average pool read only by a 1x1 stride-1 conv,
 *   p: t = avgpool(x)                 c: y = act(conv1x1(t, W) + b)
 * becomes the conv first, on x, and the pool on its output:
 *   c: u = conv1x1(x, W)              p: y = act(avgpool(u) + b)
 * Exact in real arithmetic: a 1x1 conv without bias is linear per pixel, so it commutes with any
 * average of pixels, and a zero-padded tap of x is a zero tap of u, so both count_include_pad
 * modes agree. The bias waits for after the pool because with count_include_pad a border window
 * divides by more taps than it sums (avg(u + b) != avg(u) + b there).
 * Why: Inception's pool branches (every v3 and v4 block, IRv2's mixed_5b) pool the block input,
 * 4-8x wider than the conv's output; pooling after the conv moves that many fewer bytes. The
 * pools took 0.33 of inception_v4's 2.55 ms and 0.16 of inception_v3's 1.45 ms of isolated FP8
 * nodes at batch 32 on an H100 (docs/performance.md, session 67).
 *
 * The two nodes swap places in the node list (the conv takes the pool's index, the pool the
 * conv's), so the topological order holds and the conv's readers, which held the conv's index,
 * now read the pool. Names stay with their operations. */
#include "graph/graph.h"

#include <stdlib.h>

static int sinkable(const i8_graph *g, const int *uses, int p) {
    const i8_node *pool = &g->nodes[p];
    if (pool->op != I8_OP_AVGPOOL || pool->bias >= 0 || pool->act != I8_ACT_NONE || uses[p] != 1 || g->output == p ||
        pool->out_scale != 0.0f)
        return -1;
    for (int c = p + 1; c < g->n_nodes; c++) {
        const i8_node *conv = &g->nodes[c];
        int reads = 0;
        for (int k = 0; k < conv->n_inputs; k++) reads += conv->inputs[k] == p;
        if (!reads) continue;
        /* the only reader: a plain 1x1 conv still in float (an FP8 conv's input scale is the pool's) */
        if (conv->op != I8_OP_CONV || conv->n_inputs != 1 || conv->residual >= 0 || conv->kh != 1 || conv->kw != 1 ||
            conv->sh != 1 || conv->sw != 1 || conv->ph || conv->pw || conv->precision == I8_PREC_FP8)
            return -1;
        return c;
    }
    return -1;
}

infer8_status i8_pass_sink_avgpool(i8_graph *g, int *n_sunk, i8_err *err) {
    *n_sunk = 0;
    infer8_status st = i8_graph_validate(g, err);
    if (st != INFER8_OK) return i8_err_prefix(err, "sink avgpool: input graph");
    int *uses = NULL;
    if ((st = i8_graph_count_uses(g, &uses, err)) != INFER8_OK) return st;
    for (int p = 0; p < g->n_nodes; p++) {
        const int c = sinkable(g, uses, p);
        if (c < 0) continue;
        const i8_node pool = g->nodes[p], conv = g->nodes[c], *x = &g->nodes[pool.inputs[0]];
        i8_node first = conv, second = pool;
        first.inputs[0] = pool.inputs[0];
        first.h = x->h, first.w = x->w;
        first.bias = -1, first.act = I8_ACT_NONE;
        second.inputs[0] = p; /* the conv, now at the pool's index */
        second.c = conv.c;
        second.bias = conv.bias, second.act = conv.act;
        second.block = conv.block;
        g->nodes[p] = first;
        g->nodes[c] = second;
        /* uses: the conv (index p) is read once, by the pool; the pool (index c) as the conv was */
        uses[p] = 1;
        (*n_sunk)++;
    }
    free(uses);
    if ((st = i8_graph_validate(g, err)) != INFER8_OK) return i8_err_prefix(err, "sink avgpool: result");
    return INFER8_OK;
}
