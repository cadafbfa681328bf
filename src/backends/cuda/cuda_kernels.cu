/* Own CUDA kernels of the CUDA backend: implicit-GEMM convolution on tensor cores (WMMA,
 * cp.async double buffering, fused bias / residual / ReLU epilogue writing into a channel
 * slice), pools, global average pool, classifier, input conversion and a per-channel pointwise
 * kernel (unfused batchnorm / relu / residual, concat copies). C-style CUDA: no classes, one
 * launcher per op (declared in cuda_kernels.h). Developed and benchmarked in dev/kernels/. */
#include <cuda_fp16.h>
#include <cuda_runtime.h>
#include <mma.h>
#include <stdint.h>

#include "cuda_e4m3.cuh"
#include "cuda_kernels.h"
#include "count_division.h"
#include "cuda_resident.cuh"
#include "cuda_splitk.cuh"

using namespace nvcuda;

static int launch_status(void) { return (int)cudaGetLastError(); }

static unsigned blocks_for(size_t count, unsigned threads) {
    size_t b = (count + threads - 1) / threads;
    return (unsigned)(b > 0x7fffffffu ? 0x7fffffffu : (b ? b : 1));
}

/* 8 fp16 values as one 16-byte word */
typedef union half8 { uint4 word; __half h[8]; } half8;

/* ---------------------------------------------------------------- implicit-GEMM conv */

/* The own fp16 convs' epilogue for output channels co .. co + 7 of pixel m (fewer at c_out's
 * edge), from their fp32 sums: + bias, + residual, relu, one rounding to fp16. vec: y (and the
 * residual, if any) take 16-byte accesses. */
__device__ __forceinline__ void conv_store8(const i8_cuda_conv_args &a, const float *src, size_t m, int co, bool vec) {
    const __half *res = (const __half *)a.res;
    __half *y = (__half *)a.y;
    if (vec && co + 8 <= a.c_out) {
        float v[8];
#pragma unroll
        for (int e = 0; e < 8; e++) v[e] = src[e] + (a.bias ? a.bias[co + e] : 0.0f);
        if (res) {
            uint4 r = *(const uint4 *)(res + m * a.res_ld + co);
            const __half *rh = (const __half *)&r;
#pragma unroll
            for (int e = 0; e < 8; e++) v[e] += __half2float(rh[e]);
        }
        uint4 o;
        __half *oh = (__half *)&o;
#pragma unroll
        for (int e = 0; e < 8; e++) oh[e] = __float2half_rn(a.relu ? relu_f32(v[e]) : v[e]);
        *(uint4 *)(y + m * a.y_ld + co) = o;
    } else {
        for (int e = 0; e < 8 && co + e < a.c_out; e++) {
            float v = src[e] + (a.bias ? a.bias[co + e] : 0.0f);
            if (res) v += __half2float(res[m * a.res_ld + co + e]);
            y[m * a.y_ld + co + e] = __float2half_rn(a.relu ? relu_f32(v) : v);
        }
    }
}

/* y (and the residual, if any) take 16-byte accesses */
__device__ __forceinline__ bool conv_vec_io(const i8_cuda_conv_args &a) {
    return a.y_ld % 8 == 0 && ((uintptr_t)a.y & 15) == 0 && (!a.res || (a.res_ld % 8 == 0 && ((uintptr_t)a.res & 15) == 0));
}

__device__ __forceinline__ void cp_async16(void *smem, const void *gmem, int bytes) {
    unsigned s = (unsigned)__cvta_generic_to_shared(smem);
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(s), "l"(gmem), "r"(bytes));
}
__device__ __forceinline__ void cp_async_commit(void) { asm volatile("cp.async.commit_group;\n" ::); }
template <int N> __device__ __forceinline__ void cp_async_wait(void) {
    asm volatile("cp.async.wait_group %0;\n" ::"n"(N));
}

/* GEMM view: M = n*ho*wo output pixels, N = c_out, K = kh*kw*c_in (ordered ky, kx, ci).
 * Block tile BM x BN x 32, warps WM x WN each; A (im2col gather) and B (weights) go
 * global -> shared with cp.async (zero fill for padding / tails), two stages. */
