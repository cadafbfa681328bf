/* SVG plot writers (svg.h). Each plot is built in memory as text and written with
 * i8_write_file_atomic. Numbers are printed with fixed formats, so output is deterministic. */
#include "eval/svg.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct sb {
    char *s;
    size_t len, cap;
    i8_err *err;
    infer8_status st;
} sb;

static int sb_grow(sb *b, size_t extra) {
    if (b->st != INFER8_OK) return 0;
    size_t need;
    if (!i8_add_size(b->len, extra + 1, &need)) {
        b->st = i8_fail(b->err, INFER8_E_LIMIT, "SVG text too large");
        return 0;
    }
    if (need <= b->cap) return 1;
    size_t cap = b->cap ? b->cap : 4096;
    while (cap < need) cap *= 2;
    char *p = i8_realloc(b->s, cap, b->err);
    if (!p) {
        b->st = INFER8_E_NOMEM;
        return 0;
    }
    b->s = p;
    b->cap = cap;
    return 1;
}

static void sb_printf(sb *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void sb_printf(sb *b, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (n < 0 || !sb_grow(b, (size_t)n)) return;
    va_start(ap, fmt);
    vsnprintf(b->s + b->len, (size_t)n + 1, fmt, ap);
    va_end(ap);
    b->len += (size_t)n;
}

/* Length of a valid UTF-8 sequence at p (at most `left` bytes), 0 if invalid. */
static size_t utf8_len(const unsigned char *p, size_t left) {
    unsigned c = p[0];
    size_t n;
    unsigned min;
    if (c < 0x80) return 1;
    if (c >= 0xC2 && c <= 0xDF) n = 2, min = 0x80;
    else if (c >= 0xE0 && c <= 0xEF) n = 3, min = 0x800;
    else if (c >= 0xF0 && c <= 0xF4) n = 4, min = 0x10000;
    else return 0;
    if (n > left) return 0;
    unsigned cp = c & (0x7F >> n);
    for (size_t i = 1; i < n; i++) {
        if ((p[i] & 0xC0) != 0x80) return 0;
        cp = (cp << 6) | (p[i] & 0x3F);
    }
    if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF) || cp == 0xFFFE || cp == 0xFFFF) return 0;
    return n;
}

infer8_status i8_svg_escape(char **buf, size_t *len, size_t *cap, const char *s, size_t max_bytes, i8_err *err) {
    sb b = {*buf, *len, *cap, err, INFER8_OK};
    const unsigned char *p = (const unsigned char *)(s ? s : "");
    size_t left = strlen((const char *)p);
    int cut = max_bytes && left > max_bytes;
    if (cut) left = max_bytes;
    while (left && b.st == INFER8_OK) {
        size_t n = utf8_len(p, left);
        if (n == 0 && cut && left < 4 && p[0] >= 0xC2) break;  /* a sequence cut by max_bytes */
        const char *rep = NULL;
        char one[2] = {0, 0};
        if (n == 0 || (n == 1 && p[0] < 0x20) || p[0] == 0x7F) rep = "?", n = n ? n : 1;
        else if (p[0] == '&') rep = "&amp;";
        else if (p[0] == '<') rep = "&lt;";
        else if (p[0] == '>') rep = "&gt;";
        else if (p[0] == '"') rep = "&quot;";
        else if (p[0] == '\'') rep = "&apos;";
        if (rep) sb_printf(&b, "%s", rep);
        else if (n == 1) {
            one[0] = (char)p[0];
            sb_printf(&b, "%s", one);
        } else if (sb_grow(&b, n)) {
            memcpy(b.s + b.len, p, n);
            b.len += n;
            b.s[b.len] = 0;
        }
        p += n;
        left -= n;
    }
    if (b.st == INFER8_OK && !b.s && sb_grow(&b, 0)) b.s[0] = 0;
    *buf = b.s;
    *len = b.len;
    *cap = b.cap;
    return b.st;
}

static void sb_text(sb *b, const char *s) {
    if (b->st != INFER8_OK) return;
    b->st = i8_svg_escape(&b->s, &b->len, &b->cap, s, I8_SVG_MAX_LABEL, b->err);
}

