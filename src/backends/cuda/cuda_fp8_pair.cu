/* FP8 pair kernels (contract in cuda_fp8.h, i8_cuda_conv_fp8_pair): a branch's reduction 1x1 and
 * the one spatial conv that reads its output, run as one kernel, so that the batch-1 chain of
 * dependent kernels loses a launch and the intermediate's round trip through memory on every such
 * pair (Block17's 1088 -> 128 -> 1x7, Block8's 2080 -> 192 -> 1x3, Block35's 320 -> 32 -> 3x3;
 * docs/performance.md, "Session 53" models the gain, "Session 54" measures it).
 *
 * The image is cut into lines (rows; columns for a k x 1 consumer) and one cluster of CL blocks
 * (CL 1 to 8) takes a band of `band` output lines of one image. Block j of a cluster computes its
 * share of the 1x1's channels for the band's lines and the consumer's halo lines above and below
 * (the input of those lines, whole K, and that share of the weights in shared memory, the input
 * arriving in four groups while the first groups are summed), applies the 1x1's epilogue and e4m3
 * rounding, and stores its channels into every cluster block's copy of the intermediate window
 * (distributed shared memory; lines outside the image and the padding columns are zeros, as the
 * consumer's padding is). After a cluster barrier each block computes its share of the consumer's
 * channels for the band from the whole window: a pixel's K (taps x channels) is read at tap
 * (ty, tx) from window line r + ty, column x + tx. mma.sync m16n8k32 e4m3 with fp32 sums: each
 * warp takes one n8 tile and a share of K over all the pixels' m16 tiles, the shares added in
 * shared memory. The intermediate is rounded as the 1x1's own e4m3 output would be (the same
 * epilogue arithmetic), so the pair gives what the two kernels give, up to the order of fp32 sums. */
#include <cuda_fp16.h>
#include <cuda_runtime.h>
#include <stdint.h>
#ifdef I8_PAIR_LAB_PHASES
#include <stdlib.h> /* getenv: PAIR_LAB_PHASES */
#endif

#include "cuda_cluster.cuh"
#include "cuda_e4m3.cuh"
#include "cuda_fp8.h"
#include "cuda_mma.cuh"
#include "cuda_pdl.cuh"
#include "cuda_wgmma.cuh"

#define PAIR_WARPS 16
#define PAIR_THREADS (PAIR_WARPS * 32)
#define PAIR_CHUNKS 4 /* groups the input arrives in (the waits below count them) */
#define PAIR_SMEM_MAX (227 * 1024)
#define PAIR_MT 8      /* m16 tiles at most: 128 pixels of the 1x1, and of the consumer */
#define PAIR_BAND_PIX 64 /* the wide-band variants' consumer pixels per block, at most */

/* sizes and shared-memory layout of one pair launch (host-computed), in the line frame: lines
 * are image rows (col 0) or columns (col 1), len pixels each */
struct pair_geom {
    int col, lines, len;
    int kh, kw, ph, pw; /* the consumer's taps across lines and along them, and its padding */
    int band, bands;    /* output lines per cluster; clusters per image */
    int rows1, mw;      /* the window: band + kh - 1 lines of len + kw - 1 pixels */
    int p1, p2;         /* pixels the 1x1 (rows1 x len) and the consumer (band x len) compute */
    int k1, k2, cm;     /* the 1x1's K (c_in), the consumer's K (kh kw cm), cm: the intermediate's channels */
    int pa, pb, pm;     /* row pitches in bytes: input and 1x1 weights (k1), consumer weights (k2), window (cm) */
    int w1_off, w2_off, a_off, mid_off, red_off, bytes;
    int phases; /* PAIR_PHASE bits: all but in pair_lab's phase runs */
};

/* The kernel's phases, each skippable in pair_lab only (built with I8_PAIR_LAB_PHASES; its
 * PAIR_LAB_PHASES mask), to time a block's floor without them (session 55): 1 the 1x1's MMAs, 2 the
 * consumer's, 4 the weights' loads, 8 the input's, 16 both epilogues (the intermediate's stores into
 * the cluster's windows and the output's). Skipped phases leave garbage, so such runs fail the lab's
 * checks by design; the product build compiles every phase unconditionally. */
