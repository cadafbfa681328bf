/* FP8 e4m3 convolution kernel of the CUDA backend (cuda_fp8.cu), callable from C host code.
 *
 * Implicit GEMM on FP8 tensor cores (mma.sync m16n8k32 e4m3 x e4m3 -> fp32, or Hopper's
 * wgmma.mma_async m64nNk32 from swizzled shared memory; both accumulate in fp32) with the
 * quantization of the *next* layer's input fused into the epilogue ("dual output"): the conv
 * writes its fp16 output, its e4m3 copy, or both. Semantics (docs/fp8.md, quant/fp8.h):
 *   input:    e4m3 codes read as they are (x_fp8 = 1), or fp16 values quantized while loading
 *             q = e4m3_satfinite_rne(x * x_inv) (x_fp8 = 0; float32 multiply, no FMA);
 *   acc      = sum over taps of q_x * q_w (exact products, fp32 accumulation);
 *   v        = acc * mult[o] + bias[o]  (mult = in_scale * w_scale[o] * residual_scale,
 *              bias already scaled by the residual scale);
 *   residual: v += x' where x' = fp16 x (res_mode 1), e4m3(code) * res_scale (2: the e4m3 copy),
 *             or e4m3(fp16 x * res_inv) * res_scale (3: fp16 x quantized on the fly);
 *   relu last; y = fp16(v) when y != NULL; yq = e4m3_satfinite_rne(v * y_inv) when yq != NULL
 *   (a NaN v stays NaN through relu in the TMA kernels, whose conversions apply it, as in the
 *   CPU reference; the other own kernels' fmaxf make it 0);
 *   (the e4m3 copy quantizes the float v, not its binary16 rounding, as cuDNN's and cuBLASLt's
 *   e4m3 outputs do; a copy quantized on load can only quantize the fp16 value, so the plan
 *   gives every FP8 conv output read as FP8 a producer-written copy where it can: docs/fp8.md).
 * Activations NHWC, pixel m at base + m * ld (elements; 1 byte for e4m3, 2 for fp16).
 * Requirements (checked, cudaErrorInvalidValue otherwise): c_in % 8 == 0, x_ld % 8 == 0,
 * x 8-byte (e4m3) / 16-byte (fp16) aligned, wq 16-byte aligned; split-K needs the workspace. */
#ifndef I8_CUDA_FP8_H
#define I8_CUDA_FP8_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

enum { I8_FP8_RES_NONE = 0, I8_FP8_RES_F16 = 1, I8_FP8_RES_Q = 2, I8_FP8_RES_F16_FQ = 3 };

typedef struct i8_cuda_fp8_conv_args {
    const void *x;          /* e4m3 or fp16 [n][h][w] stride x_ld */
    int x_fp8;
    float x_inv;            /* 1.0f / input scale (x_fp8 == 0) */
    int n, h, w, c_in, x_ld;
    const uint8_t *wq;      /* e4m3 [c_out][kh][kw][c_in] */
    const float *mult;      /* [c_out] */
    const float *bias;      /* [c_out] or NULL */
    const void *res;        /* residual x, stride res_ld, format per res_mode */
    int res_ld, res_mode;
    float res_scale, res_inv;
    void *y;                /* fp16 output or NULL */
    void *yq;               /* e4m3 output or NULL (same stride y_ld) */
    int y_ld;
    float y_inv;            /* 1.0f / out scale of the e4m3 copy */
    int ho, wo, c_out, kh, kw, sh, sw, ph, pw, relu;
    float *partial;         /* split-K workspace (variants whose split-K factor is > 1) */
    size_t partial_bytes;
    unsigned *counters;     /* split-K tile counters, zero before and after each launch */
    int n_counters;
    int sm_count;           /* TMA kernels: the device's SM count and the driver's tensor-map encoders, looked up */
    void *tma_encode_tiled; /* once by the backend (i8_cuda_tma_driver); 0 / NULL: looked up at each launch (the */
    void *tma_encode_im2col;/* kernel labs) */
    int tma_store_off;      /* TMA kernels: 1 stores the outputs without TMA stores, as before session 32 (tests) */
    int halo_prefetch;      /* halo kernels: 1 / 2 their fragment prefetch / slab pairs (PIPE; session 52, opt-in) */
    int pdl;                /* 1: launched with programmatic dependent launch (cuda_pdl.cuh; the backend's choose_launch) */
    int tma_early_off;      /* TMA kernels: 1 fetches no tensor maps and issues no weights ahead of the producer's loop,
                             * as before session 60 (A/B; session 60's early path ran under PDL alone) */
    int tma_store_drain;    /* TMA kernels: 1 waits at each block's end until its TMA stores have written global
                             * memory, as before session 61 (A/B); 0 only until they have read shared memory */
} i8_cuda_fp8_conv_args;

