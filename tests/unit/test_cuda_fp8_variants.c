/* The FP8 kernel variants' host-side table (cuda_fp8.cu, cuda_fp8_tma.cu), which needs no GPU:
 * stored tactics name variants by number, so the numbering must stay put (the cp.async
 * families 0-47, the TMA kernels from I8_FP8_TMA_FIRST on, the halo kernels from
 * I8_FP8_HALO_FIRST, more TMA kernels from I8_FP8_TMA_LATE_FIRST: mixed-width im2col, three
 * ping-pong consumers, 64-channel sub-slices and rests, eight stages); every variant has its own name and
 * split-K factor; i8_cuda_conv_fp8_fits (what the tuner and the lab skip on) accepts exactly the
 * problems each kernel handles: the TMA kernels only pointwise convs (the im2col ones only the
 * others, e4m3 input) with aligned rows and outputs and the input precision they read, the wgmma families only 16-aligned channels; and a
 * launch of a variant that does not fit is refused before it reaches the device. The kernels'
 * outputs are checked on the GPU (dev/kernels/fp8_lab.cu, test_cuda_fp8). Without CUDA in the
 * build: skipped (77). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#ifdef INFER8_HAVE_CUDA
#include "backends/cuda/cuda_fp8.h"

enum { TMA_S4 = I8_FP8_TMA_FIRST, TMA_128, TMA_S4R, TMA_S3H, TMA_S4P, TMA_S4PR, TMA_S4C, TMA_128C, TMA_S4PC, TMA_S4C32 };
/* after the halo kernels: the mixed-width im2col kernels (session 50), three ping-pong consumers (51),
 * 64-channel im2col sub-slices (56), mixed-width ones with 64-channel rests (57), eight stages (61) */
enum { TMA_S4PCM = I8_FP8_TMA_LATE_FIRST, TMA_S4CM, TMA_128CM, TMA_S4P3, TMA_S4P3R, TMA_S4P3C, TMA_S4P3CM, TMA_S4C64, TMA_S4PC64,
       TMA_128C64, TMA_S4CM64, TMA_128CM64, TMA_S4PCM64, TMA_S8, TMA_S8C };
/* the mixed kernels' rest sub-slice width (0: not mixed) */
static int mixed_rest(int v) {
    return v == TMA_S4PCM || v == TMA_S4CM || v == TMA_128CM || v == TMA_S4P3CM ? 32
           : v == TMA_S4CM64 || v == TMA_128CM64 || v == TMA_S4PCM64        ? 64
                                                                              : 0;
}
static int is_mixed(int v) { return mixed_rest(v) != 0; }
static int is_c64(int v) { return v == TMA_S4C64 || v == TMA_S4PC64 || v == TMA_128C64; }
static int is_narrow(int v) { return v == TMA_S4C32 || is_c64(v); } /* c_in up to 64 */
static int is_late_tma(int v) { return v >= I8_FP8_TMA_LATE_FIRST && v <= TMA_S8C; }

