/* FP8 e4m3 GEMM for the pointwise (1x1, stride 1) convolutions on Hopper, the fourth family of
 * i8_cuda_conv_fp8's variants (48 on; cuda_fp8.h): same contract and epilogue semantics as
 * cuda_fp8.cu's kernels, a different machine. One persistent block per SM walks the output tiles
 * (BM 128 x BN); warpgroup 0's first thread is the producer: it loads each 128-byte K slice of A
 * (the e4m3 input, [M][x_ld]) and B (the e4m3 weights, [c_out][K]) with TMA
 * (cp.async.bulk.tensor, 128-byte swizzle: the layout wgmma's descriptors read) into S stages
 * guarded by mbarriers (full: TMA bytes landed; empty: the consumers are done with the stage).
 * Warpgroups 1 and 2 each run wgmma m64nBNk32 on 64 rows, promote each stage's sums to fp32 (as
 * cuda_fp8.cu's wgmma kernels do, so both give the same sums), and finish the tile from their
 * fragments while the producer already loads the next tile.
 * Variants (tma_variant): RT also loads each tile's fp16 residual with TMA (double-buffered)
 * instead of reading it in the epilogue; XH reads fp16 input and quantizes it in shared memory
 * (q = e4m3(x * x_inv), as the other kernels' loaders); PP (ping-pong) gives the two consumer
 * warpgroups alternate whole tiles, so that one's epilogue runs while the other multiplies.
 * Epilogue: v = acc * mult + bias, residual (fp16, e4m3 copy, or fp16 quantized on the fly),
 * ReLU, fp16 and / or e4m3 out; per warp through staging tiles in shared memory, laid out as TMA
 * boxes, which one lane stores with TMA (since session 32; outputs TMA cannot store exactly, see
 * i8_cuda_conv_fp8_tma_store_fits, take 16- / 8-byte stores from the same tiles).
 * Limits (tma_fits): pointwise conv, e4m3 input (fp16 for XH) with x_ld and x 16-byte aligned,
 * K % 16 == 0, c_out % 8 == 0, aligned outputs, no split-K.
 * History: a lab prototype in sessions 11-12 (dev/kernels/fp8_tma.cu keeps its ablation and
 * scheduling experiments on this kernel template); in the product since session 13, after its
 * epilogue stopped waiting on the channel scales (tma_chan_load). */
#include <cuda.h> /* CUtensorMap and the encoder's signature; the driver is reached through the runtime */
#include <cuda_fp16.h>
#include <cuda_runtime.h>
#include <stdint.h>
#include <string.h>

#include "cuda_e4m3.cuh"
#include "cuda_fp8.h"
#include "cuda_mbar.cuh"
#include "cuda_pdl.cuh"
#include "cuda_resident.cuh"
#include "cuda_wgmma.cuh"

#define TMA_BM 128
/* threads of a block: the producer warpgroup and the consumer warpgroups, two (cooperative, or
 * ping-pong) or NC (ping-pong) */
template <bool PP, int NC> constexpr int tma_threads(void) { return 128 * (1 + (PP ? NC : 2)); }
/* Registers of a block of NC ping-pong consumers. With three (session 51) the 512 threads start
 * with the register file's 65536 / 512 = 128 each, fewer than the 160 a consumer holds; the producer
 * warpgroup gives back all but 32 (setmaxnreg) and the consumers share the rest: moved, producer,
 * consumer (whole multiples of 8, as setmaxnreg takes them). */
template <int NC> struct tma_regs {
    static constexpr bool moved = NC > 2;
    static constexpr int producer = 32, consumer = (65536 - 128 * producer) / (128 * NC) / 8 * 8;
};
static_assert(tma_regs<3>::consumer == 160, "three consumers hold what the two-consumer kernels do");
template <int N> __device__ __forceinline__ void regs_dec(void) {
    asm volatile("setmaxnreg.dec.sync.aligned.u32 %0;\n" ::"n"(N));
}
template <int N> __device__ __forceinline__ void regs_inc(void) {
    asm volatile("setmaxnreg.inc.sync.aligned.u32 %0;\n" ::"n"(N));
}

typedef struct tma_params {
    CUtensorMap ta, tb; /* A [M][K] (row stride x_ld; im2col: the input [n][h][w][c_in]), B [c_out][K] */
    CUtensorMap tr;     /* the fp16 residual [M][c_out] (row stride res_ld), when res_tma */
    CUtensorMap ty, tq; /* the outputs [M][c_out] (row stride y_ld), when tma_store: boxes of 16 rows
                         * x 64 fp16 / BN e4m3 codes, one warp's rows of the staging tiles */
    i8_cuda_fp8_conv_args a;
    int M, K, m_tiles, n_tiles;
    int KB;             /* 128-deep K slices per tile */
    int res_tma;        /* the producer also loads each tile's fp16 residual (variants with RT) */
    int im2col;         /* spatial conv (variants with C): A loaded in TMA's im2col mode, a K slice being
                         * FP8_BK / SW sub-slices of one tap's SW channels each */
    int chunks;         /* im2col: SW-channel chunks per tap, ceil(c_in / SW) */
    int subs;           /* im2col: SW-deep sub-slices in all, kh kw chunks (KB = their stages) */
    int tma_store;      /* the epilogue stores its staging tiles with TMA (else 16- / 8-byte stores) */
    /* MIX (mixed-width stages, im2col; MIX the rest's sub-slice width, 32 or 64 channels): the
     * first full_kb stages take whole 128-channel chunks of each tap (chunks = c_in / 128 a tap,
     * maps ta / tb); the stages after them take the rest of every tap, tail_chunks MIX-channel
     * sub-slices a tap from channel tail_c0, 128 / MIX to a stage (tail_subs in all; maps
     * ta_rest / tb_rest) */
    int full_kb, tail_chunks, tail_subs, tail_c0;
    CUtensorMap ta_rest, tb_rest;
    i8_cuda_fp8_outs outs; /* MO instances: the sibling outputs (copied; last, so that the other
                            * instances' parameter offsets stay as they were) */
} tma_params;

/* This thread's warpgroup, and its warp within the warpgroup, broadcast from lane 0: the compiler
 * then knows they are warp-uniform and keeps the stage addresses and wgmma descriptors derived
 * from them in uniform registers, instead of moving them there before every wgmma (session 33:
 * 66 R2UR -> 10 in tma128x64s4pr's binary; lab 0-15% faster). Whole warps only. */
__device__ __forceinline__ int uniform_warpgroup(void) { return __shfl_sync(0xffffffffu, (int)threadIdx.x / 128, 0); }
__device__ __forceinline__ int uniform_warp_in_warpgroup(void) {
    return __shfl_sync(0xffffffffu, (int)(threadIdx.x % 128) / 32, 0);
}

/* box of the 2-D tensor map at (x = K byte, y = row) into dst, completing on bar */
__device__ __forceinline__ void tma_load_2d(void *dst, const CUtensorMap *map, int x, int y, uint64_t *bar) {
    asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3}], [%4];\n" ::"r"(
                     smem_u32(dst)),
                 "l"((uint64_t)map), "r"(x), "r"(y), "r"(smem_u32(bar))
                 : "memory");
}

/* the tensor map fetched into the TMA unit's cache ahead of its first use (a kernel parameter: its
 * generic address) */
__device__ __forceinline__ void prefetch_tensormap(const CUtensorMap *map) {
    asm volatile("prefetch.tensormap [%0];\n" ::"l"((uint64_t)map) : "memory");
}

/* box of the 2-D tensor map at (x = column, y = row) from src, in this thread's bulk group */
__device__ __forceinline__ void tma_store_2d(const CUtensorMap *map, const void *src, int x, int y) {
    asm volatile("cp.async.bulk.tensor.2d.global.shared::cta.bulk_group [%0, {%2, %3}], [%1];\n" ::"l"((uint64_t)map),
                 "r"(smem_u32(src)), "r"(x), "r"(y)
                 : "memory");
}
__device__ __forceinline__ void bulk_commit(void) { asm volatile("cp.async.bulk.commit_group;\n" ::: "memory"); }
/* until at most N of this thread's bulk groups still read shared memory */
template <int N> __device__ __forceinline__ void bulk_wait_read(void) {
    asm volatile("cp.async.bulk.wait_group.read %0;\n" ::"n"(N) : "memory");
}
/* until all of this thread's bulk groups have written global memory */
__device__ __forceinline__ void bulk_wait_all(void) { asm volatile("cp.async.bulk.wait_group 0;\n" ::: "memory"); }
/* A block's end: its TMA stores must have read its shared memory before the block frees it; their
 * global writes belong to the grid, whose completion (or griddep_wait in a PDL successor) makes them
 * visible, so the block need not wait for them (as CUTLASS's sm90 epilogues end). Until session 61
 * each warp waited for its writes too (drain = 1, INFER8_CUDA_TMA_STORE_DRAIN=1: the A/B), a memory
 * round trip at the end of every block, which at batch 1 is the end of the kernel. */
__device__ __forceinline__ void tma_store_tail(int drain) {
    if (drain) bulk_wait_all();
    else bulk_wait_read<0>();
}

/* Spatial convs (im2col mode): the 128 output pixels from the one whose filter window's top-left
 * input pixel is (w, h) of image n, each pixel's channels c .. c + 127 at filter tap (kx, ky);
 * the map's bounding box walks the output pixels (stride and padding) across rows and images,
 * and pixels or channels outside the input arrive as zeros. */
__device__ __forceinline__ void tma_load_im2col(void *dst, const CUtensorMap *map, int c, int w, int h, int n,
                                                unsigned short kx, unsigned short ky, uint64_t *bar) {
    asm volatile("cp.async.bulk.tensor.4d.shared::cluster.global.im2col.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3, "
                 "%4, %5}], [%6], {%7, %8};\n" ::"r"(smem_u32(dst)),
                 "l"((uint64_t)map), "r"(c), "r"(w), "r"(h), "r"(n), "r"(smem_u32(bar)), "h"(kx), "h"(ky)
                 : "memory");
}

