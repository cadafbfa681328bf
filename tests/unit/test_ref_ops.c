/* Unit tests of the reference CPU operators (src/backends/cpu/ref_ops.c): small hand-computed
 * cases for every op, and random shapes against a naive NCHW convolution written here in the
 * most direct form (double accumulation). */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "backends/cpu/ref_ops.h"

/* ---- helpers -------------------------------------------------------------------------------- */

static void assert_floats(const float *got, const float *want, size_t n, double tol) {
    for (size_t i = 0; i < n; i++) {
        if (fabs((double)got[i] - (double)want[i]) > tol) {
            print_error("index %zu: got %.9g, want %.9g\n", i, (double)got[i], (double)want[i]);
            fail();
        }
    }
}

/* max |a - b| / max |b| */
static double rel_diff(const float *a, const float *b, size_t n) {
    double d = 0, m = 0;
    for (size_t i = 0; i < n; i++) {
        d = fmax(d, fabs((double)a[i] - (double)b[i]));
        m = fmax(m, fabs((double)b[i]));
    }
    return m > 0 ? d / m : d;
}

static float *rand_floats(i8_rng *r, size_t n) {
    float *p = malloc(n * sizeof *p);
    assert_non_null(p);
    for (size_t i = 0; i < n; i++) p[i] = (float)(2.0 * i8_rng_uniform(r) - 1.0);
    return p;
}

/* Re-lays weights and runs i8_ref_conv2d (or the f64 variant) on an NCHW input; returns NCHW. */
static void conv_nchw(const i8_ref_conv_shape *s, const float *x_nchw, const float *w_oihw, const float *bias,
                      const float *res_nchw, float scale, i8_act act, int f64, float *y_nchw) {
    size_t xn = (size_t)s->n * s->in_c * s->in_h * s->in_w, yn = (size_t)s->n * s->out_c * s->out_h * s->out_w;
    size_t wn = (size_t)s->kh * s->kw * s->in_c * i8_ref_conv_out_padded(s->out_c);
    float *x = malloc(xn * 4), *w = malloc(wn * 4), *y = malloc(yn * 4), *res = res_nchw ? malloc(yn * 4) : NULL;
    assert_true(x && w && y);
    i8_ref_nchw_to_nhwc(s->n, s->in_c, s->in_h, s->in_w, x_nchw, x);
    if (res) i8_ref_nchw_to_nhwc(s->n, s->out_c, s->out_h, s->out_w, res_nchw, res);
    i8_ref_conv_relayout(w_oihw, s->out_c, s->in_c, s->kh, s->kw, w);
    (f64 ? i8_ref_conv2d_f64 : i8_ref_conv2d)(s, x, w, bias, res, scale, act, y);
    i8_ref_nhwc_to_nchw(s->n, s->out_c, s->out_h, s->out_w, y, y_nchw);
    free(x), free(w), free(y), free(res);
}

/* The oracle: textbook NCHW convolution, double accumulation, same epilogue. */
static void conv_naive(const i8_ref_conv_shape *s, const float *x, const float *w, const float *bias,
                       const float *res, float scale, i8_act act, float *y) {
    for (int b = 0; b < s->n; b++)
        for (int o = 0; o < s->out_c; o++)
            for (int oy = 0; oy < s->out_h; oy++)
                for (int ox = 0; ox < s->out_w; ox++) {
                    double sum = bias ? bias[o] : 0.0;
                    for (int i = 0; i < s->in_c; i++)
                        for (int ky = 0; ky < s->kh; ky++)
                            for (int kx = 0; kx < s->kw; kx++) {
                                int iy = oy * s->sh - s->ph + ky, ix = ox * s->sw - s->pw + kx;
                                if (iy < 0 || iy >= s->in_h || ix < 0 || ix >= s->in_w) continue;
                                sum += (double)x[((b * s->in_c + i) * s->in_h + iy) * s->in_w + ix] *
                                       w[((o * s->in_c + i) * s->kh + ky) * s->kw + kx];
                            }
                    size_t at = ((size_t)(b * s->out_c + o) * s->out_h + oy) * s->out_w + ox;
                    if (res) sum = res[at] + scale * sum;
                    if (act == I8_ACT_RELU && sum < 0) sum = 0;
                    y[at] = (float)sum;
                }
}

/* ---- conv: hand-computed ---------------------------------------------------------------------- */

/* 2 in / 2 out channels, 3x3. out0 = all-ones kernel on in0; out1 = centre tap of in0 plus an
 * all-ones kernel on in1 (a constant-1 channel), i.e. x0 + number of in-bounds taps. */
