/* Tests of activation calibration (src/quant/calibrate.c) and scales.json (src/quant/scales.c):
 * max and percentile on sets with known answers, exact histogram re-binning, the entropy (KL)
 * search against a brute-force KL written independently here, the MSE search against a
 * brute-force MSE over the raw samples, and scales.json round trip and error reporting. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#ifdef _OPENMP
#include <omp.h>
#endif

#include "core/i8.h"
#include "quant/calibrate.h"
#include "quant/fp8.h"
#include "quant/scales.h"

/* ---- helpers ---- */

static i8_calib_hist *new_hist(void) {
    i8_calib_hist *h = malloc(sizeof *h);
    assert_non_null(h);
    i8_calib_init(h);
    return h;
}

static void feed(i8_calib_hist *h, const float *x, size_t n, size_t batch) {
    for (size_t k = 0; k < n; k += batch) i8_calib_collect(h, x + k, n - k < batch ? n - k : batch);
}

static float *laplace(size_t n, uint64_t seed) {
    float *x = malloc(n * sizeof *x);
    assert_non_null(x);
    i8_rng r;
    i8_rng_seed(&r, seed);
    for (size_t i = 0; i < n; i++) {
        double s = i8_rng_uniform(&r) < 0.5 ? -1.0 : 1.0;
        x[i] = (float)(-s * log(1.0 - i8_rng_uniform(&r)));
    }
    return x;
}

/* Independent e4m3 reference for the brute-force searches: nearest of the 127 non-negative
 * values, ties to the even code, clamp at 448. */
static double e4m3_pos[127];

static void e4m3_init(void) {
    for (int c = 0; c < 127; c++) {
        int e = c >> 3, m = c & 7;
        e4m3_pos[c] = e == 0 ? ldexp(m, -9) : ldexp(8 + m, e - 10);
    }
}

static int e4m3_code(double a) {
    if (a >= 448.0) return 126;
    int best = 0;
    for (int c = 1; c < 127; c++) {
        double d = fabs(e4m3_pos[c] - a), db = fabs(e4m3_pos[best] - a);
        if (d < db || (d == db && (c & 1) == 0)) best = c;
    }
    return best;
}

/* Exact squared fake-quant error of the raw samples for amax a (double arithmetic, reference
 * rounding), i.e. the quantity the MSE search approximates from the histogram. */
static double raw_mse(const float *x, size_t n, float a) {
    double s = (double)a / 448.0, err = 0.0;
    for (size_t i = 0; i < n; i++) {
        double v = fabs((double)x[i]) / s;
        int lo = 0, hi = 126; /* binary search then compare neighbours */
        if (v >= 448.0) lo = 126;
        else {
            while (lo < hi) {
                int mid = (lo + hi) / 2;
                if (e4m3_pos[mid] >= v) hi = mid;
                else lo = mid + 1;
            }
            if (lo > 0 && (v - e4m3_pos[lo - 1] < e4m3_pos[lo] - v ||
                           (v - e4m3_pos[lo - 1] == e4m3_pos[lo] - v && ((lo - 1) & 1) == 0)))
                lo--;
        }
        double d = e4m3_pos[lo] * s - fabs((double)x[i]);
        err += d * d;
    }
    return err;
}

static int setup(void **state) {
    (void)state;
    e4m3_init();
    return 0;
}

/* ---- max, percentile, re-binning ---- */

