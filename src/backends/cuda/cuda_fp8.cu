/* FP8 e4m3 implicit-GEMM convolution with a fused dual-output epilogue (contract in
 * cuda_fp8.h), in kernel families that share the loader and the epilogue:
 *   qmma  -- mma.sync.m16n8k32.e4m3 (QMMA in SASS on sm_90) fed by ldmatrix from padded rows,
 *            three stages; exact fp32 sums;
 *   wgmma -- Hopper's wgmma.mma_async m64nNk32 from 128-byte-swizzled tiles, 3-4 stages; its
 *            tensor-core sums are promoted to fp32 registers every 128 of K;
 *   wgmma lean -- the same with 2-3 stages, registers capped for more blocks per SM and the
 *            residual loaded before the main loop (the short-K 1x1s of large batches).
 * Block tile BM x BN x 128 bytes of K, stages filled with cp.async (e4m3 input and weights,
 * 16-byte chunks -- 8 where channels are not 16-aligned, qmma only -- with zero fill for padding
 * and tails) or, for fp16 input, loaded, quantized in registers and stored (so no stand-alone
 * Quantize kernel ever runs); optional split-K with an in-kernel reduction by the last block of
 * each tile, for the small-M layers of batch 1. The epilogue goes through shared memory:
 * per-channel scale, bias, residual (fp16, e4m3 copy, or fp16 quantized on the fly), ReLU, then
 * fp16 and/or e4m3 stores into the output slices. C-style CUDA: templates only for tile
 * parameters. A fourth family, persistent TMA-fed wgmma kernels for the pointwise convs, is in
 * cuda_fp8_tma.cu (variants from I8_FP8_TMA_FIRST on, dispatched here); a fifth, the halo kernels
 * for small-channel spatial convs (input band and weights in shared memory once per block), is
 * below (from I8_FP8_HALO_FIRST on). Lab: dev/kernels/fp8_lab.cu. */
#include <cuda_fp16.h>
#include <cuda_runtime.h>
#include <stdint.h>

#include "cuda_e4m3.cuh"
#include "cuda_fp8.h"
#include "cuda_mma.cuh"
#include "cuda_pdl.cuh"
#include "cuda_resident.cuh"
#include "cuda_splitk.cuh"
#include "cuda_wgmma.cuh"
#include "quotient.h"

#define FP8_LDS (FP8_BK + 16)   /* smem row pitch: 144 bytes, ldmatrix rows hit distinct banks */
#define FP8_STAGES 3

/* Shared-memory byte offset of byte `byte` of K in row `row` of one stage's A or B tile:
 * padded rows (144-byte pitch) for ldmatrix, or wgmma's 128-byte swizzle (rows of 128 bytes,
 * 16-byte chunk c of row r stored at chunk c ^ (r % 8); the tile starts 1024-byte aligned). */
template <bool SWZ> __device__ __forceinline__ int fp8_soff(int row, int byte) {
    if (SWZ) return row * FP8_BK + ((((byte >> 4) ^ (row & 7)) << 4) | (byte & 15));
    return row * FP8_LDS + byte;
}

/* The A rows (output pixels) one thread copies in every K tile: image, top-left input position. */
template <int PER> struct fp8_arows {
    int n[PER], iy[PER], ix[PER], ok[PER];
};

template <int BM, int NT, int CH, int PER>
__device__ __forceinline__ void fp8_rows_init(const i8_cuda_fp8_conv_args &a, int m0, int M, fp8_arows<PER> &r) {
    constexpr int A_CHUNKS = BM * FP8_BK / CH;
#pragma unroll
    for (int i = 0; i < PER; i++) {
        int idx = threadIdx.x + i * NT, row = idx / (FP8_BK / CH);
        int m = m0 + row;
        r.ok[i] = idx < A_CHUNKS && m < M;
        int mm = r.ok[i] ? m : 0;
        int ox = mm % a.wo, t = mm / a.wo, oy = t % a.ho;
        r.n[i] = t / a.ho;
        r.iy[i] = oy * a.sh - a.ph;
        r.ix[i] = ox * a.sw - a.pw;
    }
}

/* One K tile (kt) of A (im2col of x, CH bytes per copy, zero fill for padding and tails; fp16 x
 * quantized in registers) and B (weights) into this stage's tiles tA [BM rows] and tB [BN rows]. */
template <int BM, int BN, int NT, int CH, bool SWZ, int PER>
__device__ __forceinline__ void fp8_load_tile(const i8_cuda_fp8_conv_args &a, const fp8_arows<PER> &r, int K,
                                              bool pointwise, int n0, int kt, unsigned char *tA, unsigned char *tB) {
    constexpr int A_CHUNKS = BM * FP8_BK / CH, B_CHUNKS = BN * FP8_BK / CH;
    constexpr int B_PER = (B_CHUNKS + NT - 1) / NT;
    const int tid = threadIdx.x;
#pragma unroll
    for (int i = 0; i < PER; i++) {
        int idx = tid + i * NT;
        if (idx >= A_CHUNKS) break;
        int row = idx / (FP8_BK / CH), kc = idx % (FP8_BK / CH);
        int k = kt * FP8_BK + kc * CH;
        size_t off = 0;
        int ok = 0;
        if (r.ok[i] && k < K) {
            if (pointwise) {
                off = ((size_t)(r.n[i] * a.h + r.iy[i]) * a.w + r.ix[i]) * a.x_ld + k;
                ok = 1;
            } else {
                int ci = k % a.c_in, rs = k / a.c_in, ky = rs / a.kw, kx = rs % a.kw;
                int iy = r.iy[i] + ky, ix = r.ix[i] + kx;
                if (iy >= 0 && iy < a.h && ix >= 0 && ix < a.w) {
                    off = ((size_t)(r.n[i] * a.h + iy) * a.w + ix) * a.x_ld + ci;
                    ok = 1;
                }
            }
        }
        unsigned char *dst = tA + fp8_soff<SWZ>(row, kc * CH);
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
                    uint4 raw = __ldg((const uint4 *)((const __half *)a.x + off) + part);
                    const __half *h = (const __half *)&raw;
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
        cp_async_ch<CH>(tB + fp8_soff<SWZ>(row, kc * CH), src, bytes);
    }
}

/* This block's part of the GEMM view: M = n*ho*wo pixels, K = kh*kw*c_in, its first row and
 * channel, and its share of the K tiles (split-K over blockIdx.z). */
struct fp8_block {
    int M, K, m0, n0, kt0, KT;
    bool pointwise;
};
__device__ __forceinline__ fp8_block fp8_block_of(const i8_cuda_fp8_conv_args &a, int BM, int BN, int splits) {
    fp8_block b;
    b.M = a.n * a.ho * a.wo, b.K = a.kh * a.kw * a.c_in;
    b.m0 = blockIdx.x * BM, b.n0 = blockIdx.y * BN;
    b.pointwise = a.kh == 1 && a.kw == 1 && a.sh == 1 && a.sw == 1 && a.ph == 0 && a.pw == 0;
    const int kt_all = (b.K + FP8_BK - 1) / FP8_BK, per = (kt_all + splits - 1) / splits;
    b.kt0 = blockIdx.z * per;
    const int kt_end = min(kt_all, b.kt0 + per);
    b.KT = kt_end > b.kt0 ? kt_end - b.kt0 : 0;
    return b;
}

/* 8 consecutive floats from p (16-byte aligned when vec) */
__device__ __forceinline__ void load8f(float *v, const float *p, bool vec) {
    if (vec) {
        float4 lo = __ldg((const float4 *)p), hi = __ldg((const float4 *)p + 1);
        v[0] = lo.x, v[1] = lo.y, v[2] = lo.z, v[3] = lo.w, v[4] = hi.x, v[5] = hi.y, v[6] = hi.z, v[7] = hi.w;
    } else {
#pragma unroll
        for (int e = 0; e < 8; e++) v[e] = p[e];
    }
}

