/* FP8 recipes (layer lists of the three families, recipe files and their errors), the graph
 * transform i8_quantize_graph_fp8 (weight scales, dequantized weights, activation scales) and
 * the reference executor's FP8 emulation on hand-computed tiny convolutions. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "backends/backend.h"
#include "families/family.h"
#include "quant/fp8.h"
#include "quant/quantize.h"
#include "quant/recipe.h"

/* Weight source with constant values (variances 1): structure is all the recipe tests need. */
static infer8_status const_get(void *ctx, const char *key, int ndim, const int64_t *shape, float **data, i8_err *err) {
    size_t n = 1;
    for (int i = 0; i < ndim; i++) n *= (size_t)shape[i];
    float *p = malloc(n * sizeof *p);
    if (!p) return i8_fail(err, INFER8_E_NOMEM, "oom");
    size_t len = strlen(key);
    float v = len > 11 && !strcmp(key + len - 11, "running_var") ? 1.0f : 0.01f;
    for (size_t i = 0; i < n; i++) p[i] = v;
    *data = p;
    return INFER8_OK;
}

static void build_optimized(const i8_family *f, i8_graph *g) {
    i8_weight_source src = {NULL, const_get};
    i8_err err = {0};
    memset(g, 0, sizeof *g);
    assert_int_equal(f->build(g, &src, 10, 299, 299, &err), INFER8_OK);
    assert_int_equal(i8_pass_fold_batchnorm(g, &err), INFER8_OK);
    assert_int_equal(i8_pass_fuse(g, &err), INFER8_OK);
}

static int node_index(const i8_graph *g, const char *name) {
    for (int k = 0; k < g->n_nodes; k++)
        if (!strcmp(g->nodes[k].name, name)) return k;
    fail_msg("node %s missing", name);
    return -1;
}

static void plan_spec(const i8_graph *g, const char *spec, i8_fp8_recipe *r, i8_fp8_plan *p) {
    i8_err err = {0};
    memset(r, 0, sizeof *r);
    memset(p, 0, sizeof *p);
    if (i8_fp8_recipe_from_spec(spec, NULL, r, &err) || i8_fp8_plan_make(g, r, p, &err))
        fail_msg("recipe %s: %s", spec, err.msg);
}

