/* Reference CPU operators (see ref_ops.h): plain C11 loops over NHWC float tensors.
 *
 * Only conv2d is tuned, because it is ~99% of the work: an output tile of PIX pixels of one
 * row x OCB channels (one channel block) is accumulated in registers, so each weight row
 * w[blk][ky][kx][ic][0..OCB) loaded is reused PIX times, and the innermost operation is an
 * OCB-wide vector multiply-add over contiguous output channels. The tiling only changes which
 * outputs are computed together, never the order of the sum for one output, so results are
 * identical whatever the tiling, thread count or batch size (and -ffp-contract=off keeps
 * multiply and add separate, so SSE, AVX and scalar code give the same bits). ~10 GMAC/s per
 * core: a 299x299 inception_resnet_v2 forward takes ~1.4 s on one core. */
#include "backends/cpu/ref_ops.h"

#include <math.h>
#include <string.h>

#define PIX 4                       /* output pixels per conv tile */
#define OCB I8_REF_CONV_OC_BLOCK    /* output channels per conv tile */

static inline float act_apply(i8_act act, float v) {
    /* v < 0 ? 0 : v keeps NaN (torch.relu propagates it). */
    return (act == I8_ACT_RELU && v < 0.0f) ? 0.0f : v;
}

int i8_ref_conv_out_padded(int out_c) { return (out_c + OCB - 1) / OCB * OCB; }

void i8_ref_conv_relayout(const float *w_oihw, int out_c, int in_c, int kh, int kw, float *dst) {
    const int nblk = i8_ref_conv_out_padded(out_c) / OCB;
    for (int blk = 0; blk < nblk; blk++)
        for (int ky = 0; ky < kh; ky++)
            for (int kx = 0; kx < kw; kx++)
                for (int i = 0; i < in_c; i++) {
                    float *row = dst + ((((size_t)blk * kh + ky) * kw + kx) * in_c + i) * OCB;
                    for (int j = 0; j < OCB; j++) {
                        const size_t o = (size_t)blk * OCB + (size_t)j;
                        row[j] = o < (size_t)out_c ? w_oihw[((o * in_c + i) * kh + ky) * kw + kx] : 0.0f;
                    }
                }
}

/* ---- conv2d, float accumulation ---------------------------------------------------------- */

/* Four floats as one GCC/Clang vector value (one SSE register): element-wise IEEE mul/add,
 * exactly like the scalar loop. Written explicitly because -O3's own vectorizer turns the
 * scalar form of this loop into shuffles and spills (2-3x slower). */
typedef float vec4 __attribute__((vector_size(16)));
#define NV (OCB / 4) /* vectors per tile row */

/* acc[p][j] += sum_c x_p[c] * w[c][j] for the PIX pixels x_p = x + p*step (one tap). */
static void tile_full(int ic, const float *x, size_t step, const float *w, float acc[PIX][OCB]) {
    vec4 a[PIX][NV];
    memcpy(a, acc, sizeof a);
    for (int c = 0; c < ic; c++) {
        vec4 wr[NV];
        memcpy(wr, w + (size_t)c * OCB, sizeof wr);
        for (int p = 0; p < PIX; p++) {
            const float v = x[p * step + c];
            for (int k = 0; k < NV; k++) a[p][k] += v * wr[k];
        }
    }
    memcpy(acc, a, sizeof a);
}

/* acc[j] += sum_c x[c] * w[c][j] for one pixel (tile edges, padding borders). */
static void tile_one(int ic, const float *x, const float *w, float acc[OCB]) {
    vec4 a[NV];
    memcpy(a, acc, sizeof a);
    for (int c = 0; c < ic; c++) {
        vec4 wr[NV];
        memcpy(wr, w + (size_t)c * OCB, sizeof wr);
        for (int k = 0; k < NV; k++) a[k] += x[c] * wr[k];
    }
    memcpy(acc, a, sizeof a);
}

/* Weights of channel block blk at tap (ky, kx): [in_c][OCB], contiguous. */
static const float *tap_weights(const i8_ref_conv_shape *s, const float *w, int blk, int ky, int kx) {
    return w + (((size_t)blk * s->kh + ky) * s->kw + kx) * (size_t)s->in_c * OCB;
}

