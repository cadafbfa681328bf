/* Unit tests of the CPU reference executor (src/backends/cpu/ref_executor.c) on hand-built
 * graphs: an unfused Inception-ResNet-like graph (conv -> batchnorm -> relu units, avg pools
 * with and without padding counted, concat, scaled residual adds, max pool, head) against the
 * same network fused by hand (folded batchnorm, conv+relu, conv with residual epilogue) and
 * against the graph passes; memory planning; batch and thread-count invariance; the pre-node
 * hook; argument and shape errors. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "backends/backend.h"
#include "backends/cpu/ref_ops.h"

/* ---- building test graphs ------------------------------------------------------------------- */

typedef struct tb {
    i8_graph g;
    i8_rng rng;
    int fused; /* build the hand-fused form */
    i8_err err;
} tb;

static float *rand_array(i8_rng *r, size_t n, double lo, double hi) {
    float *p = malloc(n * sizeof *p);
    assert_non_null(p);
    for (size_t i = 0; i < n; i++) p[i] = (float)(lo + (hi - lo) * i8_rng_uniform(r));
    return p;
}

static int add_weight(tb *t, const char *name, int ndim, int64_t d0, int64_t d1, int64_t d2, int64_t d3, float *data) {
    const int64_t shape[4] = {d0, d1, d2, d3};
    int idx;
    assert_int_equal(i8_graph_add_weight(&t->g, name, ndim, shape, data, &idx, &t->err), INFER8_OK);
    return idx;
}

static int add_node(tb *t, const i8_node *nd) {
    int idx;
    assert_int_equal(i8_graph_add_node(&t->g, nd, &idx, &t->err), INFER8_OK);
    return idx;
}

static i8_node conv_node(const tb *t, const char *name, int in, int oc, int kh, int kw, int sh, int sw, int ph,
                         int pw) {
    const i8_node *x = &t->g.nodes[in];
    i8_node c = i8_node_blank(I8_OP_CONV, name);
    c.n_inputs = 1, c.inputs[0] = in, c.c = oc;
    c.kh = kh, c.kw = kw, c.sh = sh, c.sw = sw, c.ph = ph, c.pw = pw;
    c.h = (x->h + 2 * ph - kh) / sh + 1, c.w = (x->w + 2 * pw - kw) / sw + 1;
    return c;
}

static i8_node unary_node(const tb *t, i8_op op, const char *name, int in) {
    const i8_node *x = &t->g.nodes[in];
    i8_node n = i8_node_blank(op, name);
    n.n_inputs = 1, n.inputs[0] = in, n.c = x->c, n.h = x->h, n.w = x->w;
    return n;
}

/* conv (no bias) -> batchnorm (eps 0.001) -> relu; fused: conv with folded bias and relu. The
 * random draws are the same in both forms. Returns the output node. */
static int cbr(tb *t, const char *name, int in, int oc, int kh, int kw, int sh, int sw, int ph, int pw) {
    const int ic = t->g.nodes[in].c;
    const size_t per_out = (size_t)ic * kh * kw;
    float *w = rand_array(&t->rng, (size_t)oc * per_out, -0.5, 0.5);
    float *gamma = rand_array(&t->rng, (size_t)oc, 0.5, 1.5), *beta = rand_array(&t->rng, (size_t)oc, -0.2, 0.2);
    float *mean = rand_array(&t->rng, (size_t)oc, -0.3, 0.3), *var = rand_array(&t->rng, (size_t)oc, 0.5, 2.0);
    i8_node c = conv_node(t, name, in, oc, kh, kw, sh, sw, ph, pw);
    c.weight = add_weight(t, "w", 4, oc, ic, kh, kw, w);
    if (t->fused) {
        float *bias = malloc((size_t)oc * sizeof *bias);
        for (int o = 0; o < oc; o++) {
            const double f = (double)gamma[o] / sqrt((double)var[o] + 0.001);
            for (size_t k = 0; k < per_out; k++) w[o * per_out + k] = (float)(w[o * per_out + k] * f);
            bias[o] = (float)(beta[o] - mean[o] * f);
        }
        free(gamma), free(beta), free(mean), free(var);
        c.bias = add_weight(t, "b", 1, oc, 0, 0, 0, bias);
        c.act = I8_ACT_RELU;
        return add_node(t, &c);
    }
    const int ci = add_node(t, &c);
    i8_node bn = unary_node(t, I8_OP_BATCHNORM, "bn", ci);
    bn.bn_gamma = add_weight(t, "gamma", 1, oc, 0, 0, 0, gamma);
    bn.bn_beta = add_weight(t, "beta", 1, oc, 0, 0, 0, beta);
    bn.bn_mean = add_weight(t, "mean", 1, oc, 0, 0, 0, mean);
    bn.bn_var = add_weight(t, "var", 1, oc, 0, 0, 0, var);
    bn.bn_eps = 0.001f;
    const int bi = add_node(t, &bn);
    i8_node r = unary_node(t, I8_OP_RELU, "relu", bi);
    return add_node(t, &r);
}