static void test_irv2_recipes(void **state) {
    (void)state;
    i8_graph g;
    build_optimized(&i8_family_inception_resnet_v2, &g);
    i8_fp8_recipe r;
    i8_fp8_plan p;
    plan_spec(&g, "default", &r, &p);
    assert_int_equal(p.n_convs, 244);
    assert_int_equal(p.n_fp8, 239);
    assert_int_equal(p.n_residual_fp8, 0);
    const char *stem[] = {"conv2d_1a", "conv2d_2a", "conv2d_2b", "conv2d_3b", "conv2d_4a"};
    for (int i = 0; i < 5; i++) assert_int_equal(p.fp8[node_index(&g, stem[i])], 0);
    int projections = 0;
    for (int k = 0; k < g.n_nodes; k++) {
        const i8_node *nd = &g.nodes[k];
        if (nd->op == I8_OP_CONV && nd->residual >= 0) {
            projections++;
            assert_int_equal(p.fp8[k], 1); /* the 40 biased 1x1 residual projections are FP8 */
            assert_true(nd->bias >= 0 && nd->kh == 1);
        }
        if (nd->op == I8_OP_LINEAR) assert_int_equal(p.fp8[k], 0);
    }
    assert_int_equal(projections, 40);
    assert_int_equal(p.fp8[node_index(&g, "mixed_5b.branch0")], 1);
    assert_int_equal(p.fp8[node_index(&g, "conv2d_7b")], 1);
    assert_int_equal(p.fp8[node_index(&g, "block8.conv2d")], 1);
    /* the input of the first FP8 convs (maxpool_5a) and a block output are quantized tensors */
    assert_int_equal(p.quantized[node_index(&g, "maxpool_5a")], 1);
    assert_int_equal(p.quantized[node_index(&g, "conv2d_4a")], 0);
    i8_fp8_plan_free(&p);
    i8_fp8_recipe_free(&r);

    /* residual-fp8:10-39: exactly the fused residual convs of blocks 10..39 */
    plan_spec(&g, "residual-fp8:10-39", &r, &p);
    assert_int_equal(p.n_fp8, 239);
    assert_int_equal(p.n_residual_fp8, 30);
    for (int k = 0; k < g.n_nodes; k++) {
        const i8_node *nd = &g.nodes[k];
        int want = nd->op == I8_OP_CONV && nd->residual >= 0 && nd->block >= 10 && nd->block <= 39;
        assert_int_equal(p.residual_fp8[k], want);
        if (want) assert_int_equal(p.quantized[nd->residual], 1);
    }
    assert_int_equal(p.residual_fp8[node_index(&g, "repeat_1.0.conv2d")], 1); /* block 10 */
    assert_int_equal(p.residual_fp8[node_index(&g, "repeat.9.conv2d")], 0);   /* block 9 */
    assert_int_equal(p.residual_fp8[node_index(&g, "block8.conv2d")], 1);     /* block 39 */
    i8_fp8_plan_free(&p);
    i8_fp8_recipe_free(&r);
    plan_spec(&g, "residual-fp8", &r, &p);
    assert_int_equal(p.n_residual_fp8, 40);
    i8_fp8_plan_free(&p);
    i8_fp8_recipe_free(&r);

    /* a recipe file: base none, include the block17 convs, exclude their projections */
    const char *json = "{\"format\":\"infer8-recipe\",\"version\":1,\"base\":\"none\","
                       "\"include\":[\"repeat_1.*\"],\"exclude\":[\"*.conv2d\"]}";
    i8_err err = {0};
    memset(&r, 0, sizeof r);
    assert_int_equal(i8_fp8_recipe_parse_json(json, strlen(json), "r.json", &r, &err), INFER8_OK);
    assert_int_equal(i8_fp8_plan_make(&g, &r, &p, &err), INFER8_OK);
    assert_int_equal(p.n_fp8, 20 * 4);
    assert_int_equal(p.fp8[node_index(&g, "repeat_1.3.branch1.2")], 1);
    assert_int_equal(p.fp8[node_index(&g, "repeat_1.3.conv2d")], 0);
    i8_fp8_plan_free(&p);
    i8_fp8_recipe_free(&r); /* plan_spec below starts a fresh recipe */
    char *text = NULL;
    plan_spec(&g, "default", &r, &p);
    assert_int_equal(i8_fp8_plan_describe(&g, &r, &p, 0, &text, &err), INFER8_OK);
    assert_non_null(strstr(text, "239 of 244 convolutions FP8, 5 not: conv2d_1a, conv2d_2a, conv2d_2b, conv2d_3b, conv2d_4a\n"));
    free(text);
    i8_fp8_plan_free(&p);
    i8_fp8_recipe_free(&r);
    i8_graph_free(&g);
}

static void test_v4_v3_recipes(void **state) {
    (void)state;
    i8_graph g;
    i8_fp8_recipe r;
    i8_fp8_plan p;
    i8_err err = {0};
    build_optimized(&i8_family_inception_v4, &g);
    plan_spec(&g, "default", &r, &p);
    assert_int_equal(p.n_convs, 149);
    assert_int_equal(p.n_fp8, 138);
    assert_int_equal(p.fp8[node_index(&g, "features.5.conv")], 0);
    assert_int_equal(p.fp8[node_index(&g, "features.4.branch1.3")], 0);
    assert_int_equal(p.fp8[node_index(&g, "features.6.branch0")], 1);
    assert_int_equal(p.fp8[node_index(&g, "features.21.branch3.1")], 1);
    assert_int_equal(p.fp8[node_index(&g, "last_linear")], 0);
    i8_fp8_plan_free(&p);
    i8_fp8_recipe_free(&r);
    /* no residual blocks: residual-fp8 is refused */
    memset(&r, 0, sizeof r);
    assert_int_equal(i8_fp8_recipe_from_spec("residual-fp8", NULL, &r, &err), INFER8_OK);
    assert_int_equal(i8_fp8_plan_make(&g, &r, &p, &err), INFER8_E_INVALID_ARGUMENT);
    assert_non_null(strstr(err.msg, "no fused residual convolution"));
    i8_graph_free(&g);

    build_optimized(&i8_family_inception_v3, &g);
    plan_spec(&g, "default", &r, &p);
    assert_int_equal(p.n_convs, 94);
    assert_int_equal(p.n_fp8, 89);
    assert_int_equal(p.fp8[node_index(&g, "Conv2d_4a_3x3")], 0);
    assert_int_equal(p.fp8[node_index(&g, "Mixed_5b.branch1x1")], 1);
    assert_int_equal(p.fp8[node_index(&g, "Mixed_7c.branch_pool")], 1);
    assert_int_equal(p.fp8[node_index(&g, "fc")], 0);
    i8_fp8_plan_free(&p);
    i8_fp8_recipe_free(&r);
    /* an include that matches nothing names the pattern */
    const char *json = "{\"format\":\"infer8-recipe\",\"version\":1,\"base\":\"default\",\"include\":[\"Mixd_*\"]}";
    assert_int_equal(i8_fp8_recipe_parse_json(json, strlen(json), "r.json", &r, &err), INFER8_OK);
    assert_int_equal(i8_fp8_plan_make(&g, &r, &p, &err), INFER8_E_INVALID_ARGUMENT);
    assert_non_null(strstr(err.msg, "include[0] \"Mixd_*\" matches no convolution"));
    i8_fp8_recipe_free(&r);
    i8_graph_free(&g);
}