/* The producer's walk over an im2col conv's K sub-slices, counted up one at a time (runtime
 * divisions on that one thread cost the spatial kernels, session 22): sub-slice `sub` is channels
 * c0 + c .. (a span of them, from the walk's first channel c0) of tap (kx, ky), whose weight
 * columns start at tap_col. next: the following sub-slice, a tap's `end` channels apart; past the
 * last of `subs` it stays where it is. */
struct tap_walk {
    int c, kx, ky, tap_col, sub;
    __device__ __forceinline__ void next(int span, int end, int subs, int kw, int c_in) {
        if (++sub < subs && (c += span) == end) {
            c = 0, tap_col += c_in;
            if (++kx == kw) kx = 0, ky++;
        }
    }
};
/* the walk's sub-slice: A's box of TMA_BM output pixels at its tap and channels into a_dst
 * (tap_load_a), B's weight columns into b_dst (tap_load_b; past the last sub-slice, columns past
 * K: zeros), or both (tap_load: the mixed kernels' rests), completing on bar */
__device__ __forceinline__ void tap_load_a(unsigned char *a_dst, const CUtensorMap *ta, const tap_walk &w, int c0, int iw,
                                           int ih, int img, uint64_t *bar) {
    tma_load_im2col(a_dst, ta, c0 + w.c, iw, ih, img, (unsigned short)w.kx, (unsigned short)w.ky, bar);
}
__device__ __forceinline__ void tap_load_b(unsigned char *b_dst, const CUtensorMap *tb, const tap_walk &w, int c0, int subs,
                                           int K, int n0, uint64_t *bar) {
    tma_load_2d(b_dst, tb, w.sub < subs ? w.tap_col + c0 + w.c : K, n0, bar);
}
__device__ __forceinline__ void tap_load(unsigned char *a_dst, unsigned char *b_dst, const CUtensorMap *ta,
                                         const CUtensorMap *tb, const tap_walk &w, int c0, int subs, int K, int iw,
                                         int ih, int img, int n0, uint64_t *bar) {
    tap_load_a(a_dst, ta, w, c0, iw, ih, img, bar);
    tap_load_b(b_dst, tb, w, c0, subs, K, n0, bar);
}

/* RT: CW residual tiles (128 rows x BN fp16 = 128 bytes, 128-byte swizzle), so that a tile's
 * residual is loaded while the tile before it finishes: one per consumer warpgroup (ping-pong:
 * each consumer's own). XH: fp16 input; a stage holds its 128 K values as two 64-wide fp16 boxes, which the
 * consumers quantize into one e4m3 tile (A8). NC: ping-pong consumers. */
template <int BN, int S, bool RT, bool XH = false, bool PP = false, int NC = 2> struct tma_smem {
    static constexpr int A = TMA_BM * FP8_BK * (XH ? 2 : 1), B = BN * FP8_BK, STAGE = A + B;
    static constexpr int CW = PP ? NC : 2; /* consumer warpgroups */
    static constexpr int W = PP ? NC : 1; /* ping-pong: each consumer warpgroup stages its own tile */
    static constexpr int Y1 = TMA_BM * BN * 2, Q1 = TMA_BM * BN, Y = W * Y1, Q = W * Q1; /* tma_stage_y / _q */
    static constexpr int RTILE = TMA_BM * BN * 2, R = RT ? CW * RTILE : 0; /* 1024-aligned after Y, Q */
    static_assert(!RT || BN * 2 == 128, "the residual box is one 128-byte swizzle span wide");
    static constexpr int A81 = XH ? TMA_BM * FP8_BK : 0, A8 = W * A81; /* 1024-aligned after R */
    static constexpr int MB1 = 2 * BN * 4, MB = CW * MB1; /* per consumer warpgroup: its tile's mult, bias */
    static constexpr int BARS = S * STAGE + Y + Q + R + A8 + MB; /* 8-byte aligned */
    static constexpr int NBAR = 2 * S + 3 * CW; /* full, empty (S each); res_full, res_empty, order (CW each) */
    static constexpr int BYTES = BARS + NBAR * 8 + 1024; /* + room to align the stages to 1024 */
};

/* A tile's per-channel multiplier and bias, for the epilogue: each thread of a consumer
 * warpgroup below BN loads one channel's pair when the tile starts (tma_chan_load; the mainloop
 * hides the latency) and puts it in the warpgroup's shared sMB (mult [0, BN), bias [BN, 2 BN))
 * when the tile's sums are done (tma_chan_stage). Loaded in the epilogue instead, as until
 * session 13, every 8 channels waited a global-memory round trip in turn: Nsight Compute put
 * over half of the kernel's stall samples there (8 consumer warps per SM hide nothing). */
template <int BN>
__device__ __forceinline__ float2 tma_chan_load(const i8_cuda_fp8_conv_args &a, int n0) {
    const int lt = threadIdx.x % 128, co = n0 + lt;
    float2 mb = make_float2(0.0f, 0.0f);
    if (lt < BN && co < a.c_out) mb = make_float2(__ldg(a.mult + co), a.bias ? __ldg(a.bias + co) : 0.0f);
    return mb;
}
/* The staging tiles, in the layout the TMA stores read (tensor maps swizzled over their rows'
 * span): the fp16 tile as BN / 64 boxes of TMA_BM rows x 128 bytes (64 channels), the e4m3 tile
 * as TMA_BM rows x BN bytes; 16-byte chunk c of row r at chunk c ^ (r % 8) for 128-byte rows, at
 * c ^ (r / 2 % 4) for 64-byte ones (every box 1024-aligned). A warp's 8 rows x 4 lanes of fragment
 * pairs then write to distinct banks, as the padded rows before session 32 did.
 * swz: byte `byte` of row r of a box with SPAN-byte rows. */
template <int SPAN> __device__ __forceinline__ int swz(int r, int byte) {
    return r * SPAN + (byte ^ ((((r * SPAN) >> 7) & (SPAN / 16 - 1)) << 4));
}
__device__ __forceinline__ int tma_stage_y(int r, int col) { return (col >> 6) * (TMA_BM * 128) + swz<128>(r, (col & 63) * 2); }
template <int BN> __device__ __forceinline__ int tma_stage_q(int r, int col) { return swz<BN>(r, col); }

/* MO: the sibling range that channel co (a multiple of 8) belongs to */
__device__ __forceinline__ int mo_range(const i8_cuda_fp8_outs &o, int co) {
    int k = 0;
#pragma unroll
    for (int r = 1; r < I8_FP8_MAX_OUTS; r++) k += (r < o.n) & (co >= o.c0[r]);
    return k;
}

/* The fragments of one consumer warp (rows wrow + g and + 8, channels 8j + 2 tig, + 1) through
 * its rows of the fp16 / e4m3 staging tiles to global memory (STORES false: not the last step,
 * for the ablation variants). sMB: the tile's multipliers and biases (tma_chan_stage).
 * In phases: every read (sMB, the residual), then the arithmetic, then the staging writes, then
 * the global stores. Written per fragment pair instead, as until session 23, each pair's reads
 * waited behind the staging writes before them (the compiler cannot tell the shared arrays apart)
 * and each residual load sat between branches of its own: one global-memory round trip per pair,
 * 16 in turn per tile (lab, Block17 up-projection at batch 32: 63.8 us with a residual against
 * 29.8 without, session 13). Same operations per value in the same order: the same bits.
 * tma_epilogue_cols: the first three phases for the channel chunks J0 .. J0 + JN - 1 (at most 8 at
 * a time: 64 values with their residuals spilled registers in the 128-wide kernel). */
