/* Reference CPU operators: one short free function per graph op, over raw float pointers.
 *
 * Activations are NHWC: x[n][h][w][c]. These functions are the oracle that every faster
 * backend is checked against, so they favour an obvious, fixed order of arithmetic:
 * - every output value is computed by exactly one thread, in an order that does not depend on
 *   the thread count, the batch size or the tiling (bit-identical results for any OpenMP
 *   thread count; a batch of n equals n batches of 1 bit for bit);
 * - conv and linear sum their products in float (or double for the *_f64 variants) in the
 *   order (ky, kx, ic) / (i), then add the bias, then apply the epilogue;
 * - the file is compiled with -ffp-contract=off and without -ffast-math.
 * Callers (ref_executor.c) check shapes; these functions trust them. Outputs never alias
 * inputs. No allocation, no failure paths.
 *
 * Also declares two introspection helpers of the reference executor (used by its tests). */
#ifndef I8_REF_OPS_H
#define I8_REF_OPS_H

#include <stddef.h>

#include "graph/graph.h"

/* Output channels per conv tile (a "channel block"). Conv weights are stored per block with
 * the output dimension padded to a multiple of this (zeros), so every tile computes a full
 * vector of channels and reads its weights contiguously. */
#define I8_REF_CONV_OC_BLOCK 8

/* Shape of a 2-D convolution (also used for pools: in_c == out_c there). */
typedef struct i8_ref_conv_shape {
    int n;                 /* batch */
    int in_h, in_w, in_c;
    int out_h, out_w, out_c;
    int kh, kw, sh, sw, ph, pw;
} i8_ref_conv_shape;

/* Output channels rounded up to I8_REF_CONV_OC_BLOCK. */
int i8_ref_conv_out_padded(int out_c);

/* Re-lays PyTorch conv weights w[out_c][in_c][kh][kw] (OIHW) into channel blocks
 * dst[out_padded / B][kh][kw][in_c][B] (B = I8_REF_CONV_OC_BLOCK, out_padded =
 * i8_ref_conv_out_padded(out_c)): dst[o / B][ky][kx][i][o % B] = w[o][i][ky][kx], padding
 * channels set to 0. dst is caller owned, kh*kw*in_c*out_padded floats. */
void i8_ref_conv_relayout(const float *w_oihw, int out_c, int in_c, int kh, int kw, float *dst);

/* 2-D convolution with fused epilogue, float accumulation:
 *   y[n][oy][ox][o] = act(r + res_scale * (sum_{ky,kx,i} x[n][iy][ix][i] * w[ky][kx][i][o] + bias[o]))
 * with iy = oy*sh - ph + ky, ix = ox*sw - pw + kx (taps outside the input are skipped = zero
 * padding), r = res[n][oy][ox][o] when res is given, else the epilogue is act(sum + bias[o]).
 * x: [n][in_h][in_w][in_c]; w: i8_ref_conv_relayout output; bias: [out_c] or NULL;
 * res: [n][out_h][out_w][out_c] or NULL; y: [n][out_h][out_w][out_c]. Parallel (OpenMP) over
 * output rows and channel blocks. */
void i8_ref_conv2d(const i8_ref_conv_shape *s, const float *x, const float *w, const float *bias,
                   const float *res, float res_scale, i8_act act, float *y);
/* Same contract, products summed in double; bias added in double, rounded to float once,
 * then the epilogue in float. */
void i8_ref_conv2d_f64(const i8_ref_conv_shape *s, const float *x, const float *w, const float *bias,
                       const float *res, float res_scale, i8_act act, float *y);

/* Inference batch norm over the channel axis of x[count][c] (count = n*h*w pixels):
 *   inv = 1 / sqrtf(var[c] + eps) (float);  y = (x - mean[c]) * inv * gamma[c] + beta[c]. */
void i8_ref_batchnorm(size_t count, int c, const float *x, const float *gamma, const float *beta,
                      const float *mean, const float *var, float eps, float *y);

/* y[i] = max(x[i], 0) for i < count (NaN propagates, as torch.relu). y may equal x. */
void i8_ref_relu(size_t count, const float *x, float *y);

/* Max pool, floor rounding; padded positions are never candidates (as PyTorch's -inf pad).
 * x: [n][in_h][in_w][c]; y: [n][out_h][out_w][c] (c = s->in_c = s->out_c). */
void i8_ref_maxpool(const i8_ref_conv_shape *s, const float *x, float *y);

/* Average pool as PyTorch: sum of the in-bounds taps in float (ky, kx order) divided by the
 * window size counted up to the padded border (count_include_pad = 1) or by the number of
 * in-bounds taps (count_include_pad = 0); then, for a pool moved below its 1x1 conv
 * (i8_pass_sink_avgpool), + bias[c] (NULL: none) and the act. Shapes as i8_ref_maxpool. */
void i8_ref_avgpool(const i8_ref_conv_shape *s, int count_include_pad, const float *x, const float *bias, i8_act act,
                    float *y);

/* Concatenation along channels: input k, xs[k] of shape [pixels][cs[k]], is copied into
 * channels [off_k, off_k + cs[k]) of y[pixels][sum cs] (off_k = sum of earlier cs). */
void i8_ref_concat(size_t pixels, int n_inputs, const float *const *xs, const int *cs, float *y);

/* Scaled residual add: y[i] = act(a[i] + scale * b[i]) for i < count. */
void i8_ref_residual(size_t count, const float *a, const float *b, float scale, i8_act act, float *y);

/* Global average pool: x[n][hw][c] -> y[n][c]; per channel the hw values are summed in double
 * in pixel order, divided by hw in double and rounded to float once (more accurate than
 * PyTorch's float mean, and independent of any blocking). */
void i8_ref_global_avgpool(int n, int hw, int c, const float *x, float *y);

/* Fully connected: y[b][o] = sum_i x[b][i] * w[o][i] + bias[o] (bias may be NULL);
 * x: [n][in]; w: [out][in] (PyTorch layout); y: [n][out]. Products summed in float in i order,
 * then the bias added; the _f64 variant sums and adds the bias in double, rounding once. */
void i8_ref_linear(int n, int in, int out, const float *x, const float *w, const float *bias, float *y);
void i8_ref_linear_f64(int n, int in, int out, const float *x, const float *w, const float *bias, float *y);

/* NCHW <-> NHWC for the executor's input and output. */
void i8_ref_nchw_to_nhwc(int n, int c, int h, int w, const float *x, float *y);
void i8_ref_nhwc_to_nchw(int n, int c, int h, int w, const float *x, float *y);

/* ---- reference executor introspection (ref_executor.c), for tests ---- */

/* Activation memory planned by prepare for a context of i8_backend_cpu_reference:
 * *buffers distinct buffers, *arena_floats floats in total (for max_batch images), and
 * *naive_floats the floats one buffer per node would have needed. */
void i8_ref_executor_memory(const void *ctx, int *buffers, size_t *arena_floats, size_t *naive_floats);

#endif