static void test_max_known(void **state) {
    (void)state;
    i8_calib_hist *h = new_hist();
    const float a[] = {1.0f, -5.0f, 3.0f}, b[] = {2.5f, NAN, -0.5f, INFINITY};
    i8_calib_collect(h, a, 3);
    i8_calib_collect(h, b, 4);
    float amax = -1.0f;
    i8_err err = {0};
    assert_int_equal(i8_calib_compute_amax(h, I8_CALIB_MAX, 0, "t", &amax, &err), INFER8_OK);
    assert_true(amax == 5.0f);
    assert_int_equal(h->count, 5);
    assert_int_equal(h->nonfinite, 2);
    assert_true(i8_fp8_scale_from_amax(amax) == 5.0f / 448.0f);
    /* 5 values: percentile 100 is the max, 0 the smallest |x| (0.5, bin of width 5/2048). */
    assert_int_equal(i8_calib_compute_amax(h, I8_CALIB_PERCENTILE, 100.0, "t", &amax, &err), INFER8_OK);
    assert_true(amax == 5.0f);
    assert_int_equal(i8_calib_compute_amax(h, I8_CALIB_PERCENTILE, 0.0, "t", &amax, &err), INFER8_OK);
    assert_true(fabs(amax - 0.5) <= h->width);
    free(h);
}

static void test_empty_zero_and_bad_arguments(void **state) {
    (void)state;
    i8_calib_hist *h = new_hist();
    float amax = 7.0f;
    i8_err err = {0};
    assert_int_equal(i8_calib_compute_amax(h, I8_CALIB_MAX, 0, "conv1.out", &amax, &err),
                     INFER8_E_INVALID_ARGUMENT);
    assert_non_null(strstr(err.msg, "conv1.out"));
    assert_true(amax == 7.0f);
    const float zeros[4] = {0.0f, -0.0f, 0.0f, 0.0f};
    i8_calib_collect(h, zeros, 4);
    for (int m = 0; m < 4; m++) {
        assert_int_equal(i8_calib_compute_amax(h, (i8_calib_method)m, 50.0, "z", &amax, &err), INFER8_OK);
        assert_true(amax == 0.0f);
    }
    assert_true(i8_fp8_scale_from_amax(amax) == 1.0f);
    /* Zeros seen before the first nonzero value stay in bin 0. */
    const float one[1] = {1.0f};
    i8_calib_collect(h, one, 1);
    assert_int_equal(h->bins[0], 4);
    assert_int_equal(h->bins[I8_CALIB_BINS - 1], 1);
    assert_int_equal(i8_calib_compute_amax(h, I8_CALIB_PERCENTILE, 100.5, "p", &amax, &err),
                     INFER8_E_INVALID_ARGUMENT);
    assert_int_equal(i8_calib_compute_amax(h, I8_CALIB_PERCENTILE, NAN, "p", &amax, &err),
                     INFER8_E_INVALID_ARGUMENT);
    i8_calib_method m;
    assert_true(i8_calib_method_parse("entropy", &m) && m == I8_CALIB_ENTROPY);
    assert_false(i8_calib_method_parse("kl", &m));
    assert_string_equal(i8_calib_method_name(I8_CALIB_MSE), "mse");
    free(h);
}

static void test_percentile_sorted_set(void **state) {
    (void)state;
    enum { N = 100000 };
    float *x = malloc(N * sizeof *x);
    for (int i = 0; i < N; i++) x[i] = (float)(i + 1);
    i8_calib_hist *h = new_hist();
    feed(h, x, N, 10000); /* ascending batches: the range grows 10 times */
    float amax;
    assert_int_equal(i8_calib_compute_amax(h, I8_CALIB_PERCENTILE, 99.99, "p", &amax, NULL), INFER8_OK);
    printf("percentile 99.99 of 1..100000: %.3f (bin width %.3f)\n", amax, h->width);
    assert_true(fabs(amax - 99990.0) <= h->width);
    assert_int_equal(i8_calib_compute_amax(h, I8_CALIB_PERCENTILE, 50.0, "p", &amax, NULL), INFER8_OK);
    assert_true(fabs(amax - 50000.0) <= h->width);
    assert_int_equal(i8_calib_compute_amax(h, I8_CALIB_PERCENTILE, 100.0, "p", &amax, NULL), INFER8_OK);
    assert_true(amax == 100000.0f);
    free(h);
    free(x);
}