/* A thread's 8 channels are the same in every epilogue group it takes (NT is a multiple of
 * BN / 8): their multipliers and biases, loaded before the main loop so that the epilogue does
 * not wait a global round trip for them in each group, one group after another (the TMA kernels'
 * fix of session 13). ok false (a partial or unaligned group): the epilogue loads them itself. */
struct fp8_chan8 {
    float mult[8], bias[8];
    bool ok;
};
template <int BN, int NT>
__device__ __forceinline__ void fp8_chan_prefetch(const i8_cuda_fp8_conv_args &a, int n0, fp8_chan8 &c) {
    static_assert(NT % (BN / 8) == 0, "a thread's epilogue channels are the same in each group");
    const int co = n0 + (threadIdx.x % (BN / 8)) * 8;
    c.ok = co + 8 <= a.c_out && ((uintptr_t)a.mult & 15) == 0 && ((uintptr_t)a.bias & 15) == 0;
    if (!c.ok) return;
    load8f(c.mult, a.mult + co, true);
    if (a.bias) load8f(c.bias, a.bias + co, true);
    else
#pragma unroll
        for (int e = 0; e < 8; e++) c.bias[e] = 0.0f;
}

/* The residual of the epilogue's groups (8 channels of a pixel each, group it of this thread at
 * idx = threadIdx.x + it * NT), loaded before the main loop so that its latency overlaps the
 * GEMM: raw bytes (16 of fp16, or 8 of e4m3 in .x/.y) of the full, aligned groups; the others
 * are loaded by the epilogue itself. */
template <int BM, int BN, int NT> struct fp8_res_pf {
    static constexpr int N = (BM * BN / 8 + NT - 1) / NT;
    uint4 v[N];
};
__device__ __forceinline__ bool fp8_res_vec(const i8_cuda_fp8_conv_args &a) {
    return a.res_ld % 8 == 0 && ((uintptr_t)a.res & (a.res_mode == I8_FP8_RES_Q ? 7 : 15)) == 0;
}
template <int BM, int BN, int NT>
__device__ __forceinline__ void fp8_res_prefetch(const i8_cuda_fp8_conv_args &a, int m0, int n0, int M,
                                                 fp8_res_pf<BM, BN, NT> &pf) {
    if (a.res_mode == I8_FP8_RES_NONE || !fp8_res_vec(a)) return;
#pragma unroll
    for (int it = 0; it < fp8_res_pf<BM, BN, NT>::N; it++) {
        const int idx = threadIdx.x + it * NT;
        if (idx >= BM * BN / 8) break;
        const int m = m0 + idx / (BN / 8), co = n0 + (idx % (BN / 8)) * 8;
        if (m >= M || co + 8 > a.c_out) continue;
        const size_t ro = (size_t)m * a.res_ld + co;
        if (a.res_mode == I8_FP8_RES_Q) {
            uint2 t = __ldg((const uint2 *)((const unsigned char *)a.res + ro));
            pf.v[it] = make_uint4(t.x, t.y, 0u, 0u);
        } else {
            pf.v[it] = __ldg((const uint4 *)((const __half *)a.res + ro));
        }
    }
}

/* One group of the epilogue (8 consecutive channels of a pixel, group idx of a BM x BN tile of
 * fp32 sums in shared memory sC, row pitch ldc): per-channel scale, bias, residual, ReLU, fp16
 * and / or e4m3 stores (contract in cuda_fp8.h); full groups load and store 16 / 8 bytes at
 * once. pfv: the group's residual, prefetched (fp8_res_prefetch), or NULL; ch: the thread's
 * channels' multipliers and biases (fp8_chan_prefetch). */
template <int BN>
__device__ __forceinline__ void fp8_epilogue_group(const i8_cuda_fp8_conv_args &a, const float *sC, int ldc, int m0,
                                                   int n0, int M, int idx, bool vec, bool vec_mb, bool vec_r,
                                                   const uint4 *pfv, const fp8_chan8 &ch) {
    __half *y = (__half *)a.y;
    unsigned char *yq = (unsigned char *)a.yq;
    int row = idx / (BN / 8), cc = (idx % (BN / 8)) * 8;
    int m = m0 + row, co = n0 + cc;
    if (m >= M || co >= a.c_out) return;
    const float *src = sC + row * ldc + cc;
    const int cnt = a.c_out - co < 8 ? a.c_out - co : 8;
    const bool full = cnt == 8;
    float v[8], mult[8], bias[8], x[8];
    if (full && ch.ok) {
#pragma unroll
        for (int e = 0; e < 8; e++) mult[e] = ch.mult[e], bias[e] = ch.bias[e];
    } else if (full) {
        load8f(mult, a.mult + co, vec_mb);
        if (a.bias) load8f(bias, a.bias + co, vec_mb);
    }
#pragma unroll
    for (int e = 0; e < 8; e++) {
        if (!full) mult[e] = e < cnt ? a.mult[co + e] : 0.0f, bias[e] = a.bias && e < cnt ? a.bias[co + e] : 0.0f;
        if (!a.bias && !(full && ch.ok)) bias[e] = 0.0f;
    }
    if (a.res_mode != I8_FP8_RES_NONE) {
        size_t ro = (size_t)m * a.res_ld + co;
        if (a.res_mode == I8_FP8_RES_Q) {
            const unsigned char *rq = (const unsigned char *)a.res + ro;
            unsigned char c8[8];
            if (full && vec_r && pfv) *(uint2 *)c8 = make_uint2(pfv->x, pfv->y);
            else if (full && vec_r) *(uint2 *)c8 = __ldg((const uint2 *)rq);
            else
                for (int e = 0; e < 8; e++) c8[e] = e < cnt ? rq[e] : 0;
#pragma unroll
            for (int e = 0; e < 8; e++) x[e] = __fmul_rn(dq_e4m3(c8[e]), a.res_scale);
        } else {
            const __half *rh = (const __half *)a.res + ro;
            __half h8[8];
            if (full && vec_r && pfv) *(uint4 *)h8 = *pfv;
            else if (full && vec_r) *(uint4 *)h8 = __ldg((const uint4 *)rh);
            else
                for (int e = 0; e < 8; e++) h8[e] = e < cnt ? rh[e] : __float2half_rn(0.0f);
#pragma unroll
            for (int e = 0; e < 8; e++) {
                x[e] = __half2float(h8[e]);
                if (a.res_mode == I8_FP8_RES_F16_FQ)
                    x[e] = __fmul_rn(dq_e4m3(q_e4m3(__fmul_rn(x[e], a.res_inv))), a.res_scale);
            }
        }
    }
#pragma unroll
    for (int e = 0; e < 8; e++) {
        v[e] = src[e] * mult[e] + bias[e];
        if (a.res_mode != I8_FP8_RES_NONE) v[e] = __fadd_rn(x[e], v[e]);
        if (a.relu) v[e] = relu_f32(v[e]);
    }
    size_t yo = (size_t)m * a.y_ld + co;
    if (vec && full) {
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
            for (int e = 0; e < 8; e++) f[e] = __fmul_rn(v[e], a.y_inv);
            *(uint2 *)(yq + yo) = make_uint2(q_e4m3x4(f[0], f[1], f[2], f[3]), q_e4m3x4(f[4], f[5], f[6], f[7]));
        }
    } else {
        for (int e = 0; e < cnt; e++) {
            if (y) y[yo + e] = __float2half_rn(v[e]);
            if (yq) yq[yo + e] = (unsigned char)q_e4m3(__fmul_rn(v[e], a.y_inv));
        }
    }
}

