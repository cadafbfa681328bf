/* Tests of the CUDA backend (i8_backend_cuda) against the CPU reference executor
 * (i8_backend_cpu_reference, built on src/backends/cpu/ref_ops.c) as the oracle, on the GPU:
 *   - per op on small hand-built graphs with random weights (stem conv from NCHW input, 5x5,
 *     1x7/7x1 and strided kernels, pools with both padding rules, concat with slices written in
 *     place and copied, nested concat, fused residual convs, unfused batchnorm/relu/residual,
 *     global pool + linear), batch 1 and 3, once per conv tactic kind (tuned, own kernel only,
 *     cuBLASLt where it fits, cuDNN where it fits);
 *   - whole networks (inception_v3, inception_v4, inception_resnet_v2 at 299x299, folded and
 *     fused) at batch 1 and 4 with a deterministic He-initialised weight source, tuned tactics;
 *     prints ms per forward (CUDA graph replay), the tactic mix, tuning time and arena size.
 *   - the uint8 input path (run_u8: the GPU normalizes the bytes) against the float path on the
 *     same images normalized on the CPU: identical logits, for every graph with 3 input channels.
 * Criterion (fp16 activations, fp32 accumulation): max |cuda - ref| / max |ref| <= 1e-2 and the
 * same top-1 wherever the reference's top-1 margin exceeds twice the maximum difference.
 * Output buffers are poisoned with NaN before each run. Compiles everywhere; without CUDA in
 * the build, or without a GPU at run time, prints why and exits 77 (ctest: skipped; tools/gpu-check: failed),
 * through i8_gpu_test_run (tests/lib/gpu_test.h). */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cmocka.h>

#include "gpu_test.h"

#include "backends/backend.h"
#include "families/family.h"
#include "image/image.h"

#ifdef INFER8_HAVE_CUDA
#include "backends/cuda/cuda_backend.h"
#include "test_graph.h"
#include "test_weights.h"

/* ------------------------------------------------------------ graph building helpers ----- */


/* ------------------------------------------------------------ comparison ----------------- */

typedef struct cmp { double rel; int top1_ok; int top1_checked; } cmp;

static int argmax(const float *v, int k, int *second) {
    int a = 0, b = -1;
    for (int i = 1; i < k; i++) {
        if (v[i] > v[a]) b = a, a = i;
        else if (b < 0 || v[i] > v[b]) b = i;
    }
    if (second) *second = b;
    return a;
}

static cmp compare(const float *a, const float *ref, int n, int classes)
{
    double maxd = 0, maxr = 0;
    for (size_t i = 0; i < (size_t)n * classes; i++) {
        double d = fabs((double)a[i] - ref[i]);
        if (!(d <= maxd)) maxd = d; /* NaN counts as failure */
        if (fabs(ref[i]) > maxr) maxr = fabs(ref[i]);
    }
    cmp c = {maxr > 0 ? maxd / maxr : maxd, 1, 0};
    for (int b = 0; b < n && classes > 1; b++) {
        const float *r = ref + (size_t)b * classes, *x = a + (size_t)b * classes;
        int second, tr = argmax(r, classes, &second);
        if (r[tr] - r[second] <= 2 * maxd) continue; /* a near tie: either answer is right */
        c.top1_checked++;
        c.top1_ok &= argmax(x, classes, NULL) == tr;
    }
    return c;
}

/* Runs both backends on random input for each batch in ns and checks the criterion. */
/* run_u8 against run: n generated uint8 crops normalized on the CPU (i8_normalize_u8) and run as
 * floats give the same logits, bit for bit, as the bytes normalized on the GPU, for two
 * normalizations (the second makes the uint8 graphs be captured again) and on fresh inputs each
 * time (a uint8 forward that left the input alone would repeat the float run's logits).
 * in / a / b: room for n images and n logit rows. */
static void check_u8(void *cc, const i8_graph *g, int n, i8_rng *rng, float *in, float *a, float *b)
{
    static const float norms[2][6] = {{0.485f, 0.456f, 0.406f, 0.229f, 0.224f, 0.225f},
                                      {0.5f, 0.5f, 0.5f, 0.5f, 0.5f, 0.5f}};
    size_t per = (size_t)3 * g->input_h * g->input_w;
    size_t outc = (size_t)g->nodes[g->output].c * g->nodes[g->output].h * g->nodes[g->output].w;
    uint8_t *u8 = malloc(per * n);
    assert_non_null(u8);
    i8_err err = {0};
    for (int k = 0; k < 4; k++) {
        const float *mean = norms[k / 2], *std = norms[k / 2] + 3;
        for (size_t i = 0; i < per * n; i++) u8[i] = (uint8_t)(i8_rng_uniform(rng) * 256.0);
        for (int j = 0; j < n; j++) i8_normalize_u8(u8 + per * j, g->input_h, g->input_w, mean, std, in + per * j);
        memset(a, 0xff, sizeof(float) * outc * n);
        memset(b, 0xff, sizeof(float) * outc * n);
        assert_int_equal(i8_backend_cuda.run(cc, n, in, a, &err), INFER8_OK);
        infer8_status st = i8_backend_cuda.run_u8(cc, n, u8, mean, std, b, &err);
        if (st) fprintf(stderr, "cuda run_u8: %s\n", err.msg);
        assert_int_equal(st, INFER8_OK);
        if (memcmp(a, b, sizeof(float) * outc * n))
            fprintf(stderr, "  %s n=%d: uint8 input logits differ from the float input's (first %g vs %g)\n", g->arch, n,
                    (double)b[0], (double)a[0]);
        assert_memory_equal(a, b, sizeof(float) * outc * n);
    }
    float bad[3] = {0.5f, 0.0f, 0.5f};
    assert_int_equal(i8_backend_cuda.run_u8(cc, n, u8, norms[0], bad, b, &err), INFER8_E_INVALID_ARGUMENT);
    free(u8);
}

