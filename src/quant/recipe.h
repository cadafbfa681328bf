/* FP8 recipes: which convolutions of an optimized (folded, fused) graph run in FP8 e4m3.
 *
 * Built-in recipes (the spec string given to --recipe):
 *   default              the study's recipe: every convolution after the stem is FP8, the biased
 *                        1x1 residual projections included; the stem convolutions, the
 *                        classifier (a LINEAR, never FP8) and every pointwise op stay as they
 *                        are. The stem is everything before the first Inception block:
 *                          inception_resnet_v2: nodes before "mixed_5b"   (conv2d_1a .. conv2d_4a, 5 convs)
 *                          inception_v4:        nodes before "features.6" (features.0 .. features.5, 11 convs)
 *                          inception_v3:        nodes before "Mixed_5b"   (Conv2d_1a .. Conv2d_4a, 5 convs)
 *   none                 no FP8 layer (base of recipe files that list their layers)
 *   residual-fp8         default, plus every fused residual conv reads its residual input x as
 *                        the FP8 copy of x (node.residual_fp8 = 1)
 *   residual-fp8:A-B     the same for the fused residual convs of blocks A..B (node.block)
 *   PATH                 a recipe file (any spec containing '/' or ending in ".json"):
 *     {"format": "infer8-recipe", "version": 1, "base": "default" | "none",
 *      "include": ["glob", ...], "exclude": ["glob", ...], "residual_fp8": [first, last]}
 *     include/exclude/residual_fp8 are optional. Globs are fnmatch(3) patterns without flags
 *     ('*' also matches '.') on node names; include adds matching convolutions to the base
 *     set, then exclude removes matching ones. A pattern that matches no convolution of the
 *     graph is an error (typos must not silently change the recipe).
 *
 * "One shared Quantize per tensor": a tensor read as FP8 (the input of an FP8 conv, or the
 * residual x of a residual_fp8 conv) is quantized once with one static scale, the out_scale of
 * the node producing it; every FP8 reader shares it. */
#ifndef I8_QUANT_RECIPE_H
#define I8_QUANT_RECIPE_H

#include "core/i8.h"
#include "graph/graph.h"

typedef enum i8_recipe_base { I8_RECIPE_BASE_DEFAULT = 0, I8_RECIPE_BASE_NONE = 1 } i8_recipe_base;

typedef struct i8_fp8_recipe {
    char name[256];              /* spec or file path, used in messages and listings */
    i8_recipe_base base;
    char **include;              /* owned, n_include patterns */
    size_t n_include;
    char **exclude;              /* owned */
    size_t n_exclude;
    int residual_first, residual_last; /* blocks whose residual x is read as FP8; -1, -1 = none */
} i8_fp8_recipe;

/* Empties r (frees patterns); r is then the "default" recipe. */
void i8_fp8_recipe_free(i8_fp8_recipe *r);
/* r = the built-in recipe "default" (nothing to free, but i8_fp8_recipe_free is harmless). */
void i8_fp8_recipe_default(i8_fp8_recipe *r);

/* Parses a spec (see above): a built-in name, or a file path that is read (size capped by
 * limits->max_json_bytes; limits may be NULL). *out must be zeroed or freed; it is written only
 * on success. Errors: INFER8_E_INVALID_ARGUMENT (unknown name, bad block range: the message
 * lists the valid specs), INFER8_E_IO, and those of i8_fp8_recipe_parse_json. */
infer8_status i8_fp8_recipe_from_spec(const char *spec, const i8_limits *limits, i8_fp8_recipe *out, i8_err *err);
/* Parses recipe JSON text (size bytes, need not be NUL-terminated); `name` is used in messages,
 * which name the key at fault ("r.json: include[1]: expected a non-empty string").
 * Errors: INFER8_E_FORMAT (malformed JSON, wrong type, unknown key, bad base or range),
 * INFER8_E_MISSING_KEY (format, version or base absent), INFER8_E_UNSUPPORTED (other version),
 * INFER8_E_NOMEM. */
infer8_status i8_fp8_recipe_parse_json(const char *text, size_t size, const char *name, i8_fp8_recipe *out,
                                       i8_err *err);

/* The recipe applied to a graph: per node flags. */
typedef struct i8_fp8_plan {
    int n_nodes;
    uint8_t *fp8;                /* [n_nodes] 1 = conv runs FP8 */
    uint8_t *residual_fp8;       /* [n_nodes] 1 = fused residual conv reads x as FP8 */
    uint8_t *stem;               /* [n_nodes] 1 = node belongs to the stem */
    uint8_t *quantized;          /* [n_nodes] 1 = this node's output is read as FP8 (needs out_scale) */
    int n_convs, n_fp8, n_residual_fp8, n_quantized;
} i8_fp8_plan;

void i8_fp8_plan_free(i8_fp8_plan *p);
/* Index of the first node of the first Inception block of g (see the stem table above): nodes
 * before it form the stem. Errors: INFER8_E_UNSUPPORTED for an unknown arch,
 * INFER8_E_INVALID_ARGUMENT when the graph lacks the block. */
infer8_status i8_fp8_stem_end(const i8_graph *g, int *first_block_node, i8_err *err);
/* Applies r to g (an optimized graph: convs only are FP8 candidates). *p must be zeroed or freed;
 * written only on success. Errors: INFER8_E_INVALID_ARGUMENT (a pattern matching no
 * convolution, a residual range selecting no fused residual conv: both named), those of
 * i8_fp8_stem_end, INFER8_E_NOMEM. */
infer8_status i8_fp8_plan_make(const i8_graph *g, const i8_fp8_recipe *r, i8_fp8_plan *p, i8_err *err);
/* Listing of a plan: a summary line ("recipe default on inception_resnet_v2: 239 of 244
 * convolutions FP8, 5 not: conv2d_1a, ..."), then one line per convolution: precision
 * ("fp8"/"keep"), residual-x precision for fused residual convs, block, name. json != 0 gives
 * one JSON object instead. *out is malloc'ed. */
infer8_status i8_fp8_plan_describe(const i8_graph *g, const i8_fp8_recipe *r, const i8_fp8_plan *p, int json,
                                   char **out, i8_err *err);

/* The convs that an option's SPEC names (--split-weights, --adaptive-rounding): SPEC is a comma-separated
 * list of "stem" (every conv of the stem, as the recipes define it) and fnmatch(3) globs on node
 * names, each of which must match a convolution. *select is a calloc'ed g->n_nodes array of
 * flags (caller frees), *count how many are set. Errors: INFER8_E_INVALID_ARGUMENT (empty item,
 * a glob matching no convolution: named, with the option's name), those of i8_fp8_stem_end,
 * INFER8_E_NOMEM. */
infer8_status i8_conv_select(const i8_graph *g, const char *option, const char *spec, uint8_t **select, int *count,
                             i8_err *err);

#endif