template <int BM, int BN, int WM, int WN>
__global__ void __launch_bounds__((BM / WM) * (BN / WN) * 32)
conv_wmma_kernel(i8_cuda_conv_args a, int splits) {
    constexpr int BK = 32, LDS = BK + 8, LDC = BN + 4;
    constexpr int NT = (BM / WM) * (BN / WN) * 32;
    constexpr int FM = WM / 16, FN = WN / 16;
    constexpr int AB_BYTES = 2 * (BM + BN) * LDS * 2, C_BYTES = BM * LDC * 4;
    constexpr int SMEM = AB_BYTES > C_BYTES ? AB_BYTES : C_BYTES;
    constexpr int A_CHUNKS = BM * BK / 8, B_CHUNKS = BN * BK / 8;
    constexpr int A_PER = (A_CHUNKS + NT - 1) / NT, B_PER = (B_CHUNKS + NT - 1) / NT;
    __shared__ __align__(128) unsigned char smem[SMEM];
    __half *sA = (__half *)smem;                 /* [2][BM][LDS] */
    __half *sB = sA + 2 * BM * LDS;              /* [2][BN][LDS] */

    const int tid = threadIdx.x, warp = tid / 32;
    const int wm = warp / (BN / WN), wn = warp % (BN / WN);
    const int M = a.n * a.ho * a.wo, K = a.kh * a.kw * a.c_in;
    const int m0 = blockIdx.x * BM, n0 = blockIdx.y * BN;
    const __half *x = (const __half *)a.x, *w = (const __half *)a.wt;

    /* Per-thread A rows: output pixel decomposition fixed across k tiles. */
    int a_n[A_PER], a_iy[A_PER], a_ix[A_PER], a_ok[A_PER];
#pragma unroll
    for (int i = 0; i < A_PER; i++) {
        int idx = tid + i * NT, row = idx / (BK / 8);
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
            int row = idx / (BK / 8), kc = idx % (BK / 8);
            int k = kt * BK + kc * 8;
            const __half *src = x;
            int bytes = 0;
            if (a_ok[i] && k < K) {
                int ci = k % a.c_in, rs = k / a.c_in, ky = rs / a.kw, kx = rs % a.kw;
                int iy = a_iy[i] + ky, ix = a_ix[i] + kx;
                if (iy >= 0 && iy < a.h && ix >= 0 && ix < a.w) {
                    src = x + ((size_t)(a_n[i] * a.h + iy) * a.w + ix) * a.x_ld + ci;
                    bytes = 16;
                }
            }
            cp_async16(sA + (stage * BM + row) * LDS + kc * 8, src, bytes);
        }
#pragma unroll
        for (int i = 0; i < B_PER; i++) {
            int idx = tid + i * NT;
            if (idx >= B_CHUNKS) break;
            int row = idx / (BK / 8), kc = idx % (BK / 8);
            int k = kt * BK + kc * 8, co = n0 + row;
            const __half *src = w;
            int bytes = 0;
            if (co < a.c_out && k < K) {
                src = w + (size_t)co * K + k;
                bytes = 16;
            }
            cp_async16(sB + (stage * BN + row) * LDS + kc * 8, src, bytes);
        }
    };

    wmma::fragment<wmma::accumulator, 16, 16, 16, float> acc[FM][FN];
#pragma unroll
    for (int i = 0; i < FM; i++)
#pragma unroll
        for (int j = 0; j < FN; j++) wmma::fill_fragment(acc[i][j], 0.0f);

    const int KT_ALL = (K + BK - 1) / BK, per = (KT_ALL + splits - 1) / splits;
    const int kt0 = blockIdx.z * per, KT = min(KT_ALL, kt0 + per);
    if (kt0 < KT) load_tile(kt0, kt0 & 1);
    cp_async_commit();
    for (int kt = kt0; kt < KT; kt++) {
        if (kt + 1 < KT) {
            load_tile(kt + 1, (kt + 1) & 1);
            cp_async_commit();
            cp_async_wait<1>();
        } else {
            cp_async_wait<0>();
        }
        __syncthreads();
        const __half *tA = sA + (kt & 1) * BM * LDS, *tB = sB + (kt & 1) * BN * LDS;
#pragma unroll
        for (int kk = 0; kk < BK; kk += 16) {
            wmma::fragment<wmma::matrix_a, 16, 16, 16, __half, wmma::row_major> fa[FM];
            wmma::fragment<wmma::matrix_b, 16, 16, 16, __half, wmma::col_major> fb[FN];
#pragma unroll
            for (int i = 0; i < FM; i++) wmma::load_matrix_sync(fa[i], tA + (wm * WM + i * 16) * LDS + kk, LDS);
#pragma unroll
            for (int j = 0; j < FN; j++) wmma::load_matrix_sync(fb[j], tB + (wn * WN + j * 16) * LDS + kk, LDS);
#pragma unroll
            for (int i = 0; i < FM; i++)
#pragma unroll
                for (int j = 0; j < FN; j++) wmma::mma_sync(acc[i][j], fa[i], fb[j], acc[i][j]);
        }
        __syncthreads();
    }

    /* Epilogue through shared memory: bias, residual, relu, fp16 store into the slice. */
    float *sC = (float *)smem;
#pragma unroll
    for (int i = 0; i < FM; i++)
#pragma unroll
        for (int j = 0; j < FN; j++)
            wmma::store_matrix_sync(sC + (wm * WM + i * 16) * LDC + wn * WN + j * 16, acc[i][j], LDC,
                                    wmma::mem_row_major);
    __syncthreads();
    if (splits > 1 && !splitk_reduce<BM, BN, NT>(sC, LDC, a.partial, a.counters, splits)) return;
    const bool vec = conv_vec_io(a);
    for (int idx = tid; idx < BM * BN / 8; idx += NT) {
        int row = idx / (BN / 8), cc = (idx % (BN / 8)) * 8;
        int m = m0 + row, co = n0 + cc;
        if (m >= M || co >= a.c_out) continue;
        conv_store8(a, sC + row * LDC + cc, (size_t)m, co, vec);
    }
}

template <int BM, int BN, int WM, int WN>
static int launch_conv(const i8_cuda_conv_args *a, int splits, cudaStream_t s) {
    int M = a->n * a->ho * a->wo, K = a->kh * a->kw * a->c_in;
    dim3 grid((unsigned)((M + BM - 1) / BM), (unsigned)((a->c_out + BN - 1) / BN), (unsigned)splits);
    if (splits > 1) {
        size_t tiles = (size_t)grid.x * grid.y;
        if (splits > (K + 31) / 32 || !a->partial || !a->counters || tiles > (size_t)a->n_counters ||
            tiles * splits * BM * BN * sizeof(float) > a->partial_bytes)
            return (int)cudaErrorInvalidValue;
    }
    conv_wmma_kernel<BM, BN, WM, WN><<<grid, (BM / WM) * (BN / WN) * 32, 0, s>>>(*a, splits);
    return launch_status();
}

/* ---------------------------------------------------------------- packed-K conv, c_in 8 */

