/* FP8 e4m3 implicit-GEMM convolution with a fused dual-output epilogue (contract in
 * cuda_fp8.h). Tensor cores through mma.sync.m16n8k32.e4m3 (QMMA in SASS on sm_90) fed by
 * ldmatrix, block tile BM x BN x 128 bytes of K, three shared-memory stages filled with cp.async
 * (e4m3 input and weights, 16-byte chunks -- 8 where channels are not 16-aligned -- with zero
 * fill for padding and tails) or, for fp16 input, loaded, quantized in registers and stored (so
 * no stand-alone Quantize kernel ever runs); optional split-K with an in-kernel reduction by
 * the last block of each tile, for the small-M layers of batch 1. The epilogue
 * goes through shared memory: per-channel scale, bias, residual (fp16, e4m3 copy, or fp16
 * quantized on the fly), ReLU, then fp16 and/or e4m3 stores into the output slices. C-style
 * CUDA: templates only for tile parameters. Lab version: dev/kernels/fp8_gemm_lab.cu. */
#include <cuda_fp16.h>
#include <cuda_fp8.h>
#include <cuda_runtime.h>
#include <stdint.h>

#include "cuda_fp8.h"
#include "cuda_splitk.cuh"

#define FP8_BK 128              /* K bytes per stage: four m16n8k32 steps */
#define FP8_LDS (FP8_BK + 16)   /* smem row pitch: 144 bytes, ldmatrix rows hit distinct banks */
#define FP8_STAGES 3

/* cp.async of CH (8 or 16) bytes with zero fill of the bytes past src_bytes */
template <int CH> __device__ __forceinline__ void cp_async_ch(void *smem, const void *gmem, int src_bytes) {
    unsigned s = (unsigned)__cvta_generic_to_shared(smem);
    if (CH == 16)
        asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(s), "l"(gmem), "r"(src_bytes));
    else
        asm volatile("cp.async.ca.shared.global [%0], [%1], 8, %2;\n" ::"r"(s), "l"(gmem), "r"(src_bytes));
}
__device__ __forceinline__ void fp8_commit(void) { asm volatile("cp.async.commit_group;\n" ::); }
template <int N> __device__ __forceinline__ void fp8_wait(void) { asm volatile("cp.async.wait_group %0;\n" ::"n"(N)); }

/* four 8x8 b16 matrices (= 8 rows x 16 bytes of e4m3 each) from shared memory; thread t gives
 * the row address of row t % 8 of matrix t / 8 */
__device__ __forceinline__ void ldmatrix_x4(unsigned *r, const void *smem) {
    unsigned s = (unsigned)__cvta_generic_to_shared(smem);
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0,%1,%2,%3}, [%4];\n"
                 : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
                 : "r"(s));
}

