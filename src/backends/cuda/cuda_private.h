/* Private structures of the CUDA backend shared by cuda_backend.c (planning, streams, graph
 * capture, ops table) and cuda_conv.c (convolution tactics and their tuning). */
#ifndef I8_CUDA_PRIVATE_H
#define I8_CUDA_PRIVATE_H

#include <cublasLt.h>
#include <cuda_runtime_api.h>
#include <cudnn.h>

#include "backends/cuda/cuda_backend.h"
#include "backends/cuda/cuda_cublaslt.h"
#include "backends/cuda/cuda_fp8.h"
#include "backends/cuda/cuda_graph_timing.h"
#include "backends/cuda/cuda_kernels.h"

#define CU_STREAMS 4
#define CU_WORKSPACE_BYTES ((size_t)64 << 20) /* per stream; cuDNN configs needing more are skipped */
#define CU_MAX_CUDNN_DESC 40
#define CU_SPLIT_COUNTERS 65536

/* Where a node's output lives: channel slice [ch_off, ch_off + c) of storage `storage`, pixel
 * row stride ld elements. */
typedef struct cu_view {
    int storage;
    int ch_off;
    int ld;
} cu_view;

typedef struct cu_storage {
    size_t bytes_per_image;
    size_t offset;               /* in the arena */
    int ld, f32;
    /* FP8 (cuda_fp8.c): an e4m3 twin of the storage ("dual output") at offset + q_offset, same
     * ld and channel slices, quantized with q_scale; no_f16 when nothing reads the fp16 copy */
    int q, no_f16;
    float q_scale;
    size_t q_offset;
} cu_storage;

/* Everything about a conv problem that decides which kernel fits and how fast it is. */
typedef struct cu_conv_sig {
    int h, w, c_in, x_ld, ho, wo, c_out, kh, kw, sh, sw, ph, pw, relu, has_res, res_ld, y_ld;
    int align_x, align_y, align_r; /* byte alignment of the pointers, capped at 256 */
    /* FP8 convs only (zero otherwise): input read from the e4m3 twin, residual mode
     * (I8_FP8_RES_*), fp16 and e4m3 outputs written */
    int fp8, a_q, res_mode, out_f16, out_q;
    int align_xq, align_yq;      /* byte alignment of the e4m3 input / output twins (0: none) */
} cu_conv_sig;

/* One tuned conv problem of one batch size; nodes with the same signature share it. */
typedef struct cu_conv_plan {
    cu_conv_sig sig;
    i8_cuda_tactic tac;
    cublasLtMatmulDesc_t mm;
    cublasLtMatrixLayout_t la, lb, lc, ld;
    cudnnBackendDescriptor_t plan;
    cudnnBackendDescriptor_t desc[CU_MAX_CUDNN_DESC]; /* kept alive as long as the plan */
    int n_desc;
    int node;                    /* the conv it was tuned on (the first with this signature) */
    int dnn_deferred;            /* FP8: cuDNN e4m3 configs still to be tried (i8_cuda_conv_tune_deferred) */
    i8_cuda_tactic alt;          /* FP8 plan tuned onto a TMA kernel: the fastest checked own kernel without
                                  * TMA, for the whole-graph choice (i8_cuda_conv_swap_alt); kind NONE if none */
    /* for the whole-graph choice of the own kernels (i8_cuda_conv_swap_own); kind NONE if none: */
    i8_cuda_tactic own;          /* FP8 plan won by a cuDNN e4m3 config: the own kernel it beat (checked) */
    i8_cuda_tactic nohalo;       /* FP8 plan whose own kernel is a halo one: the fastest checked own kernel
                                  * without halo */
} cu_conv_plan;

