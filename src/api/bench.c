/* Benchmark entry points of the public API: device description, timed rounds and per-layer
 * profiles, delegated to the executor's optional ops (time_forward, profile, describe_device);
 * executors without time_forward are timed here with the wall clock around run(). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "api/model.h"
#include "eval/roofline.h"
#ifdef INFER8_HAVE_CUDA
#include "backends/cuda/cuda_backend.h"
#endif

#define EXPORT __attribute__((visibility("default")))

static double now_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec * 1e-6;
}

/* Deterministic input in the normalized range (never zeros: they can run faster than data). */
static float *bench_input(const infer8_model *m, int n, i8_err *err) {
    size_t count = (size_t)n * m->graph.input_c * m->graph.input_h * m->graph.input_w;
    float *x = i8_malloc(count * sizeof(float), err);
    if (!x) return NULL;
    i8_rng rng;
    i8_rng_seed(&rng, 12345);
    for (size_t i = 0; i < count; i++) x[i] = (float)(2.0 * i8_rng_uniform(&rng) - 1.0);
    return x;
}

static infer8_status check_batch(const infer8_model *m, int n, int iters, i8_err *err) {
    if (n < 1 || n > m->options.max_batch)
        return i8_fail(err, INFER8_E_INVALID_ARGUMENT, "batch %d is outside 1..%d (the model's max batch)", n,
                       m->options.max_batch);
    if (iters < 1) return i8_fail(err, INFER8_E_INVALID_ARGUMENT, "iterations must be >= 1");
    return INFER8_OK;
}

EXPORT infer8_status infer8_device_info(infer8_context *ctx, infer8_model *m, char *buf, size_t size) {
    if (!ctx || !m || !buf || !size) return i8_ctx_bad_arg(ctx, "infer8_device_info: model or buffer missing");
    i8_err err;
    i8_err_clear(&err);
    pthread_mutex_lock(&m->lock);
    infer8_status s = i8_model_ensure_backend(m, &err);
    if (!s) {
        if (m->backend->describe_device) m->backend->describe_device(m->backend_ctx, buf, size);
        else snprintf(buf, size, "%s", m->backend->name);
    }
    pthread_mutex_unlock(&m->lock);
    return s ? i8_ctx_fail(ctx, &err) : INFER8_OK;
}

/* One real run of batch n before timing: gives the executor its input and builds what batch n
 * needs. *input and *logits are malloc'ed (freed by the caller, also on failure). Caller holds
 * m->lock with the backend ensured. */
static infer8_status first_run(infer8_model *m, int n, float **input, float **logits, i8_err *err) {
    *input = bench_input(m, n, err);
    *logits = *input ? i8_malloc((size_t)n * m->config.num_classes * sizeof(float), err) : NULL;
    return *logits ? m->backend->run(m->backend_ctx, n, *input, *logits, err) : INFER8_E_NOMEM;
}

EXPORT infer8_status infer8_time_forward(infer8_context *ctx, infer8_model *m, int n, int iters, double *ms) {
    if (!ctx || !m || !ms) return i8_ctx_bad_arg(ctx, "infer8_time_forward: model or ms missing");
    i8_err err;
    i8_err_clear(&err);
    infer8_status s = check_batch(m, n, iters, &err);
    if (s) return i8_ctx_fail(ctx, &err);
    pthread_mutex_lock(&m->lock);
    s = i8_model_ensure_backend(m, &err);
    float *input = NULL, *logits = NULL;
    if (!s) s = first_run(m, n, &input, &logits, &err);
    if (!s && m->backend->time_forward) {
        s = m->backend->time_forward(m->backend_ctx, n, iters, ms, &err);
    } else if (!s) {
        double start = now_ms();
        for (int i = 0; i < iters && !s; i++) s = m->backend->run(m->backend_ctx, n, input, logits, &err);
        *ms = (now_ms() - start) / iters;
    }
    free(input);
    free(logits);
    pthread_mutex_unlock(&m->lock);
    return s ? i8_ctx_fail(ctx, &err) : INFER8_OK;
}

EXPORT infer8_status infer8_profile(infer8_context *ctx, infer8_model *m, int n, int iters, double *ms) {
    if (!ctx || !m || !ms) return i8_ctx_bad_arg(ctx, "infer8_profile: model or ms missing");
    i8_err err;
    i8_err_clear(&err);
    infer8_status s = check_batch(m, n, iters, &err);
    if (s) return i8_ctx_fail(ctx, &err);
    pthread_mutex_lock(&m->lock);
    s = i8_model_ensure_backend(m, &err);
    if (!s && !m->backend->profile)
        s = i8_fail(&err, INFER8_E_UNSUPPORTED, "the %s executor cannot profile layers", m->backend->name);
    float *input = NULL, *logits = NULL;
    if (!s) s = first_run(m, n, &input, &logits, &err);
    if (!s) s = m->backend->profile(m->backend_ctx, n, iters, ms, &err);
    free(input);
    free(logits);
    pthread_mutex_unlock(&m->lock);
    return s ? i8_ctx_fail(ctx, &err) : INFER8_OK;
}

static int runs_on_cuda(const infer8_model *m) {
#ifdef INFER8_HAVE_CUDA
    return m->backend == &i8_backend_cuda;
#else
    (void)m;
    return 0;
#endif
}

EXPORT void infer8_tuning_init(infer8_tuning *t) {
    if (!t) return;
    memset(t, 0, sizeof *t);
    t->struct_size = sizeof *t;
}

