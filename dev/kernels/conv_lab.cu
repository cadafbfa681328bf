/* Kernel lab for the CUDA backend's own implicit-GEMM convolution (src/backends/cuda/
 * cuda_kernels.cu): a CPU reference (double accumulation over the same fp16-rounded inputs),
 * every kernel variant (tile shape x split-K) validated and timed on the Inception conv shapes
 * that matter at batch 1 and 32. Built outside `all` (tools/prepare-device builds it; the test
 * dev/kernel_labs_compile keeps it compiling):
 *
 *   cmake --build build-device --target conv_lab && build-device/bin/conv_lab
 *
 * Prints, per shape and variant: max relative error against the reference and microseconds per
 * call (CUDA events, 50 calls after 5 warm-up). Exit status 1 if any variant exceeds 1e-2.
 * CONV_LAB_ONLY=TEXT runs only the shapes whose names contain TEXT. */
#include <cuda_fp16.h>
#include <cuda_runtime.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <vector>

#include "backends/cuda/cuda_kernels.h"

#define CK(x)                                                                                        \
    do {                                                                                             \
        cudaError_t e = (x);                                                                         \
        if (e != cudaSuccess) {                                                                      \
            fprintf(stderr, "%s:%d %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorString(e));        \
            return 1;                                                                                \
        }                                                                                            \
    } while (0)

struct shape { const char *name; int n, h, w, ci, co, kh, kw, s, ph, pw, cu; }; /* cu: channels carrying data (0: all) */

static float frand(unsigned *st) { *st = *st * 1664525u + 1013904223u; return ((*st >> 8) & 0xffff) / 32768.0f - 1.0f; }

int main(void) {
    const shape shapes[] = {
        {"block35 1x1 320->32 @35 b1", 1, 35, 35, 320, 32, 1, 1, 1, 0, 0, 0},
        {"block17 1x7 128->160 @17 b1", 1, 17, 17, 128, 160, 1, 7, 1, 0, 3, 0},
        {"block8 1x1 2080->192 @8 b1", 1, 8, 8, 2080, 192, 1, 1, 1, 0, 0, 0},
        {"mixed_7a 3x3s2 256->384 @17 b1", 1, 17, 17, 256, 384, 3, 3, 2, 0, 0, 0},
        {"conv2d_4a 3x3 80->192 @73 b1", 1, 73, 73, 80, 192, 3, 3, 1, 0, 0, 0},
        {"block17 1x7 128->160 @17 b32", 32, 17, 17, 128, 160, 1, 7, 1, 0, 3, 0},
        {"conv2d_2b 3x3 32->64 @147 b32", 32, 147, 147, 32, 64, 3, 3, 1, 1, 1, 0},
        {"conv2d_1a 3x3s2 8(3)->32 @299 b32", 32, 299, 299, 8, 32, 3, 3, 2, 0, 0, 3},
        {"conv2d_1a 3x3s2 8(3)->32 @299 b1", 1, 299, 299, 8, 32, 3, 3, 2, 0, 0, 3},
        {"conv2d_1a 3x3s2 8->32 @299 b1 (8 live channels)", 1, 299, 299, 8, 32, 3, 3, 2, 0, 0, 0},
    };
    const char *only = getenv("CONV_LAB_ONLY"); /* a substring of the shape names to run */
    int bad = 0;
    float *partial; unsigned *counters;
    CK(cudaMalloc(&partial, 64 << 20));
    CK(cudaMalloc(&counters, 65536 * 4));
    CK(cudaMemset(counters, 0, 65536 * 4));
    cudaEvent_t e0, e1;
    CK(cudaEventCreate(&e0)); CK(cudaEventCreate(&e1));
    for (const shape &s : shapes) {
        if (only && !strstr(s.name, only)) continue;
        int ho = (s.h + 2 * s.ph - s.kh) / s.s + 1, wo = (s.w + 2 * s.pw - s.kw) / s.s + 1;
        size_t nx = (size_t)s.n * s.h * s.w * s.ci, nw = (size_t)s.co * s.kh * s.kw * s.ci, ny = (size_t)s.n * ho * wo * s.co;
        std::vector<__half> x(nx), w(nw), y(ny);
        std::vector<float> b(s.co);
        unsigned st = 1;
        for (auto &v : x) v = __float2half(frand(&st));
        float sc = sqrtf(2.0f / (s.ci * s.kh * s.kw));
        for (auto &v : w) v = __float2half(sc * frand(&st));
        for (auto &v : b) v = 0.1f * frand(&st);
        if (s.cu > 0) /* the padding channels are zero in the input and the weights, as in the stem */
            for (std::vector<__half> *t : {&x, &w})
                for (size_t i = 0; i < t->size(); i++) if ((int)(i % s.ci) >= s.cu) (*t)[i] = __float2half(0.0f);
        /* reference on a subset of pixels (all of them for small problems) */
        size_t pix = (size_t)s.n * ho * wo, step = pix > 4096 ? pix / 4096 : 1;
        std::vector<double> ref(ny, 0.0);
        for (size_t m = 0; m < pix; m += step) {
            int ox = m % wo, oy = (m / wo) % ho, bn = m / ((size_t)wo * ho);
            for (int o = 0; o < s.co; o++) {
                double acc = b[o];
                for (int ky = 0; ky < s.kh; ky++) for (int kx = 0; kx < s.kw; kx++) {
                    int iy = oy * s.s - s.ph + ky, ix = ox * s.s - s.pw + kx;
                    if (iy < 0 || iy >= s.h || ix < 0 || ix >= s.w) continue;
                    for (int c = 0; c < s.ci; c++)
                        acc += (double)__half2float(x[(((size_t)bn * s.h + iy) * s.w + ix) * s.ci + c]) *
                               __half2float(w[(((size_t)o * s.kh + ky) * s.kw + kx) * s.ci + c]);
                }
                ref[m * s.co + o] = acc > 0 ? acc : 0;
            }
        }
        __half *dx, *dw, *dy; float *db;
        CK(cudaMalloc(&dx, nx * 2)); CK(cudaMalloc(&dw, nw * 2)); CK(cudaMalloc(&dy, ny * 2)); CK(cudaMalloc(&db, s.co * 4));
        CK(cudaMemcpy(dx, x.data(), nx * 2, cudaMemcpyHostToDevice));
        CK(cudaMemcpy(dw, w.data(), nw * 2, cudaMemcpyHostToDevice));
        CK(cudaMemcpy(db, b.data(), s.co * 4, cudaMemcpyHostToDevice));
        i8_cuda_conv_args a = {dx, s.n, s.h, s.w, s.ci, s.ci, dw, db, NULL, 0, dy, s.co, ho, wo, s.co, s.kh, s.kw,
                               s.s, s.s, s.ph, s.pw, 1, partial, (size_t)64 << 20, counters, 65536, s.cu, 0};
        printf("%s:", s.name);
        for (int v = 0; v < i8_cuda_conv_own_variants(); v++) {
            CK(cudaMemset(dy, 0xff, ny * 2));
            if (i8_cuda_conv_own(&a, v, 0) != 0) { cudaGetLastError(); continue; }
            CK(cudaDeviceSynchronize());
            CK(cudaMemcpy(y.data(), dy, ny * 2, cudaMemcpyDeviceToHost));
            double md = 0, mr = 0;
            for (size_t m = 0; m < pix; m += step)
                for (int o = 0; o < s.co; o++) {
                    double d = fabs(__half2float(y[m * s.co + o]) - ref[m * s.co + o]);
                    if (!(d <= md)) md = d;
                    if (fabs(ref[m * s.co + o]) > mr) mr = fabs(ref[m * s.co + o]);
                }
            double rel = md / mr;
            for (int i = 0; i < 5; i++) i8_cuda_conv_own(&a, v, 0);
            CK(cudaEventRecord(e0));
            for (int i = 0; i < 50; i++) i8_cuda_conv_own(&a, v, 0);
            CK(cudaEventRecord(e1));
            CK(cudaEventSynchronize(e1));
            float ms; CK(cudaEventElapsedTime(&ms, e0, e1));
            printf(" %s/k%d %.1fus%s", i8_cuda_conv_own_name(v), i8_cuda_conv_own_splits(v), 1000 * ms / 50, rel > 1e-2 ? "(BAD)" : "");
            if (!(rel <= 1e-2)) bad = 1;
        }
        printf("\n");
        cudaFree(dx); cudaFree(dw); cudaFree(dy); cudaFree(db);
    }
    return bad;
}
