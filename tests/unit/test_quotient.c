/* The halo kernels' division by a launch-time count (backends/cuda/quotient.h) against C's division:
 * every x below 2^16 for each divisor 1..300 (the halo's channel pieces, columns, bands and widths
 * are of that size), and for divisors up to 2^14 the x at and around multiples of d near the bound
 * x d < 2^32 that the kernels' geometry checks. It can fail: without the + 1 the multiplier gives
 * d / d = 0, and past the bound the quotient does go wrong. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <cmocka.h>

#include "backends/cuda/quotient.h"

/* whether x / d is right for x; only x >= 0 with x d < 2^32 is promised */
static int quotient_ok(long long x, long long d) { return i8_quot((int)x, i8_quot_multiplier(d)) == (int)(x / d); }

static void test_small_divisors_every_x(void **state) {
    (void)state;
    long bad = 0;
    for (long long d = 1; d <= 300; d++)
        for (long long x = 0; x < 65536; x++)
            if (!quotient_ok(x, d) && bad++ < 5) fprintf(stderr, "%lld / %lld wrong\n", x, d);
    assert_int_equal(bad, 0);
}

static void test_near_the_bound(void **state) {
    (void)state;
    long bad = 0;
    for (long long d = 1; d <= 16384; d++) {
        /* the largest x the bound allows, capped at int's range, and the multiples of d below it */
        long long top = ((1ll << 32) - 1) / d;
        if (top > INT32_MAX) top = INT32_MAX;
        for (long long k = top / d; k >= 0 && k >= top / d - 3; k--)
            for (long long x = k * d - 1; x <= k * d + 1; x++)
                if (x >= 0 && x <= top && !quotient_ok(x, d) && bad++ < 5) fprintf(stderr, "%lld / %lld wrong\n", x, d);
        if (!quotient_ok(top, d) && bad++ < 5) fprintf(stderr, "%lld / %lld wrong\n", top, d);
    }
    assert_int_equal(bad, 0);
}

static void test_the_checks_can_fail(void **state) {
    (void)state;
    /* the multiplier without its + 1 gives 0 for d / d */
    const unsigned floor_only = (unsigned)((1ull << 32) / 3);
    assert_int_equal(i8_quot(3, floor_only), 0);
    /* past the bound: some x with x d >= 2^32 divides wrong (d 7: x up to floor((2^32 - 1) / 7) is
     * promised; a search above it finds a miss) */
    long long miss = -1;
    for (long long x = ((1ll << 32) - 1) / 7 + 1; x <= INT32_MAX && miss < 0; x++)
        if (!quotient_ok(x, 7)) miss = x;
    assert_true(miss > 0);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_small_divisors_every_x),
        cmocka_unit_test(test_near_the_bound),
        cmocka_unit_test(test_the_checks_can_fail),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
