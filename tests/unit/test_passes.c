/* Passes on small hand-built graphs: batchnorm folding checked against a direct convolution
 * followed by batchnorm computed here in double; fusion checked node by node (indices, act,
 * residual fields, renumbering after compaction). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/i8.h"
#include "graph/graph.h"

static int add_w(i8_graph *g, const char *name, int ndim, const int64_t *shape, const float *values) {
    size_t n = 1;
    for (int i = 0; i < ndim; i++) n *= (size_t)shape[i];
    float *p = malloc(n * sizeof *p);
    memcpy(p, values, n * sizeof *p);
    int idx = -1;
    i8_err err = {0};
    assert_int_equal(i8_graph_add_weight(g, name, ndim, shape, p, &idx, &err), INFER8_OK);
    return idx;
}

static int add_n(i8_graph *g, i8_node *n) {
    int idx = -1;
    i8_err err = {0};
    assert_int_equal(i8_graph_add_node(g, n, &idx, &err), INFER8_OK);
    return idx;
}

/* Direct conv (one image, CHW, zero padding) in double. */
static void conv_ref(const float *x, int ic, int h, int w, const float *wt, const float *bias, int oc, int k, int s,
                     int p, double *y, int oh, int ow) {
    for (int o = 0; o < oc; o++)
        for (int i = 0; i < oh; i++)
            for (int j = 0; j < ow; j++) {
                double acc = bias ? bias[o] : 0.0;
                for (int c = 0; c < ic; c++)
                    for (int a = 0; a < k; a++)
                        for (int b = 0; b < k; b++) {
                            int yy = i * s - p + a, xx = j * s - p + b;
                            if (yy < 0 || yy >= h || xx < 0 || xx >= w) continue;
                            acc += (double)x[(c * h + yy) * w + xx] * wt[((o * ic + c) * k + a) * k + b];
                        }
                y[(o * oh + i) * ow + j] = acc;
            }
}

/* input 1x5x5 -> conv 2x1x3x3 (p1, optional bias) -> batchnorm(2); output = batchnorm */
static void build_conv_bn(i8_graph *g, int with_bias, float var1) {
    i8_err err = {0};
    assert_int_equal(i8_graph_init(g, "t", 1, 5, 5, &err), INFER8_OK);
    static const float wt[18] = {0.5f, -1.0f, 0.25f, 2.0f, 0.0f, -0.75f, 1.5f, 0.125f, -2.0f,
                                 -0.3f, 0.7f, 1.1f, -1.9f, 0.6f, 0.05f, 0.9f, -0.45f, 0.2f};
    int64_t ws[4] = {2, 1, 3, 3}, cs[1] = {2};
    i8_node c = i8_node_blank(I8_OP_CONV, "m");
    c.n_inputs = 1, c.inputs[0] = 0, c.c = 2, c.h = 5, c.w = 5, c.kh = c.kw = 3, c.ph = c.pw = 1;
    c.weight = add_w(g, "m.conv.weight", 4, ws, wt);
    if (with_bias) {
        static const float b[2] = {0.3f, -0.8f};
        c.bias = add_w(g, "m.conv.bias", 1, cs, b);
    }
    int ci = add_n(g, &c);
    const float gamma[2] = {1.5f, -0.7f}, beta[2] = {0.25f, 2.0f}, mean[2] = {0.4f, -1.2f}, var[2] = {0.81f, var1};
    i8_node bn = i8_node_blank(I8_OP_BATCHNORM, "m.bn");
    bn.n_inputs = 1, bn.inputs[0] = ci, bn.c = 2, bn.h = 5, bn.w = 5, bn.bn_eps = 0.001f;
    bn.bn_gamma = add_w(g, "m.bn.weight", 1, cs, gamma);
    bn.bn_beta = add_w(g, "m.bn.bias", 1, cs, beta);
    bn.bn_mean = add_w(g, "m.bn.running_mean", 1, cs, mean);
    bn.bn_var = add_w(g, "m.bn.running_var", 1, cs, var);
    g->output = add_n(g, &bn);
    assert_int_equal(i8_graph_validate(g, &err), INFER8_OK);
}

