/* Executor backends: an ops table plus an opaque context, one folder each (cpu reference,
 * oneDNN, CUDA). A backend is prepared once for a graph and a maximum batch (weights
 * re-laid out, activation memory planned), then runs batches of 1..max_batch. */
#ifndef I8_BACKEND_H
#define I8_BACKEND_H

#include "graph/graph.h"

/* pre_node_hook's "stop here" (not a status: outside infer8_status's values) */
#define I8_HOOK_STOP ((infer8_status)1000)

typedef struct i8_backend_options {
    int max_batch;
    int threads;               /* 0 = all available */
    int accumulate_fp64;       /* reference executor */
    /* Called (if set) before each node is computed, with the node's inputs in NHWC float32
     * ([n][h][w][c] each, input i of shape graph->nodes[node->inputs[i]]). The hook may change
     * the graph's weights of this node (used by synth to set batch-norm statistics from real
     * activations). Reference executor only. A hook that needs no later node returns
     * I8_HOOK_STOP: run then returns INFER8_OK at once, without logits. */
    infer8_status (*pre_node_hook)(void *user, i8_graph *g, int node, int n, const float *const *inputs, i8_err *err);
    void *hook_user;
    /* Calibration statistics (struct i8_calib_hist, quant/calibrate.h): when set, every run adds
     * the output of each node k with collect_hist[k] != NULL to that histogram
     * (i8_calib_collect), and the histograms are up to date when run returns. CUDA (on the fp16
     * activations of an fp16-planned graph) and cpu-onednn (fp32); the reference executor does
     * the same through pre_node_hook with i8_calib_collect_hook. */
    struct i8_calib_hist **collect_hist;
    /* cpu-onednn: 1 = bfloat16 activations and conv/linear weights (fp32 accumulation and
     * logits; needs AVX-512 BF16 or AMX), 0 = float32. Other backends ignore it. */
    int bf16;
    /* Reference executor: round every node output but the logits to binary16 (FP8 graphs always
     * do). Other backends ignore it. */
    int f16_activations;
    /* CUDA: seconds of cuDNN plan building per batch size when tuning (0 = the default,
     * I8_CUDNN_BUDGET_DEFAULT_S; < 0 = none: own kernels and cuBLASLt only);
     * i8_opt_level_cudnn_budget (api/model.h) maps the public opt_level to it. */
    double cudnn_budget_s;
} i8_backend_options;
#define I8_CUDNN_BUDGET_DEFAULT_S 30.0 /* opt level 2 */

typedef struct i8_backend_ops {
    int version;               /* 1 */
    const char *name;          /* "cpu-reference", "cpu-onednn", "cuda" */
    /* 1 if this backend can execute the node as given (after passes), 0 otherwise. */
    int (*supports_node)(const i8_graph *g, const i8_node *node);
    /* The graph must outlive the context (weights may be read in place). */
    infer8_status (*prepare)(void **ctx, i8_graph *g, const i8_backend_options *opts, i8_err *err);
    /* input: float32 NCHW [n][3][H][W]; logits: [n][classes]. 1 <= n <= max_batch. */
    infer8_status (*run)(void *ctx, int n, const float *input_nchw, float *logits, i8_err *err);
    void (*destroy)(void *ctx);
    /* Optional (NULL if absent). Times `iters` back-to-back forwards of batch n on the input
     * last given to run (or on deterministic data if run was never called) and stores the mean
     * milliseconds per forward. CUDA: replay of the captured CUDA graph between two events,
     * after warm-up. CPU: wall clock (CLOCK_MONOTONIC). Used by `infer8 bench`, which calls
     * it once per round and interleaves models round by round. */
    infer8_status (*time_forward)(void *ctx, int n, int iters, double *ms_per_forward, i8_err *err);
    /* Optional. Per-layer profile: times each node separately (events around each node's
     * kernels, outside any graph), adding the mean milliseconds per forward of each node into
     * ms[g->n_nodes]. */
    infer8_status (*profile)(void *ctx, int n, int iters, double *ms, i8_err *err);
    /* Optional. Human-readable device / library versions ("NVIDIA H200, driver 580.x, CUDA 13.0,
     * cuDNN 9.19"); writes into buf. */
    void (*describe_device)(void *ctx, char *buf, size_t size);
    /* Optional. The activation memory the backend would plan for g at max_batch, in bytes,
     * without a device and without preparing (`infer8 inspect` reports it). */
    infer8_status (*plan_memory)(const i8_graph *g, int max_batch, uint64_t *arena_bytes, i8_err *err);
    /* Optional. As run, from the uint8 crops themselves: input uint8 NHWC [n][H][W][3] (3
     * channels), normalized by the executor as i8_normalize_u8 does ((v / 255 - mean) / std in
     * float32, bit for bit), so that a quarter of the bytes travels to the device. */
    infer8_status (*run_u8)(void *ctx, int n, const uint8_t *input_nhwc, const float mean[3], const float std[3],
                            float *logits, i8_err *err);
} i8_backend_ops;

extern const i8_backend_ops i8_backend_cpu_reference;
#ifdef INFER8_HAVE_ONEDNN
extern const i8_backend_ops i8_backend_cpu_onednn;
#endif
#ifdef INFER8_HAVE_CUDA
extern const i8_backend_ops i8_backend_cuda;
#endif

#endif
