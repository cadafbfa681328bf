/* Public FP8 API (include/infer8.h): recipe listings, activation calibration over a set of images
 * (reference executor with a pre_node_hook that feeds one histogram per tensor read by a
 * convolution), and FP8 emulation of a checkpoint at open (open options precision / fp8_recipe /
 * fp8_scales_path). See docs/fp8.md. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "api/model.h"
#include "eval/dataset.h"
#include "image/image.h"
#include "quant/calibrate.h"
#include "quant/fp16_round.h"
#include "quant/fp8.h"
#include "quant/quantize.h"
#include "quant/recipe.h"
#include "quant/scales.h"

#define EXPORT __attribute__((visibility("default")))

static infer8_status ctx_bad(infer8_context *ctx, const char *msg) {
    i8_err e;
    i8_fail(&e, INFER8_E_INVALID_ARGUMENT, "%s", msg);
    return i8_ctx_fail(ctx, &e);
}

/* ---- FP8 at open ---- */

infer8_status i8_model_apply_fp8(infer8_model *m, i8_err *err) {
    const int prec = m->options.struct_size >= offsetof(infer8_open_options, precision) + sizeof(int)
                         ? m->options.precision
                         : INFER8_PRECISION_FP32;
    if (prec == INFER8_PRECISION_FP32) return INFER8_OK;
    if (m->bundle)
        return i8_fail(err, INFER8_E_INVALID_ARGUMENT,
                       "%s: precision options apply to checkpoints; a bundle keeps its build precision", m->source);
    if (prec != INFER8_PRECISION_FP8)
        return i8_fail(err, INFER8_E_UNSUPPORTED, "open precision %d: only fp32 and fp8 (emulated) apply to a checkpoint",
                       prec);
    /* reference executor: emulation; CUDA: e4m3 tensor-core kernels (cuda_fp8.cu) */
    if (m->options.device != INFER8_DEVICE_CPU_REFERENCE && m->options.device != INFER8_DEVICE_CUDA)
        return i8_fail(err, INFER8_E_UNSUPPORTED,
                       "FP8 on a checkpoint runs on the reference executor (--device ref, emulation) or on CUDA");
    if (!m->options.fp8_scales_path)
        return i8_fail(err, INFER8_E_INVALID_ARGUMENT, "precision fp8 needs activation scales (scales.json from "
                                                       "infer8 calibrate)");
    infer8_status s = i8_quantize_graph_fp8_files(&m->graph, m->options.fp8_recipe ? m->options.fp8_recipe : "default",
                                                  m->options.fp8_scales_path, &m->limits, err);
    m->options.fp8_recipe = NULL; /* not owned */
    m->options.fp8_scales_path = NULL;
    return s;
}

/* ---- split weights at open ---- */

infer8_status i8_model_apply_split_weights(infer8_model *m, i8_err *err) {
    const char *spec = m->options.split_weights;
    m->options.split_weights = NULL; /* not owned */
    if (!spec) return INFER8_OK;
    if (m->bundle)
        return i8_fail(err, INFER8_E_INVALID_ARGUMENT,
                       "%s: --split-weights applies to checkpoints; a bundle keeps the graph it was built with", m->source);
    uint8_t *select = NULL;
    int count = 0, n_split = 0;
    infer8_status s = i8_conv_select(&m->graph, "--split-weights", spec, &select, &count, err);
    if (!s) s = i8_pass_split_weights(&m->graph, select, &n_split, err);
    free(select);
    return s;
}

/* ---- recipe listing ---- */

EXPORT infer8_status infer8_fp8_recipe_describe(infer8_context *ctx, const infer8_model *m, const char *recipe,
                                                int json, char **out, int *fp8_count) {
    if (!ctx || !m || !out) return ctx_bad(ctx, "infer8_fp8_recipe_describe: NULL argument");
    i8_err err;
    i8_err_clear(&err);
    i8_fp8_recipe r;
    i8_fp8_plan p;
    memset(&r, 0, sizeof r);
    memset(&p, 0, sizeof p);
    infer8_status s = i8_fp8_recipe_from_spec(recipe ? recipe : "default", &ctx->limits, &r, &err);
    if (!s) s = i8_fp8_plan_make(&m->graph, &r, &p, &err);
    if (!s) s = i8_fp8_plan_describe(&m->graph, &r, &p, json, out, &err);
    if (!s && fp8_count) *fp8_count = p.n_fp8;
    i8_fp8_plan_free(&p);
    i8_fp8_recipe_free(&r);
    return s ? i8_ctx_fail(ctx, &err) : INFER8_OK;
}

