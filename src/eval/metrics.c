/* Quality metrics (metrics.h): plain double arithmetic; the per-image KL list makes every
 * statistic (mean, exact p99, max) reproducible from the same logits. */
#include "eval/metrics.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* a (at index ia) ranks above b (at ib): a number above NaN, then the larger value, then the
 * lower index (argmax's first occurrence). */
static int ranks_above(float a, size_t ia, float b, size_t ib) {
    int na = isnan(a), nb = isnan(b);
    if (na != nb) return nb;
    if (!na && a != b) return a > b;
    return ia < ib;
}

size_t i8_argmax(const float *x, size_t n) {
    size_t best = 0;
    for (size_t i = 1; i < n; i++)
        if (ranks_above(x[i], i, x[best], best)) best = i;
    return best;
}

int i8_in_topk(const float *x, size_t n, size_t c, size_t k) {
    if (c >= n || k == 0) return 0;
    size_t above = 0;
    for (size_t i = 0; i < n; i++)
        if (i != c && ranks_above(x[i], i, x[c], c) && ++above >= k) return 0;
    return 1;
}

static double log_sum_exp(const float *x, size_t n) {
    double mx = -INFINITY;
    for (size_t i = 0; i < n; i++)
        if ((double)x[i] > mx) mx = x[i];
    double s = 0.0;
    for (size_t i = 0; i < n; i++) s += exp((double)x[i] - mx);
    return mx + log(s);
}

double i8_kl_logits(const float *ref, const float *var, size_t n) {
    if (n == 0) return NAN; /* no distribution to compare */
    for (size_t i = 0; i < n; i++)
        if (!isfinite(ref[i])) return NAN;
    for (size_t i = 0; i < n; i++)
        if (!isfinite(var[i])) return INFINITY;
    double lr = log_sum_exp(ref, n), lv = log_sum_exp(var, n), kl = 0.0;
    for (size_t i = 0; i < n; i++) {
        double lp = (double)ref[i] - lr, lq = (double)var[i] - lv;
        kl += exp(lp) * (lp - lq);
    }
    return kl > 0.0 ? kl : 0.0;
}

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

double i8_percentile(const double *v, size_t n, double q) {
    if (n == 0) return NAN;
    double *s = malloc(n * sizeof *s);
    if (!s) return NAN;
    memcpy(s, v, n * sizeof *s);
    qsort(s, n, sizeof *s, cmp_double);
    if (q < 0) q = 0;
    if (q > 100) q = 100;
    double pos = q / 100.0 * (double)(n - 1);
    size_t lo = (size_t)pos;
    if (lo >= n - 1) {
        double r = s[n - 1];
        free(s);
        return r;
    }
    double frac = pos - (double)lo, a = s[lo], b = s[lo + 1];
    /* numpy's form; a == b (also both Inf) returns a without Inf - Inf */
    double r = a == b ? a : a + (b - a) * frac;
    free(s);
    return r;
}

infer8_status i8_metrics_init(i8_metrics *m, size_t num_classes, i8_err *err) {
    memset(m, 0, sizeof *m);
    if (num_classes < 1) return i8_fail(err, INFER8_E_INVALID_ARGUMENT, "metrics need at least one class");
    m->num_classes = num_classes;
    return INFER8_OK;
}

void i8_metrics_free(i8_metrics *m) {
    if (!m) return;
    free(m->kl);
    memset(m, 0, sizeof *m);
}

infer8_status i8_metrics_add(i8_metrics *m, const float *ref, const float *var, int label, i8_err *err) {
    size_t n = m->num_classes;
    if (!var || n == 0) return i8_fail(err, INFER8_E_INVALID_ARGUMENT, "metrics: no variant logits");
    if (label < -1 || (label >= 0 && (size_t)label >= n))
        return i8_fail(err, INFER8_E_INVALID_ARGUMENT, "metrics: label %d not in [0, %zu)", label, n);
    if (ref) {
        for (size_t i = 0; i < n; i++)
            if (!isfinite(ref[i]))
                return i8_fail(err, INFER8_E_INVALID_ARGUMENT, "metrics: reference logit %zu of image %llu is %f", i,
                               (unsigned long long)m->images, (double)ref[i]);
        if (m->kl_count == m->kl_cap) {
            size_t cap = m->kl_cap ? m->kl_cap * 2 : 1024;
            double *k = i8_realloc(m->kl, cap * sizeof *k, err);
            if (!k) return INFER8_E_NOMEM;
            m->kl = k;
            m->kl_cap = cap;
        }
    }
    int nonfinite = 0;
    for (size_t i = 0; i < n; i++) {
        if (isnan(var[i])) m->nan_logits++, nonfinite = 1;
        else if (isinf(var[i])) m->inf_logits++, nonfinite = 1;
    }
    m->nonfinite_images += (uint64_t)nonfinite;
    m->images++;
    if (label >= 0) {
        m->labelled++;
        m->top1_correct += i8_argmax(var, n) == (size_t)label;
        m->top5_correct += (uint64_t)i8_in_topk(var, n, (size_t)label, 5);
    }
    if (ref) {
        m->compared++;
        m->agree_top1 += i8_argmax(var, n) == i8_argmax(ref, n);
        for (size_t i = 0; i < n; i++) {
            if (!isfinite(var[i])) continue;
            double e = fabs((double)var[i] - (double)ref[i]);
            if (e > m->max_abs_logit_err) m->max_abs_logit_err = e;
        }
        m->kl[m->kl_count++] = i8_kl_logits(ref, var, n);
    }
    return INFER8_OK;
}

void i8_metrics_summarize(const i8_metrics *m, i8_metrics_summary *s) {
    memset(s, 0, sizeof *s);
    s->images = m->images;
    s->labelled = m->labelled;
    s->compared = m->compared;
    s->top1 = m->labelled ? (double)m->top1_correct / (double)m->labelled : NAN;
    s->top5 = m->labelled ? (double)m->top5_correct / (double)m->labelled : NAN;
    s->agreement = m->compared ? (double)m->agree_top1 / (double)m->compared : NAN;
    s->kl_mean = s->kl_p99 = s->kl_max = NAN;
    if (m->kl_count) {
        double sum = 0.0, mx = 0.0;
        for (size_t i = 0; i < m->kl_count; i++) {
            sum += m->kl[i];
            if (m->kl[i] > mx) mx = m->kl[i];
        }
        s->kl_mean = sum / (double)m->kl_count;
        s->kl_max = mx;
        s->kl_p99 = i8_percentile(m->kl, m->kl_count, 99.0);
    }
    s->max_abs_logit_err = m->max_abs_logit_err;
    s->nan_logits = m->nan_logits;
    s->inf_logits = m->inf_logits;
    s->nonfinite_images = m->nonfinite_images;
}
