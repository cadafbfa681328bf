/* Activation calibration: one-pass |x| histogram with exact re-binning, and the max,
 * percentile, entropy (KL) and MSE amax searches adapted to FP8 e4m3. Definitions in
 * calibrate.h. */
#include "quant/calibrate.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "quant/fp8.h"

static const char *const method_names[] = {"max", "percentile", "entropy", "mse"};

const char *i8_calib_method_name(i8_calib_method m) {
    return (unsigned)m < I8_ARRAY_LEN(method_names) ? method_names[m] : "unknown";
}

int i8_calib_method_parse(const char *name, i8_calib_method *m) {
    for (size_t i = 0; name && i < I8_ARRAY_LEN(method_names); i++) {
        if (!strcmp(name, method_names[i])) {
            *m = (i8_calib_method)i;
            return 1;
        }
    }
    return 0;
}

void i8_calib_init(i8_calib_hist *h) { memset(h, 0, sizeof *h); }

/* Doubles the bin width once: bins (2i, 2i+1) merge into bin i. */
static void merge_pairs(i8_calib_hist *h) {
    for (size_t i = 0; i < I8_CALIB_BINS / 2; i++) h->bins[i] = h->bins[2 * i] + h->bins[2 * i + 1];
    memset(h->bins + I8_CALIB_BINS / 2, 0, sizeof(h->bins[0]) * (I8_CALIB_BINS / 2));
    h->width *= 2.0;
}

/* Values per OpenMP chunk: below this a tensor is binned by one thread. */
#define CALIB_PAR_MIN ((size_t)1 << 16)

void i8_calib_collect(i8_calib_hist *h, const float *x, size_t n) {
    /* Pass 1: the batch max decides the range before any value is binned, so every value of
     * the batch lands in the final bins directly (re-binning only ever merges old counts). */
    float bmax = 0.0f;
#ifdef _OPENMP
#pragma omp parallel for reduction(max : bmax) schedule(static) if (n >= CALIB_PAR_MIN)
#endif
    for (size_t k = 0; k < n; k++) {
        float a = fabsf(x[k]);
        if (a > bmax && a <= 3.40282347e38f) bmax = a;
    }
    if (bmax > h->amax) h->amax = bmax;
    if (h->width == 0.0 && h->amax > 0.0f) h->width = (double)h->amax / I8_CALIB_BINS;
    while (h->width > 0.0 && (double)h->amax > h->width * I8_CALIB_BINS) merge_pairs(h);
    /* Pass 2: counts are integers, so per-thread histograms summed in any order give the same
     * bins as one thread (the calibration stays deterministic for any thread count). */
    const double width = h->width;
    uint64_t nonfinite = 0, count = 0;
#ifdef _OPENMP
#pragma omp parallel if (n >= CALIB_PAR_MIN) reduction(+ : nonfinite, count)
#endif
    {
        uint64_t local[I8_CALIB_BINS];
        memset(local, 0, sizeof local);
#ifdef _OPENMP
#pragma omp for schedule(static)
#endif
        for (size_t k = 0; k < n; k++) {
            float a = fabsf(x[k]);
            if (!isfinite(a)) {
                nonfinite++;
                continue;
            }
            size_t idx = 0;
            if (a > 0.0f) {
                double q = (double)a / width; /* width > 0 here: a <= amax and amax > 0 */
                idx = q >= I8_CALIB_BINS ? I8_CALIB_BINS - 1 : (size_t)q;
            }
            local[idx]++;
            count++;
        }
#ifdef _OPENMP
#pragma omp critical(i8_calib_merge)
#endif
        for (size_t i = 0; i < I8_CALIB_BINS; i++) h->bins[i] += local[i];
    }
    h->nonfinite += nonfinite;
    h->count += count;
}

size_t i8_calib_top_bin(const i8_calib_hist *h) {
    size_t top = I8_CALIB_BINS;
    while (top > 0 && h->bins[top - 1] == 0) top--;
    return top;
}

