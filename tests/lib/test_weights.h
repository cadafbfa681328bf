/* Shared by the unit tests and test tools that build whole families from random weights and
 * feed them generated images. */
#ifndef I8_TEST_WEIGHTS_H
#define I8_TEST_WEIGHTS_H

#include <stdint.h>

#include "core/i8.h"

/* i8_weight_source.get of deterministic random weights: values depend on the key only (FNV-1a
 * hash seeds the rng). He-normal conv weights, batchnorm identity (gamma 1, beta 0, mean 0,
 * var 1), small biases, linear std 1/sqrt(in): activations stay O(1) through IRv2's scaled
 * residual blocks. ctx is unused. */
infer8_status i8_test_random_weight(void *ctx, const char *key, int ndim, const int64_t *shape, float **data,
                                    i8_err *err);

/* n generated images (i8_image_generate seeds seed0.., 320/336/352 x 300 pixels) preprocessed
 * as timm's inception transform does (299x299, crop 0.875, bicubic, mean = std = 0.5): float32
 * NCHW [n][3][299][299] (malloc'd; free it), or NULL with *err set. */
float *i8_test_generated_inputs(int n, uint64_t seed0, i8_err *err);

struct i8_graph;
/* The graph the backends run for MODEL (batch norm folded, layers fused): "random:<arch>" builds
 * the family's graph on i8_test_random_weight at its default size, anything else is opened as a
 * checkpoint (snapshot folder or .safetensors). For the test tools. */
infer8_status i8_test_model_graph(const char *model, struct i8_graph *g, i8_err *err);

#endif