template <int BN, int J0, int JN, bool MO = false>
__device__ __forceinline__ void tma_epilogue_cols(const i8_cuda_fp8_conv_args &a, const float *acc, int m0, int n0,
                                                  int M, int wrow, unsigned char *sY, unsigned char *sQ,
                                                  const unsigned char *sRes, const float *sMB,
                                                  const i8_cuda_fp8_outs *outs = nullptr) {
    constexpr int V = 4 * JN; /* V: this thread's values here */
    const int lane = threadIdx.x % 32, g = lane / 4, tig = lane % 4, res = a.res_mode;
    float v[V]; /* value i = 4 (j - J0) + 2 h + e: row wrow + g + 8 h, channel 8 j + 2 tig + e */
#pragma unroll
    for (int i = 0; i < V; i += 2) {
        const int col = (J0 + i / 4) * 8 + 2 * tig;
        const float2 mu = *(const float2 *)(sMB + col), bi = *(const float2 *)(sMB + BN + col);
        v[i] = acc[4 * J0 + i] * mu.x + bi.x, v[i + 1] = acc[4 * J0 + i + 1] * mu.y + bi.y;
    }
    if (res != I8_FP8_RES_NONE) {
        float x[V];
        if (sRes) { /* the tile's fp16 residual, TMA-loaded: rows of 128 bytes, 16-byte chunk j of
                     * row r at chunk j ^ (r & 7). ldmatrix hands each thread its accumulator
                     * fragment's values (rows g, g + 8, channels 8 j + 2 tig, + 1) of four 8x8
                     * matrices at once, lane l addressing row l % 8 of matrix l / 8 (h = k & 1,
                     * chunk j + k / 2): 4 instructions and their addresses for 32 values, where
                     * one load each pair with its own swizzled address took 3 (session 30's SASS) */
            const int mk = lane >> 3, row = wrow + (lane & 7) + 8 * (mk & 1);
            const unsigned char *rbase = sRes + row * 128;
#pragma unroll
            for (int j = J0; j < J0 + JN; j += 2) {
                unsigned r[4];
                ldmatrix_x4(r, rbase + ((((j + (mk >> 1)) ^ (row & 7)) & 7) << 4));
#pragma unroll
                for (int k = 0; k < 4; k++) {
                    const int i = 4 * (j + k / 2 - J0) + 2 * (k & 1);
                    const __half2 h2 = *(const __half2 *)&r[k];
                    x[i] = __low2float(h2), x[i + 1] = __high2float(h2);
                }
            }
        } else { /* from global memory: every load issued before any is used, without branches (rows
                  * or channels past the tensor read its last element, masked to 0, not stored) */
            unsigned raw[V / 2];
            const unsigned char *base = (const unsigned char *)a.res;
            const int ld = a.res_ld, mlast = M - 1, clast = a.c_out - 2; /* c_out even (tma_fits) */
            if (res == I8_FP8_RES_Q) {
#pragma unroll
                for (int i = 0; i < V; i += 2) {
                    const int m = m0 + wrow + g + 8 * ((i / 2) % 2), co = n0 + (J0 + i / 4) * 8 + 2 * tig;
                    const size_t ro = (size_t)min(m, mlast) * ld + min(co, clast);
                    raw[i / 2] = __ldg((const unsigned short *)(base + ro)) & ((m <= mlast) & (co <= clast) ? 0xFFFFu : 0u);
                }
#pragma unroll
                for (int i = 0; i < V; i += 2)
                    x[i] = __fmul_rn(dq_e4m3(raw[i / 2] & 0xFFu), a.res_scale),
                    x[i + 1] = __fmul_rn(dq_e4m3(raw[i / 2] >> 8), a.res_scale);
            } else {
#pragma unroll
                for (int i = 0; i < V; i += 2) {
                    const int m = m0 + wrow + g + 8 * ((i / 2) % 2), co = n0 + (J0 + i / 4) * 8 + 2 * tig;
                    const size_t ro = (size_t)min(m, mlast) * ld + min(co, clast);
                    raw[i / 2] = __ldg((const unsigned *)(base + 2 * ro)) & ((m <= mlast) & (co <= clast) ? ~0u : 0u);
                }
#pragma unroll
                for (int i = 0; i < V; i += 2) {
                    const __half2 h2 = *(const __half2 *)&raw[i / 2];
                    x[i] = __low2float(h2), x[i + 1] = __high2float(h2);
                }
            }
        }
        if (res == I8_FP8_RES_F16_FQ)
#pragma unroll
            for (int i = 0; i < V; i++) x[i] = __fmul_rn(dq_e4m3(q_e4m3(__fmul_rn(x[i], a.res_inv))), a.res_scale);
#pragma unroll
        for (int i = 0; i < V; i++) v[i] = __fadd_rn(x[i], v[i]);
    }
    /* relu inside the conversions (h2_relu, q_e4m3x2_relu): one instruction per value less */
    if (a.y) {
        unsigned h2[V / 2];
        if (a.relu)
#pragma unroll
            for (int i = 0; i < V; i += 2) h2[i / 2] = h2_relu(v[i], v[i + 1]);
        else
#pragma unroll
            for (int i = 0; i < V; i += 2) {
                const __half2 t = __floats2half2_rn(v[i], v[i + 1]);
                h2[i / 2] = *(const unsigned *)&t;
            }
        /* tma_stage_y with wrow % 16 == 0 spelled out: row % 8 == g, so one xor per chunk j */
        unsigned char *yrow = sY + (wrow + g) * 128 + 4 * tig;
#pragma unroll
        for (int i = 0; i < V; i += 2) {
            const int j = J0 + i / 4, h = (i / 2) % 2;
            *(unsigned *)(yrow + (j >> 3) * (TMA_BM * 128) + h * 8 * 128 + (((j & 7) ^ g) << 4)) = h2[i / 2];
        }
    }
    if (a.yq) {
        unsigned q2[V / 2];
        if constexpr (MO) { /* each 8-channel chunk in its sibling's scale */
#pragma unroll
            for (int i = 0; i < V; i += 2) {
                const float yi = outs->inv[mo_range(*outs, n0 + (J0 + i / 4) * 8)];
                q2[i / 2] = a.relu ? q_e4m3x2_relu(__fmul_rn(v[i], yi), __fmul_rn(v[i + 1], yi))
                                   : q_e4m3x2(__fmul_rn(v[i], yi), __fmul_rn(v[i + 1], yi));
            }
        } else if (a.relu)
#pragma unroll
            for (int i = 0; i < V; i += 2) q2[i / 2] = q_e4m3x2_relu(__fmul_rn(v[i], a.y_inv), __fmul_rn(v[i + 1], a.y_inv));
        else
#pragma unroll
            for (int i = 0; i < V; i += 2) q2[i / 2] = q_e4m3x2(__fmul_rn(v[i], a.y_inv), __fmul_rn(v[i + 1], a.y_inv));
        /* tma_stage_q<BN> spelled out: chunk j / 2 of row wrow + g (+ 8) xor g (128-byte rows) or
         * g / 2 % 4 (64-byte rows) */
        const int key = BN == 128 ? g : (g >> 1) & 3;
        unsigned char *qrow = sQ + (wrow + g) * BN + 2 * tig;
#pragma unroll
        for (int i = 0; i < V; i += 2) {
            const int j = J0 + i / 4, h = (i / 2) % 2;
            *(unsigned short *)(qrow + h * 8 * BN + (j & 1) * 8 + (((j >> 1) ^ key) << 4)) = (unsigned short)q2[i / 2];
        }
    }
}
/* The tile's staging rows of this warp (16 from wrow) go out as TMA stores where p.tma_store
 * (one lane issues them: the fp16 box(es) and the e4m3 box, one bulk group per call; rows and
 * channels past the tensor are clipped by TMA), else through 16- / 8-byte stores. PEND: bulk groups
 * this warp issued after the one that last read these rows (ping-pong: 1, its two 64-row halves
 * per tile use different rows), waited for before the rows are written again. */
template <int BN, bool STORES = true, int PEND = 0, bool MO = false>
__device__ __forceinline__ void tma_epilogue(const tma_params &p, const float *acc, int m0, int n0, int wrow,
                                             unsigned char *sY, unsigned char *sQ, const unsigned char *sRes,
                                             const float *sMB) {
    static_assert(BN == 64 || BN == 128, "channel chunks in groups of 8");
    constexpr int G = BN / 8;
    const i8_cuda_fp8_conv_args &a = p.a;
    const int lane = threadIdx.x % 32, M = p.M;
    const bool ts = STORES && !MO && p.tma_store; /* MO: a box cannot span two siblings' outputs */
    if (ts) { /* issued a whole mainloop ago: done long since, as a rule */
        if (lane == 0) bulk_wait_read<PEND>();
        __syncwarp();
    }
    tma_epilogue_cols<BN, 0, 8, MO>(a, acc, m0, n0, M, wrow, sY, sQ, sRes, sMB, &p.outs);
    if constexpr (G == 16) {
        __syncwarp(); /* keeps the compiler from starting the second half's reads early (registers) */
        tma_epilogue_cols<BN, 8, 8, MO>(a, acc, m0, n0, M, wrow, sY, sQ, sRes, sMB, &p.outs);
    }
    if (ts) {
        proxy_fence(); /* this thread's staging writes, to the async proxy the TMA store reads through */
        __syncwarp();
        if (lane == 0) {
            if (m0 + wrow < M) {
                if (a.y)
#pragma unroll
                    for (int b = 0; b < BN / 64; b++)
                        tma_store_2d(&p.ty, sY + b * (TMA_BM * 128) + wrow * 128, n0 + 64 * b, m0 + wrow);
                if (a.yq) tma_store_2d(&p.tq, sQ + wrow * BN, n0, m0 + wrow);
            }
            bulk_commit(); /* possibly empty: one group per call keeps PEND's count */
        }
        return;
    }
    __syncwarp();
    if constexpr (STORES) /* 16 rows x G 8-channel chunks per warp, 4 per lane at a time: read from shared, then stored */
#pragma unroll
        for (int k0 = 0; k0 < 16 * G / 32; k0 += 4) {
            uint4 yv[4];
            uint2 qv[4];
#pragma unroll
            for (int k = 0; k < 4; k++) {
                const int c = lane + 32 * (k0 + k), r = wrow + c / G, cc = (c % G) * 8;
                if (a.y) yv[k] = *(const uint4 *)(sY + tma_stage_y(r, cc));
                if (a.yq) qv[k] = *(const uint2 *)(sQ + tma_stage_q<BN>(r, cc));
            }
#pragma unroll
            for (int k = 0; k < 4; k++) {
                const int c = lane + 32 * (k0 + k), r = wrow + c / G, cc = (c % G) * 8, m = m0 + r, co = n0 + cc;
                if (m >= M || co >= a.c_out) continue;
                if constexpr (MO) { /* the sibling's own outputs, row stride and first channel */
                    const int s = mo_range(p.outs, co);
                    const size_t so = (size_t)m * p.outs.ld[s] + (co - p.outs.c0[s]);
                    if (a.y && p.outs.y[s]) *(uint4 *)((__half *)p.outs.y[s] + so) = yv[k];
                    if (a.yq && p.outs.yq[s]) *(uint2 *)((unsigned char *)p.outs.yq[s] + so) = qv[k];
                    continue;
                }
                const size_t yo = (size_t)m * a.y_ld + co;
                if (a.y) *(uint4 *)((__half *)a.y + yo) = yv[k];
                if (a.yq) *(uint2 *)((unsigned char *)a.yq + yo) = qv[k];
            }
        }
    __syncwarp(); /* the staging rows are written again by this warp's next tile */
}

/* barrier `id` (1 + consumer warpgroup) over that warpgroup's 128 threads */
__device__ __forceinline__ void wg_bar(int id) { asm volatile("bar.sync %0, 128;\n" ::"r"(id) : "memory"); }
/* bar: the warpgroup's named barrier (before: its epilogue of the tile before has read sMB;
 * after: all of sMB is written) */