/* A "nice" tick step (1, 2 or 5 times a power of ten) for about `ticks` ticks over span. */
static double nice_step(double span, int ticks) {
    if (!(span > 0) || !isfinite(span)) return 1.0;
    double raw = span / ticks, mag = pow(10.0, floor(log10(raw))), f = raw / mag;
    double m = f <= 1.0 ? 1.0 : f <= 2.0 ? 2.0 : f <= 5.0 ? 5.0 : 10.0;
    return m * mag;
}

static const char *COLOURS[I8_SVG_MAX_SERIES] = {"#4c72b0", "#dd8452", "#55a868", "#c44e52",
                                                 "#8172b3", "#937860", "#da8bc3", "#8c8c8c"};

static void header(sb *b, double w, double h, const char *title) {
    sb_printf(b,
              "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
              "<svg xmlns=\"http://www.w3.org/2000/svg\" version=\"1.1\" width=\"%.0f\" height=\"%.0f\" "
              "viewBox=\"0 0 %.0f %.0f\" font-family=\"sans-serif\" font-size=\"12\">\n"
              "<rect x=\"0\" y=\"0\" width=\"%.0f\" height=\"%.0f\" fill=\"#ffffff\"/>\n"
              "<text x=\"%.1f\" y=\"22\" text-anchor=\"middle\" font-size=\"15\" font-weight=\"bold\">",
              w, h, w, h, w, h, w / 2);
    sb_text(b, title);
    sb_printf(b, "</text>\n");
}

static infer8_status finish(sb *b, const char *path, i8_err *err) {
    sb_printf(b, "</svg>\n");
    infer8_status st = b->st;
    if (st == INFER8_OK) st = i8_write_file_atomic(path, b->s, b->len, err);
    free(b->s);
    return st;
}

static int finite_nonneg(double v) { return isfinite(v) && v >= 0; }

/* Format of an axis or value number: 4 significant digits. */
#define NUM "%.4g"