/* The stem's first conv reads the image's 3 channels padded to 8, so as the implicit GEMM above
 * sees it, K = taps x 8 and 5/8 of it is padding: cuDNN ran IRv2's conv2d_1a (3x3 stride 2,
 * 3 -> 32) at batch 32 in 0.071 ms where its bytes take 0.013. A direct kernel on CUDA cores lost
 * (session 38: bound by the instructions it issued). Here the GEMM's K is packed: a block gathers
 * 128 output pixels' windows into shared memory as rows of taps x c_in_used fp16 values (27 for a
 * 3x3 over 3 channels, padded to 32), multiplies them by the weights packed the same way on the
 * tensor cores (wmma, fp32 accumulation as the other own kernels), and stores them through the
 * GEMM kernels' epilogue (conv_store8). NF: 16-column fragments of c_out. */
#define PACKK_TILE_M 128
#define PACKK_MAX_K 80 /* 5x5 over 3 channels */
#define PACKK_EARLY_TAPS 5 /* per thread: 2 threads a pixel cover a 3x3's 9 taps */

/* Tap `tap` of the window at (iy0, ix0) of image row0 / a.h: its 8 channels in one 16-byte load
 * when `take` and the tap falls inside the image, else zeros */
__device__ __forceinline__ uint4 packk_load_tap(const i8_cuda_conv_args &a, const __half *x, bool take, size_t row0,
                                                int iy0, int ix0, int tap) {
    const int ky = tap / a.kw, iy = iy0 + ky, ix = ix0 + tap - ky * a.kw;
    if (take && iy >= 0 && iy < a.h && ix >= 0 && ix < a.w)
        return __ldg((const uint4 *)(x + ((row0 + iy) * a.w + ix) * a.x_ld));
    return make_uint4(0, 0, 0, 0);
}

/* the first cin of a tap's 8 channels into a pixel's row of the A tile */
__device__ __forceinline__ void packk_store_tap(__half *row, int tap, int cin, uint4 word) {
    half8 u;
    u.word = word;
#pragma unroll
    for (int ci = 0; ci < 8; ci++)
        if (ci < cin) row[tap * cin + ci] = u.h[ci];
}

template <int NF>
__global__ void __launch_bounds__(256, 4) conv_packk_kernel(i8_cuda_conv_args a, int cin, int k_pad) {
    extern __shared__ __align__(128) unsigned char packk_smem[];
    const int np = NF * 16, lda = k_pad + 8, ldb = np + 8, ldc = np + 4, taps = a.kh * a.kw, k_used = taps * cin;
    __half *as = (__half *)packk_smem;
    float *cs = (float *)packk_smem; /* the accumulators, over the A tile once it is used */
    const size_t a_bytes = (size_t)PACKK_TILE_M * lda * 2, c_bytes = (size_t)PACKK_TILE_M * ldc * 4;
    __half *bs = (__half *)(packk_smem + ((a_bytes > c_bytes ? a_bytes : c_bytes) + 127) / 128 * 128);
    const __half *w = (const __half *)a.wt, *x = (const __half *)a.x;
    const bool vec = conv_vec_io(a);
    /* weights [k = tap * cin + ci][co], zero where k or co is padding; once a block, which then
     * walks its share of the tiles */
    for (int i = threadIdx.x; i < k_pad * np; i += blockDim.x) {
        const int k = i / np, co = i % np;
        bs[k * ldb + co] = k < k_used && co < a.c_out ? w[(size_t)co * taps * a.c_in + (k / cin) * a.c_in + k % cin]
                                                       : __float2half_rn(0.0f);
    }
    const unsigned pixels = (unsigned)a.n * a.ho * a.wo, tiles = (pixels + PACKK_TILE_M - 1) / PACKK_TILE_M;
    const int p = threadIdx.x % PACKK_TILE_M, half = threadIdx.x / PACKK_TILE_M, warp = threadIdx.x / 32;
    for (unsigned tile = blockIdx.x; tile < tiles; tile += gridDim.x) {
        /* the window of pixel p: two threads a pixel, taps half, half + 2, ...; a warp loads one
         * tap of 32 adjacent pixels */
        const unsigned m0 = tile * PACKK_TILE_M, m = m0 + p;
        const bool live = m < pixels;
        int iy0 = 0, ix0 = 0;
        size_t row0 = 0;
        if (live) {
            const unsigned ox = m % a.wo, r = m / a.wo, oy = r % a.ho, b = r / a.ho;
            iy0 = (int)oy * a.sh - a.ph, ix0 = (int)ox * a.sw - a.pw, row0 = (size_t)b * a.h;
        }
        if (half == 0)
            for (int k = k_used; k < k_pad; k++) as[p * lda + k] = __float2half_rn(0.0f);
        /* a thread's first PACKK_EARLY_TAPS taps (all of a 3x3's) are loaded before any is
         * stored, so their loads are in flight together; a runtime loop of load-then-store had
         * one 16-byte load in flight a thread (session 39: 0.068 ms at IRv2 batch 32 against a
         * bytes bound of 0.02). 4 blocks an SM: 48-64 registers, where ptxas spilled the c_out-32
         * instance at its own choice of 40 */
        uint4 v[PACKK_EARLY_TAPS];
#pragma unroll
        for (int i = 0; i < PACKK_EARLY_TAPS; i++)
            v[i] = packk_load_tap(a, x, live && half + 2 * i < taps, row0, iy0, ix0, half + 2 * i);
#pragma unroll
        for (int i = 0; i < PACKK_EARLY_TAPS; i++)
            if (half + 2 * i < taps) packk_store_tap(as + p * lda, half + 2 * i, cin, v[i]);
        for (int tap = half + 2 * PACKK_EARLY_TAPS; tap < taps; tap += 2) /* a 5x5's rest */
            packk_store_tap(as + p * lda, tap, cin, packk_load_tap(a, x, live, row0, iy0, ix0, tap));
        __syncthreads();
        wmma::fragment<wmma::accumulator, 16, 16, 16, float> acc[NF];
#pragma unroll
        for (int n = 0; n < NF; n++) wmma::fill_fragment(acc[n], 0.0f);
        for (int kk = 0; kk < k_pad; kk += 16) {
            wmma::fragment<wmma::matrix_a, 16, 16, 16, __half, wmma::row_major> fa;
            wmma::load_matrix_sync(fa, as + warp * 16 * lda + kk, lda);
#pragma unroll
            for (int n = 0; n < NF; n++) {
                wmma::fragment<wmma::matrix_b, 16, 16, 16, __half, wmma::row_major> fb;
                wmma::load_matrix_sync(fb, bs + kk * ldb + n * 16, ldb);
                wmma::mma_sync(acc[n], fa, fb, acc[n]);
            }
        }
        __syncthreads(); /* every warp is done with the A tile that cs overlays */
#pragma unroll
        for (int n = 0; n < NF; n++)
            wmma::store_matrix_sync(cs + warp * 16 * ldc + n * 16, acc[n], ldc, wmma::mem_row_major);
        __syncthreads();
        for (int i = threadIdx.x; i < PACKK_TILE_M * NF * 2; i += blockDim.x) {
            const int q = i / (NF * 2), co0 = i % (NF * 2) * 8;
            const unsigned mq = m0 + q;
            if (mq < pixels && co0 < a.c_out) conv_store8(a, cs + q * ldc + co0, mq, co0, vec);
        }
        __syncthreads(); /* the next tile's windows overwrite cs */
    }
}

