/* Adaptive rounding of conv weights to binary16 (fp16_round.h says what and why). */
#include "quant/fp16_round.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define GRAM_BLOCK 64 /* output positions gathered per Gram update */

infer8_status i8_patch_gram_add(const i8_patch_shape *s, int n, const float *x, double *H, i8_err *err) {
    if (n < 1 || s->c < 1 || s->h < 1 || s->w < 1 || s->kh < 1 || s->kw < 1 || s->sh < 1 || s->sw < 1 || s->ph < 0 ||
        s->pw < 0 || s->ho < 1 || s->wo < 1)
        return i8_fail(err, INFER8_E_INVALID_ARGUMENT, "patch gram: bad shape");
    const int K = s->c * s->kh * s->kw;
    float *pt = malloc((size_t)K * GRAM_BLOCK * sizeof *pt); /* [K][GRAM_BLOCK]: patches as columns */
    if (!pt) return i8_fail(err, INFER8_E_NOMEM, "patch gram: out of memory (K = %d)", K);
    const long positions = (long)n * s->ho * s->wo;
    for (long p0 = 0; p0 < positions; p0 += GRAM_BLOCK) {
        const int nb = positions - p0 < GRAM_BLOCK ? (int)(positions - p0) : GRAM_BLOCK;
        memset(pt, 0, (size_t)K * GRAM_BLOCK * sizeof *pt); /* padding and a short last block stay 0 */
        for (int b = 0; b < nb; b++) {
            const long p = p0 + b;
            const int img = (int)(p / ((long)s->ho * s->wo)), oy = (int)(p / s->wo % s->ho), ox = (int)(p % s->wo);
            const float *xi = x + (size_t)img * s->h * s->w * s->c;
            for (int i = 0; i < s->kh; i++) {
                const int y = oy * s->sh - s->ph + i;
                if (y < 0 || y >= s->h) continue;
                for (int j = 0; j < s->kw; j++) {
                    const int xx = ox * s->sw - s->pw + j;
                    if (xx < 0 || xx >= s->w) continue;
                    const float *px = xi + ((size_t)y * s->w + xx) * s->c;
                    for (int c = 0; c < s->c; c++) pt[((size_t)c * s->kh * s->kw + i * s->kw + j) * GRAM_BLOCK + b] = px[c];
                }
            }
        }
#pragma omp parallel for schedule(dynamic, 8)
        for (int a = 0; a < K; a++) {
            const float *ra = pt + (size_t)a * GRAM_BLOCK;
            double *ha = H + (size_t)a * K;
            for (int b = a; b < K; b++) {
                const float *rb = pt + (size_t)b * GRAM_BLOCK;
                float dot = 0;
                for (int t = 0; t < GRAM_BLOCK; t++) dot += ra[t] * rb[t];
                ha[b] += dot;
            }
        }
    }
    for (int a = 0; a < K; a++)
        for (int b = a + 1; b < K; b++) H[(size_t)b * K + a] = H[(size_t)a * K + b];
    free(pt);
    return INFER8_OK;
}

double i8_weight_error(const float *W, const float *Q, int O, int K, const double *H) {
    double total = 0;
    double *d = malloc((size_t)K * sizeof *d);
    if (!d) return NAN;
    for (int o = 0; o < O; o++) {
        for (int k = 0; k < K; k++) d[k] = (double)Q[(size_t)o * K + k] - W[(size_t)o * K + k];
        for (int a = 0; a < K; a++) {
            if (d[a] == 0) continue;
            const double *ha = H + (size_t)a * K;
            double s = 0;
            for (int b = 0; b < K; b++) s += ha[b] * d[b];
            total += d[a] * s;
        }
    }
    free(d);
    return total;
}

static float f16_nearest(double v) { return i8_f16_round((float)v); }

/* the spacing of binary16 values around v (subnormal spacing 2^-24 below 2^-14) */
static double f16_ulp(double v) {
    int e = 0;
    if (v == 0) return ldexp(1.0, -24);
    frexp(fabs(v), &e); /* |v| = m 2^e, m in [0.5, 1) */
    return ldexp(1.0, (e - 1 < -14 ? -14 : e - 1) - 10);
}

/* the binary16 value next to the binary16 value q in the direction of target */
static float f16_step_toward(float q, float target) {
    uint16_t h = i8_f32_to_f16(q);
    const int up = target > q, negative = h >> 15, zero = !(h & 0x7fff);
    if (zero) h = up ? 0x0001 : 0x8001;
    else h = (uint16_t)(up == !negative ? h + 1 : h - 1); /* magnitude grows when moving away from 0 */
    return i8_f16_to_f32(h);
}

/* in-place lower Cholesky factor of the K x K matrix A (upper triangle left as is); 0 when A is
 * not positive definite */
static int cholesky(double *A, int K) {
    for (int j = 0; j < K; j++) {
        double *aj = A + (size_t)j * K;
        double d = aj[j];
        for (int t = 0; t < j; t++) d -= aj[t] * aj[t];
        if (!(d > 0)) return 0;
        aj[j] = sqrt(d);
#pragma omp parallel for schedule(static)
        for (int i = j + 1; i < K; i++) {
            double *ai = A + (size_t)i * K;
            double s = ai[j];
            for (int t = 0; t < j; t++) s -= ai[t] * aj[t];
            ai[j] = s / aj[j];
        }
    }
    return 1;
}