/* The epilogue of a BM x BN tile, one group of 8 channels per thread at a time. use_pf: the full
 * groups' residual is in pf (fp8_res_prefetch), indexed by the unrolled group number; ch: the
 * thread's channels' multipliers and biases (fp8_chan_prefetch). */
template <int BM, int BN, int NT>
__device__ __forceinline__ void fp8_epilogue(const i8_cuda_fp8_conv_args &a, const float *sC, int ldc, int m0, int n0,
                                             int M, const fp8_res_pf<BM, BN, NT> &pf, bool use_pf, const fp8_chan8 &ch) {
    const bool vec = (a.y_ld % 8 == 0) && (!a.y || ((uintptr_t)a.y & 15) == 0) && (!a.yq || ((uintptr_t)a.yq & 7) == 0);
    const bool vec_mb = ((uintptr_t)a.mult & 15) == 0 && ((uintptr_t)a.bias & 15) == 0;
    const bool vec_r = fp8_res_vec(a);
    if (use_pf) {
#pragma unroll
        for (int it = 0; it < fp8_res_pf<BM, BN, NT>::N; it++) {
            const int idx = threadIdx.x + it * NT;
            if (idx < BM * BN / 8) fp8_epilogue_group<BN>(a, sC, ldc, m0, n0, M, idx, vec, vec_mb, vec_r, &pf.v[it], ch);
        }
    } else {
        for (int idx = threadIdx.x; idx < BM * BN / 8; idx += NT)
            fp8_epilogue_group<BN>(a, sC, ldc, m0, n0, M, idx, vec, vec_mb, vec_r, nullptr, ch);
    }
}

/* ---- mma.sync kernel (sm_89+) ---- */

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
    constexpr int A_PER = (BM * FP8_BK / CH + NT - 1) / NT;
    extern __shared__ __align__(128) unsigned char smem[];
    unsigned char *sA = smem;                             /* [STAGES][BM][LDS] */
    unsigned char *sB = smem + FP8_STAGES * BM * FP8_LDS; /* [STAGES][BN][LDS] */

    const int tid = threadIdx.x, warp = tid / 32, lane = tid % 32;
    const int g = lane / 4, tig = lane % 4;
    const int wm = warp / (BN / WN), wn = warp % (BN / WN);
    const fp8_block blk = fp8_block_of(a, BM, BN, splits);
    const int kt0 = blk.kt0, KT = blk.KT;
    griddep_wait(); /* nothing read or written before: the input, residual and split-K state follow */
    griddep_launch_dependents();
    fp8_chan8 ch;
    fp8_chan_prefetch<BN, NT>(a, blk.n0, ch);
    /* the residual too, in every split's block (read-only; the last one uses it); not with 8-byte
     * copies (unaligned channels: rare, and the 128 x 64 tile then spills) */
    fp8_res_pf<BM, BN, NT> pf;
    if constexpr (CH == 16) fp8_res_prefetch<BM, BN, NT>(a, blk.m0, blk.n0, blk.M, pf);
    fp8_arows<A_PER> rows;
    fp8_rows_init<BM, NT, CH>(a, blk.m0, blk.M, rows);
    auto load_tile = [&](int kt, int stage) {
        fp8_load_tile<BM, BN, NT, CH, false>(a, rows, blk.K, blk.pointwise, blk.n0, kt, sA + stage * BM * FP8_LDS,
                                             sB + stage * BN * FP8_LDS);
    };

    float acc[FM][FN][4];
#pragma unroll
    for (int i = 0; i < FM; i++)
#pragma unroll
        for (int j = 0; j < FN; j++)
#pragma unroll
            for (int e = 0; e < 4; e++) acc[i][j][e] = 0.0f;

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
            *(float2 *)&sC[r * LDC + col] = make_float2(acc[i][j][0], acc[i][j][1]);
            *(float2 *)&sC[(r + 8) * LDC + col] = make_float2(acc[i][j][2], acc[i][j][3]);
        }
    __syncthreads();
    if (splits > 1 && !splitk_reduce<BM, BN, NT>(sC, LDC, a.partial, a.counters, splits)) return;
    fp8_epilogue<BM, BN, NT>(a, sC, LDC, blk.m0, blk.n0, blk.M, pf, CH == 16, ch);
}

/* ---- wgmma kernel (sm_90a) ----
 * Same GEMM view, loads and epilogue; the tensor-core step is Hopper's warpgroup MMA
 * (wgmma.mma_async m64nBNk32 e4m3 x e4m3 -> fp32) reading both operands from shared memory
 * through descriptors, K-major with the 128-byte swizzle. One warpgroup (128 threads) per 64
 * rows of the tile. The wgmma of a stage completes (wait_group 0) before the stage is refilled. */

template <int BM, int BN, int S> struct wg_smem {
    static constexpr int LDC = BN + 4;
    static constexpr int AB = S * (BM + BN) * FP8_BK, C = BM * LDC * 4;
    static constexpr int BYTES = (AB > C ? AB : C) + 1024; /* + room to align the tiles to 1024 */
};

/* PF: the lean family (registers capped for MINB blocks per SM), which loads the epilogue's
 * residual before the main loop without split-K only; the others (MINB 1) always do. */
template <int BM, int BN, int S, bool PF, int MINB>
__global__ void __launch_bounds__(BM * 2, MINB) conv_fp8_wgmma_kernel(i8_cuda_fp8_conv_args a, int splits) {
    constexpr int NT = BM * 2, CH = 16;
    constexpr int LDC = wg_smem<BM, BN, S>::LDC;
    constexpr int A_PER = (BM * FP8_BK / CH + NT - 1) / NT;
    extern __shared__ __align__(128) unsigned char wg_raw[];
    unsigned char *smem = wg_raw + ((1024 - (__cvta_generic_to_shared(wg_raw) & 1023)) & 1023);
    unsigned char *sA = smem;                      /* [S][BM][128], swizzled */
    unsigned char *sB = smem + S * BM * FP8_BK;    /* [S][BN][128], swizzled */

    const int tid = threadIdx.x, wg = tid / 128;
    const fp8_block blk = fp8_block_of(a, BM, BN, splits);
    const int kt0 = blk.kt0, KT = blk.KT;
    griddep_wait(); /* as in conv_fp8_kernel */
    griddep_launch_dependents();
    fp8_arows<A_PER> rows;
    fp8_rows_init<BM, NT, CH>(a, blk.m0, blk.M, rows);
    auto load_tile = [&](int kt, int stage) {
        fp8_load_tile<BM, BN, NT, CH, true>(a, rows, blk.K, blk.pointwise, blk.n0, kt, sA + stage * BM * FP8_BK,
                                            sB + stage * BN * FP8_BK);
    };

    /* Hopper's e4m3 wgmma keeps fewer than fp32's bits in its accumulator (DeepSeek-V3 report,
     * 3.5.2; seen here as codes off by several steps against mma.sync on K >= 320): each stage's
     * 128-deep sum starts from zero in the tensor core (part) and is added to acc in fp32. */
    float acc[BN / 2], part[BN / 2];
#pragma unroll
    for (int i = 0; i < BN / 2; i++) acc[i] = 0.0f;
    fp8_res_pf<BM, BN, NT> pf;
    /* PF (registers capped): without split-K only; MINB 1: always, each split's block loading it
     * (read-only; only the last one uses it), since batch 1's split-K tiles wait on it the most */
    const bool use_pf = PF ? splits == 1 : MINB == 1;
    if (use_pf) fp8_res_prefetch<BM, BN, NT>(a, blk.m0, blk.n0, blk.M, pf);
    fp8_chan8 ch;
    ch.ok = false;
    if constexpr (MINB == 1) fp8_chan_prefetch<BN, NT>(a, blk.n0, ch); /* else no registers to spare (spills) */

#pragma unroll
    for (int st = 0; st < S - 1; st++) {
        if (st < KT) load_tile(kt0 + st, st);
        fp8_commit();
    }
    for (int t = 0; t < KT; t++) {
        fp8_wait<S - 2>();
        proxy_fence();
        __syncthreads();
        if (t + S - 1 < KT) load_tile(kt0 + t + S - 1, (t + S - 1) % S);
        fp8_commit();
        const unsigned char *tA = sA + (t % S) * BM * FP8_BK + wg * 64 * FP8_BK, *tB = sB + (t % S) * BN * FP8_BK;
        wg_fence();
        const uint64_t da0 = wg_desc(tA), db0 = wg_desc(tB);
#pragma unroll
        for (int kk = 0; kk < FP8_BK; kk += 32) {
            if (BN == 64) wgmma_n64(part, wg_desc_add(da0, kk), wg_desc_add(db0, kk), kk > 0);
            else wgmma_n128(part, wg_desc_add(da0, kk), wg_desc_add(db0, kk), kk > 0);
        }
        wg_commit();
        wg_wait_all();
        wg_promote<BN / 2>(acc, part);
    }
    fp8_wait<0>();
    __syncthreads();

    /* accumulators -> shared: warp w of the warpgroup holds rows 16w..16w+15; per 8 columns j,
     * d[4j], d[4j+1] at row g, columns 2*tig, 2*tig+1, and d[4j+2], d[4j+3] at row g + 8 */
    float *sC = (float *)smem;
    {
        const int lane = tid % 32, g = lane / 4, tig = lane % 4;
        const int r = wg * 64 + ((tid % 128) / 32) * 16 + g;
#pragma unroll
        for (int j = 0; j < BN / 8; j++) {
            int col = j * 8 + tig * 2;
            *(float2 *)&sC[r * LDC + col] = make_float2(acc[4 * j], acc[4 * j + 1]);
            *(float2 *)&sC[(r + 8) * LDC + col] = make_float2(acc[4 * j + 2], acc[4 * j + 3]);
        }
    }
    __syncthreads();
    if (splits > 1 && !splitk_reduce<BM, BN, NT>(sC, LDC, a.partial, a.counters, splits)) return;
    fp8_epilogue<BM, BN, NT>(a, sC, LDC, blk.m0, blk.n0, blk.M, pf, use_pf, ch);
}