/* out = act(x + scale * conv1x1(branch) + bias); fused: conv with the residual epilogue. */
static int residual(tb *t, const char *name, int x, int branch, float scale, i8_act act) {
    const int oc = t->g.nodes[x].c, ic = t->g.nodes[branch].c;
    i8_node c = conv_node(t, name, branch, oc, 1, 1, 1, 1, 0, 0);
    c.weight = add_weight(t, "w", 4, oc, ic, 1, 1, rand_array(&t->rng, (size_t)oc * ic, -0.3, 0.3));
    c.bias = add_weight(t, "b", 1, oc, 0, 0, 0, rand_array(&t->rng, (size_t)oc, -0.1, 0.1));
    if (t->fused) {
        c.n_inputs = 2, c.inputs[1] = x, c.residual = x, c.residual_scale = scale, c.act = act;
        return add_node(t, &c);
    }
    const int ci = add_node(t, &c);
    i8_node r = i8_node_blank(I8_OP_RESIDUAL, "residual");
    r.n_inputs = 2, r.inputs[0] = x, r.inputs[1] = ci, r.c = oc, r.h = c.h, r.w = c.w;
    r.residual_scale = scale, r.act = act;
    return add_node(t, &r);
}

static int pool(tb *t, i8_op op, int in, int k, int s, int p, int include_pad) {
    const i8_node *x = &t->g.nodes[in];
    i8_node n = unary_node(t, op, op == I8_OP_MAXPOOL ? "maxpool" : "avgpool", in);
    n.kh = n.kw = k, n.sh = n.sw = s, n.ph = n.pw = p, n.count_include_pad = include_pad;
    n.h = (x->h + 2 * p - k) / s + 1, n.w = (x->w + 2 * p - k) / s + 1;
    return add_node(t, &n);
}

/* GAP + linear 16 -> 10 on node `in` (16 channels): the graph's output. */
static void add_head(tb *t, int in) {
    i8_node gap = unary_node(t, I8_OP_GLOBAL_AVGPOOL, "gap", in);
    gap.h = gap.w = 1;
    int gi = add_node(t, &gap);
    i8_node fc = unary_node(t, I8_OP_LINEAR, "fc", gi);
    fc.c = 10;
    fc.weight = add_weight(t, "fc.w", 2, 10, 16, 0, 0, rand_array(&t->rng, 160, -0.5, 0.5));
    fc.bias = add_weight(t, "fc.b", 1, 10, 0, 0, 0, rand_array(&t->rng, 10, -0.1, 0.1));
    t->g.output = add_node(t, &fc);
    t->g.num_classes = 10;
}

/* A small Inception-ResNet: stem, a Block35-like block with avg-pool branches, a max pool, a
 * final no-relu residual, GAP + linear. Input 3 x 13 x 11 (non-square on purpose). */
