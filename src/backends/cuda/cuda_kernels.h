/* Launchers of the CUDA backend's own kernels (cuda_kernels.cu), callable from C host code.
 *
 * Activations are NHWC fp16: pixel m = (n*h + y)*w + x of a tensor lives at base + m*ld, its
 * channels contiguous; ld >= channels lets a tensor be a channel slice of a wider (concat)
 * buffer. Every launcher enqueues on `stream`, checks the launch and returns its cudaError_t
 * as an int (0 = success); none allocates or synchronizes, so all can be captured in a graph. */
#ifndef I8_CUDA_KERNELS_H
#define I8_CUDA_KERNELS_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Implicit-GEMM convolution arguments (own kernel). Requirements checked by the caller:
 * c_in % 8 == 0, x_ld % 8 == 0 and x 16-byte aligned (16-byte loads of 8 channels);
 * wt is fp16 [c_out][kh][kw][c_in] (16-byte aligned). bias fp32 [c_out] or NULL; res fp16
 * (residual x, added after bias) or NULL; relu applies last: y = act(acc + bias + res). */
typedef struct i8_cuda_conv_args {
    const void *x;          /* __half [n][h][w] with row stride x_ld */
    int n, h, w, c_in, x_ld;
    const void *wt;         /* __half [c_out][kh][kw][c_in] */
    const float *bias;
    const void *res;        /* __half [n][ho][wo], stride res_ld */
    int res_ld;
    void *y;                /* __half [n][ho][wo], stride y_ld */
    int y_ld;
    int ho, wo, c_out, kh, kw, sh, sw, ph, pw, relu;
    /* split-K (variants with splits > 1): fp32 partial tiles and per-tile arrival counters
     * (zero before the first launch; the last block of a tile resets its counter) */
    float *partial;
    size_t partial_bytes;
    unsigned *counters;
    int n_counters;
    /* channels of x that carry data: the rest of c_in is padding whose weights are zero (the
     * stem's 3 channels in rows of 8); 0 = all c_in. Only variant 16 reads it. */
    int c_in_used;
    /* the device's SM count (variant 16's persistent grid); 0 = ask the runtime at launch */
    int sm_count;
} i8_cuda_conv_args;

/* Number of own conv kernel variants. Variants 0-15: implicit GEMM on wmma, tile shape v % 4 and
 * 1 << (v / 4) K splits. Variant 16 (packk128): for c_in 8 (the stem's padded input), an implicit
 * GEMM whose K packs only the channels that carry data (taps x c_in_used, at most 80: 5x5 over
 * 3), gathered into shared memory per 128 output pixels; c_out at most 64.
 * A variant that does not fit the problem (more splits than K tiles, partials larger than
 * partial_bytes, too many tiles for the counters; for variant 16 c_in other than 8, unaligned
 * input rows, a larger K or c_out, or more than 2^31 pixels) returns cudaErrorInvalidValue unlaunched. */
int i8_cuda_conv_own_variants(void);
const char *i8_cuda_conv_own_name(int variant);
/* K splits of a variant (1 for variant 16) */
int i8_cuda_conv_own_splits(int variant);
int i8_cuda_conv_own(const i8_cuda_conv_args *a, int variant, void *stream);

/* float32 NCHW [n][c][h][w] -> fp16 NHWC [n][h][w][c_pad] (channels c..c_pad-1 zero). Both input
 * kernels need c_pad a multiple of 8, y 16-byte aligned and under 2^32 16-byte words (else
 * cudaErrorInvalidValue, unlaunched). */
int i8_cuda_input_to_nhwc(const float *x, int n, int c, int h, int w, void *y, int c_pad, void *stream);
/* uint8 NHWC [n][h][w][3] -> fp16 NHWC (c_pad channels, the padding zero): (v / 255 - mean) / std
 * in float32, each step rounded as i8_normalize_u8 does on the CPU, then rounded to fp16 as
 * i8_cuda_input_to_nhwc rounds the CPU's floats: the same fp16 input, bit for bit. */
int i8_cuda_input_u8_to_nhwc(const uint8_t *x, int n, int h, int w, const float mean[3], const float std[3], void *y,
                             int c_pad, void *stream);

/* Max (mode 0), average excluding padding (mode 1) or including it (mode 2) pooling,
 * floor rounding; padded taps are never max candidates. x: [n][h][w] stride x_ld; y (fp16) and
 * yq (its e4m3 twin, e4m3_satfinite_rne(fp16 value * y_inv), same stride y_ld) each may be
 * NULL: a pool writing into a storage read as FP8 writes the twin itself (cuda_fp8.c).
 * bias (float [c], device; NULL: none) and relu: the epilogue of an average pool moved below
 * its 1x1 conv (i8_pass_sink_avgpool), applied in float before the one fp16 rounding. */
int i8_cuda_pool(const void *x, int n, int h, int w, int c, int x_ld, void *y, void *yq, float y_inv, int ho, int wo,
                 int y_ld, int kh, int kw, int sh, int sw, int ph, int pw, int mode, const float *bias, int relu,
                 void *stream);

/* Global average pool: fp16 [n][hw] stride x_ld -> float32 y[n][c]. */
int i8_cuda_global_avgpool(const void *x, int n, int hw, int c, int x_ld, float *y, void *stream);

/* Linear: y[b][o] = sum_i x[b][i] * w[o][i] + bias[o]; x float32 [n][in] (x_f16 = 0) or fp16
 * (x_f16 = 1); w fp16 [out][in]; bias fp32 or NULL; y float32 [n][out]. fp32 accumulation. */
int i8_cuda_linear(const void *x, int x_f16, int n, int in, int out, const void *w, const float *bias, float *y,
                   void *stream);

/* Per-channel pointwise over pixels: y[m][c] = act(alpha[c]*a[m][c] + beta[c] + s*b[m][c]) with
 * alpha NULL = 1, beta NULL = 0, b NULL = 0. Used for unfused batchnorm, relu, residual add
 * and for copies into a concat slice. a, b, y fp16 with their own row strides. */
int i8_cuda_pointwise(const void *a, int a_ld, const float *alpha, const float *beta, const void *b, int b_ld,
                      float s, int relu, void *y, int y_ld, size_t pixels, int c, void *stream);

/* Graph output (fp16 or float32 NHWC with stride x_ld) -> float32 NCHW y[n][c][h][w]. */
int i8_cuda_output_to_nchw(const void *x, int x_f32, int n, int c, int h, int w, int x_ld, float *y, void *stream);

/* Calibration statistics (cuda_calib.cu): adds the fp16 tensor x ([pixels] rows of c channels,
 * row stride x_ld) to the device-resident i8_calib_hist `hist` exactly as i8_calib_collect adds
 * float values on the host. scratch: one device unsigned, zero before the first call (left
 * zero after each). */
int i8_cuda_calib_collect(const void *x, size_t pixels, int c, int x_ld, void *hist, unsigned *scratch, void *stream);

/* Fills count fp16 values with a deterministic pattern in [-1, 1] (for timing on non-zero data). */
int i8_cuda_fill_pattern(void *y, size_t count, uint32_t seed, void *stream);

#ifdef __cplusplus
}
#endif

#endif