/* Candidate threshold i (bins kept): i*w, never above the observed amax. */
static float candidate(const i8_calib_hist *h, size_t i) {
    double t = (double)i * h->width;
    return t < (double)h->amax ? (float)t : h->amax;
}

/* e4m3 code of bin j's center under inverse scale inv (monotone in j). */
static uint8_t center_code(const i8_calib_hist *h, size_t j, float inv) {
    float c = (float)(((double)j + 0.5) * h->width);
    return i8_fp8_from_f32(c * inv);
}

double i8_calib_entropy_kl(const i8_calib_hist *h, size_t i) {
    size_t top = i8_calib_top_bin(h);
    if (i < 1 || i > top || h->width <= 0.0) return NAN;
    /* Bin centers are quantized as the engine would quantize them (float32, times 1/scale). */
    float scale = i8_fp8_scale_from_amax(candidate(h, i));
    float inv = i8_fp8_inv_scale(scale);
    double np = 0.0, nq = 0.0, outliers = 0.0;
    for (size_t j = 0; j < top; j++) {
        np += (double)h->bins[j];
        if (j < i) nq += (double)h->bins[j];
        else outliers += (double)h->bins[j];
    }
    if (nq <= 0.0) return INFINITY;
    double kl = 0.0;
    size_t start = 0;
    while (start < i) {
        /* One e4m3 quantization level: the run of bins whose centers share a code. */
        uint8_t code = center_code(h, start, inv);
        size_t end = start + 1;
        while (end < i && center_code(h, end, inv) == code) end++;
        double group = 0.0, nonzero = 0.0;
        for (size_t j = start; j < end; j++) {
            group += (double)h->bins[j];
            if (h->bins[j]) nonzero += 1.0;
        }
        for (size_t j = start; j < end; j++) {
            double p = (double)h->bins[j] + (j == i - 1 ? outliers : 0.0);
            if (p <= 0.0) continue;
            if (h->bins[j] == 0) return INFINITY;
            double q = group / nonzero;
            kl += (p / np) * log((p / np) / (q / nq));
        }
        start = end;
    }
    return kl;
}

double i8_calib_mse_error(const i8_calib_hist *h, float a) {
    float s = i8_fp8_scale_from_amax(a);
    float inv = i8_fp8_inv_scale(s);
    size_t top = i8_calib_top_bin(h);
    double err = 0.0;
    for (size_t j = 0; j < top; j++) {
        if (!h->bins[j]) continue;
        float c = (float)(((double)j + 0.5) * h->width);
        double d = (double)i8_fp8_fake_quant(c, inv, s) - (double)c;
        err += (double)h->bins[j] * d * d;
    }
    return err;
}

static float percentile_amax(const i8_calib_hist *h, double percentile) {
    double target = percentile / 100.0 * (double)h->count;
    double before = 0.0;
    for (size_t j = 0; j < I8_CALIB_BINS; j++) {
        double c = (double)h->bins[j];
        if (c > 0.0 && before + c >= target) {
            double frac = (target - before) / c;
            if (frac < 0.0) frac = 0.0;
            double v = ((double)j + frac) * h->width;
            return v < (double)h->amax ? (float)v : h->amax;
        }
        before += c;
    }
    return h->amax;
}

static float entropy_amax(const i8_calib_hist *h) {
    size_t top = i8_calib_top_bin(h);
    size_t start = top < I8_CALIB_START_BIN ? top : I8_CALIB_START_BIN;
    if (start < 1) start = 1;
    size_t best = top;
    double best_kl = INFINITY;
    for (size_t i = start; i <= top; i++) {
        double kl = i8_calib_entropy_kl(h, i);
        if (kl <= best_kl) { /* <=: the last minimum, as ModelOpt */
            best_kl = kl;
            best = i;
        }
    }
    return candidate(h, best);
}

