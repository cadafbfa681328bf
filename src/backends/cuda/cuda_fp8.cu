/* FP8 e4m3 implicit-GEMM convolution with a fused dual-output epilogue (contract in
 * cuda_fp8.h). Tensor cores through mma.sync.m16n8k32.e4m3 (QMMA in SASS on sm_90), block tile
 * BM x BN x 64 bytes of K, two shared-memory stages filled with cp.async (e4m3 input and
 * weights, 8-byte chunks with zero fill for padding and tails) or, for fp16 input, loaded,
 * quantized in registers and stored (so no stand-alone Quantize kernel ever runs). The epilogue
 * goes through shared memory: per-channel scale, bias, residual (fp16, e4m3 copy, or fp16
 * quantized on the fly), ReLU, then fp16 and/or e4m3 stores into the output slices. C-style
 * CUDA: templates only for tile parameters. Lab version: dev/kernels/fp8_gemm_lab.cu. */
#include <cuda_fp16.h>
#include <cuda_fp8.h>
#include <cuda_runtime.h>
#include <stdint.h>

#include "cuda_fp8.h"

#define FP8_BK 64         /* K bytes per stage */
#define FP8_LDS (FP8_BK + 16) /* smem row pitch: 80 bytes, conflict-free 4-byte fragment loads */

__device__ __forceinline__ void cp_async8(void *smem, const void *gmem, int bytes) {
    unsigned s = (unsigned)__cvta_generic_to_shared(smem);
    asm volatile("cp.async.ca.shared.global [%0], [%1], 8, %2;\n" ::"r"(s), "l"(gmem), "r"(bytes));
}
__device__ __forceinline__ void fp8_commit(void) { asm volatile("cp.async.commit_group;\n" ::); }
template <int N> __device__ __forceinline__ void fp8_wait(void) { asm volatile("cp.async.wait_group %0;\n" ::"n"(N)); }

/* float -> e4m3 code, cvt.rn.satfinite (bit-exact with quant/fp8.c i8_fp8_from_f32) */
__device__ __forceinline__ unsigned q_e4m3(float v) {
    return (unsigned)__nv_cvt_float_to_fp8(v, __NV_SATFINITE, __NV_E4M3);
}
/* e4m3 code -> float (exact) */
__device__ __forceinline__ float dq_e4m3(unsigned q) {
    __half_raw h = __nv_cvt_fp8_to_halfraw((__nv_fp8_storage_t)q, __NV_E4M3);
    return __half2float(__half(h));
}