infer8_status i8_svg_latency(const char *path, const char *title, const char *unit, const i8_svg_latency_item *items,
                             size_t n, i8_err *err) {
    if (!path || !items || n == 0 || n > I8_SVG_MAX_ITEMS)
        return i8_fail(err, INFER8_E_INVALID_ARGUMENT, "latency plot: %zu items (1 to %d)", n, I8_SVG_MAX_ITEMS);
    const double left = 200, plot_w = 440, right = 200, top = 44, row = 26;
    double w = left + plot_w + right, h = top + row * (double)n + 50;
    double vmax = 0, vmin = INFINITY;
    for (size_t i = 0; i < n; i++) {
        double vals[3] = {items[i].median, items[i].min, items[i].max};
        for (int k = 0; k < 3; k++)
            if (finite_nonneg(vals[k])) {
                if (vals[k] > vmax) vmax = vals[k];
                if (vals[k] < vmin) vmin = vals[k];
            }
    }
    if (!(vmax > 0)) vmax = 1.0, vmin = 0.0;
    /* Variants differing by a few percent are invisible on an axis from 0: when every value is
     * above half the largest, the axis is zoomed and medians are dots, not bars (a bar's length
     * must mean its value). */
    int zoom = vmin > 0.5 * vmax;
    double step = nice_step(zoom ? vmax - vmin : vmax, 5);
    double axis_min = zoom ? floor(vmin / step) * step : 0.0, axis_max = ceil(vmax / step) * step;
    if (axis_max <= vmax) axis_max += step;
    if (zoom && axis_min >= vmin) axis_min -= step;
    double span = axis_max - axis_min;
    sb b = {NULL, 0, 0, err, INFER8_OK};
    header(&b, w, h, title);
    double y0 = top, y1 = top + row * (double)n;
    for (int k = 0;; k++) {
        double t = axis_min + step * k;
        if (t > axis_max + step * 1e-6) break;
        double x = left + (t - axis_min) / span * plot_w;
        sb_printf(&b, "<line x1=\"%.2f\" y1=\"%.2f\" x2=\"%.2f\" y2=\"%.2f\" stroke=\"#dddddd\"/>\n", x, y0, x, y1);
        sb_printf(&b, "<text x=\"%.2f\" y=\"%.2f\" text-anchor=\"middle\">" NUM "</text>\n", x, y1 + 16,
                  fabs(t) < step * 1e-6 ? 0.0 : t);
    }
    sb_printf(&b, "<text x=\"%.2f\" y=\"%.2f\" text-anchor=\"middle\">", left + plot_w / 2, y1 + 36);
    sb_text(&b, unit);
    sb_printf(&b, "</text>\n");
    for (size_t i = 0; i < n; i++) {
        const i8_svg_latency_item *it = &items[i];
        double yc = top + row * ((double)i + 0.5);
        sb_printf(&b, "<text x=\"%.2f\" y=\"%.2f\" text-anchor=\"end\">", left - 8, yc + 4);
        sb_text(&b, it->name);
        sb_printf(&b, "</text>\n");
#define LX(v) (left + ((v) - axis_min) / span * plot_w)
        if (finite_nonneg(it->min) && finite_nonneg(it->max)) {
            double xa = LX(it->min), xb = LX(it->max);
            sb_printf(&b,
                      "<line x1=\"%.2f\" y1=\"%.2f\" x2=\"%.2f\" y2=\"%.2f\" stroke=\"#000000\"/>\n"
                      "<line x1=\"%.2f\" y1=\"%.2f\" x2=\"%.2f\" y2=\"%.2f\" stroke=\"#000000\"/>\n"
                      "<line x1=\"%.2f\" y1=\"%.2f\" x2=\"%.2f\" y2=\"%.2f\" stroke=\"#000000\"/>\n",
                      xa, yc, xb, yc, xa, yc - 6, xa, yc + 6, xb, yc - 6, xb, yc + 6);
        }
        if (finite_nonneg(it->median)) {
            if (zoom)
                sb_printf(&b, "<circle cx=\"%.2f\" cy=\"%.2f\" r=\"5\" fill=\"%s\"/>\n", LX(it->median), yc,
                          COLOURS[0]);
            else
                sb_printf(&b, "<rect x=\"%.2f\" y=\"%.2f\" width=\"%.2f\" height=\"%.2f\" fill=\"%s\" fill-opacity=\"0.7\"/>\n",
                          left, yc - row * 0.3, LX(it->median) - left, row * 0.6, COLOURS[0]);
        }
#undef LX
        sb_printf(&b, "<text x=\"%.2f\" y=\"%.2f\">", left + plot_w + 10, yc + 4);
        if (isfinite(it->median)) {
            sb_printf(&b, NUM " ", it->median);
            sb_text(&b, unit);
            if (isfinite(it->min) && isfinite(it->max)) sb_printf(&b, " [" NUM " - " NUM "]", it->min, it->max);
        } else sb_printf(&b, "n/a");
        sb_printf(&b, "</text>\n");
    }
    return finish(&b, path, err);
}