static void test_numbering_and_names(void **state) {
    (void)state;
    assert_int_equal(I8_FP8_TMA_FIRST, 48);
    assert_int_equal(i8_cuda_conv_fp8_tma_variants(), 25);
    assert_int_equal(I8_FP8_HALO_FIRST, 58);
    assert_int_equal(i8_cuda_conv_fp8_halo_variants(), 5);
    assert_int_equal(I8_FP8_TMA_LATE_FIRST, 63);
    const int n = i8_cuda_conv_fp8_variants();
    assert_int_equal(n, 78);
    assert_true(n <= 64 * I8_FP8_VARIANT_SET_WORDS); /* INFER8_CUDA_FP8_VARIANT's set holds them all */
    /* the names stored tactics and reports refer to, in place */
    assert_string_equal(i8_cuda_conv_fp8_name(0), "qmma64x64");
    assert_string_equal(i8_cuda_conv_fp8_name(32), "wgmma64x64s2");
    assert_string_equal(i8_cuda_conv_fp8_name(TMA_S4), "tma128x64s4");
    assert_string_equal(i8_cuda_conv_fp8_name(TMA_S3H), "tma128x64s3h");
    assert_string_equal(i8_cuda_conv_fp8_name(TMA_S4PR), "tma128x64s4pr");
    assert_string_equal(i8_cuda_conv_fp8_name(TMA_S4C), "tma128x64s4c");
    assert_string_equal(i8_cuda_conv_fp8_name(TMA_S4PC), "tma128x64s4pc");
    assert_string_equal(i8_cuda_conv_fp8_name(TMA_S4C32), "tma128x64s4c32");
    assert_string_equal(i8_cuda_conv_fp8_name(I8_FP8_HALO_FIRST), "halo64x32");
    assert_string_equal(i8_cuda_conv_fp8_name(I8_FP8_HALO_FIRST + 4), "halo128x96");
    assert_string_equal(i8_cuda_conv_fp8_name(TMA_S4PCM), "tma128x64s4pcm");
    assert_string_equal(i8_cuda_conv_fp8_name(TMA_S4CM), "tma128x64s4cm");
    assert_string_equal(i8_cuda_conv_fp8_name(TMA_128CM), "tma128x128s3cm");
    assert_string_equal(i8_cuda_conv_fp8_name(TMA_S4P3), "tma128x64s4p3");
    assert_string_equal(i8_cuda_conv_fp8_name(TMA_S4P3R), "tma128x64s4p3r");
    assert_string_equal(i8_cuda_conv_fp8_name(TMA_S4P3C), "tma128x64s4p3c");
    assert_string_equal(i8_cuda_conv_fp8_name(TMA_S4P3CM), "tma128x64s4p3cm");
    assert_int_equal(TMA_S4C64, 70);
    assert_string_equal(i8_cuda_conv_fp8_name(TMA_S4C64), "tma128x64s4c64");
    assert_string_equal(i8_cuda_conv_fp8_name(TMA_S4PC64), "tma128x64s4pc64");
    assert_string_equal(i8_cuda_conv_fp8_name(TMA_128C64), "tma128x128s3c64");
    assert_int_equal(TMA_S4CM64, 73);
    assert_string_equal(i8_cuda_conv_fp8_name(TMA_S4CM64), "tma128x64s4cm64");
    assert_string_equal(i8_cuda_conv_fp8_name(TMA_128CM64), "tma128x128s3cm64");
    assert_string_equal(i8_cuda_conv_fp8_name(TMA_S4PCM64), "tma128x64s4pcm64");
    assert_int_equal(TMA_S8, 76);
    assert_string_equal(i8_cuda_conv_fp8_name(TMA_S8), "tma128x64s8");
    assert_string_equal(i8_cuda_conv_fp8_name(TMA_S8C), "tma128x64s8c");
    assert_string_equal(i8_cuda_conv_fp8_name(n), "?");
    assert_string_equal(i8_cuda_conv_fp8_name(-1), "?");
    /* within a family a name repeats once per split-K factor; across tiles and families never */
    for (int v = 0; v < n; v++)
        for (int w = v + 1; w < n; w++) {
            const int same_tile = v < I8_FP8_TMA_FIRST && w < I8_FP8_TMA_FIRST &&
                                  v / I8_FP8_FAMILY_VARIANTS == w / I8_FP8_FAMILY_VARIANTS && v % 4 == w % 4;
            if (!same_tile && !strcmp(i8_cuda_conv_fp8_name(v), i8_cuda_conv_fp8_name(w)))
                fail_msg("variants %d and %d are both named %s", v, w, i8_cuda_conv_fp8_name(v));
        }
    for (int v = 0; v < n; v++) {
        const int want = v >= I8_FP8_TMA_FIRST ? 1 : 1 << (v % I8_FP8_FAMILY_VARIANTS / 4);
        assert_int_equal(i8_cuda_conv_fp8_splits(v), want);
        assert_int_equal(i8_cuda_conv_fp8_is_wgmma(v), v >= I8_FP8_FAMILY_VARIANTS);
        assert_int_equal(i8_cuda_conv_fp8_is_tma(v), (v >= I8_FP8_TMA_FIRST && v < I8_FP8_HALO_FIRST) || is_late_tma(v));
        assert_int_equal(i8_cuda_conv_fp8_is_halo(v), v >= I8_FP8_HALO_FIRST && v < I8_FP8_HALO_END);
        assert_int_equal(i8_cuda_conv_fp8_is_im2col(v),
                         v == TMA_S4C || v == TMA_128C || v == TMA_S4PC || v == TMA_S4P3C || v == TMA_S8C || is_narrow(v) ||
                             is_mixed(v));
        assert_int_equal(i8_cuda_conv_fp8_tma_index(v),
                         v >= I8_FP8_TMA_FIRST && v < I8_FP8_HALO_FIRST ? v - I8_FP8_TMA_FIRST
                         : is_late_tma(v)                               ? 10 + v - TMA_S4PCM
                                                                        : -1);
    }
    for (int v = -1; v <= n; v++) {
        assert_int_equal(i8_cuda_conv_fp8_im2col_span(v), v == TMA_S4C32                            ? 32
                                                          : is_c64(v)                                  ? 64
                                                          : v >= 0 && v < n && i8_cuda_conv_fp8_is_im2col(v) ? 128
                                                                                                            : 0);
        assert_int_equal(i8_cuda_conv_fp8_mixed_rest(v), mixed_rest(v));
    }
    assert_false(i8_cuda_conv_fp8_is_im2col(n));
    assert_false(i8_cuda_conv_fp8_is_im2col(-1));
}