static void build_net(tb *t, int fused, uint64_t seed) {
    memset(t, 0, sizeof *t);
    t->fused = fused;
    i8_rng_seed(&t->rng, seed);
    assert_int_equal(i8_graph_init(&t->g, "test-net", 3, 13, 11, &t->err), INFER8_OK);
    int stem = cbr(t, "stem", 0, 16, 3, 3, 2, 2, 0, 0); /* 6 x 5 */
    int b0 = cbr(t, "b0", stem, 8, 1, 1, 1, 1, 0, 0);
    int b1 = cbr(t, "b1.0", stem, 6, 1, 1, 1, 1, 0, 0);
    b1 = cbr(t, "b1.1", b1, 8, 1, 3, 1, 1, 0, 1);
    b1 = cbr(t, "b1.2", b1, 8, 3, 1, 1, 1, 1, 0);
    int b2 = pool(t, I8_OP_AVGPOOL, stem, 3, 1, 1, 0);
    b2 = cbr(t, "b2", b2, 4, 1, 1, 1, 1, 0, 0);
    int b3 = pool(t, I8_OP_AVGPOOL, stem, 3, 1, 1, 1);
    b3 = cbr(t, "b3", b3, 4, 3, 3, 1, 1, 1, 1);
    i8_node cat = i8_node_blank(I8_OP_CONCAT, "cat");
    cat.n_inputs = 4, cat.inputs[0] = b0, cat.inputs[1] = b1, cat.inputs[2] = b2, cat.inputs[3] = b3;
    cat.c = 24, cat.h = t->g.nodes[stem].h, cat.w = t->g.nodes[stem].w;
    int c = add_node(t, &cat);
    int r = residual(t, "block", stem, c, 0.17f, I8_ACT_RELU);
    int mp = pool(t, I8_OP_MAXPOOL, r, 3, 2, 0, 0); /* 2 x 2 */
    int r2 = residual(t, "final", mp, mp, 1.0f, I8_ACT_NONE);
    add_head(t, r2);
}

/* ---- running -------------------------------------------------------------------------------- */

static void *prepare(i8_graph *g, int max_batch, int threads, int fp64) {
    i8_backend_options o = {.max_batch = max_batch, .threads = threads, .accumulate_fp64 = fp64};
    void *ctx = NULL;
    i8_err err = {0};
    if (i8_backend_cpu_reference.prepare(&ctx, g, &o, &err) != INFER8_OK) {
        print_error("prepare: %s\n", err.msg);
        fail();
    }
    return ctx;
}

static void run(void *ctx, int n, const float *in, float *out) {
    i8_err err = {0};
    if (i8_backend_cpu_reference.run(ctx, n, in, out, &err) != INFER8_OK) {
        print_error("run: %s\n", err.msg);
        fail();
    }
}

/* max |a - b| / max |b| */
static double rel_diff(const float *a, const float *b, size_t n) {
    double d = 0, m = 0;
    for (size_t i = 0; i < n; i++) d = fmax(d, fabs((double)a[i] - b[i])), m = fmax(m, fabs((double)b[i]));
    return d / m;
}

static float *net_input(int n, uint64_t seed) {
    i8_rng r;
    i8_rng_seed(&r, seed);
    return rand_array(&r, (size_t)n * 3 * 13 * 11, -1, 1);
}

/* ---- tests ---------------------------------------------------------------------------------- */

static void test_unfused_equals_fused(void **state) {
    (void)state;
    tb *u = malloc(sizeof *u), *f = malloc(sizeof *f), *p = malloc(sizeof *p);
    build_net(u, 0, 7);
    build_net(f, 1, 7);
    build_net(p, 0, 7); /* the graph passes applied to the unfused form */
    i8_err err = {0};
    assert_int_equal(i8_pass_fold_batchnorm(&p->g, &err), INFER8_OK);
    assert_int_equal(i8_pass_fuse(&p->g, &err), INFER8_OK);
    assert_int_equal(p->g.n_nodes, f->g.n_nodes);
    assert_true(f->g.n_nodes < u->g.n_nodes);

    float *in = net_input(2, 99), yu[20], yf[20], yp[20], y64[20];
    void *cu = prepare(&u->g, 2, 0, 0), *cf = prepare(&f->g, 2, 0, 0), *cp = prepare(&p->g, 2, 0, 0);
    void *c64 = prepare(&u->g, 2, 0, 1);
    run(cu, 2, in, yu);
    run(cf, 2, in, yf);
    run(cp, 2, in, yp);
    run(c64, 2, in, y64);
    double d_hand = rel_diff(yf, yu, 20), d_pass = rel_diff(yp, yu, 20), d_64 = rel_diff(y64, yu, 20);
    print_message("unfused vs hand-fused %.3g, vs passes %.3g, vs fp64 %.3g\n", d_hand, d_pass, d_64);
    assert_true(d_hand <= 1e-5);
    assert_true(d_pass <= 1e-5);
    assert_true(d_64 <= 1e-5);
    /* the logits are not trivial (all classes distinct, not all zero) */
    assert_true(fabs((double)yu[0] - yu[1]) > 1e-4 && fabs((double)yu[0] - yu[10]) > 1e-4);

    i8_backend_cpu_reference.destroy(cu), i8_backend_cpu_reference.destroy(cf);
    i8_backend_cpu_reference.destroy(cp), i8_backend_cpu_reference.destroy(c64);
    i8_graph_free(&u->g), i8_graph_free(&f->g), i8_graph_free(&p->g);
    free(u), free(f), free(p), free(in);
}

