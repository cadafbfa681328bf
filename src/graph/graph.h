/* Graph IR shared by every family, pass and backend.
 *
 * A graph is a list of nodes in topological order (an input always precedes its users).
 * Every node produces one activation tensor of shape [N][c][h][w] per batch of N images
 * (N is chosen at run time). Weights live in a table owned by the graph, float32, in PyTorch
 * layout (conv: OIHW; linear: [out][in]); backends re-layout them as they need.
 *
 * Families build the *unoptimized* graph exactly as timm computes it (conv, batchnorm, relu,
 * pools, concat, scaled residual add, head). Passes then rewrite it in place:
 *   i8_pass_fold_batchnorm: conv -> batchnorm  becomes conv with bias
 *   i8_pass_fuse:           conv -> relu       becomes conv with act = RELU
 *                           1x1 conv (+bias) -> residual(x, conv) becomes conv with a residual
 *                           epilogue: out = act(x + scale * (conv + bias))
 *   i8_pass_sink_avgpool:   avgpool -> 1x1 conv becomes 1x1 conv -> avgpool with bias and act
 * Removed nodes are dropped and indices renumbered by i8_graph_compact.
 */
#ifndef I8_GRAPH_H
#define I8_GRAPH_H

#include <stdint.h>
#include <stdio.h>

#include "core/i8.h"

#define I8_NAME_MAX 96
#define I8_MAX_INPUTS 8

typedef enum i8_op {
    I8_OP_INPUT = 0,       /* the preprocessed image, [N][3][H][W] */
    I8_OP_CONV,            /* conv2d, groups 1, dilation 1, explicit zero padding */
    I8_OP_BATCHNORM,       /* inference batchnorm (removed by folding) */
    I8_OP_RELU,            /* stand-alone relu (removed by fusion) */
    I8_OP_MAXPOOL,         /* floor rounding, padding never counted */
    I8_OP_AVGPOOL,         /* count_include_pad as the node says */
    I8_OP_CONCAT,          /* along channels, inputs in order */
    I8_OP_RESIDUAL,        /* out = act(in0 + scale * in1) */
    I8_OP_GLOBAL_AVGPOOL,  /* [N][c][h][w] -> [N][c][1][1] */
    I8_OP_LINEAR,          /* [N][in] -> [N][out], with bias */
    I8_OP_COUNT
} i8_op;

typedef enum i8_act { I8_ACT_NONE = 0, I8_ACT_RELU = 1 } i8_act;

/* Storage / compute precision assigned to a node by the precision pass (later issues). */
typedef enum i8_precision { I8_PREC_FP32 = 0, I8_PREC_FP16 = 1, I8_PREC_FP8 = 2 } i8_precision;

typedef struct i8_weight {
    char name[I8_NAME_MAX + 32]; /* checkpoint key it came from, or derived ("x.conv.weight") */
    int ndim;
    int64_t shape[4];
    float *data;                 /* owned by the graph (malloc) */
} i8_weight;

typedef struct i8_node {
    char name[I8_NAME_MAX];      /* timm module path: "repeat.3.branch1.1", "maxpool_3a", "input" */
    i8_op op;
    int n_inputs;
    int inputs[I8_MAX_INPUTS];   /* node indices, each < this node's index */
    int c, h, w;                 /* output shape per image */

    /* conv and pools */
    int kh, kw;                  /* kernel */
    int sh, sw;                  /* stride */
    int ph, pw;                  /* symmetric zero padding */
    int count_include_pad;       /* avgpool only */

    /* conv / linear / batchnorm parameters: indices into graph->weights, -1 if absent */
    int weight;                  /* conv OIHW, linear [out][in] */
    int bias;                    /* conv / linear bias [out] */
    int bn_gamma, bn_beta, bn_mean, bn_var;
    float bn_eps;

    /* epilogue: conv (after fusion) and residual */
    i8_act act;
    int residual;                /* conv with fused residual: node index of x, else -1; x is
                                  * then also inputs[1] (n_inputs = 2) so liveness sees it */
    float residual_scale;        /* RESIDUAL: out = act(in0 + scale*in1); fused conv likewise */

    /* annotations */
    int block;                   /* residual block index 0..39 (IRv2) or -1 */
    i8_precision precision;      /* FP8: a conv whose input activation and weights are e4m3 */

    /* FP8 (set by the precision pass from a recipe and calibrated scales):
     * - out_scale: static per-tensor scale of this node's output, > 0 when any consumer reads
     *   it as FP8 ("one shared Quantize per tensor": every FP8 reader uses this scale;
     *   quantized value q = e4m3(x * (1.0f / out_scale)), dequantized q * out_scale, see
     *   quant/fp8.h). 0 when the output is never quantized.
     * - weight_scales: FP8 conv only, index into weights of a [out_c] tensor of per-output-
     *   channel scales (amax / 448 of the folded kernel); the conv's weight data then holds the
     *   dequantized values (e4m3 code * scale), so every executor sees identical numbers.
     * - residual_fp8: a fused residual conv whose residual input x is read as its FP8 copy
     *   (the study's "residual-fp8" variants) instead of the exact fp16/fp32 stream. */
    float out_scale;
    int weight_scales;
    int residual_fp8;
} i8_node;