template <int BN> __device__ __forceinline__ void tma_chan_stage(float *sMB, float2 mb, int bar) {
    const int lt = threadIdx.x % 128;
    wg_bar(bar);
    if (lt < BN) sMB[lt] = mb.x, sMB[BN + lt] = mb.y;
    wg_bar(bar);
}

/* XH: this consumer warpgroup's 64 rows of the stage's two fp16 boxes (row r, 128-byte rows,
 * 128-byte swizzle) -> e4m3 codes q = e4m3(fp16 x * x_inv) (float multiply, as the product's
 * loader) in the swizzled e4m3 tile sA8 that its wgmma reads. Thread: one row, one box. */
__device__ __forceinline__ void tma_quantize_rows(const unsigned char *boxes, unsigned char *sA8, int cw, float x_inv) {
    const int lt = threadIdx.x % 128, row = cw * 64 + lt / 2, box = lt % 2;
    const unsigned char *src = boxes + box * (TMA_BM * FP8_BK) + row * FP8_BK;
#pragma unroll
    for (int q = 0; q < 4; q++) { /* e4m3 chunk box * 4 + q = fp16 chunks 2q, 2q + 1 of the box */
        uint4 h[2];
        h[0] = *(const uint4 *)(src + (((2 * q) ^ (row & 7)) << 4));
        h[1] = *(const uint4 *)(src + (((2 * q + 1) ^ (row & 7)) << 4));
        const __half *x = (const __half *)h;
        float f[16];
#pragma unroll
        for (int e = 0; e < 16; e++) f[e] = __fmul_rn(__half2float(x[e]), x_inv);
        const int c8 = box * 4 + q;
        *(uint4 *)(sA8 + row * FP8_BK + ((c8 ^ (row & 7)) << 4)) =
            make_uint4(q_e4m3x4(f[0], f[1], f[2], f[3]), q_e4m3x4(f[4], f[5], f[6], f[7]),
                       q_e4m3x4(f[8], f[9], f[10], f[11]), q_e4m3x4(f[12], f[13], f[14], f[15]));
    }
}

/* One stage step, in parts: tma_issue starts the wgmma of a 128-deep K slice for HALVES 64-row
 * halves (tile rows h * 64 of tA, sums into part + h * BN / 2) as one group; after the group is
 * waited for, tma_retire adds the HALVES * BN / 2 sums to acc in fp32 (as the product kernel's
 * stage step does) and hands the stage back. W1 (one group in flight, wgmma.wait_group 1): stage
 * kb's wgmma run while stage kb - 1's sums are added, two register arrays taking turns. */
/* SW: the stage's K slice as FP8_BK / SW sub-tiles of SW-byte rows (A: TMA_BM rows each, B: BN
 * rows; 128: one, the 128-byte swizzle), each k32 step in its sub-tile at byte kk % SW of a row */
template <int BN, int HALVES = 1, int SW = FP8_BK>
__device__ __forceinline__ void tma_issue(float *part, const unsigned char *tA, const unsigned char *tB) {
    wg_fence();
    const uint64_t da0 = wg_desc_sw<SW>(tA), db0 = wg_desc_sw<SW>(tB);
#pragma unroll
    for (int kk = 0; kk < FP8_BK; kk += 32)
#pragma unroll
        for (int h = 0; h < HALVES; h++) {
            const uint64_t da = wg_desc_add(da0, (kk / SW) * TMA_BM * SW + h * 64 * SW + kk % SW),
                           db = wg_desc_add(db0, (kk / SW) * BN * SW + kk % SW);
            if (BN == 64) wgmma_n64(part + h * BN / 2, da, db, kk > 0);
            else wgmma_n128(part + h * BN / 2, da, db, kk > 0);
        }
    wg_commit();
}
template <int BN, int HALVES = 1>
__device__ __forceinline__ void tma_retire(float *acc, float *part, uint64_t *empty_bar) {
    wg_promote<HALVES * BN / 2>(acc, part);
    mbar_arrive(empty_bar);
}

/* Ping-pong consumer c (0 .. NC - 1) of tma_fp8_kernel<..., PP = true>: the CTA's tiles t = c,
 * c + NC, ... whole (both 64-row halves: two wgmma per K step), each in its own staging rows. The
 * producer fills the stages in tile order, so tile t's K slice kb is stage sequence number
 * t * KB + kb. The mainloops take turns (order barriers): tile t's starts when tile t - 1's has
 * ended. Without that, a consumer could wait on a stage's full barrier a phase early, and a parity
 * wait cannot tell that phase from the one before it (session 12: a deadlock, fp16 input at batch
 * 32). order[c] completes its j-th phase when tile c - 1 + NC j's mainloop ends (for c = 0, tile
 * NC - 1 + NC j): tile t waits for phase (t - 1) / NC. With three consumers (session 51) two tiles'
 * epilogues run beside each mainloop: the residual convs' epilogues take longer than their
 * mainloops (K 128-448). */
template <int BN, int S, bool RT, bool XH, int SW = FP8_BK, int MIX = 0, int NC = 2>
__device__ __forceinline__ void tma_pingpong(const tma_params &p, int c, unsigned char *sA, unsigned char *sB,
                                             unsigned char *sY, unsigned char *sQ, unsigned char *sR,
                                             unsigned char *sA8, float *sMB, uint64_t *full, uint64_t *empty,
                                             uint64_t *res_full, uint64_t *res_empty, uint64_t *order, bool res_tma,
                                             int KB) {
    typedef tma_smem<BN, S, RT, XH, true, NC> L;
    constexpr int REST = MIX ? MIX : SW; /* the mixed stages' sub-slice width */
    const int tiles = p.m_tiles * p.n_tiles, warp_row = uniform_warp_in_warpgroup() * 16;
    unsigned char *myY = sY + c * L::Y1, *myQ = sQ + c * L::Q1, *myA8 = sA8 + c * L::A81;
    float *myMB = sMB + c * (L::MB1 / 4);
    for (int tile = blockIdx.x + c * gridDim.x, t = c; tile < tiles; tile += NC * gridDim.x, t += NC) {
        const int m0 = (tile / p.n_tiles) * TMA_BM, n0 = (tile % p.n_tiles) * BN;
        float acc[BN], part[BN]; /* [half][BN / 2]: rows 0-63, then 64-127 */
#pragma unroll
        for (int i = 0; i < BN; i++) acc[i] = 0.0f;
        const float2 mb = tma_chan_load<BN>(p.a, n0);
        if (t >= 1) mbar_wait<tma_regs<NC>::moved>(&order[c], ((t - 1) / NC) & 1); /* the mainloop of tile t - 1 ended */
        for (int kb = 0; kb < KB; kb++) {
            const unsigned seq = (unsigned)t * KB + kb;
            const int stage = seq % S;
            mbar_wait<tma_regs<NC>::moved>(&full[stage], (seq / S) & 1u);
            const unsigned char *tA = sA + stage * L::A, *tB = sB + stage * L::B;
            if (XH) {
                wg_bar(1 + c); /* the previous stage's wgmma is done with myA8 in every warp */
                tma_quantize_rows(sA + stage * L::A, myA8, 0, p.a.x_inv);
                tma_quantize_rows(sA + stage * L::A, myA8, 1, p.a.x_inv);
                proxy_fence();
                wg_bar(1 + c);
                tA = myA8;
            }
            if (MIX && kb >= p.full_kb) tma_issue<BN, 2, REST>(part, tA, tB); /* the taps' narrow rests */
            else tma_issue<BN, 2, SW>(part, tA, tB);
            wg_wait_all();
            tma_retire<BN, 2>(acc, part, &empty[stage]);
        }
        mbar_arrive(&order[(c + 1) % NC]); /* the next consumer may start tile t + 1's mainloop */
        tma_chan_stage<BN>(myMB, mb, 1 + c);
        const unsigned char *sRes = nullptr;
        if (res_tma) { /* buffer t % CW = c: this warpgroup's own */
            mbar_wait<tma_regs<NC>::moved>(&res_full[c], (t / L::CW) & 1);
            sRes = sR + c * L::RTILE;
        }
        tma_epilogue<BN, true, 1>(p, acc, m0, n0, warp_row, myY, myQ, sRes, myMB);
        tma_epilogue<BN, true, 1>(p, acc + BN / 2, m0, n0, 64 + warp_row, myY, myQ, sRes, myMB);
        if (res_tma) mbar_arrive(&res_empty[c]);
    }
    if (p.tma_store && threadIdx.x % 32 == 0) tma_store_tail(p.a.tma_store_drain);
}

/* AB (ablation, lab timing only; the outputs are not checked): 0 the real kernel; 1 no epilogue;
 * 2 the epilogue without its global stores; 3 no wgmma; 4 no TMA loads (the producer only
 * arrives, the consumers multiply whatever the stages hold); 5 the epilogue without its channel
 * scales' load and stage (tma_chan_load, tma_chan_stage's two barriers: it reads sMB as it is;
 * session 63). Cooperative kernels only. At batch 1 the epilogue is most of what the own TMA
 * kernel loses to cuDNN (session 63's lab). Session 63's remedy, the real kernel whose warps skipped
 * the epilogue where all their rows lay past M (and a tile's channel half past c_out) and whose
 * warpgroups skipped their wgmma there (lab variant tma128x64s4x), ran 3.53 against 3.66 us on
 * 320 -> 32 and 6.86 against 6.58 on 2080 -> 192 at batch 1 in session 64: not taken, removed
 * (bench/results/fp8-layers-session64/call1). Session 64's second remedy, the direct epilogue
 * (stores from registers, channel scales from L1, no staging, no TMA store, no channel-stage
 * barriers; product variants 78-79 for one session), lost on both shapes: 3.88 against 3.61 us and
 * 7.24 against 6.56 (e4m3 output; 4.24 / 7.61 against 3.92 / 6.78 dual), its scalar scale loads (64
 * a thread and tile) and per-pair addresses adding 40% warp instructions (73.8k against 52.8k on
 * 320 -> 32, Nsight Compute), and the tuner never chose it on IRv2 or v4 at batch 1 or 32: removed
 * (bench/results/fp8-layers-session65/call1). */