static void test_batch_and_threads_invariance(void **state) {
    (void)state;
    for (int fused = 0; fused < 2; fused++) {
        tb *t = malloc(sizeof *t);
        build_net(t, fused, 11);
        float *in = net_input(3, 5), y3[30], y1[30], yt1[30], yt2[30];
        void *c = prepare(&t->g, 3, 0, 0);
        run(c, 3, in, y3);
        for (int b = 0; b < 3; b++) run(c, 1, in + (size_t)b * 3 * 13 * 11, y1 + b * 10);
        assert_memory_equal(y3, y1, sizeof y3); /* batch 3 == three batches of 1, bit for bit */
        void *c1 = prepare(&t->g, 3, 1, 0), *c2 = prepare(&t->g, 3, 2, 0);
        run(c1, 3, in, yt1);
        run(c2, 3, in, yt2);
        assert_memory_equal(yt1, yt2, sizeof yt1); /* 1 thread == 2 threads, bit for bit */
        assert_memory_equal(yt1, y3, sizeof yt1);
        i8_backend_cpu_reference.destroy(c), i8_backend_cpu_reference.destroy(c1), i8_backend_cpu_reference.destroy(c2);
        i8_graph_free(&t->g);
        free(t), free(in);
    }
}

/* input -> r1 = x + x -> r2 = r1 + r1 -> r3 = r2 + r2: 8x, with exactly two buffers. */
static void test_memory_plan(void **state) {
    (void)state;
    tb *t = malloc(sizeof *t);
    memset(t, 0, sizeof *t);
    assert_int_equal(i8_graph_init(&t->g, "chain", 2, 3, 5, &t->err), INFER8_OK);
    int prev = 0;
    for (int k = 0; k < 3; k++) {
        i8_node r = i8_node_blank(I8_OP_RESIDUAL, "r");
        r.n_inputs = 2, r.inputs[0] = r.inputs[1] = prev, r.c = 2, r.h = 3, r.w = 5;
        r.residual_scale = 1.0f;
        prev = add_node(t, &r);
    }
    t->g.output = prev;
    t->g.num_classes = 30;
    void *ctx = prepare(&t->g, 4, 0, 0);
    int buffers;
    size_t arena, naive;
    i8_ref_executor_memory(ctx, &buffers, &arena, &naive);
    assert_int_equal(buffers, 2);
    assert_int_equal(naive, 4 * 4 * 30);
    assert_int_equal(arena, 2 * 128); /* 4 images x 30 floats = 120, rounded up to 64 bytes */
    float in[2 * 30], out[2 * 30];
    for (int i = 0; i < 60; i++) in[i] = (float)i - 20.5f;
    run(ctx, 2, in, out);
    for (int i = 0; i < 60; i++) assert_true(out[i] == 8 * in[i]);
    i8_backend_cpu_reference.destroy(ctx);
    i8_graph_free(&t->g);

    /* the test network: buffers are shared, and fewer than nodes */
    build_net(t, 0, 3);
    ctx = prepare(&t->g, 2, 0, 0);
    i8_ref_executor_memory(ctx, &buffers, &arena, &naive);
    print_message("test net: %d nodes, %d buffers, arena %zu floats, naive %zu\n", t->g.n_nodes, buffers, arena, naive);
    assert_true(buffers < t->g.n_nodes / 3);
    assert_true(arena < naive / 2);
    i8_backend_cpu_reference.destroy(ctx);
    i8_graph_free(&t->g);
    free(t);
}

/* A synth-style hook: sets each batchnorm's statistics from its input batch (gamma 1, beta 0),
 * and at each relu checks that its input (the batchnorm output) is then standardized. */
typedef struct hook_state {
    int bn_calls, relu_checks, fail_at, stop_at, last_seen;
} hook_state;

