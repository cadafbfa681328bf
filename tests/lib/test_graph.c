#include "test_graph.h"

#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "backends/backend.h"
#include "quant/fp8.h"
#include "quant/scales.h"

void tg_init(tg *t, int c, int h, int w, uint64_t seed) {
    memset(t, 0, sizeof *t);
    assert_int_equal(i8_graph_init(&t->g, "test", c, h, w, &t->err), INFER8_OK);
    i8_rng_seed(&t->rng, seed);
}

int tg_weight(tg *t, const char *name, int ndim, int64_t a, int64_t b, int64_t c, int64_t d, double std) {
    int64_t shape[4] = {a, b, c, d};
    size_t count = 1;
    for (int k = 0; k < ndim; k++) count *= (size_t)shape[k];
    float *data = malloc(sizeof(float) * count);
    assert_non_null(data);
    for (size_t k = 0; k < count; k++) data[k] = (float)(std * i8_rng_normal(&t->rng));
    int idx;
    assert_int_equal(i8_graph_add_weight(&t->g, name, ndim, shape, data, &idx, &t->err), INFER8_OK);
    return idx;
}

int tg_add(tg *t, i8_node *nd) {
    int idx;
    infer8_status st = i8_graph_add_node(&t->g, nd, &idx, &t->err);
    if (st) fprintf(stderr, "add %s: %s\n", nd->name, t->err.msg);
    assert_int_equal(st, INFER8_OK);
    return idx;
}

static int out_size(int in, int k, int s, int p) { return (in + 2 * p - k) / s + 1; }

int tg_conv(tg *t, const char *name, int in, int oc, int kh, int kw, int sh, int sw, int ph, int pw, int bias, i8_act act,
            int x, float scale) {
    const i8_node *src = &t->g.nodes[in];
    i8_node n = i8_node_blank(I8_OP_CONV, name);
    n.n_inputs = 1;
    n.inputs[0] = in;
    n.c = oc;
    n.h = out_size(src->h, kh, sh, ph);
    n.w = out_size(src->w, kw, sw, pw);
    n.kh = kh, n.kw = kw, n.sh = sh, n.sw = sw, n.ph = ph, n.pw = pw;
    char wn[128];
    snprintf(wn, sizeof wn, "%s.weight", name);
    n.weight = tg_weight(t, wn, 4, oc, src->c, kh, kw, sqrt(2.0 / (src->c * kh * kw)));
    if (bias) {
        snprintf(wn, sizeof wn, "%s.bias", name);
        n.bias = tg_weight(t, wn, 1, oc, 1, 1, 1, 0.1);
    }
    n.act = act;
    if (x >= 0) {
        n.residual = x;
        n.residual_scale = scale;
        n.n_inputs = 2;
        n.inputs[1] = x;
    }
    return tg_add(t, &n);
}

int tg_pool(tg *t, const char *name, i8_op op, int in, int k, int s, int p, int include_pad) {
    const i8_node *src = &t->g.nodes[in];
    i8_node n = i8_node_blank(op, name);
    n.n_inputs = 1;
    n.inputs[0] = in;
    n.c = src->c;
    n.kh = n.kw = k, n.sh = n.sw = s, n.ph = n.pw = p;
    n.h = out_size(src->h, k, s, p);
    n.w = out_size(src->w, k, s, p);
    n.count_include_pad = include_pad;
    return tg_add(t, &n);
}

int tg_concat(tg *t, const char *name, int count, const int *ins) {
    i8_node n = i8_node_blank(I8_OP_CONCAT, name);
    n.n_inputs = count;
    n.c = 0;
    for (int k = 0; k < count; k++) {
        n.inputs[k] = ins[k];
        n.c += t->g.nodes[ins[k]].c;
    }
    n.h = t->g.nodes[ins[0]].h;
    n.w = t->g.nodes[ins[0]].w;
    return tg_add(t, &n);
}