/* ---- image sources: any dataset layout (src/eval/dataset.h) ---- */

static void images_issue(void *user, const char *message) { i8_ctx_log(user, 1, "%s", message); }

/* src as a dataset of encoded images (a folder, flat or one sub-folder per class; a list file;
 * webdataset tar shards): its first `take` samples (0 = all), each file or member up to the
 * context's image size limit; a problem with one image is a logged warning, and the image is
 * skipped and counted in the dataset's stats. */
static infer8_status open_images(infer8_context *ctx, const char *src, uint64_t take, i8_dataset **ds, i8_err *err) {
    i8_dataset_options o;
    memset(&o, 0, sizeof o);
    o.take = take;
    o.max_member_bytes = ctx->limits.max_image_bytes;
    o.limits = &ctx->limits;
    o.on_issue = images_issue;
    o.user = ctx;
    return i8_dataset_open(ds, src, &o, err);
}

/* The samples a pass will go through at most, for progress (0: not known before reading, tar
 * shards without a take). */
static uint64_t images_expected(const i8_dataset *ds, uint64_t take) {
    const uint64_t listed = i8_dataset_entry_count(ds);
    if (!listed) return take;
    return take && take < listed ? take : listed;
}

/* A sample's name in messages: its file, or its key in its tar shard. */
static const char *sample_name(const i8_dataset *ds, const i8_sample *smp, char *buf, size_t size) {
    if (i8_dataset_get_layout(ds) != I8_DATASET_TAR) return smp->source;
    snprintf(buf, size, "%s: %s", smp->source, smp->key);
    return buf;
}

EXPORT infer8_status infer8_list_images(infer8_context *ctx, const char *src, char ***paths, size_t *count) {
    if (!ctx) return INFER8_E_INVALID_ARGUMENT;
    if (!src || !paths || !count) return ctx_bad(ctx, "infer8_list_images: NULL argument");
    *paths = NULL;
    *count = 0;
    i8_err err;
    i8_err_clear(&err);
    i8_dataset *ds = NULL;
    infer8_status s = open_images(ctx, src, 0, &ds, &err);
    if (!s && i8_dataset_get_layout(ds) == I8_DATASET_TAR)
        s = i8_fail(&err, INFER8_E_INVALID_ARGUMENT, "%s: webdataset tar shards hold members, not image files", src);
    const size_t n = s ? 0 : i8_dataset_entry_count(ds);
    /* class folders that are all empty, a list of comments: the dataset opens, with nothing in it */
    if (!s && !n) s = i8_fail(&err, INFER8_E_FORMAT, "%s: no .jpg, .jpeg, .png or .webp images", src);
    char **v = n ? i8_calloc(n, sizeof *v, &err) : NULL;
    if (n && !v) s = INFER8_E_NOMEM;
    for (size_t i = 0; i < n && !s; i++)
        if (!(v[i] = i8_strdup(i8_dataset_entry_path(ds, i), &err))) s = INFER8_E_NOMEM;
    if (ds) i8_dataset_close(ds);
    if (s) {
        infer8_free_paths(v, n);
        return i8_ctx_fail(ctx, &err);
    }
    *paths = v;
    *count = n;
    return INFER8_OK;
}

EXPORT void infer8_free_paths(char **paths, size_t count) {
    if (!paths) return;
    for (size_t i = 0; i < count; i++) free(paths[i]);
    free(paths);
}

/* One encoded image, decoded and preprocessed as the model's config says into dst (C x H x W floats). */
static infer8_status load_image(infer8_context *ctx, const infer8_model *m, const i8_sample *smp, const char *name,
                                float *dst, i8_err *err) {
    i8_err_clear(err);
    i8_image im = {0};
    infer8_status s = i8_image_decode(&im, smp->data, smp->size, name, &ctx->limits, err);
    if (!s) s = i8_preprocess(&im, &m->config.pre, dst, err);
    i8_image_free(&im);
    return s;
}

/* ---- calibration (histograms fed by i8_calib_collect_hook, quant/calibrate.h) ---- */