infer8_status i8_svg_kl_speedup(const char *path, const char *title, const i8_svg_point *pts, size_t n, i8_err *err) {
    if (!path || !pts || n == 0 || n > I8_SVG_MAX_ITEMS)
        return i8_fail(err, INFER8_E_INVALID_ARGUMENT, "KL/speed-up plot: %zu points (1 to %d)", n, I8_SVG_MAX_ITEMS);
    const double left = 70, top = 44, plot_w = 460, plot_h = 320, right = 170;
    double w = left + plot_w + right, h = top + plot_h + 60;
    double xmin = 1.0, xmax = 1.0, ymax = 0.0;
    size_t bad = 0;
    for (size_t i = 0; i < n; i++) {
        if (!isfinite(pts[i].x) || !isfinite(pts[i].y)) {
            bad++;
            continue;
        }
        if (pts[i].x < xmin) xmin = pts[i].x;
        if (pts[i].x > xmax) xmax = pts[i].x;
        if (pts[i].y > ymax) ymax = pts[i].y;
    }
    double xs = nice_step(xmax - xmin > 0 ? xmax - xmin : 0.1, 5);
    xmin = floor(xmin / xs) * xs;
    xmax = ceil(xmax / xs) * xs;
    if (xmax - xmin < xs) xmax = xmin + xs;
    double ys = nice_step(ymax > 0 ? ymax : 0.01, 5), ytop = ceil((ymax > 0 ? ymax : 0.01) / ys) * ys;
    if (ymax >= ytop) ytop += ys;
    sb b = {NULL, 0, 0, err, INFER8_OK};
    header(&b, w, h, title);
#define PX(v) (left + ((v) - xmin) / (xmax - xmin) * plot_w)
#define PY(v) (top + plot_h - (v) / ytop * plot_h)
    sb_printf(&b, "<rect x=\"%.2f\" y=\"%.2f\" width=\"%.2f\" height=\"%.2f\" fill=\"none\" stroke=\"#999999\"/>\n",
              left, top, plot_w, plot_h);
    for (double t = xmin; t <= xmax + xs * 1e-6; t += xs)
        sb_printf(&b, "<text x=\"%.2f\" y=\"%.2f\" text-anchor=\"middle\">" NUM "</text>\n", PX(t), top + plot_h + 16,
                  fabs(t) < xs * 1e-6 ? 0.0 : t);
    for (double t = 0; t <= ytop + ys * 1e-6; t += ys) {
        sb_printf(&b, "<line x1=\"%.2f\" y1=\"%.2f\" x2=\"%.2f\" y2=\"%.2f\" stroke=\"#eeeeee\"/>\n", left, PY(t),
                  left + plot_w, PY(t));
        sb_printf(&b, "<text x=\"%.2f\" y=\"%.2f\" text-anchor=\"end\">" NUM "</text>\n", left - 6, PY(t) + 4, t);
    }
    if (xmin < 1.0 && xmax > 1.0)
        sb_printf(&b, "<line x1=\"%.2f\" y1=\"%.2f\" x2=\"%.2f\" y2=\"%.2f\" stroke=\"#888888\" stroke-dasharray=\"4 3\"/>\n",
                  PX(1.0), top, PX(1.0), top + plot_h);
    sb_printf(&b, "<text x=\"%.2f\" y=\"%.2f\" text-anchor=\"middle\">speed-up (x, baseline time / variant time)</text>\n",
              left + plot_w / 2, top + plot_h + 36);
    sb_printf(&b, "<text x=\"16\" y=\"%.2f\" text-anchor=\"middle\" transform=\"rotate(-90 16 %.2f)\">KL(ref || variant)</text>\n",
              top + plot_h / 2, top + plot_h / 2);
    for (size_t i = 0; i < n; i++) {
        if (!isfinite(pts[i].x) || !isfinite(pts[i].y)) continue;
        double px = PX(pts[i].x), py = PY(pts[i].y < 0 ? 0 : pts[i].y);
        sb_printf(&b, "<circle cx=\"%.2f\" cy=\"%.2f\" r=\"4\" fill=\"%s\"/>\n", px, py, COLOURS[i % I8_SVG_MAX_SERIES]);
        sb_printf(&b, "<text x=\"%.2f\" y=\"%.2f\">", px + 7, py - 5);
        sb_text(&b, pts[i].name);
        sb_printf(&b, "</text>\n");
    }
#undef PX
#undef PY
    if (bad) {
        double y = top + plot_h + 52;
        sb_printf(&b, "<text x=\"%.2f\" y=\"%.2f\">n/a (not finite):", left, y);
        for (size_t i = 0; i < n; i++)
            if (!isfinite(pts[i].x) || !isfinite(pts[i].y)) {
                sb_printf(&b, " ");
                sb_text(&b, pts[i].name);
            }
        sb_printf(&b, "</text>\n");
    }
    return finish(&b, path, err);
}