/* One tile: output pixels (b, oy, ox0 .. ox0+np) x channels of block blk, sums only. */
static void conv_tile(const i8_ref_conv_shape *s, const float *x, const float *w, int b, int oy, int ox0, int np,
                      int blk, float acc[PIX][OCB]) {
    const size_t ic = (size_t)s->in_c;
    memset(acc, 0, sizeof(float) * PIX * OCB);
    for (int ky = 0; ky < s->kh; ky++) {
        const int iy = oy * s->sh - s->ph + ky;
        if (iy < 0 || iy >= s->in_h) continue;
        const float *xrow = x + ((size_t)b * s->in_h + iy) * s->in_w * ic;
        for (int kx = 0; kx < s->kw; kx++) {
            const float *wt = tap_weights(s, w, blk, ky, kx);
            const int ix0 = ox0 * s->sw - s->pw + kx;
            if (np == PIX && ix0 >= 0 && ix0 + (PIX - 1) * s->sw < s->in_w) {
                tile_full(s->in_c, xrow + (size_t)ix0 * ic, (size_t)s->sw * ic, wt, acc);
                continue;
            }
            for (int p = 0; p < np; p++) {
                const int ix = ix0 + p * s->sw;
                if (ix >= 0 && ix < s->in_w) tile_one(s->in_c, xrow + (size_t)ix * ic, wt, acc[p]);
            }
        }
    }
}

void i8_ref_conv2d(const i8_ref_conv_shape *s, const float *x, const float *w, const float *bias,
                   const float *res, float res_scale, i8_act act, float *y) {
    const int nblk = i8_ref_conv_out_padded(s->out_c) / OCB;
    const long tasks = (long)s->n * s->out_h * nblk; /* one task: one output row x one channel block */
#ifdef _OPENMP
#pragma omp parallel for schedule(static)
#endif
    for (long t = 0; t < tasks; t++) {
        const int blk = (int)(t % nblk), row = (int)(t / nblk);
        const int b = row / s->out_h, oy = row % s->out_h, oc0 = blk * OCB;
        const int nc = I8_MIN(OCB, s->out_c - oc0);
        for (int ox0 = 0; ox0 < s->out_w; ox0 += PIX) {
            const int np = I8_MIN(PIX, s->out_w - ox0);
            float acc[PIX][OCB];
            conv_tile(s, x, w, b, oy, ox0, np, blk, acc);
            for (int p = 0; p < np; p++) {
                const size_t at = (((size_t)b * s->out_h + oy) * s->out_w + ox0 + p) * s->out_c + oc0;
                for (int j = 0; j < nc; j++) {
                    float v = acc[p][j];
                    if (bias) v += bias[oc0 + j];
                    if (res) v = res[at + j] + res_scale * v;
                    y[at + j] = act_apply(act, v);
                }
            }
        }
    }
}

/* ---- conv2d, double accumulation (one pixel at a time: clarity over speed) ---------------- */

static void conv_pixel_f64(const i8_ref_conv_shape *s, const float *x, const float *w, int b, int oy, int ox, int blk,
                           double acc[OCB]) {
    const size_t ic = (size_t)s->in_c;
    for (int j = 0; j < OCB; j++) acc[j] = 0.0;
    for (int ky = 0; ky < s->kh; ky++) {
        const int iy = oy * s->sh - s->ph + ky;
        if (iy < 0 || iy >= s->in_h) continue;
        for (int kx = 0; kx < s->kw; kx++) {
            const int ix = ox * s->sw - s->pw + kx;
            if (ix < 0 || ix >= s->in_w) continue;
            const float *xp = x + (((size_t)b * s->in_h + iy) * s->in_w + ix) * ic;
            const float *wt = tap_weights(s, w, blk, ky, kx);
            for (size_t c = 0; c < ic; c++)
                for (int j = 0; j < OCB; j++) acc[j] += (double)xp[c] * (double)wt[c * OCB + j];
        }
    }
}