EXPORT infer8_status infer8_get_tuning(infer8_context *ctx, infer8_model *m, int n, infer8_tuning *out) {
    if (!ctx || !m || !out || out->struct_size < sizeof(uint32_t))
        return i8_ctx_bad_arg(ctx, "infer8_get_tuning: model or output missing (call infer8_tuning_init)");
    i8_err err;
    i8_err_clear(&err);
    infer8_tuning r;
    infer8_tuning_init(&r);
    pthread_mutex_lock(&m->lock);
    infer8_status s = INFER8_OK;
    if (!m->backend_ctx) s = i8_fail(&err, INFER8_E_INVALID_ARGUMENT, "infer8_get_tuning: the model has not run yet");
    else if (!runs_on_cuda(m))
        s = i8_fail(&err, INFER8_E_UNSUPPORTED, "infer8_get_tuning: the %s executor tunes nothing", m->backend->name);
#ifdef INFER8_HAVE_CUDA
    if (!s && !i8_cuda_get_tuning(m->backend_ctx, n, &r))
        s = i8_fail(&err, INFER8_E_INVALID_ARGUMENT, "infer8_get_tuning: batch %d has not been prepared", n);
#endif
    pthread_mutex_unlock(&m->lock);
    if (s) return i8_ctx_fail(ctx, &err);
    uint32_t keep = out->struct_size;
    memcpy(out, &r, keep < sizeof r ? keep : sizeof r);
    out->struct_size = keep;
    return INFER8_OK;
}

/* one field list for every JSON writer of a tuning (bench's rows through fprintf, study's
 * through cJSON's raw items) */
EXPORT int infer8_tuning_json(const infer8_tuning *t, char *buf, size_t cap) {
    if (!t || (!buf && cap)) return -1;
    infer8_tuning r;
    infer8_tuning_init(&r); /* fields past the caller's struct_size (appended later) read as 0 */
    memcpy(&r, t, t->struct_size < sizeof r ? t->struct_size : sizeof r);
    char tune[32] = "null", budget[32] = "null";
    if (isfinite(r.tune_seconds)) snprintf(tune, sizeof tune, "%.3f", r.tune_seconds);
    if (isfinite(r.cudnn_budget_s)) snprintf(budget, sizeof budget, "%.1f", r.cudnn_budget_s);
    return snprintf(buf, cap,
                    "{\"conv_problems\": %d, \"untuned_problems\": %d, \"partly_tuned_problems\": %d, "
                    "\"restored_tactics\": %d, \"tune_seconds\": %s, \"cudnn_budget_s\": %s}",
                    r.conv_problems, r.untuned_problems, r.partly_tuned_problems, r.restored_tactics, tune, budget);
}

EXPORT const char *infer8_layer_name(const infer8_model *m, int i) {
    if (!m || i < 0 || i >= m->graph.n_nodes) return NULL;
    return m->graph.nodes[i].name;
}

EXPORT const char *infer8_layer_type(const infer8_model *m, int i, char *buf, size_t size) {
    if (!m || !buf || !size || i < 0 || i >= m->graph.n_nodes) return NULL;
    const i8_node *n = &m->graph.nodes[i];
    const char *prec = n->precision == I8_PREC_FP8 ? "fp8 " : "";
    if (n->op == I8_OP_CONV)
        snprintf(buf, size, "%sconv%dx%d%s%s", prec, n->kh, n->kw, n->sh > 1 || n->sw > 1 ? "/2" : "",
                 n->residual >= 0 ? "+residual" : "");
    else
        snprintf(buf, size, "%s%s", prec, i8_op_name(n->op));
    return buf;
}

EXPORT infer8_status infer8_roofline(infer8_context *ctx, const infer8_model *m, const char *gpu, int n,
                                     double *fp16_ms, double *model_ms, const char **gpu_name) {
    i8_err err;
    i8_err_clear(&err);
    if (!ctx || !m || !gpu || n < 1 || !fp16_ms || !model_ms) {
        i8_fail(&err, INFER8_E_INVALID_ARGUMENT, "infer8_roofline: bad argument");
        return i8_ctx_fail(ctx, &err);
    }
    const i8_peaks *pk = i8_peaks_find(gpu);
    if (!pk) {
        i8_fail(&err, INFER8_E_UNSUPPORTED, "roofline: no peak figures for GPU '%s' (known: H200, H100, H100 PCIe)", gpu);
        return i8_ctx_fail(ctx, &err);
    }
    i8_roofline r;
    i8_roofline_convs(&m->graph, n, pk, &r);
    *fp16_ms = r.fp16_s * 1e3, *model_ms = r.fp8_s * 1e3;
    if (gpu_name) *gpu_name = pk->gpu;
    return INFER8_OK;
}

EXPORT int infer8_profile_by_type(const infer8_model *m, const double *ms, int layers, infer8_type_time *out, int cap) {
    if (!m || !ms || !out || layers < 0 || cap < 0) return -1;
    int n = 0;
    for (int i = 0; i < layers; i++) {
        char buf[64];
        const char *type = infer8_layer_type(m, i, buf, sizeof buf);
        if (!type) continue;
        int k = 0;
        while (k < n && strcmp(out[k].type, type) != 0) k++;
        if (k == n) {
            if (n == cap) continue;
            snprintf(out[n].type, sizeof out[n].type, "%s", type);
            out[n].ms = 0.0, out[n].count = 0;
            n++;
        }
        out[k].ms += ms[i];
        out[k].count++;
    }
    return n;
}
