/* Building blocks shared by the family files: each helper fetches its tensors from the weight
 * source by timm state_dict key, appends the unoptimized nodes (conv -> batchnorm -> relu,
 * pools, concat, residual, head) with their output shapes, and records the first failure in
 * the builder so a family can chain calls and check once at the end. */
#include "families/family.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

/* Formats a node name or key into buf; records an internal error when it does not fit. */
static int format(i8_builder *b, char *buf, size_t size, const char *fmt, ...) __attribute__((format(printf, 4, 5)));
static int format(i8_builder *b, char *buf, size_t size, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(buf, size, fmt, ap);
    va_end(ap);
    if (n < 0 || (size_t)n >= size) {
        b->status = i8_fail(b->err, INFER8_E_INTERNAL, "%s: name too long: %s...", b->g->arch, buf);
        return 0;
    }
    return 1;
}

static int usable(i8_builder *b, int input, const char *name) {
    if (b->status != INFER8_OK) return 0;
    if (input < 0 || input >= b->g->n_nodes) {
        b->status = i8_fail(b->err, INFER8_E_INTERNAL, "%s: '%s': input node %d invalid", b->g->arch, name, input);
        return 0;
    }
    return 1;
}

/* Appends a node after checking its output shape; the node takes the current block index. */
static int add(i8_builder *b, i8_node *n) {
    if (n->c < 1 || n->h < 1 || n->w < 1) {
        b->status = i8_fail(b->err, INFER8_E_INVALID_ARGUMENT,
                            "%s: '%s' would output %dx%dx%d: input %dx%d is too small for this architecture", b->g->arch,
                            n->name, n->c, n->h, n->w, b->g->input_h, b->g->input_w);
        return -1;
    }
    n->block = b->block;
    int idx = -1;
    infer8_status st = i8_graph_add_node(b->g, n, &idx, b->err);
    if (st != INFER8_OK) {
        b->status = st;
        return -1;
    }
    return idx;
}

/* Fetches one tensor by key and shape into the weight table; running statistics are not
 * counted as checkpoint parameters (timm counts parameters, not buffers). */
static int fetch(i8_builder *b, const char *key, int ndim, const int64_t *shape, int is_buffer) {
    if (b->status != INFER8_OK) return -1;
    float *data = NULL;
    infer8_status st = b->src->get(b->src->ctx, key, ndim, shape, &data, b->err);
    if (st != INFER8_OK) {
        free(data);
        b->status = st;
        return -1;
    }
    if (!data) {
        b->status = i8_fail(b->err, INFER8_E_INTERNAL, "%s: weight source returned no data for '%s'", b->g->arch, key);
        return -1;
    }
    int idx = -1;
    st = i8_graph_add_weight(b->g, key, ndim, shape, data, &idx, b->err);
    if (st != INFER8_OK) {
        b->status = st;
        return -1;
    }
    if (!is_buffer) {
        uint64_t e = 1;
        for (int i = 0; i < ndim; i++) e *= (uint64_t)shape[i];
        b->g->checkpoint_parameters += e;
    }
    return idx;
}

static int64_t window_out(int in, int k, int s, int p) {
    int64_t span = (int64_t)in + 2 * (int64_t)p - k;
    return span < 0 ? 0 : span / s + 1;
}

static int conv_node(i8_builder *b, const char *name, const char *wkey, const char *bkey, int input, int out_c, int kh,
                     int kw, int sh, int sw, int ph, int pw) {
    const i8_node *in = &b->g->nodes[input];
    i8_node n = i8_node_blank(I8_OP_CONV, name);
    n.n_inputs = 1;
    n.inputs[0] = input;
    n.c = out_c;
    n.kh = kh, n.kw = kw, n.sh = sh, n.sw = sw, n.ph = ph, n.pw = pw;
    n.h = (int)window_out(in->h, kh, sh, ph);
    n.w = (int)window_out(in->w, kw, sw, pw);
    int64_t ws[4] = {out_c, in->c, kh, kw};
    n.weight = fetch(b, wkey, 4, ws, 0);
    if (bkey) {
        int64_t bs[1] = {out_c};
        n.bias = fetch(b, bkey, 1, bs, 0);
    }
    if (b->status != INFER8_OK) return -1;
    return add(b, &n);
}