static void expect_parse_error(const char *json, infer8_status code, const char *needle) {
    i8_fp8_recipe r;
    memset(&r, 0, sizeof r);
    i8_err err = {0};
    infer8_status s = i8_fp8_recipe_parse_json(json, strlen(json), "r.json", &r, &err);
    if (s != code || !strstr(err.msg, needle))
        fail_msg("%s: got %d '%s', expected %d with '%s'", json, s, err.msg, code, needle);
}

static void test_recipe_errors(void **state) {
    (void)state;
    expect_parse_error("{\"format\":", INFER8_E_FORMAT, "r.json: malformed JSON near byte");
    expect_parse_error("[]", INFER8_E_FORMAT, "expected a JSON object");
    expect_parse_error("{\"version\":1,\"base\":\"none\"}", INFER8_E_MISSING_KEY, "r.json: format: missing");
    expect_parse_error("{\"format\":\"x\",\"version\":1,\"base\":\"none\"}", INFER8_E_FORMAT, "format: expected");
    expect_parse_error("{\"format\":\"infer8-recipe\",\"base\":\"none\"}", INFER8_E_MISSING_KEY, "version: missing");
    expect_parse_error("{\"format\":\"infer8-recipe\",\"version\":2,\"base\":\"none\"}", INFER8_E_UNSUPPORTED,
                       "version: 2");
    expect_parse_error("{\"format\":\"infer8-recipe\",\"version\":1}", INFER8_E_MISSING_KEY, "base: missing");
    expect_parse_error("{\"format\":\"infer8-recipe\",\"version\":1,\"base\":\"all\"}", INFER8_E_FORMAT,
                       "base: expected \"default\" or \"none\"");
    expect_parse_error("{\"format\":\"infer8-recipe\",\"version\":1,\"base\":\"none\",\"include\":[\"a\",3]}",
                       INFER8_E_FORMAT, "include[1]: expected a non-empty string");
    expect_parse_error("{\"format\":\"infer8-recipe\",\"version\":1,\"base\":\"none\",\"exclude\":\"a\"}",
                       INFER8_E_FORMAT, "exclude: expected an array");
    expect_parse_error("{\"format\":\"infer8-recipe\",\"version\":1,\"base\":\"none\",\"residual_fp8\":[5,2]}",
                       INFER8_E_FORMAT, "residual_fp8: expected [first, last]");
    expect_parse_error("{\"format\":\"infer8-recipe\",\"version\":1,\"base\":\"none\",\"residual\":[1,2]}",
                       INFER8_E_FORMAT, "unknown key \"residual\"");
    /* patterns are printable UTF-8 (they are echoed in messages); an unknown key is shown escaped */
    expect_parse_error("{\"format\":\"infer8-recipe\",\"version\":1,\"base\":\"none\",\"include\":[\"a\\u001b[2J\"]}",
                       INFER8_E_FORMAT, "include[0]: expected a non-empty string (under 256 bytes of UTF-8, no control");
    expect_parse_error("{\"format\":\"infer8-recipe\",\"version\":1,\"base\":\"none\",\"x\\u0007\":1}", INFER8_E_FORMAT,
                       "unknown key \"x\\x07\"");
    /* numbers beyond int: refused as such (the range is checked before the conversion, which
     * fuzz_recipe found undefined under UBSan) */
    expect_parse_error("{\"format\":\"infer8-recipe\",\"version\":666666666666666661,\"base\":\"none\"}",
                       INFER8_E_FORMAT, "version: expected an integer");
    expect_parse_error("{\"format\":\"infer8-recipe\",\"version\":-1e300,\"base\":\"none\"}", INFER8_E_FORMAT,
                       "version: expected an integer");
    expect_parse_error("{\"format\":\"infer8-recipe\",\"version\":1.5,\"base\":\"none\"}", INFER8_E_FORMAT,
                       "version: expected an integer");
    expect_parse_error("{\"format\":\"infer8-recipe\",\"version\":1,\"base\":\"none\",\"residual_fp8\":[0,3e9]}",
                       INFER8_E_FORMAT, "residual_fp8: expected [first, last]");
    expect_parse_error("{\"format\":\"infer8-recipe\",\"version\":1,\"base\":\"none\",\"residual_fp8\":[-4294967296,2]}",
                       INFER8_E_FORMAT, "residual_fp8: expected [first, last]");
    expect_parse_error("{\"format\":\"infer8-recipe\",\"version\":1,\"base\":\"none\",\"residual_fp8\":[1,2,3]}",
                       INFER8_E_FORMAT, "residual_fp8: expected [first, last]");
    i8_fp8_recipe r;
    i8_err err = {0};
    memset(&r, 0, sizeof r);
    assert_int_equal(i8_fp8_recipe_from_spec("fast", NULL, &r, &err), INFER8_E_INVALID_ARGUMENT);
    assert_non_null(strstr(err.msg, "unknown recipe 'fast'"));
    assert_int_equal(i8_fp8_recipe_from_spec("residual-fp8:9-3", NULL, &r, &err), INFER8_E_INVALID_ARGUMENT);
    assert_int_equal(i8_fp8_recipe_from_spec("/nonexistent/r.json", NULL, &r, &err), INFER8_E_IO);
    assert_int_equal(i8_fp8_recipe_from_spec("residual-fp8:10-39", NULL, &r, &err), INFER8_OK);
    assert_int_equal(r.residual_first, 10);
    assert_int_equal(r.residual_last, 39);
    i8_fp8_recipe_free(&r);
}

