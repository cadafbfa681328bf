/* Human-readable and JSON listings of a graph for `infer8 inspect` and infer8_model_describe:
 * one entry per node (name, op, kernel, stride, padding, input and output shapes, act, fused
 * residual, precision; FP8 scales where present), then totals (node counts per op,
 * convolutions, parameters, MACs) and, in text, the FP8 scales in a table of their own. */
#include "graph/graph.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int has_window(i8_op op) { return op == I8_OP_CONV || op == I8_OP_MAXPOOL || op == I8_OP_AVGPOOL; }

/* ---- text ---- */

/* 55843464 -> "55,843,464" */
static const char *commas(uint64_t v, char *buf, size_t size) {
    char digits[32];
    int n = snprintf(digits, sizeof digits, "%llu", (unsigned long long)v), o = 0;
    for (int i = 0; i < n && (size_t)o + 2 < size; i++) {
        if (i && (n - i) % 3 == 0) buf[o++] = ',';
        buf[o++] = digits[i];
    }
    buf[o] = 0;
    return buf;
}

static void put_counts(i8_strbuf *s, const i8_graph_stats *st) {
    int first = 1;
    for (int op = 0; op < I8_OP_COUNT; op++) {
        if (!st->count_per_op[op]) continue;
        i8_strbuf_printf(s, "%s%s %d", first ? "" : ", ", i8_op_name((i8_op)op), st->count_per_op[op]);
        first = 0;
    }
}

/* An FP8 conv's per-output-channel weight scales: their count, smallest and largest. */
static int64_t weight_scale_range(const i8_graph *g, const i8_node *n, float *lo, float *hi) {
    const i8_weight *w = &g->weights[n->weight_scales];
    *lo = INFINITY, *hi = 0;
    for (int64_t k = 0; k < w->shape[0]; k++) *lo = fminf(*lo, w->data[k]), *hi = fmaxf(*hi, w->data[k]);
    return w->shape[0];
}

static int is_fp8_conv(const i8_graph *g, const i8_node *n) {
    return n->precision == I8_PREC_FP8 && n->weight_scales >= 0 && n->weight_scales < g->n_weights;
}

/* FP8 scales, one line per layer that has any: its output's e4m3 scale where an FP8 layer reads
 * it (any op: a pool or concat feeding FP8 convs too), an FP8 conv's weight scales, and whether a
 * residual conv reads its residual's e4m3 copy. Nothing for a graph without FP8. */
static void put_fp8_scales(i8_strbuf *s, const i8_graph *g) {
    int heading = 0;
    for (int i = 0; i < g->n_nodes; i++) {
        const i8_node *n = &g->nodes[i];
        const int fp8_conv = is_fp8_conv(g, n);
        if (!(n->out_scale > 0) && !fp8_conv && !n->residual_fp8) continue;
        if (!heading++)
            i8_strbuf_printf(s, "FP8 scales: the e4m3 scale of each output an FP8 layer reads (out_scale), the "
                                "per-output-channel weight scales of each FP8 conv\n  %5s %-34s %-9s %-16s %s\n",
                             "#", "name", "prec", "out_scale", "weight scales (count, min .. max)");
        char out[32] = "-", wsc[80] = "-";
        if (n->out_scale > 0) snprintf(out, sizeof out, "%.9g", (double)n->out_scale);
        if (fp8_conv) {
            float lo, hi;
            const int64_t count = weight_scale_range(g, n, &lo, &hi);
            snprintf(wsc, sizeof wsc, "%lld, %.4g .. %.4g", (long long)count, (double)lo, (double)hi);
        }
        i8_strbuf_printf(s, "  %5d %-34s %-9s %-16s %s%s\n", i, n->name, i8_precision_name(n->precision), out, wsc,
                         n->residual_fp8 ? "  (residual read as e4m3)" : "");
    }
}