#define PAIR_PHASES_ALL 31
#ifdef I8_PAIR_LAB_PHASES
#define PAIR_PHASE(g, bit) ((g).phases & (bit))
#else
#define PAIR_PHASE(g, bit) 1
#endif

/* a row pitch of `bytes` (a multiple of 16) whose 16-byte slot differs for 8 consecutive rows, so
 * that an ldmatrix of 8 rows hits distinct banks: an odd number of 16-byte pieces */
static int pair_pitch(int bytes) { return bytes / 16 % 2 ? bytes : bytes + 16; }

/* this block's n8 tiles of a conv with `tiles` of them, shared by cl blocks: [first, + count) */
__host__ __device__ static inline int pair_tile_first(int tiles, int cl, int rank) { return rank * tiles / cl; }
__host__ __device__ static inline int pair_tile_count(int tiles, int cl, int rank) {
    return (rank + 1) * tiles / cl - rank * tiles / cl;
}
/* warps summing one n8 tile, each a share of K */
__host__ __device__ static inline int pair_kparts(int tiles) { return tiles >= PAIR_WARPS ? 1 : PAIR_WARPS / tiles; }

/* two 8x8 b16 matrices (8 rows x 16 bytes of e4m3): lanes 0-7 give matrix 0's row addresses, 8-15
 * matrix 1's; each lane receives row lane / 4, bytes 4 (lane % 4) .. + 3 of each: an m16n8k32 B
 * fragment when the rows are n and the two matrices k 0-15 and 16-31 */
__device__ __forceinline__ void pair_ldmatrix_x2(unsigned *r, const void *smem) {
    unsigned s = (unsigned)__cvta_generic_to_shared(smem);
    asm volatile("ldmatrix.sync.aligned.m8n8.x2.shared.b16 {%0,%1}, [%2];\n" : "=r"(r[0]), "=r"(r[1]) : "r"(s));
}

/* The warp's k32 steps s of [s_beg, s_end) with s % kparts == kp, over the first mt m16 tiles of
 * np pixels (pixels past np read pixel np - 1; their sums are never stored) times the n8 tile
 * whose weight rows start at wrow (pitch wp). MID false: A row of pixel p at sA + p ap + 32 s (the
 * input). MID true: A is the window, pixel p = (r, x) of the band reading line r + ty, column
 * x + tx for step s's tap (ty, tx) = divmod(32 s / cm, kw), at channel 32 s % cm. */
template <int MT, bool MID>
__device__ __forceinline__ void pair_steps(float (&acc)[MT][4], const pair_geom &g, int mt, int np,
                                           const unsigned char *sA, int ap, const unsigned char *wrow, int wp, int s_beg,
                                           int s_end, int kp, int kparts) {
    const int lane = threadIdx.x % 32, lrow = lane % 8, lmat = lane / 8;
    int base[MT]; /* each m tile's A row of this lane, before the step's offset */
#pragma unroll
    for (int i = 0; i < MT; i++) {
        const int p = min(i * 16 + (lmat & 1) * 8 + lrow, np - 1);
        base[i] = (MID ? (p / g.len) * g.mw + p % g.len : p) * ap + (lmat >> 1) * 16;
    }
    int s = s_beg + ((kp - s_beg % kparts) % kparts + kparts) % kparts;
    for (; s < s_end; s += kparts) {
        const int kb = 32 * s;
        int off = kb;
        if (MID) {
            const int tap = kb / g.cm;
            off = ((tap / g.kw) * g.mw + tap % g.kw) * ap + kb - tap * g.cm;
        }
        unsigned fb[2];
        pair_ldmatrix_x2(fb, wrow + lrow * wp + kb + (lmat & 1) * 16);
#pragma unroll
        for (int i = 0; i < MT; i++)
            if (i < mt) {
                unsigned fa[4]; /* matrices: pixels 0-7 / 8-15 at k 0-15, then at k 16-31 */
                ldmatrix_x4(fa, sA + base[i] + off);
                mma_e4m3(acc[i], fa, fb);
            }
    }
}