/* ---- tiny graphs (arch inception_v3: the stem ends at the first node named Mixed_5b*) ---- */

static int add_conv(i8_graph *g, const char *name, int input, int out_c, const float *w, int residual) {
    i8_err err = {0};
    const i8_node *in = &g->nodes[input];
    i8_node n = i8_node_blank(I8_OP_CONV, name);
    n.n_inputs = 1;
    n.inputs[0] = input;
    n.c = out_c, n.h = in->h, n.w = in->w;
    n.kh = n.kw = n.sh = n.sw = 1;
    n.ph = n.pw = 0;
    if (residual >= 0) {
        n.residual = residual;
        n.inputs[1] = residual;
        n.n_inputs = 2;
        n.residual_scale = 1.0f;
        n.block = 0;
    }
    size_t count = (size_t)out_c * in->c;
    float *data = malloc(count * sizeof *data);
    memcpy(data, w, count * sizeof *data);
    const int64_t shape[4] = {out_c, in->c, 1, 1};
    int idx;
    assert_int_equal(i8_graph_add_weight(g, name, 4, shape, data, &n.weight, &err), INFER8_OK);
    assert_int_equal(i8_graph_add_node(g, &n, &idx, &err), INFER8_OK);
    g->output = idx;
    g->num_classes = out_c;
    return idx;
}

static void add_scale(i8_scales *s, const char *name, float scale) {
    i8_err err = {0};
    assert_int_equal(i8_scales_add(s, name, scale * 448.0f, scale, &err), INFER8_OK);
}