/* INFER8_CUDA_HALO_PREFETCH's modes per halo variant (session 52): 0 as before, 1 the prefetch on
 * every kernel, 2 the slab pairs on the 32-wide ones (halo64x32, halo128x32) and the prefetch on
 * the 64- and 96-wide ones, whose registers hold no second sum array; no schedule elsewhere */
static void test_halo_pipe(void **state) {
    (void)state;
    for (int v = I8_FP8_HALO_FIRST; v < I8_FP8_HALO_END; v++) {
        const int bn32 = v == I8_FP8_HALO_FIRST || v == I8_FP8_HALO_FIRST + 2;
        assert_int_equal(bn32, strstr(i8_cuda_conv_fp8_name(v), "x32") != NULL);
        assert_int_equal(i8_cuda_conv_fp8_halo_pipe(v, 0), 0);
        assert_int_equal(i8_cuda_conv_fp8_halo_pipe(v, 1), 1);
        assert_int_equal(i8_cuda_conv_fp8_halo_pipe(v, 2), bn32 ? 2 : 1);
    }
    assert_int_equal(i8_cuda_conv_fp8_halo_pipe(I8_FP8_HALO_FIRST - 1, 1), -1);
    assert_int_equal(i8_cuda_conv_fp8_halo_pipe(I8_FP8_HALO_END, 1), -1);
}

/* a pointwise conv with 256-byte-aligned stand-in buffers (fits reads no memory) */
static i8_cuda_fp8_conv_args pointwise(int x_fp8) {
    i8_cuda_fp8_conv_args a;
    memset(&a, 0, sizeof a);
    a.x = (const void *)(uintptr_t)0x100000, a.x_fp8 = x_fp8, a.x_inv = 1.0f;
    a.n = 2, a.h = a.w = 17, a.c_in = 384, a.x_ld = 384;
    a.wq = (const uint8_t *)(uintptr_t)0x200000;
    a.mult = (const float *)(uintptr_t)0x300000, a.bias = (const float *)(uintptr_t)0x310000;
    a.y = (void *)(uintptr_t)0x400000, a.yq = (void *)(uintptr_t)0x500000, a.y_ld = 1088, a.y_inv = 1.0f;
    a.ho = a.wo = 17, a.c_out = 1088, a.kh = a.kw = a.sh = a.sw = 1, a.relu = 1;
    return a;
}

