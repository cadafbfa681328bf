/* The CUDA tuner's cuDNN budget rule (backends/cuda/cudnn_budget.h), on the CPU: the share each
 * problem gets, and a batch of problems tuned under it as dnn_tune tunes them (each cuDNN
 * configuration costing a fixed time to build and time). The model is session 46's case:
 * inception_resnet_v2's 39 fp16 problems at opt level 1 (10 s), where spending the budget first
 * come, first served (the default) left most of them on cuDNN's first configuration. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "backends/cuda/cudnn_budget.h"

static void test_share(void **state) {
    (void)state;
    assert_float_equal(i8_cudnn_share_s(10.0, 0.0, 39, 0, 1), 10.0 / 39.0, 1e-12);
    assert_float_equal(i8_cudnn_share_s(10.0, 4.0, 3, 0, 1), 2.0, 1e-12);
    assert_float_equal(i8_cudnn_share_s(10.0, 4.0, 0, 0, 1), 6.0, 1e-12); /* none counted: all that is left */
    assert_float_equal(i8_cudnn_share_s(10.0, 4.0, 3, 1, 1), 6.0, 1e-12); /* FP8: all that is left */
    assert_float_equal(i8_cudnn_share_s(10.0, 4.0, 3, 0, 0), 6.0, 1e-12); /* not shared */
    assert_true(i8_cudnn_share_s(10.0, 12.0, 3, 0, 1) < 0.0);
}

static void test_may_try(void **state) {
    (void)state;
    for (int shared = 0; shared < 2; shared++) {
        assert_true(i8_cudnn_may_try(0.0, -1.0, 0, 0, shared));  /* fp16: the first config, budget spent or not */
        assert_false(i8_cudnn_may_try(0.0, -1.0, 0, 1, shared)); /* FP8: nothing once spent */
        assert_true(i8_cudnn_may_try(0.2, 0.25, 0, 1, shared));  /* FP8: while time is left */
        assert_false(i8_cudnn_may_try(0.3, 0.25, 0, 1, shared));
        assert_true(i8_cudnn_may_try(0.2, 0.25, 4, 0, shared));  /* shared: one more of 0.05 s ends within it */
    }
    assert_false(i8_cudnn_may_try(0.2, 0.25, 1, 0, 1)); /* shared: a second config of 0.2 s would end past the share */
    assert_true(i8_cudnn_may_try(0.2, 0.25, 1, 0, 0));  /* first come: it starts while time is left */
}

typedef struct tuned_batch {
    int untuned;      /* problems left on the first configuration with more untried */
    int cut_short;    /* problems timed on two or more configurations, not all */
    int fewest_tried; /* the fewest configurations any problem tried */
    double spent_s;
} tuned_batch;

/* problems x configs, each configuration cost_s; the loop of dnn_tune over them */
static tuned_batch tune(int problems, int configs, double cost_s, double budget_s, int shared) {
    tuned_batch r = {0, 0, configs, 0.0};
    for (int p = 0; p < problems; p++) {
        const double share_s = i8_cudnn_share_s(budget_s, r.spent_s, problems - p, 0, shared);
        double elapsed_s = 0.0;
        int tried = 0;
        for (int i = 0; i < configs; i++) {
            if (!i8_cudnn_may_try(elapsed_s, share_s, tried, 0, shared)) {
                r.untuned += tried == 1, r.cut_short += tried > 1;
                break;
            }
            tried++;
            elapsed_s += cost_s;
        }
        if (tried < r.fewest_tried) r.fewest_tried = tried;
        r.spent_s += elapsed_s;
    }
    return r;
}

static void test_batch_first_come(void **state) {
    (void)state;
    /* 24 configs of 50 ms: 1.2 s a problem, so 10 s covers 8 problems fully, then a part of
     * the 9th, and the other 30 keep the first config: session 46's 30 of 39 at batch 1 */
    tuned_batch r = tune(39, 24, 0.05, 10.0, 0);
    assert_int_equal(r.untuned, 30);
    assert_int_equal(r.fewest_tried, 1);
}

static void test_batch_shared(void **state) {
    (void)state;
    tuned_batch r = tune(39, 24, 0.05, 10.0, 1);
    assert_int_equal(r.untuned, 0);
    assert_int_equal(r.cut_short, 39);
    assert_true(r.fewest_tried >= 5); /* 10 / 39 = 0.256 s: the first 5 configs at least */
    assert_true(r.spent_s <= 10.0);   /* no problem overruns its share */
    /* a budget that covers everything tunes everything */
    r = tune(39, 24, 0.05, 60.0, 1);
    assert_int_equal(r.untuned + r.cut_short, 0);
    assert_int_equal(r.fewest_tried, 24);
    /* a budget below one config per problem: the first config each, as before */
    r = tune(39, 24, 0.05, 1.0, 1);
    assert_int_equal(r.fewest_tried, 1);
    assert_true(r.untuned > 30);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_share),
        cmocka_unit_test(test_may_try),
        cmocka_unit_test(test_batch_first_come),
        cmocka_unit_test(test_batch_shared),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
