/* Activation calibration for FP8 e4m3: a per-tensor collector fed batches of values in one
 * pass (running amax and a histogram of |x|), and the amax/scale computation by method:
 *
 *   max         amax = largest |x| seen (ModelOpt FP8_DEFAULT_CFG, the study's recipe).
 *   percentile  amax = the p-th percentile of |x| read from the histogram, linearly interpolated
 *               inside the bin that holds it and capped at the max. (ModelOpt returns the lower
 *               edge of that bin; interpolation is within the same bin and makes p = 100 give
 *               the max.)
 *   entropy     TensorRT's KL-divergence threshold search (as in ModelOpt's
 *               _compute_amax_entropy) with the int8 grid replaced by the e4m3 grid; see below.
 *   mse         ModelOpt's histogram MSE search with e4m3 fake quantization; see below.
 * Then scale = i8_fp8_scale_from_amax(amax) = amax / 448.
 *
 * Histogram: I8_CALIB_BINS bins of equal width w over [0, I8_CALIB_BINS * w); bin i counts
 * |x| in [i*w, (i+1)*w) (|x| == range goes to the last bin). The first batch with a nonzero
 * value sets w = its max / I8_CALIB_BINS (zeros seen before that are already in bin 0). When a
 * later batch's max exceeds the range, the histogram is re-binned by doubling w as often as
 * needed, each time merging bin pairs (2i, 2i+1) into bin i. Merging is exact: every old bin
 * lies inside one new bin, so the result equals a histogram built in one pass with the final
 * w, except that a value equal to the range when it arrived stays in (the successor of) the
 * last bin of that time instead of the bin that starts at that edge (and values within double
 * rounding of an edge). The range therefore ends in [amax, 2*amax), so at least 1024 bins
 * cover [0, amax]. (ModelOpt instead keeps w and appends bins; a fixed bin count bounds memory
 * and the cost of the searches.) NaN and +-Inf are not binned; they are counted in
 * `nonfinite` so callers can report them.
 *
 * Entropy, e4m3 adaptation. For each candidate i in [start, top] (top = index after the last
 * nonzero bin, start = min(128, top)), threshold T_i = min(i*w, amax):
 *   P = bins[0..i-1] with the count of all bins >= i added to bin i-1 (clipped mass);
 *   Q: bins j < i are grouped by the e4m3 code their center gets when quantized as the engine
 *      would with the threshold mapped to 448: code = e4m3(c_j * inv_scale) in float32, with
 *      c_j = (float)((j + 0.5) * w) and inv_scale = 1 / i8_fp8_scale_from_amax(T_i); each
 *      group's count (from the original, unclipped bins) is spread evenly over the group's
 *      nonzero bins (zero bins stay zero);
 *   KL(P || Q) after normalizing each to sum 1 (infinite when P > 0 where Q == 0).
 * The threshold with the smallest KL wins, ties to the larger threshold (ModelOpt's last
 * argmin). The int8 version groups bins into 128 equal levels; here the groups follow the
 * non-uniform e4m3 grid, so the fine levels near zero keep single bins exact and only the
 * coarse top binades merge bins. ModelOpt's bins[0] = bins[1] tweak (against a ReLU zero spike)
 * is not applied: bin 0 always forms its own e4m3 group, so it adds nothing to the KL and
 * cannot move the argmin.
 *
 * MSE. For each candidate i in [start, top], a_i = min(i*w, amax), s = amax->scale(a_i):
 *   err(a_i) = sum_j bins[j] * (fake_quant(c_j) - c_j)^2, c_j = (float)((j + 0.5) * w),
 * fake_quant as i8_fp8_fake_quant with s (values above a_i saturate to it). The smallest err
 * wins, ties to the smaller amax (ModelOpt's argmin). ModelOpt's candidates are bin centers;
 * here they are bin upper edges with the last one equal to amax, so "no clipping" is a
 * candidate. */
#ifndef I8_QUANT_CALIBRATE_H
#define I8_QUANT_CALIBRATE_H

#include "core/i8.h"
#include "graph/graph.h"

#define I8_CALIB_BINS 2048
#define I8_CALIB_START_BIN 128

typedef enum i8_calib_method {
    I8_CALIB_MAX = 0,
    I8_CALIB_PERCENTILE = 1,
    I8_CALIB_ENTROPY = 2,
    I8_CALIB_MSE = 3
} i8_calib_method;

/* "max", "percentile", "entropy", "mse". */
const char *i8_calib_method_name(i8_calib_method m);
/* Parses a method name; returns 1 and sets *m, or 0 for an unknown name. */
int i8_calib_method_parse(const char *name, i8_calib_method *m);

/* One tensor's statistics. Plain data: zero it (or call i8_calib_init) and feed it. */
typedef struct i8_calib_hist {
    float amax;                      /* largest finite |x| seen */
    double width;                    /* bin width; 0 until a nonzero value is seen */
    uint64_t count;                  /* finite values seen (including zeros) */
    uint64_t nonfinite;              /* NaN / Inf values seen (not in the histogram) */
    uint64_t bins[I8_CALIB_BINS];
} i8_calib_hist;

void i8_calib_init(i8_calib_hist *h);
/* Adds n values (any sign) to h: one pass, no allocation, never fails. */
void i8_calib_collect(i8_calib_hist *h, const float *x, size_t n);
/* Index one past the last nonzero bin (0 when the histogram is empty or all zeros). */
size_t i8_calib_top_bin(const i8_calib_hist *h);

/* The calibrated amax of h by method (percentile in [0, 100], used by I8_CALIB_PERCENTILE
 * only). `name` (may be NULL) is used in messages. Result in [0, h->amax]; 0 when every value
 * was zero. Errors: INFER8_E_INVALID_ARGUMENT when no finite value was collected or the
 * percentile is outside [0, 100]. The scale is i8_fp8_scale_from_amax(*amax). */
infer8_status i8_calib_compute_amax(const i8_calib_hist *h, i8_calib_method method, double percentile,
                                    const char *name, float *amax, i8_err *err);

/* The entropy search's KL(P || Q) for candidate i (1 <= i <= top; T_i as above), exposed for
 * tests and reports. Returns INFINITY where Q misses mass of P, NAN for an invalid i. */
double i8_calib_entropy_kl(const i8_calib_hist *h, size_t i);
/* The MSE search's histogram error for a candidate amax a > 0 (sum over bins of count * squared
 * fake-quant error of the bin center; values above a saturate). */
double i8_calib_mse_error(const i8_calib_hist *h, float a);

/* Collection during a reference-executor run: hist[p] (NULL = not collected) receives the output
 * of node p once per batch, when the first conv reading it (as input or residual x) is about to
 * run. The caller allocates hist and seen ([n_nodes], seen zeroed or -1) and bumps batch_id
 * before each batch. */
typedef struct i8_calib_collector {
    i8_calib_hist **hist;
    long *seen;     /* [n_nodes] batch id of the last collection */
    long batch_id;
    int n_nodes;
} i8_calib_collector;

/* Sets c up for g: an empty histogram for every tensor read by a conv (input or residual x), the
 * others NULL; seen -1. On failure (INFER8_E_NOMEM) c holds what was allocated; free it either
 * way with i8_calib_collector_free. */
infer8_status i8_calib_collector_init(i8_calib_collector *c, const i8_graph *g, i8_err *err);
void i8_calib_collector_free(i8_calib_collector *c);

/* The pre_node_hook (backends/backend.h) that feeds an i8_calib_collector (user). */
infer8_status i8_calib_collect_hook(void *user, i8_graph *g, int node, int n, const float *const *inputs, i8_err *err);

#endif