static int fits(const i8_cuda_fp8_conv_args *a, int v) { return i8_cuda_conv_fp8_fits(a, v); }

static void test_fits(void **state) {
    (void)state;
    const int n = i8_cuda_conv_fp8_variants();
    i8_cuda_fp8_conv_args a = pointwise(1);
    /* e4m3 input, pointwise, aligned: every cp.async variant and the pointwise e4m3 TMA kernels */
    for (int v = 0; v < n; v++)
        assert_int_equal(fits(&a, v), v != TMA_S3H && !i8_cuda_conv_fp8_is_im2col(v) && !i8_cuda_conv_fp8_is_halo(v));
    /* fp16 input: of the TMA kernels only the quantizing one */
    a = pointwise(0);
    for (int v = I8_FP8_TMA_FIRST; v < n; v++) assert_int_equal(fits(&a, v), v == TMA_S3H);
    assert_true(fits(&a, 0) && fits(&a, 32));
    /* a fused fp16 residual, 4-byte aligned, pitch a multiple of 8: fits all e4m3 TMA kernels */
    a = pointwise(1);
    a.res = (const void *)(uintptr_t)0x600004, a.res_mode = I8_FP8_RES_F16, a.res_ld = 1088;
    assert_true(fits(&a, TMA_S4) && fits(&a, TMA_S4R) && fits(&a, TMA_S4PR) && fits(&a, TMA_S4P3R) && fits(&a, TMA_S4P3));
    a.res_ld = 1090; /* rows not 16-byte aligned */
    assert_false(fits(&a, TMA_S4R) || fits(&a, TMA_S4P3R));
    assert_true(fits(&a, 0));
    a.res = NULL; /* a residual mode without its tensor: nothing runs it */
    for (int v = 0; v < n; v++) assert_false(fits(&a, v));
    /* 3x3, e4m3 input: of the TMA kernels the im2col ones (at c_in 384 not the ones with 32- or
     * 64-channel sub-slices, which take c_in up to 64, nor the mixed ones: whole 128-channel chunks, no rest);
     * the implicit-GEMM families too */
    a = pointwise(1);
    a.kh = a.kw = 3, a.ph = a.pw = 1;
    for (int v = I8_FP8_TMA_FIRST; v < n; v++)
        assert_int_equal(fits(&a, v), i8_cuda_conv_fp8_is_im2col(v) && !is_narrow(v) && !is_mixed(v));
    a.c_in = a.x_ld = 64; /* below one chunk: no mixed kernel */
    for (int v = I8_FP8_TMA_FIRST; v < n; v++)
        assert_int_equal(fits(&a, v), (i8_cuda_conv_fp8_is_im2col(v) && !is_mixed(v)) || i8_cuda_conv_fp8_is_halo(v));
    a.c_in = a.x_ld = 48; /* the second sub-slice of each tap: 16 channels and 16 zeros; one of 64 */
    assert_true(fits(&a, TMA_S4C32) && fits(&a, TMA_S4C) && fits(&a, TMA_S4C64) && fits(&a, TMA_S4PC64) && fits(&a, TMA_128C64));
    a.c_in = a.x_ld = 80;
    assert_false(fits(&a, TMA_S4C32) || fits(&a, TMA_S4C64) || fits(&a, TMA_S4PC64) || fits(&a, TMA_128C64));
    assert_true(fits(&a, TMA_S4C));
    /* the mixed kernels: a chunk and a rest of whole 32- (or 64-) channel sub-slices a tap */
    a.c_in = a.x_ld = 160, a.kh = 7, a.kw = 1, a.ph = 3, a.pw = 0; /* IRv2's Block17 7x1: 7 + 2 stages */
    for (int v = I8_FP8_TMA_FIRST; v < n; v++)
        if (i8_cuda_conv_fp8_is_tma(v))
            assert_int_equal(fits(&a, v), i8_cuda_conv_fp8_is_im2col(v) && !is_narrow(v) && mixed_rest(v) != 64);
    a.c_in = a.x_ld = 192; /* v4's 1x7 / 7x1: a chunk and one 64-channel sub-slice (or two of 32) a tap */
    for (int v = I8_FP8_TMA_FIRST; v < n; v++)
        if (i8_cuda_conv_fp8_is_tma(v)) assert_int_equal(fits(&a, v), i8_cuda_conv_fp8_is_im2col(v) && !is_narrow(v));
    a.c_in = a.x_ld = 320, a.kh = a.kw = 3, a.ph = a.pw = 1; /* two chunks and a 64-channel rest */
    assert_true(fits(&a, TMA_S4CM64) && fits(&a, TMA_128CM64) && fits(&a, TMA_S4PCM64) && fits(&a, TMA_S4CM));
    a.c_in = a.x_ld = 288; /* two chunks and one sub-slice a tap */
    assert_true(fits(&a, TMA_S4PCM) && fits(&a, TMA_S4CM) && fits(&a, TMA_128CM) && fits(&a, TMA_S4P3CM));
    assert_true(fits(&a, TMA_S4P3C) && !fits(&a, TMA_S4P3) && !fits(&a, TMA_S4P3R));
    assert_false(fits(&a, TMA_S4CM64) || fits(&a, TMA_128CM64) || fits(&a, TMA_S4PCM64)); /* a rest of 32 */
    a.c_in = a.x_ld = 176; /* a rest of 48: not whole sub-slices */
    assert_false(fits(&a, TMA_S4PCM) || fits(&a, TMA_S4CM) || fits(&a, TMA_128CM) || fits(&a, TMA_S4CM64));
    assert_true(fits(&a, TMA_S4C));
    a.c_in = a.x_ld = 256; /* whole chunks: the plain kernels */
    assert_false(fits(&a, TMA_S4PCM) || fits(&a, TMA_S4CM) || fits(&a, TMA_128CM) || fits(&a, TMA_128CM64));
    a.c_in = a.x_ld = 224, a.x_fp8 = 0; /* fp16 input */
    assert_false(fits(&a, TMA_S4PCM) || fits(&a, TMA_S4CM) || fits(&a, TMA_128CM));
    a.x_fp8 = 1;
    assert_true(fits(&a, TMA_S4PCM));
    a.kh = a.kw = 1, a.ph = a.pw = 0; /* pointwise: not the im2col kernels */
    assert_false(fits(&a, TMA_S4PCM) || fits(&a, TMA_S4CM) || fits(&a, TMA_128CM));
    a.kh = a.kw = 3, a.ph = a.pw = 1;
    a.c_in = a.x_ld = 384;
    assert_true(fits(&a, 0) && fits(&a, 16) && fits(&a, 32));
    a.x_fp8 = 0; /* fp16 input: no TMA kernel (the im2col ones read e4m3 codes only) */
    for (int v = I8_FP8_TMA_FIRST; v < n; v++) assert_false(fits(&a, v));
    a.x_fp8 = 1, a.kh = 1, a.kw = 7, a.ph = 0, a.pw = 3; /* 1x7 */
    assert_true(fits(&a, TMA_S4C) && fits(&a, TMA_128C));
    a.sh = a.sw = 9; /* beyond the map's traversal strides (at most 8) */
    assert_false(fits(&a, TMA_S4C));
    a.sh = a.sw = 1, a.x_ld = 392; /* pixel pitch not 16-byte aligned */
    assert_false(fits(&a, TMA_S4C));
    /* stride 2 pointwise: not the pointwise TMA kernels; the im2col ones walk it */
    a = pointwise(1);
    a.sh = a.sw = 2, a.ho = a.wo = 9;
    assert_false(fits(&a, TMA_S4));
    assert_true(fits(&a, TMA_S4C));
    /* channels 8- but not 16-aligned: mma.sync only */
    a = pointwise(1);
    a.c_in = a.x_ld = 24;
    for (int v = 0; v < n; v++) assert_int_equal(fits(&a, v), v < I8_FP8_FAMILY_VARIANTS);
    /* an fp16 output slice off 16-byte alignment (channel offset 4 in a concat): the TMA
     * kernels store 16-byte groups only; the cp.async ones fall back to scalar stores */
    a = pointwise(1);
    a.y = (void *)(uintptr_t)(0x400000 + 8);
    for (int v = I8_FP8_TMA_FIRST; v < n; v++) assert_false(fits(&a, v));
    assert_true(fits(&a, 0) && fits(&a, 32));
    /* c_out not a multiple of 8, e4m3 output 8-byte aligned but y_ld odd: no TMA kernel */
    a = pointwise(1);
    a.c_out = 1084;
    assert_false(fits(&a, TMA_S4));
    a = pointwise(1);
    a.y_ld = 1089;
    assert_false(fits(&a, TMA_128));
    /* nothing to write, no arguments, variants out of range */
    a = pointwise(1);
    a.y = a.yq = NULL;
    assert_false(fits(&a, 0));
    assert_false(fits(NULL, 0));
    a = pointwise(1);
    assert_false(fits(&a, -1));
    assert_false(fits(&a, n));
    assert_false(fits(&a, TMA_S4P + 100));
}

