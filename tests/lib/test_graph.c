#include "test_graph.h"

#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

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
