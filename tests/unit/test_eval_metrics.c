/* Unit tests of src/eval/metrics.c (hand-computed KL, agreement, top-k with ties and NaN,
 * exact percentiles, NaN/Inf counting), the XML escaping of src/eval/svg.c and the shard-pattern
 * expansion of src/eval/dataset.c. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <math.h>
#include <cmocka.h>

#include "eval/dataset.h"
#include "eval/metrics.h"
#include "eval/svg.h"

/* KL of two 2-class distributions from the closed form p = sigmoid(r1 - r0). */
static double kl2(double r0, double r1, double v0, double v1) {
    double p1 = 1.0 / (1.0 + exp(r0 - r1)), q1 = 1.0 / (1.0 + exp(v0 - v1));
    double p0 = 1.0 - p1, q0 = 1.0 - q1;
    return p0 * log(p0 / q0) + p1 * log(p1 / q1);
}

static void kl_known(void **state) {
    (void)state;
    /* p = (1/4, 3/4), q = (1/2, 1/2): KL = 3/4 ln 3/2 - 1/4 ln 2 */
    float r[2] = {0.0f, (float)log(3.0)}, v[2] = {0.0f, 0.0f};
    double want = 0.75 * log(1.5) - 0.25 * log(2.0);
    assert_true(fabs(i8_kl_logits(r, v, 2) - want) < 1e-7);
    assert_true(fabs(i8_kl_logits(r, v, 2) - kl2(r[0], r[1], v[0], v[1])) < 1e-15);
    /* log-sum-exp: huge logits give the same as small ones (naive exp would overflow) */
    float rb[2] = {1000.0f, 1001.0f}, vb[2] = {-2000.0f, -2002.5f};
    double got = i8_kl_logits(rb, vb, 2);
    assert_true(isfinite(got));
    assert_true(fabs(got - kl2(1000.0, 1001.0, -2000.0, -2002.5)) < 1e-12);
    assert_true(i8_kl_logits(rb, rb, 2) == 0.0);
    float vn[2] = {0.0f, NAN};
    assert_true(isinf(i8_kl_logits(r, vn, 2)));
    assert_true(isnan(i8_kl_logits(vn, r, 2)));
    assert_true(isnan(i8_kl_logits(r, v, 0))); /* no classes: no distribution */
}

static void ranking(void **state) {
    (void)state;
    float x[6] = {1, 3, 3, NAN, 2, 3};
    assert_int_equal(i8_argmax(x, 6), 1);               /* first of the tied maxima */
    assert_true(i8_in_topk(x, 6, 5, 3));                /* ranks: 1, 2, 5, 4, 0, 3(NaN) */
    assert_false(i8_in_topk(x, 6, 4, 3));
    assert_true(i8_in_topk(x, 6, 0, 5));
    assert_false(i8_in_topk(x, 6, 3, 5));               /* NaN ranks last */
    float n[3] = {NAN, NAN, -1};
    assert_int_equal(i8_argmax(n, 3), 2);
}

static void percentiles(void **state) {
    (void)state;
    double v[100];
    for (int i = 0; i < 100; i++) v[i] = 100 - i;      /* 100 .. 1, unsorted on purpose */
    assert_true(fabs(i8_percentile(v, 100, 99.0) - 99.01) < 1e-12);  /* numpy: 99.01 */
    assert_true(i8_percentile(v, 100, 100.0) == 100.0);
    assert_true(i8_percentile(v, 100, 0.0) == 1.0);
    assert_true(v[0] == 100.0);                          /* not modified */
    double w[4] = {4, 1, 3, 2};
    assert_true(i8_percentile(w, 4, 50.0) == 2.5);
    double one = 7.0;
    assert_true(i8_percentile(&one, 1, 99.0) == 7.0);
    assert_true(isnan(i8_percentile(NULL, 0, 99.0)));
}