enum { AB_NONE, AB_NO_EPILOGUE, AB_NO_STORES, AB_NO_MMA, AB_NO_LOADS, AB_NO_CHAN };
template <int BN, int S, bool RT, bool XH, bool PP, int AB = AB_NONE, bool W1 = false, int SW = FP8_BK, bool MO = false,
          int MIX = 0, int NC = 2>
__global__ void __launch_bounds__(tma_threads<PP, NC>(), 1) tma_fp8_kernel(const __grid_constant__ tma_params p) {
    static_assert(SW == FP8_BK || (!XH && !W1), "narrow sub-slices: e4m3 input, no lab schedules");
    static_assert(!MIX || (SW == FP8_BK && !RT && !XH && !W1 && !MO && AB == AB_NONE), "mixed stages: the plain im2col kernels");
    static_assert(MIX == 0 || MIX == 32 || MIX == 64, "the rests' sub-slices: 32 or 64 channels");
    constexpr int REST = MIX ? MIX : SW; /* the mixed stages' sub-slice width */
    static_assert(!MO || (!RT && !XH && !PP && AB == AB_NONE && !W1 && SW == FP8_BK), "sibling outputs: the plain 1x1 kernel");
    static_assert(NC == 2 || (NC == 3 && PP && !XH && BN == 64), "three consumers: the 64-wide ping-pong e4m3 kernels");
    typedef tma_smem<BN, S, RT, XH, PP, NC> L;
    extern __shared__ __align__(1024) unsigned char tma_raw[];
    unsigned char *smem = tma_raw + ((1024 - (__cvta_generic_to_shared(tma_raw) & 1023)) & 1023);
    unsigned char *sA = smem, *sB = smem + S * L::A, *sY = smem + S * L::STAGE, *sQ = sY + L::Y, *sR = sQ + L::Q;
    unsigned char *sA8 = sR + L::R;
    float *sMB = (float *)(sA8 + L::A8);
    uint64_t *full = (uint64_t *)(smem + L::BARS), *empty = full + S, *res_full = empty + S, *res_empty = res_full + L::CW;
    uint64_t *order = res_empty + L::CW; /* ping-pong: consumer c may start a mainloop once order[c] says so */
    const bool res_tma = RT && p.res_tma;
    const int wg = uniform_warpgroup(), tiles = p.m_tiles * p.n_tiles, KB = p.KB;
    const bool early = !p.a.tma_early_off;
    if (threadIdx.x == 0) {
        if (early) { /* the descriptors' fetch overlaps the barriers' setup */
            prefetch_tensormap(&p.ta);
            prefetch_tensormap(&p.tb);
        }
        for (int s = 0; s < S; s++) {
            mbar_init(&full[s], 1);       /* the producer's arrive + the TMA bytes */
            mbar_init(&empty[s], PP ? 128 : 256); /* every thread of the consumer(s) of the stage */
        }
        for (int r = 0; r < L::CW; r++) {
            mbar_init(&res_full[r], 1);
            mbar_init(&res_empty[r], PP ? 128 : 256);
        }
        for (int r = 0; r < L::CW; r++) mbar_init(&order[r], 128);
        asm volatile("fence.mbarrier_init.release.cluster;\n" ::: "memory");
    }
    __syncthreads();
    /* Launched with PDL, the kernel before may still run until griddep_wait: what does not depend on
     * it goes first (session 60's stage_lab: a dependent layer costs 1.31 us with PDL, its weights
     * loaded before the wait, against 1.87 without; session 61: the own kernels' IRv2 graph at batch
     * 1 0.847 -> 0.814 ms). The producer has fetched A's and B's tensor maps and issues the weights
     * (B) of its first tile's first early_kb K slices, which no kernel writes (im2col: along the same
     * tap walk as its loop; mixed stages: among the whole-chunk ones alone); its loop then loads only
     * their A. Since session 61 also without PDL (griddep_wait returns at once), where only the order
     * of the same loads changes, so that the tuner times the kernels as the graph runs them (that
     * path's cost or gain without PDL not yet timed). */
    int early_kb = 0;
    if (threadIdx.x == 0 && early && AB != AB_NO_LOADS && (int)blockIdx.x < tiles) {
        const int n0 = ((int)blockIdx.x % p.n_tiles) * BN;
        early_kb = KB < S ? KB : S;
        if constexpr (MIX != 0) early_kb = early_kb < p.full_kb ? early_kb : p.full_kb;
        tap_walk walk = {0, 0, 0, 0, 0};
        for (int kb = 0; kb < early_kb; kb++) {
            mbar_arrive_expect_tx(&full[kb], L::STAGE); /* A's bytes too: the stage completes with them */
            if (p.im2col) {
#pragma unroll
                for (int j = 0; j < FP8_BK / SW; j++) {
                    tap_load_b(sB + kb * L::B + j * BN * SW, &p.tb, walk, 0, p.subs, p.K, n0, &full[kb]);
                    walk.next(SW, p.chunks * SW, p.subs, p.a.kw, p.a.c_in);
                }
            } else {
                tma_load_2d(sB + kb * L::B, &p.tb, kb * FP8_BK, n0, &full[kb]);
            }
        }
    }
    griddep_wait(); /* the barriers are set up; every other global access follows */
    griddep_launch_dependents();

    if (wg == 0) { /* producer */
        if constexpr (tma_regs<NC>::moved) regs_dec<tma_regs<NC>::producer>();
        if (threadIdx.x == 0) {
            int stage = 0;
            unsigned phase = 0;
            for (int tile = blockIdx.x, t = 0; tile < tiles; tile += gridDim.x, t++) {
                const int m0 = (tile / p.n_tiles) * TMA_BM, n0 = (tile % p.n_tiles) * BN;
                int iw = 0, ih = 0, img = 0; /* im2col: the tile's first output pixel's window corner */
                if (p.im2col) {
                    const int hw = p.a.ho * p.a.wo, r = m0 % hw;
                    img = m0 / hw, ih = (r / p.a.wo) * p.a.sh - p.a.ph, iw = (r % p.a.wo) * p.a.sw - p.a.pw;
                }
                /* im2col: sub-slice sub of SW channels is tap sub / chunks (at kx, ky of the window),
                 * its channels from (sub % chunks) * SW, B's columns from tap * c_in + c0 (past c_in:
                 * the next tap's, times zeros from A). Counted up sub-slice by sub-slice: runtime
                 * divisions on this one thread held back the spatial kernels (session 22: two more
                 * per slice cost the 1x7 conv 10.2 -> 11.9 us at batch 32). Sub-slices past the last
                 * (narrow variants: a stage's last ones) load its tap again against weight columns
                 * past K, which arrive as zeros. */
                tap_walk walk = {0, 0, 0, 0, 0};
                const int chunk_end = p.chunks * SW;
                /* MIX: the same walk over the taps' narrow rests (channels from tail_c0) */
                tap_walk tail = {0, 0, 0, 0, 0};
                const int tail_end = p.tail_chunks * REST;
                for (int kb = 0; kb < KB; kb++) {
                    mbar_wait<tma_regs<NC>::moved>(&empty[stage], phase ^ 1u);
                    if constexpr (AB == AB_NO_LOADS) {
                        mbar_arrive(&full[stage]);
                    } else {
                        const bool b_early = t == 0 && kb < early_kb; /* B issued before griddep_wait */
                        if (!b_early) mbar_arrive_expect_tx(&full[stage], L::STAGE); /* out-of-range rows arrive as zeros, full size */
                        if (MIX && kb >= p.full_kb) {
#pragma unroll
                            for (int j = 0; j < FP8_BK / REST; j++) {
                                tap_load(sA + stage * L::A + j * TMA_BM * REST, sB + stage * L::B + j * BN * REST,
                                         &p.ta_rest, &p.tb_rest, tail, p.tail_c0, p.tail_subs, p.K, iw, ih, img, n0,
                                         &full[stage]);
                                tail.next(REST, tail_end, p.tail_subs, p.a.kw, p.a.c_in);
                            }
                        } else if (p.im2col) {
#pragma unroll
                            for (int j = 0; j < FP8_BK / SW; j++) {
                                tap_load_a(sA + stage * L::A + j * TMA_BM * SW, &p.ta, walk, 0, iw, ih, img, &full[stage]);
                                if (!b_early)
                                    tap_load_b(sB + stage * L::B + j * BN * SW, &p.tb, walk, 0, p.subs, p.K, n0, &full[stage]);
                                walk.next(SW, chunk_end, p.subs, p.a.kw, p.a.c_in);
                            }
                        } else {
                            tma_load_2d(sA + stage * L::A, &p.ta, kb * FP8_BK, m0, &full[stage]);
                            if (XH) /* the second 64 fp16 of this 128-deep K slice */
                                tma_load_2d(sA + stage * L::A + TMA_BM * FP8_BK, &p.ta, kb * FP8_BK + 64, m0,
                                            &full[stage]);
                            if (!b_early) tma_load_2d(sB + stage * L::B, &p.tb, kb * FP8_BK, n0, &full[stage]);
                        }
                    }
                    if (++stage == S) stage = 0, phase ^= 1u;
                }
                /* residual tile t into buffer t % 2, once the epilogue of t - 2 is done; after the
                 * tile's K slices, which the mainloop needs first. Loaded before them, as until
                 * session 30, the ping-pong kernel's producer waited here for the epilogue of the
                 * same consumer's tile before, holding back the next tile's A and B: Nsight Compute
                 * put 45% of the producer's and 13% of the consumers' stall samples on that chain
                 * (Block17 up-projection, batch 32). The epilogue waits for the residual anyway. */
                if (res_tma) {
                    const int rb = t % L::CW;
                    mbar_wait<tma_regs<NC>::moved>(&res_empty[rb], ((t / L::CW) & 1) ^ 1u);
                    mbar_arrive_expect_tx(&res_full[rb], L::RTILE);
                    tma_load_2d(sR + rb * L::RTILE, &p.tr, n0, m0, &res_full[rb]);
                }
            }
        }
        return; /* nothing below synchronizes the whole block */
    }
    if constexpr (PP) { /* ping-pong: consumer warpgroup c computes whole tiles t = c, c + 2, ... (CTA-local
               * order), so one warpgroup's epilogue overlaps the other's wgmma */
        if constexpr (tma_regs<NC>::moved) regs_inc<tma_regs<NC>::consumer>();
        tma_pingpong<BN, S, RT, XH, SW, MIX, NC>(p, wg - 1, sA, sB, sY, sQ, sR, sA8, sMB, full, empty, res_full, res_empty,
                                                 order, res_tma, KB);
        return;
    }

    const int cw = wg - 1, wrow = cw * 64 + uniform_warp_in_warpgroup() * 16;
    int stage = 0;
    unsigned phase = 0;
    for (int tile = blockIdx.x, t = 0; tile < tiles; tile += gridDim.x, t++) {
        const int m0 = (tile / p.n_tiles) * TMA_BM, n0 = (tile % p.n_tiles) * BN;
        float acc[BN / 2], part[BN / 2];
#pragma unroll
        for (int i = 0; i < BN / 2; i++) acc[i] = 0.0f;
        const float2 mb = tma_chan_load<BN>(p.a, n0);
        if constexpr (W1) {
            static_assert(!XH && AB == AB_NONE, "W1: e4m3 input, no ablation");
            float part2[BN / 2];
            int prev = -1;
            for (int kb = 0; kb < KB; kb++) {
                mbar_wait(&full[stage], phase);
                const unsigned char *tA = sA + stage * L::A + cw * 64 * FP8_BK, *tB = sB + stage * L::B;
                if (kb & 1) { /* odd slices into part2, even ones into part */
                    tma_issue<BN>(part2, tA, tB);
                    wg_wait_1();
                    tma_retire<BN>(acc, part, &empty[prev]);
                } else {
                    tma_issue<BN>(part, tA, tB);
                    if (prev >= 0) {
                        wg_wait_1();
                        tma_retire<BN>(acc, part2, &empty[prev]);
                    }
                }
                prev = stage;
                if (++stage == S) stage = 0, phase ^= 1u;
            }
            wg_wait_all();
            if ((KB - 1) & 1) tma_retire<BN>(acc, part2, &empty[prev]);
            else tma_retire<BN>(acc, part, &empty[prev]);
        } else
        for (int kb = 0; kb < KB; kb++) {
            mbar_wait(&full[stage], phase);
            const unsigned char *tA = sA + stage * L::A + cw * 64 * SW, *tB = sB + stage * L::B;
            if (XH) {
                wg_bar(1 + cw); /* the previous stage's wgmma is done with sA8 in every warp */
                tma_quantize_rows(sA + stage * L::A, sA8, cw, p.a.x_inv);
                proxy_fence();  /* the e4m3 stores, to the async proxy wgmma reads through */
                wg_bar(1 + cw);
                tA = sA8 + cw * 64 * FP8_BK;
            }
            if constexpr (AB == AB_NO_MMA) {
                wg_fence();
                for (int i = 0; i < BN / 2; i++) part[i] = 0.0f;
                wg_commit();
            } else if (MIX && kb >= p.full_kb) { /* the taps' narrow rests: this warpgroup's rows of REST bytes */
                tma_issue<BN, 1, REST>(part, sA + stage * L::A + cw * 64 * REST, tB);
            } else {
                tma_issue<BN, 1, SW>(part, tA, tB);
            }
            wg_wait_all();
            tma_retire<BN>(acc, part, &empty[stage]);
            if (++stage == S) stage = 0, phase ^= 1u;
        }
        const unsigned char *sRes = nullptr;
        if (res_tma) {
            mbar_wait(&res_full[t & 1], (t >> 1) & 1);
            sRes = sR + (t & 1) * L::RTILE;
        }
        if constexpr (AB != AB_NO_EPILOGUE) {
            float *myMB = sMB + cw * (L::MB1 / 4);
            if constexpr (AB != AB_NO_CHAN) tma_chan_stage<BN>(myMB, mb, 1 + cw);
            tma_epilogue<BN, AB != AB_NO_STORES, 0, MO>(p, acc, m0, n0, wrow, sY, sQ, sRes, myMB);
        }
        if (res_tma) mbar_arrive(&res_empty[t & 1]);
    }
    if (p.tma_store && threadIdx.x % 32 == 0) tma_store_tail(p.a.tma_store_drain);
}