/* the halo kernels: spatial convs with e4m3 input and no residual, c_in and the pixel pitch
 * 16-aligned, K (kh kw c_in) up to 2560, two halo buffers and the weight slice within 160 KB of
 * shared memory */
static void test_fits_halo(void **state) {
    (void)state;
    const int h64x32 = I8_FP8_HALO_FIRST, h64x64 = h64x32 + 1,
              h128x32 = h64x32 + 2, h128x64 = h64x32 + 3, h128x96 = h64x32 + 4;
    i8_cuda_fp8_conv_args a = pointwise(1); /* 17x17 */
    a.kh = a.kw = 3, a.ph = a.pw = 1, a.c_in = a.x_ld = 32, a.c_out = a.y_ld = 48; /* Block35's 3x3 */
    for (int v = I8_FP8_HALO_FIRST; v < I8_FP8_HALO_END; v++) assert_true(fits(&a, v));
    a.c_in = a.x_ld = 48;
    for (int v = I8_FP8_HALO_FIRST; v < I8_FP8_HALO_END; v++) assert_true(fits(&a, v));
    a.c_in = a.x_ld = 40; /* 8- but not 16-aligned channels: a 16-byte piece would straddle two taps */
    for (int v = I8_FP8_HALO_FIRST; v < I8_FP8_HALO_END; v++) assert_false(fits(&a, v));
    assert_true(fits(&a, 0));
    a.c_in = 32, a.x_ld = 40; /* pixel pitch */
    for (int v = I8_FP8_HALO_FIRST; v < I8_FP8_HALO_END; v++) assert_false(fits(&a, v));
    a.x_ld = 32, a.x = (const void *)(uintptr_t)0x100008; /* base not 16-byte aligned */
    for (int v = I8_FP8_HALO_FIRST; v < I8_FP8_HALO_END; v++) assert_false(fits(&a, v));
    a.x = (const void *)(uintptr_t)0x100000, a.x_fp8 = 0; /* fp16 input */
    for (int v = I8_FP8_HALO_FIRST; v < I8_FP8_HALO_END; v++) assert_false(fits(&a, v));
    a.x_fp8 = 1;
    a.res = (const void *)(uintptr_t)0x600000, a.res_mode = I8_FP8_RES_F16, a.res_ld = 48; /* a residual */
    for (int v = I8_FP8_HALO_FIRST; v < I8_FP8_HALO_END; v++) assert_false(fits(&a, v));
    assert_true(fits(&a, 0));
    a.res = NULL, a.res_mode = I8_FP8_RES_NONE;
    /* c_in 272: K 2448 fits; 32 x 2480 bytes of weights (79 KB) with two halo buffers of 6 rows
     * (2 x 31 KB) do, with two of 10 rows (2 x 52 KB) not; 96 x 2480 bytes of weights do not */
    a.c_in = a.x_ld = 272;
    assert_true(fits(&a, h64x32));
    assert_false(fits(&a, h128x32) || fits(&a, h128x96));
    a.c_in = a.x_ld = 288; /* K 2592: past 2560 */
    for (int v = I8_FP8_HALO_FIRST; v < I8_FP8_HALO_END; v++) assert_false(fits(&a, v));
    /* a 200-wide map: an item is one row of 200 pixels, four 64-pixel tiles, which the warpgroups
     * walk */
    a.c_in = a.x_ld = 32, a.h = a.w = a.ho = a.wo = 200;
    for (int v = I8_FP8_HALO_FIRST; v < I8_FP8_HALO_END; v++) assert_true(fits(&a, v));
    /* 1x7 and 7x1 taps, stride 2 */
    a = pointwise(1);
    a.c_in = a.x_ld = 64, a.kh = 1, a.kw = 7, a.pw = 3;
    assert_true(fits(&a, h64x64));
    a.kh = 7, a.kw = 1, a.ph = 3, a.pw = 0;
    assert_true(fits(&a, h128x64));
    a.kh = a.kw = 3, a.ph = a.pw = 0, a.sh = a.sw = 2, a.ho = a.wo = 8;
    assert_true(fits(&a, h64x32));
}