/* ---- halo kernel: small-channel spatial convs (sm_90a) ----
 * IRv2's Block35 3x3s (c_in 32 / 48, c_out 32-64 at 35x35) and the like have so little K and N that
 * the implicit-GEMM kernels above spend their time reloading each input pixel once per tap and the
 * same weights in every tile (cuDNN e4m3 too: 19-36 us at batch 32, fp16 15-31). Here a block keeps
 * BN output channels' whole weight slice in shared memory (K-major, 128-byte swizzled slabs of 128
 * bytes of K, as wgmma reads B) and walks work items, each `rows` output rows of one image: it
 * copies the input rows under them (padding as zeros) into one of two halo buffers while it
 * computes the previous item from the other. Each warpgroup takes 64-pixel tiles of an item and
 * runs wgmma with A from registers: every warp loads its 16 rows' A fragments by ldmatrix straight
 * from the halo, each lane's row address its pixel's position plus the tap's offset (a table per
 * 16-byte piece of K; c_in % 16 == 0 keeps a piece inside one tap). (The first version ran
 * mma.sync e4m3, which Hopper runs by converting to fp16: 21-36 us on Block35's 3x3 at batch 32,
 * session 28.) The tensor-core sums are added into fp32 registers every 128 of K, as in the other
 * wgmma kernels; the epilogue works on the accumulator registers, two channels at a time, with the
 * shared epilogue's arithmetic (fp8_epilogue_group; no residual, which no spatial conv of the
 * three families has). */
#define HALO_SMEM_MAX (160 * 1024)
#define HALO_MAX_PIECES 160 /* 16-byte pieces of K (kh * kw * c_in, padded to 32): K up to 2560 */

struct halo_geom {
    int rows;     /* output rows per item */
    int bands;    /* items per image: ceil(ho / rows) */
    int items;    /* n * bands */
    int hw;       /* halo columns: (wo - 1) * sw + kw, from input column -pw */
    int pitch;    /* bytes per halo pixel: c_in, or c_in + 16 where c_in / 16 is even (the 8 rows of
                     an ldmatrix on distinct banks) */
    int slabs;    /* 128-byte slabs of K (padded with zeros) */
    int h_off;    /* the two halo buffers, hbytes each (the weights' slabs are at 0) */
    int hbytes;
    int zero_off; /* 16 zero bytes: the A piece of K past its end */
    int mb_off;   /* the block's multipliers and biases: 2 x BN floats */
    int tab_off;  /* the piece table: slabs * 8 ints */
    int mt;       /* 64-pixel tiles per item */
    int smem;     /* dynamic shared memory, with 1024 bytes to align the slabs */
    /* multipliers that divide by c_in / 16, hw, bands and wo (quotient.h): the loads' and tiles' indices */
    unsigned m_pieces, m_hw, m_bands, m_wo;
};

/* 1 and g filled when a halo kernel of BN channels and tiles 64-pixel tiles per item can run a
 * (shared memory, K) */
static int halo_geom_of(const i8_cuda_fp8_conv_args *a, int bn, int tiles, halo_geom *g) {
    if (a->n < 1 || a->ho < 1 || a->wo < 1 || a->kh < 1 || a->kw < 1 || a->sh < 1 || a->sw < 1 || a->c_in < 16) return 0;
    const long long K = (long long)a->kh * a->kw * a->c_in, kp = (K + 31) / 32 * 32;
    if (kp / 16 > HALO_MAX_PIECES) return 0; /* the limit the tests name: K up to 2560 */
    long long rows = (long long)tiles * 64 / a->wo; /* the most whole rows in the item's tiles */
    if (rows < 1) rows = 1;
    if (rows > a->ho) rows = a->ho;
    const long long hw = (long long)(a->wo - 1) * a->sw + a->kw, halo_rows = (rows - 1) * a->sh + a->kh;
    const long long pitch = (a->c_in / 16) % 2 ? a->c_in : a->c_in + 16;
    const long long slabs = (kp + 127) / 128, h_off = slabs * bn * 128;
    const long long hbytes = (halo_rows * hw * pitch + 127) / 128 * 128, zero_off = h_off + 2 * hbytes;
    const long long mb_off = zero_off + 16, tab_off = mb_off + 2 * bn * 4, smem = tab_off + slabs * 8 * 4 + 1024;
    const long long bands = (a->ho + rows - 1) / rows;
    /* i8_quot's bounds (x d < 2^32): item < n bands divided by bands, the tile's pixel p < rows wo
     * by wo; the halo's indices stay far below theirs under the shared memory */
    if (smem > HALO_SMEM_MAX || a->n * bands > INT32_MAX || a->n * bands * bands >= (1ll << 32) ||
        rows * a->wo * a->wo >= (1ll << 32))
        return 0;
    g->rows = (int)rows, g->bands = (int)bands, g->items = (int)(a->n * bands), g->hw = (int)hw;
    g->pitch = (int)pitch, g->slabs = (int)slabs, g->h_off = (int)h_off, g->hbytes = (int)hbytes;
    g->zero_off = (int)zero_off, g->mb_off = (int)mb_off, g->tab_off = (int)tab_off;
    g->mt = (int)((rows * a->wo + 63) / 64), g->smem = (int)smem;
    g->m_pieces = i8_quot_multiplier(a->c_in / 16), g->m_hw = i8_quot_multiplier(hw), g->m_bands = i8_quot_multiplier(bands);
    g->m_wo = i8_quot_multiplier(a->wo);
    return 1;
}