int tg_head(tg *t, int in, int classes) {
    i8_node gp = i8_node_blank(I8_OP_GLOBAL_AVGPOOL, "global_pool");
    gp.n_inputs = 1;
    gp.inputs[0] = in;
    gp.c = t->g.nodes[in].c;
    gp.h = gp.w = 1;
    int p = tg_add(t, &gp);
    i8_node fc = i8_node_blank(I8_OP_LINEAR, "fc");
    fc.n_inputs = 1;
    fc.inputs[0] = p;
    fc.c = classes;
    fc.h = fc.w = 1;
    fc.weight = tg_weight(t, "fc.weight", 2, classes, gp.c, 1, 1, sqrt(1.0 / gp.c));
    fc.bias = tg_weight(t, "fc.bias", 1, classes, 1, 1, 1, 0.1);
    return tg_add(t, &fc);
}

void tg_finish(tg *t, int output) {
    t->g.output = output;
    const i8_node *o = &t->g.nodes[output];
    t->g.num_classes = o->c * o->h * o->w;
    infer8_status st = i8_graph_validate(&t->g, &t->err);
    if (st == INFER8_E_SHAPE && (o->h > 1 || o->w > 1) && strstr(t->err.msg, "logits")) st = INFER8_OK;
    if (st) fprintf(stderr, "validate: %s\n", t->err.msg);
    assert_int_equal(st, INFER8_OK);
}

/* ---- per-op cases shared by the backend tests (oneDNN, CUDA): each initialises t ---- */

void tg_case_stem(tg *t) {
    tg_init(t, 3, 19, 17, 1);
    int a = tg_conv(t, "conv2d_1a", 0, 32, 3, 3, 2, 2, 0, 0, 1, I8_ACT_RELU, -1, 1);
    int b = tg_conv(t, "conv2d_2a", a, 32, 3, 3, 1, 1, 1, 1, 0, I8_ACT_NONE, -1, 1);
    tg_finish(t, b);
}

void tg_case_spatial(tg *t, int c5x5_out) {
    tg_init(t, 3, 15, 15, 2);
    int a = tg_conv(t, "c5x5", 0, c5x5_out, 5, 5, 1, 1, 2, 2, 1, I8_ACT_RELU, -1, 1);
    int b = tg_conv(t, "c1x7", a, 32, 1, 7, 1, 1, 0, 3, 1, I8_ACT_RELU, -1, 1);
    int c = tg_conv(t, "c7x1", b, 24, 7, 1, 1, 1, 3, 0, 1, I8_ACT_NONE, -1, 1);
    int d = tg_conv(t, "c3x3s2", c, 48, 3, 3, 2, 2, 0, 0, 1, I8_ACT_RELU, -1, 1);
    tg_finish(t, d);
}

void tg_case_pool(tg *t, int k) {
    static const int sizes[][2] = {{17, 17}, {16, 15}};
    const int s = k / 8, variant = k % 8;
    tg_init(t, 3, sizes[s][0], sizes[s][1], 3 + (uint64_t)variant);
    /* 16 channels: the GPU's 8-channel-group pool kernels; 12: its scalar one */
    int a = tg_conv(t, "c", 0, variant & 1 || variant == 4 ? 16 : 12, 3, 3, 1, 1, 1, 1, 1, I8_ACT_NONE, -1, 1);
    int p;
    if (variant < 2) p = tg_pool(t, "maxpool", I8_OP_MAXPOOL, a, 3, 2, 0, 0);
    else if (variant < 4) p = tg_pool(t, "avgpool", I8_OP_AVGPOOL, a, 3, variant == 2 ? 1 : 2, 1, variant == 3);
    else p = tg_pool(t, "avgpool", I8_OP_AVGPOOL, a, 3, 1, 1, variant & 1); /* the blocks' pools (v4: excl., v3: incl.) */
    if (variant >= 6) { /* as i8_pass_sink_avgpool leaves them: the 1x1 conv's bias and relu after the pool */
        const int bias = tg_weight(t, "avgpool.bias", 1, t->g.nodes[a].c, 1, 1, 1, 0.5);
        t->g.nodes[p].bias = bias, t->g.nodes[p].act = I8_ACT_RELU;
    }
    tg_finish(t, p);
}

