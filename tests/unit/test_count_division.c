/* The average pools' division (backends/cuda/count_division.h) against IEEE division, bit for bit:
 * every significand of [1, 2) for each window count d = 1..64 (x 2^k / d rounds as x / d does
 * while the quotient stays normal, so this covers every x the pools can sum: sums of at most 64
 * fp16 values, |x| from 2^-24 to 64 x 65504), spot checks at the ends of that range, both signs,
 * and zeros, infinities and NaN. The check can fail: the product alone (no correction) differs on
 * millions of significands. (A reciprocal one ulp off still passes: the correction absorbs it.) */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "backends/cuda/count_division.h"
#include "float_bits.h"

typedef float (*divide_fn)(float x, float d, float r);
static float product_only(float x, float d, float r) { return (void)d, x * r; }

/* how many of the 2^23 significands, scaled by 2^exp2 and given sign, divide differently */
static long mismatches(divide_fn divide, float d, float r, int exp2, int negative) {
    long bad = 0;
    for (uint32_t m = 0; m < (1u << 23); m++) {
        float x = ldexpf(from_bits(0x3f800000u | m), exp2);
        if (negative) x = -x;
        const float want = x / d;
        if (to_bits(divide(x, d, r)) != to_bits(want)) bad++;
    }
    return bad;
}

static void test_every_significand(void **state) {
    (void)state;
    for (int d = 1; d <= 64; d++) {
        const float df = (float)d, r = 1.0f / df;
        long bad = mismatches(i8_div_by_count, df, r, 0, 0);
        if (bad) fprintf(stderr, "d = %d: %ld of 2^23 significands differ\n", d, bad);
        assert_int_equal(bad, 0);
    }
}

static void test_range_ends_and_specials(void **state) {
    (void)state;
    static const int divisors[] = {3, 6, 9};
    static const int exps[] = {-24, -14, -1, 10, 15, 19};
    for (size_t i = 0; i < sizeof divisors / sizeof *divisors; i++) {
        const float d = (float)divisors[i], r = 1.0f / d;
        for (size_t k = 0; k < sizeof exps / sizeof *exps; k++)
            for (int neg = 0; neg < 2; neg++) assert_int_equal(mismatches(i8_div_by_count, d, r, exps[k], neg), 0);
        assert_int_equal(to_bits(i8_div_by_count(0.0f, d, r)), to_bits(0.0f));
        assert_int_equal(to_bits(i8_div_by_count(-0.0f, d, r)), to_bits(-0.0f / d));
        assert_true(i8_div_by_count(INFINITY, d, r) == INFINITY);
        assert_true(i8_div_by_count(-INFINITY, d, r) == -INFINITY);
        assert_true(isnan(i8_div_by_count(NAN, d, r)));
    }
}

/* the check is not vacuous: without the correction, x r differs from x / d for many x */
static void test_uncorrected_product_caught(void **state) {
    (void)state;
    for (int d = 3; d <= 9; d += 3) {
        const long bad = mismatches(product_only, (float)d, 1.0f / (float)d, 0, 0);
        fprintf(stderr, "  d = %d: x r alone differs on %ld of 2^23 significands\n", d, bad);
        assert_true(bad > 100000);
    }
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_significand),
        cmocka_unit_test(test_range_ends_and_specials),
        cmocka_unit_test(test_uncorrected_product_caught),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