/* Merging is exact: the grown histogram equals one built directly with the final width. */
static void test_rebin_exact(void **state) {
    (void)state;
    enum { N = 60000 };
    float *x = malloc(N * sizeof *x);
    i8_rng r;
    i8_rng_seed(&r, 3);
    /* Batch 1: values k/4 in [0, 1536) and the max 1536 -> width 0.75. Batch 2: up to 5000 ->
     * width doubles twice to 3 (range 6144). Quarter-integers divide exactly by 0.75 and 3. */
    for (int i = 0; i < N / 2; i++) x[i] = (float)(i8_rng_next(&r) % (1536 * 4)) / 4.0f;
    x[0] = 1536.0f;
    for (int i = N / 2; i < N; i++) x[i] = (float)(i8_rng_next(&r) % (5000 * 4 + 1)) / 4.0f;
    i8_calib_hist *h = new_hist();
    i8_calib_collect(h, x, N / 2);
    assert_true(h->width == 0.75);
    i8_calib_collect(h, x + N / 2, N / 2);
    assert_true(h->width == 3.0);
    uint64_t *want = calloc(I8_CALIB_BINS, sizeof *want);
    for (int i = 0; i < N; i++) want[(size_t)floor(x[i] / 3.0)]++;
    /* Documented edge: 1536 was the range when it arrived, so it sits in the last bin of that
     * time (2047 -> 511 after two merges), not in bin 512. */
    want[512]--;
    want[511]++;
    for (int b = 0; b < I8_CALIB_BINS; b++) assert_int_equal(h->bins[b], want[b]);
    assert_int_equal(h->count, N);
    free(want);
    free(h);
    free(x);
}

static void test_rebin_percentile_matches_single_pass(void **state) {
    (void)state;
    enum { N = 200000 };
    float *x = laplace(N, 5);
    /* Small first batches have small maxima, so the range grows (and re-bins) later. */
    for (int i = 0; i < N; i++) x[i] = fabsf(x[i]);
    i8_calib_hist *grown = new_hist(), *single = new_hist();
    feed(grown, x, 1000, 100); /* tiny first batches: small initial range */
    feed(grown, x + 1000, N - 1000, 7000);
    i8_calib_collect(single, x, N);
    assert_true(grown->width > single->width); /* it did re-bin */
    assert_true(grown->amax == single->amax);
    const double pcts[] = {50.0, 90.0, 99.0, 99.9, 99.99};
    for (size_t k = 0; k < I8_ARRAY_LEN(pcts); k++) {
        float a, b;
        assert_int_equal(i8_calib_compute_amax(grown, I8_CALIB_PERCENTILE, pcts[k], "g", &a, NULL), INFER8_OK);
        assert_int_equal(i8_calib_compute_amax(single, I8_CALIB_PERCENTILE, pcts[k], "s", &b, NULL), INFER8_OK);
        assert_true(fabs(a - b) <= grown->width);
    }
    free(grown);
    free(single);
    free(x);
}

/* ---- entropy ---- */

/* KL(P || Q) of candidate i computed from scratch: explicit P and Q arrays, e4m3 groups by the
 * reference rounding of the float32 products (bin center) * (1 / (threshold / 448)). */
static double brute_kl(const i8_calib_hist *h, size_t top, size_t i, float threshold) {
    double *p = calloc(i, sizeof *p), *q = calloc(i, sizeof *q);
    int *code = calloc(i, sizeof *code);
    double psum = 0.0, qsum = 0.0;
    for (size_t j = 0; j < top; j++) psum += (double)h->bins[j];
    for (size_t j = 0; j < i; j++) {
        p[j] = (double)h->bins[j];
        float center = (float)(((double)j + 0.5) * h->width), inv = 1.0f / (threshold / 448.0f);
        code[j] = e4m3_code((double)(center * inv));
    }
    for (size_t j = i; j < top; j++) p[i - 1] += (double)h->bins[j];
    double mass[127] = {0}, nz[127] = {0};
    for (size_t j = 0; j < i; j++) {
        mass[code[j]] += (double)h->bins[j];
        nz[code[j]] += h->bins[j] ? 1.0 : 0.0;
    }
    for (size_t j = 0; j < i; j++) {
        q[j] = h->bins[j] ? mass[code[j]] / nz[code[j]] : 0.0;
        qsum += q[j];
    }
    double kl = 0.0;
    for (size_t j = 0; j < i && isfinite(kl); j++) {
        if (p[j] == 0.0) continue;
        kl = q[j] == 0.0 ? INFINITY : kl + p[j] / psum * log((p[j] / psum) / (q[j] / qsum));
    }
    free(p);
    free(q);
    free(code);
    return kl;
}