infer8_status i8_fp16_round_adaptive(float *W, int O, int K, const double *H, int max_ulps,
                                     i8_fp16_round_report *report, i8_err *err) {
    if (O < 1 || K < 1 || max_ulps < 0)
        return i8_fail(err, INFER8_E_INVALID_ARGUMENT, "adaptive rounding: bad sizes (%d x %d) or max ulps %d", O, K,
                       max_ulps);
    for (size_t e = 0; e < (size_t)O * K; e++)
        if (!(fabsf(W[e]) <= 65504.0f))
            return i8_fail(err, INFER8_E_INVALID_ARGUMENT,
                           "adaptive rounding: weight %zu (row %zu) is %g, outside binary16's range", e, e / (size_t)K,
                           (double)W[e]);
    const size_t KK = (size_t)K * K;
    double *A = malloc(KK * sizeof *A), *U = malloc(KK * sizeof *U), *rows = malloc((size_t)O * K * sizeof *rows);
    float *Q = malloc((size_t)O * K * sizeof *Q);
    if (!A || !U || !Q || !rows) {
        free(A), free(U), free(Q), free(rows);
        return i8_fail(err, INFER8_E_NOMEM, "adaptive rounding: out of memory (K = %d)", K);
    }
    double mean_diag = 0;
    int dead = 0;
    for (int k = 0; k < K; k++) mean_diag += H[(size_t)k * K + k];
    mean_diag = mean_diag > 0 ? mean_diag / K : 1.0;
    /* damped H, factored: L L^T = H + damp I; inputs that never fire get diagonal 1 and no
     * coupling, so their weights round to nearest */
    double damp = 0.01;
    int ok = 0;
    for (; damp <= 1.0 && !ok; damp *= 10) {
        dead = 0;
        for (int a = 0; a < K; a++) {
            const int a_dead = H[(size_t)a * K + a] <= 0;
            dead += a_dead;
            for (int b = 0; b < K; b++) {
                const int b_dead = H[(size_t)b * K + b] <= 0;
                A[(size_t)a * K + b] = a_dead || b_dead ? (a == b) : H[(size_t)a * K + b];
            }
            if (!a_dead) A[(size_t)a * K + a] += damp * mean_diag;
        }
        ok = cholesky(A, K);
        if (ok) break;
    }
    if (!ok) {
        free(A), free(U), free(Q), free(rows);
        return i8_fail(err, INFER8_E_INVALID_ARGUMENT,
                       "adaptive rounding: the inputs' second moments are not positive definite even damped by 100%%");
    }
    /* U: the upper Cholesky factor of (H + damp I)^-1, which GPTQ's error feedback walks row by
     * row. L^-1 in U's lower triangle, then Hinv = L^-T L^-1 in A, then chol(Hinv) transposed. */
    for (int i = 0; i < K; i++) {
        for (int j = 0; j < i; j++) {
            double s = 0;
            for (int t = j; t < i; t++) s -= A[(size_t)i * K + t] * U[(size_t)t * K + j];
            U[(size_t)i * K + j] = s / A[(size_t)i * K + i];
        }
        U[(size_t)i * K + i] = 1.0 / A[(size_t)i * K + i];
    }
#pragma omp parallel for schedule(dynamic, 4)
    for (int a = 0; a < K; a++)
        for (int b = 0; b <= a; b++) { /* (L^-T L^-1)[a][b] = sum over t >= max(a, b) of Li[t][a] Li[t][b] */
            double s = 0;
            for (int t = a; t < K; t++) s += U[(size_t)t * K + a] * U[(size_t)t * K + b];
            A[(size_t)a * K + b] = s;
        }
    if (!cholesky(A, K)) {
        free(A), free(U), free(Q), free(rows);
        return i8_fail(err, INFER8_E_INTERNAL, "adaptive rounding: the inverse's factorisation failed (K = %d)", K);
    }
    for (int a = 0; a < K; a++)
        for (int b = 0; b < K; b++) U[(size_t)a * K + b] = b >= a ? A[(size_t)b * K + a] : 0;
    free(A);
    int moved = 0;
#pragma omp parallel for schedule(dynamic, 1) reduction(+ : moved)
    for (int o = 0; o < O; o++) {
        double *w = rows + (size_t)o * K; /* the row as the feedback has moved it so far */
        const float *w0 = W + (size_t)o * K;
        float *q = Q + (size_t)o * K;
        for (int k = 0; k < K; k++) w[k] = w0[k];
        for (int k = 0; k < K; k++) {
            const double reach = max_ulps * f16_ulp(w0[k]);
            double v = w[k] < w0[k] - reach ? w0[k] - reach : w[k] > w0[k] + reach ? w0[k] + reach : w[k];
            v = v > 65504.0 ? 65504.0 : v < -65504.0 ? -65504.0 : v;
            q[k] = f16_nearest(v);
            if (fabs(q[k] - (double)w0[k]) > reach + 0.5 * f16_ulp(w0[k])) /* past a binade edge: one step back */
                q[k] = f16_step_toward(q[k], w0[k]);
            moved += q[k] != f16_nearest(w0[k]);
            const double e = (w[k] - q[k]) / U[(size_t)k * K + k];
            const double *uk = U + (size_t)k * K;
            for (int j = k + 1; j < K; j++) w[j] -= e * uk[j];
        }
    }
    free(U);
    free(rows);
    if (report) {
        float *nearest = malloc((size_t)O * K * sizeof *nearest);
        report->error_nearest = NAN;
        if (nearest) {
            for (size_t e = 0; e < (size_t)O * K; e++) nearest[e] = f16_nearest(W[e]);
            report->error_nearest = i8_weight_error(W, nearest, O, K, H);
            free(nearest);
        }
        report->error_adaptive = i8_weight_error(W, Q, O, K, H);
        report->damp = damp;
        report->dead_inputs = dead;
        report->moved = moved;
    }
    memcpy(W, Q, (size_t)O * K * sizeof *W);
    free(Q);
    return INFER8_OK;
}