void tg_case_concat(tg *t) {
    tg_init(t, 3, 13, 13, 4);
    int x = tg_conv(t, "stem", 0, 32, 3, 3, 1, 1, 1, 1, 1, I8_ACT_RELU, -1, 1);
    int b0 = tg_conv(t, "b0", x, 48, 1, 1, 1, 1, 0, 0, 1, I8_ACT_RELU, -1, 1);
    int b1 = tg_conv(t, "b1", x, 16, 1, 1, 1, 1, 0, 0, 1, I8_ACT_RELU, -1, 1);
    int b1a = tg_conv(t, "b1a", b1, 32, 1, 3, 1, 1, 0, 1, 1, I8_ACT_RELU, -1, 1);
    int b1b = tg_conv(t, "b1b", b1, 16, 3, 1, 1, 1, 1, 0, 1, I8_ACT_RELU, -1, 1);
    int inner = tg_concat(t, "inner", 2, (int[]){b1a, b1b});
    int mp = tg_pool(t, "pool", I8_OP_AVGPOOL, x, 3, 1, 1, 0);
    int odd = tg_conv(t, "odd", x, 8, 1, 1, 1, 1, 0, 0, 1, I8_ACT_RELU, -1, 1);
    int cat = tg_concat(t, "cat", 6, (int[]){b0, inner, mp, x, odd, x});
    int y = tg_conv(t, "after", cat, 16, 3, 3, 2, 2, 0, 0, 1, I8_ACT_RELU, -1, 1);
    int m = tg_pool(t, "mp", I8_OP_MAXPOOL, cat, 3, 2, 0, 0);
    int cat2 = tg_concat(t, "cat2", 2, (int[]){y, m});
    tg_finish(t, cat2);
}

void tg_case_fused_residual(tg *t) {
    tg_init(t, 3, 11, 12, 5);
    int x = tg_conv(t, "stem", 0, 64, 3, 3, 1, 1, 1, 1, 1, I8_ACT_RELU, -1, 1);
    for (int blk = 0; blk < 3; blk++) {
        char nm[32];
        snprintf(nm, sizeof nm, "r%d.b0", blk);
        int b0 = tg_conv(t, nm, x, 32, 1, 1, 1, 1, 0, 0, 1, I8_ACT_RELU, -1, 1);
        snprintf(nm, sizeof nm, "r%d.b1", blk);
        int b1 = tg_conv(t, nm, x, 32, 3, 3, 1, 1, 1, 1, 1, I8_ACT_RELU, -1, 1);
        snprintf(nm, sizeof nm, "r%d.cat", blk);
        int cat = tg_concat(t, nm, 2, (int[]){b0, b1});
        snprintf(nm, sizeof nm, "r%d.conv2d", blk);
        x = tg_conv(t, nm, cat, 64, 1, 1, 1, 1, 0, 0, 1, blk == 2 ? I8_ACT_NONE : I8_ACT_RELU, x, 0.17f + 0.1f * blk);
    }
    /* x read after its fused conv: not in place. */
    int keep = x;
    int b = tg_conv(t, "last.b", x, 64, 1, 1, 1, 1, 0, 0, 0, I8_ACT_RELU, -1, 1);
    int r = tg_conv(t, "last.conv2d", b, 64, 1, 1, 1, 1, 0, 0, 1, I8_ACT_RELU, x, 0.5f);
    int cat = tg_concat(t, "final", 2, (int[]){r, keep});
    int out = tg_head(t, cat, 10);
    tg_finish(t, out);
}