infer8_status i8_svg_grouped_bars(const char *path, const char *title, const char *unit, const char *const *series,
                                  size_t nseries, const i8_svg_group *groups, size_t ngroups, i8_err *err) {
    if (!path || !series || !groups || nseries == 0 || nseries > I8_SVG_MAX_SERIES || ngroups == 0 ||
        ngroups > I8_SVG_MAX_ITEMS)
        return i8_fail(err, INFER8_E_INVALID_ARGUMENT, "grouped bars: %zu series (1 to %d), %zu groups (1 to %d)",
                       nseries, I8_SVG_MAX_SERIES, ngroups, I8_SVG_MAX_ITEMS);
    const double left = 70, top = 64, plot_h = 300, bar = 16, gap = 24, bottom = 110;
    double group_w = bar * (double)nseries + gap, plot_w = group_w * (double)ngroups;
    double w = left + (plot_w > 400 ? plot_w : 400) + 30, h = top + plot_h + bottom;
    double vmax = 0;
    for (size_t g = 0; g < ngroups; g++)
        for (size_t s = 0; s < nseries; s++) {
            double v = groups[g].values ? groups[g].values[s] : NAN;
            if (isfinite(v) && v > vmax) vmax = v;
        }
    double step = nice_step(vmax > 0 ? vmax : 1.0, 5), ytop = ceil((vmax > 0 ? vmax : 1.0) / step) * step;
    sb b = {NULL, 0, 0, err, INFER8_OK};
    header(&b, w, h, title);
    for (size_t s = 0; s < nseries; s++) {
        double lx = left + 120.0 * (double)s;
        sb_printf(&b, "<rect x=\"%.2f\" y=\"34\" width=\"12\" height=\"12\" fill=\"%s\"/>\n<text x=\"%.2f\" y=\"45\">",
                  lx, COLOURS[s], lx + 16);
        sb_text(&b, series[s]);
        sb_printf(&b, "</text>\n");
    }
    for (double t = 0; t <= ytop * (1 + 1e-9); t += step) {
        double y = top + plot_h - t / ytop * plot_h;
        sb_printf(&b, "<line x1=\"%.2f\" y1=\"%.2f\" x2=\"%.2f\" y2=\"%.2f\" stroke=\"#dddddd\"/>\n", left, y, left + plot_w,
                  y);
        sb_printf(&b, "<text x=\"%.2f\" y=\"%.2f\" text-anchor=\"end\">" NUM "</text>\n", left - 6, y + 4, t);
    }
    sb_printf(&b, "<text x=\"16\" y=\"%.2f\" text-anchor=\"middle\" transform=\"rotate(-90 16 %.2f)\">",
              top + plot_h / 2, top + plot_h / 2);
    sb_text(&b, unit);
    sb_printf(&b, "</text>\n");
    for (size_t g = 0; g < ngroups; g++) {
        double gx = left + group_w * (double)g + gap / 2;
        for (size_t s = 0; s < nseries; s++) {
            double v = groups[g].values ? groups[g].values[s] : NAN;
            double x = gx + bar * (double)s;
            if (!isfinite(v)) {
                sb_printf(&b, "<text x=\"%.2f\" y=\"%.2f\" text-anchor=\"middle\" font-size=\"9\">n/a</text>\n",
                          x + bar / 2, top + plot_h - 4);
                continue;
            }
            double hh = v > 0 ? v / ytop * plot_h : 0;
            sb_printf(&b, "<rect x=\"%.2f\" y=\"%.2f\" width=\"%.2f\" height=\"%.2f\" fill=\"%s\"><title>", x,
                      top + plot_h - hh, bar - 2, hh, COLOURS[s]);
            sb_text(&b, series[s]);
            sb_printf(&b, ": " NUM "</title></rect>\n", v);
        }
        double lx = gx + bar * (double)nseries / 2, ly = top + plot_h + 14;
        sb_printf(&b, "<text x=\"%.2f\" y=\"%.2f\" text-anchor=\"end\" transform=\"rotate(-35 %.2f %.2f)\">", lx, ly, lx,
                  ly);
        sb_text(&b, groups[g].name);
        sb_printf(&b, "</text>\n");
    }
    sb_printf(&b, "<line x1=\"%.2f\" y1=\"%.2f\" x2=\"%.2f\" y2=\"%.2f\" stroke=\"#000000\"/>\n", left, top + plot_h,
              left + plot_w, top + plot_h);
    return finish(&b, path, err);
}