static infer8_status bn_hook(void *user, i8_graph *g, int node, int n, const float *const *inputs, i8_err *err) {
    hook_state *h = user;
    const i8_node *nd = &g->nodes[node];
    if (node == h->fail_at) return i8_fail(err, INFER8_E_INTEGRITY, "hook refuses node %d", node);
    h->last_seen = node;
    if (node == h->stop_at) return I8_HOOK_STOP;
    const size_t pixels = (size_t)n * nd->h * nd->w;
    if (nd->op != I8_OP_BATCHNORM && nd->op != I8_OP_RELU) return INFER8_OK;
    for (int c = 0; c < nd->c; c++) {
        double s = 0, s2 = 0;
        for (size_t p = 0; p < pixels; p++) s += inputs[0][p * nd->c + c];
        const double mean = s / (double)pixels;
        for (size_t p = 0; p < pixels; p++) s2 += pow(inputs[0][p * nd->c + c] - mean, 2);
        const double var = s2 / (double)pixels;
        if (nd->op == I8_OP_BATCHNORM) {
            g->weights[nd->bn_mean].data[c] = (float)mean;
            g->weights[nd->bn_var].data[c] = (float)var;
            g->weights[nd->bn_gamma].data[c] = 1.0f;
            g->weights[nd->bn_beta].data[c] = 0.0f;
        } else if (var > 1e-3) { /* standardized: mean 0, variance v/(v+eps) <= 1 */
            if (fabs(mean) > 1e-5 || var < 0.5 || var > 1.0001)
                return i8_fail(err, INFER8_E_INTERNAL, "relu %s channel %d: mean %g var %g", nd->name, c, mean, var);
            h->relu_checks++;
        }
    }
    h->bn_calls += nd->op == I8_OP_BATCHNORM;
    return INFER8_OK;
}

static void test_pre_node_hook(void **state) {
    (void)state;
    tb *t = malloc(sizeof *t);
    build_net(t, 0, 21);
    hook_state h = {.fail_at = -1, .stop_at = -1};
    i8_backend_options o = {.max_batch = 3, .pre_node_hook = bn_hook, .hook_user = &h};
    void *ctx = NULL;
    i8_err err = {0};
    assert_int_equal(i8_backend_cpu_reference.prepare(&ctx, &t->g, &o, &err), INFER8_OK);
    float *in = net_input(3, 8), y[30];
    infer8_status st = i8_backend_cpu_reference.run(ctx, 3, in, y, &err);
    if (st) print_error("%s\n", err.msg);
    assert_int_equal(st, INFER8_OK);
    assert_int_equal(h.bn_calls, 7);
    assert_true(h.relu_checks > 40);
    i8_backend_cpu_reference.destroy(ctx);

    /* a failing hook stops the run with its status and message */
    h.fail_at = 5;
    assert_int_equal(i8_backend_cpu_reference.prepare(&ctx, &t->g, &o, &err), INFER8_OK);
    assert_int_equal(i8_backend_cpu_reference.run(ctx, 1, in, y, &err), INFER8_E_INTEGRITY);
    assert_non_null(strstr(err.msg, "hook refuses node 5"));
    i8_backend_cpu_reference.destroy(ctx);

    /* I8_HOOK_STOP ends the run at once with INFER8_OK and no logits (y keeps its poison) */
    h.fail_at = -1, h.stop_at = 6;
    assert_int_equal(i8_backend_cpu_reference.prepare(&ctx, &t->g, &o, &err), INFER8_OK);
    for (int i = 0; i < 10; i++) y[i] = NAN;
    assert_int_equal(i8_backend_cpu_reference.run(ctx, 1, in, y, &err), INFER8_OK);
    assert_int_equal(h.last_seen, 6);
    for (int i = 0; i < 10; i++) assert_true(isnan(y[i]));
    i8_backend_cpu_reference.destroy(ctx);
    i8_graph_free(&t->g);
    free(t), free(in);
}

/* A hook that changes a conv's weights: the executor must use the new values. */
static infer8_status triple_hook(void *user, i8_graph *g, int node, int n, const float *const *inputs, i8_err *err) {
    if (g->nodes[node].op == I8_OP_CONV) g->weights[g->nodes[node].weight].data[0] = 3.0f;
    return INFER8_OK;
}