static void two_channel_weights(float w[2][2][3][3]) {
    memset(w, 0, sizeof(float) * 36);
    for (int k = 0; k < 9; k++) w[0][0][k / 3][k % 3] = 1, w[1][1][k / 3][k % 3] = 1;
    w[1][0][1][1] = 1;
}

static void test_conv_3x3_s1_p1(void **state) {
    (void)state;
    float x[2][4][4], w[2][2][3][3], y[2][4][4];
    for (int i = 0; i < 16; i++) x[0][i / 4][i % 4] = (float)(i + 1), x[1][i / 4][i % 4] = 1;
    two_channel_weights(w);
    i8_ref_conv_shape s = {1, 4, 4, 2, 4, 4, 2, 3, 3, 1, 1, 1, 1};
    conv_nchw(&s, &x[0][0][0], &w[0][0][0][0], NULL, NULL, 0, I8_ACT_NONE, 0, &y[0][0][0]);
    static const float want[2][16] = {{14, 24, 30, 22, 33, 54, 63, 45, 57, 90, 99, 69, 46, 72, 78, 54},
                                      {5, 8, 9, 8, 11, 15, 16, 14, 15, 19, 20, 18, 17, 20, 21, 20}};
    assert_floats(&y[0][0][0], &want[0][0], 32, 0);
    conv_nchw(&s, &x[0][0][0], &w[0][0][0][0], NULL, NULL, 0, I8_ACT_NONE, 1, &y[0][0][0]);
    assert_floats(&y[0][0][0], &want[0][0], 32, 0);
}

static void test_conv_3x3_s2_p0(void **state) {
    (void)state;
    float x[2][5][5], w[2][2][3][3], y[2][2][2];
    for (int i = 0; i < 25; i++) x[0][i / 5][i % 5] = (float)(i + 1), x[1][i / 5][i % 5] = 1;
    two_channel_weights(w);
    i8_ref_conv_shape s = {1, 5, 5, 2, 2, 2, 2, 3, 3, 2, 2, 0, 0};
    conv_nchw(&s, &x[0][0][0], &w[0][0][0][0], NULL, NULL, 0, I8_ACT_NONE, 0, &y[0][0][0]);
    /* window sums = 9 * centre value (centres 7, 9, 17, 19); out1 = centre + 9 */
    static const float want[8] = {63, 81, 153, 171, 16, 18, 26, 28};
    assert_floats(&y[0][0][0], want, 8, 0);
}

static void test_conv_bias_relu(void **state) {
    (void)state;
    /* 1x1, 1 in -> 2 out, w = {1, -1}, bias 0.5: out0 = relu(x + .5), out1 = relu(.5 - x) */
    const float x[2] = {1, -2}, w[2] = {1, -1}, bias[2] = {0.5f, 0.5f};
    float y[4];
    i8_ref_conv_shape s = {1, 1, 2, 1, 1, 2, 2, 1, 1, 1, 1, 0, 0};
    conv_nchw(&s, x, w, bias, NULL, 0, I8_ACT_RELU, 0, y);
    const float want[4] = {1.5f, 0, 0, 2.5f};
    assert_floats(y, want, 4, 0);
    conv_nchw(&s, x, w, bias, NULL, 0, I8_ACT_NONE, 0, y);
    const float want_none[4] = {1.5f, -1.5f, -0.5f, 2.5f};
    assert_floats(y, want_none, 4, 0);
}

static void test_conv_residual(void **state) {
    (void)state;
    /* 1x1, w = 2, bias 1, x = {1, 3}: conv + bias = {3, 7}; res {10, -10}, scale .5 */
    const float x[2] = {1, 3}, w[1] = {2}, bias[1] = {1}, res[2] = {10, -10};
    float y[2];
    i8_ref_conv_shape s = {1, 1, 2, 1, 1, 2, 1, 1, 1, 1, 1, 0, 0};
    conv_nchw(&s, x, w, bias, res, 0.5f, I8_ACT_NONE, 0, y);
    const float want[2] = {11.5f, -6.5f};
    assert_floats(y, want, 2, 0);
    conv_nchw(&s, x, w, bias, res, 0.5f, I8_ACT_RELU, 1, y);
    const float want_relu[2] = {11.5f, 0};
    assert_floats(y, want_relu, 2, 0);
}

/* ---- conv: random shapes against the naive oracle -------------------------------------------- */