/* INFER8_CUDA_FP8_VARIANT's list: the variants it names, those past the table left out, up to the
 * first thing that is not a number */
static void test_variant_list(void **state) {
    (void)state;
    const int n = i8_cuda_conv_fp8_variants();
    i8_fp8_variant_set s = i8_fp8_variant_set_parse("0,17,62", n);
    for (int v = -1; v <= 64 * I8_FP8_VARIANT_SET_WORDS; v++)
        assert_int_equal(i8_fp8_variant_set_has(&s, v), v == 0 || v == 17 || v == 62);
    s = i8_fp8_variant_set_parse("5,x,7", n);
    assert_true(i8_fp8_variant_set_has(&s, 5) && !i8_fp8_variant_set_has(&s, 7));
    s = i8_fp8_variant_set_parse("200,-1", n); /* out of range: nothing */
    assert_true(i8_fp8_variant_set_empty(&s));
    s = i8_fp8_variant_set_parse("", n);
    assert_true(i8_fp8_variant_set_empty(&s));
    s = i8_fp8_variant_set_parse(NULL, n);
    assert_true(i8_fp8_variant_set_empty(&s));
    /* a variant past 63 (the set's second word), with a table that long */
    s = i8_fp8_variant_set_parse("3,64,127,128", 128);
    assert_true(i8_fp8_variant_set_has(&s, 3) && i8_fp8_variant_set_has(&s, 64) && i8_fp8_variant_set_has(&s, 127));
    assert_false(i8_fp8_variant_set_has(&s, 128) || i8_fp8_variant_set_has(&s, 63));
    assert_int_equal(s.w[0], (uint64_t)1 << 3);
    assert_int_equal(s.w[1], ((uint64_t)1 << 0) | ((uint64_t)1 << 63));
}