static void test_entropy_laplace(void **state) {
    (void)state;
    enum { N = 1000000 };
    float *x = laplace(N, 1);
    i8_calib_hist *h = new_hist();
    feed(h, x, N, 50000);
    float amax;
    assert_int_equal(i8_calib_compute_amax(h, I8_CALIB_ENTROPY, 0, "lap", &amax, NULL), INFER8_OK);
    size_t top = i8_calib_top_bin(h);
    double kl_max = i8_calib_entropy_kl(h, top);
    /* Brute force over the candidates: every one within 40 bins of the answer, every 7th
     * elsewhere (to keep the test fast), and the max. */
    double best = INFINITY;
    size_t best_i = 0, chosen_i = 0;
    for (size_t i = I8_CALIB_START_BIN; i <= top; i++) {
        float t = i < top ? (float)((double)i * h->width) : h->amax;
        if (t == amax) chosen_i = i;
    }
    assert_true(chosen_i > 0);
    for (size_t i = I8_CALIB_START_BIN; i <= top; i++) {
        if (i % 7 && i != top && (i + 40 < chosen_i || i > chosen_i + 40)) continue;
        float t = i < top ? (float)((double)i * h->width) : h->amax;
        double kl = brute_kl(h, top, i, t);
        if (isfinite(kl)) {
            double lib = i8_calib_entropy_kl(h, i);
            if (!(fabs(lib - kl) <= 1e-9 * kl)) fail_msg("candidate %zu: KL %.12g, brute force %.12g", i, lib, kl);
        }
        if (kl <= best) {
            best = kl;
            best_i = i;
        }
    }
    double kl_chosen = brute_kl(h, top, chosen_i, amax);
    printf("entropy: amax %.4f of max %.4f (bin %zu of %zu), KL %.6g, KL at max %.6g, brute-force best bin %zu "
           "KL %.6g\n", amax, h->amax, chosen_i, top, kl_chosen, kl_max, best_i, best);
    assert_true(amax < h->amax);
    assert_true(amax > 4.0f); /* a Laplace(1) sample of 1e6 keeps its body: far above the median */
    assert_true(kl_chosen <= kl_max);
    assert_true(kl_chosen <= best * (1.0 + 1e-9));
    free(h);
    free(x);
}

/* ---- mse ---- */

/* Brute force over 200 candidate amax values in [0.6, 1] * max on the raw samples. */
static void brute_mse(const float *x, size_t n, float max, float *best_a, double *best_err) {
    *best_err = INFINITY;
    for (int k = 0; k <= 200; k++) {
        float a = max * (float)(0.6 + 0.002 * k);
        double e = raw_mse(x, n, a);
        if (e < *best_err) {
            *best_err = e;
            *best_a = a;
        }
    }
}

