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

#endif