typedef struct i8_graph {
    char arch[64];
    int n_nodes, cap_nodes;
    i8_node *nodes;
    int n_weights, cap_weights;
    i8_weight *weights;
    int input_c, input_h, input_w;
    int output;                  /* node index producing logits */
    int num_classes;
    /* trainable parameters of the source checkpoint as timm counts them (conv and linear
     * weights and biases, batchnorm weight and bias; not running statistics). Set by the
     * family builder before any pass, kept through folding so inspect reports the model's
     * count (IRv2: 55,843,464). */
    uint64_t checkpoint_parameters;
} i8_graph;

/* Lifecycle. i8_graph_init zeroes *g, records the input shape and appends node 0, the INPUT
 * node "input" (in_c x in_h x in_w); output starts at -1. On failure *g is left empty. */
infer8_status i8_graph_init(i8_graph *g, const char *arch, int in_c, int in_h, int in_w, i8_err *err);
void i8_graph_free(i8_graph *g);

/* Appends a node (copied; inputs/shape already set) and returns its index through *index. */
infer8_status i8_graph_add_node(i8_graph *g, const i8_node *node, int *index, i8_err *err);
/* Appends a weight that takes ownership of data (freed by the graph, also when this call
 * fails); returns its index through *index. */
infer8_status i8_graph_add_weight(i8_graph *g, const char *name, int ndim, const int64_t *shape, float *data,
                                  int *index, i8_err *err);
/* Fresh node with every index field at -1 and neutral attributes. */
i8_node i8_node_blank(i8_op op, const char *name);

/* Drops nodes whose op was set to I8_OP_COUNT (the "removed" marker) and weights no node
 * references, renumbering all indices. Inputs that pointed at a removed node must have been
 * rewired by the pass before. */
infer8_status i8_graph_compact(i8_graph *g, i8_err *err);

/* Structural checks: topological order, input counts per op, shape consistency, weight
 * shapes against the node. Used after building and after every pass. */
infer8_status i8_graph_validate(const i8_graph *g, i8_err *err);

/* Totals for inspect: */
typedef struct i8_graph_stats {
    int count_per_op[I8_OP_COUNT];
    int convolutions;
    uint64_t parameters;         /* elements of all weights except batchnorm running mean/var */
    uint64_t macs;               /* per image: conv + linear multiply-accumulates */
    uint64_t max_activation_elems; /* largest single activation per image */
} i8_graph_stats;
void i8_graph_compute_stats(const i8_graph *g, i8_graph_stats *stats);
uint64_t i8_node_macs(const i8_graph *g, const i8_node *n);

/* Readers of each node's output (the graph output counts as one): *uses is a malloc'ed
 * array of g->n_nodes counts that the caller frees. Fails only with INFER8_E_NOMEM. */
infer8_status i8_graph_count_uses(const i8_graph *g, int **uses, i8_err *err);

/* The critical path of a valid graph whose node i costs cost[i] (>= 0): the longest chain of
 * dependent nodes. Sets on_path[i] = 1 for each node whose longest chain through it costs at
 * least the longest chain's cost minus slack, else 0; *count gets how many, *longest (may be
 * NULL) that cost. Fails only with INFER8_E_NOMEM. */