static void check_graph_b(tg *t, const int *ns, int count, double tol, const char *tactic, int report)
{
    i8_graph *g = &t->g;
    int max_n = 0;
    for (int k = 0; k < count; k++) max_n = I8_MAX(max_n, ns[k]);
    i8_backend_options ro = {.max_batch = max_n, .threads = 0};
    i8_backend_options co = {.max_batch = max_n};
    void *rc = NULL, *cc = NULL;
    i8_err err = {0};
    if (tactic) setenv("INFER8_CUDA_TACTIC", tactic, 1);
    else unsetenv("INFER8_CUDA_TACTIC");
    assert_int_equal(i8_backend_cpu_reference.prepare(&rc, g, &ro, &err), INFER8_OK);
    infer8_status st = i8_backend_cuda.prepare(&cc, g, &co, &err);
    if (st) fprintf(stderr, "cuda prepare: %s\n", err.msg);
    assert_int_equal(st, INFER8_OK);
    size_t per = (size_t)g->input_c * g->input_h * g->input_w;
    size_t outc = (size_t)g->nodes[g->output].c * g->nodes[g->output].h * g->nodes[g->output].w;
    float *in = malloc(sizeof(float) * per * max_n);
    float *ref = malloc(sizeof(float) * outc * max_n);
    float *got = malloc(sizeof(float) * outc * max_n);
    assert_true(in && ref && got);
    for (int k = 0; k < count; k++) {
        int n = ns[k];
        for (size_t i = 0; i < per * n; i++) in[i] = (float)(2.0 * i8_rng_uniform(&t->rng) - 1.0);
        assert_int_equal(i8_backend_cpu_reference.run(rc, n, in, ref, &err), INFER8_OK);
        for (int rep = 0; rep < 2; rep++) { /* second run replays the captured graph */
            memset(got, 0xff, sizeof(float) * outc * max_n); /* NaN: unwritten values fail */
            st = i8_backend_cuda.run(cc, n, in, got, &err);
            if (st) fprintf(stderr, "cuda run: %s\n", err.msg);
            assert_int_equal(st, INFER8_OK);
            cmp c = compare(got, ref, n, (int)outc);
            if (report || c.rel > tol || !c.top1_ok)
                fprintf(stderr, "  %s [%s] n=%d: max rel diff %.3g (tol %.1g), top-1 agree %s (%d of %d checked)\n",
                        g->arch, tactic ? tactic : "tuned", n, c.rel, tol, c.top1_ok ? "yes" : "NO",
                        c.top1_checked, n);
            assert_true(c.rel <= tol);
            assert_true(c.top1_ok);
            if (!report) break;
        }
        if (!tactic && g->input_c == 3) check_u8(cc, g, n, &t->rng, in, ref, got);
        if (report) {
            i8_cuda_stats s;
            i8_cuda_get_stats(cc, n, &s);
            double ms = 0;
            assert_int_equal(i8_backend_cuda.time_forward(cc, n, 50, &ms, &err), INFER8_OK);
            assert_true(ms > 0);
            fprintf(stderr,
                    "  %s n=%d: %.3f ms/forward (graph %d, %d streams); convs own %d cublaslt %d cudnn %d; %d problems, "
                    "cudnn plans tried %d failed %d, tuning %.1f s; arena %.1f MiB, weights %.1f MiB\n",
                    g->arch, n, ms, s.graph_captured, s.streams_used, s.convs_per_kind[1], s.convs_per_kind[2],
                    s.convs_per_kind[3], s.problems, s.cudnn_plans_tried, s.cudnn_plans_failed, s.tune_seconds,
                    s.arena_bytes / 1048576.0, s.weight_bytes / 1048576.0);
            /* INFER8_CUDA_PRIORITY=2 (test_priority_streams): the graph that ran, both replays
             * and the uint8 graph, put its critical path, part of the nodes, on the
             * high-priority streams */
            const char *prio = getenv("INFER8_CUDA_PRIORITY");
            if (prio && atoi(prio) == 2) {
                fprintf(stderr, "  %s n=%d: %d of %d nodes at high priority\n", g->arch, n, s.prio_nodes, g->n_nodes);
                assert_int_equal(s.graph_prio, 1);
                assert_true(s.prio_nodes > 0 && s.prio_nodes < g->n_nodes);
            }
        }
    }
    /* every conv got a tactic of a real kind; forced kinds are used where they fit; no cuBLASLt
     * algorithm adds its split-K partial sums in fp16 (one more rounding, left out by default) */
    const i8_cuda_tactic *tac = NULL;
    const int lossy_ok = getenv("INFER8_CUDA_LOSSY_ENGINES") && atoi(getenv("INFER8_CUDA_LOSSY_ENGINES")) > 0;
    for (int k = 0; k < count; k++) {
        assert_int_equal(i8_cuda_tactics(cc, ns[k], &tac, &err), INFER8_OK);
        for (int i = 0; i < g->n_nodes; i++) {
            if (g->nodes[i].op != I8_OP_CONV) {
                assert_int_equal(tac[i].kind, I8_CUDA_TACTIC_NONE);
                continue;
            }
            assert_true(tac[i].kind >= I8_CUDA_TACTIC_OWN && tac[i].kind <= I8_CUDA_TACTIC_CUDNN);
            if (tactic && !strcmp(tactic, "own")) assert_int_equal(tac[i].kind, I8_CUDA_TACTIC_OWN);
            const char *own_only = getenv("INFER8_CUDA_OWN_VARIANT");
            if (own_only && g->nodes[g->nodes[i].inputs[0]].op == I8_OP_INPUT && g->input_c <= 8)
                assert_int_equal(tac[i].variant, atoi(own_only)); /* the padded input: c_in 8, it fits */
            const int lossy = i8_cuda_tactic_lossy_reduction(cc, &tac[i]);
            if (lossy) fprintf(stderr, "  %s n=%d: cuBLASLt reduction %s\n", g->nodes[i].name, ns[k], lossy < 0 ? "unreadable" : "in fp16");
            assert_true(lossy >= 0 && (lossy_ok || !lossy));
        }
    }
    assert_int_equal(i8_cuda_tactics(cc, ns[0], &tac, &err), INFER8_OK);
    if (tactic && report == 0) {
        int used[4] = {0};
        for (int i = 0; i < g->n_nodes; i++) used[tac[i].kind]++;
        fprintf(stderr, "  [%s] tactics: own %d cublaslt %d cudnn %d\n", tactic, used[1], used[2], used[3]);
    }
    /* The profile adds into the caller's array (infer8_profile's contract): a second call leaves
     * every node at least where the first put it and every conv higher. It times the GPU's work
     * as the tuner does (graph replays), so over the convs the tuner timed the two sums agree
     * within 2x; the event pair around one launch that it used before session 37 also counted
     * the launch's host cost, about 4x the tuner's sum for IRv2 at batch 1. */
    double pm_total = 0, prof_tuned = 0, tuned = 0;
    double *pm = calloc((size_t)g->n_nodes, sizeof(double)), *first = calloc((size_t)g->n_nodes, sizeof(double));
    assert_true(pm && first);
    assert_int_equal(i8_backend_cuda.profile(cc, ns[0], 1, pm, &err), INFER8_OK);
    memcpy(first, pm, sizeof(double) * (size_t)g->n_nodes);
    assert_int_equal(i8_backend_cuda.profile(cc, ns[0], 1, pm, &err), INFER8_OK);
    for (int i = 0; i < g->n_nodes; i++) {
        const int conv = g->nodes[i].op == I8_OP_CONV;
        pm_total += first[i];
        assert_true(first[i] >= 0.0 && pm[i] >= first[i]);
        if (conv) assert_true(pm[i] > first[i]);
        if (conv && tac[i].ms > 0.0f) prof_tuned += first[i], tuned += (double)tac[i].ms;
    }
    assert_true(pm_total > 0);
    if (report || (tuned > 0 && (prof_tuned > 2.0 * tuned || prof_tuned < 0.5 * tuned)))
        fprintf(stderr, "  %s [%s] n=%d: profile %.4f ms over the tuned convs, tuner %.4f ms\n", g->arch,
                tactic ? tactic : "tuned", ns[0], prof_tuned, tuned);
    if (tuned > 0) assert_true(prof_tuned <= 2.0 * tuned && prof_tuned >= 0.5 * tuned);
    free(first);
    free(pm);
    free(in);
    free(ref);
    free(got);
    i8_backend_cpu_reference.destroy(rc);
    i8_backend_cuda.destroy(cc);
    unsetenv("INFER8_CUDA_TACTIC");
}

