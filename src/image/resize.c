/* Pillow-exact resampling of 8-bit RGB: a reimplementation of Pillow 9.4's ImagingResample
 * (libImaging/Resample.c) for the bicubic (a = -0.5) and bilinear filters, whole-image box,
 * no reducing_gap -- what torchvision's Resize calls. The double-precision expressions keep
 * Pillow's order of operations, so the coefficients and therefore the bytes are identical. */
#include "image/image.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define PRECISION_BITS (32 - 8 - 2)

static double bicubic(double x) {
    const double a = -0.5;
    if (x < 0.0) x = -x;
    if (x < 1.0) return ((a + 2.0) * x - (a + 3.0)) * x * x + 1;
    if (x < 2.0) return (((x - 5) * x + 8) * x - 4) * a;
    return 0.0;
}

static double bilinear(double x) {
    if (x < 0.0) x = -x;
    if (x < 1.0) return 1.0 - x;
    return 0.0;
}

void i8_resize_coeffs_free(i8_resize_coeffs *c) {
    if (!c) return;
    free(c->bounds);
    free(c->k);
    memset(c, 0, sizeof(*c));
}

infer8_status i8_resize_coeffs_init(i8_resize_coeffs *c, int in_size, int out_size, i8_interp interp, i8_err *err) {
    double (*filter)(double) = interp == I8_INTERP_BILINEAR ? bilinear : bicubic;
    double filter_support = interp == I8_INTERP_BILINEAR ? 1.0 : 2.0;
    if (in_size <= 0 || out_size <= 0)
        return i8_fail(err, INFER8_E_INVALID_ARGUMENT, "resize %d -> %d: sizes must be positive", in_size, out_size);

    /* Pillow: box (0, in) as floats; scale = (in1 - in0) / out; filterscale >= 1. */
    double scale = (double)((float)in_size - 0.0f) / out_size;
    double filterscale = scale < 1.0 ? 1.0 : scale;
    double support = filter_support * filterscale;
    int ksize = (int)ceil(support) * 2 + 1;
    size_t nk, nb;
    if (!i8_mul_size((size_t)out_size, (size_t)ksize, &nk) || !i8_mul_size((size_t)out_size, 2, &nb))
        return i8_fail(err, INFER8_E_LIMIT, "resize %d -> %d: coefficient table overflows", in_size, out_size);
    double *w = i8_calloc((size_t)ksize, sizeof(double), err);
    int32_t *k = w ? i8_calloc(nk, sizeof(int32_t), err) : NULL;
    int *bounds = k ? i8_calloc(nb, sizeof(int), err) : NULL;
    if (!bounds) {
        free(w);
        free(k);
        return err ? err->code : INFER8_E_NOMEM;
    }
    for (int xx = 0; xx < out_size; xx++) {
        double center = 0.0 + (xx + 0.5) * scale;
        double ww = 0.0;
        double ss = 1.0 / filterscale;
        int xmin = (int)(center - support + 0.5);   /* truncation, as Pillow "rounds" */
        if (xmin < 0) xmin = 0;
        int xmax = (int)(center + support + 0.5);
        if (xmax > in_size) xmax = in_size;
        xmax -= xmin;
        for (int x = 0; x < xmax; x++) {
            double v = filter((x + xmin - center + 0.5) * ss);
            w[x] = v;
            ww += v;
        }
        for (int x = 0; x < xmax; x++) {
            if (ww != 0.0) w[x] /= ww;
            /* normalize_coeffs_8bpc: round half away from zero to 22 fractional bits */
            k[(size_t)xx * ksize + x] = w[x] < 0 ? (int32_t)(-0.5 + w[x] * (1 << PRECISION_BITS))
                                                 : (int32_t)(0.5 + w[x] * (1 << PRECISION_BITS));
        }
        bounds[2 * xx] = xmin;
        bounds[2 * xx + 1] = xmax;
    }
    free(w);
    c->in_size = in_size;
    c->out_size = out_size;
    c->ksize = ksize;
    c->bounds = bounds;
    c->k = k;
    return INFER8_OK;
}

/* Accumulator -> byte: (ss >> 22) clamped to 0..255 (Pillow's clip8 table). */
static inline uint8_t clip8(int32_t ss) {
    int32_t v = ss >> PRECISION_BITS;
    return (uint8_t)(v < 0 ? 0 : v > 255 ? 255 : v);
}