int i8_build_cbr(i8_builder *b, const char *prefix, int input, int out_c, int kh, int kw, int sh, int sw, int ph,
                 int pw) {
    if (!usable(b, input, prefix)) return -1;
    char key[I8_NAME_MAX + 32], name[I8_NAME_MAX];
    if (!format(b, key, sizeof key, "%s.conv.weight", prefix) || !format(b, name, sizeof name, "%s.act", prefix))
        return -1;
    int conv = conv_node(b, prefix, key, NULL, input, out_c, kh, kw, sh, sw, ph, pw);
    if (conv < 0) return -1;

    i8_node bn = i8_node_blank(I8_OP_BATCHNORM, "");
    format(b, bn.name, sizeof bn.name, "%s.bn", prefix);
    bn.n_inputs = 1;
    bn.inputs[0] = conv;
    bn.c = b->g->nodes[conv].c, bn.h = b->g->nodes[conv].h, bn.w = b->g->nodes[conv].w;
    bn.bn_eps = 0.001f;
    int64_t s[1] = {out_c};
    static const char *const fields[4] = {"weight", "bias", "running_mean", "running_var"};
    int *slots[4] = {&bn.bn_gamma, &bn.bn_beta, &bn.bn_mean, &bn.bn_var};
    for (int i = 0; i < 4; i++) {
        if (!format(b, key, sizeof key, "%s.bn.%s", prefix, fields[i])) return -1;
        *slots[i] = fetch(b, key, 1, s, i >= 2);
    }
    if (b->status != INFER8_OK) return -1;
    int bni = add(b, &bn);
    if (bni < 0) return -1;

    i8_node r = i8_node_blank(I8_OP_RELU, name);
    r.n_inputs = 1;
    r.inputs[0] = bni;
    r.c = bn.c, r.h = bn.h, r.w = bn.w;
    return add(b, &r);
}

int i8_build_conv_bias(i8_builder *b, const char *prefix, int input, int out_c, int kh, int kw) {
    if (!usable(b, input, prefix)) return -1;
    char wkey[I8_NAME_MAX + 32], bkey[I8_NAME_MAX + 32];
    if (!format(b, wkey, sizeof wkey, "%s.weight", prefix) || !format(b, bkey, sizeof bkey, "%s.bias", prefix)) return -1;
    /* "same" padding for odd kernels; the families only use 1x1 here */
    return conv_node(b, prefix, wkey, bkey, input, out_c, kh, kw, 1, 1, kh / 2, kw / 2);
}

static int pool(i8_builder *b, i8_op op, const char *name, int input, int k, int s, int p, int count_include_pad) {
    if (!usable(b, input, name)) return -1;
    const i8_node *in = &b->g->nodes[input];
    i8_node n = i8_node_blank(op, name);
    n.n_inputs = 1;
    n.inputs[0] = input;
    n.kh = n.kw = k;
    n.sh = n.sw = s;
    n.ph = n.pw = p;
    n.count_include_pad = count_include_pad;
    n.c = in->c;
    n.h = (int)window_out(in->h, k, s, p);
    n.w = (int)window_out(in->w, k, s, p);
    return add(b, &n);
}

int i8_build_maxpool(i8_builder *b, const char *name, int input, int k, int s, int p) {
    return pool(b, I8_OP_MAXPOOL, name, input, k, s, p, 0);
}

int i8_build_avgpool(i8_builder *b, const char *name, int input, int k, int s, int p, int count_include_pad) {
    return pool(b, I8_OP_AVGPOOL, name, input, k, s, p, count_include_pad ? 1 : 0);
}

int i8_build_concat(i8_builder *b, const char *name, const int *inputs, int n) {
    if (b->status != INFER8_OK) return -1;
    if (n < 1 || n > I8_MAX_INPUTS) {
        b->status = i8_fail(b->err, INFER8_E_INTERNAL, "%s: concat '%s' with %d inputs", b->g->arch, name, n);
        return -1;
    }
    i8_node c = i8_node_blank(I8_OP_CONCAT, name);
    c.n_inputs = n;
    for (int i = 0; i < n; i++) {
        if (!usable(b, inputs[i], name)) return -1;
        const i8_node *x = &b->g->nodes[inputs[i]];
        if (i == 0) {
            c.h = x->h;
            c.w = x->w;
        } else if (x->h != c.h || x->w != c.w) {
            b->status = i8_fail(b->err, INFER8_E_INTERNAL, "%s: concat '%s': input '%s' is %dx%d, expected %dx%d",
                                b->g->arch, name, x->name, x->h, x->w, c.h, c.w);
            return -1;
        }
        c.inputs[i] = inputs[i];
        c.c += x->c;
    }
    return add(b, &c);
}