static void check_fold(int with_bias) {
    i8_graph g = {0};
    i8_err err = {0};
    build_conv_bn(&g, with_bias, 2.25f);
    float x[25];
    for (int i = 0; i < 25; i++) x[i] = (float)((i * 7 % 11) - 5) * 0.37f;

    /* unfolded: conv then batchnorm, as timm evaluates it */
    const i8_node *c = &g.nodes[1], *bn = &g.nodes[2];
    double y[50], want[50];
    conv_ref(x, 1, 5, 5, g.weights[c->weight].data, with_bias ? g.weights[c->bias].data : NULL, 2, 3, 1, 1, y, 5, 5);
    for (int o = 0; o < 2; o++) {
        double gm = g.weights[bn->bn_gamma].data[o], bt = g.weights[bn->bn_beta].data[o];
        double mu = g.weights[bn->bn_mean].data[o], vr = g.weights[bn->bn_var].data[o];
        for (int i = 0; i < 25; i++) want[o * 25 + i] = (y[o * 25 + i] - mu) / sqrt(vr + 0.001) * gm + bt;
    }
    /* hand-computed folded values for channel 0: f = 1.5 / sqrt(0.811) */
    double f0 = 1.5 / sqrt((double)0.81f + (double)0.001f);

    assert_int_equal(i8_pass_fold_batchnorm(&g, &err), INFER8_OK);
    assert_int_equal(g.n_nodes, 2);
    assert_int_equal(g.output, 1);
    c = &g.nodes[1];
    assert_int_equal(c->op, I8_OP_CONV);
    assert_string_equal(c->name, "m");
    assert_true(c->bias >= 0);
    assert_int_equal(g.n_weights, 2); /* folded weight + folded bias; bn tensors (and old bias) dropped */
    assert_string_equal(g.weights[c->weight].name, "m.conv.weight(folded)");
    assert_string_equal(g.weights[c->bias].name, "m.bias(folded)");
    assert_float_equal(g.weights[c->weight].data[0], (float)(0.5 * f0), 1e-7);
    double b0 = 0.25 + ((with_bias ? (double)0.3f : 0.0) - (double)0.4f) * f0;
    assert_float_equal(g.weights[c->bias].data[0], (float)b0, 1e-6);

    double got[50];
    conv_ref(x, 1, 5, 5, g.weights[c->weight].data, g.weights[c->bias].data, 2, 3, 1, 1, got, 5, 5);
    for (int i = 0; i < 50; i++) {
        double tol = 1e-6 * fmax(1.0, fabs(want[i]));
        if (fabs(got[i] - want[i]) > tol) fail_msg("element %d: folded %.9g, conv+bn %.9g", i, got[i], want[i]);
    }
    i8_graph_free(&g);
}

static void test_fold_no_bias(void **state) {
    (void)state;
    check_fold(0);
}

static void test_fold_with_bias(void **state) {
    (void)state;
    check_fold(1);
}

static void test_fold_rejects_negative_variance(void **state) {
    (void)state;
    i8_graph g = {0};
    i8_err err = {0};
    build_conv_bn(&g, 0, -0.5f);
    assert_int_equal(i8_pass_fold_batchnorm(&g, &err), INFER8_E_FORMAT);
    assert_non_null(strstr(err.msg, "m.bn.running_var[1]"));
    assert_int_equal(g.n_nodes, 3); /* untouched */
    assert_int_equal(g.n_weights, 5);
    assert_string_equal(g.weights[g.nodes[1].weight].name, "m.conv.weight");
    i8_graph_free(&g);
}