EXPORT void infer8_calibrate_options_init(infer8_calibrate_options *o) {
    if (!o) return;
    memset(o, 0, sizeof *o);
    o->struct_size = sizeof *o;
    o->count = 500;
    o->method = INFER8_CALIB_MAX;
    o->percentile = 99.99;
    o->batch = 8;
}

infer8_status i8_calib_backend(infer8_device device, i8_calib_collector *c, i8_backend_options *bo,
                               const i8_backend_ops **be, i8_err *err) {
    if (device == INFER8_DEVICE_CUDA) {
#ifdef INFER8_HAVE_CUDA
        bo->collect_hist = c->hist;
        *be = &i8_backend_cuda;
        return INFER8_OK;
#else
        return i8_fail(err, INFER8_E_UNSUPPORTED, "calibration on CUDA: this build has no CUDA backend");
#endif
    }
    (void)err;
#ifdef INFER8_HAVE_ONEDNN
    if (device == INFER8_DEVICE_CPU) {
        bo->collect_hist = c->hist; /* NULL: no statistics, logits only */
        *be = &i8_backend_cpu_onednn;
        return INFER8_OK;
    }
#endif
    if (c->hist) { /* without histograms (a study without FP8 variants) the pass only scores */
        bo->pre_node_hook = i8_calib_collect_hook;
        bo->hook_user = c;
    }
    *be = &i8_backend_cpu_reference;
    return INFER8_OK;
}

EXPORT void infer8_calibrate_report_init(infer8_calibrate_report *r) {
    if (!r) return;
    memset(r, 0, sizeof *r);
    r->struct_size = sizeof *r;
}