/* Sibling outputs: a group of 1x1 convs that read one input, run as one conv of c_out = the sum
 * of theirs (weights, multipliers and biases concatenated), each keeping its own outputs and
 * e4m3 scale (the backend's merge choice, docs/fp8.md "Merge choice"). Range k is channels
 * c0[k] .. c0[k + 1] - 1 (c0[0] = 0, c0[n] = c_out, each a multiple of 8); its fp16 output y[k]
 * and e4m3 output yq[k] (NULL: none; 16- / 8-byte aligned) have row stride ld[k] (a multiple of
 * 8) and channel 0 at c0[k]; inv[k] is 1.0f / its e4m3 scale. The args' y / yq only say whether
 * any range has that output; y_ld and y_inv are unused. */
#define I8_FP8_MAX_OUTS 4
typedef struct i8_cuda_fp8_outs {
    int n;
    int c0[I8_FP8_MAX_OUTS + 1];
    void *y[I8_FP8_MAX_OUTS], *yq[I8_FP8_MAX_OUTS];
    int ld[I8_FP8_MAX_OUTS];
    float inv[I8_FP8_MAX_OUTS];
} i8_cuda_fp8_outs;

/* The merged siblings of a, writing the outputs of o, on the TMA kernel with BN 64 (wide = 0) or
 * 128 (wide = 1); o valid for a (i8_cuda_conv_fp8_tma_multi_fits). Returns a cudaError_t. */
int i8_cuda_conv_fp8_tma_multi_fits(const i8_cuda_fp8_conv_args *a, const i8_cuda_fp8_outs *o);
int i8_cuda_conv_fp8_tma_multi(const i8_cuda_fp8_conv_args *a, const i8_cuda_fp8_outs *o, int wide, void *stream);

/* Allows the kernels' dynamic shared memory (up to 83 KB, the TMA kernels' up to 187 KB);
 * once per process and device before the first launch (not during stream capture). Returns a
 * cudaError_t. */
int i8_cuda_conv_fp8_setup(void);
/* Number of variants. Below I8_FP8_FAMILIES * I8_FP8_FAMILY_VARIANTS (48): kernel family =
 * variant / I8_FP8_FAMILY_VARIANTS (0: mma.sync; 1: wgmma, which needs c_in, x_ld and x
 * 16-aligned; 2: wgmma with fewer stages and the residual loaded before the main loop), tile =
 * variant % 4, split-K factor = 1 << (variant % I8_FP8_FAMILY_VARIANTS / 4). From 48 on: the
 * persistent TMA kernels of cuda_fp8_tma.cu (pointwise convs; from session 15 also spatial
 * convs with e4m3 input, i8_cuda_conv_fp8_is_im2col; no split-K); from 58 on the halo kernels
 * (session 28; no split-K); from 63 on more TMA kernels (I8_FP8_TMA_LATE_FIRST). Stored tactics
 * name variants by number, so variants are only ever appended. */
enum { I8_FP8_FAMILY_VARIANTS = 16, I8_FP8_FAMILIES = 3 }; /* per family: 4 tiles x split-K 1, 2, 4, 8 */
enum { I8_FP8_TMA_FIRST = I8_FP8_FAMILIES * I8_FP8_FAMILY_VARIANTS };
/* From I8_FP8_HALO_FIRST on (after the I8_FP8_TMA_VARIANTS TMA kernels): the halo kernels of
 * cuda_fp8.cu for small-channel spatial convs (e4m3 input, c_in % 16 == 0): one block takes a band
 * of output rows of one image, copies the input rows under it (with the padding's zeros) and its
 * whole weight slice into shared memory once, and runs wgmma with A loaded from there into registers. */
