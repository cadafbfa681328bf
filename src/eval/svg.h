/* Small self-contained SVG plots for the FP8 study report: latency per variant with its spread,
 * KL against speed-up per variant, and grouped bars (per-layer-type time, fp16 vs FP8). Plain
 * SVG 1.1 text, no scripts, fonts or external references; labels are XML-escaped (invalid UTF-8
 * and control characters become '?'); the same inputs give the same bytes; files are written
 * atomically. Non-finite values are not drawn and are marked "n/a". */
#ifndef I8_EVAL_SVG_H
#define I8_EVAL_SVG_H

#include <stddef.h>

#include "core/i8.h"

#define I8_SVG_MAX_ITEMS 1000     /* variants, points or groups in one plot */
#define I8_SVG_MAX_SERIES 8       /* bars per group */
#define I8_SVG_MAX_LABEL 120      /* bytes of a label drawn (longer ones are cut, on a UTF-8 boundary) */

typedef struct i8_svg_latency_item {
    const char *name;
    double median, min, max;    /* same unit; min <= median <= max expected (drawn as given) */
} i8_svg_latency_item;

/* Horizontal bars (median) with min-max whiskers, one row per item, in the given order, and the
 * value "median unit [min - max]" at the right. n in [1, I8_SVG_MAX_ITEMS]. */
infer8_status i8_svg_latency(const char *path, const char *title, const char *unit, const i8_svg_latency_item *items,
                             size_t n, i8_err *err);

typedef struct i8_svg_point {
    const char *name;
    double x, y;
} i8_svg_point;

/* Scatter of labelled points: x = speed-up over the baseline (a dashed line marks x = 1),
 * y = KL(ref || variant) from 0 up. n in [1, I8_SVG_MAX_ITEMS]. */
infer8_status i8_svg_kl_speedup(const char *path, const char *title, const i8_svg_point *points, size_t n,
                                i8_err *err);

typedef struct i8_svg_group {
    const char *name;           /* e.g. a layer type: "conv 1x1" */
    const double *values;       /* [nseries], e.g. {fp16 ms, fp8 ms} */
} i8_svg_group;

/* Vertical grouped bars from 0: one group per entry, one bar per series (colours and a legend
 * from series[]). nseries in [1, I8_SVG_MAX_SERIES], ngroups in [1, I8_SVG_MAX_ITEMS];
 * negative values are drawn as 0-height bars with their value. */
infer8_status i8_svg_grouped_bars(const char *path, const char *title, const char *unit, const char *const *series,
                                  size_t nseries, const i8_svg_group *groups, size_t ngroups, i8_err *err);

/* Appends s to *buf XML-escaped (see above), cut at max_bytes of input (0 = no cut). For tests
 * and other writers; *buf/len/cap form a malloc'ed growing string. */
infer8_status i8_svg_escape(char **buf, size_t *len, size_t *cap, const char *s, size_t max_bytes, i8_err *err);

#endif