static void check_graph(tg *t)
{
    static const int ns[] = {1, 3, 1};
    static const char *tactics[] = {NULL, "own", "cublaslt", "cudnn"};
    for (int k = 0; k < 4; k++) check_graph_b(t, ns, 3, 1e-2, tactics[k], 0);
    /* the own packed-K kernel (variant 16) wherever it fits: the convs over the padded image
     * input (c_in 8: every per-op graph's first convs, 3x3 and 5x5, 12 to 64 outputs);
     * check_graph_b asserts it ran on them */
    setenv("INFER8_CUDA_OWN_VARIANT", "16", 1);
    check_graph_b(t, ns, 3, 1e-2, "own", 0);
    unsetenv("INFER8_CUDA_OWN_VARIANT");
    i8_graph_free(&t->g);
}

/* ------------------------------------------------------------ per-op cases --------------- */

/* Every per-op graph of tests/lib/test_graph.c (tg_case_build: stem, 5x5 / 1x7 / 7x1 / 3x3s2,
 * concat, fused residual, unfused ops, 12 pools), the same graphs the other backends' tests run. */
static void test_per_op_graphs(void **state)
{
    (void)state;
    for (int i = 0; i < tg_case_count(); i++) {
        tg t;
        const char *name = tg_case_build(&t, i, 24);
        fprintf(stderr, "  per-op graph: %s\n", name);
        check_graph(&t);
    }
}

/* supports_node answers honestly: a conv over 20 channels (not a multiple of 8, and not the
 * padded image input) is refused, and prepare names the node. */