/* a warp's sums of its n8 tile nt and K share kp into the partial sums ([kp][pixel][ld floats]) */
template <int MT>
__device__ __forceinline__ void pair_store_partial(const float (&acc)[MT][4], int mt, float *red, int ld, int np, int nt,
                                                   int kp) {
    const int lane = threadIdx.x % 32, gr = lane / 4, tig = lane % 4;
#pragma unroll
    for (int i = 0; i < MT; i++) {
        if (i >= mt) break;
        const int r = i * 16 + gr, c = nt * 8 + tig * 2;
        if (r < np) *(float2 *)&red[(kp * np + r) * ld + c] = make_float2(acc[i][0], acc[i][1]);
        if (r + 8 < np) *(float2 *)&red[(kp * np + r + 8) * ld + c] = make_float2(acc[i][2], acc[i][3]);
    }
}

/* the epilogue's values of 8 channels (co ..) of pixel r: the K shares summed, scale, bias, ReLU
 * (the arithmetic of cuda_fp8.cu's fp8_epilogue_group without a residual) */
__device__ __forceinline__ void pair_values(float *v, const i8_cuda_fp8_conv_args &a, const float *red, int ld, int np,
                                            int kparts, int r, int c, int co) {
#pragma unroll
    for (int e = 0; e < 8; e++) {
        float s = 0.0f;
        for (int kp = 0; kp < kparts; kp++) s += red[(kp * np + r) * ld + c + e];
        v[e] = s * __ldg(a.mult + co + e) + (a.bias ? __ldg(a.bias + co + e) : 0.0f);
        if (a.relu) v[e] = relu_f32(v[e]);
    }
}

/* CL blocks a cluster; MT: m16 tiles at most (2: bands of at most 32 pixels, 8: of 128). (Session
 * 54 also loaded by bulk copies on mbarriers, one per weight row or pixel chunk; session 55 measured
 * it 3% faster to 14% slower per variant, and took it out: the loads are not where the time goes.) */