/* float -> e4m3 code, cvt.rn.satfinite (bit-exact with quant/fp8.c i8_fp8_from_f32) */
__device__ __forceinline__ unsigned q_e4m3(float v) {
    return (unsigned)__nv_cvt_float_to_fp8(v, __NV_SATFINITE, __NV_E4M3);
}
/* four floats -> four e4m3 codes in one word (byte e = value e), same rounding */
__device__ __forceinline__ unsigned q_e4m3x4(float v0, float v1, float v2, float v3) {
    unsigned lo = (unsigned)__nv_cvt_float2_to_fp8x2(make_float2(v0, v1), __NV_SATFINITE, __NV_E4M3);
    unsigned hi = (unsigned)__nv_cvt_float2_to_fp8x2(make_float2(v2, v3), __NV_SATFINITE, __NV_E4M3);
    return lo | (hi << 16);
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

template <int BM, int BN> struct fp8_smem {
    static constexpr int LDC = BN + 4;
    static constexpr int AB = FP8_STAGES * (BM + BN) * FP8_LDS, C = BM * LDC * 4;
    static constexpr int BYTES = AB > C ? AB : C;
};

/* GEMM view as the fp16 kernel: M = n*ho*wo pixels, N = c_out, K = kh*kw*c_in (ky, kx, ci).
 * CH: bytes of K per copy (16 when c_in, x_ld and x are 16-aligned, else 8); a copy never
 * straddles two taps because c_in % CH == 0. splits > 1: split-K over blockIdx.z, partial tiles
 * in a.partial, the last block of a tile (counter in a.counters) reduces and runs the epilogue. */
template <int BM, int BN, int WM, int WN, int CH>
__global__ void __launch_bounds__((BM / WM) * (BN / WN) * 32) conv_fp8_kernel(i8_cuda_fp8_conv_args a, int splits) {
    constexpr int NT = (BM / WM) * (BN / WN) * 32;
    constexpr int FM = WM / 16, FN = WN / 8;
    constexpr int LDC = fp8_smem<BM, BN>::LDC;
    constexpr int A_CHUNKS = BM * FP8_BK / CH, B_CHUNKS = BN * FP8_BK / CH;
    constexpr int A_PER = (A_CHUNKS + NT - 1) / NT, B_PER = (B_CHUNKS + NT - 1) / NT;
    extern __shared__ __align__(128) unsigned char smem[];
    unsigned char *sA = smem;                             /* [STAGES][BM][LDS] */
    unsigned char *sB = smem + FP8_STAGES * BM * FP8_LDS; /* [STAGES][BN][LDS] */

    const int tid = threadIdx.x, warp = tid / 32, lane = tid % 32;
    const int g = lane / 4, tig = lane % 4;
    const int wm = warp / (BN / WN), wn = warp % (BN / WN);
    const int M = a.n * a.ho * a.wo, K = a.kh * a.kw * a.c_in;
    const int m0 = blockIdx.x * BM, n0 = blockIdx.y * BN;
    const bool pointwise = a.kh == 1 && a.kw == 1 && a.sh == 1 && a.sw == 1 && a.ph == 0 && a.pw == 0;

    /* per A chunk row: image, top-left input position (and, pointwise, the pixel offset) */
    int a_n[A_PER], a_iy[A_PER], a_ix[A_PER], a_ok[A_PER];
#pragma unroll
    for (int i = 0; i < A_PER; i++) {
        int idx = tid + i * NT, row = idx / (FP8_BK / CH);
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
            int row = idx / (FP8_BK / CH), kc = idx % (FP8_BK / CH);
            int k = kt * FP8_BK + kc * CH;
            size_t off = 0;
            int ok = 0;
            if (a_ok[i] && k < K) {
                if (pointwise) {
                    off = ((size_t)(a_n[i] * a.h + a_iy[i]) * a.w + a_ix[i]) * a.x_ld + k;
                    ok = 1;
                } else {
                    int ci = k % a.c_in, rs = k / a.c_in, ky = rs / a.kw, kx = rs % a.kw;
                    int iy = a_iy[i] + ky, ix = a_ix[i] + kx;
                    if (iy >= 0 && iy < a.h && ix >= 0 && ix < a.w) {
                        off = ((size_t)(a_n[i] * a.h + iy) * a.w + ix) * a.x_ld + ci;
                        ok = 1;
                    }
                }
            }
            unsigned char *dst = sA + (stage * BM + row) * FP8_LDS + kc * CH;
            if (a.x_fp8) {
                cp_async_ch<CH>(dst, (const unsigned char *)a.x + off, ok ? CH : 0);
            } else {
                /* fp16 input: quantize while loading (the consumer-side fused Quantize) */
                unsigned q[CH / 4];
#pragma unroll
                for (int e = 0; e < CH / 4; e++) q[e] = 0u;
                if (ok) {
#pragma unroll
                    for (int part = 0; part < CH / 8; part++) {
                        uint4 r = __ldg((const uint4 *)((const __half *)a.x + off) + part);
                        const __half *h = (const __half *)&r;
                        float f[8];
#pragma unroll
                        for (int e = 0; e < 8; e++) f[e] = __fmul_rn(__half2float(h[e]), a.x_inv);
                        q[2 * part] = q_e4m3x4(f[0], f[1], f[2], f[3]);
                        q[2 * part + 1] = q_e4m3x4(f[4], f[5], f[6], f[7]);
                    }
                }
                if (CH == 16) *(uint4 *)dst = make_uint4(q[0], q[1], q[2 % (CH / 4)], q[3 % (CH / 4)]);
                else *(uint2 *)dst = make_uint2(q[0], q[1]);
            }
        }
#pragma unroll
        for (int i = 0; i < B_PER; i++) {
            int idx = tid + i * NT;
            if (idx >= B_CHUNKS) break;
            int row = idx / (FP8_BK / CH), kc = idx % (FP8_BK / CH);
            int k = kt * FP8_BK + kc * CH, co = n0 + row;
            const unsigned char *src = a.wq;
            int bytes = 0;
            if (co < a.c_out && k < K) {
                src = a.wq + (size_t)co * K + k;
                bytes = CH;
            }
            cp_async_ch<CH>(sB + (stage * BN + row) * FP8_LDS + kc * CH, src, bytes);
        }
    };

    float acc[FM][FN][4];
#pragma unroll
    for (int i = 0; i < FM; i++)
#pragma unroll
        for (int j = 0; j < FN; j++)
#pragma unroll
            for (int e = 0; e < 4; e++) acc[i][j][e] = 0.0f;

    /* this block's share of the K tiles */
    const int KT_ALL = (K + FP8_BK - 1) / FP8_BK, per = (KT_ALL + splits - 1) / splits;
    const int kt0 = blockIdx.z * per, kt_end = min(KT_ALL, kt0 + per);
    const int KT = kt_end > kt0 ? kt_end - kt0 : 0;
#pragma unroll
    for (int st = 0; st < FP8_STAGES - 1; st++) {
        if (st < KT) load_tile(kt0 + st, st);
        fp8_commit();
    }
    /* ldmatrix row addresses: lane l gives row l % 8 of matrix l / 8 */
    const int lrow = lane % 8, lmat = lane / 8;
    for (int t = 0; t < KT; t++) {
        fp8_wait<FP8_STAGES - 2>();
        __syncthreads();
        if (t + FP8_STAGES - 1 < KT) load_tile(kt0 + t + FP8_STAGES - 1, (t + FP8_STAGES - 1) % FP8_STAGES);
        fp8_commit();
        const unsigned char *tA = sA + (t % FP8_STAGES) * BM * FP8_LDS, *tB = sB + (t % FP8_STAGES) * BN * FP8_LDS;
#pragma unroll
        for (int kk = 0; kk < FP8_BK; kk += 32) {
            unsigned fa[FM][4], fb[FN][2];
#pragma unroll
            for (int i = 0; i < FM; i++) /* matrices: rows 0-7 / 8-15 at k 0-15, then at k 16-31 */
                ldmatrix_x4(fa[i], tA + (wm * WM + i * 16 + (lmat & 1) * 8 + lrow) * FP8_LDS + kk + (lmat >> 1) * 16);
#pragma unroll
            for (int j = 0; j < FN; j += 2) { /* matrices: n 0-7 at k 0-15 / 16-31, n 8-15 likewise */
                unsigned r[4];
                ldmatrix_x4(r, tB + (wn * WN + j * 8 + (lmat >> 1) * 8 + lrow) * FP8_LDS + kk + (lmat & 1) * 16);
                fb[j][0] = r[0], fb[j][1] = r[1];
                if (j + 1 < FN) fb[j + 1][0] = r[2], fb[j + 1][1] = r[3];
            }
#pragma unroll
            for (int i = 0; i < FM; i++)
#pragma unroll
                for (int j = 0; j < FN; j++) mma_e4m3(acc[i][j], fa[i], fb[j]);
        }
    }
    fp8_wait<0>();
    __syncthreads();

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
    if (splits > 1 && !splitk_reduce<BM, BN, NT>(sC, LDC, a.partial, a.counters, splits)) return;

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
                float f[8];
#pragma unroll
                for (int e = 0; e < 8; e++) f[e] = __fmul_rn(__half2float(__float2half_rn(v[e])), a.y_inv);
                *(uint2 *)(yq + yo) = make_uint2(q_e4m3x4(f[0], f[1], f[2], f[3]), q_e4m3x4(f[4], f[5], f[6], f[7]));
            }
        } else {
            for (int e = 0; e < cnt; e++) {
                if (y) y[yo + e] = __float2half_rn(v[e]);
                if (yq) yq[yo + e] = (unsigned char)q_e4m3(__fmul_rn(__half2float(__float2half_rn(v[e])), a.y_inv));
            }
        }
    }
}