infer8_status i8_graph_describe_text(const i8_graph *g, char **out, i8_err *err) {
    i8_strbuf s = {0};
    i8_strbuf_printf(&s, "%s: %d nodes, input %dx%dx%d\n", g->arch, g->n_nodes, g->input_c, g->input_h, g->input_w);
    i8_strbuf_printf(&s, "%5s  %-34s %-18s %-6s %-6s %-6s %-26s %-12s %-5s %-22s %s\n", "#", "name", "op", "kernel", "stride", "pad",
        "input", "output", "act", "residual", "prec");
    for (int i = 0; i < g->n_nodes; i++) {
        const i8_node *n = &g->nodes[i];
        char k[24] = "-", st[24] = "-", pd[24] = "-", in[160] = "-", res[128] = "-";
        if (has_window(n->op)) {
            snprintf(k, sizeof k, "%dx%d", n->kh, n->kw);
            snprintf(st, sizeof st, "%dx%d", n->sh, n->sw);
            snprintf(pd, sizeof pd, "%dx%d", n->ph, n->pw);
        }
        /* a fused conv's inputs[1] is its residual, shown in its own column */
        int shown = n->op == I8_OP_CONV && n->residual >= 0 ? 1 : n->n_inputs;
        size_t off = 0;
        for (int j = 0; j < shown && off < sizeof in; j++) {
            int x = n->inputs[j];
            if (x < 0 || x >= g->n_nodes) continue;
            const i8_node *p = &g->nodes[x];
            off += (size_t)snprintf(in + off, sizeof in - off, "%s%dx%dx%d", j ? "," : "", p->c, p->h, p->w);
        }
        if (n->residual >= 0 && n->residual < g->n_nodes)
            snprintf(res, sizeof res, "%s*%.2f", g->nodes[n->residual].name, (double)n->residual_scale);
        else if (n->op == I8_OP_RESIDUAL)
            snprintf(res, sizeof res, "scale %.2f", (double)n->residual_scale);
        char outs[48];
        snprintf(outs, sizeof outs, "%dx%dx%d", n->c, n->h, n->w);
        const char *op = i8_op_name(n->op);
        char opx[32];
        if (n->op == I8_OP_AVGPOOL) {
            snprintf(opx, sizeof opx, "%s%s%s", op, n->count_include_pad ? "(incl)" : "(excl)", n->bias >= 0 ? "+bias" : "");
            op = opx;
        }
        i8_strbuf_printf(&s, "%5d  %-34s %-18s %-6s %-6s %-6s %-26s %-12s %-5s %-22s %s\n", i, n->name, op, k, st, pd, in, outs,
            n->act == I8_ACT_RELU ? "relu" : "-", res, i8_precision_name(n->precision));
    }
    i8_graph_stats stats;
    i8_graph_compute_stats(g, &stats);
    i8_strbuf_printf(&s, "totals:\n  nodes: %d (", g->n_nodes);
    put_counts(&s, &stats);
    i8_strbuf_printf(&s, ")\n  convolutions: %d\n", stats.convolutions);
    char a[40], b[40];
    i8_strbuf_printf(&s, "  parameters: %s (checkpoint), %s (graph weights)\n", commas(g->checkpoint_parameters, a, sizeof a),
        commas(stats.parameters, b, sizeof b));
    i8_strbuf_printf(&s, "  MACs per image: %s (%.2f GMACs)\n", commas(stats.macs, a, sizeof a), (double)stats.macs / 1e9);
    i8_strbuf_printf(&s, "  largest activation: %s elements per image\n", commas(stats.max_activation_elems, a, sizeof a));
    put_fp8_scales(&s, g);
    if (s.oom) {
        free(s.s);
        return i8_fail(err, INFER8_E_NOMEM, "describe: out of memory");
    }
    *out = s.s;
    return INFER8_OK;
}

/* ---- JSON ---- */

static cJSON *pair(int a, int b) {
    int v[2] = {a, b};
    return cJSON_CreateIntArray(v, 2);
}

static cJSON *shape(const i8_node *n) {
    int v[3] = {n->c, n->h, n->w};
    return cJSON_CreateIntArray(v, 3);
}

/* Adds item under key (cJSON then owns it); on failure frees item and returns 0. */
static int add(cJSON *obj, const char *key, cJSON *item) {
    if (!item) return 0;
    if (!cJSON_AddItemToObject(obj, key, item)) {
        cJSON_Delete(item);
        return 0;
    }
    return 1;
}

