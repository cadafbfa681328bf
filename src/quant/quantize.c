/* FP8 graph transform (quant/quantize.h): weight scales and dequantized weights for the convs
 * a recipe makes FP8, static activation scales on the producers of FP8-read tensors. */
#include "quant/quantize.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "quant/fp8.h"

/* A usable activation scale: positive, normal and with a finite inverse (so x * inv is never
 * NaN for finite x); scales.json accepts any positive finite value. */
static int scale_ok(float s) { return s >= FLT_MIN && s <= FLT_MAX && isfinite(i8_fp8_inv_scale(s)); }

infer8_status i8_quantize_graph_fp8(i8_graph *g, const i8_fp8_recipe *r, const i8_scales *sc, i8_err *err) {
    if (!g || !r || !sc) return i8_fail(err, INFER8_E_INVALID_ARGUMENT, "FP8 quantization: NULL argument");
    for (int k = 0; k < g->n_nodes; k++)
        if (g->nodes[k].precision == I8_PREC_FP8 || g->nodes[k].weight_scales >= 0 || g->nodes[k].residual_fp8)
            return i8_fail(err, INFER8_E_INVALID_ARGUMENT, "FP8 quantization: %s graph is already FP8 (node '%s')",
                           g->arch, g->nodes[k].name);
    i8_fp8_plan p;
    memset(&p, 0, sizeof p);
    infer8_status st = i8_fp8_plan_make(g, r, &p, err);
    if (st) return st;

    /* 1. every activation scale present and usable, before anything changes */
    float *out_scale = i8_calloc((size_t)g->n_nodes, sizeof(float), err);
    float **wscale = i8_calloc((size_t)g->n_nodes, sizeof(float *), err);
    float **wdeq = i8_calloc((size_t)g->n_nodes, sizeof(float *), err);
    uint8_t *codes = NULL;
    if (!out_scale || !wscale || !wdeq) {
        st = INFER8_E_NOMEM;
        goto done;
    }
    for (int k = 0; k < g->n_nodes; k++) {
        if (!p.quantized[k]) continue;
        const i8_scale_entry *e = i8_scales_find(sc, g->nodes[k].name);
        if (!e) {
            st = i8_fail(err, INFER8_E_MISSING_KEY,
                         "scales: tensors.\"%s\": missing (output of %s node '%s', read as FP8 under recipe %s)",
                         g->nodes[k].name, i8_op_name(g->nodes[k].op), g->nodes[k].name, r->name);
            goto done;
        }
        if (!scale_ok(e->scale)) {
            st = i8_fail(err, INFER8_E_FORMAT, "scales: tensors.\"%s\".scale: %g is not a usable FP8 scale "
                                               "(must be a normal float with a finite inverse)",
                         e->name, (double)e->scale);
            goto done;
        }
        out_scale[k] = e->scale;
    }

    /* 2. weight scales and dequantized weights into fresh buffers */
    for (int k = 0; k < g->n_nodes; k++) {
        if (!p.fp8[k]) continue;
        const i8_node *nd = &g->nodes[k];
        const i8_weight *w = nd->weight >= 0 && nd->weight < g->n_weights ? &g->weights[nd->weight] : NULL;
        if (!w || w->ndim != 4 || w->shape[0] != nd->c || !w->data) {
            st = i8_fail(err, INFER8_E_INTERNAL, "FP8 quantization: conv '%s' has no valid [O][I][kh][kw] weight",
                         nd->name);
            goto done;
        }
        size_t per = 0, total = 0;
        if (!i8_mul3_size((size_t)w->shape[1], (size_t)w->shape[2], (size_t)w->shape[3], &per) ||
            !i8_mul_size(per, (size_t)nd->c, &total)) {
            st = i8_fail(err, INFER8_E_LIMIT, "FP8 quantization: conv '%s' weight size overflows", nd->name);
            goto done;
        }
        free(codes);
        if (!(codes = i8_malloc(total ? total : 1, err)) || !(wscale[k] = i8_malloc(sizeof(float) * (size_t)nd->c, err)) ||
            !(wdeq[k] = i8_malloc(sizeof(float) * (total ? total : 1), err))) {
            st = INFER8_E_NOMEM;
            goto done;
        }
        if ((st = i8_fp8_weight_scales(w->data, (size_t)nd->c, per, w->name, NULL, wscale[k], err)) ||
            (st = i8_fp8_quantize_weights(w->data, (size_t)nd->c, per, wscale[k], codes, err)))
            goto done;
        for (int o = 0; o < nd->c; o++)
            i8_fp8_dequantize(codes + (size_t)o * per, per, wscale[k][o], wdeq[k] + (size_t)o * per);
    }

    /* 3. commit: add scale weights (the graph takes ownership), then mark nodes */
    int *scale_index = i8_malloc(sizeof(int) * (size_t)g->n_nodes, err);
    if (!scale_index) {
        st = INFER8_E_NOMEM;
        goto done;
    }
    for (int k = 0; k < g->n_nodes; k++) {
        scale_index[k] = -1;
        if (!p.fp8[k]) continue;
        char name[I8_NAME_MAX + 32];
        snprintf(name, sizeof name, "%s.weight_scale", g->nodes[k].name);
        const int64_t shape[1] = {g->nodes[k].c};
        float *data = wscale[k];
        wscale[k] = NULL; /* owned by the graph from here, also on failure */
        if ((st = i8_graph_add_weight(g, name, 1, shape, data, &scale_index[k], err))) {
            free(scale_index);
            goto done;
        }
    }
    for (int k = 0; k < g->n_nodes; k++) {
        i8_node *nd = &g->nodes[k];
        nd->out_scale = p.quantized[k] ? out_scale[k] : 0.0f;
        nd->residual_fp8 = p.residual_fp8[k];
        if (!p.fp8[k]) {
            /* in an FP8 graph the layers left out of FP8 run in fp16 (an FP8 bundle stores them
             * so, the GPU computes them so): their weights become binary16 values here too */
            if (p.n_fp8 > 0 && (nd->op == I8_OP_CONV || nd->op == I8_OP_LINEAR) && nd->weight >= 0) {
                i8_weight *w = &g->weights[nd->weight];
                size_t count = 1;
                for (int d = 0; d < w->ndim; d++) count *= (size_t)w->shape[d];
                i8_f16_round_array(w->data, w->data, count);
            }
            continue;
        }
        nd->precision = I8_PREC_FP8;
        nd->weight_scales = scale_index[k];
        free(g->weights[nd->weight].data);
        g->weights[nd->weight].data = wdeq[k];
        wdeq[k] = NULL;
    }
    free(scale_index);
    st = INFER8_OK;
done:
    if (wscale)
        for (int k = 0; k < g->n_nodes; k++) free(wscale[k]);
    if (wdeq)
        for (int k = 0; k < g->n_nodes; k++) free(wdeq[k]);
    free(wscale);
    free(wdeq);
    free(codes);
    free(out_scale);
    i8_fp8_plan_free(&p);
    return st;
}

infer8_status i8_quantize_graph_fp8_files(i8_graph *g, const char *recipe_spec, const char *scales_path,
                                          const i8_limits *limits, i8_err *err) {
    if (!g || !recipe_spec || !scales_path)
        return i8_fail(err, INFER8_E_INVALID_ARGUMENT, "FP8 quantization: a recipe and a scales file are required");
    i8_fp8_recipe r;
    memset(&r, 0, sizeof r);
    infer8_status st = i8_fp8_recipe_from_spec(recipe_spec, limits, &r, err);
    if (st) return st;
    i8_scales sc;
    memset(&sc, 0, sizeof sc);
    if (!(st = i8_scales_read(scales_path, limits, &sc, err))) {
        st = i8_quantize_graph_fp8(g, &r, &sc, err);
        if (st && err && !strncmp(err->msg, "scales:", 7)) i8_err_prefix(err, "%s", scales_path);
        i8_scales_free(&sc);
    }
    i8_fp8_recipe_free(&r);
    return st;
}