template <int CL, int MT>
__global__ void __cluster_dims__(CL, 1, 1) __launch_bounds__(PAIR_THREADS, 1)
    conv_fp8_pair_kernel(i8_cuda_fp8_conv_args a1, i8_cuda_fp8_conv_args a2, pair_geom g) {
    extern __shared__ __align__(128) unsigned char pair_raw[];
    unsigned char *smem = pair_raw + ((128 - (__cvta_generic_to_shared(pair_raw) & 127)) & 127);
    unsigned char *sW1 = smem + g.w1_off, *sW2 = smem + g.w2_off, *sA = smem + g.a_off, *sMid = smem + g.mid_off;
    float *red = (float *)(smem + g.red_off);
    const int tid = threadIdx.x, warp = tid / 32;
    const int rank = CL > 1 ? (int)cluster_rank() : 0, item = blockIdx.x / CL;
    const int img = item / g.bands, y0 = item % g.bands * g.band; /* the band's first output line */
    /* image pixel of line y, pixel x */
    const size_t img0 = (size_t)img * a1.h * a1.w;
#define PAIR_PIX(y, x) (img0 + (g.col ? (size_t)(x) * a1.w + (y) : (size_t)(y) * a1.w + (x)))
    const int t1 = g.cm / 8, t2 = a2.c_out / 8;
    const int t1a = pair_tile_first(t1, CL, rank), nt1 = pair_tile_count(t1, CL, rank);
    const int t2a = pair_tile_first(t2, CL, rank), nt2 = pair_tile_count(t2, CL, rank);

    /* every block of the cluster has started once all have arrived here: waited for before the
     * first store into another block's shared memory */
    if (CL > 1) cluster_arrive_relaxed();

    /* the weights (no earlier kernel writes them): group 0 */
    const int pieces1 = g.k1 / 16, pieces2 = g.k2 / 16; /* 16-byte pieces of a weight row */
    if (PAIR_PHASE(g, 4)) {
        for (int idx = tid; idx < nt1 * 8 * pieces1; idx += PAIR_THREADS) {
            const int row = idx / pieces1, piece = idx % pieces1;
            cp_async_ch<16>(sW1 + row * g.pa + piece * 16, a1.wq + (size_t)(8 * t1a + row) * g.k1 + piece * 16, 16);
        }
        for (int idx = tid; idx < nt2 * 8 * pieces2; idx += PAIR_THREADS) {
            const int row = idx / pieces2, piece = idx % pieces2;
            cp_async_ch<16>(sW2 + row * g.pb + piece * 16, a2.wq + (size_t)(8 * t2a + row) * g.k2 + piece * 16, 16);
        }
    }
    fp8_commit();
    /* the window's padding columns: zeros (the consumer's padding is zeros of its input) */
    const int ppr = g.pm / 16, pad_pix = g.mw - g.len;
    for (int idx = tid; idx < g.rows1 * pad_pix * ppr; idx += PAIR_THREADS) {
        const int line = idx / (pad_pix * ppr), j = idx % (pad_pix * ppr) / ppr, piece = idx % ppr;
        const int x = j < g.pw ? j : g.len + j; /* columns 0 .. pw - 1 and pw + len .. mw - 1 */
        *(uint4 *)(sMid + (line * g.mw + x) * g.pm + piece * 16) = make_uint4(0u, 0u, 0u, 0u);
    }

    /* the input of the window's lines, written by the kernel before: groups 1 .. PAIR_CHUNKS, a
     * share of K each (zeros for lines outside the image; their intermediate is made zero) */
    griddep_wait();
    griddep_launch_dependents();
    const int ks1 = g.k1 / 32;
    for (int q = 0; q < PAIR_CHUNKS; q++) {
        const int pb = 2 * (q * ks1 / PAIR_CHUNKS), pe = 2 * ((q + 1) * ks1 / PAIR_CHUNKS), pn = pe - pb;
        for (int idx = tid; idx < (PAIR_PHASE(g, 8) ? g.p1 * pn : 0); idx += PAIR_THREADS) {
            const int p = idx / pn, piece = pb + idx % pn, y = y0 - g.ph + p / g.len;
            const bool in = y >= 0 && y < g.lines;
            const unsigned char *src = (const unsigned char *)a1.x;
            if (in) src += PAIR_PIX(y, p % g.len) * a1.x_ld + piece * 16;
            cp_async_ch<16>(sA + p * g.pa + piece * 16, src, in ? 16 : 0);
        }
        fp8_commit();
    }

    /* the 1x1: warp -> n8 tile warp % nt1, K share warp / nt1, every m tile */
    const int mt1 = (g.p1 + 15) / 16, mt2 = (g.p2 + 15) / 16;
    const int kp1 = pair_kparts(nt1), ld1 = nt1 * 8 + 4;
    const bool act1 = warp < nt1 * kp1;
    float acc[MT][4];
#pragma unroll
    for (int i = 0; i < MT; i++)
#pragma unroll
        for (int e = 0; e < 4; e++) acc[i][e] = 0.0f;
#pragma unroll 1
    for (int q = 0; q < PAIR_CHUNKS; q++) {
        if (q == 0) fp8_wait<PAIR_CHUNKS - 1>();
        else if (q == 1) fp8_wait<PAIR_CHUNKS - 2>();
        else if (q == 2) fp8_wait<PAIR_CHUNKS - 3>();
        else fp8_wait<0>();
        __syncthreads();
        if (act1 && PAIR_PHASE(g, 1))
            pair_steps<MT, false>(acc, g, mt1, g.p1, sA, g.pa, sW1 + (warp % nt1) * 8 * g.pa, g.pa, q * ks1 / PAIR_CHUNKS,
                              (q + 1) * ks1 / PAIR_CHUNKS, warp / nt1, kp1);
    }
    if (act1) pair_store_partial<MT>(acc, mt1, red, ld1, g.p1, warp % nt1, warp / nt1);
    __syncthreads();

    /* the 1x1's epilogue and e4m3 rounding, into every cluster block's window */
    if (CL > 1) cluster_wait();
    for (int it = tid; it < (PAIR_PHASE(g, 16) ? g.p1 * nt1 : 0); it += PAIR_THREADS) {
        const int p = it / nt1, tt = it % nt1, co = 8 * (t1a + tt), line = p / g.len, y = y0 - g.ph + line;
        uint2 codes = make_uint2(0u, 0u);
        if (y >= 0 && y < g.lines) {
            float v[8];
            pair_values(v, a1, red, ld1, g.p1, kp1, p, tt * 8, co);
#pragma unroll
            for (int e = 0; e < 8; e++) v[e] = __fmul_rn(v[e], a1.y_inv);
            codes = make_uint2(q_e4m3x4(v[0], v[1], v[2], v[3]), q_e4m3x4(v[4], v[5], v[6], v[7]));
        }
        unsigned char *dst = sMid + (line * g.mw + p % g.len + g.pw) * g.pm + co;
        if (CL == 1) {
            *(uint2 *)dst = codes;
        } else {
            const unsigned addr = (unsigned)__cvta_generic_to_shared(dst);
#pragma unroll
            for (int b = 0; b < CL; b++) cluster_st_v2(addr, (unsigned)b, codes);
        }
    }
    /* every block's share stored (release), every share here (acquire); no block touches another's
     * shared memory after this, so none can exit while another still writes into it */
    if (CL > 1) {
        cluster_arrive();
        cluster_wait();
    } else {
        __syncthreads();
    }

    /* the consumer: warp -> n8 tile warp % nt2, K share warp / nt2, every m tile */
    const int kp2 = pair_kparts(nt2), ld2 = nt2 * 8 + 4;
    const bool act2 = warp < nt2 * kp2;
#pragma unroll
    for (int i = 0; i < MT; i++)
#pragma unroll
        for (int e = 0; e < 4; e++) acc[i][e] = 0.0f;
    if (act2 && PAIR_PHASE(g, 2)) {
        pair_steps<MT, true>(acc, g, mt2, g.p2, sMid, g.pm, sW2 + (warp % nt2) * 8 * g.pb, g.pb, 0, g.k2 / 32, warp / nt2, kp2);
        pair_store_partial<MT>(acc, mt2, red, ld2, g.p2, warp % nt2, warp / nt2);
    }
    __syncthreads();
    for (int it = tid; it < (PAIR_PHASE(g, 16) ? g.p2 * nt2 : 0); it += PAIR_THREADS) {
        const int p = it / nt2, tt = it % nt2, co = 8 * (t2a + tt), y = y0 + p / g.len;
        if (y >= g.lines) continue; /* the last band's lines past the image */
        float v[8];
        pair_values(v, a2, red, ld2, g.p2, kp2, p, tt * 8, co);
        const size_t yo = PAIR_PIX(y, p % g.len) * a2.y_ld + co;
        if (a2.y) {
            uint4 o;
            __half *oh = (__half *)&o;
#pragma unroll
            for (int e = 0; e < 8; e++) oh[e] = __float2half_rn(v[e]);
            *(uint4 *)((__half *)a2.y + yo) = o;
        }
        if (a2.yq) {
#pragma unroll
            for (int e = 0; e < 8; e++) v[e] = __fmul_rn(v[e], a2.y_inv);
            *(uint2 *)((unsigned char *)a2.yq + yo) = make_uint2(q_e4m3x4(v[0], v[1], v[2], v[3]), q_e4m3x4(v[4], v[5], v[6], v[7]));
        }
    }
#undef PAIR_PIX
}