/* Device-side parameters of a node. */
typedef struct cu_node_rt {
    int stream, need_event;
    unsigned alias_mask;         /* CONCAT: inputs written in place (bit j = inputs[j]) */
    void *w16;                   /* conv [c_out][kh][kw][c_in_phys] / linear [out][in], fp16 */
    void *b16;                   /* conv bias fp16 (scaled by the residual scale) */
    float *b32;                  /* conv / linear bias fp32 */
    float *alpha, *beta;         /* unfused batchnorm: per-channel scale and shift */
    int c_in_phys;
    uint8_t *wq;                 /* FP8 conv: e4m3 weight codes [c_out][kh][kw][c_in_phys] */
    float *mult;                 /* FP8 conv: in_scale * w_scale[o] * residual_scale */
    float *dscale;               /* FP8 conv with an e4m3 output: 1 / out_scale (device scalar) */
    int merge_group;             /* FP8 1x1 sibling: 1 + its group in c->merges (i8_cuda_fp8_merge_plan), else 0 */
    int pair;                    /* FP8 1x1 or its sole consumer in a pair: 1 + its index in c->pairs, else 0 */
} cu_node_rt;

/* An FP8 1x1 (first) whose output only the FP8 spatial conv `second` reads, run with it as
 * one pair kernel when the batch chooses so (cu_batch.pair; i8_cuda_conv_fp8_pair): the first's
 * launch makes the second's outputs, the second launches nothing. */
typedef struct cu_pair {
    int first, second;
} cu_pair;

/* FP8 1x1 convs that read one input (a residual block's branch 1x1s), run as one conv when the
 * batch chooses so (cu_batch.merge; i8_cuda_conv_fp8_tma_multi): nodes in graph order, the first
 * launching for all; their weights, multipliers and biases concatenated in that order. These
 * arrays own the siblings' rows: each sibling's cu_node_rt wq / mult / b32 point into them. */
typedef struct cu_merge {
    int n, nodes[I8_FP8_MAX_OUTS];
    int c_out;                   /* the sum of theirs */
    uint8_t *wq;                 /* [c_out][c_in_phys] e4m3 */
    float *mult, *bias;          /* [c_out] */
} cu_merge;

typedef struct cu_batch {
    int n, built;
    cu_conv_plan *plans;
    int n_plans, cap_plans;
    int *node_plan;              /* per node: plan index, -1 if not a conv */
    cudnnBackendDescriptor_t *varpack; /* per node (cuDNN tactics only) */
    i8_cuda_tactic *tactics;     /* per node */
    i8_cuda_tactic *preset;      /* per node or NULL */
    unsigned char *prio;         /* per node, 1: on the critical path, launched on its lane's high-priority
                                  * stream (choose_launch); NULL: every node at the default priority */
    cudaGraphExec_t exec;
    cudaGraphExec_t exec_u8;     /* the same forward from the uint8 input (run_u8), captured on first use */
    /* the last CU_COUNTED forward captures and their kernel nodes (capture), newest at counted_next - 1:
     * the whole-graph choices capture candidates after the graph they may keep, so the kept one's
     * count is looked up by its handle (stats.kernel_nodes). choose_graph captures at most 16 (since
     * session 62: the first, choose_plain 1, choose_own 5 with PDL forms, choose_merge 5 with PDL
     * forms, choose_pair 1, choose_launch 3), so the kept one is still in the ring. */
#define CU_COUNTED 20
    cudaGraphExec_t counted[CU_COUNTED];
    int counted_nodes[CU_COUNTED], counted_next;
    int u8_capture_failed;       /* that capture failed: run_u8 launches node by node */
    int pdl;                     /* 1: the own FP8 kernels of this batch's forward are launched with
                                  * programmatic dependent launch (choose_launch; cuda_pdl.cuh) */
    int merge;                   /* sibling groups run merged: 0 no, 1 on the BN 64 kernel, 2 on the BN 128 one
                                  * (choose_merge) */
    int pair;                    /* 1: pairs run as one kernel (choose_pair), each pair k with pair_var[k] >= 0 on
                                  * that variant; a pair whose 1x1 is a merged sibling runs as two */
    int *pair_var;               /* [c->n_pairs], -1: run as two kernels (allocated by choose_pair) */
    i8_cuda_stats stats;
} cu_batch;

