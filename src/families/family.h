/* Architecture families: one source file per family maps checkpoint keys to the graph IR.
 *
 * A family builder asks a weight source for every tensor the architecture needs, by its timm
 * state_dict key and expected shape; the source either returns float32 data or fails with an
 * error naming the key and the expected and found shapes. The same builders serve checkpoint
 * loading (source = safetensors files) and `infer8 synth` (source = generator that records
 * every key), so the key list exists once, in the family file.
 *
 * Builders produce the unoptimized graph: conv (no bias) -> batchnorm (eps 0.001) -> relu,
 * residual projections as conv with bias, then RESIDUAL nodes, pools, concat, head. */
#ifndef I8_FAMILY_H
#define I8_FAMILY_H

#include "graph/graph.h"

typedef struct i8_weight_source {
    void *ctx;
    /* On success *data is a malloc'ed float32 array of prod(shape) elements that the caller
     * owns. Must fail with INFER8_E_MISSING_KEY (key absent) or INFER8_E_SHAPE (message:
     * "<key>: expected shape [a, b, c, d], found [..]") and name the source file. */
    infer8_status (*get)(void *ctx, const char *key, int ndim, const int64_t *shape, float **data, i8_err *err);
} i8_weight_source;

typedef struct i8_family {
    const char *arch;                 /* timm architecture name */
    int default_size;                 /* 299 */
    float default_crop_pct;           /* 0.8975 (IRv2), 0.875 (v4, v3) */
    const char *first_conv;           /* pretrained_cfg first_conv */
    const char *classifier;           /* pretrained_cfg classifier ("classif", "last_linear", "fc") */
    int num_features;                 /* 1536, 1536, 2048 */
    /* Builds the graph for num_classes classes at input size in_h x in_w (any size >= 75 the
     * architecture supports; 299 by default). *g must be zeroed or hold a graph (e.g. fresh from
     * i8_graph_init): whatever it holds is freed and *g re-initialized (node 0 = INPUT 3 x in_h
     * x in_w). Also sets g->output, g->num_classes, g->checkpoint_parameters; the result is
     * validated. On failure *g is left empty (safe to i8_graph_free) and the status is that of
     * the weight source (INFER8_E_MISSING_KEY / INFER8_E_SHAPE, its message kept) or
     * INFER8_E_INVALID_ARGUMENT (input too small, num_classes < 1). */
    infer8_status (*build)(i8_graph *g, const i8_weight_source *src, int num_classes, int in_h, int in_w,
                           i8_err *err);
    /* Key prefixes present in checkpoints that the family ignores (e.g. "AuxLogits."), NULL-terminated. */
    const char *const *ignored_prefixes;
} i8_family;

/* NULL if arch is unknown. */
const i8_family *i8_family_find(const char *arch);
/* NULL-terminated list of all families. */
const i8_family *const *i8_family_list(void);

extern const i8_family i8_family_inception_resnet_v2;
extern const i8_family i8_family_inception_v4;
extern const i8_family i8_family_inception_v3;

/* ---- helpers shared by the family files (family_common.c) ---- */

/* Context threaded through a family build. */
typedef struct i8_builder {
    i8_graph *g;
    const i8_weight_source *src;
    i8_err *err;
    infer8_status status;             /* first failure; later calls become no-ops */
    int block;                        /* current residual block index, copied into new nodes */
} i8_builder;

/* Conv unit as timm's ConvNormAct ("CBR"): keys <prefix>.conv.weight [out][in][kh][kw],
 * <prefix>.bn.{weight,bias,running_mean,running_var}; eps 0.001; relu. Returns the relu node
 * index, or -1 after a failure (recorded in b->status / b->err). */
int i8_build_cbr(i8_builder *b, const char *prefix, int input, int out_c, int kh, int kw, int sh, int sw, int ph,
                 int pw);
/* Conv with bias and no norm (residual projections): keys <prefix>.weight, <prefix>.bias. */
int i8_build_conv_bias(i8_builder *b, const char *prefix, int input, int out_c, int kh, int kw);
int i8_build_maxpool(i8_builder *b, const char *name, int input, int k, int s, int p);
int i8_build_avgpool(i8_builder *b, const char *name, int input, int k, int s, int p, int count_include_pad);
int i8_build_concat(i8_builder *b, const char *name, const int *inputs, int n);
int i8_build_residual(i8_builder *b, const char *name, int x, int branch, float scale, i8_act act);
/* Global average pool ("global_pool") + linear named prefix with keys <prefix>.weight
 * [classes][features], <prefix>.bias; sets g->output and g->num_classes. */
int i8_build_head(i8_builder *b, const char *prefix, int input, int num_classes);

/* Starts a build: frees whatever *g holds (it must be zeroed or initialized), checks the arguments and calls i8_graph_init (3 x in_h x in_w,
 * node 0 = INPUT). Returns (and records in b->status) the first failure. */
infer8_status i8_build_begin(i8_builder *b, i8_graph *g, const i8_weight_source *src, const char *arch, int num_classes,
                             int in_h, int in_w, i8_err *err);
/* Ends a build: validates the graph if every step succeeded; on any failure frees *g (left
 * empty) and returns the first failure's status, its message in *b->err. */
infer8_status i8_build_end(i8_builder *b);

/* Node naming used by every helper: a CBR unit with module path M gives nodes "M" (conv),
 * "M.bn" and "M.act" (relu); after folding and fusion only "M" remains. Weights are named by
 * their checkpoint keys. A failed helper returns -1 and later helpers do nothing. */

#endif