/* cp.async of the input rows under work item `item` into halo buffer h: zeros outside the image */
template <int NT>
__device__ __forceinline__ void halo_load(const i8_cuda_fp8_conv_args &a, const halo_geom &g, int item, unsigned char *h) {
    const int img = i8_quot(item, g.m_bands), oy0 = (item - img * g.bands) * g.rows, pieces = a.c_in / 16;
    const int halo_rows = (g.rows - 1) * a.sh + a.kh, iy0 = oy0 * a.sh - a.ph;
    const unsigned char *x = (const unsigned char *)a.x;
    for (int idx = threadIdx.x; idx < halo_rows * g.hw * pieces; idx += NT) {
        const int pix = i8_quot(idx, g.m_pieces), c = idx - pix * pieces, hr = i8_quot(pix, g.m_hw), hc = pix - hr * g.hw;
        const int iy = iy0 + hr, ix = hc - a.pw;
        const bool ok = iy >= 0 && iy < a.h && ix >= 0 && ix < a.w;
        const unsigned char *src = ok ? x + ((size_t)(img * a.h + iy) * a.w + ix) * a.x_ld + c * 16 : x;
        cp_async_ch<16>(h + pix * g.pitch + c * 16, src, ok ? 16 : 0);
    }
}

/* The shared epilogue's arithmetic (fp8_epilogue_group, without a residual: the halo kernels take
 * none) on channels co and co + 1 (cnt of them real) of pixel m: scale, bias, ReLU, fp16 and / or
 * e4m3 stores; pair: both channels stored at once (aligned, cnt 2) */
__device__ __forceinline__ void halo_store2(const i8_cuda_fp8_conv_args &a, size_t m, int co, int cnt, float s0, float s1,
                                            const float *mb, int c, int BN, bool pair) {
    /* c even: one 8-byte load for the two multipliers, one for the two biases */
    const float2 mu = *(const float2 *)(mb + c), bi = *(const float2 *)(mb + BN + c);
    float v0 = s0 * mu.x + bi.x, v1 = s1 * mu.y + bi.y;
    const size_t yo = m * a.y_ld + co;
    if (pair) { /* relu inside the conversions, as the TMA kernels' epilogue (same values, NaN kept) */
        if (a.y && a.relu) *(unsigned *)((__half *)a.y + yo) = h2_relu(v0, v1);
        else if (a.y) *(__half2 *)((__half *)a.y + yo) = __halves2half2(__float2half_rn(v0), __float2half_rn(v1));
        if (a.yq) {
            const float q0 = __fmul_rn(v0, a.y_inv), q1 = __fmul_rn(v1, a.y_inv);
            *(unsigned short *)((unsigned char *)a.yq + yo) = (unsigned short)(a.relu ? q_e4m3x2_relu(q0, q1) : q_e4m3x2(q0, q1));
        }
        return;
    }
    /* cnt 1, or outputs not 4- / 2-byte aligned */
    if (a.relu) v0 = relu_f32(v0), v1 = relu_f32(v1);
    if (a.y) ((__half *)a.y)[yo] = __float2half_rn(v0);
    if (a.yq) ((unsigned char *)a.yq)[yo] = (unsigned char)q_e4m3(__fmul_rn(v0, a.y_inv));
    if (cnt < 2) return;
    if (a.y) ((__half *)a.y)[yo + 1] = __float2half_rn(v1);
    if (a.yq) ((unsigned char *)a.yq)[yo + 1] = (unsigned char)q_e4m3(__fmul_rn(v1, a.y_inv));
}

/* wgmma m64nBNk32 e4m3 with A from registers (each warp's 16 rows in mma.sync's m16n8k32 A layout:
 * a[0] row g, bytes 4 tig..; a[1] row g + 8; a[2], a[3] the same at k + 16) and B from a descriptor */
#define WG_A4 "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3])
template <int BN> __device__ __forceinline__ void wgmma_rs(float *d, const unsigned *a, uint64_t db, int accumulate);
template <> __device__ __forceinline__ void wgmma_rs<32>(float *d, const unsigned *a, uint64_t db, int accumulate) {
    asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %21, 0;\n"
                 "wgmma.mma_async.sync.aligned.m64n32k32.f32.e4m3.e4m3 {" WG_REGS16(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15) "}, "
                 "{%16, %17, %18, %19}, %20, p, 1, 1;\n}\n"
                 : WG_D8(0), WG_D8(8)
                 : WG_A4, "l"(db), "r"(accumulate));
}
template <> __device__ __forceinline__ void wgmma_rs<64>(float *d, const unsigned *a, uint64_t db, int accumulate) {
    asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %37, 0;\n"
                 "wgmma.mma_async.sync.aligned.m64n64k32.f32.e4m3.e4m3 {" WG_REGS16(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15) ", "
                 WG_REGS16(16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31) "}, {%32, %33, %34, %35}, %36, p, 1, 1;\n}\n"
                 : WG_D8(0), WG_D8(8), WG_D8(16), WG_D8(24)
                 : WG_A4, "l"(db), "r"(accumulate));
}
template <> __device__ __forceinline__ void wgmma_rs<96>(float *d, const unsigned *a, uint64_t db, int accumulate) {
    asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %53, 0;\n"
                 "wgmma.mma_async.sync.aligned.m64n96k32.f32.e4m3.e4m3 {" WG_REGS16(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15) ", "
                 WG_REGS16(16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31) ", "
                 WG_REGS16(32, 33, 34, 35, 36, 37, 38, 39, 40, 41, 42, 43, 44, 45, 46, 47) "}, {%48, %49, %50, %51}, %52, p, 1, 1;\n}\n"
                 : WG_D8(0), WG_D8(8), WG_D8(16), WG_D8(24), WG_D8(32), WG_D8(40)
                 : WG_A4, "l"(db), "r"(accumulate));
}
#undef WG_A4

/* A K slab's A fragments of one warp: ldmatrix of its 16 pixels (this lane's row at pb) at the
 * slab's four k32 pieces (tab: each piece's place relative to the pixel; -1 past K: zrel, zeros) */
__device__ __forceinline__ void halo_frags(unsigned (&fa)[4][4], const int *tab, int s, int lmat, const unsigned char *sH,
                                           int pb, int zrel) {
#pragma unroll
    for (int q = 0; q < 4; q++) {
        const int o = tab[s * 8 + q * 2 + (lmat >> 1)];
        ldmatrix_x4(fa[q], sH + (o >= 0 ? pb + o : zrel));
    }
}
/* the slab's four wgmma (A from fa, B the slab's weights at sWs) into part, as one group */
template <int BN> __device__ __forceinline__ void halo_issue(float *part, const unsigned (&fa)[4][4], const unsigned char *sWs) {
    wg_fence();
    const uint64_t dw = wg_desc(sWs);
#pragma unroll
    for (int q = 0; q < 4; q++) wgmma_rs<BN>(part, fa[q], wg_desc_add(dw, q * 32), q > 0);
    wg_commit();
}

/* NWG warpgroups; registers capped at 128 a thread where BN <= 64 (two blocks of 256 threads or
 * four of 128 per SM). PIPE (INFER8_CUDA_HALO_PREFETCH; session 52; 1 and 2 ran 3% slower than 0
 * in session 58): 0 each slab's fragments loaded, its wgmma run and waited for, in turn; 1
 * (prefetch) each slab's A fragments load into a second register set while the slab before runs
 * its wgmma; 2 (pairs, BN 32: a second sum array under the register cap) two slabs' wgmma issued
 * together, the first's sums added in fp32 while the second runs, the next pair's fragments
 * loading meanwhile. The same wgmma and fp32 sums in the same order in all three. Session 52's
 * Nsight Compute had these kernels stalled on their ldmatrix (short scoreboard, 17% of samples)
 * and on each slab's wgmma. Capping the BN-32 kernels at 64 registers for twice the blocks per SM
 * (session 58) ran 11-15% slower in session 59's lab. A
 * rolling pipeline (wgmma.wait_group 1 across a loop of any slab count, as the TMA lab's W1 stage
 * step) ptxas (CUDA 13) serialized here (C7514) unless the slab count was a compile-time constant;
 * the pairs leave nothing in flight between iterations and compile unserialized. */