template <int BM, int BN, int WM, int WN, int CH> static int set_smem(void) {
    return (int)cudaFuncSetAttribute(conv_fp8_kernel<BM, BN, WM, WN, CH>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                     fp8_smem<BM, BN>::BYTES);
}

template <int BM, int BN, int WM, int WN> static int launch_fp8(const i8_cuda_fp8_conv_args *a, int splits, cudaStream_t s) {
    int M = a->n * a->ho * a->wo, K = a->kh * a->kw * a->c_in;
    dim3 grid((unsigned)((M + BM - 1) / BM), (unsigned)((a->c_out + BN - 1) / BN), (unsigned)splits);
    if (splits > 1) {
        size_t tiles = (size_t)grid.x * grid.y;
        if (splits > (K + FP8_BK - 1) / FP8_BK || !a->partial || !a->counters || tiles > (size_t)a->n_counters ||
            tiles * splits * BM * BN * sizeof(float) > a->partial_bytes)
            return (int)cudaErrorInvalidValue;
    }
    const int nt = (BM / WM) * (BN / WN) * 32, bytes = fp8_smem<BM, BN>::BYTES;
    bool wide = a->c_in % 16 == 0 && a->x_ld % 16 == 0 && ((uintptr_t)a->x & 15) == 0;
    if (wide) conv_fp8_kernel<BM, BN, WM, WN, 16><<<grid, nt, bytes, s>>>(*a, splits);
    else conv_fp8_kernel<BM, BN, WM, WN, 8><<<grid, nt, bytes, s>>>(*a, splits);
    return (int)cudaGetLastError();
}