void i8_ref_conv2d_f64(const i8_ref_conv_shape *s, const float *x, const float *w, const float *bias,
                       const float *res, float res_scale, i8_act act, float *y) {
    const int nblk = i8_ref_conv_out_padded(s->out_c) / OCB;
    const long tasks = (long)s->n * s->out_h * nblk;
#ifdef _OPENMP
#pragma omp parallel for schedule(static)
#endif
    for (long t = 0; t < tasks; t++) {
        const int blk = (int)(t % nblk), row = (int)(t / nblk);
        const int b = row / s->out_h, oy = row % s->out_h, oc0 = blk * OCB;
        const int nc = I8_MIN(OCB, s->out_c - oc0);
        for (int ox = 0; ox < s->out_w; ox++) {
            double acc[OCB];
            conv_pixel_f64(s, x, w, b, oy, ox, blk, acc);
            const size_t at = (((size_t)b * s->out_h + oy) * s->out_w + ox) * s->out_c + oc0;
            for (int j = 0; j < nc; j++) {
                float v = (float)(bias ? acc[j] + (double)bias[oc0 + j] : acc[j]);
                if (res) v = res[at + j] + res_scale * v;
                y[at + j] = act_apply(act, v);
            }
        }
    }
}

/* ---- element-wise and pooling ops ---------------------------------------------------------- */

void i8_ref_batchnorm(size_t count, int c, const float *x, const float *gamma, const float *beta,
                      const float *mean, const float *var, float eps, float *y) {
#ifdef _OPENMP
#pragma omp parallel for schedule(static)
#endif
    for (long p = 0; p < (long)count; p++)
        for (int k = 0; k < c; k++) {
            const float inv = 1.0f / sqrtf(var[k] + eps);
            const size_t at = (size_t)p * c + k;
            y[at] = (x[at] - mean[k]) * inv * gamma[k] + beta[k];
        }
}

void i8_ref_relu(size_t count, const float *x, float *y) {
    for (size_t i = 0; i < count; i++) y[i] = act_apply(I8_ACT_RELU, x[i]);
}

void i8_ref_maxpool(const i8_ref_conv_shape *s, const float *x, float *y) {
    const int c = s->in_c;
    const long rows = (long)s->n * s->out_h;
#ifdef _OPENMP
#pragma omp parallel for schedule(static)
#endif
    for (long row = 0; row < rows; row++) {
        const int b = (int)(row / s->out_h), oy = (int)(row % s->out_h);
        for (int ox = 0; ox < s->out_w; ox++) {
            float *out = y + (((size_t)b * s->out_h + oy) * s->out_w + ox) * c;
            for (int k = 0; k < c; k++) out[k] = -INFINITY;
            for (int ky = 0; ky < s->kh; ky++) {
                const int iy = oy * s->sh - s->ph + ky;
                if (iy < 0 || iy >= s->in_h) continue;
                for (int kx = 0; kx < s->kw; kx++) {
                    const int ix = ox * s->sw - s->pw + kx;
                    if (ix < 0 || ix >= s->in_w) continue;
                    const float *in = x + (((size_t)b * s->in_h + iy) * s->in_w + ix) * c;
                    for (int k = 0; k < c; k++)
                        if (in[k] > out[k] || isnan(in[k])) out[k] = in[k];
                }
            }
        }
    }
}