EXPORT infer8_status infer8_calibrate(infer8_context *ctx, infer8_model *m, const infer8_calibrate_options *options,
                                      const char *out_path) {
    if (!ctx || !m || !options || !out_path || !options->images)
        return ctx_bad(ctx, "infer8_calibrate: NULL argument (model, options, options->images and out_path are required)");
    infer8_calibrate_options o;
    infer8_calibrate_options_init(&o);
    memcpy(&o, options, options->struct_size < sizeof o ? options->struct_size : sizeof o);
    if (o.count < 0 || o.batch < 1 || o.batch > 4096 || (int)o.method < 0 || o.method > INFER8_CALIB_MSE ||
        (o.method == INFER8_CALIB_PERCENTILE && !(o.percentile > 0 && o.percentile <= 100)))
        return ctx_bad(ctx, "infer8_calibrate: count >= 0, batch in 1..4096, a known method and a percentile in "
                            "(0, 100] are required");
    i8_err err;
    i8_err_clear(&err);
    const i8_graph *g = &m->graph;
    for (int k = 0; k < g->n_nodes; k++)
        if (g->nodes[k].precision == I8_PREC_FP8) {
            i8_fail(&err, INFER8_E_INVALID_ARGUMENT, "%s: calibration needs the fp32 model, this one is FP8 (layer %s)",
                    m->source, g->nodes[k].name);
            return i8_ctx_fail(ctx, &err);
        }

    i8_dataset *ds = NULL;
    i8_calib_collector c = {0};
    const i8_backend_ops *be = &i8_backend_cpu_reference;
    void *bctx = NULL;
    float *batch = NULL, *logits = NULL;
    i8_scales sc;
    memset(&sc, 0, sizeof sc);
    infer8_calibrate_report rep;
    infer8_calibrate_report_init(&rep);
    const uint64_t take = o.count > 0 ? (uint64_t)o.count : 0;
    infer8_status s = open_images(ctx, o.images, take, &ds, &err);
    if (s) goto done;
    const uint64_t expected = images_expected(ds, take);
    if ((s = i8_calib_collector_init(&c, g, &err))) goto done;
    i8_backend_options bo;
    memset(&bo, 0, sizeof bo);
    bo.max_batch = o.batch;
    bo.threads = m->options.threads;
    if ((s = i8_calib_backend(m->options.device, &c, &bo, &be, &err))) goto done;
    snprintf(rep.executor, sizeof rep.executor, "%s", be->name);
    if ((s = be->prepare(&bctx, &m->graph, &bo, &err))) goto done;
    const size_t per_image = (size_t)g->input_c * g->input_h * g->input_w;
    if (!(batch = i8_calloc((size_t)o.batch, per_image * sizeof(float), &err)) ||
        !(logits = i8_calloc((size_t)o.batch, (size_t)m->config.num_classes * sizeof(float) + sizeof(float), &err))) {
        s = INFER8_E_NOMEM;
        goto done;
    }
    if (o.progress) o.progress(o.progress_user, "calibrate", 0, expected);
    int filled = 0, decode_failed = 0;
    for (int has = 1; has;) {
        i8_sample smp;
        if ((s = i8_dataset_next(ds, &smp, &has, &err))) goto done;
        if (has) {
            i8_err ie;
            char name[512];
            const char *nm = sample_name(ds, &smp, name, sizeof name);
            infer8_status is = load_image(ctx, m, &smp, nm, batch + (size_t)filled * per_image, &ie);
            if (is == INFER8_E_NOMEM) {
                err = ie;
                s = is;
                goto done;
            }
            if (is) {
                i8_ctx_log(ctx, 1, "calibrate: skipping %s: %s", nm, ie.msg);
                decode_failed++;
            } else {
                filled++;
            }
        }
        if (filled == o.batch || (!has && filled > 0)) {
            if ((s = be->run(bctx, filled, batch, logits, &err))) goto done;
            rep.images_used += filled;
            c.batch_id++;
            filled = 0;
        }
        if (o.progress && (filled == 0 || !has)) {
            const uint64_t passed = i8_dataset_get_stats(ds)->selected;
            o.progress(o.progress_user, "calibrate", passed, !has ? passed : expected); /* 0: not known yet */
        }
    }
    rep.images_skipped = decode_failed + (int)i8_dataset_get_stats(ds)->skipped;
    if (rep.images_used == 0) {
        s = i8_fail(&err, INFER8_E_INVALID_ARGUMENT, "%s: none of the %llu images could be read", o.images,
                    (unsigned long long)i8_dataset_get_stats(ds)->selected);
        goto done;
    }
    snprintf(sc.method, sizeof sc.method, "%s", i8_calib_method_name((i8_calib_method)o.method));
    sc.percentile = o.percentile;
    sc.images = (uint64_t)rep.images_used;
    for (int k = 0; k < g->n_nodes; k++) {
        if (!c.hist[k]) continue;
        float amax = 0;
        rep.nonfinite_values += c.hist[k]->nonfinite;
        if (c.hist[k]->nonfinite)
            i8_ctx_log(ctx, 1, "calibrate: tensor %s: %llu NaN/Inf values ignored", g->nodes[k].name,
                       (unsigned long long)c.hist[k]->nonfinite);
        if ((s = i8_calib_compute_amax(c.hist[k], (i8_calib_method)o.method, o.percentile, g->nodes[k].name, &amax,
                                       &err)) ||
            (s = i8_scales_add(&sc, g->nodes[k].name, amax, i8_fp8_scale_from_amax(amax), &err)))
            goto done;
        rep.tensors++;
    }
    if ((s = i8_scales_write(out_path, &sc, &err))) goto done;
    i8_ctx_log(ctx, 2, "calibrate: %d images (%d skipped), %d tensors, method %s -> %s", rep.images_used,
               rep.images_skipped, rep.tensors, sc.method, out_path);
    if (o.report && o.report->struct_size >= sizeof(uint32_t)) {
        size_t n = o.report->struct_size < sizeof rep ? o.report->struct_size : sizeof rep;
        uint32_t keep = o.report->struct_size;
        memcpy(o.report, &rep, n);
        o.report->struct_size = keep;
    }
done:
    if (bctx) be->destroy(bctx);
    i8_calib_collector_free(&c);
    free(batch);
    free(logits);
    i8_scales_free(&sc);
    if (ds) i8_dataset_close(ds);
    return s ? i8_ctx_fail(ctx, &err) : INFER8_OK;
}

/* ---- adaptive fp16 rounding at open ---- */

infer8_status i8_model_check_adaptive_rounding(const infer8_model *m, i8_err *err) {
    const cJSON *item = NULL;
    cJSON_ArrayForEach(item, m->adaptive_rounding) {
        const char *name = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(item, "name"));
        for (int k = 0; name && k < m->graph.n_nodes; k++)
            if (!strcmp(m->graph.nodes[k].name, name) && m->graph.nodes[k].precision == I8_PREC_FP8)
                return i8_fail(err, INFER8_E_INVALID_ARGUMENT,
                               "--adaptive-rounding: conv '%s' runs FP8 in this recipe (e4m3 weights); round fp16 convs only",
                               name);
    }
    return INFER8_OK;
}

