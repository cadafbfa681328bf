/* Internal interface of the CUDA backend (src/backends/cuda/): the per-node tactic record that
 * a bundle stores and restores (so a model need not be re-tuned on the same GPU), and a few
 * introspection calls for tests and tools. The ops table itself is i8_backend_cuda
 * (backends/backend.h). Host code is C11; only cuda_kernels.cu is CUDA. */
#ifndef I8_CUDA_BACKEND_H
#define I8_CUDA_BACKEND_H

#include <stddef.h>
#include <stdint.h>

#include "backends/backend.h"

/* How one convolution is executed. */
typedef enum i8_cuda_tactic_kind {
    I8_CUDA_TACTIC_NONE = 0,     /* not a convolution */
    I8_CUDA_TACTIC_OWN = 1,      /* own implicit-GEMM WMMA kernel (cuda_kernels.cu), any conv */
    I8_CUDA_TACTIC_CUBLASLT = 2, /* 1x1 stride 1 conv as a cuBLASLt GEMM with bias/ReLU epilogue */
    I8_CUDA_TACTIC_CUDNN = 3,    /* cuDNN 9 backend graph: conv -> +bias [-> +x] [-> relu] */
    I8_CUDA_TACTIC_FP8 = 4,      /* FP8 conv (precision I8_PREC_FP8): own e4m3 kernel, cuda_fp8.cu */
    I8_CUDA_TACTIC_FP8_LT = 5,   /* FP8 1x1 conv as a cuBLASLt e4m3 GEMM (INFER8_CUDA_FP8_LT=1, cuda_fp8.c) */
    I8_CUDA_TACTIC_FP8_DNN = 6   /* FP8 conv as a cuDNN e4m3 graph (off with INFER8_CUDA_FP8_DNN=0, cuda_conv.c) */
} i8_cuda_tactic_kind;
#define I8_CUDA_TACTIC_KINDS 7 /* formats/bundle.h accepts kinds up to I8_BUNDLE_TACTIC_KIND_MAX = 6 */

typedef struct i8_cuda_tactic {
    int kind;                    /* i8_cuda_tactic_kind */
    int variant;                 /* own: kernel variant; cuBLASLt / cuDNN: rank in the heuristic list */
    int64_t engine;              /* cuDNN: engine global index; otherwise -1 */
    uint64_t algo[8];            /* cuBLASLt: the opaque cublasLtMatmulAlgo_t (64 bytes), else 0 */
    float ms;                    /* measured per call at tuning (0 when restored) */
    uint32_t flags;              /* I8_CUDA_TACTIC_FLAG_*: the batch's stream-priority and launch choices */
    uint64_t workspace;          /* bytes */
} i8_cuda_tactic;

/* Flags of every node's record (any op, not only convs), so that a bundle restores the graph
 * as chosen instead of timing the choice again (choose_launch):
 * CHOSEN: the batch's graph was chosen with or without stream priorities; set on every record.
 * PRIORITY: this node runs on its lane's high-priority stream.
 * PDL: the batch's own FP8 kernels are launched with programmatic dependent launch; MERGE (and
 * MERGE_WIDE): its sibling 1x1 groups run merged (on the BN 128 kernel); each set on every record
 * or none, restored where the records carry CHOSEN. Mirrored by formats/bundle.h. */
#define I8_CUDA_TACTIC_FLAG_CHOSEN 1u
#define I8_CUDA_TACTIC_FLAG_PRIORITY 2u
#define I8_CUDA_TACTIC_FLAG_PDL 4u /* the batch's own FP8 kernels with programmatic dependent launch */
#define I8_CUDA_TACTIC_FLAG_MERGE 8u /* the batch's sibling 1x1 groups merged (choose_merge) */
#define I8_CUDA_TACTIC_FLAG_MERGE_WIDE 16u /* ... on the BN 128 kernel */
#define I8_CUDA_TACTIC_FLAG_PAIR 32u /* the batch's pairs (a 1x1 and its consumer) as one kernel (choose_pair) */
#define I8_CUDA_TACTIC_FLAG_PAIR_V0 64u /* a pair's 1x1: its pair variant + 1 in this bit and the next three (0: unpaired) */

/* Number of CUDA devices visible (0 when none or no driver); never fails. */
int i8_cuda_device_count(void);

/* Bytes of the activation arena planned at prepare (for max_batch images). */
size_t i8_cuda_arena_bytes(const void *ctx);

/* The tactic chosen for each node at batch size n (tuning and capturing that batch first if it
 * was not built yet): *tactics points at g->n_nodes records owned by ctx, valid until destroy.
 * Errors: INFER8_E_INVALID_ARGUMENT (n out of range), INFER8_E_DEVICE. */
infer8_status i8_cuda_tactics(void *ctx, int n, const i8_cuda_tactic **tactics, i8_err *err);

/* Presets tactics for batch size n (g->n_nodes records, copied) before that batch is built:
 * each conv then uses its preset when it still works on this GPU, and is tuned otherwise.
 * Fails with INFER8_E_INVALID_ARGUMENT when batch n is already built. */
infer8_status i8_cuda_preset_tactics(void *ctx, int n, const i8_cuda_tactic *tactics, i8_err *err);

/* Statistics of the last built batches, for reports: convolutions per tactic kind, distinct conv
 * problems tuned, seconds spent tuning, whether the forward runs as a captured CUDA graph. */