void i8_ref_avgpool(const i8_ref_conv_shape *s, int count_include_pad, const float *x, const float *bias, i8_act act,
                    float *y) {
    const int c = s->in_c;
    const long rows = (long)s->n * s->out_h;
#ifdef _OPENMP
#pragma omp parallel for schedule(static)
#endif
    for (long row = 0; row < rows; row++) {
        const int b = (int)(row / s->out_h), oy = (int)(row % s->out_h);
        for (int ox = 0; ox < s->out_w; ox++) {
            /* PyTorch's window: clipped to the padded input for the include-pad divisor, then
             * to the real input for the taps and the exclude-pad divisor. */
            int y0 = oy * s->sh - s->ph, x0 = ox * s->sw - s->pw;
            int y1 = I8_MIN(y0 + s->kh, s->in_h + s->ph), x1 = I8_MIN(x0 + s->kw, s->in_w + s->pw);
            const int padded = (y1 - y0) * (x1 - x0);
            y0 = I8_MAX(y0, 0), x0 = I8_MAX(x0, 0), y1 = I8_MIN(y1, s->in_h), x1 = I8_MIN(x1, s->in_w);
            const int divisor = count_include_pad ? padded : (y1 - y0) * (x1 - x0);
            float *out = y + (((size_t)b * s->out_h + oy) * s->out_w + ox) * c;
            for (int k = 0; k < c; k++) out[k] = 0.0f;
            for (int iy = y0; iy < y1; iy++)
                for (int ix = x0; ix < x1; ix++) {
                    const float *in = x + (((size_t)b * s->in_h + iy) * s->in_w + ix) * c;
                    for (int k = 0; k < c; k++) out[k] += in[k];
                }
            for (int k = 0; k < c; k++) out[k] /= (float)divisor;
            if (bias)
                for (int k = 0; k < c; k++) out[k] += bias[k];
            if (act != I8_ACT_NONE)
                for (int k = 0; k < c; k++) out[k] = act_apply(act, out[k]);
        }
    }
}

void i8_ref_concat(size_t pixels, int n_inputs, const float *const *xs, const int *cs, float *y) {
    size_t total = 0;
    for (int k = 0; k < n_inputs; k++) total += (size_t)cs[k];
    size_t off = 0;
    for (int k = 0; k < n_inputs; k++) {
        for (size_t p = 0; p < pixels; p++)
            memcpy(y + p * total + off, xs[k] + p * (size_t)cs[k], sizeof(float) * (size_t)cs[k]);
        off += (size_t)cs[k];
    }
}

void i8_ref_residual(size_t count, const float *a, const float *b, float scale, i8_act act, float *y) {
    for (size_t i = 0; i < count; i++) y[i] = act_apply(act, a[i] + scale * b[i]);
}

void i8_ref_global_avgpool(int n, int hw, int c, const float *x, float *y) {
    for (int b = 0; b < n; b++)
        for (int k = 0; k < c; k++) {
            double sum = 0.0;
            for (int p = 0; p < hw; p++) sum += (double)x[((size_t)b * hw + p) * c + k];
            y[(size_t)b * c + k] = (float)(sum / (double)hw);
        }
}

void i8_ref_linear(int n, int in, int out, const float *x, const float *w, const float *bias, float *y) {
    for (int b = 0; b < n; b++)
        for (int o = 0; o < out; o++) {
            const float *xr = x + (size_t)b * in, *wr = w + (size_t)o * in;
            float sum = 0.0f;
            for (int i = 0; i < in; i++) sum += xr[i] * wr[i];
            y[(size_t)b * out + o] = bias ? sum + bias[o] : sum;
        }
}

void i8_ref_linear_f64(int n, int in, int out, const float *x, const float *w, const float *bias, float *y) {
    for (int b = 0; b < n; b++)
        for (int o = 0; o < out; o++) {
            const float *xr = x + (size_t)b * in, *wr = w + (size_t)o * in;
            double sum = 0.0;
            for (int i = 0; i < in; i++) sum += (double)xr[i] * (double)wr[i];
            y[(size_t)b * out + o] = (float)(bias ? sum + (double)bias[o] : sum);
        }
}

void i8_ref_nchw_to_nhwc(int n, int c, int h, int w, const float *x, float *y) {
    for (int b = 0; b < n; b++)
        for (int k = 0; k < c; k++)
            for (int i = 0; i < h; i++)
                for (int j = 0; j < w; j++)
                    y[(((size_t)b * h + i) * w + j) * c + k] = x[(((size_t)b * c + k) * h + i) * w + j];
}

void i8_ref_nhwc_to_nchw(int n, int c, int h, int w, const float *x, float *y) {
    for (int b = 0; b < n; b++)
        for (int k = 0; k < c; k++)
            for (int i = 0; i < h; i++)
                for (int j = 0; j < w; j++)
                    y[(((size_t)b * c + k) * h + i) * w + j] = x[(((size_t)b * h + i) * w + j) * c + k];
}