/* the pair variants: v % 4 picks the cluster size, v / 4 the band (0: one output line per
 * cluster, 1: as many as PAIR_BAND_PIX pixels hold, variants only where that is more than one) */
static const int pair_cls[4] = {1, 2, 4, 8};
static int pair_variant_cl(int v) { return pair_cls[v % 4]; }

/* 1 and g filled when pair variant v can run (a1, a2) */
static int pair_geom_of(const i8_cuda_fp8_conv_args *a1, const i8_cuda_fp8_conv_args *a2, int v, pair_geom *g) {
    if (v < 0 || v >= I8_FP8_PAIR_VARIANTS || !a1 || !a2 || !a1->x || !a1->wq || !a1->mult || !a2->wq || !a2->mult ||
        (!a2->y && !a2->yq))
        return 0;
    /* the 1x1: e4m3 input, stride 1, no residual, 16-byte pieces of K in 32-byte steps */
    if (!a1->x_fp8 || a1->res_mode != I8_FP8_RES_NONE || a1->kh != 1 || a1->kw != 1 || a1->sh != 1 || a1->sw != 1 ||
        a1->ph || a1->pw || a1->ho != a1->h || a1->wo != a1->w || a1->n < 1 || a1->c_in < 32 || a1->c_in % 32 ||
        a1->x_ld % 16 || a1->x_ld < a1->c_in || ((uintptr_t)a1->x & 15) || ((uintptr_t)a1->wq & 15))
        return 0;
    /* the consumer: reads the 1x1's output whole, as e4m3; stride 1, output the size of its input
     * (odd taps, padding half of them); k x 1 runs on columns */
    if (!a2->x_fp8 || a2->res_mode != I8_FP8_RES_NONE || a2->c_in != a1->c_out || a2->n != a1->n || a2->h != a1->h ||
        a2->w != a1->w || a2->sh != 1 || a2->sw != 1 || a2->kh < 1 || a2->kw < 1 || a2->kh * a2->kw < 2 ||
        a2->kh % 2 == 0 || a2->kw % 2 == 0 || a2->ph != a2->kh / 2 || a2->pw != a2->kw / 2 || a2->ho != a2->h ||
        a2->wo != a2->w || a2->c_in % 32 || a2->c_out % 8 || a2->y_ld % 8 || ((uintptr_t)a2->y & 15) ||
        ((uintptr_t)a2->yq & 7) || ((uintptr_t)a2->wq & 15))
        return 0;
    const int col = a2->kw == 1, cl = pair_variant_cl(v), wide = v / 4;
    g->col = col;
    g->lines = col ? a1->w : a1->h, g->len = col ? a1->h : a1->w;
    g->kh = col ? 1 : a2->kh, g->kw = col ? a2->kh : a2->kw, g->ph = g->kh / 2, g->pw = g->kw / 2;
    int band = 1;
    if (wide) {
        while ((band + 1) * g->len <= PAIR_BAND_PIX && band + 1 <= g->lines &&
               (band + g->kh) * g->len <= PAIR_MT * 16)
            band++;
        if (band == 1) return 0; /* the same as variant v % 4 */
    }
    g->band = band, g->bands = (g->lines + band - 1) / band;
    g->rows1 = band + g->kh - 1, g->mw = g->len + g->kw - 1;
    g->p1 = g->rows1 * g->len, g->p2 = band * g->len;
    const int t1 = a1->c_out / 8, t2 = a2->c_out / 8;
    if (g->p1 > PAIR_MT * 16 || t1 < cl || t2 < cl || (t1 + cl - 1) / cl > PAIR_WARPS || (t2 + cl - 1) / cl > PAIR_WARPS)
        return 0;
    g->k1 = a1->c_in, g->cm = a1->c_out, g->k2 = a2->kh * a2->kw * g->cm;
    g->pa = pair_pitch(g->k1), g->pb = pair_pitch(g->k2), g->pm = pair_pitch(g->cm);
    /* the largest share of tiles any block takes, and its partial sums (K shares x pixels x tiles) */
    const int n1 = (t1 + cl - 1) / cl, n2 = (t2 + cl - 1) / cl;
    long long red = 0;
    for (int rank = 0; rank < cl; rank++) {
        const int c1 = pair_tile_count(t1, cl, rank), c2 = pair_tile_count(t2, cl, rank);
        const long long r1 = (long long)pair_kparts(c1) * g->p1 * (c1 * 8 + 4) * 4;
        const long long r2 = (long long)pair_kparts(c2) * g->p2 * (c2 * 8 + 4) * 4;
        red = r1 > red ? r1 : red, red = r2 > red ? r2 : red;
    }
    long long off = 0;
#define PAIR_PLACE(field, size) g->field = (int)off, off += ((long long)(size) + 127) / 128 * 128;
    PAIR_PLACE(w1_off, (long long)n1 * 8 * g->pa)
    PAIR_PLACE(w2_off, (long long)n2 * 8 * g->pb)
    PAIR_PLACE(a_off, (long long)g->p1 * g->pa)
    PAIR_PLACE(mid_off, (long long)g->rows1 * g->mw * g->pm)
    PAIR_PLACE(red_off, red)
#undef PAIR_PLACE
    g->bytes = (int)(off + 128); /* + the base's alignment */
    g->phases = PAIR_PHASES_ALL;
#ifdef I8_PAIR_LAB_PHASES
    if (getenv("PAIR_LAB_PHASES")) g->phases = atoi(getenv("PAIR_LAB_PHASES")) & PAIR_PHASES_ALL;
#endif
    return off + 128 <= PAIR_SMEM_MAX;
}