static void test_quantize_graph(void **state) {
    (void)state;
    i8_graph g;
    i8_err err = {0};
    assert_int_equal(i8_graph_init(&g, "inception_v3", 3, 1, 1, &err), INFER8_OK);
    /* channel 0: amax 1.0, channel 1: amax 7.3 (negative), channel 2 all zero */
    const float w[9] = {0.3f, -1.0f, 0.017f, 2.9f, -7.3f, 0.001f, 0, 0, 0};
    const float w_copy[9] = {0.3f, -1.0f, 0.017f, 2.9f, -7.3f, 0.001f, 0, 0, 0};
    int stem = add_conv(&g, "Conv2d_1a_3x3", 0, 3, w, -1);
    int conv = add_conv(&g, "Mixed_5b.conv", stem, 3, w, -1);
    assert_int_equal(i8_graph_validate(&g, &err), INFER8_OK);
    i8_fp8_recipe r;
    i8_fp8_recipe_default(&r);
    i8_scales sc;
    memset(&sc, 0, sizeof sc);
    /* missing scale for the tensor Conv2d_1a_3x3 -> MISSING_KEY naming it, graph untouched */
    add_scale(&sc, "input", 0.5f);
    assert_int_equal(i8_quantize_graph_fp8(&g, &r, &sc, &err), INFER8_E_MISSING_KEY);
    assert_non_null(strstr(err.msg, "\"Conv2d_1a_3x3\""));
    assert_int_equal(g.nodes[conv].precision, I8_PREC_FP32);
    assert_memory_equal(g.weights[g.nodes[conv].weight].data, w_copy, sizeof w_copy);
    add_scale(&sc, "Conv2d_1a_3x3", 0.25f);
    const int n_weights = g.n_weights;
    assert_int_equal(i8_quantize_graph_fp8(&g, &r, &sc, &err), INFER8_OK);
    assert_int_equal(g.n_weights, n_weights + 1);
    const i8_node *nd = &g.nodes[conv];
    assert_int_equal(nd->precision, I8_PREC_FP8);
    assert_int_equal(g.nodes[stem].precision, I8_PREC_FP32);
    assert_true(g.nodes[stem].out_scale == 0.25f);
    assert_true(g.nodes[0].out_scale == 0.0f); /* input is read only by the stem conv */
    assert_true(nd->weight_scales >= 0);
    const i8_weight *ws = &g.weights[nd->weight_scales];
    assert_int_equal(ws->ndim, 1);
    assert_int_equal(ws->shape[0], 3);
    assert_string_equal(ws->name, "Mixed_5b.conv.weight_scale");
    const float amax[3] = {1.0f, 7.3f, 0.0f};
    const float *deq = g.weights[nd->weight].data;
    for (int o = 0; o < 3; o++) {
        float want = o < 2 ? amax[o] / 448.0f : 1.0f;
        assert_true(ws->data[o] == want);
        for (int i = 0; i < 3; i++) {
            float v = w_copy[o * 3 + i];
            uint8_t q = i8_fp8_from_f32(v * (1.0f / want));
            assert_true(deq[o * 3 + i] == i8_fp8_to_f32(q) * want);
        }
    }
    /* hand-checked values: 7.3 -> code 448 -> exactly 7.3/448*448 rounding; 0.3 at scale 1/448
     * is 134.4 -> 128 (e4m3 step 16 in [128, 256)) */
    assert_true(deq[0] == 128.0f * (1.0f / 448.0f));
    assert_true(deq[4] == -448.0f * (7.3f / 448.0f));
    /* stem weights: fp16 in an FP8 graph, so rounded to binary16 values */
    for (size_t i = 0; i < sizeof w_copy / sizeof w_copy[0]; i++)
        assert_true(g.weights[g.nodes[stem].weight].data[i] == i8_f16_to_f32(i8_f32_to_f16(w_copy[i])));
    /* a second quantization is refused */
    assert_int_equal(i8_quantize_graph_fp8(&g, &r, &sc, &err), INFER8_E_INVALID_ARGUMENT);
    i8_scales_free(&sc);
    i8_graph_free(&g);
}

