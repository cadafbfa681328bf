/* FP8 graph transform: applies a recipe (quant/recipe.h) and calibrated activation scales
 * (quant/scales.h, scales.json) to an optimized graph, producing the FP8 graph every executor
 * runs (CPU emulation in the reference executor, CUDA FP8 kernels, bundles).
 *
 * For each conv the recipe makes FP8:
 *   - per-output-channel weight scales s[o] = amax_o / 448 of the batch-norm-folded kernel
 *     (i8_fp8_weight_scales), stored as a new graph weight "<node>.weight_scale" [out_c] and
 *     referenced by node.weight_scales;
 *   - the conv's weight data is replaced by its dequantized values i8_fp8_to_f32(q) * s[o] with
 *     q = e4m3(w * (1.0f / s[o])), so executors that do not read e4m3 codes see the same numbers
 *     (and an e4m3 encoder recovers q exactly);
 *   - node.precision = I8_PREC_FP8.
 * For each tensor read as FP8 (the input of an FP8 conv; the residual x of a residual_fp8 conv,
 * which also gets node.residual_fp8 = 1), the producing node's out_scale = the "scale" of the
 * scales.json entry named after that node. The emulation semantics are in docs/fp8.md. */
#ifndef I8_QUANT_QUANTIZE_H
#define I8_QUANT_QUANTIZE_H

#include "core/i8.h"
#include "graph/graph.h"
#include "quant/recipe.h"
#include "quant/scales.h"

/* Applies recipe r with activation_scales to g (see above). g must not be FP8 already.
 * Errors (the graph is untouched): INFER8_E_MISSING_KEY when a tensor read as FP8 has no entry
 * in activation_scales (names the tensor and the scales source), INFER8_E_FORMAT for a scale
 * whose inverse is not finite or a NaN/Inf weight, INFER8_E_INVALID_ARGUMENT (graph already
 * FP8, recipe errors of i8_fp8_plan_make), INFER8_E_UNSUPPORTED (arch without a stem rule).
 * INFER8_E_NOMEM may leave extra unreferenced scale weights but no node changed. */
infer8_status i8_quantize_graph_fp8(i8_graph *g, const i8_fp8_recipe *r, const i8_scales *activation_scales,
                                    i8_err *err);

/* Convenience for tools and bundles: parses recipe_spec (i8_fp8_recipe_from_spec: "default",
 * "residual-fp8:10-39", a recipe .json, ...), reads scales_path (scales.json) and calls
 * i8_quantize_graph_fp8. limits may be NULL. Messages name the scales file. */
infer8_status i8_quantize_graph_fp8_files(i8_graph *g, const char *recipe_spec, const char *scales_path,
                                          const i8_limits *limits, i8_err *err);

#endif