typedef struct cu_ctx {
    i8_graph *g;
    int max_batch;
    int device;
    cudnnHandle_t dnn;
    i8_cublaslt lt_fn;           /* cuBLASLt, opened with the context (cuda_cublaslt.h) */
    cublasLtHandle_t lt;
    cudaStream_t streams[CU_STREAMS];
    /* the same lanes at the device's greatest stream priority (NULL where it has none): a node
     * on the critical path runs there, so the block scheduler serves it before the branches
     * that have slack (choose_launch) */
    cudaStream_t streams_hi[CU_STREAMS];
    cudaEvent_t lane_ev[CU_STREAMS]; /* orders a lane's nodes across its two streams */
    cudaEvent_t *ev;             /* per node */
    cudaEvent_t join[CU_STREAMS], t0, t1;
    void *ws[CU_STREAMS];
    unsigned *counters[CU_STREAMS]; /* split-K tile counters of the own conv kernel (zeroed) */
    unsigned char *arena;
    size_t arena_bytes, weight_bytes;
    float *in_stage;             /* float32 NCHW input, max_batch images */
    float *out_stage;            /* float32 NCHW output, max_batch images (written by the graph) */
    uint8_t *in_stage_u8;        /* uint8 NHWC input of run_u8, max_batch images (allocated on first use) */
    float u8_mean[3], u8_std[3]; /* the normalization the exec_u8 graphs hold */
    cu_view *views;
    cu_storage *stor;
    int n_stor;
    cu_node_rt *rt;
    cu_batch *batches;           /* [max_batch + 1], index = batch size */
    int force_kind;              /* INFER8_CUDA_TACTIC: 0 = tune all */
    double cudnn_budget_s, cudnn_spent_s;
    /* fp16 conv problems of the batch being tuned not yet given their share of the cuDNN budget
     * (dnn_tune); cudnn_share 1: INFER8_CUDA_CUDNN_SHARE=1, shared equally (cudnn_budget.h) */
    int cudnn_fp16_left, cudnn_share;
    int cudnn_lossy_ok; /* INFER8_CUDA_LOSSY_ENGINES=1: also time Winograd / FFT / fp16-reduction engines, and
                         * cuBLASLt's split-K with partial sums in fp16 and its bias read in fp16 */
    int fp8;                     /* the graph has FP8 convs (i8_cuda_fp8_plan) */
    int fp8_lt;                  /* INFER8_CUDA_FP8_LT=1: also try cuBLASLt e4m3 GEMMs for 1x1 FP8 convs;
                                  * 2: and let those without residual write fp16; 3: those with a
                                  * fused residual instead (cuda_fp8.c) */
    int fp8_load_fallbacks;      /* storages read as FP8 that an FP8 conv writes but that get no twin (cuda_fp8.c) */
    int fp8_dnn;                 /* try cuDNN e4m3 convolution graphs too (unless INFER8_CUDA_FP8_DNN=0) */
    int fp8_tma;                 /* try the TMA kernels (variants I8_FP8_TMA_FIRST on; unless INFER8_CUDA_FP8_TMA=0) */
    int tma_grid_forced;         /* INFER8_CUDA_TMA_GRID=N: every TMA launch at most N blocks (tests) */
    int tma_store_off;           /* INFER8_CUDA_TMA_STORE=0: the TMA kernels' generic output stores (tests) */
    int tma_early_off;           /* INFER8_CUDA_TMA_EARLY=0: no tensor maps or weights ahead of the producer's loop (A/B) */
    int tma_store_drain;         /* INFER8_CUDA_TMA_STORE_DRAIN=1: blocks wait for their TMA stores' global writes (A/B) */
    int halo_prefetch;           /* INFER8_CUDA_HALO_PREFETCH=1 / 2: halo prefetch / pairs (slower) */
    int pdl_mode;                /* INFER8_CUDA_PDL: 0 never programmatic dependent launch, 1 (default) a timed
                                  * whole-graph choice (choose_launch), 2 always, untimed (tests) */
    int merge_mode;              /* INFER8_CUDA_MERGE: 0 never merge sibling 1x1s, 1 (default) a timed whole-graph
                                  * choice (choose_merge), 2 always on the BN 64 kernel, 3 on BN 128, untimed (tests) */
    cu_merge *merges;            /* sibling groups (i8_cuda_fp8_merge_plan) */
    int n_merges;
    int pair_mode;               /* INFER8_CUDA_PAIR: 0 (default: slower everywhere, sessions 54-56) never pair
                                  * kernels, 1 a timed and checked choice (choose_pair), 2 + v every pair on pair
                                  * variant v, untimed (tests) */
    cu_pair *pairs;              /* (i8_cuda_fp8_pair_plan) */
    int n_pairs;
    int sm_count;                /* the device's SMs: persistent kernels' grids (asked once, at prepare) */
    void *tma_encode_tiled, *tma_encode_im2col;
    int own_only;                /* INFER8_CUDA_OWN_VARIANT=v: a conv that own fp16 variant v fits runs on it,
                                  * untimed against the others (tests and diagnosis; -1: off) */
    i8_fp8_variant_set fp8_only; /* INFER8_CUDA_FP8_VARIANT=v[,v...]: a conv that one of these variants fits runs
                                  * the fastest of them, untried elsewhere (tests and diagnosis; empty: off) */
    i8_fp8_variant_set fp8_skip; /* INFER8_CUDA_FP8_SKIP=v[,v...], and the mixed-width im2col kernels under
                                  * INFER8_CUDA_FP8_MIXED=0: variants the tuning leaves out unless
                                  * INFER8_CUDA_FP8_VARIANT names them (whole-graph A/Bs; empty: off) */
    float *ones;                 /* n_ones 1.0f: the per-pixel B scale vector of those GEMMs */
    size_t n_ones;
    void *lt8_c;                 /* their C matrix (fp16, never read: beta 0) */
    int streams_used;
    /* calibration (i8_backend_options.collect_hist): host histograms per node, their device
     * copies (one i8_calib_hist each, index per node or -1) and the batch-max scratch word */
    struct i8_calib_hist **collect_host;
    struct i8_calib_hist *collect_dev;
    int *collect_index;
    int n_collect;
    unsigned *collect_scratch;
} cu_ctx;