/* shared memory of a block: the A tile or the accumulators (whichever is larger), then the weights */
static size_t packk_smem_bytes(int k_pad, int nf) {
    const size_t a_bytes = (size_t)PACKK_TILE_M * (k_pad + 8) * 2, c_bytes = (size_t)PACKK_TILE_M * (nf * 16 + 4) * 4;
    return ((a_bytes > c_bytes ? a_bytes : c_bytes) + 127) / 128 * 128 + (size_t)k_pad * (nf * 16 + 8) * 2;
}

/* a block per SM slot (occupancy x SMs) at most, each walking its share of the tiles */
template <int NF> static int launch_packk_nf(const i8_cuda_conv_args *a, int cin, int k_pad, size_t tiles, cudaStream_t s) {
    const size_t smem = packk_smem_bytes(k_pad, NF);
    long long slots = 0;
    const cudaError_t e = i8_cuda_resident_blocks((const void *)conv_packk_kernel<NF>, 256, smem, a->sm_count, &slots);
    if (e != cudaSuccess) return (int)e;
    conv_packk_kernel<NF><<<(unsigned)(tiles < (size_t)slots ? tiles : (size_t)slots), 256, smem, s>>>(*a, cin, k_pad);
    return launch_status();
}

static int launch_packk(const i8_cuda_conv_args *a, cudaStream_t s) {
    const int cin = a->c_in_used > 0 && a->c_in_used < 8 ? a->c_in_used : 8, k_used = a->kh * a->kw * cin;
    const int k_pad = (k_used + 15) / 16 * 16, nf = (a->c_out + 15) / 16;
    const size_t pixels = (size_t)a->n * a->ho * a->wo, tiles = (pixels + PACKK_TILE_M - 1) / PACKK_TILE_M;
    if (a->c_in != 8 || a->x_ld % 8 || ((uintptr_t)a->x & 15) || a->c_out < 1 || nf > 4 || k_used > PACKK_MAX_K ||
        pixels > 0x7fffffffu || (size_t)a->n * a->h > 0x7fffffffu)
        return (int)cudaErrorInvalidValue;
    switch (nf) {
    case 1: return launch_packk_nf<1>(a, cin, k_pad, tiles, s);
    case 2: return launch_packk_nf<2>(a, cin, k_pad, tiles, s);
    case 3: return launch_packk_nf<3>(a, cin, k_pad, tiles, s);
    default: return launch_packk_nf<4>(a, cin, k_pad, tiles, s);
    }
}

#define OWN_GEMM_VARIANTS 16
#define OWN_PACKK OWN_GEMM_VARIANTS

extern "C" int i8_cuda_conv_own_variants(void) { return OWN_GEMM_VARIANTS + 1; }

extern "C" const char *i8_cuda_conv_own_name(int variant) {
    static const char *names[] = {"wmma64x64", "wmma32x64", "wmma128x64", "wmma64x128"};
    if (variant == OWN_PACKK) return "packk128";
    return variant >= 0 && variant < OWN_GEMM_VARIANTS ? names[variant % 4] : "?";
}

extern "C" int i8_cuda_conv_own_splits(int variant) {
    return variant >= 0 && variant < OWN_GEMM_VARIANTS ? 1 << (variant / 4) : 1;
}

extern "C" int i8_cuda_conv_own(const i8_cuda_conv_args *a, int variant, void *stream) {
    cudaStream_t s = (cudaStream_t)stream;
    if (variant == OWN_PACKK) return launch_packk(a, s);
    if (variant < 0 || variant >= OWN_GEMM_VARIANTS) return (int)cudaErrorInvalidValue;
    int splits = 1 << (variant / 4);
    switch (variant % 4) {
    case 0: return launch_conv<64, 64, 32, 32>(a, splits, s);
    case 1: return launch_conv<32, 64, 16, 32>(a, splits, s);
    case 2: return launch_conv<128, 64, 64, 32>(a, splits, s);
    case 3: return launch_conv<64, 128, 32, 64>(a, splits, s);
    default: return (int)cudaErrorInvalidValue;
    }
}

