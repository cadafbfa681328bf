/* Public API (include/infer8.h): contexts, models, preprocessing, classification, top-k.
 * Thin: it validates arguments, converts internal i8_err records into the context's message,
 * and delegates to formats, families, graph passes, image and backends. */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "api/model.h"
#include "core/text.h"
#include "formats/bundle.h"
#include "image/image.h"

#define EXPORT __attribute__((visibility("default")))

EXPORT const char *infer8_version(void) { return INFER8_VERSION_STRING; }

EXPORT const char *infer8_status_string(infer8_status s) {
    switch (s) {
    case INFER8_OK: return "ok";
    case INFER8_E_INVALID_ARGUMENT: return "invalid argument";
    case INFER8_E_IO: return "i/o error";
    case INFER8_E_FORMAT: return "format error";
    case INFER8_E_SHAPE: return "shape error";
    case INFER8_E_MISSING_KEY: return "missing key";
    case INFER8_E_UNSUPPORTED: return "unsupported";
    case INFER8_E_NOMEM: return "out of memory";
    case INFER8_E_LIMIT: return "limit exceeded";
    case INFER8_E_INTEGRITY: return "integrity check failed";
    case INFER8_E_DEVICE: return "device error";
    case INFER8_E_INTERNAL: return "internal error";
    }
    return "unknown status";
}

/* ---- context ---- */

EXPORT infer8_context *infer8_context_new(void) {
    infer8_context *ctx = calloc(1, sizeof *ctx);
    if (!ctx) return NULL;
    i8_limits_default(&ctx->limits);
    return ctx;
}

EXPORT void infer8_context_free(infer8_context *ctx) { free(ctx); }

EXPORT const char *infer8_errmsg(const infer8_context *ctx) { return ctx ? ctx->err.msg : "no context"; }

EXPORT infer8_status infer8_errcode(const infer8_context *ctx) { return ctx ? ctx->err.code : INFER8_E_INVALID_ARGUMENT; }

EXPORT void infer8_set_log(infer8_context *ctx, infer8_log_fn fn, void *user, int max_level) {
    if (!ctx) return;
    ctx->log_fn = fn;
    ctx->log_user = user;
    ctx->log_max_level = max_level;
}

infer8_status i8_ctx_fail(infer8_context *ctx, const i8_err *err) {
    if (ctx && err) ctx->err = *err;
    return err ? err->code : INFER8_E_INTERNAL;
}

