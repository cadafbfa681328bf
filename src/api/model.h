/* Internal view of the public handles (infer8_context, infer8_model), shared by the API
 * implementation files in src/api/. */
#ifndef I8_API_MODEL_H
#define I8_API_MODEL_H

#include <pthread.h>

#include "backends/backend.h"
#include "families/family.h"
#include "formats/config.h"
#include "graph/graph.h"

struct infer8_context {
    i8_err err;
    i8_limits limits;
    infer8_log_fn log_fn;
    void *log_user;
    int log_max_level;
};

struct infer8_model {
    char *source;                  /* path opened */
    const i8_family *family;
    i8_model_config config;
    i8_graph graph;                /* optimized (folded, fused) */
    infer8_open_options options;
    i8_limits limits;
    char **fallback_labels;        /* "class_<i>" when config has no label names */
    struct i8_bundle_model *bundle; /* set when opened from a bundle (src/api/bundle_api.c) */
    struct cJSON *adaptive_rounding; /* per rounded conv, when options.adaptive_rounding was applied */

    /* executor state, created on first use; classify calls on one model are serialized */
    pthread_mutex_t lock;
    const i8_backend_ops *backend;
    void *backend_ctx;
};

/* Stores err into the context and returns its status. */
infer8_status i8_ctx_fail(infer8_context *ctx, const i8_err *err);
/* INFER8_E_INVALID_ARGUMENT with `what` as the context's message (ctx may be NULL). */
infer8_status i8_ctx_bad_arg(infer8_context *ctx, const char *what);
void i8_ctx_log(infer8_context *ctx, int level, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* Opens a checkpoint (snapshot folder or bare .safetensors) into a graph. `optimize` is a set of
 * flags: I8_CKPT_OPTIMIZE (i8_pass_optimize: fold batchnorm, fuse, sink avgpool),
 * I8_CKPT_ALLOW_NONFINITE (accept NaN/Inf weights; by default the first one is INFER8_E_FORMAT
 * naming the tensor and element index). */
#define I8_CKPT_OPTIMIZE 1
#define I8_CKPT_ALLOW_NONFINITE 2
infer8_status i8_checkpoint_load(const char *path, const char *arch, const i8_limits *limits, i8_model_config *cfg,
                                 const i8_family **family, i8_graph *graph, int optimize, i8_err *err);

/* Prepares the model's executor on first use (backend chosen by options.device). Caller holds
 * m->lock. */
infer8_status i8_model_ensure_backend(infer8_model *m, i8_err *err);
/* Public opt_level (infer8_open_options.opt_level): INVALID_ARGUMENT naming `who` unless in
 * 0..INFER8_OPT_LEVEL_MAX; the CUDA executor's cuDNN tuning budget (i8_backend_options.
 * cudnn_budget_s) of a valid level. */
infer8_status i8_opt_level_check(int opt_level, const char *who, i8_err *err);
double i8_opt_level_cudnn_budget(int opt_level);

/* Bundles (src/api/bundle_api.c). i8_bundle_load fills m->source-independent parts of a fresh
 * model (family, config, graph, bundle) from verified bundle bytes; `name` is used in messages. */
infer8_status i8_bundle_load(infer8_model *m, infer8_context *ctx, const uint8_t *data, size_t size, const char *name,
                             i8_err *err);
void i8_bundle_model_free(struct i8_bundle_model *b);
/* Fills the bundle fields of info (precision, sections, ...); checkpoints get precision "fp32". */
void i8_bundle_fill_info(const infer8_model *m, infer8_model_info *full);
/* After the executor is prepared: restores stored CUDA tactics when the GPU matches (logs
 * "tuned for X, re-tuning on Y" otherwise). No-op for other backends and for checkpoints. */
infer8_status i8_bundle_after_prepare(infer8_model *m, i8_err *err);
/* Bundle parts of infer8_model_describe. JSON: adds a "bundle" object (header, sections, size,
 * precision) to the graph's tree root (i8_graph_describe_tree, which has each layer's FP8
 * scales); 0 when out of memory. Text: the header and section listing, then the graph's listing
 * `graph` (which ends with the FP8 scales), as a new malloc'ed string. */
struct cJSON;
int i8_bundle_describe_json(const infer8_model *m, struct cJSON *root);
infer8_status i8_bundle_describe_text(const infer8_model *m, const char *graph, char **out, i8_err *err);

/* FP8 emulation at open (src/api/calibrate_api.c): when options.precision is FP8, applies
 * options.fp8_recipe and options.fp8_scales_path to m->graph (checkpoints, reference device
 * only). No-op for FP32. */
infer8_status i8_model_apply_fp8(infer8_model *m, i8_err *err);
/* options.adaptive_rounding at open (src/api/calibrate_api.c), before FP8 quantization (which
 * rounds the convs it keeps in fp16 to nearest): i8_conv_select, the selected convs' input second
 * moments over options.adaptive_rounding_images on the reference executor, then
 * i8_fp16_round_adaptive on each; fills m->adaptive_rounding. Checkpoints only; refuses
 * options.split_weights. No-op when NULL. */
infer8_status i8_model_apply_adaptive_rounding(infer8_model *m, infer8_context *ctx, i8_err *err);
/* After i8_model_apply_fp8: INVALID_ARGUMENT naming a conv that was rounded adaptively and then
 * made FP8 by the recipe (its e4m3 weights would discard the rounding). */
infer8_status i8_model_check_adaptive_rounding(const infer8_model *m, i8_err *err);
/* options.split_weights at open (src/api/calibrate_api.c): i8_conv_select then
 * i8_pass_split_weights on m->graph; checkpoints only. No-op when NULL. */
infer8_status i8_model_apply_split_weights(infer8_model *m, i8_err *err);

/* Calibration executor (src/api/calibrate_api.c) for device: CUDA, the CUDA backend (statistics
 * binned on the GPU through bo->collect_hist = c->hist); CPU, the oneDNN backend where built
 * (binned after each node the same way), else the reference executor with c's pre-node hook.
 * Without histograms in c (a study without FP8 variants) the pass only computes logits. Sets
 * *be; fails when CUDA is asked of a build without it. */
struct i8_calib_collector;
infer8_status i8_calib_backend(infer8_device device, struct i8_calib_collector *c, i8_backend_options *bo,
                               const i8_backend_ops **be, i8_err *err);

/* Built-in ImageNet-1k class names (data/imagenet1k_labels.txt compiled in). */
extern const char *const i8_imagenet_labels[1000];

#endif
