/* Quality metrics of one model variant against a reference (the FP8 study's quality columns):
 * top-1 / top-5 accuracy against labels, top-1 agreement with the reference, KL(ref || variant)
 * of the softmax distributions per image (double precision, log-sum-exp) with mean, p99 and max,
 * the largest absolute logit error, and NaN / Inf counts. Accumulated one image at a time; the
 * per-image KL values are kept so p99 is exact (the study has a few thousand images). */
#ifndef I8_EVAL_METRICS_H
#define I8_EVAL_METRICS_H

#include <stddef.h>
#include <stdint.h>

#include "core/i8.h"

typedef struct i8_metrics {
    size_t num_classes;
    uint64_t images;            /* images added */
    uint64_t labelled;          /* of which with a label >= 0 */
    uint64_t top1_correct;      /* variant's top-1 == label */
    uint64_t top5_correct;      /* label among the variant's 5 highest logits */
    uint64_t compared;          /* images added with reference logits */
    uint64_t agree_top1;        /* variant's top-1 == reference's top-1 */
    uint64_t nan_logits;        /* NaN values among the variant's logits */
    uint64_t inf_logits;        /* +-Inf values among the variant's logits */
    uint64_t nonfinite_images;  /* images with at least one non-finite variant logit */
    double max_abs_logit_err;   /* max |variant - reference| over finite pairs */
    double *kl;                 /* per compared image, in order (owned) */
    size_t kl_count, kl_cap;
} i8_metrics;

typedef struct i8_metrics_summary {
    uint64_t images, labelled, compared;
    double top1, top5;          /* fractions of labelled images; NaN when none are labelled */
    double agreement;           /* fraction of compared images; NaN when none */
    double kl_mean, kl_p99, kl_max;  /* NaN when none compared; +Inf when a variant was non-finite */
    double max_abs_logit_err;   /* 0 when none compared */
    uint64_t nan_logits, inf_logits, nonfinite_images;
} i8_metrics_summary;

/* num_classes >= 1 (else INFER8_E_INVALID_ARGUMENT). Free with i8_metrics_free. */
infer8_status i8_metrics_init(i8_metrics *m, size_t num_classes, i8_err *err);
void i8_metrics_free(i8_metrics *m);
/* Adds one image: var = the variant's num_classes logits; ref = the reference's (NULL: only
 * accuracy and the NaN/Inf scan, as for inputs without a reference); label -1 = none, else it
 * must be < num_classes (INFER8_E_INVALID_ARGUMENT). Ranking puts NaN below every number and
 * breaks ties by the lower class index (as argmax). An image whose variant logits are not all
 * finite gets KL = +Inf; a non-finite reference is INFER8_E_INVALID_ARGUMENT (the reference
 * must be sound). INFER8_E_NOMEM when the KL list cannot grow. */
infer8_status i8_metrics_add(i8_metrics *m, const float *ref, const float *var, int label, i8_err *err);
void i8_metrics_summarize(const i8_metrics *m, i8_metrics_summary *out);

/* KL(softmax(ref) || softmax(var)) in double with log-sum-exp; +Inf when var is not all finite,
 * NaN when ref is not or n = 0. Never negative (rounding below 0 is returned as 0). */
double i8_kl_logits(const float *ref, const float *var, size_t n);
/* Index of the largest value (NaN lowest, first index on ties). */
size_t i8_argmax(const float *x, size_t n);
/* Whether class c is among the k highest of x under the same ranking. */
int i8_in_topk(const float *x, size_t n, size_t c, size_t k);
/* Percentile q in [0, 100] of v (n >= 1), linear interpolation between closest ranks as
 * numpy.percentile's default: position q/100 * (n - 1) of the sorted values. v is not modified;
 * NaN when n == 0 or the copy cannot be allocated. */
double i8_percentile(const double *v, size_t n, double q);

#endif