static void test_mse(void **state) {
    (void)state;
    enum { N = 100000 };
    /* For e4m3 the grid error is relative (scale-free), so clipping only pays where mass sits
     * near the max: a uniform sample clips a few percent; a heavy-tailed one keeps its max
     * because the clipped tail costs more than the finer grid saves. Both must agree with the
     * brute-force optimum over the raw samples. */
    float *uni = malloc(N * sizeof *uni);
    i8_rng r;
    i8_rng_seed(&r, 9);
    for (int i = 0; i < N; i++) uni[i] = (float)(2.0 * i8_rng_uniform(&r) - 1.0);
    float *heavy = malloc(N * sizeof *heavy); /* Student t, 2 degrees of freedom */
    for (int i = 0; i < N; i++) {
        double z = i8_rng_normal(&r), a = i8_rng_normal(&r), b = i8_rng_normal(&r);
        heavy[i] = (float)(z / sqrt((a * a + b * b) / 2.0));
    }
    const float *sets[2] = {uni, heavy};
    const char *names[2] = {"uniform", "student-t2"};
    for (int s = 0; s < 2; s++) {
        i8_calib_hist *h = new_hist();
        feed(h, sets[s], N, 10000);
        float amax, best_a = 0.0f;
        double best_err;
        assert_int_equal(i8_calib_compute_amax(h, I8_CALIB_MSE, 0, names[s], &amax, NULL), INFER8_OK);
        brute_mse(sets[s], N, h->amax, &best_a, &best_err);
        double err = raw_mse(sets[s], N, amax), err_max = raw_mse(sets[s], N, h->amax);
        printf("mse %s: amax %.6g (%.4f of max), raw error %.6g; at max %.6g; brute force %.6g (%.4f of max)\n",
               names[s], amax, amax / h->amax, err, err_max, best_err, best_a / h->amax);
        assert_true(err <= err_max);
        assert_true(err <= best_err * 1.005);
        if (s == 0) {
            assert_true(amax < 0.99f * h->amax && amax > 0.95f * h->amax);
            assert_true(fabs(amax - best_a) <= 0.01 * h->amax);
            assert_true(err < 0.99 * err_max);
        } else {
            assert_true(amax >= 0.99f * h->amax);
        }
        /* The histogram error the search minimises is smallest at the chosen candidate. */
        assert_true(i8_calib_mse_error(h, amax) <= i8_calib_mse_error(h, h->amax));
        free(h);
    }
    free(uni);
    free(heavy);
}

/* ---- scales.json ---- */

/* $INFER8_WORK/name (CTest names a folder that may not exist yet: create it like mkdir -p). */
static char *work_path(const char *name) {
    const char *dir = getenv("INFER8_WORK");
    if (!dir || !dir[0]) dir = "/tmp";
    static char buf[4096];
    snprintf(buf, sizeof buf, "%s", dir);
    for (char *p = buf + 1; *p; p++) {
        if (*p != '/') continue;
        *p = 0;
        mkdir(buf, 0777);
        *p = '/';
    }
    mkdir(buf, 0777);
    snprintf(buf, sizeof buf, "%s/%s", dir, name);
    return buf;
}

static float from_bits(uint32_t u) {
    float f;
    memcpy(&f, &u, 4);
    return f;
}

/* Large tensors are binned by several threads (per-thread counts, summed): the histogram must
 * equal a one-thread pass bin for bin, NaN/Inf and zero counts included, over batches that
 * grow the range (re-binning) and a tail shorter than one thread's share. */
static void test_parallel_binning_is_exact(void **state) {
    (void)state;
    const size_t n = 300001; /* above the parallel threshold, not a multiple of any thread count */
    float *x = malloc(sizeof(float) * n);
    assert_non_null(x);
    i8_calib_hist *one = malloc(sizeof *one), *many = malloc(sizeof *many);
    assert_non_null(one);
    assert_non_null(many);
    i8_calib_init(one);
    i8_calib_init(many);
    i8_rng r;
    i8_rng_seed(&r, 77);
    for (int batch = 0; batch < 3; batch++) {
        for (size_t i = 0; i < n; i++) x[i] = (float)((1.0 + batch * 3.0) * i8_rng_normal(&r));
        x[5] = 0.0f, x[n - 1] = NAN, x[n / 2] = INFINITY;
#ifdef _OPENMP
        int saved = omp_get_max_threads();
        omp_set_num_threads(1);
        i8_calib_collect(one, x, n);
        omp_set_num_threads(4);
        i8_calib_collect(many, x, n);
        omp_set_num_threads(saved);
#else
        i8_calib_collect(one, x, n);
        i8_calib_collect(many, x, n);
#endif
    }
    assert_true(one->count == many->count && one->nonfinite == many->nonfinite && one->nonfinite == 6);
    assert_true(one->amax == many->amax && one->width == many->width);
    assert_memory_equal(one->bins, many->bins, sizeof one->bins);
    uint64_t total = 0;
    for (size_t i = 0; i < I8_CALIB_BINS; i++) total += many->bins[i];
    assert_true(total == many->count && many->count == 3 * (n - 2));
    free(x), free(one), free(many);
}