void tg_case_unfused(tg *t) {
    tg_init(t, 3, 9, 10, 6);
    int x = tg_conv(t, "stem", 0, 32, 3, 3, 1, 1, 1, 1, 0, I8_ACT_NONE, -1, 1);
    i8_node bn = i8_node_blank(I8_OP_BATCHNORM, "stem.bn");
    bn.n_inputs = 1, bn.inputs[0] = x, bn.c = 32, bn.h = t->g.nodes[x].h, bn.w = t->g.nodes[x].w;
    bn.bn_gamma = tg_weight(t, "bn.weight", 1, 32, 1, 1, 1, 1.0);
    bn.bn_beta = tg_weight(t, "bn.bias", 1, 32, 1, 1, 1, 0.5);
    bn.bn_mean = tg_weight(t, "bn.running_mean", 1, 32, 1, 1, 1, 0.5);
    bn.bn_var = tg_weight(t, "bn.running_var", 1, 32, 1, 1, 1, 1.0);
    for (int k = 0; k < 32; k++) t->g.weights[bn.bn_var].data[k] = fabsf(t->g.weights[bn.bn_var].data[k]) + 0.1f;
    bn.bn_eps = 0.001f;
    int b = tg_add(t, &bn);
    i8_node re = i8_node_blank(I8_OP_RELU, "stem.act");
    re.n_inputs = 1, re.inputs[0] = b, re.c = 32, re.h = bn.h, re.w = bn.w;
    int r = tg_add(t, &re);
    int br = tg_conv(t, "branch", r, 32, 3, 3, 1, 1, 1, 1, 1, I8_ACT_NONE, -1, 1);
    i8_node res = i8_node_blank(I8_OP_RESIDUAL, "res");
    res.n_inputs = 2, res.inputs[0] = r, res.inputs[1] = br, res.c = 32, res.h = bn.h, res.w = bn.w;
    res.residual_scale = 0.2f;
    res.act = I8_ACT_RELU;
    int o = tg_add(t, &res);
    tg_finish(t, o);
}

int tg_case_count(void) { return 5 + TG_POOL_CASES; }

const char *tg_case_build(tg *t, int i, int c5x5_out) {
    static const char *const pool_names[TG_POOL_CASES] = {
        "pool 17x17 max", "pool 17x17 max (16 ch)", "pool 17x17 avg excl. pad", "pool 17x17 avg incl. pad s2",
        "pool 17x17 avg excl. pad (16 ch)", "pool 17x17 avg incl. pad s1 (16 ch)",
        "pool 17x17 avg excl. pad + bias, relu", "pool 17x17 avg incl. pad s1 + bias, relu (16 ch)",
        "pool 16x15 max", "pool 16x15 max (16 ch)", "pool 16x15 avg excl. pad", "pool 16x15 avg incl. pad s2",
        "pool 16x15 avg excl. pad (16 ch)", "pool 16x15 avg incl. pad s1 (16 ch)",
        "pool 16x15 avg excl. pad + bias, relu", "pool 16x15 avg incl. pad s1 + bias, relu (16 ch)"};
    switch (i) {
    case 0: tg_case_stem(t); return "stem";
    case 1: tg_case_spatial(t, c5x5_out); return "spatial 5x5 / 1x7 / 7x1 / 3x3s2";
    case 2: tg_case_concat(t); return "concat";
    case 3: tg_case_fused_residual(t); return "fused residual";
    case 4: tg_case_unfused(t); return "unfused batchnorm / relu / residual";
    default: tg_case_pool(t, i - 5); return pool_names[i - 5];
    }
}

/* ---- FP8 quantization of test graphs (as i8_quantize_graph_fp8 does), for the FP8 executors' tests ---- */

/* pre-node hook: amax[p] = max |value| of every tensor p read by any node */
typedef struct amax_ctx {
    float *amax;
} amax_ctx;

static infer8_status amax_hook(void *user, i8_graph *g, int node, int n, const float *const *inputs, i8_err *err) {
    (void)err;
    amax_ctx *a = user;
    const i8_node *nd = &g->nodes[node];
    for (int k = 0; k < nd->n_inputs; k++) {
        const i8_node *p = &g->nodes[nd->inputs[k]];
        size_t count = (size_t)n * p->c * p->h * p->w;
        float m = a->amax[nd->inputs[k]];
        for (size_t i = 0; i < count; i++) m = fmaxf(m, fabsf(inputs[k][i]));
        a->amax[nd->inputs[k]] = m;
    }
    return INFER8_OK;
}