/* FP8 (cuda_fp8.c). i8_cuda_fp8_plan runs after output placement and before arena planning:
 * gives a storage an e4m3 twin when some FP8 conv reads one of its nodes, all those reads use
 * one scale and every writer is an FP8 conv or a pool (which then write the twin); marks it
 * no_f16 when nothing reads it as fp16; grows bytes_per_image accordingly. Other FP8 reads
 * quantize the fp16 tensor while loading (counted in fp8_load_fallbacks where an FP8 conv
 * wrote it). Fails (INVALID_ARGUMENT) on an FP8 read of a tensor
 * without a usable out_scale or an FP8 conv without weight scales. No-op for graphs without
 * FP8 nodes. */
infer8_status i8_cuda_fp8_plan(cu_ctx *c, i8_err *err);
/* Host only (planning, sets fp8 and fp8_lt), so that memory can be planned without a device
 * (cuda_plan_memory); the device side is i8_cuda_fp8_setup, once prepare has planned: the FP8
 * kernels' shared-memory allowance, and the cuBLASLt e4m3 GEMMs' buffers (fp8_lt). */
infer8_status i8_cuda_fp8_setup(cu_ctx *c, i8_err *err);
/* launch(arg) captured as one graph, replayed once to warm up, then `replays` times: *ms their
 * milliseconds, return 0; 1 when it could not be captured or the warm-up failed (errors cleared:
 * time it otherwise); -1 when a timed replay failed (the error left for the caller to report).
 * Shared by the tuner's timing (time_plan) and the per-node profile (cuda_profile). */
int i8_cuda_captured_ms(cu_ctx *c, cudaStream_t s, int (*launch)(void *arg), void *arg, int replays, float *ms);
/* Uploads e4m3 weight codes (recovered exactly from the dequantized graph weights), the
 * per-channel multipliers and the fp32 bias of FP8 conv node i. */