/* Runs the graph on the reference executor for n images of g's input shape. */
static void run_ref(i8_graph *g, int n, const float *in, float *out) {
    void *ctx = NULL;
    i8_err err = {0};
    i8_backend_options bo = {0};
    bo.max_batch = n;
    if (i8_backend_cpu_reference.prepare(&ctx, g, &bo, &err)) fail_msg("prepare: %s", err.msg);
    if (i8_backend_cpu_reference.run(ctx, n, in, out, &err)) fail_msg("run: %s", err.msg);
    i8_backend_cpu_reference.destroy(ctx);
}

static void test_emulation(void **state) {
    (void)state;
    i8_graph g;
    i8_err err = {0};
    /* input [2] -> FP8 1x1 conv [1] with weights {1.0, 0.3}; input scale 1.0 */
    assert_int_equal(i8_graph_init(&g, "inception_v3", 2, 1, 1, &err), INFER8_OK);
    const float w[2] = {1.0f, 0.3f};
    add_conv(&g, "Mixed_5b.conv", 0, 1, w, -1);
    i8_fp8_recipe r;
    i8_fp8_recipe_default(&r);
    i8_scales sc;
    memset(&sc, 0, sizeof sc);
    add_scale(&sc, "input", 1.0f);
    assert_int_equal(i8_quantize_graph_fp8(&g, &r, &sc, &err), INFER8_OK);
    const float s = 1.0f / 448.0f, w0 = 448.0f * s, w1 = 128.0f * s; /* dequantized weights */
    /* image 0: 1.0625 is a tie between 1.0 and 1.125 -> 1.0 (even); 3.0 exact.
     * image 1: 500 saturates to 448; -2^-10 underflows to -0. */
    const float in[4] = {1.0625f, 3.0f, 500.0f, -0.0009765625f};
    float out[2];
    run_ref(&g, 2, in, out);
    assert_true(out[0] == 1.0f * w0 + 3.0f * w1);
    assert_true(out[1] == 448.0f * w0 + -0.0f * w1);
    /* the same graph with precision fp32 reads the exact input: results differ by the rounding */
    g.nodes[1].precision = I8_PREC_FP32;
    run_ref(&g, 2, in, out);
    assert_true(out[0] == 1.0625f * w0 + 3.0f * w1);
    assert_true(out[1] == 500.0f * w0 + -0.0009765625f * w1);
    i8_scales_free(&sc);
    i8_graph_free(&g);

    /* residual: out = x + 1.0 * conv(x), x = input (scale 0.5), conv weight 1.0 (exact) */
    assert_int_equal(i8_graph_init(&g, "inception_v3", 1, 1, 1, &err), INFER8_OK);
    const float one = 1.0f;
    add_conv(&g, "Mixed_5b.res", 0, 1, &one, 0);
    const char *json = "{\"format\":\"infer8-recipe\",\"version\":1,\"base\":\"default\",\"residual_fp8\":[0,0]}";
    memset(&r, 0, sizeof r);
    assert_int_equal(i8_fp8_recipe_parse_json(json, strlen(json), "r.json", &r, &err), INFER8_OK);
    memset(&sc, 0, sizeof sc);
    add_scale(&sc, "input", 0.5f);
    assert_int_equal(i8_quantize_graph_fp8(&g, &r, &sc, &err), INFER8_OK);
    assert_int_equal(g.nodes[1].residual_fp8, 1);
    /* x = 2.2: x/0.5 = 4.4 -> e4m3 4.5 (step 0.5 in [4, 8)) -> 2.25 both for the conv input and x */
    const float x = 2.2f;
    float y;
    run_ref(&g, 1, &x, &y);
    const float wq = 448.0f * (1.0f / 448.0f);
    assert_true(y == 2.25f + 1.0f * (2.25f * wq));
    g.nodes[1].residual_fp8 = 0; /* residual read exactly, conv input still FP8 */
    run_ref(&g, 1, &x, &y);
    /* x itself is stored as binary16 (2.2 -> 2.19921875) as on the GPU */
    assert_true(y == i8_f16_to_f32(i8_f32_to_f16(2.2f)) + 1.0f * (2.25f * wq));
    /* an FP8 conv whose input has no scale is refused at prepare */
    g.nodes[0].out_scale = 0.0f;
    void *ctx = NULL;
    i8_backend_options bo = {0};
    bo.max_batch = 1;
    assert_int_equal(i8_backend_cpu_reference.prepare(&ctx, &g, &bo, &err), INFER8_E_INVALID_ARGUMENT);
    assert_non_null(strstr(err.msg, "out_scale"));
    i8_fp8_recipe_free(&r);
    i8_scales_free(&sc);
    i8_graph_free(&g);
}

