/* i8_pass_optimize (graph.h): the passes every loaded checkpoint goes through, in order. */
#include <stdlib.h>
#include <string.h>

#include "graph/graph.h"

infer8_status i8_pass_optimize(i8_graph *g, int *n_sunk, i8_err *err) {
    int sunk = 0;
    infer8_status st = i8_pass_fold_batchnorm(g, err);
    if (!st) st = i8_pass_fuse(g, err);
    /* INFER8_SINK_AVGPOOL=0 keeps the pools where timm has them: an experiment switch, for timing
     * the pass against its absence (docs/performance.md, session 68) */
    const char *sink = getenv("INFER8_SINK_AVGPOOL");
    if (!st && !(sink && !strcmp(sink, "0"))) st = i8_pass_sink_avgpool(g, &sunk, err);
    if (n_sunk) *n_sunk = sunk;
    return st;
}