static void test_unsupported_and_bad_arguments(void **state)
{
    (void)state;
    tg t;
    tg_init(&t, 3, 8, 8, 7);
    int a = tg_conv(&t, "c20", 0, 20, 3, 3, 1, 1, 1, 1, 1, I8_ACT_NONE, -1, 1);
    int b = tg_conv(&t, "after20", a, 16, 1, 1, 1, 1, 0, 0, 1, I8_ACT_NONE, -1, 1);
    tg_finish(&t, b);
    assert_true(i8_backend_cuda.supports_node(&t.g, &t.g.nodes[a]));
    assert_false(i8_backend_cuda.supports_node(&t.g, &t.g.nodes[b]));
    i8_backend_options o = {.max_batch = 2};
    void *c = NULL;
    i8_err err = {0};
    assert_int_equal(i8_backend_cuda.prepare(&c, &t.g, &o, &err), INFER8_E_UNSUPPORTED);
    assert_non_null(strstr(err.msg, "after20"));
    i8_graph_free(&t.g);

    tg_init(&t, 3, 8, 8, 8);
    a = tg_conv(&t, "c", 0, 16, 3, 3, 1, 1, 1, 1, 1, I8_ACT_NONE, -1, 1);
    tg_finish(&t, a);
    assert_int_equal(i8_backend_cuda.prepare(&c, &t.g, &o, &err), INFER8_OK);
    float in[3 * 8 * 8 * 3] = {0}, out[16 * 8 * 8 * 3];
    assert_int_equal(i8_backend_cuda.run(c, 3, in, out, &err), INFER8_E_INVALID_ARGUMENT);
    assert_non_null(strstr(err.msg, "batch 3"));
    assert_int_equal(i8_backend_cuda.run(c, 0, in, out, &err), INFER8_E_INVALID_ARGUMENT);
    char buf[512] = "";
    i8_backend_cuda.describe_device(c, buf, sizeof buf);
    fprintf(stderr, "  device: %s\n", buf);
    assert_non_null(strstr(buf, "cuDNN 9."));
    i8_backend_cuda.destroy(c);
    o.max_batch = 0;
    assert_int_equal(i8_backend_cuda.prepare(&c, &t.g, &o, &err), INFER8_E_INVALID_ARGUMENT);
    i8_graph_free(&t.g);
}

/* The tuning budget of the public opt levels (i8_backend_options.cudnn_budget_s): < 0 (level 0)
 * builds no cuDNN plan at all and still computes the right output; the default tries cuDNN
 * plans. The environment's override (set by tools/gpu-check) is lifted for the test. */
static void test_opt_level_budget(void **state)
{
    (void)state;
    char *saved = i8_test_env_set("INFER8_CUDA_CUDNN_BUDGET", NULL);
    unsetenv("INFER8_CUDA_TACTIC");
    static const double budgets[] = {-1.0, 0.0};
    for (int k = 0; k < 2; k++) {
        tg t;
        tg_case_build(&t, 0, 16);
        i8_graph *g = &t.g;
        i8_backend_options ro = {.max_batch = 2}, co = {.max_batch = 2, .cudnn_budget_s = budgets[k]};
        void *rc = NULL, *cc = NULL;
        i8_err err = {0};
        assert_int_equal(i8_backend_cpu_reference.prepare(&rc, g, &ro, &err), INFER8_OK);
        assert_int_equal(i8_backend_cuda.prepare(&cc, g, &co, &err), INFER8_OK);
        size_t per = (size_t)g->input_c * g->input_h * g->input_w;
        int outc = g->nodes[g->output].c * g->nodes[g->output].h * g->nodes[g->output].w;
        float *in = malloc(sizeof(float) * per * 2), *ref = malloc(sizeof(float) * outc * 2),
              *got = malloc(sizeof(float) * outc * 2);
        assert_true(in && ref && got);
        for (size_t i = 0; i < per * 2; i++) in[i] = (float)(2.0 * i8_rng_uniform(&t.rng) - 1.0);
        memset(got, 0xff, sizeof(float) * outc * 2);
        assert_int_equal(i8_backend_cpu_reference.run(rc, 2, in, ref, &err), INFER8_OK);
        assert_int_equal(i8_backend_cuda.run(cc, 2, in, got, &err), INFER8_OK);
        cmp c = compare(got, ref, 2, outc);
        i8_cuda_stats s;
        i8_cuda_get_stats(cc, 2, &s);
        fprintf(stderr, "  cudnn budget %g: cudnn plans tried %d, convs own %d cublaslt %d cudnn %d, max rel %.3g\n",
                budgets[k], s.cudnn_plans_tried, s.convs_per_kind[1], s.convs_per_kind[2], s.convs_per_kind[3], c.rel);
        assert_true(c.rel <= 1e-2);
        if (budgets[k] < 0) {
            assert_int_equal(s.cudnn_plans_tried, 0);
            assert_int_equal(s.convs_per_kind[I8_CUDA_TACTIC_CUDNN], 0);
        } else {
            assert_true(s.cudnn_plans_tried > 0);
        }
        free(in), free(ref), free(got);
        i8_backend_cpu_reference.destroy(rc);
        i8_backend_cuda.destroy(cc);
        i8_graph_free(&t.g);
    }
    i8_test_env_restore("INFER8_CUDA_CUDNN_BUDGET", saved);
}

/* ------------------------------------------------------------ single rounding ------------ */

