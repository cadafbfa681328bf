/* Graph IR: validation accepts a correct hand-built graph and rejects broken ones with a
 * message naming the node; stats against hand-computed MACs and parameters; the critical
 * path against hand-computed chains; describe JSON parses back with one entry per node. */
#include <setjmp.h>
#include <limits.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <cjson/cJSON.h>
#include <stdlib.h>
#include <string.h>

#include "graph/graph.h"

static int add_w(i8_graph *g, const char *name, int ndim, const int64_t *shape) {
    size_t n = 1;
    for (int i = 0; i < ndim; i++) n *= (size_t)shape[i];
    float *p = calloc(n, sizeof *p);
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

/*  0 input 3x9x9
 *  1 conv "stem" 3->4 3x3 s2 p0 -> 4x4x4     2 stem.bn   3 stem.act
 *  4 maxpool "pool" 3 s1 p1 (of 3) -> 4x4x4  5 conv "side" 1x1 4->6 +bias (of 3) -> 6x4x4
 *  6 concat "mix" (4, 5) -> 10x4x4     7 global_pool -> 10x1x1     8 linear "head" 10->5 */
static void build_small(i8_graph *g) {
    i8_err err = {0};
    assert_int_equal(i8_graph_init(g, "small", 3, 9, 9, &err), INFER8_OK);
    assert_int_equal(g->n_nodes, 1);
    assert_int_equal(g->nodes[0].op, I8_OP_INPUT);
    int64_t w1[4] = {4, 3, 3, 3}, c4[1] = {4}, w2[4] = {6, 4, 1, 1}, c6[1] = {6}, wl[2] = {5, 10}, c5[1] = {5};
    i8_node n = i8_node_blank(I8_OP_CONV, "stem");
    n.n_inputs = 1, n.inputs[0] = 0, n.c = 4, n.h = n.w = 4, n.kh = n.kw = 3, n.sh = n.sw = 2;
    n.weight = add_w(g, "stem.conv.weight", 4, w1);
    add_n(g, &n);
    n = i8_node_blank(I8_OP_BATCHNORM, "stem.bn");
    n.n_inputs = 1, n.inputs[0] = 1, n.c = 4, n.h = n.w = 4, n.bn_eps = 0.001f;
    n.bn_gamma = add_w(g, "stem.bn.weight", 1, c4), n.bn_beta = add_w(g, "stem.bn.bias", 1, c4);
    n.bn_mean = add_w(g, "stem.bn.running_mean", 1, c4), n.bn_var = add_w(g, "stem.bn.running_var", 1, c4);
    add_n(g, &n);
    n = i8_node_blank(I8_OP_RELU, "stem.act");
    n.n_inputs = 1, n.inputs[0] = 2, n.c = 4, n.h = n.w = 4;
    add_n(g, &n);
    n = i8_node_blank(I8_OP_MAXPOOL, "pool");
    n.n_inputs = 1, n.inputs[0] = 3, n.c = 4, n.h = n.w = 4, n.kh = n.kw = 3, n.ph = n.pw = 1;
    add_n(g, &n);
    n = i8_node_blank(I8_OP_CONV, "side");
    n.n_inputs = 1, n.inputs[0] = 3, n.c = 6, n.h = n.w = 4;
    n.weight = add_w(g, "side.weight", 4, w2), n.bias = add_w(g, "side.bias", 1, c6);
    add_n(g, &n);
    n = i8_node_blank(I8_OP_CONCAT, "mix");
    n.n_inputs = 2, n.inputs[0] = 4, n.inputs[1] = 5, n.c = 10, n.h = n.w = 4;
    add_n(g, &n);
    n = i8_node_blank(I8_OP_GLOBAL_AVGPOOL, "global_pool");
    n.n_inputs = 1, n.inputs[0] = 6, n.c = 10, n.h = n.w = 1;
    add_n(g, &n);
    n = i8_node_blank(I8_OP_LINEAR, "head");
    n.n_inputs = 1, n.inputs[0] = 7, n.c = 5, n.h = n.w = 1;
    n.weight = add_w(g, "head.weight", 2, wl), n.bias = add_w(g, "head.bias", 1, c5);
    g->output = add_n(g, &n);
    g->num_classes = 5;
}

static void test_valid_graph_and_stats(void **state) {
    (void)state;
    i8_graph g = {0};
    i8_err err = {0};
    build_small(&g);
    assert_int_equal(i8_graph_validate(&g, &err), INFER8_OK);
    i8_graph_stats s;
    i8_graph_compute_stats(&g, &s);
    assert_int_equal(s.convolutions, 2);
    assert_int_equal(s.count_per_op[I8_OP_BATCHNORM], 1);
    /* stem 4*4*4 * 3*3*3 = 1728; side 6*4*4 * 4 = 384; head 5*10 = 50 */
    assert_true(s.macs == 1728 + 384 + 50);
    /* 108 + 4 + 4 (gamma, beta; running stats excluded) + 24 + 6 + 50 + 5 */
    assert_true(s.parameters == 108 + 8 + 30 + 55);
    assert_true(s.max_activation_elems == 3 * 9 * 9);
    assert_string_equal(i8_op_name(I8_OP_GLOBAL_AVGPOOL), "global_avgpool");
    assert_string_equal(i8_op_name(I8_OP_COUNT), "removed");
    assert_string_equal(i8_precision_name(I8_PREC_FP8), "fp8");
    i8_graph_free(&g);
}

/* build_small's two branches after stem.act: pool (4) and side (5), joined by mix (6). With side
 * costing 3 and every other node 1, the longest chain is 0 1 2 3 5 6 7 8 (cost 10); the one
 * through pool costs 8, so pool is on the path only with a slack of 2 or more. */
static void test_critical_path(void **state) {
    (void)state;
    i8_graph g = {0};
    i8_err err = {0};
    build_small(&g);
    double cost[9] = {1, 1, 1, 1, 1, 3, 1, 1, 1}, longest = 0;
    unsigned char on[9];
    int count = -1;
    assert_int_equal(i8_graph_critical_path(&g, cost, 0.0, on, &count, &longest, &err), INFER8_OK);
    static const unsigned char want[9] = {1, 1, 1, 1, 0, 1, 1, 1, 1};
    assert_memory_equal(on, want, 9);
    assert_int_equal(count, 8);
    assert_true(longest == 10.0);
    assert_int_equal(i8_graph_critical_path(&g, cost, 1.5, on, &count, NULL, &err), INFER8_OK);
    assert_int_equal(count, 8);
    assert_int_equal(on[4], 0);
    assert_int_equal(i8_graph_critical_path(&g, cost, 2.0, on, &count, NULL, &err), INFER8_OK);
    assert_int_equal(count, 9);
    /* the pool made dearer than the side conv takes the path over */
    cost[4] = 4;
    assert_int_equal(i8_graph_critical_path(&g, cost, 0.0, on, &count, &longest, &err), INFER8_OK);
    assert_int_equal(on[4], 1);
    assert_int_equal(on[5], 0);
    assert_true(longest == 11.0);
    i8_graph_free(&g);
}

static void expect_invalid(i8_graph *g, infer8_status code, const char *needle) {
    i8_err err = {0};
    infer8_status st = i8_graph_validate(g, &err);
    if (st != code) fail_msg("expected status %d, got %d (%s)", code, st, err.msg);
    if (!strstr(err.msg, needle)) fail_msg("message '%s' lacks '%s'", err.msg, needle);
    i8_graph_free(g);
}

static void test_rejects_concat_channels(void **state) {
    (void)state;
    i8_graph g = {0};
    build_small(&g);
    g.nodes[6].c = 11;
    expect_invalid(&g, INFER8_E_SHAPE, "'mix'");
}

static void test_rejects_concat_spatial(void **state) {
    (void)state;
    i8_graph g = {0};
    build_small(&g);
    g.nodes[6].inputs[1] = 0; /* 3x9x9 input joins a 4x4 concat */
    expect_invalid(&g, INFER8_E_SHAPE, "'mix'");
}

static void test_rejects_forward_input(void **state) {
    (void)state;
    i8_graph g = {0};
    build_small(&g);
    g.nodes[4].inputs[0] = 5; /* pool reads a later node */
    expect_invalid(&g, INFER8_E_INTERNAL, "'pool'");
}

static void test_rejects_weight_shape(void **state) {
    (void)state;
    i8_graph g = {0};
    build_small(&g);
    g.weights[g.nodes[5].weight].shape[1] = 5;
    expect_invalid(&g, INFER8_E_SHAPE, "'side' conv weight 'side.weight': expected shape [6, 4, 1, 1], found [6, 5, 1, 1]");
}

static void test_rejects_conv_size(void **state) {
    (void)state;
    i8_graph g = {0};
    build_small(&g);
    g.nodes[1].ph = g.nodes[1].pw = 1; /* (9 + 2 - 3) / 2 + 1 = 5, node says 4 */
    expect_invalid(&g, INFER8_E_SHAPE, "'stem'");
}

static void test_rejects_pool_size(void **state) {
    (void)state;
    i8_graph g = {0};
    build_small(&g);
    g.nodes[4].sh = 2; /* floor((4 + 2 - 3) / 2) + 1 = 2 rows, node says 4 */
    expect_invalid(&g, INFER8_E_SHAPE, "'pool'");
}

/* Padding read from a bundle may be any int: fuzz_bundle found 2 * ph overflowing for a pool
 * (1610612737); both are refused as invalid shapes, without overflow (the sanitizer build's
 * UBSan aborts on signed overflow). */
static void test_rejects_huge_padding(void **state) {
    (void)state;
    i8_graph g = {0};
    build_small(&g);
    g.nodes[4].ph = 1610612737;
    expect_invalid(&g, INFER8_E_INTERNAL, "pool 'pool' kernel 3x3 stride 1x1 padding 1610612737x1 invalid");
    build_small(&g);
    g.nodes[1].ph = g.nodes[1].pw = INT_MAX; /* conv: the output size is computed in 64 bits */
    expect_invalid(&g, INFER8_E_SHAPE, "'stem' output 4x4, expected 2147483651x2147483651");
}

/* A bias and an act only where an executor applies them: conv, linear (bias), residual (act) and
 * the average pools i8_pass_sink_avgpool moves below their 1x1 conv (both); a bundle that sets
 * them elsewhere would otherwise have them ignored. */
static void test_bias_and_act_placement(void **state) {
    (void)state;
    i8_graph g = {0};
    build_small(&g);
    g.nodes[4].act = I8_ACT_RELU; /* the max pool */
    expect_invalid(&g, INFER8_E_INTERNAL, "'pool' (maxpool) has an act");
    build_small(&g);
    g.nodes[6].bias = g.nodes[5].bias; /* the concat */
    expect_invalid(&g, INFER8_E_INTERNAL, "'mix' (concat) has a bias");
    build_small(&g);
    g.nodes[4].op = I8_OP_AVGPOOL, g.nodes[4].bias = g.nodes[5].bias; /* 6 values for 4 channels */
    expect_invalid(&g, INFER8_E_SHAPE, "'pool' bias weight 'side.bias': expected shape [4], found [6]");
    build_small(&g);
    int64_t four[1] = {4};
    g.nodes[4].op = I8_OP_AVGPOOL, g.nodes[4].bias = add_w(&g, "pool.bias", 1, four), g.nodes[4].act = I8_ACT_RELU;
    i8_err err = {0};
    assert_int_equal(i8_graph_validate(&g, &err), INFER8_OK);
    i8_graph_free(&g);
}

static void test_rejects_input_count(void **state) {
    (void)state;
    i8_graph g = {0};
    build_small(&g);
    g.nodes[3].n_inputs = 2;
    g.nodes[3].inputs[1] = 1;
    expect_invalid(&g, INFER8_E_INTERNAL, "'stem.act'");
}

static void test_rejects_bad_output(void **state) {
    (void)state;
    i8_graph g = {0};
    build_small(&g);
    g.output = 42;
    expect_invalid(&g, INFER8_E_INTERNAL, "output");
    build_small(&g);
    g.output = 6; /* a 10x4x4 feature map is not 5 logits */
    expect_invalid(&g, INFER8_E_SHAPE, "'mix'");
}

static void test_rejects_bad_residual(void **state) {
    (void)state;
    i8_graph g = {0};
    build_small(&g);
    /* fuse "pool" (4x4x4) as residual of "side" (6x4x4): channel mismatch */
    g.nodes[5].residual = 4, g.nodes[5].inputs[1] = 4, g.nodes[5].n_inputs = 2;
    expect_invalid(&g, INFER8_E_SHAPE, "'side'");
}

static void test_describe_json(void **state) {
    (void)state;
    i8_graph g = {0};
    i8_err err = {0};
    build_small(&g);
    cJSON *root = i8_graph_describe_tree(&g, &err); /* infer8_model_describe prints it */
    assert_non_null(root);
    assert_string_equal(cJSON_GetObjectItem(root, "arch")->valuestring, "small");
    cJSON *layers = cJSON_GetObjectItem(root, "layers");
    assert_true(cJSON_IsArray(layers));
    assert_int_equal(cJSON_GetArraySize(layers), g.n_nodes);
    static const char *const fields[] = {"name", "op", "kernel", "stride", "padding", "in", "out", "precision", "act"};
    for (int i = 0; i < g.n_nodes; i++) {
        cJSON *l = cJSON_GetArrayItem(layers, i);
        for (size_t f = 0; f < sizeof fields / sizeof fields[0]; f++)
            if (!cJSON_HasObjectItem(l, fields[f])) fail_msg("layer %d lacks '%s'", i, fields[f]);
        assert_string_equal(cJSON_GetObjectItem(l, "name")->valuestring, g.nodes[i].name);
        assert_string_equal(cJSON_GetObjectItem(l, "op")->valuestring, i8_op_name(g.nodes[i].op));
        cJSON *out = cJSON_GetObjectItem(l, "out");
        assert_int_equal(cJSON_GetArrayItem(out, 0)->valueint, g.nodes[i].c);
        assert_int_equal(cJSON_GetArrayItem(out, 2)->valueint, g.nodes[i].w);
        assert_int_equal(cJSON_GetArraySize(cJSON_GetObjectItem(l, "in")), g.nodes[i].n_inputs);
    }
    cJSON *stem = cJSON_GetArrayItem(layers, 1);
    assert_int_equal(cJSON_GetArrayItem(cJSON_GetObjectItem(stem, "kernel"), 0)->valueint, 3);
    assert_int_equal(cJSON_GetArrayItem(cJSON_GetObjectItem(stem, "stride"), 1)->valueint, 2);
    assert_int_equal(cJSON_GetArrayItem(cJSON_GetObjectItem(cJSON_GetArrayItem(layers, 4), "padding"), 0)->valueint, 1);
    cJSON *in = cJSON_GetArrayItem(cJSON_GetObjectItem(stem, "in"), 0);
    assert_int_equal(cJSON_GetArrayItem(in, 0)->valueint, 3);
    assert_int_equal(cJSON_GetArrayItem(in, 1)->valueint, 9);
    cJSON *mix_in = cJSON_GetObjectItem(cJSON_GetArrayItem(layers, 6), "in");
    assert_int_equal(cJSON_GetArraySize(mix_in), 2);
    assert_int_equal(cJSON_GetArrayItem(cJSON_GetArrayItem(mix_in, 1), 0)->valueint, 6);
    assert_string_equal(cJSON_GetObjectItem(stem, "precision")->valuestring, "fp32");
    cJSON *totals = cJSON_GetObjectItem(root, "totals");
    assert_int_equal(cJSON_GetObjectItem(totals, "nodes")->valueint, 9);
    assert_int_equal(cJSON_GetObjectItem(totals, "convolutions")->valueint, 2);
    assert_int_equal((int)cJSON_GetObjectItem(totals, "macs")->valuedouble, 2162);
    assert_int_equal(cJSON_GetObjectItem(cJSON_GetObjectItem(totals, "count_per_op"), "conv")->valueint, 2);
    cJSON_Delete(root);

    /* after fusion the fused conv names its residual */
    assert_int_equal(i8_pass_fold_batchnorm(&g, &err), INFER8_OK);
    assert_int_equal(i8_pass_fuse(&g, &err), INFER8_OK);
    char *text = NULL;
    assert_int_equal(i8_graph_describe_text(&g, &text, &err), INFER8_OK);
    for (int i = 0; i < g.n_nodes; i++)
        if (!strstr(text, g.nodes[i].name)) fail_msg("text lacks node %s", g.nodes[i].name);
    assert_non_null(strstr(text, "convolutions: 2"));
    assert_non_null(strstr(text, "stem"));
    assert_null(strstr(text, "stem.bn"));
    free(text);
    i8_graph_free(&g);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_valid_graph_and_stats),
        cmocka_unit_test(test_critical_path),
        cmocka_unit_test(test_rejects_concat_channels),
        cmocka_unit_test(test_rejects_concat_spatial),
        cmocka_unit_test(test_rejects_forward_input),
        cmocka_unit_test(test_rejects_weight_shape),
        cmocka_unit_test(test_rejects_conv_size),
        cmocka_unit_test(test_rejects_pool_size),
        cmocka_unit_test(test_rejects_huge_padding),
        cmocka_unit_test(test_bias_and_act_placement),
        cmocka_unit_test(test_rejects_input_count),
        cmocka_unit_test(test_rejects_bad_output),
        cmocka_unit_test(test_rejects_bad_residual),
        cmocka_unit_test(test_describe_json),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