typedef CUresult (*encode_tiled_fn)(CUtensorMap *, CUtensorMapDataType, cuuint32_t, void *, const cuuint64_t *,
                                    const cuuint64_t *, const cuuint32_t *, const cuuint32_t *, CUtensorMapInterleave,
                                    CUtensorMapSwizzle, CUtensorMapL2promotion, CUtensorMapFloatOOBfill);
typedef CUresult (*encode_im2col_fn)(CUtensorMap *, CUtensorMapDataType, cuuint32_t, void *, const cuuint64_t *,
                                     const cuuint64_t *, const int *, const int *, cuuint32_t, cuuint32_t,
                                     const cuuint32_t *, CUtensorMapInterleave, CUtensorMapSwizzle,
                                     CUtensorMapL2promotion, CUtensorMapFloatOOBfill);

/* A driver entry point (a tensor-map encoder), through the runtime (no link to libcuda, which
 * machines without a GPU lack); NULL where the driver has none. No global state: the backend
 * looks the encoders up once per context (i8_cuda_tma_driver), the labs at each launch. */
static void *driver_fn(const char *name) {
    cudaDriverEntryPointQueryResult q;
    void *fn = NULL;
    if (cudaGetDriverEntryPointByVersion(name, &fn, 12000, cudaEnableDefault, &q) != cudaSuccess ||
        q != cudaDriverEntryPointSuccess)
        return NULL;
    return fn;
}

/* TMA's swizzle mode for rows of span bytes (128, 64 or 32), the layout wg_desc_sw<span> reads */
static CUtensorMapSwizzle swizzle_of(int span) {
    return span == 128 ? CU_TENSOR_MAP_SWIZZLE_128B : span == 64 ? CU_TENSOR_MAP_SWIZZLE_64B : CU_TENSOR_MAP_SWIZZLE_32B;
}

/* 2-D tensor map of 1- or 2-byte elements (e4m3 codes or fp16): rows x cols, row stride `ld`
 * bytes, boxes of box_rows rows x span bytes (128 unless said), swizzled over span bytes; rows
 * and columns past the tensor arrive as zeros */