/* the kernel of cluster size cl for bands of at most mt16 m16 tiles (2 or 8) */
static const void *pair_kernel_of(int cl, int mt16) {
    const int big = mt16 > 2;
    switch (cl) {
    case 1: return big ? (const void *)conv_fp8_pair_kernel<1, PAIR_MT> : (const void *)conv_fp8_pair_kernel<1, 2>;
    case 2: return big ? (const void *)conv_fp8_pair_kernel<2, PAIR_MT> : (const void *)conv_fp8_pair_kernel<2, 2>;
    case 4: return big ? (const void *)conv_fp8_pair_kernel<4, PAIR_MT> : (const void *)conv_fp8_pair_kernel<4, 2>;
    case 8: return big ? (const void *)conv_fp8_pair_kernel<8, PAIR_MT> : (const void *)conv_fp8_pair_kernel<8, 2>;
    default: return NULL;
    }
}

extern "C" int i8_cuda_conv_fp8_pair_setup(void) {
    for (int k = 0; k < 8; k++) {
        cudaError_t e = cudaFuncSetAttribute(pair_kernel_of(pair_cls[k % 4], k / 4 ? PAIR_MT : 2),
                                             cudaFuncAttributeMaxDynamicSharedMemorySize, PAIR_SMEM_MAX);
        if (e != cudaSuccess) return (int)e;
    }
    return 0;
}