/* fp16's unit in the last place at |v| (normal range) */
static double f16_ulp(double v) {
    int e;
    frexp(fabs(v), &e); /* |v| in [2^(e-1), 2^e) */
    return ldexp(1.0, e - 1 - 10);
}

/* Every fp16 conv output is its exact value rounded once: |y - exact| <= half an fp16 ulp (plus
 * 0.002 ulp for fp32 accumulation order), for every tactic kind, on a 1x1 conv, a 1x1 conv with a
 * residual and a 3x3 conv whose inputs and weights fp16 holds exactly and whose biases it does
 * not, biases that dominate each sum (|y| in [64, 128): ulp 1/16). A tactic that rounds the
 * bias (or a partial sum) to fp16 before the sum is off by up to another half ulp: cuBLASLt's
 * epilogue read an fp16 bias until session 18, which put inception_v3 above the fp16 floor (with
 * an fp32 bias cuBLASLt 13.1 has no algorithm: forced cuBLASLt falls back to the own kernel).
 * INFER8_CUDA_LOSSY_ENGINES=1 reads that fp16 bias again; the test then prints, without a
 * check, what it sees (session 18: 0.98-0.99 ulp on cuBLASLt, 0.4999 on every other kind). */
static void test_fp16_single_rounding(void **state)
{
    (void)state;
    tg t;
    tg_init(&t, 64, 5, 6, 18);
    int plain = tg_conv(&t, "plain", 0, 64, 1, 1, 1, 1, 0, 0, 1, I8_ACT_NONE, -1, 1);
    int res = tg_conv(&t, "residual", 0, 64, 1, 1, 1, 1, 0, 0, 1, I8_ACT_NONE, 0, 1.0f);
    int k3 = tg_conv(&t, "k3", 0, 32, 3, 3, 1, 1, 1, 1, 1, I8_ACT_NONE, -1, 1);
    int cat = tg_concat(&t, "cat", 3, (int[]){plain, res, k3});
    tg_finish(&t, cat);
    i8_graph *g = &t.g;
    const int convs[3] = {plain, res, k3};
    for (int j = 0; j < 3; j++) {
        const i8_node *nd = &g->nodes[convs[j]];
        i8_weight *w = &g->weights[nd->weight], *b = &g->weights[nd->bias];
        const size_t count = (size_t)w->shape[0] * w->shape[1] * w->shape[2] * w->shape[3];
        for (size_t i = 0; i < count; i++) w->data[i] = i8_f16_to_f32(i8_f32_to_f16(w->data[i]));
        for (int o = 0; o < nd->c; o++) {
            float v = (float)(72.0 + 40.0 * i8_rng_uniform(&t.rng));
            b->data[o] = i8_rng_uniform(&t.rng) < 0.5 ? -v : v;
        }
    }
    const int H = g->input_h, W = g->input_w, C = g->input_c, OC = g->nodes[cat].c;
    const size_t per = (size_t)C * H * W, outc = (size_t)OC * H * W;
    enum { MAX_N = 3 };
    float *in = malloc(sizeof(float) * per * MAX_N), *got = malloc(sizeof(float) * outc * MAX_N);
    double *exact = malloc(sizeof(double) * outc * MAX_N);
    assert_true(in && got && exact);
    for (size_t i = 0; i < per * MAX_N; i++) in[i] = (float)((int)(129 * i8_rng_uniform(&t.rng)) - 64) / 64.0f;
    /* exact values in double, NCHW as the backend returns them */
    for (int n = 0; n < MAX_N; n++)
        for (int j = 0, c0 = 0; j < 3; c0 += g->nodes[convs[j]].c, j++) {
            const i8_node *nd = &g->nodes[convs[j]];
            const float *w = g->weights[nd->weight].data, *b = g->weights[nd->bias].data;
            const float *x = in + per * n;
            for (int o = 0; o < nd->c; o++)
                for (int y = 0; y < H; y++)
                    for (int xx = 0; xx < W; xx++) {
                        double v = b[o];
                        for (int ci = 0; ci < C; ci++)
                            for (int ky = 0; ky < nd->kh; ky++)
                                for (int kx = 0; kx < nd->kw; kx++) {
                                    int iy = y + ky - nd->ph, ix = xx + kx - nd->pw;
                                    if (iy < 0 || iy >= H || ix < 0 || ix >= W) continue;
                                    v += (double)w[((o * C + ci) * nd->kh + ky) * nd->kw + kx] *
                                         x[((size_t)ci * H + iy) * W + ix];
                                }
                        if (nd->residual >= 0) v += x[((size_t)o * H + y) * W + xx];
                        exact[outc * n + ((size_t)(c0 + o) * H + y) * W + xx] = v;
                    }
        }
    /* the host's exact values against the reference executor (fp32): the oracle checked first */
    {
        i8_backend_options ro = {.max_batch = MAX_N, .threads = 0};
        void *rc = NULL;
        i8_err err = {0};
        assert_int_equal(i8_backend_cpu_reference.prepare(&rc, g, &ro, &err), INFER8_OK);
        assert_int_equal(i8_backend_cpu_reference.run(rc, MAX_N, in, got, &err), INFER8_OK);
        for (size_t i = 0; i < outc * MAX_N; i++) assert_true(fabs(got[i] - exact[i]) <= 1e-5 * fabs(exact[i]));
        i8_backend_cpu_reference.destroy(rc);
    }
    static const char *tactics[] = {NULL, "own", "cublaslt", "cudnn"};
    const int lossy = getenv("INFER8_CUDA_LOSSY_ENGINES") && atoi(getenv("INFER8_CUDA_LOSSY_ENGINES")) > 0;
    char *saved = i8_test_env_set("INFER8_CUDA_TACTIC", NULL);
    for (int k = 0; k < 4; k++) {
        if (tactics[k]) setenv("INFER8_CUDA_TACTIC", tactics[k], 1);
        else unsetenv("INFER8_CUDA_TACTIC");
        i8_backend_options co = {.max_batch = MAX_N};
        void *cc = NULL;
        i8_err err = {0};
        infer8_status st = i8_backend_cuda.prepare(&cc, g, &co, &err);
        if (st) fprintf(stderr, "cuda prepare: %s\n", err.msg);
        assert_int_equal(st, INFER8_OK);
        for (int n = 1; n <= MAX_N; n += 2) {
            memset(got, 0xff, sizeof(float) * outc * n); /* NaN: unwritten values fail */
            st = i8_backend_cuda.run(cc, n, in, got, &err);
            if (st) fprintf(stderr, "cuda run: %s\n", err.msg);
            assert_int_equal(st, INFER8_OK);
            const i8_cuda_tactic *tac = NULL;
            assert_int_equal(i8_cuda_tactics(cc, n, &tac, &err), INFER8_OK);
            for (int j = 0, c0 = 0; j < 3; c0 += g->nodes[convs[j]].c, j++) {
                double worst = 0; /* in ulps of the exact value; NaN counts as failure */
                for (int b = 0; b < n; b++)
                    for (size_t i = 0; i < (size_t)g->nodes[convs[j]].c * H * W; i++) {
                        size_t at = outc * b + (size_t)c0 * H * W + i;
                        double e = fabs(got[at] - exact[at]) / f16_ulp(exact[at]);
                        if (!(e <= worst)) worst = e;
                    }
                static const char *kinds[] = {"none", "own", "cublaslt", "cudnn"};
                const int kind = tac[convs[j]].kind;
                fprintf(stderr, "  [%s] n=%d %-8s on %-8s: max error %.4f fp16 ulp%s\n", tactics[k] ? tactics[k] : "tuned", n,
                        g->nodes[convs[j]].name, kind >= 0 && kind < 4 ? kinds[kind] : "?", worst,
                        lossy ? " (lossy engines: not checked)" : "");
                if (!lossy) assert_true(worst <= 0.502);
            }
        }
        i8_backend_cuda.destroy(cc);
    }
    i8_test_env_restore("INFER8_CUDA_TACTIC", saved);
    free(in), free(got), free(exact);
    i8_graph_free(&t.g);
}