#define FP8_TILES(X) X(64, 64, 32, 32) X(32, 64, 16, 32) X(128, 64, 32, 32) X(64, 128, 32, 32)

extern "C" int i8_cuda_conv_fp8_setup(void) {
    int rc = 0;
#define FP8_SET(bm, bn, wm, wn) \
    if (!rc) rc = set_smem<bm, bn, wm, wn, 16>(); \
    if (!rc) rc = set_smem<bm, bn, wm, wn, 8>();
    FP8_TILES(FP8_SET)
#undef FP8_SET
    return rc;
}

extern "C" int i8_cuda_conv_fp8_variants(void) { return 16; }

extern "C" const char *i8_cuda_conv_fp8_name(int variant) {
    static const char *names[] = {"qmma64x64", "qmma32x64", "qmma128x64", "qmma64x128"};
    return variant >= 0 && variant < 16 ? names[variant % 4] : "?";
}

extern "C" int i8_cuda_conv_fp8(const i8_cuda_fp8_conv_args *a, int variant, void *stream) {
    cudaStream_t s = (cudaStream_t)stream;
    if (!a || !a->x || !a->wq || !a->mult || (!a->y && !a->yq) || a->c_in % 8 || a->x_ld % 8 || a->n < 1 ||
        ((uintptr_t)a->wq & 15) || ((uintptr_t)a->x & (a->x_fp8 ? 7 : 15)) || (a->res_mode != I8_FP8_RES_NONE && !a->res) ||
        variant < 0 || variant >= 16)
        return (int)cudaErrorInvalidValue;
    int splits = 1 << (variant / 4);
    switch (variant % 4) {
    case 0: return launch_fp8<64, 64, 32, 32>(a, splits, s);
    case 1: return launch_fp8<32, 64, 16, 32>(a, splits, s);
    case 2: return launch_fp8<128, 64, 32, 32>(a, splits, s);
    case 3: return launch_fp8<64, 128, 32, 32>(a, splits, s);
    default: return (int)cudaErrorInvalidValue;
    }
}