static void test_hook_changes_conv(void **state) {
    (void)state;
    tb *t = malloc(sizeof *t);
    memset(t, 0, sizeof *t);
    assert_int_equal(i8_graph_init(&t->g, "one", 1, 2, 2, &t->err), INFER8_OK);
    i8_node c = conv_node(t, "conv", 0, 1, 1, 1, 1, 1, 0, 0);
    float *w = malloc(sizeof *w);
    *w = 1.0f;
    c.weight = add_weight(t, "w", 4, 1, 1, 1, 1, w);
    t->g.output = add_node(t, &c);
    t->g.num_classes = 4;
    i8_backend_options o = {.max_batch = 1, .pre_node_hook = triple_hook};
    void *ctx = NULL;
    i8_err err = {0};
    assert_int_equal(i8_backend_cpu_reference.prepare(&ctx, &t->g, &o, &err), INFER8_OK);
    const float in[4] = {1, -2, 3, 0.5f};
    float y[4];
    run(ctx, 1, in, y);
    for (int i = 0; i < 4; i++) assert_true(y[i] == 3 * in[i]);
    i8_backend_cpu_reference.destroy(ctx);
    i8_graph_free(&t->g);
    free(t);
}

static void test_errors(void **state) {
    (void)state;
    tb *t = malloc(sizeof *t);
    build_net(t, 1, 4);
    void *ctx = NULL;
    i8_err err = {0};
    i8_backend_options o = {.max_batch = 2};
    float in[2 * 3 * 13 * 11] = {0}, y[20];

    ctx = prepare(&t->g, 2, 0, 0);
    assert_int_equal(i8_backend_cpu_reference.run(ctx, 3, in, y, &err), INFER8_E_INVALID_ARGUMENT);
    assert_int_equal(i8_backend_cpu_reference.run(ctx, 0, in, y, &err), INFER8_E_INVALID_ARGUMENT);
    i8_backend_cpu_reference.destroy(ctx);

    o.max_batch = 0;
    assert_int_equal(i8_backend_cpu_reference.prepare(&ctx, &t->g, &o, &err), INFER8_E_INVALID_ARGUMENT);
    o.max_batch = 2;

    /* a conv whose weight shape disagrees with the node */
    i8_node *conv = &t->g.nodes[1];
    assert_int_equal(conv->op, I8_OP_CONV);
    t->g.weights[conv->weight].shape[1] = 4;
    assert_int_equal(i8_backend_cpu_reference.prepare(&ctx, &t->g, &o, &err), INFER8_E_SHAPE);
    assert_non_null(strstr(err.msg, "stem"));
    t->g.weights[conv->weight].shape[1] = 3;

    /* an output size that the kernel, stride and padding do not give */
    conv->h += 1;
    assert_int_equal(i8_backend_cpu_reference.prepare(&ctx, &t->g, &o, &err), INFER8_E_SHAPE);
    conv->h -= 1;

    /* an input that is not an earlier node */
    t->g.nodes[2].inputs[0] = 2;
    assert_int_equal(i8_backend_cpu_reference.prepare(&ctx, &t->g, &o, &err), INFER8_E_INVALID_ARGUMENT);
    t->g.nodes[2].inputs[0] = 1;

    /* a pool padded by more than half its kernel */
    for (int k = 0; k < t->g.n_nodes; k++)
        if (t->g.nodes[k].op == I8_OP_AVGPOOL) {
            t->g.nodes[k].ph = 2, t->g.nodes[k].h += 2;
            assert_int_equal(i8_backend_cpu_reference.prepare(&ctx, &t->g, &o, &err), INFER8_E_SHAPE);
            t->g.nodes[k].ph = 1, t->g.nodes[k].h -= 2;
            break;
        }

    /* the graph is intact again */
    ctx = prepare(&t->g, 2, 0, 0);
    i8_backend_cpu_reference.destroy(ctx);
    assert_int_equal(i8_backend_cpu_reference.supports_node(&t->g, &t->g.nodes[1]), 1);
    assert_string_equal(i8_backend_cpu_reference.name, "cpu-reference");
    i8_graph_free(&t->g);
    free(t);
}

/* f16_activations: every node output but the logits is rounded to binary16. Oracle: the same
 * two 1x1 convs computed here in double on fp16(input), with the hidden layer rounded to fp16. */