/* A conv read by a batchnorm and by something else cannot be folded. */
static void test_fold_skips_shared_conv(void **state) {
    (void)state;
    i8_graph g = {0};
    i8_err err = {0};
    build_conv_bn(&g, 0, 1.0f);
    i8_node cat = i8_node_blank(I8_OP_CONCAT, "cat");
    cat.n_inputs = 2, cat.inputs[0] = 1, cat.inputs[1] = 2, cat.c = 4, cat.h = 5, cat.w = 5;
    g.output = add_n(&g, &cat);
    assert_int_equal(i8_pass_fold_batchnorm(&g, &err), INFER8_OK);
    assert_int_equal(g.n_nodes, 4);
    assert_int_equal(g.nodes[2].op, I8_OP_BATCHNORM);
    assert_int_equal(g.nodes[1].bias, -1);
    i8_graph_free(&g);
}

/*  0 input 2x6x6
 *  1 conv1 3x3 p1 +bias      -> 2 relu -> 3 maxpool 3 s1 p1
 *  4 conv2 1x1 +bias (of 3)  -> 5 residual(x = 3, 4, scale 0.5, relu)
 *  6 conv3 3x3 p1 +bias (of 5), read by 7 relu and 8 concat(7, 6): not fusable
 *  9 global pool (8) -> 10 linear 3 classes */
static void build_fuse_graph(i8_graph *g) {
    i8_err err = {0};
    assert_int_equal(i8_graph_init(g, "fuse", 2, 6, 6, &err), INFER8_OK);
    float w33[2 * 2 * 9], w11[4], b[2] = {0.1f, -0.1f}, lw[3 * 4], lb[3] = {0};
    for (int i = 0; i < 36; i++) w33[i] = (float)(i % 5) * 0.1f;
    for (int i = 0; i < 4; i++) w11[i] = 0.5f;
    for (int i = 0; i < 12; i++) lw[i] = (float)i;
    int64_t s33[4] = {2, 2, 3, 3}, s11[4] = {2, 2, 1, 1}, sb[1] = {2}, sl[2] = {3, 4}, slb[1] = {3};

    i8_node n = i8_node_blank(I8_OP_CONV, "conv1");
    n.n_inputs = 1, n.inputs[0] = 0, n.c = 2, n.h = n.w = 6, n.kh = n.kw = 3, n.ph = n.pw = 1;
    n.weight = add_w(g, "conv1.weight", 4, s33, w33), n.bias = add_w(g, "conv1.bias", 1, sb, b);
    assert_int_equal(add_n(g, &n), 1);
    n = i8_node_blank(I8_OP_RELU, "conv1.act");
    n.n_inputs = 1, n.inputs[0] = 1, n.c = 2, n.h = n.w = 6;
    assert_int_equal(add_n(g, &n), 2);
    n = i8_node_blank(I8_OP_MAXPOOL, "pool");
    n.n_inputs = 1, n.inputs[0] = 2, n.c = 2, n.h = n.w = 6, n.kh = n.kw = 3, n.ph = n.pw = 1;
    assert_int_equal(add_n(g, &n), 3);
    n = i8_node_blank(I8_OP_CONV, "conv2");
    n.n_inputs = 1, n.inputs[0] = 3, n.c = 2, n.h = n.w = 6;
    n.weight = add_w(g, "conv2.weight", 4, s11, w11), n.bias = add_w(g, "conv2.bias", 1, sb, b);
    assert_int_equal(add_n(g, &n), 4);
    n = i8_node_blank(I8_OP_RESIDUAL, "block");
    n.n_inputs = 2, n.inputs[0] = 3, n.inputs[1] = 4, n.c = 2, n.h = n.w = 6, n.residual_scale = 0.5f;
    n.act = I8_ACT_RELU, n.block = 0;
    assert_int_equal(add_n(g, &n), 5);
    n = i8_node_blank(I8_OP_CONV, "conv3");
    n.n_inputs = 1, n.inputs[0] = 5, n.c = 2, n.h = n.w = 6, n.kh = n.kw = 3, n.ph = n.pw = 1;
    n.weight = add_w(g, "conv3.weight", 4, s33, w33), n.bias = add_w(g, "conv3.bias", 1, sb, b);
    assert_int_equal(add_n(g, &n), 6);
    n = i8_node_blank(I8_OP_RELU, "conv3.act");
    n.n_inputs = 1, n.inputs[0] = 6, n.c = 2, n.h = n.w = 6;
    assert_int_equal(add_n(g, &n), 7);
    n = i8_node_blank(I8_OP_CONCAT, "cat");
    n.n_inputs = 2, n.inputs[0] = 7, n.inputs[1] = 6, n.c = 4, n.h = n.w = 6;
    assert_int_equal(add_n(g, &n), 8);
    n = i8_node_blank(I8_OP_GLOBAL_AVGPOOL, "global_pool");
    n.n_inputs = 1, n.inputs[0] = 8, n.c = 4, n.h = n.w = 1;
    assert_int_equal(add_n(g, &n), 9);
    n = i8_node_blank(I8_OP_LINEAR, "fc");
    n.n_inputs = 1, n.inputs[0] = 9, n.c = 3, n.h = n.w = 1;
    n.weight = add_w(g, "fc.weight", 2, sl, lw), n.bias = add_w(g, "fc.bias", 1, slb, lb);
    g->output = add_n(g, &n);
    g->num_classes = 3;
    assert_int_equal(i8_graph_validate(g, &err), INFER8_OK);
}