static void accumulate(void **state) {
    (void)state;
    i8_metrics m;
    i8_err err;
    assert_int_equal(i8_metrics_init(&m, 6, &err), INFER8_OK);
    const float A_ref[6] = {5, 4, 3, 2, 1, 0};
    const float B_ref[6] = {0, 1, 2, 3, 4, 5}, B_var[6] = {0, 1, 2, 3, 5, 4};
    const float C_ref[6] = {1, 1, 1, 1, 1, 1}, C_var[6] = {NAN, 1, 1, 1, 1, INFINITY};
    const float D[6] = {0, 0, 0, 0, 0, 0};
    const float E_var[6] = {1, 2, 3, 4, 5, 6};
    assert_int_equal(i8_metrics_add(&m, A_ref, A_ref, 0, &err), INFER8_OK);
    assert_int_equal(i8_metrics_add(&m, B_ref, B_var, 0, &err), INFER8_OK);
    assert_int_equal(i8_metrics_add(&m, C_ref, C_var, 1, &err), INFER8_OK);
    assert_int_equal(i8_metrics_add(&m, D, D, -1, &err), INFER8_OK);
    assert_int_equal(i8_metrics_add(&m, NULL, E_var, 5, &err), INFER8_OK);
    assert_int_equal(i8_metrics_add(&m, NULL, E_var, 6, &err), INFER8_E_INVALID_ARGUMENT);
    assert_int_equal(i8_metrics_add(&m, C_var, A_ref, 0, &err), INFER8_E_INVALID_ARGUMENT);
    i8_metrics_summary s;
    i8_metrics_summarize(&m, &s);
    assert_int_equal(s.images, 5);
    assert_int_equal(s.labelled, 4);
    assert_int_equal(s.compared, 4);
    assert_true(s.top1 == 0.5);        /* A, E */
    assert_true(s.top5 == 0.75);       /* A, C (label ranks 2nd), E; not B (label ranks last) */
    assert_true(s.agreement == 0.5);   /* A, D */
    assert_int_equal(s.nan_logits, 1);
    assert_int_equal(s.inf_logits, 1);
    assert_int_equal(s.nonfinite_images, 1);
    assert_true(s.max_abs_logit_err == 1.0);  /* B; C's non-finite pairs excluded */
    assert_true(isinf(s.kl_mean) && isinf(s.kl_max) && isinf(s.kl_p99));
    /* B: swapping the two largest logits (4, 5): KL = (p5 - p4) ln(p5 / p4) = (e^5 - e^4) / sum e^i */
    double sum = 0;
    for (int i = 0; i < 6; i++) sum += exp(i);
    assert_int_equal(m.kl_count, 4);
    assert_true(fabs(m.kl[1] - (exp(5) - exp(4)) / sum) < 1e-12);
    assert_true(m.kl[0] == 0.0 && m.kl[3] == 0.0);
    i8_metrics_free(&m);

    /* all finite: mean, exact p99 and max of known values */
    assert_int_equal(i8_metrics_init(&m, 2, &err), INFER8_OK);
    double want[3];
    const float ref[2] = {0, 0};
    for (int i = 0; i < 3; i++) {
        float var[2] = {0, (float)(i + 1)};
        want[i] = kl2(0, 0, 0, i + 1);
        assert_int_equal(i8_metrics_add(&m, ref, var, 1, &err), INFER8_OK);
    }
    i8_metrics_summarize(&m, &s);
    assert_true(fabs(s.kl_mean - (want[0] + want[1] + want[2]) / 3) < 1e-12);
    assert_true(fabs(s.kl_max - want[2]) < 1e-12);
    assert_true(fabs(s.kl_p99 - (want[1] + (want[2] - want[1]) * 0.98)) < 1e-12);  /* position 1.98 */
    assert_true(s.agreement == 0.0 && s.top1 == 1.0);  /* ref ties -> class 0; variant says 1 */
    i8_metrics_free(&m);
    assert_int_equal(i8_metrics_init(&m, 0, &err), INFER8_E_INVALID_ARGUMENT);
    i8_metrics_summarize(&m, &s);
    assert_true(isnan(s.top1) && isnan(s.agreement) && isnan(s.kl_mean));
}

static void svg_escape(void **state) {
    (void)state;
    char *buf = NULL;
    size_t len = 0, cap = 0;
    i8_err err;
    assert_int_equal(i8_svg_escape(&buf, &len, &cap, "a<b&\"'>\x01\xff \xc3\xa9\xed\xa0\x80!", 0, &err), INFER8_OK);
    /* control char, invalid byte and a UTF-16 surrogate (ED A0 80) become '?' */
    assert_string_equal(buf, "a&lt;b&amp;&quot;&apos;&gt;\?\? \xc3\xa9\?\?\?!");
    len = 0;
    assert_int_equal(i8_svg_escape(&buf, &len, &cap, "ab\xc3\xa9", 3, &err), INFER8_OK);
    assert_string_equal(buf, "ab");  /* a sequence cut by the limit is dropped, not mangled */
    free(buf);
}

static void expand(void **state) {
    (void)state;
    char **names = NULL;
    size_t n = 0;
    i8_err err;
    assert_int_equal(i8_dataset_expand("d/s-{000062..000064}.tar", 0, &names, &n, &err), INFER8_OK);
    assert_int_equal(n, 3);
    assert_string_equal(names[0], "d/s-000062.tar");
    assert_string_equal(names[2], "d/s-000064.tar");
    i8_dataset_free_names(names, n);
    assert_int_equal(i8_dataset_expand("{a,b}{9..10},c", 0, &names, &n, &err), INFER8_OK);
    assert_int_equal(n, 5);
    const char *want[5] = {"a9", "a10", "b9", "b10", "c"};
    for (size_t i = 0; i < 5; i++) assert_string_equal(names[i], want[i]);
    i8_dataset_free_names(names, n);
    assert_int_equal(i8_dataset_expand("x{0..9}", 5, &names, &n, &err), INFER8_E_LIMIT);
    assert_int_equal(i8_dataset_expand("x{0..99999999999}", 0, &names, &n, &err), INFER8_E_LIMIT);
    assert_int_equal(i8_dataset_expand("a.tar,,b.tar", 0, &names, &n, &err), INFER8_E_INVALID_ARGUMENT);
    assert_int_equal(i8_dataset_expand("x{1..a}", 0, &names, &n, &err), INFER8_E_INVALID_ARGUMENT);
    assert_int_equal(i8_dataset_expand("x}{", 0, &names, &n, &err), INFER8_E_INVALID_ARGUMENT);
    assert_int_equal(i8_dataset_expand("x{{1..2}}", 0, &names, &n, &err), INFER8_E_INVALID_ARGUMENT);
    assert_int_equal(i8_image_format_of((const uint8_t *)"\xff\xd8\xff\xe0", 4), 'j');
    assert_int_equal(i8_image_format_of((const uint8_t *)"RIFF\0\0\0\0WEBP", 12), 'w');
    assert_int_equal(i8_image_format_of((const uint8_t *)"GIF89a", 6), '?');
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(kl_known),   cmocka_unit_test(ranking), cmocka_unit_test(percentiles),
        cmocka_unit_test(accumulate), cmocka_unit_test(svg_escape), cmocka_unit_test(expand),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