/* ------------------------------------------------------------ whole networks ------------- */

static void check_family(const char *arch)
{
    const i8_family *fam = i8_family_find(arch);
    if (!fam) {
        fprintf(stderr, "family %s not built yet: skipped\n", arch);
        skip();
    }
    tg t;
    memset(&t, 0, sizeof t);
    i8_rng_seed(&t.rng, 99);
    i8_weight_source src = {NULL, i8_test_random_weight};
    infer8_status st = fam->build(&t.g, &src, 1000, 299, 299, &t.err);
    if (st) fprintf(stderr, "%s build: %s\n", arch, t.err.msg);
    assert_int_equal(st, INFER8_OK);
    assert_int_equal(i8_pass_optimize(&t.g, NULL, &t.err), INFER8_OK); /* as checkpoints load */
    static const int ns[] = {1, 4};
    check_graph_b(&t, ns, 2, 1e-2, NULL, 1);
    /* the arena reuses memory: far below one buffer per node */
    i8_graph_free(&t.g);
}

static void test_inception_v3(void **state) { (void)state; check_family("inception_v3"); }
static void test_inception_v4(void **state) { (void)state; check_family("inception_v4"); }
static void test_inception_resnet_v2(void **state) { (void)state; check_family("inception_resnet_v2"); }
/* The critical path on high-priority streams, kept whatever it times (INFER8_CUDA_PRIORITY=2):
 * the forward must compute the same as on the default streams, at batch 1 and 4 */
static void test_priority_streams(void **state) {
    (void)state;
    setenv("INFER8_CUDA_PRIORITY", "2", 1);
    check_family("inception_resnet_v2");
    unsetenv("INFER8_CUDA_PRIORITY");
}

/* The priority choice travels with the tactics (a bundle's tactics.cuda): a context tuned with
 * the critical path forced onto high-priority streams records it in every node's flags; a second
 * context preset with those records (the default mode, which would otherwise time the choice)
 * runs the same graph untimed, and the same logits; with the PRIORITY bits cleared it runs the
 * default streams, also untimed; records of an older bundle (flags 0) leave the choice to timing. */
