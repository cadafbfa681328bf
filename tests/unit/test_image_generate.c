/* Unit tests of the synthetic image generator (src/image/generate.c): deterministic bytes
 * (a golden hash pins them across machines and compilers), seeds that differ visibly, and
 * content that is not flat. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "image/image.h"

/* FNV-1a of i8_image_generate(seed 1, 64x48), identical at -O0, -O2 and -O3 -march=native. */
#define GOLDEN_SEED1_64x48 0x9f1eee7f11b64b26ull

static uint64_t fnv1a(const uint8_t *p, size_t n) {
    uint64_t h = 0xcbf29ce484222325ull;
    for (size_t i = 0; i < n; i++) h = (h ^ p[i]) * 0x100000001b3ull;
    return h;
}

static double mean_abs_diff(const i8_image *a, const i8_image *b) {
    size_t n = (size_t)a->width * a->height * 3;
    double s = 0;
    for (size_t i = 0; i < n; i++) s += abs((int)a->rgb[i] - (int)b->rgb[i]);
    return s / (double)n;
}

static void deterministic(void **state) {
    (void)state;
    i8_image a, b;
    i8_err err;
    assert_int_equal(i8_image_generate(&a, 1, 64, 48, &err), INFER8_OK);
    assert_int_equal(i8_image_generate(&b, 1, 64, 48, &err), INFER8_OK);
    assert_int_equal(a.width, 64);
    assert_int_equal(a.height, 48);
    assert_memory_equal(a.rgb, b.rgb, 64 * 48 * 3);
    /* golden: only +-*\/ and sqrt, so this hash must hold on every machine */
    assert_int_equal(fnv1a(a.rgb, 64 * 48 * 3), GOLDEN_SEED1_64x48);
    i8_image_free(&a);
    i8_image_free(&b);
}

static void seeds_differ(void **state) {
    (void)state;
    i8_image im[4];
    i8_err err;
    for (int s = 0; s < 4; s++) assert_int_equal(i8_image_generate(&im[s], (uint64_t)s + 100, 96, 64, &err), INFER8_OK);
    for (int s = 0; s < 4; s++) {
        for (int t = s + 1; t < 4; t++) assert_true(mean_abs_diff(&im[s], &im[t]) > 15.0);
        /* not flat: a per-channel spread well above the noise level */
        double mean = 0, var = 0;
        size_t n = 96 * 64;
        for (size_t i = 0; i < n; i++) mean += im[s].rgb[3 * i + 1];
        mean /= (double)n;
        for (size_t i = 0; i < n; i++) var += (im[s].rgb[3 * i + 1] - mean) * (im[s].rgb[3 * i + 1] - mean);
        assert_true(var / (double)n > 100.0);
    }
    for (int s = 0; s < 4; s++) i8_image_free(&im[s]);
}

static void sizes(void **state) {
    (void)state;
    i8_image im;
    i8_err err;
    assert_int_equal(i8_image_generate(&im, 5, 1, 1, &err), INFER8_OK);
    i8_image_free(&im);
    assert_int_equal(i8_image_generate(&im, 5, 3, 1000, &err), INFER8_OK);
    i8_image_free(&im);
    assert_int_equal(i8_image_generate(&im, 5, 0, 10, &err), INFER8_E_INVALID_ARGUMENT);
    assert_int_equal(i8_image_generate(&im, 5, 10, -1, &err), INFER8_E_INVALID_ARGUMENT);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(deterministic), cmocka_unit_test(seeds_differ), cmocka_unit_test(sizes),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