/* ---------------------------------------------------------------- input conversion */

/* Both input kernels write fp16 NHWC rows of c_pad channels (c_pad a multiple of 8: the executor
 * pads the input's width to 8) as 16-byte words, one a thread, with 32-bit indices: 2-byte stores
 * spread a warp over 512 bytes to write 64, and took 0.092 ms at IRv2 batch 32 (profile, session
 * 37) where the node's 80 MB take 0.017 at the H200's bandwidth. Channels c..c_pad-1 are zero. */
static int packs8(int c_pad, const void *y, size_t pixels) {
    return c_pad >= 8 && c_pad % 8 == 0 && ((uintptr_t)y & 15) == 0 && pixels * (size_t)(c_pad / 8) <= 0xffffffffu - 1024;
}

/* float32 NCHW; word t: pixel t / words, channels (t % words) * 8 .. + 7 */
__global__ void input_to_nhwc_kernel(const float *x, unsigned count, unsigned words, unsigned hw, int c, uint4 *y) {
    const unsigned t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= count) return;
    const unsigned p = t / words, c0 = t % words * 8, b = p / hw, q = p % hw;
    half8 v;
#pragma unroll
    for (int e = 0; e < 8; e++) {
        const int ch = (int)c0 + e;
        v.h[e] = __float2half_rn(ch < c ? x[((size_t)b * c + ch) * hw + q] : 0.0f);
    }
    y[t] = v.word;
}

extern "C" int i8_cuda_input_to_nhwc(const float *x, int n, int c, int h, int w, void *y, int c_pad, void *stream) {
    const size_t pixels = (size_t)n * h * w;
    if (c > c_pad || !packs8(c_pad, y, pixels)) return (int)cudaErrorInvalidValue;
    const size_t count = pixels * (size_t)(c_pad / 8);
    input_to_nhwc_kernel<<<blocks_for(count, 256), 256, 0, (cudaStream_t)stream>>>(
        x, (unsigned)count, (unsigned)(c_pad / 8), (unsigned)((size_t)h * w), c, (uint4 *)y);
    return launch_status();
}

/* mean and std by value: a captured graph keeps them */
typedef struct u8_norm { float mean[3], std[3]; } u8_norm;

/* the CPU's three float32 roundings, not a fused or reciprocal form */
__device__ __forceinline__ float normalize_u8(uint8_t v, float mean, float std) {
    return __fdiv_rn(__fsub_rn(__fdiv_rn((float)v, 255.0f), mean), std);
}

/* uint8 HWC RGB; the first word of a pixel holds its 3 channels, the others are zero */
__global__ void input_u8_to_nhwc_kernel(const uint8_t *x, unsigned count, unsigned words, u8_norm nm, uint4 *y) {
    const unsigned t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= count) return;
    const unsigned p = t / words;
    half8 v;
    v.word = make_uint4(0, 0, 0, 0);
    if (t % words == 0) {
        const uint8_t *px = x + (size_t)p * 3;
#pragma unroll
        for (int ch = 0; ch < 3; ch++) v.h[ch] = __float2half_rn(normalize_u8(px[ch], nm.mean[ch], nm.std[ch]));
    }
    y[t] = v.word;
}

extern "C" int i8_cuda_input_u8_to_nhwc(const uint8_t *x, int n, int h, int w, const float mean[3], const float std[3],
                                        void *y, int c_pad, void *stream) {
    const size_t pixels = (size_t)n * h * w;
    if (!packs8(c_pad, y, pixels)) return (int)cudaErrorInvalidValue;
    const size_t count = pixels * (size_t)(c_pad / 8);
    u8_norm nm;
    for (int c = 0; c < 3; c++) nm.mean[c] = mean[c], nm.std[c] = std[c];
    input_u8_to_nhwc_kernel<<<blocks_for(count, 256), 256, 0, (cudaStream_t)stream>>>(x, (unsigned)count,
                                                                                      (unsigned)(c_pad / 8), nm, (uint4 *)y);
    return launch_status();
}

/* ---------------------------------------------------------------- pools */

/* One window value into a pool's running result. MODE 0: max, keeping NaN as the CPU reference's
 * pool does (fmaxf would drop it); 1 and 2: the average pools' sum (padding excluded from the
 * count, or included). The mode is a template parameter: with it a run-time argument, every
 * window value paid for both paths, and the pools, which issue more instructions than they move
 * bytes, ran 2-3x slower than their loads (session 40, Nsight Compute). */
template <int MODE> __device__ __forceinline__ float pool_step(float acc, float f) {
    return MODE == 0 ? (f > acc || f != f ? f : acc) : acc + f;
}

/* V outputs of a pool at element offset `at`: fp16 into y and, where the tensor is read as FP8,
 * e4m3 into yq (the same offset in its twin) */
template <int V>
__device__ __forceinline__ void store_pool(const __half *o, __half *y, unsigned char *yq, size_t at, float y_inv) {
    if (y) {
        if (V == 8) *(uint4 *)(y + at) = *(const uint4 *)o;
        else
#pragma unroll
            for (int e = 0; e < V; e++) y[at + e] = o[e];
    }
    if (yq) {
        float f[V];
#pragma unroll
        for (int e = 0; e < V; e++) f[e] = __fmul_rn(__half2float(o[e]), y_inv);
        if (V == 8) /* two codes a conversion, packed as they are stored (the same rounding as q_e4m3) */
            *(uint2 *)(yq + at) = make_uint2(q_e4m3x4(f[0], f[1], f[2], f[3]), q_e4m3x4(f[4], f[5], f[6], f[7]));
        else
#pragma unroll
            for (int e = 0; e < V; e++) yq[at + e] = (unsigned char)q_e4m3(f[e]);
    }
}