static cJSON *layer_json(const i8_graph *g, int i) {
    const i8_node *n = &g->nodes[i];
    cJSON *o = cJSON_CreateObject();
    if (!o) return NULL;
    int ok = add(o, "index", cJSON_CreateNumber(i)) && add(o, "name", cJSON_CreateString(n->name)) &&
             add(o, "op", cJSON_CreateString(i8_op_name(n->op)));
    if (has_window(n->op))
        ok = ok && add(o, "kernel", pair(n->kh, n->kw)) && add(o, "stride", pair(n->sh, n->sw)) &&
             add(o, "padding", pair(n->ph, n->pw));
    else
        ok = ok && add(o, "kernel", cJSON_CreateNull()) && add(o, "stride", cJSON_CreateNull()) &&
             add(o, "padding", cJSON_CreateNull());
    cJSON *ins = cJSON_CreateArray(), *idx = cJSON_CreateArray();
    ok = ok && add(o, "inputs", idx) && add(o, "in", ins);
    if (!ok) {
        cJSON_Delete(o);
        return NULL;
    }
    int shown = n->op == I8_OP_CONV && n->residual >= 0 ? 1 : n->n_inputs;
    for (int j = 0; j < shown && ok; j++) {
        int x = n->inputs[j];
        if (x < 0 || x >= g->n_nodes) continue;
        cJSON *s = shape(&g->nodes[x]), *k = cJSON_CreateNumber(x);
        ok = s && k && cJSON_AddItemToArray(ins, s) && cJSON_AddItemToArray(idx, k);
    }
    ok = ok && add(o, "out", shape(n)) && add(o, "act", cJSON_CreateString(n->act == I8_ACT_RELU ? "relu" : "none"));
    if (n->op == I8_OP_AVGPOOL)
        ok = ok && add(o, "count_include_pad", cJSON_CreateBool(n->count_include_pad)) &&
             add(o, "bias", cJSON_CreateBool(n->bias >= 0)); /* moved below its 1x1 conv */
    if (n->op == I8_OP_RESIDUAL) ok = ok && add(o, "scale", cJSON_CreateNumber(n->residual_scale));
    if (n->residual >= 0 && n->residual < g->n_nodes) {
        cJSON *r = cJSON_CreateObject();
        ok = ok && add(o, "residual", r) && add(r, "name", cJSON_CreateString(g->nodes[n->residual].name)) &&
             add(r, "index", cJSON_CreateNumber(n->residual)) && add(r, "scale", cJSON_CreateNumber(n->residual_scale));
    } else {
        ok = ok && add(o, "residual", cJSON_CreateNull());
    }
    ok = ok && add(o, "block", cJSON_CreateNumber(n->block)) &&
         add(o, "macs", cJSON_CreateNumber((double)i8_node_macs(g, n))) &&
         add(o, "precision", cJSON_CreateString(i8_precision_name(n->precision)));
    if (n->out_scale > 0) ok = ok && add(o, "out_scale", cJSON_CreateNumber(n->out_scale));
    if (is_fp8_conv(g, n)) {
        float lo, hi;
        const int64_t count = weight_scale_range(g, n, &lo, &hi);
        cJSON *w = cJSON_CreateObject();
        ok = ok && add(o, "weight_scales", w) && add(w, "count", cJSON_CreateNumber((double)count)) &&
             add(w, "min", cJSON_CreateNumber(lo)) && add(w, "max", cJSON_CreateNumber(hi));
    }
    if (n->residual_fp8) ok = ok && add(o, "residual_fp8", cJSON_CreateTrue());
    if (!ok) {
        cJSON_Delete(o);
        return NULL;
    }
    return o;
}

cJSON *i8_graph_describe_tree(const i8_graph *g, i8_err *err) {
    /* every item is attached to root as soon as it is created, so one Delete frees all */
    cJSON *root = cJSON_CreateObject();
    if (!root) {
        i8_fail(err, INFER8_E_NOMEM, "describe: out of memory");
        return NULL;
    }
    int ok = add(root, "arch", cJSON_CreateString(g->arch)) && add(root, "input", pair(g->input_h, g->input_w)) &&
             add(root, "num_classes", cJSON_CreateNumber(g->num_classes));
    cJSON *layers = ok ? cJSON_AddArrayToObject(root, "layers") : NULL;
    cJSON *totals = layers ? cJSON_AddObjectToObject(root, "totals") : NULL;
    ok = totals != NULL;
    for (int i = 0; i < g->n_nodes && ok; i++) {
        cJSON *l = layer_json(g, i);
        ok = l && cJSON_AddItemToArray(layers, l);
        if (l && !ok) cJSON_Delete(l);
    }
    i8_graph_stats st;
    i8_graph_compute_stats(g, &st);
    ok = ok && add(totals, "nodes", cJSON_CreateNumber(g->n_nodes));
    cJSON *counts = ok ? cJSON_AddObjectToObject(totals, "count_per_op") : NULL;
    ok = counts != NULL;
    for (int op = 0; op < I8_OP_COUNT && ok; op++)
        if (st.count_per_op[op]) ok = add(counts, i8_op_name((i8_op)op), cJSON_CreateNumber(st.count_per_op[op]));
    ok = ok && add(totals, "convolutions", cJSON_CreateNumber(st.convolutions)) &&
         add(totals, "checkpoint_parameters", cJSON_CreateNumber((double)g->checkpoint_parameters)) &&
         add(totals, "graph_parameters", cJSON_CreateNumber((double)st.parameters)) &&
         add(totals, "macs", cJSON_CreateNumber((double)st.macs)) &&
         add(totals, "gmacs", cJSON_CreateNumber((double)st.macs / 1e9)) &&
         add(totals, "max_activation_elems", cJSON_CreateNumber((double)st.max_activation_elems));
    if (!ok) {
        cJSON_Delete(root);
        i8_fail(err, INFER8_E_NOMEM, "describe: out of memory");
        return NULL;
    }
    return root;
}

