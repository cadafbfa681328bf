/* Adaptive fp16 rounding (quant/fp16_round.h): the patch Gram matrix against a direct sum over
 * positions written independently here; the rounding on cases with known answers (uncorrelated
 * inputs: round to nearest exactly; correlated inputs: every result an fp16 value within its
 * reach, the output error, computed here in double, well below round-to-nearest's) and its
 * refusals. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "quant/fp16_round.h"

static uint64_t rng_state = 0x9e3779b97f4a7c15ull;
static double uniform(void) { /* [0, 1), xorshift64* */
    rng_state ^= rng_state >> 12, rng_state ^= rng_state << 25, rng_state ^= rng_state >> 27;
    return (double)((rng_state * 0x2545f4914f6cdd1dull) >> 11) / 9007199254740992.0;
}
static double gauss(void) { return sqrt(-2 * log(1 - uniform())) * cos(6.283185307179586 * uniform()); }
static float f16(float v) { return i8_f16_to_f32(i8_f32_to_f16(v)); }

/* H[a][b] = sum over images and output positions of x at patch element a times x at element b,
 * elements decoded from their index (c, i, j) and read with bounds checks (padding = 0) */
static double direct_gram(const i8_patch_shape *s, int n, const float *x, int a, int b) {
    const int taps = s->kh * s->kw;
    const int ca = a / taps, ia = a % taps / s->kw, ja = a % s->kw;
    const int cb = b / taps, ib = b % taps / s->kw, jb = b % s->kw;
    double sum = 0;
    for (int img = 0; img < n; img++)
        for (int oy = 0; oy < s->ho; oy++)
            for (int ox = 0; ox < s->wo; ox++) {
                const int ya = oy * s->sh - s->ph + ia, xa = ox * s->sw - s->pw + ja;
                const int yb = oy * s->sh - s->ph + ib, xb = ox * s->sw - s->pw + jb;
                if (ya < 0 || ya >= s->h || xa < 0 || xa >= s->w || yb < 0 || yb >= s->h || xb < 0 || xb >= s->w)
                    continue;
                const float *xi = x + (size_t)img * s->h * s->w * s->c;
                sum += (double)xi[((size_t)ya * s->w + xa) * s->c + ca] * xi[((size_t)yb * s->w + xb) * s->c + cb];
            }
    return sum;
}

static void test_patch_gram(void **state) {
    (void)state;
    /* 3 x 2 kernel, stride (2, 1), padding (1, 1), 3 channels, 2 images of 5 x 7: 70 positions,
     * more than one block of 64, and a short last block */
    const i8_patch_shape s = {3, 5, 7, 3, 2, 2, 1, 1, 1, (5 + 2 - 3) / 2 + 1, (7 + 2 - 2) / 1 + 1};
    const int n = 2, K = s.c * s.kh * s.kw;
    float *x = malloc(sizeof(float) * n * s.h * s.w * s.c);
    for (int i = 0; i < n * s.h * s.w * s.c; i++) x[i] = (float)gauss();
    double *H = calloc((size_t)K * K, sizeof *H);
    i8_err err;
    assert_int_equal(i8_patch_gram_add(&s, n, x, H, &err), INFER8_OK);
    assert_int_equal(i8_patch_gram_add(&s, n, x, H, &err), INFER8_OK); /* accumulates */
    for (int a = 0; a < K; a++)
        for (int b = 0; b < K; b++) {
            const double want = 2 * direct_gram(&s, n, x, a, b);
            assert_true(fabs(H[(size_t)a * K + b] - want) <= 1e-5 * (1 + fabs(want)));
        }
    i8_patch_shape bad = s;
    bad.sh = 0;
    assert_int_equal(i8_patch_gram_add(&bad, n, x, H, &err), INFER8_E_INVALID_ARGUMENT);
    free(H);
    free(x);
}

/* H of inputs with a mean and neighbour correlation (AR(1), rho 0.9), as a conv's ReLU inputs */
static void correlated_gram(int K, double *H) {
    const int samples = 4000;
    double *p = malloc(sizeof(double) * K);
    memset(H, 0, sizeof(double) * K * K);
    for (int t = 0; t < samples; t++) {
        double v = gauss();
        for (int k = 0; k < K; k++) {
            v = 0.9 * v + sqrt(1 - 0.81) * gauss();
            p[k] = 0.8 + v;
        }
        for (int a = 0; a < K; a++)
            for (int b = 0; b < K; b++) H[(size_t)a * K + b] += p[a] * p[b];
    }
    free(p);
}

static double error_of(const float *W, const float *Q, int O, int K, const double *H) {
    double e = 0;
    for (int o = 0; o < O; o++)
        for (int a = 0; a < K; a++)
            for (int b = 0; b < K; b++)
                e += ((double)Q[o * K + a] - W[o * K + a]) * H[(size_t)a * K + b] * ((double)Q[o * K + b] - W[o * K + b]);
    return e;
}