/* The V results of a window in fp16: the maximum, or the sum over the window's count, divided as
 * the CPU reference divides (count_division.h); then, for an average pool moved below its 1x1 conv
 * (i8_pass_sink_avgpool), + bias (the V channels' own; NULL: none) and relu, in float as the CPU
 * reference does, rounded to fp16 once */
template <int V, int MODE>
__device__ __forceinline__ void pool_result(const float *acc, int count, const float *bias, int relu, __half *o) {
    const float d = (float)count, r = MODE == 0 ? 0.0f : __frcp_rn(d);
#pragma unroll
    for (int e = 0; e < V; e++) {
        float v = MODE == 0 ? acc[e] : i8_div_by_count(acc[e], d, r);
        if (bias) v = __fadd_rn(v, __ldg(bias + e));
        o[e] = __float2half_rn(relu ? relu_f32(v) : v);
    }
}

/* Any pool: one thread per output pixel and group of V channels (V = 8: 16-byte accesses). */
template <int V, int MODE>
__global__ void pool_kernel(const __half *x, int n, int h, int w, int c, int x_ld, __half *y, unsigned char *yq,
                            float y_inv, int ho, int wo, int y_ld, int kh, int kw, int sh, int sw, int ph, int pw,
                            const float *bias, int relu) {
    int groups = c / V;
    size_t t = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= (size_t)n * ho * wo * groups) return;
    int g = (int)(t % groups);
    size_t p = t / groups;
    int ox = (int)(p % wo), oy = (int)((p / wo) % ho), b = (int)(p / ((size_t)wo * ho));
    int y0 = oy * sh - ph, x0 = ox * sw - pw;
    int y1 = min(y0 + kh, h + ph), x1 = min(x0 + kw, w + pw);
    int pool_size = (y1 - y0) * (x1 - x0);
    int ys = max(y0, 0), xs = max(x0, 0), ye = min(y1, h), xe = min(x1, w);
    float acc[V];
#pragma unroll
    for (int e = 0; e < V; e++) acc[e] = MODE == 0 ? -INFINITY : 0.0f;
    for (int iy = ys; iy < ye; iy++)
        for (int ix = xs; ix < xe; ix++) {
            const __half *src = x + ((size_t)(b * h + iy) * w + ix) * x_ld + g * V;
            __half v[V];
            if (V == 8) *(uint4 *)v = *(const uint4 *)src;
            else
#pragma unroll
                for (int e = 0; e < V; e++) v[e] = src[e];
#pragma unroll
            for (int e = 0; e < V; e++) acc[e] = pool_step<MODE>(acc[e], __half2float(v[e]));
        }
    __half o[V];
    pool_result<V, MODE>(acc, MODE == 2 ? pool_size : (ye - ys) * (xe - xs), bias ? bias + g * V : NULL, relu, o);
    store_pool<V>(o, y, yq, p * y_ld + g * V, y_inv);
}

/* 3x3 pools of stride S (1 or 2: every pool of the three families but the global one) over
 * 8-channel groups, one output a thread: it issues its window's 9 loads first, then sums them row
 * by row, left to right, as pool_kernel does (the same bits). 32-bit thread indices and offsets
 * within an image (the caller checks).
 * inception_v4 at batch 32, fp16, isolated nodes (session 40): the 14 average pools take 0.325 ms
 * and the 4 max pools 0.080, against 0.530 / 0.113 on session 39's kernels (pool_s1w3_kernel,
 * pool_kernel), which Nsight Compute found issue-bound (SM 71% busy, DRAM 13%), not waiting on
 * loads. Taking 2 or 4 outputs down a column, with their shared rows loaded once, was slower
 * (0.58 / 0.64 ms with the mode still a run-time argument, against 0.54 for one output): 84-115
 * registers left fewer warps to issue from. */
template <int S, int MODE>
__global__ void __launch_bounds__(128) pool3_kernel(const __half *x, unsigned threads, int h, int w, int c, int x_ld,
                                                    __half *y, unsigned char *yq, float y_inv, int ho, int wo,
                                                    int y_ld, int ph, int pw, const float *bias, int relu) {
    const unsigned t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= threads) return;
    const unsigned groups = (unsigned)c / 8, g = t % groups, p = t / groups;
    const unsigned ox = p % (unsigned)wo, q = p / (unsigned)wo, oy = q % (unsigned)ho, b = q / (unsigned)ho;
    const int y0 = (int)oy * S - ph, x0 = (int)ox * S - pw;
    const __half *image = x + (size_t)b * h * w * x_ld + (size_t)g * 8;
    const int row_step = w * x_ld, first = (y0 * w + x0) * x_ld; /* in int: the caller checks h w x_ld */
    /* a tap outside the input holds the step's neutral value (-inf for max, +0 for the sums), so
     * every window sums all 9 without branches and each partial sum is pool_kernel's: x + 0 = x
     * and x max -inf = x for every x the sums meet (they start at +0, so are never -0) */
    const unsigned neutral = MODE == 0 ? 0xfc00fc00u : 0u;
    half8 v[3][3];
#pragma unroll
    for (int i = 0; i < 3; i++)
#pragma unroll
        for (int k = 0; k < 3; k++)
            v[i][k].word = y0 + i >= 0 && y0 + i < h && x0 + k >= 0 && x0 + k < w
                               ? __ldg((const uint4 *)(image + (first + i * row_step + k * x_ld)))
                               : make_uint4(neutral, neutral, neutral, neutral);
    float acc[8];
#pragma unroll
    for (int e = 0; e < 8; e++) acc[e] = MODE == 0 ? -INFINITY : 0.0f;
#pragma unroll
    for (int i = 0; i < 3; i++)
