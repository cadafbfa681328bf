/* Deterministic synthetic "photos" for tests and demos: a multi-colour gradient background, a
 * smooth value-noise texture, 3-8 soft-edged ellipses and rectangles, mild pixel noise. Only
 * +, -, *, / and sqrt on doubles (all correctly rounded in IEEE 754) and i8_rng, so the bytes
 * are the same on every machine and libm. */
#include "image/image.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef struct shape {
    int rect;                 /* 0 = ellipse, 1 = rectangle */
    double cx, cy, rx, ry;    /* centre and half-axes in pixels */
    double ux, uy;            /* unit vector of the first axis (rotation) */
    double edge;              /* soft edge width as a fraction of the radius */
    double opacity;
    double col[3], col2[3];   /* colour at one side, the other side (gradient across the shape) */
} shape;

static double clampd(double v, double lo, double hi) { return v < lo ? lo : v > hi ? hi : v; }
static double smooth(double t) { return t * t * (3.0 - 2.0 * t); }

static void random_colour(i8_rng *r, double c[3]) {
    for (int i = 0; i < 3; i++) c[i] = 20.0 + 215.0 * i8_rng_uniform(r);
}

/* A random unit vector without sin/cos: rejection-sample the unit disc, normalise. */
static void random_direction(i8_rng *r, double *x, double *y) {
    for (;;) {
        double a = 2.0 * i8_rng_uniform(r) - 1.0, b = 2.0 * i8_rng_uniform(r) - 1.0;
        double n = a * a + b * b;
        if (n > 1e-4 && n <= 1.0) {
            n = sqrt(n);
            *x = a / n;
            *y = b / n;
            return;
        }
    }
}

infer8_status i8_image_generate(i8_image *out, uint64_t seed, int width, int height, i8_err *err) {
    if (!out) return i8_fail(err, INFER8_E_INVALID_ARGUMENT, "generate: NULL output");
    i8_image im;
    infer8_status st = i8_image_alloc(&im, width, height, err);
    if (st != INFER8_OK) return st;
    i8_rng r;
    i8_rng_seed(&r, seed);

    /* Background: 2-3 colours along a random direction, blended with a fourth across it. */
    int ncol = 2 + (int)(i8_rng_next(&r) % 2);
    double bg[3][3], cross[3];
    for (int i = 0; i < ncol; i++) random_colour(&r, bg[i]);
    random_colour(&r, cross);
    double gx, gy;
    random_direction(&r, &gx, &gy);
    double cross_amount = 0.5 * i8_rng_uniform(&r);
    double diag = sqrt((double)width * width + (double)height * height);

    /* Value-noise texture on a coarse lattice (two octaves). */
    enum { LAT = 9 };
    double lat[2][LAT][LAT];
    for (int o = 0; o < 2; o++)
        for (int i = 0; i < LAT; i++)
            for (int j = 0; j < LAT; j++) lat[o][i][j] = i8_rng_uniform(&r);
    double tex_amount = 0.1 + 0.25 * i8_rng_uniform(&r);

    int nshapes = 3 + (int)(i8_rng_next(&r) % 6);
    shape sh[8];
    double scale = width < height ? width : height;
    for (int s = 0; s < nshapes; s++) {
        shape *p = &sh[s];
        p->rect = (int)(i8_rng_next(&r) % 3 == 0);
        p->cx = width * i8_rng_uniform(&r);
        p->cy = height * i8_rng_uniform(&r);
        p->rx = scale * (0.06 + 0.35 * i8_rng_uniform(&r)) + 0.5;
        p->ry = scale * (0.06 + 0.35 * i8_rng_uniform(&r)) + 0.5;
        random_direction(&r, &p->ux, &p->uy);
        p->edge = 0.02 + 0.3 * i8_rng_uniform(&r);
        p->opacity = 0.6 + 0.4 * i8_rng_uniform(&r);
        random_colour(&r, p->col);
        random_colour(&r, p->col2);
    }
    double noise_sigma = 1.0 + 3.0 * i8_rng_uniform(&r);

    for (int y = 0; y < height; y++) {
        for (int x = 0; x < width; x++) {
            double px = x + 0.5, py = y + 0.5, c[3];
            /* gradient position in [0, 1] along (gx, gy), measured from the image centre */
            double t = clampd(0.5 + ((px - 0.5 * width) * gx + (py - 0.5 * height) * gy) / diag, 0.0, 1.0);
            double seg = t * (ncol - 1);
            int k = (int)seg;
            if (k >= ncol - 1) k = ncol - 2;
            double f = smooth(seg - k);
            double u = clampd(0.5 + ((px - 0.5 * width) * -gy + (py - 0.5 * height) * gx) / diag, 0.0, 1.0);
            for (int i = 0; i < 3; i++) {
                c[i] = bg[k][i] + (bg[k + 1][i] - bg[k][i]) * f;
                c[i] += (cross[i] - c[i]) * cross_amount * u;
            }
            for (int s = 0; s < nshapes; s++) {
                const shape *p = &sh[s];
                double dx = px - p->cx, dy = py - p->cy;
                double a = (dx * p->ux + dy * p->uy) / p->rx, b = (-dx * p->uy + dy * p->ux) / p->ry;
                double d;
                if (p->rect) {
                    double aa = a < 0 ? -a : a, bb = b < 0 ? -b : b;
                    d = aa > bb ? aa : bb;
                } else {
                    d = sqrt(a * a + b * b);
                }
                if (d >= 1.0) continue;
                double alpha = p->opacity * smooth(clampd((1.0 - d) / p->edge, 0.0, 1.0));
                double g = clampd(0.5 + 0.5 * a, 0.0, 1.0);
                for (int i = 0; i < 3; i++) {
                    double sc = p->col[i] + (p->col2[i] - p->col[i]) * g;
                    c[i] += (sc - c[i]) * alpha;
                }
            }
            /* texture: bilinear value noise, octave 2 at twice the frequency */
            double tex = 0.0;
            for (int o = 0; o < 2; o++) {
                double fx = px / width * (o ? LAT - 1 : (LAT - 1) / 2), fy = py / height * (o ? LAT - 1 : (LAT - 1) / 2);
                int ix = (int)fx, iy = (int)fy;
                if (ix >= LAT - 1) ix = LAT - 2;
                if (iy >= LAT - 1) iy = LAT - 2;
                double sx = smooth(clampd(fx - ix, 0.0, 1.0)), sy = smooth(clampd(fy - iy, 0.0, 1.0));
                double v0 = lat[o][iy][ix] + (lat[o][iy][ix + 1] - lat[o][iy][ix]) * sx;
                double v1 = lat[o][iy + 1][ix] + (lat[o][iy + 1][ix + 1] - lat[o][iy + 1][ix]) * sx;
                tex += (v0 + (v1 - v0) * sy - 0.5) * (o ? 0.5 : 1.0);
            }
            double m = 1.0 + tex_amount * tex;
            uint8_t *o = im.rgb + ((size_t)y * (size_t)width + (size_t)x) * 3;
            for (int i = 0; i < 3; i++) {
                double v = c[i] * m + noise_sigma * i8_rng_normal(&r);
                o[i] = (uint8_t)(int)(clampd(v, 0.0, 255.0) + 0.5);   /* <= 255.5 truncates to <= 255 */
            }
        }
    }
    *out = im;
    return INFER8_OK;
}
