/* Family builders against timm's published facts: each family is built at 299x299 with
 * 1000 classes from a weight source that returns deterministic pseudo-random tensors for any
 * key and records every key asked for. Counts (convolutions, parameters, MACs, state_dict
 * keys) are timm's numbers from shared/reference/architectures.md; key names are checked
 * against timm's module paths. Then folding + fusion must keep the network's work intact. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "families/family.h"

/* ---- recording weight source ---- */

typedef struct recorder {
    char **keys;
    int n, cap;
    const char *fail_key;      /* this key is reported missing */
    const char *bad_shape_key; /* this key is reported with its first dimension + 1 */
} recorder;

static uint64_t fnv(const char *s) {
    uint64_t h = 1469598103934665603ull;
    for (; *s; s++) h = (h ^ (uint8_t)*s) * 1099511628211ull;
    return h;
}

static int ends_with(const char *s, const char *suffix) {
    size_t a = strlen(s), b = strlen(suffix);
    return a >= b && strcmp(s + a - b, suffix) == 0;
}

static infer8_status rec_get(void *ctx, const char *key, int ndim, const int64_t *shape, float **data, i8_err *err) {
    recorder *r = ctx;
    if (r->n == r->cap) {
        r->cap = r->cap ? r->cap * 2 : 1024;
        r->keys = realloc(r->keys, (size_t)r->cap * sizeof *r->keys);
        assert_non_null(r->keys);
    }
    r->keys[r->n++] = strdup(key);
    if (r->fail_key && strcmp(key, r->fail_key) == 0)
        return i8_fail(err, INFER8_E_MISSING_KEY, "test.safetensors: tensor '%s' not found", key);
    if (r->bad_shape_key && strcmp(key, r->bad_shape_key) == 0)
        return i8_fail(err, INFER8_E_SHAPE, "test.safetensors: %s: expected shape [%lld, ...], found [%lld, ...]", key,
                       (long long)shape[0], (long long)shape[0] + 1);
    size_t count = 1;
    for (int i = 0; i < ndim; i++) count *= (size_t)shape[i];
    float *p = malloc(count * sizeof *p);
    assert_non_null(p);
    i8_rng rng;
    i8_rng_seed(&rng, fnv(key));
    /* variances positive (as in any real checkpoint), everything else in [-0.5, 0.5) */
    int var = ends_with(key, "running_var");
    for (size_t i = 0; i < count; i++) {
        double u = i8_rng_uniform(&rng);
        p[i] = (float)(var ? 0.5 + u : u - 0.5);
    }
    *data = p;
    return INFER8_OK;
}

static void rec_free(recorder *r) {
    for (int i = 0; i < r->n; i++) free(r->keys[i]);
    free(r->keys);
    memset(r, 0, sizeof *r);
}

static int has_key(const recorder *r, const char *key) {
    for (int i = 0; i < r->n; i++)
        if (strcmp(r->keys[i], key) == 0) return 1;
    return 0;
}