typedef struct i8_cuda_stats {
    int convs_per_kind[I8_CUDA_TACTIC_KINDS]; /* indexed by i8_cuda_tactic_kind */
    int problems;
    int cudnn_plans_tried, cudnn_plans_failed;
    int fp8_checks_failed;       /* cuDNN / cuBLASLt / wgmma FP8 candidates whose output differed from mma.sync's */
    int fp8_wgmma;               /* FP8 convs on the own kernel's wgmma variants */
    int fp8_tma;                 /* of those, on the TMA-fed persistent ones (cuda_fp8_tma.cu) */
    int fp8_halo;                /* of the wgmma ones, on the halo kernels (cuda_fp8.cu) */
    int halo_prefetch;           /* INFER8_CUDA_HALO_PREFETCH's mode the halo kernels launch under (0: off) */
    int fp8_load_fallbacks;      /* tensors an FP8 conv writes and FP8 convs read, without an e4m3 twin:
                                  * quantized from fp16 on load, one rounding more than docs/fp8.md says */
    int presets_kept;            /* convs that run the tactic preset for them (i8_cuda_preset_tactics) */
    int presets_retuned;         /* convs with a preset that did not run here and were tuned again */
    double tune_seconds;
    int cudnn_after_budget;      /* fp16 problems for which the cuDNN budget (or their share of it)
                                  * ran out after cuDNN's first config, with more untried (dnn_tune) */
    int cudnn_cut_short;         /* fp16 problems for which it ran out after two or more configs, with
                                  * more untried: tuned, but not over every config */
    int graph_captured;
    int kernel_nodes;            /* kernel nodes in the batch's forward graph as last captured, child graphs
                                  * included (-1: not read) */
    /* the whole-graph choice (ensure_batch): the captured graph's replay time as tuned conv by
     * conv and with the TMA kernels' convs on their fastest other own kernel (0 when not
     * timed), and which one runs (graph_plain 1: the latter) */
    float graph_tuned_ms, graph_plain_ms;
    int graph_plain, graph_swapped_convs;
    /* the own-kernel choice (choose_own, after the above): the graph as chosen so far, with the
     * convs won by cuDNN e4m3 on their own kernel ([0]), and also the halo kernels' convs on their
     * fastest kernel without halo ([1]); ms < 0 when not timed (nothing to move), 0 when the
     * choice did not run, as the merge choice's; graph_own: which runs (0 as before, 1 or 2 the
     * candidates); all timed interleaved. The _pdl_ms: each graph with PDL (< 0: not timed:
     * INFER8_CUDA_PDL=0, or that graph has no own FP8 kernel, so its PDL form is the plain one),
     * which counts in the choice where it is faster (launch_judged_ms) */
    float graph_base_ms, graph_own_ms[2], graph_base_pdl_ms, graph_own_pdl_ms[2];
    int graph_own_convs[2], graph_own;
    /* the launch choice (choose_launch, last): the graph's replay time for each combination of
     * the critical path's prio_nodes on high-priority streams (bit 0 of the index) and
     * programmatic dependent launch of the own FP8 kernels (bit 1): [0] neither, [1] priorities,
     * [2] PDL, [3] both; < 0 for a candidate not timed (the only one: forced or restored) or not
     * captured, 0 for one not allowed (INFER8_CUDA_PRIORITY / _PDL = 0, one stream, no own FP8
     * kernel, the other value forced or restored). graph_prio, graph_pdl: what runs. */
    float launch_ms[4];
    int graph_prio, prio_nodes, graph_pdl;
    int prio_restored, pdl_restored; /* 1: that half of the choice came from preset tactics' flags, untimed */
    /* the merge choice (choose_merge, before the launch one): sibling 1x1 groups (merge_groups),
     * the graph's replay time as chosen before and with them merged on the BN 64 / BN 128 kernel
     * (< 0 when not timed), and which one runs (graph_merge 0, 1 or 2); the _pdl_ms: each with
     * PDL (< 0: not timed: INFER8_CUDA_PDL=0, or the unmerged graph has no own FP8 kernel), which
     * counts where it is faster (launch_judged_ms) */
    int merge_groups, graph_merge, merge_restored;
    float graph_nomerge_ms, graph_merge_ms[2], graph_nomerge_pdl_ms, graph_merge_pdl_ms[2];
    /* the pair choice (choose_pair, after the merge one): pairs found, pairs given a variant
     * (faster alone than their two convs), their two convs' tuned times and theirs summed, the
     * graph's replay time as chosen before and with those pairs (< 0 when not timed), whether they
     * run (graph_pair 1) */
    int pairs, pairs_on, graph_pair, pair_restored;
    int pair_checks_failed;      /* pair variants left out: a pair's outputs disagreed with its two convs' */
    float pairs_two_ms, pairs_one_ms, graph_nopair_ms, graph_pair_ms;
    int streams_used;
    size_t arena_bytes, weight_bytes, workspace_bytes;
    int built;                   /* 1: batch n has been prepared (the rest is zero before) */
    double cudnn_budget_s;       /* the context's cuDNN plan-building budget per batch size */
} i8_cuda_stats;
void i8_cuda_get_stats(const void *ctx, int n, i8_cuda_stats *stats);
/* How batch n was tuned, as infer8_get_tuning reports it (every field but struct_size): the one
 * place the statistics map to the API's counts. Returns 0 when batch n has not been prepared. */
int i8_cuda_get_tuning(const void *ctx, int n, infer8_tuning *tuning);

/* 1 when t (a tactic of context ctx, whose cuBLASLt reads it) is a cuBLASLt tactic whose split-K
 * adds partial sums in the output type (fp16), which the tuner leaves out unless
 * INFER8_CUDA_LOSSY_ENGINES=1; 0 otherwise; -1 when its algorithm cannot be read. */
int i8_cuda_tactic_lossy_reduction(const void *ctx, const i8_cuda_tactic *t);

#endif