infer8_status i8_cuda_fp8_upload(cu_ctx *c, int i, i8_err *err);
/* Fills the FP8 fields of sig for FP8 conv node (no-op for others). */
void i8_cuda_fp8_sig(const cu_ctx *c, int node, cu_conv_sig *sig);
/* Launches FP8 conv node with tile variant v for batch n. 0 or a cudaError_t. */
int i8_cuda_fp8_launch(cu_ctx *c, int n, const cu_conv_sig *sig, int node, int variant, cudaStream_t s, int wsi);
/* whether own FP8 kernel variant `variant` can run node at batch n (i8_cuda_conv_fp8_fits) */
int i8_cuda_fp8_fits(const cu_ctx *c, int n, const cu_conv_sig *sig, int node, int variant);
/* Largest power of two (<= 256) dividing the address. */
int i8_cuda_align_of(const void *p);
/* Creates p's cuBLASLt matmul descriptor as every conv GEMM here has it: D = W^T X in fp32
 * compute, bias (of bias_type, at device address bias) and relu in the epilogue; 1 on success.
 * The caller adds its scales and layouts; lt_destroy frees whatever was made. */
int i8_cuda_lt_desc(cu_ctx *c, cu_conv_plan *p, int relu, const void *bias, int32_t bias_type);
/* Asks cuBLASLt for up to max algorithms for p's descriptors with the backend's workspace and
 * the given minimum alignments (bytes) of A, B, C, D; returns how many (0 on any failure). */
int i8_cuda_lt_heuristic(cu_ctx *c, cu_conv_plan *p, uint32_t al_a, uint32_t al_b, uint32_t al_c, uint32_t al_d,
                         cublasLtMatmulHeuristicResult_t *res, int max);
/* cuBLASLt FP8 GEMM for a 1x1 FP8 conv (experimental, c->fp8_lt): whether sig qualifies (e4m3
 * input twin, one output format, no residual read as FP8), the descriptors of p with up to max
 * heuristic algorithms (count returned), a launch with p->tac.algo, and a check of its output
 * against the own FP8 kernel's (variant own_variant) on the current arena contents: 1 when at
 * most 1% of e4m3 codes differ and none by more than one step (fp16 outputs: within 1e-2 of
 * the largest magnitude). */
int i8_cuda_fp8_lt_fits(const cu_ctx *c, const cu_conv_sig *sig);
int i8_cuda_fp8_lt_setup(cu_ctx *c, int n, cu_conv_plan *p, int node, cublasLtMatmulHeuristicResult_t *res, int max);
int i8_cuda_fp8_lt_launch(cu_ctx *c, int n, const cu_conv_plan *p, int node, cudaStream_t s, int wsi);
int i8_cuda_fp8_lt_check(cu_ctx *c, int n, const cu_conv_plan *p, int node, int own_variant);
/* cuDNN e4m3 convolution graph (c->fp8_dnn; built and run in cuda_conv.c): whether
 * node qualifies (e4m3 input twin, 16-byte aligned twins, fp16 or no residual). */
int i8_cuda_fp8_dnn_fits(const cu_ctx *c, const cu_conv_sig *sig, int node);
/* The check of i8_cuda_fp8_lt_check for any launch: fills the input (its e4m3 twin, or its fp16
 * view when the conv quantizes while loading) with finite values, runs the own kernel
 * (own_variant) and then launch(user, stream), and compares the outputs. */
int i8_cuda_fp8_check(cu_ctx *c, int n, const cu_conv_sig *sig, int node, int own_variant,
                      int (*launch)(void *user, cudaStream_t s), void *user);
/* The same check between two variants of the own kernel (a wgmma variant against mma.sync). */
int i8_cuda_fp8_variant_check(cu_ctx *c, int n, const cu_conv_sig *sig, int node, int own_variant, int variant);
/* After every node's weights are on the device: the groups of FP8 1x1 convs without residual
 * that read one input's e4m3 twin with the same relu, whose outputs the merged kernel can write
 * (i8_cuda_conv_fp8_tma_multi_fits), at least two, at most I8_FP8_MAX_OUTS, each with its
 * concatenated weights (c->merges); a group's first node gets an event (its siblings on other
 * lanes wait for it when merged). No-op unless the graph has FP8 convs or with INFER8_CUDA_MERGE=0. */