static float mse_amax(const i8_calib_hist *h) {
    size_t top = i8_calib_top_bin(h);
    size_t start = top < I8_CALIB_START_BIN ? top : I8_CALIB_START_BIN;
    if (start < 1) start = 1;
    float best = h->amax;
    double best_err = INFINITY;
    for (size_t i = start; i <= top; i++) {
        float a = candidate(h, i);
        double err = i8_calib_mse_error(h, a);
        if (err < best_err) { /* <: the first minimum, as ModelOpt */
            best_err = err;
            best = a;
        }
    }
    return best;
}

infer8_status i8_calib_compute_amax(const i8_calib_hist *h, i8_calib_method method, double percentile,
                                    const char *name, float *amax, i8_err *err) {
    const char *n = name ? name : "tensor";
    if (h->count == 0)
        return i8_fail(err, INFER8_E_INVALID_ARGUMENT, "%s: no finite values were collected for calibration", n);
    if (method == I8_CALIB_PERCENTILE && !(percentile >= 0.0 && percentile <= 100.0))
        return i8_fail(err, INFER8_E_INVALID_ARGUMENT, "%s: percentile %g is outside [0, 100]", n, percentile);
    if (h->amax == 0.0f) {
        *amax = 0.0f;
        return INFER8_OK;
    }
    switch (method) {
    case I8_CALIB_MAX: *amax = h->amax; return INFER8_OK;
    case I8_CALIB_PERCENTILE: *amax = percentile_amax(h, percentile); return INFER8_OK;
    case I8_CALIB_ENTROPY: *amax = entropy_amax(h); return INFER8_OK;
    case I8_CALIB_MSE: *amax = mse_amax(h); return INFER8_OK;
    }
    return i8_fail(err, INFER8_E_INVALID_ARGUMENT, "%s: unknown calibration method %d", n, (int)method);
}

infer8_status i8_calib_collect_hook(void *user, i8_graph *g, int node, int n, const float *const *inputs, i8_err *err) {
    i8_calib_collector *c = user;
    const i8_node *nd = &g->nodes[node];
    (void)err;
    if (nd->op != I8_OP_CONV) return INFER8_OK;
    for (int j = 0; j < nd->n_inputs && j < 2; j++) {
        const int p = nd->inputs[j];
        if (!c->hist[p] || c->seen[p] == c->batch_id) continue;
        const i8_node *pn = &g->nodes[p];
        i8_calib_collect(c->hist[p], inputs[j], (size_t)n * (size_t)pn->c * (size_t)pn->h * (size_t)pn->w);
        c->seen[p] = c->batch_id;
    }
    return INFER8_OK;
}

infer8_status i8_calib_collector_init(i8_calib_collector *c, const i8_graph *g, i8_err *err) {
    memset(c, 0, sizeof *c);
    c->n_nodes = g->n_nodes;
    const size_t nn = (size_t)g->n_nodes;
    if (!(c->hist = i8_calloc(nn, sizeof *c->hist, err)) || !(c->seen = i8_calloc(nn, sizeof *c->seen, err)))
        return INFER8_E_NOMEM;
    for (int k = 0; k < g->n_nodes; k++) {
        const i8_node *nd = &g->nodes[k];
        if (nd->op != I8_OP_CONV) continue;
        for (int j = 0; j < nd->n_inputs && j < 2; j++) {
            const int p = nd->inputs[j];
            if (c->hist[p]) continue;
            if (!(c->hist[p] = i8_malloc(sizeof(i8_calib_hist), err))) return INFER8_E_NOMEM;
            i8_calib_init(c->hist[p]);
            c->seen[p] = -1;
        }
    }
    return INFER8_OK;
}

void i8_calib_collector_free(i8_calib_collector *c) {
    if (c->hist)
        for (int k = 0; k < c->n_nodes; k++) free(c->hist[k]);
    free(c->hist);
    free(c->seen);
    memset(c, 0, sizeof *c);
}