#pragma unroll
        for (int k = 0; k < 3; k++)
#pragma unroll
            for (int e = 0; e < 8; e++) acc[e] = pool_step<MODE>(acc[e], __half2float(v[i][k].h[e]));
    const int rows = MODE == 2 ? min(y0 + 3, h + ph) - y0 : min(y0 + 3, h) - max(y0, 0);
    const int cols = MODE == 2 ? min(x0 + 3, w + pw) - x0 : min(x0 + 3, w) - max(x0, 0);
    half8 o;
    pool_result<8, MODE>(acc, rows * cols, bias ? bias + g * 8 : NULL, relu, o.h);
    store_pool<8>(o.h, y, yq, (size_t)p * y_ld + g * 8, y_inv);
}

template <int S, int MODE>
static void launch_pool3(const void *x, unsigned threads, int h, int w, int c, int x_ld, void *y, void *yq,
                         float y_inv, int ho, int wo, int y_ld, int ph, int pw, const float *bias, int relu,
                         cudaStream_t s) {
    pool3_kernel<S, MODE><<<blocks_for(threads, 128), 128, 0, s>>>((const __half *)x, threads, h, w, c, x_ld,
                                                                   (__half *)y, (unsigned char *)yq, y_inv, ho, wo,
                                                                   y_ld, ph, pw, bias, relu);
}

template <int V, int MODE>
static void launch_pool(const void *x, int n, int h, int w, int c, int x_ld, void *y, void *yq, float y_inv, int ho,
                        int wo, int y_ld, int kh, int kw, int sh, int sw, int ph, int pw, const float *bias, int relu,
                        cudaStream_t s) {
    const size_t threads = (size_t)n * ho * wo * (c / V);
    pool_kernel<V, MODE><<<blocks_for(threads, 128), 128, 0, s>>>((const __half *)x, n, h, w, c, x_ld, (__half *)y,
                                                                  (unsigned char *)yq, y_inv, ho, wo, y_ld, kh, kw,
                                                                  sh, sw, ph, pw, bias, relu);
}

/* the pool of mode 0 (max), 1 (average, padding excluded) or 2 (included) on the kernel that
 * fits: pool3_kernel for 3x3 windows of stride 1 or 2 over 8-channel groups, else pool_kernel */
template <int MODE>
static void launch_pool_mode(const void *x, int n, int h, int w, int c, int x_ld, void *y, void *yq, float y_inv,
                             int ho, int wo, int y_ld, int kh, int kw, int sh, int sw, int ph, int pw, bool vec,
                             const float *bias, int relu, cudaStream_t s) {
    const size_t threads = (size_t)n * ho * wo * (c / 8);
    if (vec && kh == 3 && kw == 3 && sh == sw && (sh == 1 || sh == 2) && threads <= 0xffffffffu - 1024 &&
        (size_t)h * w * x_ld <= 0x7fffffffu) {
        if (sh == 1)
            launch_pool3<1, MODE>(x, (unsigned)threads, h, w, c, x_ld, y, yq, y_inv, ho, wo, y_ld, ph, pw, bias, relu, s);
        else launch_pool3<2, MODE>(x, (unsigned)threads, h, w, c, x_ld, y, yq, y_inv, ho, wo, y_ld, ph, pw, bias, relu, s);
    } else if (vec)
        launch_pool<8, MODE>(x, n, h, w, c, x_ld, y, yq, y_inv, ho, wo, y_ld, kh, kw, sh, sw, ph, pw, bias, relu, s);
    else
        launch_pool<1, MODE>(x, n, h, w, c, x_ld, y, yq, y_inv, ho, wo, y_ld, kh, kw, sh, sw, ph, pw, bias, relu, s);
}

extern "C" int i8_cuda_pool(const void *x, int n, int h, int w, int c, int x_ld, void *y, void *yq, float y_inv,
                            int ho, int wo, int y_ld, int kh, int kw, int sh, int sw, int ph, int pw, int mode,
                            const float *bias, int relu, void *stream) {
    cudaStream_t s = (cudaStream_t)stream;
    const bool vec = c % 8 == 0 && x_ld % 8 == 0 && y_ld % 8 == 0 && ((uintptr_t)x & 15) == 0 &&
                     ((uintptr_t)y & 15) == 0 && ((uintptr_t)yq & 7) == 0;
    if (mode == 0)
        launch_pool_mode<0>(x, n, h, w, c, x_ld, y, yq, y_inv, ho, wo, y_ld, kh, kw, sh, sw, ph, pw, vec, bias, relu, s);
    else if (mode == 1)
        launch_pool_mode<1>(x, n, h, w, c, x_ld, y, yq, y_inv, ho, wo, y_ld, kh, kw, sh, sw, ph, pw, vec, bias, relu, s);
    else launch_pool_mode<2>(x, n, h, w, c, x_ld, y, yq, y_inv, ho, wo, y_ld, kh, kw, sh, sw, ph, pw, vec, bias, relu, s);
    return launch_status();
}

/* ---------------------------------------------------------------- head */

/* Block (32 channels x 8 pixel lanes): each lane sums a strided subset of pixels, then a
 * shared-memory reduction over the 8 lanes; channels stay coalesced. */
__global__ void gap_kernel(const __half *x, int n, int hw, int c, int x_ld, float *y) {
    __shared__ float part[8][33];
    int ch = blockIdx.x * 32 + threadIdx.x, b = blockIdx.y;
    float s = 0.0f;
    if (ch < c)
        for (int p = threadIdx.y; p < hw; p += 8) s += __half2float(x[((size_t)b * hw + p) * x_ld + ch]);
    part[threadIdx.y][threadIdx.x] = s;
    __syncthreads();
    if (threadIdx.y == 0 && ch < c) {
        float t = 0.0f;
        for (int i = 0; i < 8; i++) t += part[i][threadIdx.x];
        y[(size_t)b * c + ch] = t / (float)hw;
    }
}