/* a variant that does not fit is refused with cudaErrorInvalidValue (1) before any CUDA call,
 * so this runs without a GPU */
static void test_refused_launch(void **state) {
    (void)state;
    i8_cuda_fp8_conv_args a = pointwise(0);
    assert_int_equal(i8_cuda_conv_fp8(&a, TMA_S4, NULL), 1);
    a = pointwise(1);
    a.kh = a.kw = 3;
    assert_int_equal(i8_cuda_conv_fp8(&a, TMA_S4P, NULL), 1);
    a.x_fp8 = 0; /* fp16 input to a spatial conv: not the im2col kernels */
    assert_int_equal(i8_cuda_conv_fp8(&a, TMA_S4C, NULL), 1);
    assert_int_equal(i8_cuda_conv_fp8(&a, i8_cuda_conv_fp8_variants(), NULL), 1);
    a = pointwise(1); /* pointwise: not the halo kernels, nor the mixed im2col ones */
    assert_int_equal(i8_cuda_conv_fp8(&a, I8_FP8_HALO_FIRST, NULL), 1);
    assert_int_equal(i8_cuda_conv_fp8(&a, TMA_S4PCM, NULL), 1);
    assert_int_equal(i8_cuda_conv_fp8(&a, TMA_S4P3C, NULL), 1);
    a.kh = a.kw = 3; /* spatial: not the pointwise three-consumer kernels */
    assert_int_equal(i8_cuda_conv_fp8(&a, TMA_S4P3, NULL), 1);
    assert_int_equal(i8_cuda_conv_fp8(&a, TMA_S4P3R, NULL), 1);
    assert_int_equal(i8_cuda_conv_fp8(NULL, 0, NULL), 1);
}