static void test_priority_restored(void **state) {
    (void)state;
    const i8_family *fam = i8_family_find("inception_v3");
    tg t;
    memset(&t, 0, sizeof t);
    i8_rng_seed(&t.rng, 7);
    i8_weight_source src = {NULL, i8_test_random_weight};
    assert_int_equal(fam->build(&t.g, &src, 1000, 299, 299, &t.err), INFER8_OK);
    assert_int_equal(i8_pass_optimize(&t.g, NULL, &t.err), INFER8_OK);
    enum { N = 2 };
    const int nn = t.g.n_nodes;
    const size_t per = (size_t)3 * 299 * 299, outc = 1000;
    float *in = malloc(sizeof(float) * per * N), *want = malloc(sizeof(float) * outc * N);
    float *got = malloc(sizeof(float) * outc * N);
    i8_cuda_tactic *rec = malloc(sizeof *rec * (size_t)nn);
    assert_true(in && want && got && rec);
    for (size_t i = 0; i < per * N; i++) in[i] = (float)(2.0 * i8_rng_uniform(&t.rng) - 1.0);
    i8_backend_options o = {.max_batch = N};
    void *a = NULL;
    const i8_cuda_tactic *tac = NULL;
    i8_cuda_stats s;
    setenv("INFER8_CUDA_PRIORITY", "2", 1);
    assert_int_equal(i8_backend_cuda.prepare(&a, &t.g, &o, &t.err), INFER8_OK);
    assert_int_equal(i8_backend_cuda.run(a, N, in, want, &t.err), INFER8_OK);
    unsetenv("INFER8_CUDA_PRIORITY");
    assert_int_equal(i8_cuda_tactics(a, N, &tac, &t.err), INFER8_OK);
    i8_cuda_get_stats(a, N, &s);
    int on = 0;
    for (int i = 0; i < nn; i++) {
        assert_true(tac[i].flags & I8_CUDA_TACTIC_FLAG_CHOSEN);
        on += (tac[i].flags & I8_CUDA_TACTIC_FLAG_PRIORITY) != 0;
    }
    fprintf(stderr, "  inception_v3 n=%d: %d of %d nodes recorded at high priority (stats %d)\n", N, on, nn, s.prio_nodes);
    assert_int_equal(s.graph_prio, 1);
    assert_int_equal(s.prio_restored, 0);
    assert_int_equal(on, s.prio_nodes);
    assert_true(on > 0 && on < nn);
    memcpy(rec, tac, sizeof *rec * (size_t)nn);
    i8_backend_cuda.destroy(a);
    for (int pass = 0; pass < 3; pass++) { /* 0: as recorded; 1: PRIORITY cleared; 2: flags 0 */
        for (int i = 0; i < nn && pass; i++)
            rec[i].flags = pass == 1 ? I8_CUDA_TACTIC_FLAG_CHOSEN : 0u;
        void *b = NULL;
        assert_int_equal(i8_backend_cuda.prepare(&b, &t.g, &o, &t.err), INFER8_OK);
        assert_int_equal(i8_cuda_preset_tactics(b, N, rec, &t.err), INFER8_OK);
        memset(got, 0xff, sizeof(float) * outc * N);
        struct timespec t0, t1; /* the first run builds the batch: restoring, capturing, choosing */
        clock_gettime(CLOCK_MONOTONIC, &t0);
        assert_int_equal(i8_backend_cuda.run(b, N, in, got, &t.err), INFER8_OK);
        clock_gettime(CLOCK_MONOTONIC, &t1);
        i8_cuda_get_stats(b, N, &s);
        cmp c = compare(got, want, N, (int)outc);
        fprintf(stderr, "  pass %d: restored %d, graph_prio %d, %d nodes, timed %.4f / %.4f ms, %d presets kept, "
                        "first run %.3f s; max rel %.3g against the recording context\n",
                pass, s.prio_restored, s.graph_prio, s.prio_nodes, (double)s.launch_ms[0], (double)s.launch_ms[1],
                s.presets_kept, (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec), c.rel);
        assert_true(c.rel <= 1e-3);
        assert_int_equal(s.presets_retuned, 0);
        assert_int_equal(s.prio_restored, pass < 2);
        /* restored: the one graph untimed, the other not a candidate; else both timed */
        if (pass < 2) assert_true(s.launch_ms[pass ? 0 : 1] < 0.0f && s.launch_ms[pass ? 1 : 0] == 0.0f);
        else assert_true(s.launch_ms[0] > 0.0f && s.launch_ms[1] > 0.0f);
        assert_true(s.launch_ms[2] == 0.0f && s.launch_ms[3] == 0.0f); /* no own FP8 kernel: no PDL candidate */
        if (pass == 0) assert_int_equal(s.graph_prio, 1), assert_int_equal(s.prio_nodes, on);
        if (pass == 1) assert_int_equal(s.graph_prio, 0), assert_int_equal(s.prio_nodes, 0);
        assert_int_equal(i8_cuda_tactics(b, N, &tac, &t.err), INFER8_OK); /* what a bundle would store again */
        for (int i = 0; i < nn; i++) {
            assert_true(tac[i].flags & I8_CUDA_TACTIC_FLAG_CHOSEN);
            if (pass < 2) assert_int_equal(tac[i].flags & I8_CUDA_TACTIC_FLAG_PRIORITY, pass ? 0u : rec[i].flags & I8_CUDA_TACTIC_FLAG_PRIORITY);
        }
        i8_backend_cuda.destroy(b);
    }
    free(in), free(want), free(got), free(rec);
    i8_graph_free(&t.g);
}

/* ------------------------------------------------------------ benchmark mode ------------- */

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* INFER8_CUDA_BENCH=1: for each family (random weights; speed does not depend on values;
 * INFER8_CUDA_BENCH_ARCHES=a,b picks them) and batch 1 and 32, median / min / max of 7 rounds of
 * CUDA-graph replays; plus the per-op-kind split of a per-node profile at batch 1 and the slowest
 * nodes. Prints a table; returns 0. Whole host calls (float input against uint8 input normalized
 * on the GPU) are `infer8 bench --input f32|u8`'s. */