static void test_fuse(void **state) {
    (void)state;
    i8_graph g = {0};
    i8_err err = {0};
    build_fuse_graph(&g);
    int nw = g.n_weights;
    assert_int_equal(i8_pass_fuse(&g, &err), INFER8_OK);
    /* removed: 2 (relu), 5 (residual); kept relu 7 because conv3 has two readers */
    assert_int_equal(g.n_nodes, 9);
    assert_int_equal(g.n_weights, nw);
    const char *names[9] = {"input", "conv1", "pool", "conv2", "conv3", "conv3.act", "cat", "global_pool", "fc"};
    for (int i = 0; i < 9; i++) assert_string_equal(g.nodes[i].name, names[i]);
    const i8_node *c1 = &g.nodes[1], *pool = &g.nodes[2], *c2 = &g.nodes[3], *c3 = &g.nodes[4];
    assert_int_equal(c1->act, I8_ACT_RELU);
    assert_int_equal(c1->residual, -1);
    assert_int_equal(pool->inputs[0], 1);
    assert_int_equal(c2->n_inputs, 2);
    assert_int_equal(c2->inputs[0], 2);
    assert_int_equal(c2->inputs[1], 2);
    assert_int_equal(c2->residual, 2);
    assert_float_equal(c2->residual_scale, 0.5f, 0.0f);
    assert_int_equal(c2->act, I8_ACT_RELU);
    assert_int_equal(c3->inputs[0], 3); /* was the residual node, now the fused conv2 */
    assert_int_equal(c3->act, I8_ACT_NONE);
    assert_int_equal(g.nodes[5].op, I8_OP_RELU);
    assert_int_equal(g.nodes[5].inputs[0], 4);
    assert_int_equal(g.nodes[6].inputs[0], 5);
    assert_int_equal(g.nodes[6].inputs[1], 4);
    assert_int_equal(g.nodes[7].inputs[0], 6);
    assert_int_equal(g.nodes[8].inputs[0], 7);
    assert_int_equal(g.output, 8);
    /* weight indices still point at the right tensors */
    assert_string_equal(g.weights[c2->weight].name, "conv2.weight");
    assert_string_equal(g.weights[g.nodes[8].weight].name, "fc.weight");
    /* fusing again changes nothing */
    assert_int_equal(i8_pass_fuse(&g, &err), INFER8_OK);
    assert_int_equal(g.n_nodes, 9);
    i8_graph_free(&g);
}