infer8_status i8_cuda_fp8_merge_plan(cu_ctx *c, i8_err *err);
/* The problem signature of conv node `node` (what its tuning keys on). */
void i8_cuda_conv_sig(const cu_ctx *c, int node, cu_conv_sig *s);
/* Enqueues sibling group `group` of batch n as one conv on stream s (BN 128 if wide). */
int i8_cuda_fp8_merged_launch(cu_ctx *c, int n, int group, int wide, cudaStream_t s, int wsi);
/* Pairs (c->pairs, after the merge plan): an FP8 1x1 of stride 1 without residual whose output
 * (its e4m3 twin only; no fp16 reader, not the graph's output) only one FP8 spatial conv reads,
 * which a pair variant runs at batch 1, and whose input's storage the consumer's output
 * does not share (the pair kernel reads the one while it writes the other). No-op unless the
 * graph has FP8 convs or with INFER8_CUDA_PAIR=0. */
infer8_status i8_cuda_fp8_pair_plan(cu_ctx *c, i8_err *err);
/* whether pair variant v runs pair k at batch n; its launch (writing the second's outputs) */
int i8_cuda_fp8_pair_fits(const cu_ctx *c, int n, int k, int variant);
int i8_cuda_fp8_pair_launch(cu_ctx *c, int n, int k, int variant, cudaStream_t s, int wsi);
/* 1 when pair variant v's outputs for pair k at batch n (finite random input codes) agree with the
 * two convs run one after the other on the mma.sync kernel, as i8_cuda_fp8_check's rule; writes
 * the arena (tuning time only) */
int i8_cuda_fp8_pair_check(cu_ctx *c, int n, int k, int variant);
/* Device pointer of node i's e4m3 twin slice, NULL when its storage has none. */
void *i8_cuda_view_qptr(const cu_ctx *c, int node);

/* Device pointer of node i's output view (first channel of its slice). */
void *i8_cuda_view_ptr(const cu_ctx *c, int node);
int i8_cuda_view_ld(const cu_ctx *c, int node);

/* Chooses (tuning at batch b->n, or restoring b->preset) how conv node `node` runs, creating or
 * sharing a cu_conv_plan; fills b->node_plan, b->tactics and (cuDNN) b->varpack. */
infer8_status i8_cuda_conv_setup(cu_ctx *c, cu_batch *b, int node, i8_err *err);
/* the distinct fp16 conv problems (shape, layout) of batch b: those that share the cuDNN budget */
int i8_cuda_conv_fp16_problems(const cu_ctx *c, const cu_batch *b);
/* After every conv of the batch is set up: cuDNN e4m3 configs for the FP8 problems whose
 * tuning deferred them, largest own-kernel time (x convs sharing it) first, within the budget. */
infer8_status i8_cuda_conv_tune_deferred(cu_ctx *c, cu_batch *b, i8_err *err);
/* Swaps every FP8 plan that runs a TMA kernel and has an alternative (cu_conv_plan.alt) with
 * that alternative, and re-takes its convs (tactics and statistics); a second call swaps back.
 * Sets *swapped to the number of convs that changed. */
infer8_status i8_cuda_conv_swap_alt(cu_ctx *c, cu_batch *b, int *swapped, i8_err *err);
/* The own-kernel candidates of the whole-graph choice: mode 1 puts every FP8 plan won by cuDNN
 * e4m3 on its own kernel (cu_conv_plan.own), mode 2 also every halo winner (that own kernel
 * included) on its fastest kernel without halo (.nohalo). saved receives the b->n_plans tactics
 * before, for i8_cuda_conv_restore; *swapped: the convs whose tactic changed. */
infer8_status i8_cuda_conv_swap_own(cu_ctx *c, cu_batch *b, int mode, i8_cuda_tactic *saved, int *swapped, i8_err *err);
infer8_status i8_cuda_conv_restore(cu_ctx *c, cu_batch *b, const i8_cuda_tactic *saved, i8_err *err);
/* Enqueues conv node `node` of batch b on stream s using workspace and split-K counters of
 * stream index ws_index (only one launch at a time may use them).
 * Returns 0 or a nonzero library status. */
int i8_cuda_conv_launch(cu_ctx *c, cu_batch *b, int node, cudaStream_t s, int ws_index);
void i8_cuda_conv_free_batch(const cu_ctx *c, cu_batch *b);

#endif