enum { I8_FP8_TMA_VARIANTS = 10, I8_FP8_HALO_FIRST = I8_FP8_TMA_FIRST + I8_FP8_TMA_VARIANTS };
enum { I8_FP8_HALO_VARIANTS = 5, I8_FP8_HALO_END = I8_FP8_HALO_FIRST + I8_FP8_HALO_VARIANTS };
/* From I8_FP8_TMA_LATE_FIRST on: TMA kernels added after the halo ones, numbered on from there
 * (63-65 the mixed-width im2col ones, session 50; 66-69 three ping-pong consumers, session 51;
 * 70-72 im2col with 64-channel sub-slices, session 56; 73-75 mixed-width im2col with
 * 64-channel rests, session 57; 76-77 eight stages, 1x1 and im2col, session 61; session 64's
 * 78-79, the direct epilogue, lost in session 65's lab and were removed, never stored by a tuner);
 * the TMA table of cuda_fp8_tma.cu lists them after its first I8_FP8_TMA_VARIANTS. */
enum { I8_FP8_TMA_LATE_FIRST = I8_FP8_HALO_END, I8_FP8_TMA_LATE_VARIANTS = 15 };
enum { I8_FP8_VARIANTS = I8_FP8_TMA_LATE_FIRST + I8_FP8_TMA_LATE_VARIANTS };
static inline int i8_cuda_conv_fp8_is_halo(int variant) {
    return variant >= I8_FP8_HALO_FIRST && variant < I8_FP8_HALO_END;
}
static inline int i8_cuda_conv_fp8_is_tma(int variant) {
    return (variant >= I8_FP8_TMA_FIRST && variant < I8_FP8_HALO_FIRST) ||
           (variant >= I8_FP8_TMA_LATE_FIRST && variant < I8_FP8_VARIANTS);
}
/* a TMA variant's row in cuda_fp8_tma.cu's table (-1 for the others) */
static inline int i8_cuda_conv_fp8_tma_index(int variant) {
    if (!i8_cuda_conv_fp8_is_tma(variant)) return -1;
    return variant < I8_FP8_HALO_FIRST ? variant - I8_FP8_TMA_FIRST
                                       : I8_FP8_TMA_VARIANTS + variant - I8_FP8_TMA_LATE_FIRST;
}
/* the wgmma-based variants, the halo kernels among them (tensor-core sums promoted to fp32 every
 * 128 of K; qmma, variants 0-15, sums in fp32): the tuner keeps one only when its output matches
 * the fastest qmma variant's (i8_cuda_fp8_variant_check) */
static inline int i8_cuda_conv_fp8_is_wgmma(int variant) { return variant >= I8_FP8_FAMILY_VARIANTS; }
int i8_cuda_conv_fp8_variants(void);
int i8_cuda_conv_fp8_splits(int variant);
const char *i8_cuda_conv_fp8_name(int variant);
/* whether variant can run a: its alignment and shape limits (a launch of one that cannot fails
 * with cudaErrorInvalidValue, as does a split-K launch without enough workspace) */
int i8_cuda_conv_fp8_fits(const i8_cuda_fp8_conv_args *a, int variant);
int i8_cuda_conv_fp8(const i8_cuda_fp8_conv_args *a, int variant, void *stream);

/* cuda_fp8_tma.cu, through the above (its table's row t = i8_cuda_conv_fp8_tma_index(variant)) */
int i8_cuda_conv_fp8_tma_variants(void);
const char *i8_cuda_conv_fp8_tma_name(int t);
int i8_cuda_conv_fp8_tma_fits(const i8_cuda_fp8_conv_args *a, int t);
/* whether variant is a TMA kernel for spatial convs (im2col-mode loads; e4m3 input) */
int i8_cuda_conv_fp8_is_im2col(int variant);
/* channels per K sub-slice of an im2col variant (128; 32 or 64 for those that fit c_in <= 64
 * only; the mixed ones' first stages, 128); 0 for the others */
int i8_cuda_conv_fp8_im2col_span(int variant);
/* for an im2col kernel with mixed-width stages (whole 128-channel chunks of each tap, then the
 * rest of every tap in narrower sub-slices; c_in > 128, a multiple of them), the rest's sub-slice
 * width: 32 or 64 channels; 0 for the others */
int i8_cuda_conv_fp8_mixed_rest(int variant);
int i8_cuda_conv_fp8_tma_setup(void);
/* The current device's SM count (asked only when *sm_count < 1) and the driver's
 * cuTensorMapEncodeTiled / cuTensorMapEncodeIm2col (NULL where the driver lacks one), for
 * i8_cuda_fp8_conv_args; returns a cudaError_t. */
int i8_cuda_tma_driver(int *sm_count, void **encode_tiled, void **encode_im2col);
/* 1 when a TMA kernel (a fits it) stores its outputs with TMA stores, 0 when through 16- / 8-byte
 * stores: 16-byte aligned bases and row strides, rows of whole 16-byte chunks (a TMA store writes
 * whole chunks: an e4m3 slice of 40 channels would overwrite 8 of its concat neighbour's), and
 * not tma_store_off. Host-side, no GPU needed. */