#define ROUNDING_MAX_ULPS 2               /* how far a weight may move from its value, fp16 ulps */
#define ROUNDING_GRAM_BYTES (4ull << 30)  /* all selected convs' second moments held at once */

typedef struct rounding_collect {
    const uint8_t *select;
    int last;   /* the last selected node: the forward stops after it */
    double **H; /* per node: K x K, K = c_in * kh * kw */
} rounding_collect;

/* pre_node_hook: a selected conv's input patches into its second moments */
static infer8_status rounding_hook(void *user, i8_graph *g, int node, int n, const float *const *inputs, i8_err *err) {
    rounding_collect *rc = user;
    if (node > rc->last) return I8_HOOK_STOP;
    if (!rc->select[node]) return INFER8_OK;
    const i8_node *nd = &g->nodes[node], *in = &g->nodes[nd->inputs[0]];
    const i8_patch_shape ps = {in->c, in->h, in->w, nd->kh, nd->kw, nd->sh, nd->sw, nd->ph, nd->pw, nd->h, nd->w};
    return i8_patch_gram_add(&ps, n, inputs[0], rc->H[node], err);
}

infer8_status i8_model_apply_adaptive_rounding(infer8_model *m, infer8_context *ctx, i8_err *err) {
    const char *spec = m->options.adaptive_rounding, *src = m->options.adaptive_rounding_images;
    const int want = m->options.adaptive_rounding_count > 0 ? m->options.adaptive_rounding_count : 16;
    m->options.adaptive_rounding = m->options.adaptive_rounding_images = NULL; /* not owned */
    if (!spec) return INFER8_OK;
    if (m->bundle)
        return i8_fail(err, INFER8_E_INVALID_ARGUMENT,
                       "%s: --adaptive-rounding applies to checkpoints; a bundle keeps the weights it was built with",
                       m->source);
    if (!src)
        return i8_fail(err, INFER8_E_INVALID_ARGUMENT,
                       "--adaptive-rounding needs calibration images (--rounding-images: a folder or a list file)");
    if (m->options.split_weights)
        return i8_fail(err, INFER8_E_INVALID_ARGUMENT,
                       "--adaptive-rounding and --split-weights do not combine: use one of the two");
    i8_graph *g = &m->graph;
    uint8_t *select = NULL;
    int count = 0;
    infer8_status s = i8_conv_select(g, "--adaptive-rounding", spec, &select, &count, err);
    if (s) return s;
    rounding_collect rc = {select, -1, NULL};
    for (int k = 0; k < g->n_nodes; k++)
        if (select[k]) rc.last = k;
    i8_dataset *ds = NULL;
    const i8_backend_ops *be = &i8_backend_cpu_reference;
    void *bctx = NULL;
    float *batch = NULL, *logits = NULL;
    cJSON *report = NULL;
    /* the checkpoint is fp32 here (FP8 quantization comes after: i8_model_check_adaptive_rounding) */
    unsigned long long gram_bytes = 0;
    for (int k = 0; k < g->n_nodes && !s; k++) {
        if (!select[k]) continue;
        const i8_node *nd = &g->nodes[k];
        const i8_weight *w = &g->weights[nd->weight];
        const unsigned long long K = (unsigned long long)g->nodes[nd->inputs[0]].c * nd->kh * nd->kw;
        if (w->ndim != 4 || (unsigned long long)(w->shape[1] * w->shape[2] * w->shape[3]) != K)
            s = i8_fail(err, INFER8_E_INTERNAL, "--adaptive-rounding: conv '%s': kernel shape differs from its input",
                        nd->name);
        gram_bytes += K * K * sizeof(double);
    }
    if (!s && gram_bytes > ROUNDING_GRAM_BYTES)
        s = i8_fail(err, INFER8_E_LIMIT, "--adaptive-rounding \"%s\": the %d convs' input statistics need %.1f GiB (at most %.0f); select fewer",
                    spec, count, gram_bytes / 1073741824.0, ROUNDING_GRAM_BYTES / 1073741824.0);
    if (!s && !(rc.H = i8_calloc((size_t)g->n_nodes, sizeof *rc.H, err))) s = INFER8_E_NOMEM;
    for (int k = 0; k < g->n_nodes && !s; k++) {
        if (!select[k]) continue;
        const i8_weight *w = &g->weights[g->nodes[k].weight];
        const size_t K = (size_t)(w->shape[1] * w->shape[2] * w->shape[3]);
        if (!(rc.H[k] = i8_calloc(K * K, sizeof(double), err))) s = INFER8_E_NOMEM;
    }
    if (!s) s = open_images(ctx, src, (uint64_t)want, &ds, err);
    const int max_batch = 4;
    const size_t per_image = (size_t)g->input_c * g->input_h * g->input_w;
    i8_backend_options bo;
    memset(&bo, 0, sizeof bo);
    bo.max_batch = max_batch;
    bo.threads = m->options.threads;
    bo.pre_node_hook = rounding_hook;
    bo.hook_user = &rc;
    if (!s && (!(batch = i8_calloc((size_t)max_batch, per_image * sizeof(float), err)) ||
               !(logits = i8_calloc((size_t)max_batch, (size_t)m->config.num_classes * sizeof(float), err))))
        s = INFER8_E_NOMEM;
    if (!s) s = be->prepare(&bctx, g, &bo, err);
    int used = 0, filled = 0;
    for (int has = 1; has && !s;) {
        i8_sample smp;
        if ((s = i8_dataset_next(ds, &smp, &has, err))) break;
        /* a calibration set with unreadable images is refused: they would change the weights */
        if (i8_dataset_get_stats(ds)->skipped) {
            const char *why = i8_dataset_issue(ds, (size_t)i8_dataset_get_stats(ds)->issues - 1);
            s = i8_fail(err, INFER8_E_FORMAT, "--adaptive-rounding images: %s", why ? why : "an image could not be read");
            break;
        }
        if (has) {
            char name[512];
            if ((s = load_image(ctx, m, &smp, sample_name(ds, &smp, name, sizeof name), batch + (size_t)filled * per_image,
                                err)))
                break;
            filled++;
        }
        if (filled == max_batch || (!has && filled > 0)) {
            s = be->run(bctx, filled, batch, logits, err);
            used += filled;
            filled = 0;
            i8_ctx_log(ctx, 2, "adaptive rounding: %d images measured", used);
        }
    }
    if (!s && used == 0) s = i8_fail(err, INFER8_E_INVALID_ARGUMENT, "%s: no images for --adaptive-rounding", src);
    if (!s && !(report = cJSON_CreateArray())) s = i8_fail(err, INFER8_E_NOMEM, "out of memory");
    for (int k = 0; k < g->n_nodes && !s; k++) {
        if (!select[k]) continue;
        const i8_node *nd = &g->nodes[k];
        i8_weight *w = &g->weights[nd->weight];
        const int O = (int)w->shape[0], K = (int)(w->shape[1] * w->shape[2] * w->shape[3]);
        i8_fp16_round_report r;
        if ((s = i8_fp16_round_adaptive(w->data, O, K, rc.H[k], ROUNDING_MAX_ULPS, &r, err))) {
            i8_err_prefix(err, "--adaptive-rounding: conv '%s'", nd->name);
            break;
        }
        const double ratio = r.error_nearest > 0 ? r.error_adaptive / r.error_nearest : 1.0;
        i8_ctx_log(ctx, 2,
                   "adaptive rounding: %s (K %d): output error on the calibration images %.3g x round-to-nearest's, %d of %d weights moved, "
                   "damp %g, %d dead inputs",
                   nd->name, K, ratio, r.moved, O * K, r.damp, r.dead_inputs);
        cJSON *o = cJSON_CreateObject();
        if (!o || !cJSON_AddStringToObject(o, "name", nd->name) ||
            !cJSON_AddNumberToObject(o, "error_vs_nearest", ratio) || !cJSON_AddNumberToObject(o, "moved", r.moved) ||
            !cJSON_AddNumberToObject(o, "images", used) || !cJSON_AddItemToArray(report, o)) {
            cJSON_Delete(o);
            s = i8_fail(err, INFER8_E_NOMEM, "out of memory");
        }
    }
    if (!s) {
        m->adaptive_rounding = report;
        report = NULL;
        i8_ctx_log(ctx, 2, "adaptive rounding: %d convs rounded on %d images (%s)", count, used, src);
    }
    if (bctx) be->destroy(bctx);
    if (rc.H)
        for (int k = 0; k < g->n_nodes; k++) free(rc.H[k]);
    free(rc.H);
    free(select);
    free(batch);
    free(logits);
    cJSON_Delete(report);
    if (ds) i8_dataset_close(ds);
    return s;
}