/* Which outputs the TMA kernels store with TMA stores (i8_cuda_conv_fp8_tma_store_fits): 16-byte
 * aligned bases and row strides, and rows of whole 16-byte chunks, since a TMA store writes whole
 * chunks (session 32: an e4m3 slice of 40 channels in a concat overwrote 8 of the next branch's);
 * the others through 16- / 8-byte stores, as INFER8_CUDA_TMA_STORE=0 makes every launch. */
static void test_tma_store_fits(void **state) {
    (void)state;
    /* outputs of pointwise(1) changed to: c_out, row pitch y_ld, byte offsets of the fp16 and e4m3
     * outputs (-1: none), and whether TMA stores them */
    static const struct {
        int c_out, y_ld, y_off, q_off, tma;
        const char *why;
    } cases[] = {
        {1088, 1088, 0, 0, 1, "both outputs, aligned"},
        {40, 256, 0, 0, 0, "a 40-channel concat slice: e4m3 rows of 40 bytes reach into channels 40-47"},
        {40, 256, 0, -1, 1, "the same slice in fp16 alone: rows of 80 bytes, whole chunks"},
        {40, 256, -1, 0, 0, "the same slice in e4m3 alone"},
        {48, 256, -1, 0, 1, "48 e4m3 bytes: three whole chunks"},
        {72, 256, 80, 40, 0, "an e4m3 slice at channel 40: 8 bytes past a chunk"},
        {64, 256, 96, 48, 1, "an e4m3 slice at channel 48"},
        {1024, 1032, 0, 0, 0, "e4m3 rows 1032 bytes apart"},
        {1024, 1032, 0, -1, 1, "fp16 rows 2064 bytes apart"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        i8_cuda_fp8_conv_args a = pointwise(1);
        a.c_out = cases[i].c_out, a.y_ld = cases[i].y_ld;
        a.y = cases[i].y_off < 0 ? NULL : (void *)(uintptr_t)(0x400000 + cases[i].y_off);
        a.yq = cases[i].q_off < 0 ? NULL : (void *)(uintptr_t)(0x500000 + cases[i].q_off);
        if (!fits(&a, TMA_S4) || i8_cuda_conv_fp8_tma_store_fits(&a) != cases[i].tma)
            fail_msg("%s: fits %d, TMA stores %d, expected %d", cases[i].why, fits(&a, TMA_S4),
                     i8_cuda_conv_fp8_tma_store_fits(&a), cases[i].tma);
        a.tma_store_off = 1; /* INFER8_CUDA_TMA_STORE=0 */
        assert_false(i8_cuda_conv_fp8_tma_store_fits(&a));
    }
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_numbering_and_names),
        cmocka_unit_test(test_halo_pipe),
        cmocka_unit_test(test_fits),
        cmocka_unit_test(test_fits_halo),
        cmocka_unit_test(test_variant_list),
        cmocka_unit_test(test_refused_launch),
        cmocka_unit_test(test_tma_store_fits),
    };
    return cmocka_run_group_tests_name("test_cuda_fp8_variants", tests, NULL, NULL);
}
#else
int main(void) {
    printf("test_cuda_fp8_variants: no CUDA in this build, skipped\n");
    return 77;
}
#endif