static void test_f16_activations(void **state) {
    (void)state;
    tb t;
    memset(&t, 0, sizeof t);
    i8_rng_seed(&t.rng, 77);
    const int ic = 3, hc = 5, oc = 4, H = 5, W = 4, n = 2;
    assert_int_equal(i8_graph_init(&t.g, "f16", ic, H, W, &t.err), INFER8_OK);
    float *w1 = rand_array(&t.rng, (size_t)hc * ic, -0.7, 0.7), *b1 = rand_array(&t.rng, (size_t)hc, -0.1, 0.3);
    float *w2 = rand_array(&t.rng, (size_t)oc * hc, -0.7, 0.7), *b2 = rand_array(&t.rng, (size_t)oc, -0.1, 0.1);
    i8_node a = conv_node(&t, "a", 0, hc, 1, 1, 1, 1, 0, 0);
    a.weight = add_weight(&t, "a.w", 4, hc, ic, 1, 1, w1);
    a.bias = add_weight(&t, "a.b", 1, hc, 0, 0, 0, b1);
    a.act = I8_ACT_RELU;
    int ai = add_node(&t, &a);
    i8_node b = conv_node(&t, "b", ai, oc, 1, 1, 1, 1, 0, 0);
    b.weight = add_weight(&t, "b.w", 4, oc, hc, 1, 1, w2);
    b.bias = add_weight(&t, "b.b", 1, oc, 0, 0, 0, b2);
    t.g.output = add_node(&t, &b);
    t.g.num_classes = oc * H * W;
    float *in = rand_array(&t.rng, (size_t)n * ic * H * W, -3.0, 3.0);
    float got[2 * 4 * 5 * 4], plain[2 * 4 * 5 * 4];
    double want[2 * 4 * 5 * 4];
    for (int img = 0; img < n; img++)
        for (int p = 0; p < H * W; p++) {
            double hid[5];
            for (int o = 0; o < hc; o++) {
                double acc = b1[o];
                for (int k = 0; k < ic; k++)
                    acc += (double)w1[o * ic + k] *
                           i8_f16_to_f32(i8_f32_to_f16(in[((size_t)img * ic + k) * H * W + p]));
                hid[o] = i8_f16_to_f32(i8_f32_to_f16((float)(acc > 0 ? acc : 0)));
            }
            for (int o = 0; o < oc; o++) {
                double acc = b2[o];
                for (int k = 0; k < hc; k++) acc += (double)w2[o * hc + k] * hid[k];
                want[((size_t)img * oc + o) * H * W + p] = acc;
            }
        }
    i8_backend_options o = {.max_batch = n, .threads = 1, .f16_activations = 1};
    void *ctx = NULL;
    assert_int_equal(i8_backend_cpu_reference.prepare(&ctx, &t.g, &o, &t.err), INFER8_OK);
    run(ctx, n, in, got);
    i8_backend_cpu_reference.destroy(ctx);
    void *pc = prepare(&t.g, n, 1, 0);
    run(pc, n, in, plain);
    i8_backend_cpu_reference.destroy(pc);
    double maxd = 0, maxr = 0, maxp = 0;
    for (size_t i = 0; i < sizeof got / sizeof got[0]; i++) {
        maxd = fmax(maxd, fabs(got[i] - want[i]));
        maxp = fmax(maxp, fabs((double)plain[i] - want[i]));
        maxr = fmax(maxr, fabs(want[i]));
    }
    /* float summation of a few terms against double: ~1e-7; the fp16 rounding it emulates: ~1e-4 */
    assert_true(maxd <= 2e-6 * maxr);
    assert_true(maxp >= 1e-5 * maxr); /* without the option the activations stay float */
    free(in);
    i8_graph_free(&t.g);
}

/* i8_pass_sink_avgpool on the fused form of a net whose pool branch is avgpool -> 1x1 conv:
 * stem 6 x 5 (every 3x3 window but the centre ones crosses the border, so the include-pad
 * divisor differs from the tap count), the pool counting padding or not. The pool moves below
 * the conv, takes its bias and relu, and the logits stay those of the graph without the pass. */