static int cmp_str(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

static void assert_keys_unique(recorder *r) {
    char **copy = malloc((size_t)r->n * sizeof *copy);
    memcpy(copy, r->keys, (size_t)r->n * sizeof *copy);
    qsort(copy, (size_t)r->n, sizeof *copy, cmp_str);
    for (int i = 1; i < r->n; i++) {
        if (strcmp(copy[i - 1], copy[i]) == 0) fail_msg("key requested twice: %s", copy[i]);
    }
    free(copy);
    for (int i = 0; i < r->n; i++)
        if (strstr(r->keys[i], "num_batches_tracked")) fail_msg("num_batches_tracked requested: %s", r->keys[i]);
}

static void assert_node_names_unique(const i8_graph *g) {
    const char **names = malloc((size_t)g->n_nodes * sizeof *names);
    for (int i = 0; i < g->n_nodes; i++) names[i] = g->nodes[i].name;
    qsort(names, (size_t)g->n_nodes, sizeof *names, cmp_str);
    for (int i = 1; i < g->n_nodes; i++)
        if (strcmp(names[i - 1], names[i]) == 0) fail_msg("node name used twice: %s", names[i]);
    free(names);
}

static const i8_node *find_node(const i8_graph *g, const char *name) {
    for (int i = 0; i < g->n_nodes; i++)
        if (strcmp(g->nodes[i].name, name) == 0) return &g->nodes[i];
    return NULL;
}

typedef struct expect {
    const char *arch;
    int convs, conv_with_bias, residual_blocks, keys;
    uint64_t params;
    int gmacs_x100;
    int feat_c, feat_hw;
    int avgpools, avgpools_incl;
    const char *must_have[8];
} expect;

/* Sum of MACs recomputed here from the node list (independent of i8_node_macs). */
static uint64_t macs_by_hand(const i8_graph *g) {
    uint64_t m = 0;
    for (int i = 0; i < g->n_nodes; i++) {
        const i8_node *n = &g->nodes[i];
        const i8_node *in = &g->nodes[n->inputs[0]];
        if (n->op == I8_OP_CONV) m += (uint64_t)n->c * n->h * n->w * in->c * n->kh * n->kw;
        if (n->op == I8_OP_LINEAR) m += (uint64_t)n->c * in->c;
    }
    return m;
}

static void check_family(const expect *e) {
    const i8_family *f = i8_family_find(e->arch);
    assert_non_null(f);
    recorder r = {0};
    i8_weight_source src = {&r, rec_get};
    i8_graph g = {0};
    i8_err err = {0};
    infer8_status st = f->build(&g, &src, 1000, 299, 299, &err);
    if (st != INFER8_OK) fail_msg("%s: build failed: %s", e->arch, err.msg);
    assert_int_equal(i8_graph_validate(&g, &err), INFER8_OK);

    i8_graph_stats s;
    i8_graph_compute_stats(&g, &s);
    printf("%s: %d nodes, %d convs, %llu params, %llu MACs, %d keys\n", e->arch, g.n_nodes, s.convolutions,
           (unsigned long long)g.checkpoint_parameters, (unsigned long long)s.macs, r.n);
    assert_int_equal(s.convolutions, e->convs);
    assert_int_equal(s.count_per_op[I8_OP_BATCHNORM], e->convs - e->conv_with_bias);
    assert_int_equal(s.count_per_op[I8_OP_RELU], e->convs - e->conv_with_bias);
    assert_int_equal(s.count_per_op[I8_OP_RESIDUAL], e->residual_blocks);
    assert_int_equal(s.count_per_op[I8_OP_LINEAR], 1);
    assert_int_equal(s.count_per_op[I8_OP_INPUT], 1);
    assert_true(g.checkpoint_parameters == e->params);
    /* graph weights still hold running mean/var, which are not parameters */
    assert_true(s.parameters == e->params);
    assert_int_equal((int)llround((double)s.macs / 1e7), e->gmacs_x100);
    assert_true(s.macs == macs_by_hand(&g));
    assert_int_equal(r.n, e->keys);
    assert_int_equal(g.n_weights, e->keys);
    assert_keys_unique(&r);
    assert_node_names_unique(&g);
    for (int i = 0; e->must_have[i]; i++)
        if (!has_key(&r, e->must_have[i])) fail_msg("%s: key %s was not requested", e->arch, e->must_have[i]);
    /* the first tensor asked for is pretrained_cfg's first_conv */
    char first[128];
    snprintf(first, sizeof first, "%s.weight", f->first_conv);
    assert_string_equal(r.keys[0], first);
    char cls[128];
    snprintf(cls, sizeof cls, "%s.weight", f->classifier);
    assert_string_equal(r.keys[r.n - 2], cls);

    /* final feature map = input of the global pool */
    const i8_node *gp = find_node(&g, "global_pool");
    assert_non_null(gp);
    const i8_node *feat = &g.nodes[gp->inputs[0]];
    assert_int_equal(feat->c, e->feat_c);
    assert_int_equal(feat->h, e->feat_hw);
    assert_int_equal(feat->w, e->feat_hw);
    assert_int_equal(f->num_features, e->feat_c);
    const i8_node *out = &g.nodes[g.output];
    assert_int_equal(out->op, I8_OP_LINEAR);
    assert_int_equal(out->c, 1000);
    assert_string_equal(out->name, f->classifier);

    /* avg pools: count_include_pad True only in v3 */
    int avg = 0, incl = 0;
    for (int i = 0; i < g.n_nodes; i++)
        if (g.nodes[i].op == I8_OP_AVGPOOL) {
            avg++;
            incl += g.nodes[i].count_include_pad;
            assert_int_equal(g.nodes[i].kh, 3);
            assert_int_equal(g.nodes[i].sh, 1);
            assert_int_equal(g.nodes[i].ph, 1);
        }
    assert_int_equal(avg, e->avgpools);
    assert_int_equal(incl, e->avgpools_incl);

    /* residual blocks: distinct block indices 0..n-1, each with exactly one RESIDUAL node */
    int seen[64] = {0};
    for (int i = 0; i < g.n_nodes; i++) {
        int blk = g.nodes[i].block;
        assert_true(blk >= -1 && blk < 64);
        if (blk >= 0) seen[blk] |= 1;
        if (g.nodes[i].op == I8_OP_RESIDUAL) {
            assert_true(blk >= 0);
            seen[blk] |= 2;
        }
    }
    int distinct = 0;
    for (int i = 0; i < 64; i++) {
        if (seen[i]) {
            assert_int_equal(seen[i], 3);
            distinct++;
        }
    }
    assert_int_equal(distinct, e->residual_blocks);
    for (int i = 0; i < e->residual_blocks; i++) assert_int_equal(seen[i], 3);

    /* optimize: fold + fuse */
    uint64_t macs_before = s.macs;
    st = i8_pass_fold_batchnorm(&g, &err);
    if (st != INFER8_OK) fail_msg("%s: fold: %s", e->arch, err.msg);
    st = i8_pass_fuse(&g, &err);
    if (st != INFER8_OK) fail_msg("%s: fuse: %s", e->arch, err.msg);
    i8_graph_compute_stats(&g, &s);
    assert_int_equal(s.count_per_op[I8_OP_BATCHNORM], 0);
    assert_int_equal(s.count_per_op[I8_OP_RELU], 0);
    assert_int_equal(s.count_per_op[I8_OP_RESIDUAL], 0);
    assert_int_equal(s.convolutions, e->convs);
    assert_true(s.macs == macs_before);
    assert_true(g.checkpoint_parameters == e->params);
    int with_res = 0, relu = 0;
    for (int i = 0; i < g.n_nodes; i++) {
        const i8_node *n = &g.nodes[i];
        if (n->op != I8_OP_CONV) continue;
        assert_true(n->bias >= 0);
        with_res += n->residual >= 0;
        relu += n->act == I8_ACT_RELU;
    }
    assert_int_equal(with_res, e->residual_blocks);
    /* every conv is followed by relu except IRv2's last block8 projection */
    assert_int_equal(relu, e->convs - (e->residual_blocks ? 1 : 0));
    /* folded graph: conv weights + one bias per conv + linear */
    assert_int_equal(g.n_weights, 2 * e->convs + 2);
    assert_true(find_node(&g, "global_pool") != NULL);
    assert_int_equal(g.nodes[g.output].op, I8_OP_LINEAR);

    /* sink avgpool: every pool branch's pool moves below its 1x1 conv (all of them are pool ->
     * 1x1), taking the conv's bias and relu; convs and MACs stay as they were */
    int n_sunk = -1;
    st = i8_pass_sink_avgpool(&g, &n_sunk, &err);
    if (st != INFER8_OK) fail_msg("%s: sink avgpool: %s", e->arch, err.msg);
    assert_int_equal(n_sunk, e->avgpools);
    i8_graph_compute_stats(&g, &s);
    assert_int_equal(s.convolutions, e->convs);
    assert_int_equal(s.count_per_op[I8_OP_AVGPOOL], e->avgpools);
    assert_true(s.macs == macs_before);
    int pools_checked = 0;
    for (int i = 0; i < g.n_nodes; i++) {
        const i8_node *n = &g.nodes[i];
        if (n->op != I8_OP_AVGPOOL) continue;
        const i8_node *conv = &g.nodes[n->inputs[0]];
        assert_int_equal(conv->op, I8_OP_CONV);
        assert_true(conv->kh == 1 && conv->kw == 1 && conv->bias < 0 && conv->act == I8_ACT_NONE);
        assert_true(n->bias >= 0 && n->act == I8_ACT_RELU && n->c == conv->c);
        pools_checked++;
    }
    assert_int_equal(pools_checked, e->avgpools);
    assert_int_equal(g.n_weights, 2 * e->convs + 2); /* the biases moved, none added */

    char *json = NULL;
    assert_int_equal(i8_graph_describe_text(&g, &json, &err), INFER8_OK);
    char gm[32];
    snprintf(gm, sizeof gm, "(%d.%02d GMACs)", e->gmacs_x100 / 100, e->gmacs_x100 % 100);
    if (!strstr(json, gm)) fail_msg("%s: describe text lacks %s", e->arch, gm);
    char pm[64];
    snprintf(pm, sizeof pm, "parameters: %d,%03d,%03d (checkpoint)", (int)(e->params / 1000000),
             (int)(e->params / 1000 % 1000), (int)(e->params % 1000));
    if (!strstr(json, pm)) fail_msg("%s: describe text lacks %s", e->arch, pm);
    free(json);

    i8_graph_free(&g);
    rec_free(&r);
}

static void test_inception_resnet_v2(void **state) {
    (void)state;
    expect e = {.arch = "inception_resnet_v2", .convs = 244, .conv_with_bias = 40, .residual_blocks = 40,
                .keys = 1102, .params = 55843464ull, .gmacs_x100 = 1316, .feat_c = 1536, .feat_hw = 8,
                .avgpools = 1, .avgpools_incl = 0,
                .must_have = {"mixed_5b.branch3.1.conv.weight", "repeat.9.conv2d.bias", "repeat_1.19.branch1.2.bn.running_var",
                              "repeat_2.8.branch1.1.conv.weight", "block8.conv2d.weight", "conv2d_7b.bn.bias",
                              "classif.bias", NULL}};
    check_family(&e);
}

static void test_inception_v4(void **state) {
    (void)state;
    expect e = {.arch = "inception_v4", .convs = 149, .keys = 149 * 5 + 2, .params = 42679816ull, .gmacs_x100 = 1225,
                .feat_c = 1536, .feat_hw = 8, .avgpools = 14, .avgpools_incl = 0,
                .must_have = {"features.3.conv.conv.weight", "features.5.conv.bn.weight", "features.4.branch1.3.conv.weight",
                              "features.18.branch1.3.bn.running_mean", "features.21.branch2_3b.conv.weight",
                              "features.19.branch1_1a.bn.bias", "last_linear.weight", NULL}};
    check_family(&e);
}

static void test_inception_v3(void **state) {
    (void)state;
    expect e = {.arch = "inception_v3", .convs = 94, .keys = 94 * 5 + 2, .params = 23834568ull, .gmacs_x100 = 571,
                .feat_c = 2048, .feat_hw = 8, .avgpools = 9, .avgpools_incl = 9,
                .must_have = {"Conv2d_4a_3x3.conv.weight", "Mixed_5b.branch_pool.conv.weight", "Mixed_6e.branch7x7dbl_5.bn.weight",
                              "Mixed_7a.branch7x7x3_4.conv.weight", "Mixed_7c.branch3x3dbl_3b.bn.running_var", "fc.bias",
                              NULL}};
    check_family(&e);
}

/* Shapes and scales at the block level, read from timm's module definitions. */
static void test_irv2_details(void **state) {
    (void)state;
    recorder r = {0};
    i8_weight_source src = {&r, rec_get};
    i8_graph g = {0};
    i8_err err = {0};
    assert_int_equal(i8_family_inception_resnet_v2.build(&g, &src, 1000, 299, 299, &err), INFER8_OK);
    struct { const char *name; int c, h; } shapes[] = {
        {"conv2d_1a", 32, 149}, {"conv2d_2a", 32, 147}, {"conv2d_2b", 64, 147}, {"maxpool_3a", 64, 73},
        {"conv2d_3b", 80, 73}, {"conv2d_4a", 192, 71}, {"maxpool_5a", 192, 35}, {"mixed_5b", 320, 35},
        {"repeat.9", 320, 35}, {"mixed_6a", 1088, 17}, {"repeat_1.19", 1088, 17}, {"mixed_7a", 2080, 8},
        {"block8", 2080, 8}, {"conv2d_7b.act", 1536, 8},
    };
    for (size_t i = 0; i < sizeof shapes / sizeof shapes[0]; i++) {
        const i8_node *n = find_node(&g, shapes[i].name);
        if (!n) fail_msg("node %s missing", shapes[i].name);
        assert_int_equal(n->c, shapes[i].c);
        assert_int_equal(n->h, shapes[i].h);
        assert_int_equal(n->w, shapes[i].h);
    }
    const i8_node *b17 = find_node(&g, "repeat_1.4.branch1.1");
    assert_int_equal(b17->kh, 1);
    assert_int_equal(b17->kw, 7);
    assert_int_equal(b17->ph, 0);
    assert_int_equal(b17->pw, 3);
    const i8_node *bn = find_node(&g, "repeat_1.4.branch1.1.bn");
    assert_float_equal(bn->bn_eps, 0.001f, 0.0f);
    int n035 = 0, n010 = 0, n020 = 0, nlast = 0;
    for (int i = 0; i < g.n_nodes; i++) {
        const i8_node *n = &g.nodes[i];
        if (n->op != I8_OP_RESIDUAL) continue;
        const i8_node *proj = &g.nodes[n->inputs[1]];
        assert_int_equal(proj->op, I8_OP_CONV);
        assert_true(proj->bias >= 0);
        assert_int_equal(n->inputs[0] < proj->inputs[0], 1);
        if (n->residual_scale == 0.17f && n->act == I8_ACT_RELU) n035++;
        if (n->residual_scale == 0.10f && n->act == I8_ACT_RELU) n010++;
        if (n->residual_scale == 0.20f && n->act == I8_ACT_RELU) n020++;
        if (n->residual_scale == 1.0f && n->act == I8_ACT_NONE) nlast++;
    }
    assert_int_equal(n035, 10);
    assert_int_equal(n010, 20);
    assert_int_equal(n020, 9);
    assert_int_equal(nlast, 1);
    assert_int_equal(find_node(&g, "block8")->block, 39);
    assert_int_equal(find_node(&g, "repeat.0.branch0")->block, 0);
    assert_int_equal(find_node(&g, "repeat_1.0.conv2d")->block, 10);
    assert_int_equal(find_node(&g, "repeat_2.0.cat")->block, 30);
    assert_int_equal(find_node(&g, "mixed_6a")->block, -1);
    /* mixed_5b concat order: branch0 (96), branch1 (64), branch2 (96), branch3 (64) */
    const i8_node *m5 = find_node(&g, "mixed_5b");
    assert_int_equal(m5->n_inputs, 4);
    assert_string_equal(g.nodes[m5->inputs[0]].name, "mixed_5b.branch0.act");
    assert_string_equal(g.nodes[m5->inputs[3]].name, "mixed_5b.branch3.1.act");
    assert_int_equal(g.nodes[m5->inputs[1]].c, 64);
    i8_graph_free(&g);
    rec_free(&r);
}

/* Mixed3a is (maxpool, conv), Mixed5a (conv, maxpool); InceptionC concat order. */
static void test_v4_concat_order(void **state) {
    (void)state;
    recorder r = {0};
    i8_weight_source src = {&r, rec_get};
    i8_graph g = {0};
    i8_err err = {0};
    assert_int_equal(i8_family_inception_v4.build(&g, &src, 1000, 299, 299, &err), INFER8_OK);
    const i8_node *m3 = find_node(&g, "features.3"), *m5 = find_node(&g, "features.5");
    assert_int_equal(g.nodes[m3->inputs[0]].op, I8_OP_MAXPOOL);
    assert_int_equal(m3->c, 160);
    assert_int_equal(m3->h, 73);
    assert_int_equal(g.nodes[m5->inputs[1]].op, I8_OP_MAXPOOL);
    assert_string_equal(g.nodes[m5->inputs[0]].name, "features.5.conv.act");
    assert_int_equal(m5->c, 384);
    assert_int_equal(m5->h, 35);
    assert_int_equal(find_node(&g, "features.10")->c, 1024);
    assert_int_equal(find_node(&g, "features.10")->h, 17);
    assert_int_equal(find_node(&g, "features.18")->c, 1536);
    const i8_node *c = find_node(&g, "features.20");
    const char *order[6] = {"branch0", "branch1_1a", "branch1_1b", "branch2_3a", "branch2_3b", "branch3.1"};
    assert_int_equal(c->n_inputs, 6);
    for (int i = 0; i < 6; i++) {
        char want[64];
        snprintf(want, sizeof want, "features.20.%s.act", order[i]);
        assert_string_equal(g.nodes[c->inputs[i]].name, want);
    }
    i8_graph_free(&g);
    rec_free(&r);
}

static void test_v3_shapes(void **state) {
    (void)state;
    recorder r = {0};
    i8_weight_source src = {&r, rec_get};
    i8_graph g = {0};
    i8_err err = {0};
    assert_int_equal(i8_family_inception_v3.build(&g, &src, 1000, 299, 299, &err), INFER8_OK);
    struct { const char *name; int c, h; } shapes[] = {
        {"Pool2", 192, 35}, {"Mixed_5b", 256, 35}, {"Mixed_5c", 288, 35}, {"Mixed_5d", 288, 35},
        {"Mixed_6a", 768, 17}, {"Mixed_6e", 768, 17}, {"Mixed_7a", 1280, 8}, {"Mixed_7b", 2048, 8},
    };
    for (size_t i = 0; i < sizeof shapes / sizeof shapes[0]; i++) {
        const i8_node *n = find_node(&g, shapes[i].name);
        if (!n) fail_msg("node %s missing", shapes[i].name);
        assert_int_equal(n->c, shapes[i].c);
        assert_int_equal(n->h, shapes[i].h);
    }
    const i8_node *e = find_node(&g, "Mixed_7c");
    assert_int_equal(e->n_inputs, 6);
    assert_string_equal(g.nodes[e->inputs[2]].name, "Mixed_7c.branch3x3_2b.act");
    assert_string_equal(g.nodes[e->inputs[3]].name, "Mixed_7c.branch3x3dbl_3a.act");
    assert_int_equal(find_node(&g, "Mixed_6b.branch7x7_1")->c, 128);
    assert_int_equal(find_node(&g, "Mixed_6c.branch7x7dbl_4")->c, 160);
    for (int i = 0; i < r.n; i++) assert_null(strstr(r.keys[i], "AuxLogits"));
    assert_string_equal(i8_family_inception_v3.ignored_prefixes[0], "AuxLogits.");
    assert_null(i8_family_inception_v3.ignored_prefixes[1]);
    i8_graph_free(&g);
    rec_free(&r);
}

static void test_missing_key(void **state) {
    (void)state;
    recorder r = {0};
    r.fail_key = "repeat_1.7.branch1.1.bn.running_var";
    i8_weight_source src = {&r, rec_get};
    i8_graph g = {0};
    i8_err err = {0};
    infer8_status st = i8_family_inception_resnet_v2.build(&g, &src, 1000, 299, 299, &err);
    assert_int_equal(st, INFER8_E_MISSING_KEY);
    assert_non_null(strstr(err.msg, "repeat_1.7.branch1.1.bn.running_var"));
    assert_int_equal(g.n_nodes, 0);
    assert_null(g.nodes);
    /* the build stopped at the failing key */
    assert_string_equal(r.keys[r.n - 1], r.fail_key);
    rec_free(&r);
}

static void test_wrong_shape(void **state) {
    (void)state;
    recorder r = {0};
    r.bad_shape_key = "features.7.branch2.1.conv.weight";
    i8_weight_source src = {&r, rec_get};
    i8_graph g = {0};
    i8_err err = {0};
    infer8_status st = i8_family_inception_v4.build(&g, &src, 1000, 299, 299, &err);
    assert_int_equal(st, INFER8_E_SHAPE);
    assert_non_null(strstr(err.msg, "features.7.branch2.1.conv.weight"));
    assert_non_null(strstr(err.msg, "expected shape [96"));
    assert_int_equal(g.n_nodes, 0);
    rec_free(&r);
}

/* Smallest input IRv2 supports is 75 (mixed_7a needs 3x3 at 17/8 scale); 74 must fail cleanly. */
static void test_input_sizes(void **state) {
    (void)state;
    recorder r = {0};
    i8_weight_source src = {&r, rec_get};
    i8_graph g = {0};
    i8_err err = {0};
    assert_int_equal(i8_family_inception_resnet_v2.build(&g, &src, 10, 75, 75, &err), INFER8_OK);
    assert_int_equal(find_node(&g, "conv2d_7b")->h, 1);
    assert_int_equal(g.nodes[g.output].c, 10);
    i8_graph_free(&g);
    rec_free(&r);
    infer8_status st = i8_family_inception_resnet_v2.build(&g, &src, 10, 74, 74, &err);
    assert_int_equal(st, INFER8_E_INVALID_ARGUMENT);
    assert_non_null(strstr(err.msg, "too small"));
    rec_free(&r);
    assert_int_equal(i8_family_inception_v3.build(&g, &src, 0, 299, 299, &err), INFER8_E_INVALID_ARGUMENT);
    rec_free(&r);
    /* non-square input */
    assert_int_equal(i8_family_inception_v3.build(&g, &src, 5, 299, 400, &err), INFER8_OK);
    const i8_node *m = find_node(&g, "Mixed_7c");
    assert_int_equal(m->h, 8);
    assert_int_equal(m->w, 11);
    i8_graph_free(&g);
    rec_free(&r);
}

/* checkpoint loading and synth initialize the graph before calling build: nothing leaks
 * (checked under AddressSanitizer) and the result is the same graph. */
static void test_build_after_init(void **state) {
    (void)state;
    recorder r = {0};
    i8_weight_source src = {&r, rec_get};
    i8_graph g = {0};
    i8_err err = {0};
    assert_int_equal(i8_graph_init(&g, "inception_v3", 3, 299, 299, &err), INFER8_OK);
    assert_int_equal(i8_family_inception_v3.build(&g, &src, 1000, 299, 299, &err), INFER8_OK);
    assert_int_equal(g.nodes[0].op, I8_OP_INPUT);
    assert_int_equal(g.n_nodes, 309);
    /* building twice into the same graph replaces it */
    assert_int_equal(i8_family_inception_v3.build(&g, &src, 10, 299, 299, &err), INFER8_OK);
    assert_int_equal(g.n_nodes, 309);
    assert_int_equal(g.num_classes, 10);
    assert_true(g.checkpoint_parameters == 23834568ull - 990 * 2049);
    i8_graph_free(&g);
    rec_free(&r);
}

static void test_registry(void **state) {
    (void)state;
    const i8_family *const *list = i8_family_list();
    int n = 0;
    while (list[n]) n++;
    assert_int_equal(n, 3);
    assert_ptr_equal(i8_family_find("inception_v4"), &i8_family_inception_v4);
    assert_null(i8_family_find("resnet50"));
    assert_null(i8_family_find(NULL));
    assert_float_equal(i8_family_inception_resnet_v2.default_crop_pct, 0.8975f, 0.0f);
    assert_float_equal(i8_family_inception_v3.default_crop_pct, 0.875f, 0.0f);
    assert_string_equal(i8_family_inception_v4.first_conv, "features.0.conv");
    assert_int_equal(i8_family_inception_v3.default_size, 299);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_registry),
        cmocka_unit_test(test_inception_resnet_v2),
        cmocka_unit_test(test_inception_v4),
        cmocka_unit_test(test_inception_v3),
        cmocka_unit_test(test_irv2_details),
        cmocka_unit_test(test_v4_concat_order),
        cmocka_unit_test(test_v3_shapes),
        cmocka_unit_test(test_missing_key),
        cmocka_unit_test(test_wrong_shape),
        cmocka_unit_test(test_input_sizes),
        cmocka_unit_test(test_build_after_init),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