int i8_build_residual(i8_builder *b, const char *name, int x, int branch, float scale, i8_act act) {
    if (!usable(b, x, name) || !usable(b, branch, name)) return -1;
    const i8_node *a = &b->g->nodes[x], *c = &b->g->nodes[branch];
    if (a->c != c->c || a->h != c->h || a->w != c->w) {
        b->status = i8_fail(b->err, INFER8_E_INTERNAL, "%s: residual '%s': %dx%dx%d + %dx%dx%d", b->g->arch, name, a->c,
                            a->h, a->w, c->c, c->h, c->w);
        return -1;
    }
    i8_node r = i8_node_blank(I8_OP_RESIDUAL, name);
    r.n_inputs = 2;
    r.inputs[0] = x;
    r.inputs[1] = branch;
    r.c = a->c, r.h = a->h, r.w = a->w;
    r.residual_scale = scale;
    r.act = act;
    return add(b, &r);
}

int i8_build_head(i8_builder *b, const char *prefix, int input, int num_classes) {
    if (!usable(b, input, prefix)) return -1;
    if (num_classes < 1) {
        b->status = i8_fail(b->err, INFER8_E_INVALID_ARGUMENT, "%s: num_classes %d must be >= 1", b->g->arch, num_classes);
        return -1;
    }
    i8_node gp = i8_node_blank(I8_OP_GLOBAL_AVGPOOL, "global_pool");
    gp.n_inputs = 1;
    gp.inputs[0] = input;
    gp.c = b->g->nodes[input].c;
    gp.h = gp.w = 1;
    int gpi = add(b, &gp);
    if (gpi < 0) return -1;

    char wkey[I8_NAME_MAX + 32], bkey[I8_NAME_MAX + 32];
    if (!format(b, wkey, sizeof wkey, "%s.weight", prefix) || !format(b, bkey, sizeof bkey, "%s.bias", prefix)) return -1;
    i8_node fc = i8_node_blank(I8_OP_LINEAR, prefix);
    fc.n_inputs = 1;
    fc.inputs[0] = gpi;
    fc.c = num_classes;
    fc.h = fc.w = 1;
    int64_t ws[2] = {num_classes, gp.c}, bs[1] = {num_classes};
    fc.weight = fetch(b, wkey, 2, ws, 0);
    fc.bias = fetch(b, bkey, 1, bs, 0);
    if (b->status != INFER8_OK) return -1;
    int fci = add(b, &fc);
    if (fci >= 0) {
        b->g->output = fci;
        b->g->num_classes = num_classes;
    }
    return fci;
}

infer8_status i8_build_begin(i8_builder *b, i8_graph *g, const i8_weight_source *src, const char *arch, int num_classes,
                             int in_h, int in_w, i8_err *err) {
    memset(b, 0, sizeof *b);
    /* callers may hand over a graph they already initialized: start from scratch */
    i8_graph_free(g);
    b->g = g;
    b->src = src;
    b->err = err;
    b->block = -1;
    if (!src || !src->get) return b->status = i8_fail(err, INFER8_E_INVALID_ARGUMENT, "%s: no weight source", arch);
    if (num_classes < 1)
        return b->status = i8_fail(err, INFER8_E_INVALID_ARGUMENT, "%s: num_classes %d must be >= 1", arch, num_classes);
    if (in_h < 1 || in_w < 1 || in_h > 16384 || in_w > 16384)
        return b->status = i8_fail(err, INFER8_E_INVALID_ARGUMENT, "%s: input size %dx%d out of range", arch, in_h, in_w);
    return b->status = i8_graph_init(g, arch, 3, in_h, in_w, err);
}

infer8_status i8_build_end(i8_builder *b) {
    if (b->status == INFER8_OK) b->status = i8_graph_validate(b->g, b->err);
    if (b->status != INFER8_OK) i8_graph_free(b->g);
    return b->status;
}