/* amax of every tensor over `images` inputs (float32 NCHW, batches of up to 4) on the fp32 graph */
float *tg_calibrate_amax(i8_graph *g, const float *in, int images) {
    float *amax = calloc((size_t)g->n_nodes, sizeof(float));
    assert_non_null(amax);
    amax_ctx a = {amax};
    i8_backend_options o = {.max_batch = 4, .pre_node_hook = amax_hook, .hook_user = &a};
    void *ctx = NULL;
    i8_err err = {0};
    assert_int_equal(i8_backend_cpu_reference.prepare(&ctx, g, &o, &err), INFER8_OK);
    const i8_node *out = &g->nodes[g->output];
    size_t per = (size_t)g->input_c * g->input_h * g->input_w, outc = (size_t)out->c * out->h * out->w;
    float *logits = malloc(sizeof(float) * outc * 4);
    assert_non_null(logits);
    for (int b = 0; b < images; b += 4) {
        int n = images - b < 4 ? images - b : 4;
        assert_int_equal(i8_backend_cpu_reference.run(ctx, n, in + per * b, logits, &err), INFER8_OK);
    }
    free(logits);
    i8_backend_cpu_reference.destroy(ctx);
    return amax;
}

/* Makes conv node k FP8 as i8_quantize_graph_fp8 does; the tensors it reads as FP8 get
 * out_scale = amax / 448. */
void tg_make_fp8(tg *t, int k, const float *amax, int residual_fp8) {
    i8_graph *g = &t->g;
    i8_node *nd = &g->nodes[k];
    i8_weight *w = &g->weights[nd->weight];
    size_t per = (size_t)(w->shape[1] * w->shape[2] * w->shape[3]);
    float *s = malloc(sizeof(float) * (size_t)nd->c);
    assert_non_null(s);
    assert_int_equal(i8_fp8_weight_scales(w->data, (size_t)nd->c, per, w->name, NULL, s, &t->err), INFER8_OK);
    for (int o = 0; o < nd->c; o++)
        for (size_t i = 0; i < per; i++) {
            float *v = &w->data[(size_t)o * per + i];
            *v = i8_fp8_to_f32(i8_fp8_from_f32(*v * i8_fp8_inv_scale(s[o]))) * s[o];
        }
    char name[160];
    snprintf(name, sizeof name, "%s.weight_scale", nd->name);
    int64_t shape[1] = {nd->c};
    int idx;
    assert_int_equal(i8_graph_add_weight(g, name, 1, shape, s, &idx, &t->err), INFER8_OK);
    nd = &g->nodes[k];
    nd->weight_scales = idx;
    nd->precision = I8_PREC_FP8;
    g->nodes[nd->inputs[0]].out_scale = i8_fp8_scale_from_amax(amax[nd->inputs[0]]);
    if (residual_fp8) {
        nd->residual_fp8 = 1;
        g->nodes[nd->residual].out_scale = i8_fp8_scale_from_amax(amax[nd->residual]);
    }
}

static void random_inputs(tg *t, float *in, size_t count) {
    for (size_t i = 0; i < count; i++) in[i] = (float)(2.0 * i8_rng_uniform(&t->rng) - 1.0);
}

/* Draws 14 random inputs (returned), calibrates on the first 8 and quantizes the nodes listed
 * (fp8[k] = node, rfp8[k] = residual_fp8 flag); the convs left in fp16 get binary16 weights,
 * as i8_quantize_graph_fp8 gives them. */
float *tg_quantize_case(tg *t, const int *fp8, const int *rfp8, int count) {
    i8_graph *g = &t->g;
    size_t per = (size_t)g->input_c * g->input_h * g->input_w;
    float *in = malloc(sizeof(float) * per * 14);
    assert_non_null(in);
    random_inputs(t, in, per * 14);
    float *amax = tg_calibrate_amax(g, in, 8);
    for (int k = 0; k < count; k++) tg_make_fp8(t, fp8[k], amax, rfp8 ? rfp8[k] : 0);
    for (int k = 0; k < g->n_nodes; k++) {
        i8_node *nd = &g->nodes[k];
        if (nd->op != I8_OP_CONV || nd->precision == I8_PREC_FP8) continue;
        i8_weight *w = &g->weights[nd->weight];
        size_t cnt = (size_t)w->shape[0] * w->shape[1] * w->shape[2] * w->shape[3];
        for (size_t i = 0; i < cnt; i++) w->data[i] = i8_f16_to_f32(i8_f32_to_f16(w->data[i]));
    }
    free(amax);
    return in;
}