/* The e4m3 copy of an FP8 conv's output quantizes the conv's float result, not its binary16
 * rounding (docs/fp8.md): the GPU epilogue writes both from the same float. Graph: input ->
 * FP8 conv A (weight 1, bias b) -> FP8 conv B (weight 1) and -> 1x1 max pool (an fp16 reader);
 * output concat(B, pool). b puts A's value 2^-14 above the e4m3 tie 1.0625, which binary16
 * rounds onto the tie itself: e4m3(v) = 1.125, e4m3(fp16(v)) = 1.0. */
static void test_emulation_float_twin(void **state) {
    (void)state;
    i8_graph g;
    i8_err err = {0};
    assert_int_equal(i8_graph_init(&g, "inception_v3", 1, 1, 1, &err), INFER8_OK);
    const float one = 1.0f;
    int a = add_conv(&g, "Mixed_5b.a", 0, 1, &one, -1);
    float *bias = malloc(sizeof *bias);
    bias[0] = 0.0625f + 0x1p-14f;
    const int64_t bshape[1] = {1};
    assert_int_equal(i8_graph_add_weight(&g, "Mixed_5b.a.bias", 1, bshape, bias, &g.nodes[a].bias, &err), INFER8_OK);
    int b = add_conv(&g, "Mixed_5b.b", a, 1, &one, -1);
    i8_node pool = i8_node_blank(I8_OP_MAXPOOL, "Mixed_5b.pool");
    pool.n_inputs = 1, pool.inputs[0] = a, pool.c = 1, pool.h = 1, pool.w = 1;
    pool.kh = pool.kw = pool.sh = pool.sw = 1;
    int pi, ci;
    assert_int_equal(i8_graph_add_node(&g, &pool, &pi, &err), INFER8_OK);
    i8_node cat = i8_node_blank(I8_OP_CONCAT, "Mixed_5b");
    cat.n_inputs = 2, cat.inputs[0] = b, cat.inputs[1] = pi, cat.c = 2, cat.h = 1, cat.w = 1;
    assert_int_equal(i8_graph_add_node(&g, &cat, &ci, &err), INFER8_OK);
    g.output = ci;
    g.num_classes = 2;
    i8_fp8_recipe r;
    i8_fp8_recipe_default(&r);
    i8_scales sc;
    memset(&sc, 0, sizeof sc);
    add_scale(&sc, "input", 1.0f);
    add_scale(&sc, "Mixed_5b.a", 1.0f);
    assert_int_equal(i8_quantize_graph_fp8(&g, &r, &sc, &err), INFER8_OK);
    assert_int_equal(g.nodes[a].precision, I8_PREC_FP8);
    assert_int_equal(g.nodes[b].precision, I8_PREC_FP8);
    const float wq = g.weights[g.nodes[b].weight].data[0]; /* dequantized weight 1 */
    const float v = 1.0f * g.weights[g.nodes[a].weight].data[0] + g.weights[g.nodes[a].bias].data[0];
    const float v16 = i8_f16_to_f32(i8_f32_to_f16(v));
    /* the case discriminates: the two contracts give different codes */
    assert_true(i8_fp8_fake_quant(v, 1.0f, 1.0f) == 1.125f);
    assert_true(i8_fp8_fake_quant(v16, 1.0f, 1.0f) == 1.0f);
    const float x = 1.0f;
    float out[2];
    run_ref(&g, 1, &x, out);
    assert_true(out[0] == 1.125f * wq); /* B read e4m3(v) */
    assert_true(out[1] == v16);         /* the pool read fp16(v) */
    i8_scales_free(&sc);
    i8_graph_free(&g);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_irv2_recipes),   cmocka_unit_test(test_v4_v3_recipes),
        cmocka_unit_test(test_recipe_errors),  cmocka_unit_test(test_quantize_graph),
        cmocka_unit_test(test_emulation),      cmocka_unit_test(test_emulation_float_twin),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