static void test_scales_json_round_trip(void **state) {
    (void)state;
    i8_scales s;
    memset(&s, 0, sizeof s);
    snprintf(s.method, sizeof s.method, "percentile");
    s.percentile = 99.99;
    s.images = 500;
    i8_err err = {0};
    i8_rng r;
    i8_rng_seed(&r, 21);
    enum { K = 300 };
    float amax[K], scale[K];
    char name[64];
    for (int i = 0; i < K; i++) {
        /* random positive normal floats over the whole exponent range, plus edge values */
        amax[i] = from_bits((uint32_t)(i8_rng_next(&r) % 0x7F000000u) + 0x00800000u);
        scale[i] = from_bits((uint32_t)(i8_rng_next(&r) % 0x7E800000u) + 0x00800000u);
    }
    amax[0] = 0.0f;
    scale[0] = 1.0f;
    amax[1] = FLT_MAX;
    scale[1] = FLT_MAX / 448.0f;
    amax[2] = 1e-45f; /* subnormal amax is a valid float */
    scale[2] = FLT_MIN;
    for (int i = 0; i < K; i++) {
        snprintf(name, sizeof name, i == 3 ? "block\"%d\\x" : "blocks.%d.conv.out", i);
        assert_int_equal(i8_scales_add(&s, name, amax[i], scale[i], &err), INFER8_OK);
    }
    assert_int_equal(i8_scales_add(&s, "blocks.5.conv.out", 1.0f, 1.0f, &err), INFER8_E_INVALID_ARGUMENT);
    assert_int_equal(i8_scales_add(&s, "x", 1.0f, 0.0f, &err), INFER8_E_INVALID_ARGUMENT);
    assert_int_equal(i8_scales_add(&s, "x", NAN, 1.0f, &err), INFER8_E_INVALID_ARGUMENT);
    const char *path = work_path("scales_roundtrip.json");
    if (i8_scales_write(path, &s, &err) != INFER8_OK) fail_msg("%s", err.msg);
    i8_scales back;
    memset(&back, 0, sizeof back);
    if (i8_scales_read(path, NULL, &back, &err) != INFER8_OK) fail_msg("%s", err.msg);
    assert_string_equal(back.method, "percentile");
    assert_true(back.percentile == 99.99);
    assert_int_equal(back.images, 500);
    assert_int_equal(back.count, K);
    for (int i = 0; i < K; i++) {
        const i8_scale_entry *e = i8_scales_find(&back, s.tensors[i].name);
        assert_non_null(e);
        assert_memory_equal(&e->amax, &amax[i], 4);
        assert_memory_equal(&e->scale, &scale[i], 4);
    }
    assert_null(i8_scales_find(&back, "nope"));
    i8_scales_free(&back);
    /* Other methods write "percentile": null. */
    snprintf(s.method, sizeof s.method, "max");
    assert_int_equal(i8_scales_write(path, &s, &err), INFER8_OK);
    uint8_t *text;
    size_t size;
    assert_int_equal(i8_read_file(path, 1 << 26, &text, &size, &err), INFER8_OK);
    assert_non_null(strstr((char *)text, "\"percentile\":\tnull"));
    assert_non_null(strstr((char *)text, "\"format\":\t\"infer8-scales\""));
    free(text);
    snprintf(s.method, sizeof s.method, "kl");
    assert_int_equal(i8_scales_write(path, &s, &err), INFER8_E_INVALID_ARGUMENT);
    i8_scales_free(&s);
    assert_int_equal(s.count, 0);
}