template <int BN, int NWG, int PIPE>
__global__ void __launch_bounds__(NWG * 128, BN <= 64 ? 4 / NWG : 1) conv_fp8_halo_kernel(i8_cuda_fp8_conv_args a, halo_geom g) {
    constexpr int NT = NWG * 128, FN = BN / 8;
    extern __shared__ __align__(1024) unsigned char halo_raw[];
    unsigned char *smem = halo_raw + ((1024 - (__cvta_generic_to_shared(halo_raw) & 1023)) & 1023);
    unsigned char *sW = smem; /* slab s: [BN rows][128 bytes of K], 16-byte chunk c of row r at c ^ (r % 8) */
    float *sMB = (float *)(smem + g.mb_off); /* [0, BN): multipliers, [BN, 2 BN): biases */
    int *tab = (int *)(smem + g.tab_off);
    const int tid = threadIdx.x, wg = tid / 128, wi = tid % 128 / 32, lane = tid % 32, n0 = blockIdx.y * BN;
    /* whole slabs: wgmma runs four k32 steps per slab, the last ones on zeros where K ends inside
     * it (no branch around wgmma: ptxas serializes wgmma in divergent paths) */
    const int K = a.kh * a.kw * a.c_in, kpieces = g.slabs * 8;

    /* the block's weights (zeros past K and past c_out), then the first item's halo */
    for (int r = tid / 32; r < BN; r += NT / 32) /* a warp a row: no division by kpieces */
        for (int kc = lane; kc < kpieces; kc += 32) {
            const int co = n0 + r, k = kc * 16;
            const bool ok = co < a.c_out && k < K;
            cp_async_ch<16>(sW + (kc >> 3) * BN * 128 + r * 128 + (((kc & 7) ^ (r & 7)) << 4),
                            ok ? a.wq + (size_t)co * K + k : a.wq, ok ? 16 : 0);
        }
    /* the weights are no earlier kernel's output: their loads may overlap its end */
    griddep_wait();
    griddep_launch_dependents();
    if (blockIdx.x < g.items) halo_load<NT>(a, g, blockIdx.x, smem + g.h_off);
    fp8_commit();
    for (int r = tid; r < BN; r += NT) {
        const int co = n0 + r;
        sMB[r] = co < a.c_out ? a.mult[co] : 0.0f;
        sMB[BN + r] = co < a.c_out && a.bias ? a.bias[co] : 0.0f;
    }
    /* each piece's place in the halo relative to its pixel's first tap; -1 past K */
    for (int kc = tid; kc < kpieces; kc += NT) {
        const int k = kc * 16, tap = k / a.c_in;
        tab[kc] = k < K ? ((tap / a.kw) * g.hw + tap % a.kw) * g.pitch + k % a.c_in : -1;
    }
    if (tid < 4) ((unsigned *)(smem + g.zero_off))[tid] = 0u;

    const int npix = g.rows * a.wo, lrow = lane % 8, lmat = lane / 8, gr = lane / 4, tig = lane % 4;
    const bool pair_ok = a.y_ld % 2 == 0 && ((uintptr_t)a.y & 3) == 0 && ((uintptr_t)a.yq & 1) == 0;
    int buf = 0;
    for (int item = blockIdx.x; item < g.items; item += gridDim.x, buf ^= 1) {
        /* the next item's halo into the other buffer (free: the loop's last barrier), then wait
         * for this one's (and, the first time, the weights', made visible to wgmma) */
        const int next = item + gridDim.x;
        if (next < g.items) halo_load<NT>(a, g, next, smem + g.h_off + (buf ^ 1) * g.hbytes);
        fp8_commit();
        fp8_wait<1>();
        proxy_fence();
        __syncthreads();
        const unsigned char *sH = smem + g.h_off + buf * g.hbytes;
        const int zrel = g.zero_off - g.h_off - buf * g.hbytes; /* the zero piece, relative to sH */
        const int img = i8_quot(item, g.m_bands), oy0 = (item - img * g.bands) * g.rows, valid = min(g.rows, a.ho - oy0) * a.wo;
        const size_t m0 = ((size_t)img * a.ho + oy0) * a.wo;
        for (int tile = wg; tile < g.mt; tile += NWG) { /* warpgroup-uniform */
            /* this lane's ldmatrix row: pixel (lmat & 1) * 8 + lrow of the warp's 16, at K half
             * lmat >> 1; rows past the item's pixels read its last one (their sums are not stored) */
            const int p = min(tile * 64 + wi * 16 + (lmat & 1) * 8 + lrow, npix - 1), ry = i8_quot(p, g.m_wo), ox = p - ry * a.wo;
            const int pb = (ry * a.sh * g.hw + ox * a.sw) * g.pitch;
            float acc[BN / 2], part[BN / 2];
#pragma unroll
            for (int i = 0; i < BN / 2; i++) acc[i] = 0.0f;
            if constexpr (PIPE == 2) {
                static_assert(BN <= 32, "pairs: two sum arrays and two fragment sets under the register cap");
                float part2[BN / 2];
                unsigned fa[4][4], fb[4][4];
                int s = 0;
                if (g.slabs & 1) { /* an odd count: the first slab alone */
                    halo_frags(fa, tab, 0, lmat, sH, pb, zrel);
                    halo_issue<BN>(part, fa, sW);
                    wg_wait_all();
                    wg_promote<BN / 2>(acc, part);
                    s = 1;
                }
                if (s < g.slabs) {
                    halo_frags(fa, tab, s, lmat, sH, pb, zrel);
                    halo_frags(fb, tab, s + 1, lmat, sH, pb, zrel);
                }
                for (; s < g.slabs; s += 2) { /* nothing in flight at the top of an iteration */
                    halo_issue<BN>(part, fa, sW + s * BN * 128);
                    halo_issue<BN>(part2, fb, sW + (s + 1) * BN * 128);
                    wg_wait_1(); /* slab s done: fa and part free */
                    wg_promote<BN / 2>(acc, part);
                    if (s + 2 < g.slabs) halo_frags(fa, tab, s + 2, lmat, sH, pb, zrel);
                    wg_wait_all();
                    wg_promote<BN / 2>(acc, part2);
                    if (s + 3 < g.slabs) halo_frags(fb, tab, s + 3, lmat, sH, pb, zrel);
                }
            } else if constexpr (PIPE == 1) {
                unsigned fa[4][4], fb[4][4]; /* even slabs' fragments, odd slabs' */
                halo_frags(fa, tab, 0, lmat, sH, pb, zrel);
                for (int s = 0; s < g.slabs; s++) {
                    if (s & 1) {
                        halo_issue<BN>(part, fb, sW + s * BN * 128);
                        if (s + 1 < g.slabs) halo_frags(fa, tab, s + 1, lmat, sH, pb, zrel);
                    } else {
                        halo_issue<BN>(part, fa, sW + s * BN * 128);
                        if (s + 1 < g.slabs) halo_frags(fb, tab, s + 1, lmat, sH, pb, zrel);
                    }
                    wg_wait_all();
                    wg_promote<BN / 2>(acc, part);
                }
            } else {
                for (int s = 0; s < g.slabs; s++) {
                    unsigned fa[4][4];
                    halo_frags(fa, tab, s, lmat, sH, pb, zrel);
                    halo_issue<BN>(part, fa, sW + s * BN * 128);
                    wg_wait_all();
                    wg_promote<BN / 2>(acc, part);
                }
            }
            /* the epilogue from the accumulators: acc[4j], acc[4j + 1] at row gr of the warp's 16,
             * channels 8j + 2 tig, + 1; acc[4j + 2], acc[4j + 3] at row gr + 8 */
#pragma unroll
            for (int j = 0; j < FN; j++) {
                const int c = j * 8 + tig * 2, co = n0 + c, cnt = min(2, a.c_out - co);
                if (cnt <= 0) continue;
                const bool pair = pair_ok && cnt == 2;
#pragma unroll
                for (int hlf = 0; hlf < 2; hlf++) {
                    const int pp = tile * 64 + wi * 16 + gr + hlf * 8;
                    if (pp < valid) halo_store2(a, m0 + pp, co, cnt, acc[4 * j + 2 * hlf], acc[4 * j + 2 * hlf + 1], sMB, c, BN, pair);
                }
            }
        }
        __syncthreads(); /* every warp is done with buffer buf: the next iteration loads into it */
    }
    fp8_wait<0>();
}