static void check_conv_random(i8_ref_conv_shape s, int use_bias, int use_res, i8_act act, uint64_t seed) {
    i8_rng r;
    i8_rng_seed(&r, seed);
    s.out_h = (s.in_h + 2 * s.ph - s.kh) / s.sh + 1;
    s.out_w = (s.in_w + 2 * s.pw - s.kw) / s.sw + 1;
    size_t xn = (size_t)s.n * s.in_c * s.in_h * s.in_w, yn = (size_t)s.n * s.out_c * s.out_h * s.out_w;
    float *x = rand_floats(&r, xn), *w = rand_floats(&r, (size_t)s.out_c * s.in_c * s.kh * s.kw);
    float *bias = use_bias ? rand_floats(&r, (size_t)s.out_c) : NULL, *res = use_res ? rand_floats(&r, yn) : NULL;
    float *y = malloc(yn * 4), *y64 = malloc(yn * 4), *want = malloc(yn * 4);
    conv_naive(&s, x, w, bias, res, 0.3f, act, want);
    conv_nchw(&s, x, w, bias, res, 0.3f, act, 0, y);
    conv_nchw(&s, x, w, bias, res, 0.3f, act, 1, y64);
    double d32 = rel_diff(y, want, yn), d64 = rel_diff(y64, want, yn);
    if (d32 > 1e-6 || d64 > 3e-7) { /* f64: the epilogue rounds in float */
        print_error("conv %dx%d s%d,%d p%d,%d %d->%d on %dx%d: float rel diff %g, f64 rel diff %g\n", s.kh, s.kw, s.sh,
                    s.sw, s.ph, s.pw, s.in_c, s.out_c, s.in_h, s.in_w, d32, d64);
        fail();
    }
    assert_true(rel_diff(y, y64, yn) <= 1e-6); /* fp64 path equals the float path within 1e-6 */
    free(x), free(w), free(bias), free(res), free(y), free(y64), free(want);
}

static void test_conv_random(void **state) {
    (void)state;
    /* n, in_h, in_w, in_c, (out_h, out_w), out_c, kh, kw, sh, sw, ph, pw */
    check_conv_random((i8_ref_conv_shape){2, 9, 11, 5, 0, 0, 11, 3, 3, 1, 1, 1, 1}, 1, 0, I8_ACT_RELU, 1);
    check_conv_random((i8_ref_conv_shape){1, 11, 10, 7, 0, 0, 16, 3, 3, 2, 2, 0, 0}, 0, 0, I8_ACT_NONE, 2);
    check_conv_random((i8_ref_conv_shape){2, 6, 13, 6, 0, 0, 9, 1, 7, 1, 1, 0, 3}, 1, 0, I8_ACT_RELU, 3);
    check_conv_random((i8_ref_conv_shape){1, 13, 6, 6, 0, 0, 8, 7, 1, 1, 1, 3, 0}, 1, 0, I8_ACT_NONE, 4);
    check_conv_random((i8_ref_conv_shape){3, 7, 7, 24, 0, 0, 20, 1, 1, 1, 1, 0, 0}, 1, 1, I8_ACT_RELU, 5);
    check_conv_random((i8_ref_conv_shape){1, 12, 12, 3, 0, 0, 5, 5, 5, 1, 1, 2, 2}, 0, 0, I8_ACT_NONE, 6);
    check_conv_random((i8_ref_conv_shape){1, 10, 10, 16, 0, 0, 12, 3, 3, 1, 1, 1, 1}, 1, 1, I8_ACT_NONE, 7);
}

static void test_conv_relayout(void **state) {
    (void)state;
    /* w[o][i][ky][kx] = 1000o + 100i + 10ky + kx; 10 outputs -> 2 blocks of 8, 6 zero columns */
    float w[10][2][2][2], d[2][2][2][2][8];
    for (int o = 0; o < 10; o++)
        for (int i = 0; i < 2; i++)
            for (int k = 0; k < 4; k++) w[o][i][k / 2][k % 2] = (float)(1000 * o + 100 * i + 10 * (k / 2) + k % 2);
    assert_int_equal(i8_ref_conv_out_padded(3), 8);
    assert_int_equal(i8_ref_conv_out_padded(16), 16);
    assert_int_equal(i8_ref_conv_out_padded(17), 24);
    i8_ref_conv_relayout(&w[0][0][0][0], 10, 2, 2, 2, &d[0][0][0][0][0]);
    assert_float_equal(d[0][1][0][1][2], 2110.0f, 0);   /* o 2, i 1, ky 1, kx 0 */
    assert_float_equal(d[0][0][1][0][1], 1001.0f, 0);   /* o 1, i 0, ky 0, kx 1 */
    assert_float_equal(d[0][1][1][1][0], 111.0f, 0);    /* o 0, i 1, ky 1, kx 1 */
    assert_float_equal(d[1][1][0][1][1], 9110.0f, 0);   /* o 9, i 1, ky 1, kx 0 */
    assert_float_equal(d[1][1][1][1][2], 0.0f, 0);      /* o 10: padding */
    assert_float_equal(d[1][0][0][0][7], 0.0f, 0);
}