/* Horizontal pass over rows [y0, y0 + rows) of src (width src_w) into dst (width c->out_size). */
static void pass_horizontal(const uint8_t *src, int src_w, int y0, int rows, const i8_resize_coeffs *c, uint8_t *dst) {
    int ow = c->out_size;
    for (int y = 0; y < rows; y++) {
        const uint8_t *s = src + (size_t)(y + y0) * (size_t)src_w * 3;
        uint8_t *d = dst + (size_t)y * (size_t)ow * 3;
        for (int xx = 0; xx < ow; xx++) {
            int xmin = c->bounds[2 * xx], n = c->bounds[2 * xx + 1];
            const int32_t *k = c->k + (size_t)xx * c->ksize;
            int32_t s0 = 1 << (PRECISION_BITS - 1), s1 = s0, s2 = s0;
            for (int x = 0; x < n; x++) {
                const uint8_t *p = s + (size_t)(x + xmin) * 3;
                s0 += p[0] * k[x];
                s1 += p[1] * k[x];
                s2 += p[2] * k[x];
            }
            d[3 * xx] = clip8(s0);
            d[3 * xx + 1] = clip8(s1);
            d[3 * xx + 2] = clip8(s2);
        }
    }
}

/* Vertical pass: src has width w; bounds are shifted by -y_shift (rows src starts at). */
static void pass_vertical(const uint8_t *src, int w, int y_shift, const i8_resize_coeffs *c, uint8_t *dst) {
    size_t stride = (size_t)w * 3;
    for (int yy = 0; yy < c->out_size; yy++) {
        int ymin = c->bounds[2 * yy] - y_shift, n = c->bounds[2 * yy + 1];
        const int32_t *k = c->k + (size_t)yy * c->ksize;
        uint8_t *d = dst + (size_t)yy * stride;
        for (size_t i = 0; i < stride; i++) {
            int32_t s = 1 << (PRECISION_BITS - 1);
            for (int y = 0; y < n; y++) s += src[(size_t)(y + ymin) * stride + i] * k[y];
            d[i] = clip8(s);
        }
    }
}

infer8_status i8_image_resize(const i8_image *in, int out_w, int out_h, i8_interp interp, i8_image *out, i8_err *err) {
    if (!in || !in->rgb || in->width <= 0 || in->height <= 0 || !out)
        return i8_fail(err, INFER8_E_INVALID_ARGUMENT, "resize: empty input image");
    if (out_w <= 0 || out_h <= 0)
        return i8_fail(err, INFER8_E_INVALID_ARGUMENT, "resize %dx%d -> %dx%d: target must be positive", in->width,
                       in->height, out_w, out_h);
    int need_h = out_w != in->width, need_v = out_h != in->height;
    i8_image res = {0, 0, NULL};
    if (!need_h && !need_v) {   /* Pillow copies */
        if (i8_image_alloc(&res, in->width, in->height, err) != INFER8_OK) return err ? err->code : INFER8_E_NOMEM;
        memcpy(res.rgb, in->rgb, (size_t)in->width * (size_t)in->height * 3);
        *out = res;
        return INFER8_OK;
    }
    i8_resize_coeffs ch = {0}, cv = {0};
    i8_image tmp = {0, 0, NULL};
    infer8_status st = i8_resize_coeffs_init(&ch, in->width, out_w, interp, err);
    if (st == INFER8_OK) st = i8_resize_coeffs_init(&cv, in->height, out_h, interp, err);
    if (st != INFER8_OK) goto done;

    /* Only rows the vertical pass reads go through the horizontal pass (as Pillow). */
    int y_first = cv.bounds[0];
    int y_last = cv.bounds[2 * out_h - 2] + cv.bounds[2 * out_h - 1];
    const i8_image *src = in;
    int y_shift = 0;
    if (need_h) {
        st = i8_image_alloc(&tmp, out_w, need_v ? y_last - y_first : in->height, err);
        if (st != INFER8_OK) goto done;
        if (need_v) {
            pass_horizontal(in->rgb, in->width, y_first, y_last - y_first, &ch, tmp.rgb);
            y_shift = y_first;
        } else {
            pass_horizontal(in->rgb, in->width, 0, in->height, &ch, tmp.rgb);
        }
        src = &tmp;
    }
    if (need_v) {
        st = i8_image_alloc(&res, src->width, out_h, err);
        if (st != INFER8_OK) goto done;
        pass_vertical(src->rgb, src->width, y_shift, &cv, res.rgb);
        i8_image_free(&tmp);
    } else {
        res = tmp;
        tmp.rgb = NULL;
    }
    *out = res;
done:
    i8_image_free(&tmp);
    i8_resize_coeffs_free(&ch);
    i8_resize_coeffs_free(&cv);
    return st;
}