static void test_round_correlated(void **state) {
    (void)state;
    enum { O = 8, K = 48 };
    double *H = malloc(sizeof(double) * K * K);
    correlated_gram(K, H);
    float W[O * K], Q[O * K], nearest[O * K];
    for (int e = 0; e < O * K; e++) W[e] = (float)(0.05 * gauss());
    W[3] = 1e-6f; /* subnormal in fp16: its reach is 2 subnormal steps */
    for (int e = 0; e < O * K; e++) nearest[e] = f16(W[e]);
    memcpy(Q, W, sizeof Q);
    i8_fp16_round_report r;
    i8_err err;
    assert_int_equal(i8_fp16_round_adaptive(Q, O, K, H, 2, &r, &err), INFER8_OK);
    int moved = 0;
    for (int e = 0; e < O * K; e++) {
        assert_true(f16(Q[e]) == Q[e]); /* an fp16 value */
        int ex = 0;
        frexp(fabs((double)W[e]), &ex);
        const double ulp = ldexp(1.0, (ex - 1 < -14 ? -14 : ex - 1) - 10);
        assert_true(fabs((double)Q[e] - W[e]) <= 2.5 * ulp * (1 + 1e-9));
        moved += Q[e] != nearest[e];
    }
    const double e_near = error_of(W, nearest, O, K, H), e_adapt = error_of(W, Q, O, K, H);
    print_message("correlated inputs: output error %.3g of round-to-nearest's, %d of %d weights moved\n",
                  e_adapt / e_near, moved, O * K);
    assert_true(e_adapt < 0.25 * e_near); /* mean and correlation: most of the error cancels */
    assert_int_equal(r.moved, moved);
    assert_true(fabs(r.error_nearest - e_near) <= 1e-9 * e_near && fabs(r.error_adaptive - e_adapt) <= 1e-9 * e_near);
    assert_true(r.damp == 0.01 && r.dead_inputs == 0);
    free(H);
}

static void test_round_binade_edge(void **state) {
    (void)state;
    /* weights just below 1.0 (fp16 spacing 2^-11 there, 2^-10 above), pushed hard both ways by
     * their strongly coupled large neighbours: those pushed up cross 1.0, where rounding the
     * clipped value could land 2.6 small ulps away; the bound (2 + 1/2 ulps) must still hold */
    enum { O = 64, K = 2 };
    const double H[K * K] = {1, 0.999, 0.999, 1};
    float W[O * K], Q[O * K];
    for (int o = 0; o < O; o++) W[o * K] = (float)(1000 + uniform()), W[o * K + 1] = 1.0f - 0.6f * 0x1p-11f;
    memcpy(Q, W, sizeof Q);
    i8_err err;
    assert_int_equal(i8_fp16_round_adaptive(Q, O, K, H, 2, NULL, &err), INFER8_OK);
    int crossed = 0;
    for (int o = 0; o < O; o++) {
        const double d = fabs((double)Q[o * K + 1] - W[o * K + 1]);
        assert_true(f16(Q[o * K + 1]) == Q[o * K + 1] && d <= 2.5 * 0x1p-11);
        crossed += Q[o * K + 1] >= 1.0f;
    }
    assert_true(crossed > 0 && crossed < O);
}

static void test_round_uncorrelated(void **state) {
    (void)state;
    /* a diagonal H couples no weights: the result is round-to-nearest exactly; an input that never
     * fires (diagonal 0) rounds to nearest too */
    enum { O = 4, K = 10 };
    double H[K * K] = {0};
    for (int k = 1; k < K; k++) H[k * K + k] = 1 + k;
    float W[O * K];
    for (int e = 0; e < O * K; e++) W[e] = (float)gauss();
    float Q[O * K];
    memcpy(Q, W, sizeof Q);
    i8_fp16_round_report r;
    i8_err err;
    assert_int_equal(i8_fp16_round_adaptive(Q, O, K, H, 2, &r, &err), INFER8_OK);
    for (int e = 0; e < O * K; e++) assert_true(Q[e] == f16(W[e]));
    assert_int_equal(r.moved, 0);
    assert_int_equal(r.dead_inputs, 1);
}

static void test_round_refusals(void **state) {
    (void)state;
    double H[4] = {1, 0, 0, 1};
    float W[2] = {1.0f, 70000.0f}, keep[2];
    memcpy(keep, W, sizeof W);
    i8_err err;
    assert_int_equal(i8_fp16_round_adaptive(W, 1, 2, H, 2, NULL, &err), INFER8_E_INVALID_ARGUMENT);
    assert_non_null(strstr(err.msg, "outside binary16"));
    assert_memory_equal(W, keep, sizeof W); /* unchanged on error */
    W[1] = 0.5f;
    assert_int_equal(i8_fp16_round_adaptive(W, 1, 2, H, -1, NULL, &err), INFER8_E_INVALID_ARGUMENT);
    double neg[4] = {-1, 0, 0, -1}; /* no damping makes it positive definite */
    assert_int_equal(i8_fp16_round_adaptive(W, 1, 2, neg, 2, NULL, &err), INFER8_OK); /* both inputs dead */
    double indefinite[4] = {1, 5, 5, 1};
    assert_int_equal(i8_fp16_round_adaptive(W, 1, 2, indefinite, 2, NULL, &err), INFER8_E_INVALID_ARGUMENT);
    assert_non_null(strstr(err.msg, "not positive definite"));
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_patch_gram),         cmocka_unit_test(test_round_correlated),
        cmocka_unit_test(test_round_uncorrelated), cmocka_unit_test(test_round_binade_edge),
        cmocka_unit_test(test_round_refusals),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