/* ---- pools ------------------------------------------------------------------------------------- */

static void test_maxpool(void **state) {
    (void)state;
    float x[49], y[9];
    for (int i = 0; i < 49; i++) x[i] = (float)i; /* x[r][c] = 7r + c, one channel */
    i8_ref_conv_shape s = {1, 7, 7, 1, 3, 3, 1, 3, 3, 2, 2, 0, 0};
    i8_ref_maxpool(&s, x, y);
    const float want[9] = {16, 18, 20, 30, 32, 34, 44, 46, 48};
    assert_floats(y, want, 9, 0);

    /* NaN wins its windows, as in torch (the CUDA pools must match: test_fp8_nan), whether it is
     * met before the window's largest value (x[1][1]) or is where that value was (x[4][6]) */
    x[8] = NAN, x[34] = NAN;
    i8_ref_maxpool(&s, x, y);
    for (int i = 0; i < 9; i++) {
        if (i == 0 || i == 5 || i == 8) assert_true(isnan(y[i]));
        else assert_float_equal(y[i], want[i], 0);
    }

    /* padding is never a candidate: an all-negative input keeps negative maxima */
    float xn[9], yn[4];
    for (int i = 0; i < 9; i++) xn[i] = -(float)(i + 1);
    i8_ref_conv_shape sp = {1, 3, 3, 1, 2, 2, 1, 3, 3, 2, 2, 1, 1};
    i8_ref_maxpool(&sp, xn, yn);
    const float want_p[4] = {-1, -2, -4, -5};
    assert_floats(yn, want_p, 4, 0);
}

static void test_avgpool(void **state) {
    (void)state;
    /* two channels, NHWC: channel 0 = 1, channel 1 = 1..16 */
    float x[16][2], y[16][2];
    for (int i = 0; i < 16; i++) x[i][0] = 1, x[i][1] = (float)(i + 1);
    i8_ref_conv_shape s = {1, 4, 4, 2, 4, 4, 2, 3, 3, 1, 1, 1, 1};
    i8_ref_avgpool(&s, 1, &x[0][0], NULL, I8_ACT_NONE, &y[0][0]);
    assert_float_equal(y[0][0], 4.0f / 9.0f, 1e-7);  /* corner: 4 of 9 taps real */
    assert_float_equal(y[1][0], 6.0f / 9.0f, 1e-7);  /* edge */
    assert_float_equal(y[5][0], 1.0f, 0);            /* interior */
    assert_float_equal(y[0][1], 14.0f / 9.0f, 1e-6); /* (1+2+5+6)/9 */
    i8_ref_avgpool(&s, 0, &x[0][0], NULL, I8_ACT_NONE, &y[0][0]);
    for (int i = 0; i < 16; i++) assert_float_equal(y[i][0], 1.0f, 0);
    assert_float_equal(y[0][1], 3.5f, 0);  /* (1+2+5+6)/4 */
    assert_float_equal(y[1][1], 4.0f, 0);  /* (1+2+3+5+6+7)/6 */
    assert_float_equal(y[15][1], 13.5f, 0); /* (11+12+15+16)/4 */
    assert_float_equal(y[5][1], 6.0f, 0);  /* 54/9 */
    /* with a pool moved below its conv's bias and relu: + bias per channel after the division,
     * then relu */
    const float bias[2] = {-0.5f, -5.0f};
    i8_ref_avgpool(&s, 1, &x[0][0], bias, I8_ACT_NONE, &y[0][0]);
    assert_float_equal(y[0][0], 4.0f / 9.0f - 0.5f, 1e-7);
    assert_float_equal(y[0][1], 14.0f / 9.0f - 5.0f, 1e-6);
    i8_ref_avgpool(&s, 1, &x[0][0], bias, I8_ACT_RELU, &y[0][0]);
    assert_float_equal(y[0][0], 0.0f, 0);            /* 4/9 - 0.5 < 0 */
    assert_float_equal(y[5][0], 0.5f, 0);            /* 1 - 0.5 */
    assert_float_equal(y[0][1], 0.0f, 0);            /* 14/9 - 5 < 0 */
    assert_float_equal(y[5][1], 1.0f, 0);            /* 6 - 5 */
}