static void test_scales_json_errors(void **state) {
    (void)state;
    static const struct {
        const char *text;
        infer8_status code;
        const char *key; /* must appear in the message */
    } cases[] = {
        {"{\"format\":\"infer8-scales\",\"version\":1,\"method\":\"max\",\"images\":3,\"tensors\":{}}", INFER8_OK, ""},
        {"[1,2]", INFER8_E_FORMAT, "top level"},
        {"{\"format\": 1", INFER8_E_FORMAT, "byte"},
        {"{\"version\":1}", INFER8_E_MISSING_KEY, "format"},
        {"{\"format\":\"onnx\",\"version\":1}", INFER8_E_FORMAT, "format"},
        {"{\"format\":\"infer8-scales\",\"version\":2,\"method\":\"max\",\"images\":3,\"tensors\":{}}",
         INFER8_E_UNSUPPORTED, "version"},
        {"{\"format\":\"infer8-scales\",\"version\":\"1\"}", INFER8_E_FORMAT, "version"},
        {"{\"format\":\"infer8-scales\",\"version\":1,\"method\":\"kl\",\"images\":3,\"tensors\":{}}",
         INFER8_E_FORMAT, "method"},
        {"{\"format\":\"infer8-scales\",\"version\":1,\"method\":\"percentile\",\"images\":3,\"tensors\":{}}",
         INFER8_E_MISSING_KEY, "percentile"},
        {"{\"format\":\"infer8-scales\",\"version\":1,\"method\":\"percentile\",\"percentile\":100.5,\"images\":3,"
         "\"tensors\":{}}", INFER8_E_FORMAT, "percentile"},
        {"{\"format\":\"infer8-scales\",\"version\":1,\"method\":\"max\",\"images\":-1,\"tensors\":{}}",
         INFER8_E_FORMAT, "images"},
        {"{\"format\":\"infer8-scales\",\"version\":1,\"method\":\"max\",\"images\":2.5,\"tensors\":{}}",
         INFER8_E_FORMAT, "images"},
        {"{\"format\":\"infer8-scales\",\"version\":1,\"method\":\"max\",\"images\":1}", INFER8_E_MISSING_KEY,
         "tensors"},
        {"{\"format\":\"infer8-scales\",\"version\":1,\"method\":\"max\",\"images\":1,\"tensors\":[]}",
         INFER8_E_FORMAT, "tensors"},
        {"{\"format\":\"infer8-scales\",\"version\":1,\"method\":\"max\",\"images\":1,\"tensors\":{\"a.b\":3}}",
         INFER8_E_FORMAT, "tensors.\"a.b\""},
        {"{\"format\":\"infer8-scales\",\"version\":1,\"method\":\"max\",\"images\":1,\"tensors\":{\"a.b\":"
         "{\"amax\":1}}}", INFER8_E_MISSING_KEY, "tensors.\"a.b\": missing key \"scale\""},
        {"{\"format\":\"infer8-scales\",\"version\":1,\"method\":\"max\",\"images\":1,\"tensors\":{\"a.b\":"
         "{\"amax\":1,\"scale\":0}}}", INFER8_E_FORMAT, "tensors.\"a.b\".scale"},
        {"{\"format\":\"infer8-scales\",\"version\":1,\"method\":\"max\",\"images\":1,\"tensors\":{\"a.b\":"
         "{\"amax\":1,\"scale\":\"0.1\"}}}", INFER8_E_FORMAT, "tensors.\"a.b\".scale"},
        {"{\"format\":\"infer8-scales\",\"version\":1,\"method\":\"max\",\"images\":1,\"tensors\":{\"a.b\":"
         "{\"amax\":-1,\"scale\":1}}}", INFER8_E_FORMAT, "tensors.\"a.b\".amax"},
        {"{\"format\":\"infer8-scales\",\"version\":1,\"method\":\"max\",\"images\":1,\"tensors\":{\"a.b\":"
         "{\"amax\":1e39,\"scale\":1}}}", INFER8_E_FORMAT, "tensors.\"a.b\".amax"},
        {"{\"format\":\"infer8-scales\",\"version\":1,\"method\":\"max\",\"images\":1,\"tensors\":{\"a.b\":"
         "{\"amax\":1,\"scale\":1e-40}}}", INFER8_E_FORMAT, "tensors.\"a.b\".scale"},
        {"{\"format\":\"infer8-scales\",\"version\":1,\"method\":\"max\",\"images\":1,\"tensors\":{\"a\":"
         "{\"amax\":1,\"scale\":1},\"a\":{\"amax\":2,\"scale\":1}}}", INFER8_E_FORMAT, "tensors.\"a\": duplicate"},
        {"{\"format\":\"infer8-scales\",\"version\":1,\"method\":\"max\",\"images\":1,\"tensors\":{\"\":"
         "{\"amax\":1,\"scale\":1}}}", INFER8_E_FORMAT, "empty tensor name"},
        /* a name with a terminal escape: refused, and shown escaped */
        {"{\"format\":\"infer8-scales\",\"version\":1,\"method\":\"max\",\"images\":1,\"tensors\":{\"a\\u001b[2Jb\":"
         "{\"amax\":1,\"scale\":1}}}", INFER8_E_FORMAT,
         "tensors.\"a\\x1b[2Jb\": tensor name is not UTF-8 without control characters"},
    };
    for (size_t k = 0; k < I8_ARRAY_LEN(cases); k++) {
        i8_scales s;
        memset(&s, 0, sizeof s);
        i8_err err = {0};
        infer8_status st = i8_scales_parse(cases[k].text, strlen(cases[k].text), "scales.json", NULL, &s, &err);
        if (st != cases[k].code || (st != INFER8_OK && !strstr(err.msg, cases[k].key)))
            fail_msg("case %zu: status %d (want %d), message \"%s\" (want \"%s\")", k, st, cases[k].code, err.msg,
                     cases[k].key);
        if (st != INFER8_OK) assert_int_equal(s.count, 0);
        i8_scales_free(&s);
    }
    /* Tensor count limit. */
    const char *two = "{\"format\":\"infer8-scales\",\"version\":1,\"method\":\"mse\",\"images\":1,\"tensors\":"
                      "{\"a\":{\"amax\":1,\"scale\":1},\"b\":{\"amax\":2,\"scale\":1}}}";
    i8_limits lim;
    i8_limits_default(&lim);
    lim.max_tensors = 1;
    i8_scales s;
    memset(&s, 0, sizeof s);
    i8_err err = {0};
    assert_int_equal(i8_scales_parse(two, strlen(two), "s.json", &lim, &s, &err), INFER8_E_LIMIT);
    lim.max_tensors = 2;
    assert_int_equal(i8_scales_parse(two, strlen(two), "s.json", &lim, &s, &err), INFER8_OK);
    assert_int_equal(s.count, 2);
    i8_scales_free(&s);
    /* Missing file. */
    assert_int_equal(i8_scales_read(work_path("does-not-exist.json"), NULL, &s, &err), INFER8_E_IO);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_max_known),
        cmocka_unit_test(test_empty_zero_and_bad_arguments),
        cmocka_unit_test(test_percentile_sorted_set),
        cmocka_unit_test(test_rebin_exact),
        cmocka_unit_test(test_rebin_percentile_matches_single_pass),
        cmocka_unit_test(test_entropy_laplace),
        cmocka_unit_test(test_mse),
        cmocka_unit_test(test_parallel_binning_is_exact),
        cmocka_unit_test(test_scales_json_round_trip),
        cmocka_unit_test(test_scales_json_errors),
    };
    return cmocka_run_group_tests(tests, setup, NULL);
}