int i8_cuda_conv_fp8_tma_store_fits(const i8_cuda_fp8_conv_args *a);
int i8_cuda_conv_fp8_tma(const i8_cuda_fp8_conv_args *a, int t, void *stream);
/* number of halo variants (cuda_fp8.cu; variant = I8_FP8_HALO_FIRST + index) */
int i8_cuda_conv_fp8_halo_variants(void);
/* the schedule (conv_fp8_halo_kernel's PIPE) halo variant `variant` launches under
 * INFER8_CUDA_HALO_PREFETCH's mode (0 as before, 1 prefetch, 2 slab pairs where BN is 32, else
 * the prefetch); -1 for a variant that is no halo kernel. Host-side, no GPU needed. */
int i8_cuda_conv_fp8_halo_pipe(int variant, int mode);

/* Pair kernels (cuda_fp8_pair.cu; session 54): the pointwise conv `first` and the one conv
 * `second` that reads its output, run as one kernel: clusters of 1, 2, 4 or 8 blocks (variant % 4)
 * each take a band of output lines (rows; columns for a k x 1 `second`) of one image, one line
 * (variants 0-3) or as many as 64 pixels hold (4-7, where that is more than one), and hold the
 * band's intermediate (with the consumer's halo lines) in shared memory, so it is never written
 * to memory. first: a 1x1 of stride 1 with e4m3 input (c_in a multiple of 32, x and x_ld
 * 16-aligned), no residual; its epilogue (mult, bias, relu) and e4m3 rounding at y_inv make the
 * intermediate, code for code as its own e4m3 output would be; its y / yq are not written.
 * second: kh x kw, both odd, stride 1, padding kh / 2 and kw / 2 (output the size of the input),
 * c_in = first's c_out (a multiple of 32), e4m3 input (x_fp8 1; x and x_ld unused), no residual,
 * c_out a multiple of 8, outputs y (fp16, 16-aligned) and / or yq (e4m3, 8-aligned), y_ld a
 * multiple of 8; at most 128 pixels of the 1x1 per band (lines of at most 128 / kh pixels); its
 * pdl field chooses the launch. Returns a cudaError_t (cudaErrorInvalidValue where the variant
 * does not fit). */
enum { I8_FP8_PAIR_VARIANTS = 8 };
int i8_cuda_conv_fp8_pair_setup(void); /* called by i8_cuda_conv_fp8_setup */
const char *i8_cuda_conv_fp8_pair_name(int variant);
int i8_cuda_conv_fp8_pair_fits(const i8_cuda_fp8_conv_args *first, const i8_cuda_fp8_conv_args *second, int variant);
int i8_cuda_conv_fp8_pair(const i8_cuda_fp8_conv_args *first, const i8_cuda_fp8_conv_args *second, int variant,
                          void *stream);

/* A set of FP8 variants (INFER8_CUDA_FP8_VARIANT): variant v is bit v % 64 of word v / 64. */
enum { I8_FP8_VARIANT_SET_WORDS = 2 };
typedef struct i8_fp8_variant_set {
    uint64_t w[I8_FP8_VARIANT_SET_WORDS];
} i8_fp8_variant_set;
static inline int i8_fp8_variant_set_has(const i8_fp8_variant_set *s, int v) {
    return v >= 0 && v < 64 * I8_FP8_VARIANT_SET_WORDS && (int)(s->w[v / 64] >> (v % 64) & 1);
}
static inline void i8_fp8_variant_set_add(i8_fp8_variant_set *s, int v) {
    if (v >= 0 && v < 64 * I8_FP8_VARIANT_SET_WORDS) s->w[v / 64] |= (uint64_t)1 << (v % 64);
}
static inline int i8_fp8_variant_set_empty(const i8_fp8_variant_set *s) {
    for (int i = 0; i < I8_FP8_VARIANT_SET_WORDS; i++)
        if (s->w[i]) return 0;
    return 1;
}
/* The variants a list "v[,v...]" names (cuda_fp8.c): numbers outside [0, n_variants) are left out,
 * and the list ends at the first thing that is not a number; NULL or "": the empty set. */
i8_fp8_variant_set i8_fp8_variant_set_parse(const char *list, int n_variants);

#ifdef __cplusplus
}
#endif

#endif