extern "C" const char *i8_cuda_conv_fp8_pair_name(int variant) {
    static const char *names[I8_FP8_PAIR_VARIANTS] = {"pair-c1", "pair-c2", "pair-c4", "pair-c8",
                                                      "pair-c1w", "pair-c2w", "pair-c4w", "pair-c8w"};
    return variant >= 0 && variant < I8_FP8_PAIR_VARIANTS ? names[variant] : "?";
}

extern "C" int i8_cuda_conv_fp8_pair_fits(const i8_cuda_fp8_conv_args *first, const i8_cuda_fp8_conv_args *second,
                                          int variant) {
    pair_geom g;
    return pair_geom_of(first, second, variant, &g);
}

extern "C" int i8_cuda_conv_fp8_pair(const i8_cuda_fp8_conv_args *first, const i8_cuda_fp8_conv_args *second, int variant,
                                     void *stream) {
    pair_geom g;
    if (!pair_geom_of(first, second, variant, &g)) return (int)cudaErrorInvalidValue;
    const int cl = pair_variant_cl(variant);
    i8_cuda_fp8_conv_args a1 = *first, a2 = *second;
    void *args[] = {&a1, &a2, &g};
    const long long blocks = (long long)first->n * g.bands * cl;
    if (blocks > 0x7fffffff) return (int)cudaErrorInvalidValue;
    const int mt16 = (g.p1 > g.p2 ? g.p1 : g.p2) > 32 ? PAIR_MT : 2;
    return (int)launch_pdl(pair_kernel_of(cl, mt16), dim3((unsigned)blocks), dim3(PAIR_THREADS), (size_t)g.bytes,
                           (cudaStream_t)stream, second->pdl, args);
}
