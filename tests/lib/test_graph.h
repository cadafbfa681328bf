/* Small hand-built graphs for the backend unit tests (cmocka: a failed step fails the test).
 * Weights are normal with the given std from the graph's own rng, so a seed fixes the graph. */
#ifndef I8_TEST_GRAPH_H
#define I8_TEST_GRAPH_H

#include <stdint.h>

#include "graph/graph.h"

typedef struct tg {
    i8_graph g;
    i8_rng rng;
    i8_err err;
} tg;

/* An empty graph with a c x h x w input; the rng seeded with seed. */
void tg_init(tg *t, int c, int h, int w, uint64_t seed);
/* A weight of ndim dims (a, b, c, d), values std * N(0, 1); returns its index. */
int tg_weight(tg *t, const char *name, int ndim, int64_t a, int64_t b, int64_t c, int64_t d, double std);
/* Adds a node; returns its index. */
int tg_add(tg *t, i8_node *nd);
/* Conv of input node in (He-normal weights, optional bias of std 0.1) with act; residual x >= 0
 * makes it a fused residual conv out = act(x + scale * (conv + bias)). */
int tg_conv(tg *t, const char *name, int in, int oc, int kh, int kw, int sh, int sw, int ph, int pw, int bias, i8_act act,
            int x, float scale);
/* Max or average pool (include_pad: average counts the zero padding). */
int tg_pool(tg *t, const char *name, i8_op op, int in, int k, int s, int p, int include_pad);
/* Concat of count nodes along channels. */
int tg_concat(tg *t, const char *name, int count, const int *ins);
/* Global average pool then a linear layer of `classes` outputs. */
int tg_head(tg *t, int in, int classes);
/* Sets the output and validates; per-op graphs may end on a feature map (the validator's
 * [classes]x1x1 logits rule is waived there, the executors do not need it). */
void tg_finish(tg *t, int output);

/* Per-op cases of the backend tests (each initialises t; same graphs, seeds and weights in every
 * backend's test, each compared with the reference executor):
 *   stem            3x19x17 input: 3x3/2 conv + relu, then a 3x3 conv without bias;
 *   spatial         5x5 (c5x5_out channels), 1x7, 7x1, 3x3/2;
 *   pool k (0..15)  a conv then max pool (stride 2), average pool excluding padding (stride 1)
 *                   or including it (stride 2) over 12 or 16 channels, and the Inception blocks'
 *                   stride-1 average pools over 16 channels (excluding and including padding),
 *                   without and with the bias and relu i8_pass_sink_avgpool gives them (12
 *                   channels excluding padding, the GPU's scalar kernel; 16 including it), on
 *                   17x17 (k < 8) or 16x15 inputs;
 *   concat          Inception-style block: branches written into their concat slices, the input
 *                   read by two concat positions (copied), a nested concat and a pool branch;
 *   fused_residual  fused residual convs (relu and none) in place and copied, chained as IRv2
 *                   repeats them, then a head;
 *   unfused         conv -> batchnorm -> relu and a residual node, as families build them
 *                   before the passes. */
#define TG_POOL_CASES 16
void tg_case_stem(tg *t);
void tg_case_spatial(tg *t, int c5x5_out);
void tg_case_pool(tg *t, int k);
void tg_case_concat(tg *t);
void tg_case_fused_residual(tg *t);
void tg_case_unfused(tg *t);
/* All of them by index 0..tg_case_count()-1 (stem, spatial, concat, fused_residual, unfused,
 * then the pools); returns the case's name. */
int tg_case_count(void);
const char *tg_case_build(tg *t, int i, int c5x5_out);

/* FP8 quantization of a test graph, as i8_quantize_graph_fp8 does it (tests of the FP8 executors):
 *   tg_calibrate_amax  the amax of every tensor over `images` float32 NCHW inputs (batches of up
 *                      to 4) on the reference executor; malloc'ed, one per node;
 *   tg_make_fp8        conv node k FP8: per-channel weight scales amax/448, weights replaced by
 *                      e4m3 * scale, out_scale = amax/448 of the tensors it reads as FP8 (its
 *                      input, and its residual x when residual_fp8);
 *   tg_quantize_case   draws 14 random inputs (returned, malloc'ed), calibrates on the first 8,
 *                      makes the `count` nodes fp8[k] FP8 (rfp8[k]: residual_fp8; rfp8 may be
 *                      NULL) and rounds the other convs' weights to binary16. */
float *tg_calibrate_amax(i8_graph *g, const float *in, int images);
void tg_make_fp8(tg *t, int k, const float *amax, int residual_fp8);
float *tg_quantize_case(tg *t, const int *fp8, const int *rfp8, int count);

#endif