static int encode_2d(encode_tiled_fn encode, CUtensorMap *map, const void *base, int elem_bytes, uint64_t rows,
                     uint64_t cols, uint64_t ld, uint32_t box_rows, int span = 128) {
    cuuint64_t dims[2] = {cols, rows}, strides[1] = {ld};
    cuuint32_t box[2] = {(cuuint32_t)(span / elem_bytes), box_rows}, estr[2] = {1, 1};
    CUresult r = encode(map, elem_bytes == 2 ? CU_TENSOR_MAP_DATA_TYPE_FLOAT16 : CU_TENSOR_MAP_DATA_TYPE_UINT8, 2,
                        (void *)base, dims, strides, box, estr,
                        CU_TENSOR_MAP_INTERLEAVE_NONE, swizzle_of(span), CU_TENSOR_MAP_L2_PROMOTION_L2_256B,
                        CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
    return r == CUDA_SUCCESS ? 0 : (int)cudaErrorInvalidValue;
}

/* The e4m3 input [n][h][w][c_in] (pixel stride x_ld bytes) as an im2col map for conv a: boxes of
 * 128 output pixels x span channels (128, or the narrow sub-slices' 32 or 64; swizzled over span bytes,
 * as the tiled B boxes), pixels walked with the conv's strides inside the box of filter-window
 * corners, from -pad to the last corner. */
static int encode_im2col(encode_im2col_fn encode, CUtensorMap *map, const i8_cuda_fp8_conv_args *a, int span) {
    if (!encode) return (int)cudaErrorNotSupported;
    const uint64_t ld = (uint64_t)a->x_ld;
    cuuint64_t dims[4] = {(cuuint64_t)a->c_in, (cuuint64_t)a->w, (cuuint64_t)a->h, (cuuint64_t)a->n};
    cuuint64_t strides[3] = {ld, ld * (uint64_t)a->w, ld * (uint64_t)a->w * (uint64_t)a->h};
    int lower[2] = {-a->pw, -a->ph}, upper[2] = {a->pw - (a->kw - 1), a->ph - (a->kh - 1)}; /* {W, H} */
    cuuint32_t estr[4] = {1, (cuuint32_t)a->sw, (cuuint32_t)a->sh, 1};
    CUresult r = encode(map, CU_TENSOR_MAP_DATA_TYPE_UINT8, 4, (void *)a->x, dims, strides, lower, upper, span, TMA_BM,
                        estr, CU_TENSOR_MAP_INTERLEAVE_NONE, swizzle_of(span),
                        CU_TENSOR_MAP_L2_PROMOTION_L2_256B, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
    return r == CUDA_SUCCESS ? 0 : (int)cudaErrorInvalidValue;
}

static bool is_pointwise(const i8_cuda_fp8_conv_args *a) {
    return a->kh == 1 && a->kw == 1 && a->sh == 1 && a->sw == 1 && !a->ph && !a->pw;
}

/* a runs on the TMA kernels (fp16 input: the XH ones; else e4m3 input): pointwise (im2col: the
 * other convs, e4m3 input, strides up to 8 and windows within the map's corner range), aligned
 * rows and outputs (TMA needs 16-byte row strides and bases) */
static int tma_fits(const i8_cuda_fp8_conv_args *a, bool xh, bool im2col = false) {
    const bool shape = im2col ? !xh && !is_pointwise(a) && a->sh >= 1 && a->sh <= 8 && a->sw >= 1 && a->sw <= 8 &&
                                    a->ph >= 0 && a->pw >= 0 && a->ph <= 64 && a->pw <= 64 && a->kh <= 64 && a->kw <= 64
                              : is_pointwise(a);
    return shape && (xh ? !a->x_fp8 : a->x_fp8) && a->c_in % 16 == 0 && a->x_ld % 16 == 0 && ((uintptr_t)a->x & 15) == 0 && ((uintptr_t)a->wq & 15) == 0 &&
           a->c_out % 8 == 0 && a->y_ld % 8 == 0 && (!a->y || ((uintptr_t)a->y & 15) == 0) &&
           (!a->yq || ((uintptr_t)a->yq & 7) == 0) && ((uintptr_t)a->mult & 3) == 0 && ((uintptr_t)a->bias & 3) == 0 &&
           (a->res_mode == I8_FP8_RES_NONE ||
            (a->res_ld % 8 == 0 && ((uintptr_t)a->res & (a->res_mode == I8_FP8_RES_Q ? 1 : 3)) == 0));
}

/* The outputs of a (which fits tma_fits) may go out as TMA stores: 16-byte bases and row strides,
 * and rows whose bytes are a whole number of 16-byte chunks. A TMA store writes whole 16-byte chunks
 * of global memory: past an inner extent of 40 e4m3 bytes it also writes bytes 40-47, which in a
 * concat belong to the next branch's slice (session 32: test_fp8_tma_store_paths lost a race with
 * that branch there; triton-lang/triton#11583 describes the same). fp16 rows are whole chunks
 * wherever tma_fits holds (c_out % 8 == 0). */
extern "C" int i8_cuda_conv_fp8_tma_store_fits(const i8_cuda_fp8_conv_args *a) {
    if (a->tma_store_off) return 0;
    const bool y_ok = !a->y || (((uintptr_t)a->y & 15) == 0 && (a->y_ld * 2) % 16 == 0 && (a->c_out * 2) % 16 == 0);
    const bool q_ok = !a->yq || (((uintptr_t)a->yq & 15) == 0 && a->y_ld % 16 == 0 && a->c_out % 16 == 0);
    return y_ok && q_ok;
}

/* the mixed variants: a tap holds whole 128-channel chunks and a rest of `rest`-channel sub-slices
 * (32: c_in 160, 192, 224, 288, ...; 64: 192, 320, 448, ...); elsewhere they would run as the
 * plain 128-channel kernels do */
static bool tma_mixed_fits(const i8_cuda_fp8_conv_args *a, int rest) {
    return a->c_in > FP8_BK && a->c_in % rest == 0 && a->c_in % FP8_BK != 0;
}

/* the kernel's dynamic shared memory allowance (once per process and device, not during capture) */
template <int BN, int S, bool RT, bool XH, bool PP = false, int AB = AB_NONE, bool W1 = false, int SW = FP8_BK, bool MO = false,
          int MIX = 0, int NC = 2>
static int tma_set_smem(void) {
    return (int)cudaFuncSetAttribute(tma_fp8_kernel<BN, S, RT, XH, PP, AB, W1, SW, MO, MIX, NC>,
                                     cudaFuncAttributeMaxDynamicSharedMemorySize, tma_smem<BN, S, RT, XH, PP, NC>::BYTES);
}

/* one persistent block per SM (the kernel's shared memory allows no second), at most one per
 * tile; a fits tma_fits (i8_cuda_conv_fp8 and the lab check it first). Up to 16 blocks per SM,
 * freeing SMs early for concurrent branches, ran IRv2's batch-32 FP8 graph slower (5.05 against
 * 4.19 ms, session 18). */
template <int BN, int S, bool RT, bool XH, bool PP = false, int AB = AB_NONE, bool W1 = false, int SW = FP8_BK, bool MO = false,
          int MIX = 0, int NC = 2>
static int launch_tma(const i8_cuda_fp8_conv_args *a, cudaStream_t s, bool im2col = false,
                      const i8_cuda_fp8_outs *outs = nullptr) {
    typedef tma_smem<BN, S, RT, XH, PP, NC> L;
    int sm_count = a->sm_count;
    void *tiled = a->tma_encode_tiled, *im2col_fn = a->tma_encode_im2col;
    if (sm_count < 1 && (i8_cuda_tma_driver(&sm_count, &tiled, &im2col_fn) != 0 || sm_count < 1))
        return (int)cudaErrorInvalidConfiguration; /* the labs look the driver facts up at each launch */
    encode_tiled_fn encode = (encode_tiled_fn)tiled;
    if (!encode) return (int)cudaErrorNotSupported;
    tma_params p;
    memset(&p, 0, sizeof p);
    p.a = *a;
    p.im2col = im2col;
    p.M = a->n * a->ho * a->wo, p.K = a->kh * a->kw * a->c_in;
    p.chunks = MIX ? a->c_in / FP8_BK : (a->c_in + SW - 1) / SW;
    p.subs = a->kh * a->kw * p.chunks;
    p.KB = im2col ? (p.subs + FP8_BK / SW - 1) / (FP8_BK / SW) : (p.K + FP8_BK - 1) / FP8_BK;
    if (!im2col && SW != FP8_BK) return (int)cudaErrorInvalidValue; /* narrow sub-slices: im2col only */
    if constexpr (MIX != 0) { /* whole chunks first, then the rests */
        if (!im2col || !tma_mixed_fits(a, MIX)) return (int)cudaErrorInvalidValue;
        p.full_kb = p.KB, p.tail_c0 = p.chunks * FP8_BK, p.tail_chunks = (a->c_in - p.tail_c0) / MIX;
        p.tail_subs = a->kh * a->kw * p.tail_chunks;
        p.KB += (p.tail_subs + FP8_BK / MIX - 1) / (FP8_BK / MIX);
    }
    p.m_tiles = (p.M + TMA_BM - 1) / TMA_BM, p.n_tiles = (a->c_out + BN - 1) / BN;
    int rc = im2col ? encode_im2col((encode_im2col_fn)im2col_fn, &p.ta, a, SW)
                    : encode_2d(encode, &p.ta, a->x, XH ? 2 : 1, (uint64_t)p.M, (uint64_t)p.K,
                                (uint64_t)a->x_ld * (XH ? 2 : 1), TMA_BM);
    if (!rc) rc = encode_2d(encode, &p.tb, a->wq, 1, (uint64_t)a->c_out, (uint64_t)p.K, (uint64_t)p.K, BN, SW);
    if (!rc && MIX) rc = encode_im2col((encode_im2col_fn)im2col_fn, &p.ta_rest, a, MIX);
    if (!rc && MIX) rc = encode_2d(encode, &p.tb_rest, a->wq, 1, (uint64_t)a->c_out, (uint64_t)p.K, (uint64_t)p.K, BN, MIX);
    p.res_tma = RT && (a->res_mode == I8_FP8_RES_F16 || a->res_mode == I8_FP8_RES_F16_FQ) && ((uintptr_t)a->res & 15) == 0;
    if (!rc && p.res_tma)
        rc = encode_2d(encode, &p.tr, a->res, 2, (uint64_t)p.M, (uint64_t)a->c_out, (uint64_t)a->res_ld * 2, TMA_BM);
    if (rc) return rc;
    p.tma_store = !MO && i8_cuda_conv_fp8_tma_store_fits(a); /* else, or where a map does not encode: the stores */
    if (MO) p.outs = *outs;
    if (p.tma_store && a->y)
        p.tma_store = !encode_2d(encode, &p.ty, a->y, 2, (uint64_t)p.M, (uint64_t)a->c_out, (uint64_t)a->y_ld * 2, 16);
    if (p.tma_store && a->yq)
        p.tma_store = !encode_2d(encode, &p.tq, a->yq, 1, (uint64_t)p.M, (uint64_t)a->c_out, (uint64_t)a->y_ld, 16, BN);
    const int tiles = p.m_tiles * p.n_tiles, grid = tiles < sm_count ? tiles : sm_count;
    void *args[] = {&p};
    return (int)launch_pdl((const void *)tma_fp8_kernel<BN, S, RT, XH, PP, AB, W1, SW, MO, MIX, NC>, dim3(grid),
                           dim3(tma_threads<PP, NC>()), L::BYTES, s, a->pdl, args);
}

/* the sibling-output table of a (i8_cuda_fp8_outs) against the conv: ranges in order, on whole
 * 8-channel chunks, covering c_out; aligned outputs, at least one per range */
extern "C" int i8_cuda_conv_fp8_tma_multi_fits(const i8_cuda_fp8_conv_args *a, const i8_cuda_fp8_outs *o) {
    if (!a || !o || o->n < 1 || o->n > I8_FP8_MAX_OUTS || o->c0[0] != 0 || o->c0[o->n] != a->c_out || !tma_fits(a, false))
        return 0;
    for (int k = 0; k < o->n; k++) {
        const int w = o->c0[k + 1] - o->c0[k];
        if (w < 8 || w % 8 || o->ld[k] % 8 || o->ld[k] < w || (!o->y[k] && !o->yq[k]) || !(o->inv[k] > 0.0f) ||
            ((uintptr_t)o->y[k] & 15) || ((uintptr_t)o->yq[k] & 7) || (o->y[k] && !a->y) || (o->yq[k] && !a->yq))
            return 0;
    }
    return 1;
}

extern "C" int i8_cuda_conv_fp8_tma_multi(const i8_cuda_fp8_conv_args *a, const i8_cuda_fp8_outs *o, int wide,
                                          void *stream) {
    if (!i8_cuda_conv_fp8_tma_multi_fits(a, o)) return (int)cudaErrorInvalidValue;
    cudaStream_t s = (cudaStream_t)stream;
    return wide ? launch_tma<128, 3, false, false, false, AB_NONE, false, FP8_BK, true>(a, s, false, o)
                : launch_tma<64, 4, false, false, false, AB_NONE, false, FP8_BK, true>(a, s, false, o);
}

/* The product's TMA variants, in variant order after cuda_fp8.cu's families (stored tactics name
 * them by number: only ever append). Columns: name, BN, stages, RT, XH, PP, im2col (the spatial
 * convs: same kernels, the producer loads A in im2col mode), SW (bytes of K per sub-slice: 128,
 * or 32 for small c_in, where a 128-channel chunk per tap is mostly zeros: at c_in 32 a stage
 * holds four taps instead of one), MIX (mixed-width stages: whole 128-channel chunks of each tap,
 * then the rest of every tap in MIX-channel sub-slices (0: none; 32, four to a stage; 64, two);
 * IRv2's Block17 7x1 over 160 channels takes 7 + 2 stages where 128-channel chunks take 14, half of
 * them three quarters zeros; session 42's all-32-channel form, 9 stages of narrow loads, was no
 * faster), NC (ping-pong consumer warpgroups: 3 lets two tiles' epilogues run beside each
 * mainloop, for the convs whose epilogue outlasts their short K: the residual up-projections). The rows after the first
 * I8_FP8_TMA_VARIANTS are the variants from I8_FP8_TMA_LATE_FIRST on. The 64-byte sub-slices
 * (session 56, c64; c_in up to 64, meant for 33-64: v4's and v3's 3x3 64 -> 96, IRv2's Block35 3x3
 * 48 -> 64): one 64-channel sub-slice a tap, two taps a stage, where a 128-channel chunk is half
 * zeros or more and 32-byte boxes load slowly; in the forms of 54, 56 (ping-pong) and 55 (BN 128,
 * v4's spatial convs' winner at batch 32). The eight-stage kernels (session 61, s8; 1x1 and im2col):
 * at batch 1 a conv has a tile or two per block, so its K slices stream through the stages once and
 * each round of stages waits out a load's latency; IRv2's 1x1 2080 -> 192 at 8x8 (17 slices, three
 * blocks) takes five rounds on four stages, three on eight (218 KB of shared memory with BN 64).
 * The mixed kernels with 64-channel rests (session 57,
 * m64; c_in 192, 320, 448, ...: v4's 1x7 / 7x1 over 192 and 3x3 over 320, v3's 1x7 / 7x1 over 192,
 * 3x3 over 448): whole chunks, then the taps' rests in the 64-byte boxes that made 70-72 fast,
 * where the 32-channel rests of 63-65 and 69 lost to 55's zero-padded chunks. Session 64's
 * 78-79 (the direct epilogue) lost and were removed in session 65 (see AB below): the next row
 * added takes number 78. */
#define TMA_VARIANTS(X) \
    X("tma128x64s4", 64, 4, false, false, false, false, 128, 0, 2) \
    X("tma128x128s3", 128, 3, false, false, false, false, 128, 0, 2) \
    X("tma128x64s4r", 64, 4, true, false, false, false, 128, 0, 2) \
    X("tma128x64s3h", 64, 3, false, true, false, false, 128, 0, 2) \
    X("tma128x64s4p", 64, 4, false, false, true, false, 128, 0, 2) \
    X("tma128x64s4pr", 64, 4, true, false, true, false, 128, 0, 2) \
    X("tma128x64s4c", 64, 4, false, false, false, true, 128, 0, 2) \
    X("tma128x128s3c", 128, 3, false, false, false, true, 128, 0, 2) \
    X("tma128x64s4pc", 64, 4, false, false, true, true, 128, 0, 2) \
    X("tma128x64s4c32", 64, 4, false, false, false, true, 32, 0, 2) \
    X("tma128x64s4pcm", 64, 4, false, false, true, true, 128, 32, 2) \
    X("tma128x64s4cm", 64, 4, false, false, false, true, 128, 32, 2) \
    X("tma128x128s3cm", 128, 3, false, false, false, true, 128, 32, 2) \
    X("tma128x64s4p3", 64, 4, false, false, true, false, 128, 0, 3) \
    X("tma128x64s4p3r", 64, 4, true, false, true, false, 128, 0, 3) \
    X("tma128x64s4p3c", 64, 4, false, false, true, true, 128, 0, 3) \
    X("tma128x64s4p3cm", 64, 4, false, false, true, true, 128, 32, 3) \
    X("tma128x64s4c64", 64, 4, false, false, false, true, 64, 0, 2) \
    X("tma128x64s4pc64", 64, 4, false, false, true, true, 64, 0, 2) \
    X("tma128x128s3c64", 128, 3, false, false, false, true, 64, 0, 2) \
    X("tma128x64s4cm64", 64, 4, false, false, false, true, 128, 64, 2) \
    X("tma128x128s3cm64", 128, 3, false, false, false, true, 128, 64, 2) \
    X("tma128x64s4pcm64", 64, 4, false, false, true, true, 128, 64, 2) \
    X("tma128x64s8", 64, 8, false, false, false, false, 128, 0, 2) \
    X("tma128x64s8c", 64, 8, false, false, false, true, 128, 0, 2)

#define TMA_COUNT(name, bn, st, rt, xh, pp, ic, sw, mix, nc) +1
/* the halo variants are numbered after the first I8_FP8_TMA_VARIANTS of these (cuda_fp8.h) */
static_assert(0 TMA_VARIANTS(TMA_COUNT) == I8_FP8_TMA_VARIANTS + I8_FP8_TMA_LATE_VARIANTS,
              "I8_FP8_TMA_VARIANTS and I8_FP8_TMA_LATE_VARIANTS count the TMA variants");
extern "C" int i8_cuda_conv_fp8_tma_variants(void) { return 0 TMA_VARIANTS(TMA_COUNT); }
#undef TMA_COUNT

extern "C" const char *i8_cuda_conv_fp8_tma_name(int v) {
    static const char *const names[] = {
#define TMA_NAME(name, bn, st, rt, xh, pp, ic, sw, mix, nc) name,
        TMA_VARIANTS(TMA_NAME)
#undef TMA_NAME
    };
    return v >= 0 && v < i8_cuda_conv_fp8_tma_variants() ? names[v] : "?";
}

extern "C" int i8_cuda_conv_fp8_tma_fits(const i8_cuda_fp8_conv_args *a, int v) {
    int i = 0;
#define TMA_FITS(name, bn, st, rt, xh, pp, ic, sw, mix, nc) \
    if (v == i++) return tma_fits(a, xh, ic) && (sw == FP8_BK || a->c_in <= 64) && (!mix || tma_mixed_fits(a, mix)); /* narrow: small c_in only */
    TMA_VARIANTS(TMA_FITS)
#undef TMA_FITS
    return 0;
}

/* The host-side columns of a product variant's row in the table (all 0 for a variant that is no
 * TMA kernel), which the queries below read. */
typedef struct tma_row { int ic, sw, mix; } tma_row;
static tma_row tma_row_of(int variant) {
    const int t = i8_cuda_conv_fp8_tma_index(variant);
    int i = 0;
#define TMA_ROW(name, bn, st, rt, xh, pp, ic, sw, mix, nc) \
    if (t == i++) return tma_row{ic, sw, mix};
    TMA_VARIANTS(TMA_ROW)
#undef TMA_ROW
    return tma_row{0, 0, 0};
}

extern "C" int i8_cuda_conv_fp8_im2col_span(int variant) {
    const tma_row r = tma_row_of(variant);
    return r.ic ? r.sw : 0;
}

extern "C" int i8_cuda_conv_fp8_mixed_rest(int variant) { return tma_row_of(variant).mix; }

extern "C" int i8_cuda_conv_fp8_is_im2col(int variant) { return i8_cuda_conv_fp8_im2col_span(variant) > 0; }

extern "C" int i8_cuda_tma_driver(int *sm_count, void **encode_tiled, void **encode_im2col) {
    const cudaError_t e = i8_cuda_sm_count(sm_count); /* the backend has it from prepare */
    *encode_tiled = driver_fn("cuTensorMapEncodeTiled");
    *encode_im2col = driver_fn("cuTensorMapEncodeIm2col");
    return (int)e;
}

extern "C" int i8_cuda_conv_fp8_tma_setup(void) {
    int rc = 0;
#define TMA_SET(name, bn, st, rt, xh, pp, ic, sw, mix, nc) \
    if (!rc && (!ic || sw != FP8_BK || mix)) rc = tma_set_smem<bn, st, rt, xh, pp, AB_NONE, false, sw, false, mix, nc>(); \
    /* the plain 128-byte im2col variants: the pointwise ones' kernels */
    TMA_VARIANTS(TMA_SET)
#undef TMA_SET
    if (!rc) rc = tma_set_smem<64, 4, false, false, false, AB_NONE, false, FP8_BK, true>(); /* i8_cuda_conv_fp8_tma_multi */
    if (!rc) rc = tma_set_smem<128, 3, false, false, false, AB_NONE, false, FP8_BK, true>();
    return rc;
}

extern "C" int i8_cuda_conv_fp8_tma(const i8_cuda_fp8_conv_args *a, int v, void *stream) {
    cudaStream_t s = (cudaStream_t)stream;
    int i = 0;
#define TMA_LAUNCH(name, bn, st, rt, xh, pp, ic, sw, mix, nc) \
    if (v == i++) return launch_tma<bn, st, rt, xh, pp, AB_NONE, false, sw, false, mix, nc>(a, s, ic);
    TMA_VARIANTS(TMA_LAUNCH)
#undef TMA_LAUNCH
    return (int)cudaErrorInvalidValue;
}