static void build_pool_net(tb *t, int include_pad) {
    memset(t, 0, sizeof *t);
    t->fused = 1;
    i8_rng_seed(&t->rng, 31);
    assert_int_equal(i8_graph_init(&t->g, "test-net", 3, 13, 11, &t->err), INFER8_OK);
    int stem = cbr(t, "stem", 0, 16, 3, 3, 2, 2, 0, 0);
    int b0 = cbr(t, "b0", stem, 8, 1, 1, 1, 1, 0, 0);
    int b1 = pool(t, I8_OP_AVGPOOL, stem, 3, 1, 1, include_pad);
    b1 = cbr(t, "b1", b1, 8, 1, 1, 1, 1, 0, 0);
    i8_node cat = i8_node_blank(I8_OP_CONCAT, "cat");
    cat.n_inputs = 2, cat.inputs[0] = b0, cat.inputs[1] = b1;
    cat.c = 16, cat.h = t->g.nodes[stem].h, cat.w = t->g.nodes[stem].w;
    int c = add_node(t, &cat);
    add_head(t, c);
}

static void test_sink_avgpool(void **state) {
    (void)state;
    for (int include_pad = 0; include_pad < 2; include_pad++) {
        tb *a = malloc(sizeof *a), *b = malloc(sizeof *b);
        build_pool_net(a, include_pad);
        build_pool_net(b, include_pad);
        i8_err err = {0};
        const int pool_at = 3, conv_at = 4, bias = b->g.nodes[conv_at].bias;
        int n_sunk = -1;
        assert_int_equal(i8_pass_sink_avgpool(&b->g, &n_sunk, &err), INFER8_OK);
        assert_int_equal(n_sunk, 1);
        const i8_node *conv = &b->g.nodes[pool_at], *avg = &b->g.nodes[conv_at];
        assert_int_equal(conv->op, I8_OP_CONV);
        assert_string_equal(conv->name, "b1");
        assert_int_equal(conv->inputs[0], 1); /* the stem */
        assert_int_equal(conv->bias, -1);
        assert_int_equal(conv->act, I8_ACT_NONE);
        assert_int_equal(conv->c, 8);
        assert_int_equal(avg->op, I8_OP_AVGPOOL);
        assert_int_equal(avg->inputs[0], pool_at);
        assert_int_equal(avg->c, 8);
        assert_int_equal(avg->bias, bias);
        assert_int_equal(avg->act, I8_ACT_RELU);
        assert_int_equal(avg->count_include_pad, include_pad);
        assert_int_equal(b->g.nodes[5].inputs[1], conv_at); /* the concat reads the pool */
        /* a second run finds nothing left to move */
        assert_int_equal(i8_pass_sink_avgpool(&b->g, &n_sunk, &err), INFER8_OK);
        assert_int_equal(n_sunk, 0);

        float *in = net_input(2, 5), ya[20], yb[20];
        void *ca = prepare(&a->g, 2, 0, 0), *cb = prepare(&b->g, 2, 0, 0);
        run(ca, 2, in, ya);
        run(cb, 2, in, yb);
        double d = rel_diff(yb, ya, 20);
        print_message("count_include_pad %d: pool below its conv vs above: max rel %.3g\n", include_pad, d);
        assert_true(d <= 1e-5);
        assert_true(fabs((double)ya[0] - ya[1]) > 1e-4);
        i8_backend_cpu_reference.destroy(ca), i8_backend_cpu_reference.destroy(cb);
        i8_graph_free(&a->g), i8_graph_free(&b->g);
        free(a), free(b), free(in);
    }
    /* not moved: a conv that already reads FP8 (its input scale is the pool's), a 3x3 conv */
    tb *t = malloc(sizeof *t);
    i8_err err = {0};
    int n_sunk = -1;
    build_pool_net(t, 1);
    t->g.nodes[4].precision = I8_PREC_FP8;
    assert_int_equal(i8_pass_sink_avgpool(&t->g, &n_sunk, &err), INFER8_OK);
    assert_int_equal(n_sunk, 0);
    i8_graph_free(&t->g);
    build_net(t, 1, 7); /* its include-pad pool feeds a 3x3 conv, the other a 1x1 */
    assert_int_equal(i8_pass_sink_avgpool(&t->g, &n_sunk, &err), INFER8_OK);
    assert_int_equal(n_sunk, 1);
    i8_graph_free(&t->g);
    free(t);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_unfused_equals_fused),
        cmocka_unit_test(test_batch_and_threads_invariance),
        cmocka_unit_test(test_memory_plan),
        cmocka_unit_test(test_pre_node_hook),
        cmocka_unit_test(test_hook_changes_conv),
        cmocka_unit_test(test_errors),
        cmocka_unit_test(test_f16_activations),
        cmocka_unit_test(test_sink_avgpool),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