static int bench_main(void)
{
    static const char *archs[] = {"inception_resnet_v2", "inception_v4", "inception_v3"};
    static const int batches[] = {1, 32};
    printf("| model | batch | median ms | min | max | tuning s | own/cublaslt/cudnn | graph |\n|---|---|---|---|---|---|---|---|\n");
    const char *only = getenv("INFER8_CUDA_BENCH_ARCHES");
    for (int a = 0; a < 3; a++) {
        const i8_family *fam = i8_family_find(archs[a]);
        if (!fam || (only && !strstr(only, archs[a]))) continue;
        i8_graph g;
        memset(&g, 0, sizeof g);
        i8_err err = {0};
        i8_weight_source src = {NULL, i8_test_random_weight};
        if (fam->build(&g, &src, 1000, 299, 299, &err) || i8_pass_optimize(&g, NULL, &err)) {
            printf("%s: build failed: %s\n", archs[a], err.msg);
            continue;
        }
        i8_backend_options o = {.max_batch = 32};
        void *c = NULL;
        if (i8_backend_cuda.prepare(&c, &g, &o, &err)) {
            printf("%s: prepare failed: %s\n", archs[a], err.msg);
            i8_graph_free(&g);
            continue;
        }
        if (a == 0) {
            char buf[512];
            i8_backend_cuda.describe_device(c, buf, sizeof buf);
            fprintf(stderr, "device: %s\n", buf);
        }
        for (int bi = 0; bi < 2; bi++) {
            int n = batches[bi], iters = n == 1 ? 200 : 40;
            double r[7], ms = 0;
            infer8_status st = INFER8_OK;
            for (int k = 0; k < 7 && !st; k++) st = i8_backend_cuda.time_forward(c, n, iters, &r[k], &err);
            if (st) {
                printf("%s b%d: %s\n", archs[a], n, err.msg);
                continue;
            }
            qsort(r, 7, sizeof r[0], cmp_double);
            ms = r[3];
            i8_cuda_stats s;
            i8_cuda_get_stats(c, n, &s);
            printf("| %s | %d | %.3f | %.3f | %.3f | %.1f | %d/%d/%d | %s; default priority %.3f ms, %d critical-path nodes "
                   "at high priority %.3f ms%s |\n",
                   archs[a], n, ms, r[0], r[6], s.tune_seconds, s.convs_per_kind[1], s.convs_per_kind[2],
                   s.convs_per_kind[3], s.graph_captured ? "yes" : "NO", (double)s.launch_ms[0], s.prio_nodes,
                   (double)s.launch_ms[1], s.graph_prio == 1 ? " (kept)" : "");
            fflush(stdout);
        }
        /* profile at batch 1 (nodes one at a time, outside the graph) */
        double *pm = calloc((size_t)g.n_nodes, sizeof(double));
        if (pm && !i8_backend_cuda.profile(c, 1, 5, pm, &err)) {
            double per_op[I8_OP_COUNT] = {0}, total = 0;
            for (int i = 0; i < g.n_nodes; i++) per_op[g.nodes[i].op] += pm[i], total += pm[i]; /* mean per forward already */
            fprintf(stderr, "%s b1 profile (sum of isolated nodes %.3f ms):", archs[a], total);
            for (int k = 0; k < I8_OP_COUNT; k++)
                if (per_op[k] > 0) fprintf(stderr, " %s %.3f", i8_op_name((i8_op)k), per_op[k]);
            fprintf(stderr, "\n");
            const i8_cuda_tactic *tac = NULL;
            i8_cuda_tactics(c, 1, &tac, &err);
            for (int top = 0; top < 8; top++) {
                int best = -1;
                for (int i = 0; i < g.n_nodes; i++)
                    if (pm[i] >= 0 && (best < 0 || pm[i] > pm[best])) best = i;
                if (best < 0) break;
                const i8_node *nd = &g.nodes[best];
                fprintf(stderr, "  %-28s %s %dx%d s%d %dx%dx%d: %.1f us (tactic %d/%d)\n", nd->name, i8_op_name(nd->op),
                        nd->kh, nd->kw, nd->sh, nd->c, nd->h, nd->w, 1000 * pm[best], tac ? tac[best].kind : -1,
                        tac ? tac[best].variant : -1);
                pm[best] = -1;
            }
        }
        free(pm);
        i8_backend_cuda.destroy(c);
        i8_graph_free(&g);
    }
    return 0;
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_per_op_graphs),
        cmocka_unit_test(test_unsupported_and_bad_arguments),
        cmocka_unit_test(test_opt_level_budget),
        cmocka_unit_test(test_fp16_single_rounding),
        cmocka_unit_test(test_inception_v3),
        cmocka_unit_test(test_inception_v4),
        cmocka_unit_test(test_inception_resnet_v2),
        cmocka_unit_test(test_priority_streams),
        cmocka_unit_test(test_priority_restored),
    };
    return i8_gpu_test_run("test_cuda_backend", tests, sizeof tests / sizeof tests[0], "INFER8_CUDA_BENCH", bench_main);
}

#else

int main(void) { return i8_gpu_test_run(NULL, NULL, 0, NULL, NULL); }

#endif