/* A residual whose branch conv is 3x3 (or lacks a bias) stays a RESIDUAL node. */
static void test_fuse_residual_needs_1x1_bias(void **state) {
    (void)state;
    i8_graph g = {0};
    i8_err err = {0};
    build_fuse_graph(&g);
    g.nodes[4].bias = -1; /* conv2 without bias */
    assert_int_equal(i8_pass_fuse(&g, &err), INFER8_OK);
    int residual = 0;
    for (int i = 0; i < g.n_nodes; i++) residual += g.nodes[i].op == I8_OP_RESIDUAL;
    assert_int_equal(residual, 1);
    /* the now unreferenced conv2.bias weight is dropped by compaction */
    for (int i = 0; i < g.n_weights; i++) assert_string_not_equal(g.weights[i].name, "conv2.bias");
    i8_graph_free(&g);
}

static void test_compact_rejects_dangling(void **state) {
    (void)state;
    i8_graph g = {0};
    i8_err err = {0};
    build_fuse_graph(&g);
    g.nodes[2].op = I8_OP_COUNT; /* removed, but the pool still reads it */
    assert_int_equal(i8_graph_compact(&g, &err), INFER8_E_INTERNAL);
    assert_non_null(strstr(err.msg, "pool"));
    assert_int_equal(g.n_nodes, 11); /* left intact */
    i8_graph_free(&g);
}

/* Split weights on the fused graph (input, conv1+relu, pool, conv2+residual, conv3, conv3.act,
 * cat, global_pool, fc): conv1 and conv3 each gain a "<name>.lo" conv just before them, read as
 * their fused residual; every index after them shifts; hi is fp16-exact and hi + lo is the
 * original kernel bit for bit. */
static void test_split_weights(void **state) {
    (void)state;
    i8_graph g = {0};
    i8_err err = {0};
    build_fuse_graph(&g);
    assert_int_equal(i8_pass_fuse(&g, &err), INFER8_OK);
    const int c1w = g.nodes[1].weight, c3w = g.nodes[4].weight;
    float orig1[36], orig3[36];
    memcpy(orig1, g.weights[c1w].data, sizeof orig1);
    memcpy(orig3, g.weights[c3w].data, sizeof orig3);
    uint8_t sel[9] = {0};
    sel[1] = sel[4] = 1;
    int n_split = -1;
    assert_int_equal(i8_pass_split_weights(&g, sel, &n_split, &err), INFER8_OK);
    assert_int_equal(n_split, 2);
    assert_int_equal(g.n_nodes, 11);
    const char *names[11] = {"input", "conv1.lo", "conv1", "pool", "conv2", "conv3.lo", "conv3", "conv3.act", "cat",
                             "global_pool", "fc"};
    for (int i = 0; i < 11; i++) assert_string_equal(g.nodes[i].name, names[i]);
    for (int k = 1; k <= 5; k += 4) { /* the lo convs */
        const i8_node *lo = &g.nodes[k], *hi = &g.nodes[k + 1];
        assert_int_equal(lo->op, I8_OP_CONV);
        assert_int_equal(lo->n_inputs, 1);
        assert_int_equal(lo->inputs[0], hi->inputs[0]);
        assert_int_equal(lo->bias, -1);
        assert_int_equal(lo->act, I8_ACT_NONE);
        assert_int_equal(lo->residual, -1);
        assert_int_equal(lo->kh, hi->kh);
        assert_int_equal(hi->n_inputs, 2);
        assert_int_equal(hi->residual, k);
        assert_int_equal(hi->inputs[1], k);
        assert_float_equal(hi->residual_scale, 1.0f, 0.0f);
        assert_true(hi->bias >= 0);
        for (int e = 0; e < 36; e++) {
            const float h = g.weights[hi->weight].data[e], l = g.weights[lo->weight].data[e];
            const float want = k == 1 ? orig1[e] : orig3[e];
            assert_true(i8_f16_to_f32(i8_f32_to_f16(h)) == h); /* hi is a binary16 value */
            assert_true(h + l == want);                          /* and the rest is exact */
            if (want != 0.0f && h != want) assert_true(l != 0.0f);
        }
    }
    assert_string_equal(g.weights[g.nodes[1].weight].name, "conv1.weight.lo");
    assert_int_equal(g.nodes[2].act, I8_ACT_RELU);   /* conv1 keeps its act ... */
    assert_int_equal(g.nodes[1].act, I8_ACT_NONE);   /* ... its rest has none */
    assert_int_equal(g.nodes[0].op, I8_OP_INPUT);
    assert_int_equal(g.nodes[3].inputs[0], 2);       /* pool reads conv1 */
    assert_int_equal(g.nodes[4].residual, 3);        /* conv2's residual x is the pool */
    assert_int_equal(g.nodes[4].inputs[1], 3);
    assert_int_equal(g.nodes[5].inputs[0], 4);       /* conv3.lo reads conv2 */
    assert_int_equal(g.nodes[7].inputs[0], 6);       /* conv3.act reads conv3 */
    assert_int_equal(g.nodes[8].inputs[0], 7);
    assert_int_equal(g.nodes[8].inputs[1], 6);
    assert_int_equal(g.output, 10);
    /* a w33 value such as 0.1 is not a binary16: the split must have moved something */
    assert_true(g.weights[g.nodes[1].weight].data[1] != 0.0f);
    i8_graph_free(&g);
}

