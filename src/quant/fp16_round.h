/* Adaptive rounding of conv weights to binary16 (--adaptive-rounding): instead of rounding each
 * weight to its nearest fp16 value, a conv's weights are rounded one input position at a time
 * and each rounding error is compensated on the weights not yet rounded, weighted by the
 * correlations of the conv's inputs (GPTQ, Frantar et al. 2022, with binary16 as the grid). The
 * inputs' second moments H = sum over patches of p p^T come from calibration images. The result
 * minimises the output error sum over patches of |(W' - W) p|^2 far better than rounding to
 * nearest when the inputs are correlated (neighbouring pixels, ReLU outputs with a mean), at no
 * cost at run time: the weights are ordinary fp16 values. Each weight stays within max_ulps fp16
 * ulps of its own value, so calibration images unlike the deployed ones cannot move it far. */
#ifndef I8_QUANT_FP16_ROUND_H
#define I8_QUANT_FP16_ROUND_H

#include "core/i8.h"

/* The geometry of one conv's input patches: input [n][h][w][c] (NHWC float), kernel kh x kw,
 * stride, symmetric zero padding, output ho x wo. Patch element order is (c, i, j), the
 * order of an OIHW kernel's row, so K = c * kh * kw. */
typedef struct i8_patch_shape {
    int c, h, w, kh, kw, sh, sw, ph, pw, ho, wo;
} i8_patch_shape;

/* H[a][b] += sum over every output position of n images of p[a] * p[b], where p is the
 * position's input patch (zeros where it overlaps the padding); H is K x K, row-major, both
 * triangles updated. Errors: INFER8_E_NOMEM, INFER8_E_INVALID_ARGUMENT for a bad shape. */
infer8_status i8_patch_gram_add(const i8_patch_shape *s, int n, const float *x, double *H, i8_err *err);

/* The output error a set of weights Q makes against W on inputs with second moments H:
 * sum over rows o of (Q[o] - W[o]) H (Q[o] - W[o])^T, for W and Q [O][K]. */
double i8_weight_error(const float *W, const float *Q, int O, int K, const double *H);

typedef struct i8_fp16_round_report {
    double error_nearest;  /* i8_weight_error of round-to-nearest fp16 */
    double error_adaptive; /* i8_weight_error of the result */
    double damp;           /* the damping added to H's diagonal, relative to its mean */
    int dead_inputs;       /* patch positions that were always 0 (rounded to nearest) */
    int moved;             /* weights whose result differs from round-to-nearest */
} i8_fp16_round_report;

/* Rounds W [O][K] (float, in place) to binary16 values by error feedback on H (K x K, as
 * i8_patch_gram_add leaves it; not changed): every W[o][k] ends as an fp16 value within
 * max_ulps + 1/2 fp16 ulps of its input value w, the ulp being the spacing of fp16 values at
 * w's binade (2^(max(floor(log2 |w|), -14) - 10)). H gets a diagonal damping of 1% of its mean
 * diagonal (raised tenfold while the Cholesky factorisation fails, up to 100%), the usual
 * regularisation of GPTQ. Values beyond fp16's range are refused. report may be NULL.
 * Errors: INFER8_E_NOMEM; INFER8_E_INVALID_ARGUMENT (bad sizes, max_ulps < 0, a weight beyond
 * +-65504 or not finite, H not positive definite even damped); W is unchanged on error. */
infer8_status i8_fp16_round_adaptive(float *W, int O, int K, const double *H, int max_ulps,
                                     i8_fp16_round_report *report, i8_err *err);

#endif