template <int BM, int BN, int WM, int WN, int CH> static int set_smem(void) {
    return (int)cudaFuncSetAttribute(conv_fp8_kernel<BM, BN, WM, WN, CH>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                     fp8_smem<BM, BN>::BYTES);
}
template <int BM, int BN, int S, bool PF, int MINB> static int set_smem_wg(void) {
    return (int)cudaFuncSetAttribute(conv_fp8_wgmma_kernel<BM, BN, S, PF, MINB>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                     wg_smem<BM, BN, S>::BYTES);
}

/* grid and split-K workspace for a BM x BN tile; 0 when the launch may go ahead */
static int fp8_grid(const i8_cuda_fp8_conv_args *a, int BM, int BN, int splits, dim3 *grid) {
    int M = a->n * a->ho * a->wo, K = a->kh * a->kw * a->c_in;
    *grid = dim3((unsigned)((M + BM - 1) / BM), (unsigned)((a->c_out + BN - 1) / BN), (unsigned)splits);
    if (splits > 1) {
        size_t tiles = (size_t)grid->x * grid->y;
        if (splits > (K + FP8_BK - 1) / FP8_BK || !a->partial || !a->counters || tiles > (size_t)a->n_counters ||
            tiles * splits * BM * BN * sizeof(float) > a->partial_bytes)
            return (int)cudaErrorInvalidValue;
    }
    return 0;
}

template <int BM, int BN, int WM, int WN> static int launch_fp8(const i8_cuda_fp8_conv_args *a, int splits, cudaStream_t s) {
    dim3 grid;
    int rc = fp8_grid(a, BM, BN, splits, &grid);
    if (rc) return rc;
    const int nt = (BM / WM) * (BN / WN) * 32, bytes = fp8_smem<BM, BN>::BYTES;
    bool wide = a->c_in % 16 == 0 && a->x_ld % 16 == 0 && ((uintptr_t)a->x & 15) == 0;
    i8_cuda_fp8_conv_args av = *a;
    void *args[] = {&av, &splits};
    const void *k = wide ? (const void *)conv_fp8_kernel<BM, BN, WM, WN, 16> : (const void *)conv_fp8_kernel<BM, BN, WM, WN, 8>;
    return (int)launch_pdl(k, grid, dim3(nt), bytes, s, a->pdl, args);
}

/* the wgmma kernel copies 16-byte chunks only: channels, row stride and base 16-aligned
 * (i8_cuda_conv_fp8_fits, checked by i8_cuda_conv_fp8 before it launches) */
template <int BM, int BN, int S, bool PF, int MINB>
static int launch_wg(const i8_cuda_fp8_conv_args *a, int splits, cudaStream_t s) {
    dim3 grid;
    int rc = fp8_grid(a, BM, BN, splits, &grid);
    if (rc) return rc;
    i8_cuda_fp8_conv_args av = *a;
    void *args[] = {&av, &splits};
    return (int)launch_pdl((const void *)conv_fp8_wgmma_kernel<BM, BN, S, PF, MINB>, grid, dim3(BM * 2), wg_smem<BM, BN, S>::BYTES,
                           s, a->pdl, args);
}

/* halo variants, in variant order from I8_FP8_HALO_FIRST on: name, BN, 64-pixel tiles per item
 * (rows = the most whole rows in them, at least one), warpgroups */
#define HALO_VARIANTS(X) \
    X("halo64x32", 32, 1, 1) X("halo64x64", 64, 1, 1) X("halo128x32", 32, 2, 2) X("halo128x64", 64, 2, 2) \
    X("halo128x96", 96, 2, 2)

static int halo_fits(const i8_cuda_fp8_conv_args *a, int bn, int tiles) {
    halo_geom g;
    /* no residual: the spatial convs of the three families have none */
    if (!a->x_fp8 || a->c_in % 16 || a->x_ld % 16 || ((uintptr_t)a->x & 15) || a->kh * a->kw < 2 ||
        a->res_mode != I8_FP8_RES_NONE)
        return 0;
    return halo_geom_of(a, bn, tiles, &g);
}

/* the PIPE a halo kernel of BN channels runs under INFER8_CUDA_HALO_PREFETCH's mode (0-2): the
 * pairs (2) need BN 32, the others take the prefetch (1) instead */
static int halo_pipe(int bn, int mode) { return mode == 2 ? (bn <= 32 ? 2 : 1) : mode == 1 ? 1 : 0; }
/* that kernel (setup, launch) */
template <int BN, int NWG> static const void *halo_kernel(int mode) {
    switch (halo_pipe(BN, mode)) {
    case 2: return (const void *)conv_fp8_halo_kernel<BN, NWG, BN <= 32 ? 2 : 1>; /* BN 32 only: no third instance */
    case 1: return (const void *)conv_fp8_halo_kernel<BN, NWG, 1>;
    default: return (const void *)conv_fp8_halo_kernel<BN, NWG, 0>;
    }
}

/* a block per SM slot (occupancy x SMs) at most, each walking its share of the items */
template <int BN, int NWG> static int launch_halo(const i8_cuda_fp8_conv_args *a, int tiles, cudaStream_t s) {
    halo_geom g;
    if (!halo_geom_of(a, BN, tiles, &g)) return (int)cudaErrorInvalidValue;
    const void *kernel = halo_kernel<BN, NWG>(a->halo_prefetch);
    long long slots = 0;
    const cudaError_t e = i8_cuda_resident_blocks(kernel, NWG * 128, g.smem, a->sm_count, &slots);
    if (e != cudaSuccess) return (int)e;
    const int n_tiles = (a->c_out + BN - 1) / BN;
    slots /= n_tiles;
    const int blocks = (int)(slots < 1 ? 1 : slots < g.items ? slots : g.items);
    i8_cuda_fp8_conv_args av = *a;
    void *args[] = {&av, &g};
    return (int)launch_pdl(kernel, dim3((unsigned)blocks, (unsigned)n_tiles), dim3(NWG * 128), g.smem, s, a->pdl, args);
}

#define HALO_COUNT(name, bn, tiles, nwg) +1
static_assert(0 HALO_VARIANTS(HALO_COUNT) == I8_FP8_HALO_VARIANTS, "I8_FP8_HALO_VARIANTS counts the halo variants");
#undef HALO_COUNT
extern "C" int i8_cuda_conv_fp8_halo_variants(void) { return I8_FP8_HALO_VARIANTS; }

static const char *halo_name(int t) {
    static const char *const names[] = {
#define HALO_NAME(name, bn, tiles, nwg) name,
        HALO_VARIANTS(HALO_NAME)
#undef HALO_NAME
    };
    return t >= 0 && t < i8_cuda_conv_fp8_halo_variants() ? names[t] : "?";
}