void i8_ctx_log(infer8_context *ctx, int level, const char *fmt, ...) {
    if (!ctx || !ctx->log_fn || level > ctx->log_max_level) return;
    char buf[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    ctx->log_fn(ctx->log_user, level, buf);
}

static const i8_backend_ops *backend_for(infer8_device d) {
    switch (d) {
    case INFER8_DEVICE_CPU_REFERENCE: return &i8_backend_cpu_reference;
    case INFER8_DEVICE_CPU:
#ifdef INFER8_HAVE_ONEDNN
        return &i8_backend_cpu_onednn;
#else
        return &i8_backend_cpu_reference;
#endif
    case INFER8_DEVICE_CUDA:
#ifdef INFER8_HAVE_CUDA
        return &i8_backend_cuda;
#else
        return NULL;
#endif
    }
    return NULL;
}

/* Options that only the reference executor honours: another device refuses them at open rather
 * than ignore them. */
static infer8_status check_reference_only(const infer8_model *m, i8_err *err) {
    const struct {
        int set;
        const char *name;
    } opts[] = {{m->options.fp16_activations, "fp16_activations"}, {m->options.accumulate_fp64, "accumulate_fp64"}};
    if (m->options.device == INFER8_DEVICE_CPU_REFERENCE) return INFER8_OK;
    for (size_t k = 0; k < sizeof opts / sizeof opts[0]; k++)
        if (opts[k].set)
            return i8_fail(err, INFER8_E_INVALID_ARGUMENT,
                           "%s applies to the reference executor (--device ref), not to the %s device", opts[k].name,
                           m->options.device == INFER8_DEVICE_CUDA ? "cuda" : "cpu (oneDNN)");
    return INFER8_OK;
}

/* Fails unless backend ops runs every layer of m, naming the file and the first layer it cannot
 * run (an FP8 layer gets a hint where FP8 runs). */
static infer8_status check_backend_runs_all(const infer8_model *m, const i8_backend_ops *ops, i8_err *err) {
    for (int i = 0; i < m->graph.n_nodes; i++) {
        const i8_node *nd = &m->graph.nodes[i];
        if (ops->supports_node(&m->graph, nd)) continue;
        if (i8_node_reads_fp8(nd))
            return i8_fail(err, INFER8_E_UNSUPPORTED, "%s: layer '%s' is FP8, which the %s backend cannot run",
                           m->source, nd->name, ops->name);
        return i8_fail(err, INFER8_E_UNSUPPORTED, "%s: backend %s cannot run layer '%s' (%s)", m->source, ops->name,
                       nd->name, i8_op_name(nd->op));
    }
    return INFER8_OK;
}

/* The device's backend is checked once, at open (its supports_node needs no device), so that a
 * model with a layer the backend cannot run is refused with its file and layer named rather
 * than at the first classify. A build without the device's backend says so
 * when the backend is first needed (i8_model_ensure_backend). */
static infer8_status check_device_backend(const infer8_model *m, i8_err *err) {
    const i8_backend_ops *ops = backend_for(m->options.device);
    return ops ? check_backend_runs_all(m, ops, err) : INFER8_OK;
}

infer8_status i8_ctx_bad_arg(infer8_context *ctx, const char *what) {
    i8_err e;
    i8_fail(&e, INFER8_E_INVALID_ARGUMENT, "%s", what);
    return i8_ctx_fail(ctx, &e);
}

EXPORT void infer8_limits_init(infer8_limits *l) {
    if (!l) return;
    memset(l, 0, sizeof *l);
    l->struct_size = sizeof *l;
}

EXPORT infer8_status infer8_set_limits(infer8_context *ctx, const infer8_limits *l) {
    if (!ctx || !l || l->struct_size < offsetof(infer8_limits, max_image_bytes) + sizeof(uint64_t))
        return i8_ctx_bad_arg(ctx, "infer8_set_limits: limits struct missing or too small");
    if (l->max_json_bytes) ctx->limits.max_json_bytes = l->max_json_bytes;
    if (l->max_tensors) ctx->limits.max_tensors = l->max_tensors;
    if (l->max_image_pixels) ctx->limits.max_image_pixels = l->max_image_pixels;
    if (l->max_image_bytes) ctx->limits.max_image_bytes = l->max_image_bytes;
    return INFER8_OK;
}

/* ---- models ---- */

EXPORT void infer8_open_options_init(infer8_open_options *o) {
    if (!o) return;
    memset(o, 0, sizeof *o);
    o->struct_size = sizeof *o;
    o->device = INFER8_DEVICE_CPU_REFERENCE;
    o->max_batch = 32;
    o->opt_level = 2;
}

infer8_status i8_opt_level_check(int opt_level, const char *who, i8_err *err) {
    if (opt_level >= 0 && opt_level <= INFER8_OPT_LEVEL_MAX) return INFER8_OK;
    return i8_fail(err, INFER8_E_INVALID_ARGUMENT, "%s: opt_level %d is not in 0..%d", who, opt_level,
                   INFER8_OPT_LEVEL_MAX);
}

double i8_opt_level_cudnn_budget(int opt_level) {
    switch (opt_level) {
    case 0: return -1.0; /* no cuDNN plans */
    case 1: return 10.0;
    case 3: return 1e9;  /* every configuration */
    default: return 0.0; /* level 2: the backend's default, I8_CUDNN_BUDGET_DEFAULT_S */
    }
}

static void model_free(infer8_model *m) {
    if (!m) return;
    if (m->backend && m->backend_ctx) m->backend->destroy(m->backend_ctx);
    i8_graph_free(&m->graph);
    i8_bundle_model_free(m->bundle);
    cJSON_Delete(m->adaptive_rounding);
    i8_config_free(&m->config);
    if (m->fallback_labels) {
        for (int i = 0; i < m->config.num_classes; i++) free(m->fallback_labels[i]);
        free(m->fallback_labels);
    }
    pthread_mutex_destroy(&m->lock);
    free(m->source);
    free(m);
}

/* The caller's options (given, struct_size as the caller compiled it) and their copy over the
 * defaults (copy): a struct older than the first release's base fields, or values out of range,
 * are refused rather than run with a guess. */
static infer8_status check_open_options(const infer8_open_options *given, const infer8_open_options *copy, i8_err *err) {
    const size_t base = offsetof(infer8_open_options, max_batch) + sizeof(int);
    if (given->struct_size < base)
        return i8_fail(err, INFER8_E_INVALID_ARGUMENT,
                       "infer8_model_open: options struct_size %u is below the smallest layout (%zu bytes); "
                       "call infer8_open_options_init first",
                       given->struct_size, base);
    if ((int)copy->device < INFER8_DEVICE_CPU_REFERENCE || copy->device > INFER8_DEVICE_CUDA)
        return i8_fail(err, INFER8_E_INVALID_ARGUMENT, "infer8_model_open: device %d unknown", (int)copy->device);
    if (copy->threads < 0)
        return i8_fail(err, INFER8_E_INVALID_ARGUMENT, "infer8_model_open: threads %d is negative (0 = all cores)",
                       copy->threads);
    if (copy->max_batch < 0 || copy->max_batch > 4096)
        return i8_fail(err, INFER8_E_INVALID_ARGUMENT, "infer8_model_open: max_batch %d is not in 1..4096 (0 = 32)",
                       copy->max_batch);
    return INFER8_OK;
}

/* Shared by infer8_model_open (path) and infer8_model_open_memory (data, size; path NULL). */
static infer8_status model_open(infer8_context *ctx, const char *path, const void *data, size_t size,
                                const infer8_open_options *options, infer8_model **out) {
    i8_err err;
    i8_err_clear(&err);
    infer8_model *m = i8_calloc(1, sizeof *m, &err);
    if (!m) return i8_ctx_fail(ctx, &err);
    pthread_mutex_init(&m->lock, NULL);
    infer8_open_options_init(&m->options);
    infer8_status s = INFER8_OK;
    if (options) {
        size_t n = options->struct_size < sizeof m->options ? options->struct_size : sizeof m->options;
        memcpy(&m->options, options, n);
        m->options.struct_size = sizeof m->options;
        s = check_open_options(options, &m->options, &err);
        if (m->options.max_batch == 0) m->options.max_batch = 32;
    }
    m->limits = ctx->limits;
    m->source = i8_strdup(path ? path : "(memory)", &err);
    if (!s && !m->source) s = INFER8_E_NOMEM;
    if (!s) s = i8_opt_level_check(m->options.opt_level, "open", &err);
    if (!s) s = check_reference_only(m, &err);
    if (!s && !path) {
        s = i8_bundle_load(m, ctx, data, size, "(memory)", &err);
    } else if (!s && i8_bundle_path_has_magic(path)) {
        i8_mapped_file map;
        s = i8_map_file(path, &map, &err);
        if (!s) {
            s = i8_bundle_load(m, ctx, map.data, map.size, path, &err);
            i8_unmap_file(&map);
        }
    } else if (!s) {
        s = i8_checkpoint_load(path, m->options.arch, &m->limits, &m->config, &m->family, &m->graph,
                               I8_CKPT_OPTIMIZE | (m->options.allow_nonfinite ? I8_CKPT_ALLOW_NONFINITE : 0), &err);
    }
    /* adaptive rounding first: FP8 quantization rounds the convs it keeps in fp16 to nearest */
    if (!s) s = i8_model_apply_adaptive_rounding(m, ctx, &err);
    if (!s) s = i8_model_apply_fp8(m, &err); /* open options precision fp8 (calibrate_api.c) */
    if (!s) s = i8_model_check_adaptive_rounding(m, &err);
    if (!s) s = i8_model_apply_split_weights(m, &err);
    if (!s) s = check_device_backend(m, &err);
    if (s) {
        model_free(m);
        return i8_ctx_fail(ctx, &err);
    }
    m->options.arch = NULL; /* not owned */
    i8_ctx_log(ctx, 2, "opened %s (%s, %d layers)", m->source, m->family->arch, m->graph.n_nodes);
    *out = m;
    return INFER8_OK;
}

EXPORT infer8_status infer8_model_open(infer8_context *ctx, const char *path, const infer8_open_options *options,
                                       infer8_model **out) {
    if (!ctx || !path || !out) return i8_ctx_bad_arg(ctx, "infer8_model_open: NULL argument");
    return model_open(ctx, path, NULL, 0, options, out);
}

EXPORT infer8_status infer8_model_open_memory(infer8_context *ctx, const void *data, size_t size,
                                              const infer8_open_options *options, infer8_model **out) {
    if (!ctx || !data || !out) return i8_ctx_bad_arg(ctx, "infer8_model_open_memory: NULL argument");
    return model_open(ctx, NULL, data, size, options, out);
}

EXPORT void infer8_model_close(infer8_model *model) { model_free(model); }

EXPORT void infer8_model_info_init(infer8_model_info *info) {
    if (!info) return;
    memset(info, 0, sizeof *info);
    info->struct_size = sizeof *info;
}

EXPORT infer8_status infer8_model_get_info(const infer8_model *m, infer8_model_info *info) {
    if (!m || !info || info->struct_size < sizeof(uint32_t)) return INFER8_E_INVALID_ARGUMENT;
    infer8_model_info full;
    memset(&full, 0, sizeof full);
    full.struct_size = info->struct_size;
    full.arch = m->family->arch;
    full.source = m->source;
    full.num_classes = m->config.num_classes;
    full.num_features = m->config.num_features;
    full.input_channels = m->config.pre.input_size[0];
    full.input_height = m->config.pre.input_size[1];
    full.input_width = m->config.pre.input_size[2];
    full.crop_pct = m->config.pre.crop_pct;
    full.interpolation = m->config.pre.interpolation == I8_INTERP_BILINEAR ? INFER8_INTERP_BILINEAR
                                                                           : INFER8_INTERP_BICUBIC;
    memcpy(full.mean, m->config.pre.mean, sizeof full.mean);
    memcpy(full.std, m->config.pre.std, sizeof full.std);
    i8_graph_stats st;
    i8_graph_compute_stats(&m->graph, &st);
    full.num_layers = m->graph.n_nodes;
    full.num_convolutions = st.convolutions;
    full.num_parameters = m->graph.checkpoint_parameters;
    full.macs_per_image = st.macs;
    i8_bundle_fill_info(m, &full);
    size_t n = info->struct_size < sizeof full ? info->struct_size : sizeof full;
    memcpy(info, &full, n);
    return INFER8_OK;
}

EXPORT int infer8_model_num_classes(const infer8_model *m) { return m ? m->config.num_classes : 0; }

EXPORT const char *infer8_model_label(const infer8_model *m, int index) {
    if (!m || index < 0 || index >= m->config.num_classes) return "(invalid class)";
    if (m->config.n_labels == m->config.num_classes) return m->config.labels[index];
    if (m->config.num_classes == 1000) return i8_imagenet_labels[index];
    return "(unnamed class)";
}

#ifdef INFER8_HAVE_CUDA
/* describe's memory section: the activation arena the CUDA executor plans for the model at its
 * max batch (computed on the host; no GPU needed), as "memory": {"cuda": {...}} in the JSON or a
 * line after the text; a graph the CUDA backend cannot plan gets its reason instead. */
typedef struct cuda_memory {
    int max_batch, planned;
    uint64_t bytes;
    i8_err why;
} cuda_memory;

static cuda_memory plan_cuda_memory(const infer8_model *m) {
    cuda_memory c = {.max_batch = m->options.max_batch > 0 ? m->options.max_batch : 32};
    i8_err_clear(&c.why);
    c.planned = i8_backend_cuda.plan_memory(&m->graph, c.max_batch, &c.bytes, &c.why) == INFER8_OK;
    return c;
}

static int describe_memory_json(const infer8_model *m, cJSON *root) {
    const cuda_memory c = plan_cuda_memory(m);
    cJSON *mem = cJSON_AddObjectToObject(root, "memory");
    cJSON *cu = mem ? cJSON_AddObjectToObject(mem, "cuda") : NULL;
    return cu && cJSON_AddNumberToObject(cu, "max_batch", c.max_batch) &&
           (c.planned ? cJSON_AddNumberToObject(cu, "activation_arena_bytes", (double)c.bytes) != NULL
                      : cJSON_AddStringToObject(cu, "error", c.why.msg) != NULL);
}

static void describe_memory_text(const infer8_model *m, i8_strbuf *b) {
    const cuda_memory c = plan_cuda_memory(m);
    if (c.planned)
        i8_strbuf_printf(b, "memory (CUDA executor, max batch %d): activation arena %llu bytes (%.1f MiB)\n", c.max_batch,
                         (unsigned long long)c.bytes, (double)c.bytes / 1048576.0);
    else
        i8_strbuf_printf(b, "memory (CUDA executor, max batch %d): not planned: %s\n", c.max_batch, c.why.msg);
}
#endif

/* JSON: one tree (graph, bundle, memory), printed once */
static infer8_status describe_json(const infer8_model *m, char **out, i8_err *err) {
    cJSON *root = i8_graph_describe_tree(&m->graph, err);
    if (!root) return err->code;
    int ok = !m->bundle || i8_bundle_describe_json(m, root);
#ifdef INFER8_HAVE_CUDA
    ok = ok && describe_memory_json(m, root);
#endif
    char *text = ok ? i8_json_print(root, 0) : NULL;
    cJSON_Delete(root);
    if (!text) return i8_fail(err, INFER8_E_NOMEM, "describe: out of memory");
    *out = text;
    return INFER8_OK;
}

static infer8_status describe_text(const infer8_model *m, char **out, i8_err *err) {
    char *doc = NULL;
    infer8_status s = i8_graph_describe_text(&m->graph, &doc, err);
    if (!s && m->bundle) {
        char *with_bundle = NULL;
        s = i8_bundle_describe_text(m, doc, &with_bundle, err);
        free(doc);
        doc = with_bundle;
    }
    if (s) return s;
#ifdef INFER8_HAVE_CUDA
    i8_strbuf b = {.s = doc, .len = strlen(doc), .cap = strlen(doc) + 1};
    describe_memory_text(m, &b);
    if (b.oom) {
        free(b.s);
        return i8_fail(err, INFER8_E_NOMEM, "describe: out of memory");
    }
    doc = b.s;
#endif
    *out = doc;
    return INFER8_OK;
}

EXPORT infer8_status infer8_model_describe(infer8_context *ctx, const infer8_model *m, infer8_describe_format format,
                                           char **out) {
    if (!ctx || !m || !out) return i8_ctx_bad_arg(ctx, "infer8_model_describe: NULL argument");
    if (format != INFER8_DESCRIBE_TEXT && format != INFER8_DESCRIBE_JSON)
        return i8_ctx_bad_arg(ctx, "infer8_model_describe: format is neither INFER8_DESCRIBE_TEXT nor INFER8_DESCRIBE_JSON");
    i8_err err;
    i8_err_clear(&err);
    char *doc = NULL;
    infer8_status s = format == INFER8_DESCRIBE_JSON ? describe_json(m, &doc, &err) : describe_text(m, &doc, &err);
    if (s) return i8_ctx_fail(ctx, &err);
    *out = doc;
    return INFER8_OK;
}

EXPORT void infer8_free(void *p) { free(p); }

EXPORT infer8_status infer8_write_file(infer8_context *ctx, const char *path, const void *data, size_t size) {
    if (!ctx || !path || (!data && size)) return i8_ctx_bad_arg(ctx, "infer8_write_file: path or data missing");
    i8_err err;
    i8_err_clear(&err);
    infer8_status s = i8_write_file_atomic(path, data, size, &err);
    return s ? i8_ctx_fail(ctx, &err) : INFER8_OK;
}

EXPORT size_t infer8_utf8_valid_length(const char *s, size_t n) {
    if (!s) return 0;
    size_t bad = i8_utf8_check(s, n);
    return bad == SIZE_MAX ? n : bad;
}

/* ---- preprocessing ---- */

static infer8_status preprocess_image(infer8_context *ctx, const infer8_model *m, const i8_image *im, float *out) {
    i8_err err;
    i8_err_clear(&err);
    infer8_status s = i8_preprocess(im, &m->config.pre, out, &err);
    return s ? i8_ctx_fail(ctx, &err) : INFER8_OK;
}

EXPORT infer8_status infer8_preprocess_encoded(infer8_context *ctx, const infer8_model *m, const void *data,
                                               size_t size, float *out) {
    if (!ctx || !m || !data || !out) return i8_ctx_bad_arg(ctx, "infer8_preprocess_encoded: NULL argument");
    i8_err err;
    i8_err_clear(&err);
    i8_image im = {0};
    infer8_status s = i8_image_decode(&im, data, size, "image", &ctx->limits, &err);
    if (s) return i8_ctx_fail(ctx, &err);
    s = preprocess_image(ctx, m, &im, out);
    i8_image_free(&im);
    return s;
}

/* Refuses (INFER8_E_LIMIT on the context) an RGB8 image above the context's pixel limit. */
static int rgb8_over_limit(infer8_context *ctx, int width, int height) {
    if ((uint64_t)width * (uint64_t)height <= ctx->limits.max_image_pixels) return 0;
    i8_err e;
    i8_fail(&e, INFER8_E_LIMIT, "image of %dx%d pixels is above the limit of %llu pixels", width, height,
            (unsigned long long)ctx->limits.max_image_pixels);
    i8_ctx_fail(ctx, &e);
    return 1;
}

/* Caller's rows (stride bytes apart) into im, allocated at the same size */
static void rgb8_copy(i8_image *im, const uint8_t *pixels, size_t stride) {
    for (int y = 0; y < im->height; y++)
        memcpy(im->rgb + (size_t)y * im->width * 3, pixels + (size_t)y * stride, (size_t)im->width * 3);
}

EXPORT infer8_status infer8_preprocess_rgb8(infer8_context *ctx, const infer8_model *m, const uint8_t *pixels,
                                            int width, int height, size_t stride, float *out) {
    if (!ctx || !m || !pixels || !out || width <= 0 || height <= 0 || stride < (size_t)width * 3)
        return i8_ctx_bad_arg(ctx, "infer8_preprocess_rgb8: bad argument (NULL pointer, size or stride)");
    if (rgb8_over_limit(ctx, width, height)) return ctx->err.code;
    i8_err err;
    i8_err_clear(&err);
    i8_image im = {0};
    if (i8_image_alloc(&im, width, height, &err)) return i8_ctx_fail(ctx, &err);
    rgb8_copy(&im, pixels, stride);
    infer8_status s = preprocess_image(ctx, m, &im, out);
    i8_image_free(&im);
    return s;
}

/* An encoded image decoded (within limits), resized and center cropped to uint8 HWC */
static infer8_status decode_crop_u8(const infer8_model *m, const void *data, size_t size, const i8_limits *limits,
                                    uint8_t *out, i8_err *err) {
    i8_image im = {0};
    infer8_status s = i8_image_decode(&im, data, size, "image", limits, err);
    if (!s) s = i8_preprocess_crop_u8(&im, &m->config.pre, out, err);
    i8_image_free(&im);
    return s;
}

EXPORT infer8_status infer8_preprocess_encoded_u8(infer8_context *ctx, const infer8_model *m, const void *data,
                                                  size_t size, uint8_t *out) {
    if (!ctx || !m || !data || !out) return i8_ctx_bad_arg(ctx, "infer8_preprocess_encoded_u8: NULL argument");
    i8_err err;
    i8_err_clear(&err);
    return decode_crop_u8(m, data, size, &ctx->limits, out, &err) ? i8_ctx_fail(ctx, &err) : INFER8_OK;
}

/* ---- classification ---- */

/* Prepares the executor on first use. Caller holds m->lock. */
infer8_status i8_model_ensure_backend(infer8_model *m, i8_err *err) {
    if (m->backend_ctx) return INFER8_OK;
    const i8_backend_ops *ops = backend_for(m->options.device);
    if (!ops) return i8_fail(err, INFER8_E_UNSUPPORTED, "this build of infer8 has no CUDA backend");
    /* every layer was checked against this backend at open (check_device_backend); neither the
     * graph nor the device changes after open */
    i8_backend_options bo;
    memset(&bo, 0, sizeof bo);
    bo.max_batch = m->options.max_batch;
    bo.threads = m->options.threads;
    bo.accumulate_fp64 = m->options.accumulate_fp64;
    bo.f16_activations = m->options.fp16_activations;
    bo.cudnn_budget_s = i8_opt_level_cudnn_budget(m->options.opt_level);
    infer8_status s = ops->prepare(&m->backend_ctx, &m->graph, &bo, err);
    if (s) {
        m->backend_ctx = NULL;
        return s;
    }
    m->backend = ops;
    return i8_bundle_after_prepare(m, err);
}

/* n images through m's ready backend, max_batch at a time (the caller holds m->lock): floats
 * (input), or uint8 crops (crops) that the backend normalizes (run_u8) or, when it cannot take
 * bytes, this loop does into chunk (room for one batch) */
static infer8_status run_batches(infer8_model *m, int n, const float *input, const uint8_t *crops, float *chunk,
                                 float *logits, i8_err *err) {
    const i8_graph *g = &m->graph;
    const size_t per_image = (size_t)g->input_c * g->input_h * g->input_w;
    const float *mean = m->config.pre.mean, *std = m->config.pre.std;
    infer8_status s = INFER8_OK;
    for (int done = 0; !s && done < n;) {
        const int b = n - done < m->options.max_batch ? n - done : m->options.max_batch;
        float *y = logits + (size_t)done * m->config.num_classes;
        if (!crops) {
            s = m->backend->run(m->backend_ctx, b, input + (size_t)done * per_image, y, err);
        } else if (m->backend->run_u8) {
            s = m->backend->run_u8(m->backend_ctx, b, crops + (size_t)done * per_image, mean, std, y, err);
        } else {
            for (int k = 0; k < b; k++)
                i8_normalize_u8(crops + (size_t)(done + k) * per_image, g->input_h, g->input_w, mean, std,
                                chunk + (size_t)k * per_image);
            s = m->backend->run(m->backend_ctx, b, chunk, y, err);
        }
        done += b;
    }
    return s;
}

EXPORT infer8_status infer8_classify_tensor(infer8_context *ctx, infer8_model *m, int n, const float *input,
                                            float *logits) {
    if (!ctx || !m || !input || !logits || n <= 0) return i8_ctx_bad_arg(ctx, "infer8_classify_tensor: bad argument");
    i8_err err;
    i8_err_clear(&err);
    pthread_mutex_lock(&m->lock);
    infer8_status s = i8_model_ensure_backend(m, &err);
    if (!s) s = run_batches(m, n, input, NULL, NULL, logits, &err);
    pthread_mutex_unlock(&m->lock);
    return s ? i8_ctx_fail(ctx, &err) : INFER8_OK;
}

EXPORT infer8_status infer8_classify_u8(infer8_context *ctx, infer8_model *m, int n, const uint8_t *crops,
                                        float *logits) {
    if (!ctx || !m || !crops || !logits || n <= 0) return i8_ctx_bad_arg(ctx, "infer8_classify_u8: bad argument");
    i8_err err;
    i8_err_clear(&err);
    const i8_graph *g = &m->graph;
    if (g->input_c != 3) {
        i8_fail(&err, INFER8_E_UNSUPPORTED, "infer8_classify_u8: the model takes %d input channels, not RGB", g->input_c);
        return i8_ctx_fail(ctx, &err);
    }
    float *chunk = NULL; /* the normalized floats of one batch, when the executor cannot take bytes */
    pthread_mutex_lock(&m->lock);
    infer8_status s = i8_model_ensure_backend(m, &err);
    if (!s && !m->backend->run_u8) {
        const size_t batch = (size_t)(n < m->options.max_batch ? n : m->options.max_batch);
        chunk = i8_malloc((size_t)3 * g->input_h * g->input_w * sizeof(float) * batch, &err);
        if (!chunk) s = err.code;
    }
    if (!s) s = run_batches(m, n, NULL, crops, chunk, logits, &err);
    pthread_mutex_unlock(&m->lock);
    free(chunk);
    return s ? i8_ctx_fail(ctx, &err) : INFER8_OK;
}

/* The encoded and RGB8 entry points crop to bytes and go through infer8_classify_u8: on the GPU
 * a quarter of the float input's bytes travels and the GPU normalizes. Decoding and resizing
 * run on up to `threads` CPU threads (the model's option; 0 = all cores), one image each in
 * turn: for a batch on the GPU they take far longer than the forward. */
typedef struct crop_job {
    const infer8_model *m;
    const i8_limits *limits;
    int n, next;           /* images; the next one to take (under lock) */
    /* encoded images, or RGB8 pixels of one size */
    const void *const *data;
    const size_t *sizes;
    const uint8_t *const *pixels;
    int width, height;
    size_t stride;
    uint8_t *crops;
    size_t per_image;
    infer8_status *status; /* per image */
    i8_err *errs;          /* per image */
    pthread_mutex_t lock;
} crop_job;

static infer8_status crop_one(crop_job *j, int i, i8_image *scratch) {
    i8_err *err = &j->errs[i];
    uint8_t *out = j->crops + (size_t)i * j->per_image;
    if (j->data) return decode_crop_u8(j->m, j->data[i], j->sizes[i], j->limits, out, err);
    if (!j->pixels[i]) return i8_fail(err, INFER8_E_INVALID_ARGUMENT, "image is NULL");
    rgb8_copy(scratch, j->pixels[i], j->stride);
    return i8_preprocess_crop_u8(scratch, &j->m->config.pre, out, err);
}

/* Takes the next image until none is left (a queue: a thread that fails to start costs nothing) */
static void *crop_worker(void *arg) {
    crop_job *j = arg;
    i8_image scratch = {0};
    i8_err alloc_err;
    i8_err_clear(&alloc_err);
    const infer8_status alloc = j->data ? INFER8_OK : i8_image_alloc(&scratch, j->width, j->height, &alloc_err);
    for (;;) {
        pthread_mutex_lock(&j->lock);
        const int i = j->next++;
        pthread_mutex_unlock(&j->lock);
        if (i >= j->n) break;
        i8_err_clear(&j->errs[i]);
        j->status[i] = alloc ? alloc : crop_one(j, i, &scratch);
        if (alloc) j->errs[i] = alloc_err;
    }
    i8_image_free(&scratch);
    return NULL;
}

/* Crops of all n images into j->crops; the first failing image's error on the context
 * ("image I: ..."). */
static infer8_status crop_all(infer8_context *ctx, infer8_model *m, crop_job *j) {
    i8_err err;
    i8_err_clear(&err);
    j->m = m;
    j->limits = &ctx->limits;
    j->per_image = (size_t)3 * m->graph.input_h * m->graph.input_w;
    j->crops = i8_calloc((size_t)j->n, j->per_image, &err);
    j->status = i8_calloc((size_t)j->n, sizeof *j->status, &err);
    j->errs = i8_calloc((size_t)j->n, sizeof *j->errs, &err);
    if (!j->crops || !j->status || !j->errs) return i8_ctx_fail(ctx, &err);
    long cores = m->options.threads > 0 ? m->options.threads : sysconf(_SC_NPROCESSORS_ONLN);
    int workers = (int)(cores < 1 ? 1 : cores > 64 ? 64 : cores);
    if (workers > j->n) workers = j->n;
    pthread_mutex_init(&j->lock, NULL);
    pthread_t tid[64];
    int started = 0;
    for (int t = 1; t < workers; t++) /* and the caller's thread */
        if (pthread_create(&tid[started], NULL, crop_worker, j) == 0) started++;
    crop_worker(j);
    for (int t = 0; t < started; t++) pthread_join(tid[t], NULL);
    pthread_mutex_destroy(&j->lock);
    for (int i = 0; i < j->n; i++)
        if (j->status[i]) {
            err = j->errs[i];
            i8_err_prefix(&err, "image %d", i);
            return i8_ctx_fail(ctx, &err);
        }
    return INFER8_OK;
}

static void crop_job_free(crop_job *j) {
    free(j->crops), free(j->status), free(j->errs);
}

EXPORT infer8_status infer8_classify_encoded(infer8_context *ctx, infer8_model *m, int n, const void *const *data,
                                             const size_t *sizes, float *logits) {
    if (!ctx || !m || !data || !sizes || !logits || n <= 0) return i8_ctx_bad_arg(ctx, "infer8_classify_encoded: bad argument");
    crop_job j = {.n = n, .data = data, .sizes = sizes};
    infer8_status s = crop_all(ctx, m, &j);
    if (!s) s = infer8_classify_u8(ctx, m, n, j.crops, logits);
    crop_job_free(&j);
    return s;
}

EXPORT infer8_status infer8_classify_rgb8(infer8_context *ctx, infer8_model *m, int n, const uint8_t *const *pixels,
                                          int width, int height, size_t stride, float *logits) {
    if (!ctx || !m || !pixels || !logits || n <= 0) return i8_ctx_bad_arg(ctx, "infer8_classify_rgb8: bad argument");
    if (width <= 0 || height <= 0 || stride < (size_t)width * 3)
        return i8_ctx_bad_arg(ctx, "infer8_classify_rgb8: bad argument (size or stride)");
    if (rgb8_over_limit(ctx, width, height)) return ctx->err.code;
    crop_job j = {.n = n, .pixels = pixels, .width = width, .height = height, .stride = stride};
    infer8_status s = crop_all(ctx, m, &j);
    if (!s) s = infer8_classify_u8(ctx, m, n, j.crops, logits);
    crop_job_free(&j);
    return s;
}

EXPORT infer8_status infer8_topk(const infer8_model *m, const float *logits, int k, infer8_class_score *out) {
    if (!m || !logits || !out || k <= 0) return INFER8_E_INVALID_ARGUMENT;
    int classes = m->config.num_classes;
    if (k > classes) k = classes;
    /* softmax in double with the max subtracted */
    double maxv = logits[0];
    for (int i = 1; i < classes; i++)
        if (logits[i] > maxv) maxv = logits[i];
    double sum = 0;
    for (int i = 0; i < classes; i++) sum += exp((double)logits[i] - maxv);
    for (int j = 0; j < k; j++) {
        int best = -1;
        for (int i = 0; i < classes; i++) {
            int taken = 0;
            for (int t = 0; t < j && !taken; t++) taken = out[t].index == i;
            if (taken) continue;
            if (best < 0 || logits[i] > logits[best]) best = i;
        }
        out[j].index = best;
        out[j].logit = logits[best];
        out[j].probability = (float)(exp((double)logits[best] - maxv) / sum);
        out[j].label = infer8_model_label(m, best);
    }
    return INFER8_OK;
}

EXPORT infer8_status infer8_save_npy(infer8_context *ctx, const char *path, const float *data, int ndim,
                                     const int64_t *shape) {
    if (!ctx || !path || !data || !shape || ndim < 1 || ndim > 8) return i8_ctx_bad_arg(ctx, "infer8_save_npy: bad argument");
    i8_err err;
    i8_err_clear(&err);
    return i8_npy_write_f32(path, data, ndim, shape, &err) ? i8_ctx_fail(ctx, &err) : INFER8_OK;
}