__device__ __forceinline__ void mma_e4m3(float *c, const unsigned *a, const unsigned *b) {
    asm volatile("mma.sync.aligned.m16n8k32.row.col.f32.e4m3.e4m3.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, "
                 "{%0,%1,%2,%3};\n"
                 : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
}

/* GEMM view as the fp16 kernel: M = n*ho*wo pixels, N = c_out, K = kh*kw*c_in (ky, kx, ci). */
template <int BM, int BN, int WM, int WN>
__global__ void __launch_bounds__((BM / WM) * (BN / WN) * 32) conv_fp8_kernel(i8_cuda_fp8_conv_args a) {
    constexpr int NT = (BM / WM) * (BN / WN) * 32;
    constexpr int FM = WM / 16, FN = WN / 8;
    constexpr int LDC = BN + 4;
    constexpr int AB_BYTES = 2 * (BM + BN) * FP8_LDS, C_BYTES = BM * LDC * 4;
    constexpr int SMEM = AB_BYTES > C_BYTES ? AB_BYTES : C_BYTES;
    constexpr int A_CHUNKS = BM * FP8_BK / 8, B_CHUNKS = BN * FP8_BK / 8;
    constexpr int A_PER = (A_CHUNKS + NT - 1) / NT, B_PER = (B_CHUNKS + NT - 1) / NT;
    __shared__ __align__(128) unsigned char smem[SMEM];
    unsigned char *sA = smem;                    /* [2][BM][LDS] */
    unsigned char *sB = smem + 2 * BM * FP8_LDS; /* [2][BN][LDS] */

    const int tid = threadIdx.x, warp = tid / 32, lane = tid % 32;
    const int g = lane / 4, tig = lane % 4;
    const int wm = warp / (BN / WN), wn = warp % (BN / WN);
    const int M = a.n * a.ho * a.wo, K = a.kh * a.kw * a.c_in;
    const int m0 = blockIdx.x * BM, n0 = blockIdx.y * BN;

    int a_n[A_PER], a_iy[A_PER], a_ix[A_PER], a_ok[A_PER];
#pragma unroll
    for (int i = 0; i < A_PER; i++) {
        int idx = tid + i * NT, row = idx / (FP8_BK / 8);
        int m = m0 + row;
        a_ok[i] = idx < A_CHUNKS && m < M;
        int mm = a_ok[i] ? m : 0;
        int ox = mm % a.wo, t = mm / a.wo, oy = t % a.ho;
        a_n[i] = t / a.ho;
        a_iy[i] = oy * a.sh - a.ph;
        a_ix[i] = ox * a.sw - a.pw;
    }

    auto load_tile = [&](int kt, int stage) {
#pragma unroll
        for (int i = 0; i < A_PER; i++) {
            int idx = tid + i * NT;
            if (idx >= A_CHUNKS) break;
            int row = idx / (FP8_BK / 8), kc = idx % (FP8_BK / 8);
            int k = kt * FP8_BK + kc * 8;
            size_t off = 0;
            int ok = 0;
            if (a_ok[i] && k < K) {
                int ci = k % a.c_in, rs = k / a.c_in, ky = rs / a.kw, kx = rs % a.kw;
                int iy = a_iy[i] + ky, ix = a_ix[i] + kx;
                if (iy >= 0 && iy < a.h && ix >= 0 && ix < a.w) {
                    off = ((size_t)(a_n[i] * a.h + iy) * a.w + ix) * a.x_ld + ci;
                    ok = 1;
                }
            }
            unsigned char *dst = sA + (stage * BM + row) * FP8_LDS + kc * 8;
            if (a.x_fp8) {
                const unsigned char *src = (const unsigned char *)a.x + off;
                cp_async8(dst, src, ok ? 8 : 0);
            } else {
                /* fp16 input: quantize while loading (the consumer-side fused Quantize) */
                uint2 q = make_uint2(0u, 0u);
                if (ok) {
                    uint4 r = __ldg((const uint4 *)((const __half *)a.x + off));
                    const __half *h = (const __half *)&r;
                    unsigned lo = 0, hi = 0;
#pragma unroll
                    for (int e = 0; e < 4; e++) lo |= q_e4m3(__fmul_rn(__half2float(h[e]), a.x_inv)) << (8 * e);
#pragma unroll
                    for (int e = 0; e < 4; e++) hi |= q_e4m3(__fmul_rn(__half2float(h[4 + e]), a.x_inv)) << (8 * e);
                    q = make_uint2(lo, hi);
                }
                *(uint2 *)dst = q;
            }
        }
#pragma unroll
        for (int i = 0; i < B_PER; i++) {
            int idx = tid + i * NT;
            if (idx >= B_CHUNKS) break;
            int row = idx / (FP8_BK / 8), kc = idx % (FP8_BK / 8);
            int k = kt * FP8_BK + kc * 8, co = n0 + row;
            const unsigned char *src = a.wq;
            int bytes = 0;
            if (co < a.c_out && k < K) {
                src = a.wq + (size_t)co * K + k;
                bytes = 8;
            }
            cp_async8(sB + (stage * BN + row) * FP8_LDS + kc * 8, src, bytes);
        }
    };

    float acc[FM][FN][4];
#pragma unroll
    for (int i = 0; i < FM; i++)
#pragma unroll
        for (int j = 0; j < FN; j++)
#pragma unroll
            for (int e = 0; e < 4; e++) acc[i][j][e] = 0.0f;

    const int KT = (K + FP8_BK - 1) / FP8_BK;
    load_tile(0, 0);
    fp8_commit();
    for (int kt = 0; kt < KT; kt++) {
        if (kt + 1 < KT) {
            load_tile(kt + 1, (kt + 1) & 1);
            fp8_commit();
            fp8_wait<1>();
        } else {
            fp8_wait<0>();
        }
        __syncthreads();
        const unsigned char *tA = sA + (kt & 1) * BM * FP8_LDS, *tB = sB + (kt & 1) * BN * FP8_LDS;
#pragma unroll
        for (int kk = 0; kk < FP8_BK; kk += 32) {
            unsigned fa[FM][4], fb[FN][2];
#pragma unroll
            for (int i = 0; i < FM; i++) {
                const unsigned char *r0 = tA + (wm * WM + i * 16 + g) * FP8_LDS + kk + tig * 4;
                fa[i][0] = *(const unsigned *)r0;
                fa[i][1] = *(const unsigned *)(r0 + 8 * FP8_LDS);
                fa[i][2] = *(const unsigned *)(r0 + 16);
                fa[i][3] = *(const unsigned *)(r0 + 8 * FP8_LDS + 16);
            }
#pragma unroll
            for (int j = 0; j < FN; j++) {
                const unsigned char *r0 = tB + (wn * WN + j * 8 + g) * FP8_LDS + kk + tig * 4;
                fb[j][0] = *(const unsigned *)r0;
                fb[j][1] = *(const unsigned *)(r0 + 16);
            }
#pragma unroll
            for (int i = 0; i < FM; i++)
#pragma unroll
                for (int j = 0; j < FN; j++) mma_e4m3(acc[i][j], fa[i], fb[j]);
        }
        __syncthreads();
    }

    /* accumulators -> shared (c0,c1: row g, cols 2*tig, 2*tig+1; c2,c3: row g+8) */
    float *sC = (float *)smem;
#pragma unroll
    for (int i = 0; i < FM; i++)
#pragma unroll
        for (int j = 0; j < FN; j++) {
            int r = wm * WM + i * 16 + g, col = wn * WN + j * 8 + tig * 2;
            sC[r * LDC + col] = acc[i][j][0];
            sC[r * LDC + col + 1] = acc[i][j][1];
            sC[(r + 8) * LDC + col] = acc[i][j][2];
            sC[(r + 8) * LDC + col + 1] = acc[i][j][3];
        }
    __syncthreads();

    __half *y = (__half *)a.y;
    unsigned char *yq = (unsigned char *)a.yq;
    const bool vec = (a.y_ld % 8 == 0) && (!y || ((uintptr_t)y & 15) == 0) && (!yq || ((uintptr_t)yq & 7) == 0);
    for (int idx = tid; idx < BM * BN / 8; idx += NT) {
        int row = idx / (BN / 8), cc = (idx % (BN / 8)) * 8;
        int m = m0 + row, co = n0 + cc;
        if (m >= M || co >= a.c_out) continue;
        const float *src = sC + row * LDC + cc;
        int cnt = a.c_out - co < 8 ? a.c_out - co : 8;
        float v[8];
#pragma unroll
        for (int e = 0; e < 8; e++) {
            if (e < cnt) {
                v[e] = src[e] * a.mult[co + e] + (a.bias ? a.bias[co + e] : 0.0f);
                if (a.res_mode != I8_FP8_RES_NONE) {
                    size_t ro = (size_t)m * a.res_ld + co + e;
                    float x;
                    if (a.res_mode == I8_FP8_RES_Q) {
                        x = __fmul_rn(dq_e4m3(((const unsigned char *)a.res)[ro]), a.res_scale);
                    } else {
                        x = __half2float(((const __half *)a.res)[ro]);
                        if (a.res_mode == I8_FP8_RES_F16_FQ)
                            x = __fmul_rn(dq_e4m3(q_e4m3(__fmul_rn(x, a.res_inv))), a.res_scale);
                    }
                    v[e] = __fadd_rn(x, v[e]);
                }
                if (a.relu) v[e] = fmaxf(v[e], 0.0f);
            } else {
                v[e] = 0.0f;
            }
        }
        size_t yo = (size_t)m * a.y_ld + co;
        if (vec && cnt == 8) {
            if (y) {
                uint4 o;
                __half *oh = (__half *)&o;
#pragma unroll
                for (int e = 0; e < 8; e++) oh[e] = __float2half_rn(v[e]);
                *(uint4 *)(y + yo) = o;
            }
            if (yq) {
                unsigned lo = 0, hi = 0;
#pragma unroll
                for (int e = 0; e < 4; e++) lo |= q_e4m3(__fmul_rn(v[e], a.y_inv)) << (8 * e);
#pragma unroll
                for (int e = 0; e < 4; e++) hi |= q_e4m3(__fmul_rn(v[4 + e], a.y_inv)) << (8 * e);
                *(uint2 *)(yq + yo) = make_uint2(lo, hi);
            }
        } else {
            for (int e = 0; e < cnt; e++) {
                if (y) y[yo + e] = __float2half_rn(v[e]);
                if (yq) yq[yo + e] = (unsigned char)q_e4m3(__fmul_rn(v[e], a.y_inv));
            }
        }
    }
}

template <int BM, int BN, int WM, int WN> static int launch_fp8(const i8_cuda_fp8_conv_args *a, cudaStream_t s) {
    int M = a->n * a->ho * a->wo;
    dim3 grid((unsigned)((M + BM - 1) / BM), (unsigned)((a->c_out + BN - 1) / BN), 1u);
    conv_fp8_kernel<BM, BN, WM, WN><<<grid, (BM / WM) * (BN / WN) * 32, 0, s>>>(*a);
    return (int)cudaGetLastError();
}

extern "C" int i8_cuda_conv_fp8_variants(void) { return 4; }

extern "C" const char *i8_cuda_conv_fp8_name(int variant) {
    static const char *names[] = {"qmma64x64", "qmma32x64", "qmma128x64", "qmma64x128"};
    return variant >= 0 && variant < 4 ? names[variant] : "?";
}

extern "C" int i8_cuda_conv_fp8(const i8_cuda_fp8_conv_args *a, int variant, void *stream) {
    cudaStream_t s = (cudaStream_t)stream;
    if (!a || !a->x || !a->wq || !a->mult || (!a->y && !a->yq) || a->c_in % 8 || a->x_ld % 8 || a->n < 1 ||
        ((uintptr_t)a->wq & 7) || ((uintptr_t)a->x & (a->x_fp8 ? 7 : 15)) || (a->res_mode != I8_FP8_RES_NONE && !a->res))
        return (int)cudaErrorInvalidValue;
    switch (variant) {
    case 0: return launch_fp8<64, 64, 32, 32>(a, s);
    case 1: return launch_fp8<32, 64, 16, 32>(a, s);
    case 2: return launch_fp8<128, 64, 64, 32>(a, s);
    case 3: return launch_fp8<64, 128, 32, 64>(a, s);
    default: return (int)cudaErrorInvalidValue;
    }
}