static int halo_variant_fits(const i8_cuda_fp8_conv_args *a, int t) {
    int i = 0;
#define HALO_FITS(name, bn, tiles, nwg) \
    if (t == i++) return halo_fits(a, bn, tiles);
    HALO_VARIANTS(HALO_FITS)
#undef HALO_FITS
    return 0;
}

extern "C" int i8_cuda_conv_fp8_halo_pipe(int variant, int mode) {
    int i = I8_FP8_HALO_FIRST;
#define HALO_PIPE(name, bn, tiles, nwg) \
    if (variant == i++) return halo_pipe(bn, mode);
    HALO_VARIANTS(HALO_PIPE)
#undef HALO_PIPE
    return -1;
}

static int halo_launch(const i8_cuda_fp8_conv_args *a, int t, cudaStream_t s) {
    int i = 0;
#define HALO_LAUNCH(name, bn, tiles, nwg) \
    if (t == i++) return launch_halo<bn, nwg>(a, tiles, s);
    HALO_VARIANTS(HALO_LAUNCH)
#undef HALO_LAUNCH
    return (int)cudaErrorInvalidValue;
}

#define FP8_TILES(X) X(64, 64, 32, 32) X(32, 64, 16, 32) X(128, 64, 32, 32) X(64, 128, 32, 32)
#define WG_TILES(X) X(64, 64, 4, false, 1) X(128, 64, 4, false, 1) X(64, 128, 4, false, 1) X(128, 128, 3, false, 1)
/* third family: fewer stages and registers capped for more blocks per SM (the short-K 1x1s of
 * batch 32 are latency-bound), the residual loaded before the main loop */
#define WG_LEAN_TILES(X) X(64, 64, 2, true, 4) X(128, 64, 2, true, 2) X(64, 128, 3, true, 2) X(64, 64, 3, true, 4)
#define FP8_TILE_COUNT 4 /* tiles per kernel family (I8_FP8_FAMILY_VARIANTS = 4 tiles x 4 split-K factors) */

extern "C" int i8_cuda_conv_fp8_setup(void) {
    int rc = 0;
#define FP8_SET(bm, bn, wm, wn) \
    if (!rc) rc = set_smem<bm, bn, wm, wn, 16>(); \
    if (!rc) rc = set_smem<bm, bn, wm, wn, 8>();
    FP8_TILES(FP8_SET)
#undef FP8_SET
#define WG_SET(bm, bn, st, pf, minb) \
    if (!rc) rc = set_smem_wg<bm, bn, st, pf, minb>();
    WG_TILES(WG_SET)
    WG_LEAN_TILES(WG_SET)
#undef WG_SET
    if (!rc) rc = i8_cuda_conv_fp8_tma_setup();
    if (!rc) rc = i8_cuda_conv_fp8_pair_setup();
#define HALO_SET(name, bn, tiles, nwg) \
    for (int mode = 0; mode <= 2 && !rc; mode++) \
        rc = (int)cudaFuncSetAttribute(halo_kernel<bn, nwg>(mode), cudaFuncAttributeMaxDynamicSharedMemorySize, HALO_SMEM_MAX);
    HALO_VARIANTS(HALO_SET)
#undef HALO_SET
    return rc;
}

extern "C" int i8_cuda_conv_fp8_variants(void) { return I8_FP8_VARIANTS; }

extern "C" int i8_cuda_conv_fp8_splits(int variant) {
    return variant >= I8_FP8_TMA_FIRST ? 1 : 1 << ((variant % I8_FP8_FAMILY_VARIANTS) / FP8_TILE_COUNT); /* TMA, halo: none */
}

/* Which tile of which family a variant runs: 0-3 the qmma tiles of FP8_TILES, 4-7 the wgmma
 * tiles of WG_TILES, 8-11 those of WG_LEAN_TILES (variant = family * I8_FP8_FAMILY_VARIANTS +
 * split index * 4 + tile). */
static int fp8_tile_index(int variant) {
    return variant / I8_FP8_FAMILY_VARIANTS * FP8_TILE_COUNT + variant % FP8_TILE_COUNT;
}

extern "C" const char *i8_cuda_conv_fp8_name(int variant) {
    static const char *names[] = {"qmma64x64", "qmma32x64", "qmma128x64", "qmma64x128",
                                  "wgmma64x64", "wgmma128x64", "wgmma64x128", "wgmma128x128",
                                  "wgmma64x64s2", "wgmma128x64s2", "wgmma64x128s3", "wgmma64x64s3"};
    if (variant < 0 || variant >= i8_cuda_conv_fp8_variants()) return "?";
    if (i8_cuda_conv_fp8_is_halo(variant)) return halo_name(variant - I8_FP8_HALO_FIRST);
    if (i8_cuda_conv_fp8_is_tma(variant)) return i8_cuda_conv_fp8_tma_name(i8_cuda_conv_fp8_tma_index(variant));
    return names[fp8_tile_index(variant)];
}

/* the checks of i8_cuda_conv_fp8 and of the launchers below */
extern "C" int i8_cuda_conv_fp8_fits(const i8_cuda_fp8_conv_args *a, int variant) {
    if (!a || !a->x || !a->wq || !a->mult || (!a->y && !a->yq) || a->c_in % 8 || a->x_ld % 8 || a->n < 1 ||
        ((uintptr_t)a->wq & 15) || ((uintptr_t)a->x & (a->x_fp8 ? 7 : 15)) || (a->res_mode != I8_FP8_RES_NONE && !a->res) ||
        variant < 0 || variant >= i8_cuda_conv_fp8_variants())
        return 0;
    if (i8_cuda_conv_fp8_is_halo(variant)) return halo_variant_fits(a, variant - I8_FP8_HALO_FIRST);
    if (i8_cuda_conv_fp8_is_tma(variant)) return i8_cuda_conv_fp8_tma_fits(a, i8_cuda_conv_fp8_tma_index(variant));
    const bool wgmma = i8_cuda_conv_fp8_is_wgmma(variant);
    if (wgmma && (a->c_in % 16 || a->x_ld % 16 || ((uintptr_t)a->x & 15))) return 0;
    return 1;
}

extern "C" int i8_cuda_conv_fp8(const i8_cuda_fp8_conv_args *a, int variant, void *stream) {
    cudaStream_t s = (cudaStream_t)stream;
    if (!i8_cuda_conv_fp8_fits(a, variant)) return (int)cudaErrorInvalidValue;
    if (i8_cuda_conv_fp8_is_halo(variant)) return halo_launch(a, variant - I8_FP8_HALO_FIRST, s);
    if (i8_cuda_conv_fp8_is_tma(variant)) return i8_cuda_conv_fp8_tma(a, i8_cuda_conv_fp8_tma_index(variant), stream);
    int splits = i8_cuda_conv_fp8_splits(variant);
    switch (fp8_tile_index(variant)) {
    case 0: return launch_fp8<64, 64, 32, 32>(a, splits, s);
    case 1: return launch_fp8<32, 64, 16, 32>(a, splits, s);
    case 2: return launch_fp8<128, 64, 32, 32>(a, splits, s);
    case 3: return launch_fp8<64, 128, 32, 32>(a, splits, s);
    case 4: return launch_wg<64, 64, 4, false, 1>(a, splits, s);
    case 5: return launch_wg<128, 64, 4, false, 1>(a, splits, s);
    case 6: return launch_wg<64, 128, 4, false, 1>(a, splits, s);
    case 7: return launch_wg<128, 128, 3, false, 1>(a, splits, s);
    case 8: return launch_wg<64, 64, 2, true, 4>(a, splits, s);
    case 9: return launch_wg<128, 64, 2, true, 2>(a, splits, s);
    case 10: return launch_wg<64, 128, 3, true, 2>(a, splits, s);
    case 11: return launch_wg<64, 64, 3, true, 4>(a, splits, s);
    default: return (int)cudaErrorInvalidValue;
    }
}