/* ---- the rest ----------------------------------------------------------------------------------- */

static void test_concat(void **state) {
    (void)state;
    const float a[2][2] = {{1, 2}, {3, 4}}, b[2][3] = {{5, 6, 7}, {8, 9, 10}};
    const float *xs[2] = {&a[0][0], &b[0][0]};
    const int cs[2] = {2, 3};
    float y[10];
    i8_ref_concat(2, 2, xs, cs, y);
    const float want[10] = {1, 2, 5, 6, 7, 3, 4, 8, 9, 10};
    assert_floats(y, want, 10, 0);
}

static void test_residual_relu(void **state) {
    (void)state;
    const float a[3] = {1, -1, 2}, b[3] = {2, 2, -10};
    float y[3];
    i8_ref_residual(3, a, b, 0.5f, I8_ACT_RELU, y);
    const float want[3] = {2, 0, 0};
    assert_floats(y, want, 3, 0);
    i8_ref_residual(3, a, b, 0.5f, I8_ACT_NONE, y);
    const float want_none[3] = {2, 0, -3};
    assert_floats(y, want_none, 3, 0);
    const float r[4] = {-1, 0, 3, NAN};
    float ry[4];
    i8_ref_relu(4, r, ry);
    assert_float_equal(ry[0], 0, 0);
    assert_float_equal(ry[2], 3, 0);
    assert_true(isnan(ry[3]));
}

static void test_global_avgpool(void **state) {
    (void)state;
    /* n 2, hw 3, c 2 */
    const float x[2][3][2] = {{{1, 10}, {2, 20}, {4, 30}}, {{-3, 0}, {0, 0}, {0, 1.5f}}};
    float y[4];
    i8_ref_global_avgpool(2, 3, 2, &x[0][0][0], y);
    const float want[4] = {7.0f / 3.0f, 20, -1, 0.5f};
    assert_floats(y, want, 4, 0);
}

static void test_linear(void **state) {
    (void)state;
    const float x[2][3] = {{1, 2, 3}, {-1, 0, 2}}, w[2][3] = {{1, 0, -1}, {2, 1, 0.5f}}, bias[2] = {10, -1};
    float y[4];
    const float want[4] = {8, 4.5f, 7, -2};
    i8_ref_linear(2, 3, 2, &x[0][0], &w[0][0], bias, y);
    assert_floats(y, want, 4, 0);
    i8_ref_linear_f64(2, 3, 2, &x[0][0], &w[0][0], bias, y);
    assert_floats(y, want, 4, 0);
}

static void test_batchnorm(void **state) {
    (void)state;
    /* var + eps = 4 and 1 exactly: y = (x - mean) / {2, 1} * gamma + beta */
    const float x[2][2] = {{3, 5}, {-1, 1}}, gamma[2] = {2, 3}, beta[2] = {1, -1}, mean[2] = {1, 1};
    const float var[2] = {3.75f, 0.75f};
    float y[4];
    i8_ref_batchnorm(2, 2, &x[0][0], gamma, beta, mean, var, 0.25f, y);
    const float want[4] = {3, 11, -1, -1};
    assert_floats(y, want, 4, 0);
}

static void test_layout(void **state) {
    (void)state;
    float nchw[2 * 3 * 2 * 2], nhwc[24], back[24];
    for (int i = 0; i < 24; i++) nchw[i] = (float)i;
    i8_ref_nchw_to_nhwc(2, 3, 2, 2, nchw, nhwc);
    /* image 1, h 0, w 1, channel 2 = nchw[1][2][0][1] = 12 + 8 + 1 */
    assert_float_equal(nhwc[((1 * 2 + 0) * 2 + 1) * 3 + 2], 21.0f, 0);
    i8_ref_nhwc_to_nchw(2, 3, 2, 2, nhwc, back);
    assert_memory_equal(back, nchw, sizeof nchw);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_conv_3x3_s1_p1), cmocka_unit_test(test_conv_3x3_s2_p0),
        cmocka_unit_test(test_conv_bias_relu), cmocka_unit_test(test_conv_residual),
        cmocka_unit_test(test_conv_random),    cmocka_unit_test(test_conv_relayout),
        cmocka_unit_test(test_maxpool),        cmocka_unit_test(test_avgpool),
        cmocka_unit_test(test_concat),         cmocka_unit_test(test_residual_relu),
        cmocka_unit_test(test_global_avgpool), cmocka_unit_test(test_linear),
        cmocka_unit_test(test_batchnorm),      cmocka_unit_test(test_layout),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