/* What cannot be split is refused by name and leaves the graph as it was. */
static void test_split_weights_rejects(void **state) {
    (void)state;
    static const struct {
        int node;
        int fp8;
        const char *want;
    } cases[] = {{3, 0, "conv2' already has a fused residual"}, {2, 0, "'pool' is a maxpool"}, {4, 1, "'conv3' runs FP8"}};
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        i8_graph g = {0};
        i8_err err = {0};
        build_fuse_graph(&g);
        assert_int_equal(i8_pass_fuse(&g, &err), INFER8_OK);
        if (cases[c].fp8) g.nodes[cases[c].node].precision = I8_PREC_FP8;
        uint8_t sel[9] = {0};
        sel[1] = 1;
        sel[cases[c].node] = 1;
        int n_split = -1;
        const float w0 = g.weights[g.nodes[1].weight].data[1];
        assert_int_equal(i8_pass_split_weights(&g, sel, &n_split, &err), INFER8_E_INVALID_ARGUMENT);
        if (!strstr(err.msg, cases[c].want)) fail_msg("case %zu: '%s' lacks '%s'", c, err.msg, cases[c].want);
        assert_int_equal(g.n_nodes, 9);
        assert_true(g.weights[g.nodes[1].weight].data[1] == w0); /* checked before anything changed */
        i8_graph_free(&g);
    }
    i8_graph g = {0};
    i8_err err = {0};
    build_fuse_graph(&g);
    uint8_t none[11] = {0};
    int n_split = -1;
    assert_int_equal(i8_pass_split_weights(&g, none, &n_split, &err), INFER8_OK);
    assert_int_equal(n_split, 0);
    assert_int_equal(g.n_nodes, 11);
    i8_graph_free(&g);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_fold_no_bias),
        cmocka_unit_test(test_fold_with_bias),
        cmocka_unit_test(test_fold_rejects_negative_variance),
        cmocka_unit_test(test_fold_skips_shared_conv),
        cmocka_unit_test(test_fuse),
        cmocka_unit_test(test_fuse_residual_needs_1x1_bias),
        cmocka_unit_test(test_compact_rejects_dangling),
        cmocka_unit_test(test_split_weights),
        cmocka_unit_test(test_split_weights_rejects),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