infer8_status i8_graph_critical_path(const i8_graph *g, const double *cost, double slack, unsigned char *on_path,
                                     int *count, double *longest, i8_err *err);
/* The cost in ms given to a node other than a conv when convs are costed by their measured times
 * (the CUDA backend's priority choice; tests/tools/critical_path's default): pools, concats and
 * the classifier take a few us on the GPU, and their exact figure rarely moves the path. */
#define I8_CRITICAL_PATH_NONCONV_MS 0.002

/* Static names: "conv", "batchnorm", ... ("removed" for I8_OP_COUNT); "fp32", "fp16", "fp8". */
const char *i8_op_name(i8_op op);
const char *i8_precision_name(i8_precision p);

/* A conv that reads an e4m3 copy: its input (precision FP8) or its residual x (residual_fp8).
 * Only the reference executor's emulation and the CUDA backend run such nodes. */
int i8_node_reads_fp8(const i8_node *nd);
/* Whether input slot k of nd is read as that e4m3 copy (slot 0 of an FP8 conv, slot 1 of a
 * residual_fp8 conv whose residual x it is); every other read is of the fp16 values. */
int i8_node_reads_fp8_slot(const i8_node *nd, int k);
/* The node that read slot `slot` of nd takes, as the executors that emulate FP8 define reads:
 * slot 0 its first input (none for a concat, which copies its inputs as they are, or the input
 * node), slot 1 a conv's residual x or a residual add's second operand; -1 when there is none. */
int i8_node_read_slot(const i8_node *nd, int slot);

/* Passes (each validates its result). */
infer8_status i8_pass_fold_batchnorm(i8_graph *g, i8_err *err);
infer8_status i8_pass_fuse(i8_graph *g, i8_err *err);
/* After fuse, before any quantization: each average pool whose only reader is a 1x1 stride-1
 * conv runs after it instead, on the conv's narrower output, taking the conv's bias and act
 * (sink_avgpool.c says why it is exact). *n_sunk: pools moved. */
infer8_status i8_pass_sink_avgpool(i8_graph *g, int *n_sunk, i8_err *err);
/* What a loaded checkpoint goes through (api/checkpoint.c; tests that build a family's graph
 * directly call it to run what users run): fold_batchnorm, fuse, sink_avgpool (unless the
 * environment sets INFER8_SINK_AVGPOOL=0). *n_sunk (may be NULL): pools moved. */
infer8_status i8_pass_optimize(i8_graph *g, int *n_sunk, i8_err *err);
/* Splits each conv k with select[k] (select: g->n_nodes flags) into two whose weights sum to its
 * own: a new conv "<name>.lo" with W - fp16(W) (no bias, no act), inserted before it, and the
 * conv itself with fp16(W), its bias and act, reading "<name>.lo" as a fused residual of scale 1
 * (split_weights.c says why). Selected nodes must be convs that are not FP8 and have no fused
 * residual (INFER8_E_INVALID_ARGUMENT names the first that is). *n_split: convs split. On a
 * failure after the checks (out of memory) the graph is left unusable: free it. */
infer8_status i8_pass_split_weights(i8_graph *g, const uint8_t *select, int *n_split, i8_err *err);
/* Whether node k is the fp16(W) half of a split conv: a conv whose fused residual is the conv
 * "<its name>.lo" (for the build's provenance, which lists them). */
int i8_node_is_split(const i8_graph *g, int k);

/* Text listing: one line per node with name, op, kernel, stride, padding, input and output
 * shape, act, precision; then totals; then, for an FP8 graph, the FP8 scales (out_scale, each
 * FP8 conv's weight-scale range). Returns a malloc'ed string. */
infer8_status i8_graph_describe_text(const i8_graph *g, char **out, i8_err *err);
/* The same as JSON (an object per node, with out_scale / weight_scales / residual_fp8 where
 * present, then totals): a cJSON tree that the caller owns (NULL
 * and err when out of memory), to which infer8_model_describe adds sections before printing it
 * once. */
struct cJSON;
struct cJSON *i8_graph_describe_tree(const i8_graph *g, i8_err *err);

#endif