extern "C" int i8_cuda_global_avgpool(const void *x, int n, int hw, int c, int x_ld, float *y, void *stream) {
    dim3 grid((unsigned)((c + 31) / 32), (unsigned)n), block(32, 8);
    gap_kernel<<<grid, block, 0, (cudaStream_t)stream>>>((const __half *)x, n, hw, c, x_ld, y);
    return launch_status();
}

/* Batch rows per warp: the grid's second dimension splits the batch, so that a batch of 32 runs
 * 8 warps per output feature instead of one warp looping over 32 rows (IRv2's 1536 -> 1000 took
 * 0.081 ms at batch 32 in session 37's profile, for a 3 MB weight matrix) */
#define LINEAR_ROWS_PER_WARP 4

/* One warp per output feature o and LINEAR_ROWS_PER_WARP batch rows; each dot product is summed
 * in the same order as before the batch was split (lane-strided, then a shuffle tree), so the
 * results are the same bits. */
__global__ void linear_kernel(const void *xv, int x_f16, int n, int in, int out, const __half *w, const float *bias,
                              float *y) {
    int o = blockIdx.x * (blockDim.x / 32) + threadIdx.x / 32, lane = threadIdx.x % 32;
    if (o >= out) return;
    const __half *wr = w + (size_t)o * in;
    const int b_end = min(n, (int)(blockIdx.y + 1) * LINEAR_ROWS_PER_WARP);
    for (int b = (int)blockIdx.y * LINEAR_ROWS_PER_WARP; b < b_end; b++) {
        float s = 0.0f;
        for (int i = lane; i < in; i += 32) {
            float xv_ = x_f16 ? __half2float(((const __half *)xv)[(size_t)b * in + i]) : ((const float *)xv)[(size_t)b * in + i];
            s += xv_ * __half2float(wr[i]);
        }
        for (int off = 16; off > 0; off >>= 1) s += __shfl_down_sync(0xffffffffu, s, off);
        if (lane == 0) y[(size_t)b * out + o] = s + (bias ? bias[o] : 0.0f);
    }
}

extern "C" int i8_cuda_linear(const void *x, int x_f16, int n, int in, int out, const void *w, const float *bias,
                              float *y, void *stream) {
    const dim3 grid((unsigned)((out + 7) / 8), (unsigned)((n + LINEAR_ROWS_PER_WARP - 1) / LINEAR_ROWS_PER_WARP));
    linear_kernel<<<grid, 256, 0, (cudaStream_t)stream>>>(x, x_f16, n, in, out, (const __half *)w, bias, y);
    return launch_status();
}

/* ---------------------------------------------------------------- pointwise */

__global__ void pointwise_kernel(const __half *a, int a_ld, const float *alpha, const float *beta, const __half *b,
                                 int b_ld, float s, int relu, __half *y, int y_ld, size_t pixels, int c) {
    size_t t = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= pixels * c) return;
    size_t m = t / c;
    int ch = (int)(t % c);
    float v = __half2float(a[m * a_ld + ch]) * (alpha ? alpha[ch] : 1.0f) + (beta ? beta[ch] : 0.0f);
    if (b) v += s * __half2float(b[m * b_ld + ch]);
    y[m * y_ld + ch] = __float2half_rn(relu ? relu_f32(v) : v);
}

extern "C" int i8_cuda_pointwise(const void *a, int a_ld, const float *alpha, const float *beta, const void *b,
                                 int b_ld, float s, int relu, void *y, int y_ld, size_t pixels, int c, void *stream) {
    pointwise_kernel<<<blocks_for(pixels * c, 256), 256, 0, (cudaStream_t)stream>>>(
        (const __half *)a, a_ld, alpha, beta, (const __half *)b, b_ld, s, relu, (__half *)y, y_ld, pixels, c);
    return launch_status();
}

__global__ void fill_kernel(__half *y, size_t count, uint32_t seed) {
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= count) return;
    uint32_t h = (uint32_t)i * 2654435761u ^ seed;
    h ^= h >> 15;
    h *= 2246822519u;
    h ^= h >> 13;
    y[i] = __float2half_rn((float)(h & 0xffff) / 32768.0f - 1.0f);
}

extern "C" int i8_cuda_fill_pattern(void *y, size_t count, uint32_t seed, void *stream) {
    if (count == 0) return 0;
    fill_kernel<<<blocks_for(count, 256), 256, 0, (cudaStream_t)stream>>>((__half *)y, count, seed);
    return launch_status();
}

/* ---------------------------------------------------------------- output */

__global__ void output_to_nchw_kernel(const void *x, int f32, int n, int c, int h, int w, int x_ld, float *y) {
    size_t t = (size_t)blockIdx.x * blockDim.x + threadIdx.x, hw = (size_t)h * w;
    if (t >= (size_t)n * c * hw) return;
    size_t q = t % hw, ch = (t / hw) % c, b = t / (hw * c);
    size_t src = (b * hw + q) * x_ld + ch;
    y[t] = f32 ? ((const float *)x)[src] : __half2float(((const __half *)x)[src]);
}

extern "C" int i8_cuda_output_to_nchw(const void *x, int x_f32, int n, int c, int h, int w, int x_ld, float *y,
                                      void *stream) {
    size_t count = (size_t)n * c * h * w;
    output_to_nchw_kernel<<<blocks_for(count, 256), 256, 0, (cudaStream_t)stream>>>(x, x_f32, n, c, h, w, x_ld, y);
    return launch_status();
}
