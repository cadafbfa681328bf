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

    /* executor state, created on first use; classify calls on one model are serialized */
    pthread_mutex_t lock;
    const i8_backend_ops *backend;
    void *backend_ctx;
};

/* Stores err into the context and returns its status. */
infer8_status i8_ctx_fail(infer8_context *ctx, const i8_err *err);
void i8_ctx_log(infer8_context *ctx, int level, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* Opens a checkpoint (snapshot folder or bare .safetensors) into an optimized graph. */
infer8_status i8_checkpoint_load(const char *path, const char *arch, const i8_limits *limits, i8_model_config *cfg,
                                 const i8_family **family, i8_graph *graph, int optimize, i8_err *err);

/* Built-in ImageNet-1k class names (data/imagenet1k_labels.txt compiled in). */
extern const char *const i8_imagenet_labels[1000];

#endif
