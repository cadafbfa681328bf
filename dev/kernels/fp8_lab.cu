/* Kernel lab for the CUDA backend's FP8 convolution (src/backends/cuda/cuda_fp8.cu) on the
 * 1x1 GEMMs that dominate Inception-ResNet-v2 (and, since session 15, some of its spatial convs), with the fused dual-output epilogue: a CPU
 * reference (double accumulation over the same e4m3 codes, then the epilogue in float as the
 * kernel specifies), every tile variant validated and timed in each I/O mode, next to the fp16
 * own kernel (cuda_kernels.cu) on the same shape. Built outside `all` (tools/prepare-device
 * builds it; the test dev/kernel_labs_compile keeps it compiling):
 *
 *   cmake --build build-device --target fp8_lab && build-device/bin/fp8_lab
 *
 * (fp8_tma.cu includes the product's cuda_fp8.cu and cuda_fp8_tma.cu and adds lab-only
 * experiments on the TMA kernel, which run after the product's variants: ablations abl-*, tma*w.)
 *
 * Modes: "q->dual" (e4m3 input, fp16 + e4m3 output: a block output read by both the residual
 * add and the next FP8 convs), "h->q" (fp16 input quantized while loading, e4m3-only output),
 * "q->h+res" (e4m3 input, fused residual read as fp16 x, fp16 output), "q->dual+resq" (residual
 * read from the e4m3 copy, residual-fp8), "q->dual+res" (fp16 residual, both outputs: IRv2's
 * up-projections in the default recipe), "q->h+resfq" (fp16 residual quantized on the fly), "q->q"
 * (e4m3 input, e4m3-only output: a branch conv whose consumers all read e4m3, as most of IRv2's
 * branch 1x1s; session 63, to time the epilogue the graph runs rather than the dual one).
 * Every run of a cp.async kernel is repeated with outputs off 16-byte alignment and must give the
 * same bits (the TMA kernels take aligned outputs only). FP8_LAB_SLICE=1 writes the outputs as a
 * channel slice of a wider tensor instead (channels 32 .. 32 + N of rows of N + 64, as a branch
 * writes its part of a concat; every byte outside the slice must keep its poison).
 * FP8_LAB_TMA_STORE=0: the TMA kernels store without TMA stores (their path for outputs
 * TMA cannot store exactly, i8_cuda_conv_fp8_tma_store_fits). FP8_LAB_TMA_DRAIN=1: their blocks
 * wait at their end for the TMA stores' global writes (INFER8_CUDA_TMA_STORE_DRAIN=1 in the
 * product, as before session 61); FP8_LAB_TMA_EARLY=0: no tensor-map prefetch or weights ahead of
 * the producer's loop (INFER8_CUDA_TMA_EARLY=0). FP8_LAB_HALO_PREFETCH=1 / 2: the
 * halo kernels with their fragment prefetch / slab pairs (INFER8_CUDA_HALO_PREFETCH in the
 * product). Validation: fp16 output max |diff| / max |ref| <= 2e-3
 * (accumulation order and fp16 rounding only); e4m3 codes: the share that differs from the
 * reference code must be < 1% and none by more than one code step (a value next to a rounding
 * boundary may fall either way). Prints microseconds per call (CUDA events, 50 calls after 5
 * warm-up) and the fp16 own kernel's best time for comparison. Exit 1 on any failure. */
#include <cuda_fp16.h>
#include <cuda_fp8.h>
#include <cuda_runtime.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backends/cuda/cuda_fp8.h"
#include "backends/cuda/cuda_graph_timing.h"
#include "lab_common.cuh"
extern "C" {
#include "quant/fp8.h" /* the tuner's far-code rule, i8_fp8_code_far */
}
#include "backends/cuda/cuda_kernels.h"

struct shape {
    const char *name;
    int n, hw, ci, co, res;
    int kh, kw, st, ph, pw; /* spatial convs (0: a pointwise conv, 1x1 stride 1) */
};

static const shape shapes[] = {
    {"Block35 branch 1x1 320->32 @35 b1", 1, 35, 320, 32, 0, 0, 0, 0, 0, 0},
    {"Block35 up 1x1 128->320 @35 b1 +res", 1, 35, 128, 320, 1, 0, 0, 0, 0, 0},
    {"Block17 branch 1x1 1088->192 @17 b1", 1, 17, 1088, 192, 0, 0, 0, 0, 0, 0},
    {"Block17 up 1x1 384->1088 @17 b1 +res", 1, 17, 384, 1088, 1, 0, 0, 0, 0, 0},
    {"Block8 branch 1x1 2080->192 @8 b1", 1, 8, 2080, 192, 0, 0, 0, 0, 0, 0},
    {"Block8 up 1x1 448->2080 @8 b1 +res", 1, 8, 448, 2080, 1, 0, 0, 0, 0, 0},
    {"Block35 branch 1x1 320->32 @35 b32", 32, 35, 320, 32, 0, 0, 0, 0, 0, 0},
    {"Block17 branch 1x1 1088->192 @17 b32", 32, 17, 1088, 192, 0, 0, 0, 0, 0, 0},
    {"Block17 up 1x1 384->1088 @17 b32 +res", 32, 17, 384, 1088, 1, 0, 0, 0, 0, 0},
    {"Block8 up 1x1 448->2080 @8 b32 +res", 32, 8, 448, 2080, 1, 0, 0, 0, 0, 0},
    /* inception_v3 branch 1x1s whose TMA winners the tuning check rejected in session 13 */
    {"v3 Mixed_5b 1x1 192->64 @35 b4", 4, 35, 192, 64, 0, 0, 0, 0, 0, 0},
    {"v3 Mixed_6b 1x1 768->192 @17 b4", 4, 17, 768, 192, 0, 0, 0, 0, 0, 0},
    {"v3 Mixed_7c 1x1 2048->320 @8 b4", 4, 8, 2048, 320, 0, 0, 0, 0, 0, 0},
    /* spatial convs (the im2col TMA kernels, session 15): IRv2's, at batch 8 (the reference is
     * a plain double loop on one core) and 1 */
    {"Mixed_7a 3x3 256->288 @17 b8", 8, 17, 256, 288, 0, 3, 3, 1, 1, 1},
    {"Mixed_7a 3x3 s2 256->384 @17 b8", 8, 17, 256, 384, 0, 3, 3, 2, 0, 0},
    {"Block17 1x7 128->160 @17 b8", 8, 17, 128, 160, 0, 1, 7, 1, 0, 3},
    {"Block17 7x1 160->192 @17 b8", 8, 17, 160, 192, 0, 7, 1, 1, 3, 0},
    {"Mixed_5b 3x3 64->96 @35 b8", 8, 35, 64, 96, 0, 3, 3, 1, 1, 1},
    {"Block35 3x3 32->48 @35 b8", 8, 35, 32, 48, 0, 3, 3, 1, 1, 1},
    {"Block8 1x3 192->224 @8 b8", 8, 8, 192, 224, 0, 1, 3, 1, 0, 1},
    /* Block35's 3x3 on IRv2's critical path at batch 32, where cuDNN e4m3 (13.4 us) beat the
     * 32-channel im2col variant (14.2) in session 24; its reference takes seconds */
    {"Block35 3x3 32->48 @35 b32", 32, 35, 32, 48, 0, 3, 3, 1, 1, 1},
    {"Mixed_7a 3x3 256->288 @17 b1", 1, 17, 256, 288, 0, 3, 3, 1, 1, 1},
    {"Block17 7x1 160->192 @17 b1", 1, 17, 160, 192, 0, 7, 1, 1, 3, 0},
    /* few tiles for 132 SMs: 146 / 48 tiles of 128 x 64 at batch 32 (session 29 tried stream-K
     * kernels on them, commit e14539a; slower than the tile-walking TMA kernels, not kept) */
    {"Block17 branch 1x1 1088->128 @17 b32", 32, 17, 1088, 128, 0, 0, 0, 0, 0, 0},
    {"Block8 branch 1x1 2080->192 @8 b32", 32, 8, 2080, 192, 0, 0, 0, 0, 0, 0},
    {"Block17 1x7 128->160 @17 b32", 32, 17, 128, 160, 0, 1, 7, 1, 0, 3},
    /* IRv2's one spatial conv that FP8 did not speed up at batch 32 (session 41: 12.7 us on
     * tma128x64s4pc against fp16's 13.0) */
    {"Block17 7x1 160->192 @17 b32", 32, 17, 160, 192, 0, 7, 1, 1, 3, 0},
    /* Block35's up-projection with its residual at batch 32 (1535 tiles of 128 x 64, one K slice:
     * the epilogue is nearly the whole kernel; session 30) */
    {"Block35 up 1x1 128->320 @35 b32 +res", 32, 35, 128, 320, 1, 0, 0, 0, 0, 0},
    /* each residual block's sibling branch 1x1s (one input) as one conv, the bound of merging them
     * (session 34): Block35's three 320->32, Block17's 1088->192 and 1088->128, Block8's two
     * 2080->192; against the sums of the separate shapes above */
    {"Block35 siblings merged 1x1 320->96 @35 b32", 32, 35, 320, 96, 0, 0, 0, 0, 0, 0},
    {"Block17 siblings merged 1x1 1088->320 @17 b32", 32, 17, 1088, 320, 0, 0, 0, 0, 0, 0},
    {"Block8 siblings merged 1x1 2080->384 @8 b32", 32, 8, 2080, 384, 0, 0, 0, 0, 0, 0},
    /* spatial convs whose c_in is a 128-channel chunk or two and a rest of 32s, the mixed im2col
     * variants' range (session 50): IRv2's Block8 1x3 / 3x1 and Reduction-B 3x3 stride 2, v4's
     * Block B 1x7 at batch 32 (the 7x1 160->192 above is the first) */
    {"Block8 1x3 192->224 @8 b32", 32, 8, 192, 224, 0, 1, 3, 1, 0, 1},
    {"Block8 3x1 224->256 @8 b32", 32, 8, 224, 256, 0, 3, 1, 1, 1, 0},
    {"Reduction-B 3x3 s2 288->320 @17 b32", 32, 17, 288, 320, 0, 3, 3, 2, 0, 0},
    {"v4 Block B 1x7 192->224 @17 b32", 32, 17, 192, 224, 0, 1, 7, 1, 0, 3},
    /* c_in 33-64, the 64-channel sub-slice variants' range (session 56): v4's Block A 3x3, slower
     * in FP8 than cuDNN's fp16 at batch 32 (20-23 us on tma128x128s3c against 16.8), and IRv2's
     * Block35 3x3 48->64 */
    {"v4 Block A 3x3 64->96 @35 b32", 32, 35, 64, 96, 0, 3, 3, 1, 1, 1},
    {"Block35 3x3 48->64 @35 b32", 32, 35, 48, 64, 0, 3, 3, 1, 1, 1},
    /* c_in a chunk or more and a 64-channel rest, the variants with 64-channel rests (session 57):
     * v4's 7x1 192->192 (69, 12.4-13.0 us at batch 32) and Reduction-A 3x3 192->224 (65, 56.5 us);
     * its 1x7 192->224 is above (55, 15.8-16.3 us) */
    {"v4 Block B 7x1 192->192 @17 b32", 32, 17, 192, 192, 0, 7, 1, 1, 3, 0},
    {"v4 Reduction-A 3x3 192->224 @35 b32", 32, 35, 192, 224, 0, 3, 3, 1, 1, 1},
};

/* the stream the kernels launch on (run_fp8, run_own): the legacy default stream, or time_us's
 * capture stream while it captures */
static cudaStream_t lab_stream = 0;

/* fn(arg) 50 times: what time_us captures as one graph */
typedef struct lab_launches { int (*fn)(void *); void *arg; } lab_launches;
static int launch_50(void *p) {
    const lab_launches *l = (const lab_launches *)p;
    int rc = 0;
    for (int i = 0; i < 50 && !rc; i++) rc = l->fn(l->arg);
    return rc;
}

/* Microseconds a launch: by default 50 launches captured as one CUDA graph and replayed (the
 * fastest of 5 replays, after one), as the product's tuner times a conv, so that what is timed is
 * the GPU's work. FP8_LAB_TIMING=launch: 50 stream launches between events, as before session 62;
 * at batch 1 that also times the host (a TMA kernel's tensor-map encoding costs microseconds a
 * call), likely why session 62's ablations at batch 1 all came out near 4.5 us. */
static float time_us(int (*fn)(void *), void *arg) {
    cudaEvent_t t0, t1;
    CK(cudaEventCreate(&t0));
    CK(cudaEventCreate(&t1));
    for (int i = 0; i < 5; i++)
        if (fn(arg)) return -1.0f;
    const char *timing = getenv("FP8_LAB_TIMING");
    float best = -1.0f;
    if (!timing || strcmp(timing, "launch")) {
        cudaStream_t st;
        CK(cudaStreamCreateWithFlags(&st, cudaStreamNonBlocking));
        lab_stream = st;
        lab_launches launches = {fn, arg};
        cudaGraphExec_t exec = i8_cuda_capture(st, launch_50, &launches, NULL, NULL, NULL);
        lab_stream = 0;
        bool failed = !exec || cudaGraphLaunch(exec, st) != cudaSuccess; /* uploads the graph */
        for (int r = 0; r < 5 && !failed; r++) {
            const float ms = i8_cuda_replays_ms(t0, t1, st, exec, 1);
            if (ms < 0.0f) failed = true;
            else if (best < 0.0f || ms < best) best = ms;
        }
        if (exec) cudaGraphExecDestroy(exec);
        cudaStreamDestroy(st);
        if (failed) {
            cudaGetLastError();
            cudaEventDestroy(t0);
            cudaEventDestroy(t1);
            return -1.0f;
        }
    } else {
        CK(cudaEventRecord(t0));
        for (int i = 0; i < 50; i++)
            if (fn(arg)) return -1.0f;
        CK(cudaEventRecord(t1));
        CK(cudaEventSynchronize(t1));
        CK(cudaEventElapsedTime(&best, t0, t1));
    }
    cudaEventDestroy(t0);
    cudaEventDestroy(t1);
    return 1000.0f * best / 50;
}

struct fp8_call {
    i8_cuda_fp8_conv_args a;
    int variant;
    const i8_cuda_fp8_outs *outs; /* the merged-sibling kernels (FP8_LAB_SPLIT), else NULL */
};
/* the lab-only kernels of fp8_tma.cu follow the product's variants */
int lab_tma_variants(void);
const char *lab_tma_name(int v);
int lab_tma_fits(const i8_cuda_fp8_conv_args *a, int v);
int lab_tma_conv(const i8_cuda_fp8_conv_args *a, int v, cudaStream_t s);
int lab_tma_ablation(int v); /* a kernel with one part left out: timed, output not checked */
/* is v in the comma-separated list of numbers `list` (FP8_LAB_VARIANT)? */
static bool in_list(const char *list, int v) {
    for (const char *p = list; *p;) {
        char *end;
        long x = strtol(p, &end, 10);
        if (end == p) return false;
        if (x == v) return true;
        p = *end == ',' ? end + 1 : end;
    }
    return false;
}
static int lab_variants(void) { return i8_cuda_conv_fp8_variants() + lab_tma_variants(); }
/* after the lab's: the two merged-sibling kernels (i8_cuda_conv_fp8_tma_multi, BN 64 and 128),
 * run with FP8_LAB_SPLIT only */
static bool is_multi(int v) { return v >= lab_variants(); }
static bool is_lab(int v) { return v >= i8_cuda_conv_fp8_variants(); }
static const char *var_name(int v) {
    if (is_multi(v)) return v == lab_variants() ? "tma128x64s4m" : "tma128x128s3m";
    return is_lab(v) ? lab_tma_name(v - i8_cuda_conv_fp8_variants()) : i8_cuda_conv_fp8_name(v);
}
static int var_splits(int v) { return is_lab(v) ? 1 : i8_cuda_conv_fp8_splits(v); }
static int run_fp8(void *p) {
    fp8_call *c = (fp8_call *)p;
    if (is_multi(c->variant)) return i8_cuda_conv_fp8_tma_multi(&c->a, c->outs, c->variant > lab_variants(), lab_stream);
    if (is_lab(c->variant)) return lab_tma_conv(&c->a, c->variant - i8_cuda_conv_fp8_variants(), lab_stream);
    return i8_cuda_conv_fp8(&c->a, c->variant, lab_stream);
}
struct own_call {
    i8_cuda_conv_args a;
    int variant;
};
static int run_own(void *p) {
    own_call *c = (own_call *)p;
    return i8_cuda_conv_own(&c->a, c->variant, lab_stream);
}

int main(void) {
    int failures = 0;
    cudaDeviceProp prop;
    CK(cudaGetDeviceProperties(&prop, 0));
    printf("device %s, %d SMs\n", prop.name, prop.multiProcessorCount);
    CK((cudaError_t)i8_cuda_conv_fp8_setup());
    float *part;
    unsigned *cnt;
    CK(cudaMalloc(&part, 64 << 20));
    CK(cudaMalloc(&cnt, 65536 * 4));
    CK(cudaMemset(cnt, 0, 65536 * 4));
    static const char *modes[] = {"q->dual", "h->q", "q->h+res", "q->dual+resq", "q->dual+res", "q->h+resfq", "q->q"};
    enum { MODES = 7 };
    /* FP8_LAB_SHAPE (a substring of a shape's name), FP8_LAB_MODE (0-6) and FP8_LAB_VARIANT (a
     * comma-separated list of variant numbers) narrow the run, e.g. to one kernel configuration
     * for a profiler */
    const char *only_shape = getenv("FP8_LAB_SHAPE"), *only_mode = getenv("FP8_LAB_MODE"),
               *only_variant = getenv("FP8_LAB_VARIANT");
    const bool slice = getenv("FP8_LAB_SLICE") && atoi(getenv("FP8_LAB_SLICE")) != 0;
    /* FP8_LAB_TMA_STORE=0: the TMA kernels' generic output stores (session 32's A/B) */
    const int tma_store_off = getenv("FP8_LAB_TMA_STORE") && atoi(getenv("FP8_LAB_TMA_STORE")) == 0;
    /* FP8_LAB_TMA_DRAIN=1 / FP8_LAB_TMA_EARLY=0: the A/Bs of session 61's block end and of the early path */
    const int tma_store_drain = getenv("FP8_LAB_TMA_DRAIN") && atoi(getenv("FP8_LAB_TMA_DRAIN")) > 0;
    const int tma_early_off = getenv("FP8_LAB_TMA_EARLY") && atoi(getenv("FP8_LAB_TMA_EARLY")) == 0;
    /* FP8_LAB_HALO_PREFETCH=1 / 2: the halo kernels' fragment prefetch / slab pairs (session 52, opt-in) */
    const int halo_prefetch = getenv("FP8_LAB_HALO_PREFETCH") ? atoi(getenv("FP8_LAB_HALO_PREFETCH")) : 0;
    /* FP8_LAB_PDL=1: every launch with programmatic dependent launch (cuda_pdl.cuh), so that each
     * timed launch's setup overlaps the end of the one before (session 34, call 1) */
    const int pdl = getenv("FP8_LAB_PDL") && atoi(getenv("FP8_LAB_PDL")) > 0;
    /* FP8_LAB_SPLIT=w0,w1,...: the conv's output channels as sibling convs of those widths (summing
     * to its c_out, at most I8_FP8_MAX_OUTS), each with its own e4m3 scale (1 + k / 2 times the
     * finest), run by the merged-sibling kernels only (i8_cuda_conv_fp8_tma_multi; session 35) */
    const char *split_env = getenv("FP8_LAB_SPLIT");
    for (size_t si = 0; si < sizeof shapes / sizeof shapes[0]; si++) {
        const shape &S = shapes[si];
        if (only_shape && !strstr(S.name, only_shape)) continue;
        i8_cuda_fp8_outs outs;
        memset(&outs, 0, sizeof outs);
        if (split_env) {
            for (const char *q = split_env; *q && outs.n < I8_FP8_MAX_OUTS;) {
                char *end;
                long w = strtol(q, &end, 10);
                if (end == q || w < 8 || w % 8) break;
                outs.c0[outs.n + 1] = outs.c0[outs.n] + (int)w, outs.n++;
                q = *end == ',' ? end + 1 : end;
            }
            if (outs.n < 1 || outs.c0[outs.n] != S.co) {
                printf("\n%s: FP8_LAB_SPLIT=%s does not split its %d channels (at most %d widths, multiples of 8): skipped\n",
                       S.name, split_env, S.co, I8_FP8_MAX_OUTS);
                failures++;
                continue;
            }
        }
        const bool split = outs.n > 0;
        const int kh = S.kh ? S.kh : 1, kw = S.kw ? S.kw : 1, st = S.st ? S.st : 1, K = kh * kw * S.ci;
        const int ho = (S.hw + 2 * S.ph - kh) / st + 1, wo = (S.hw + 2 * S.pw - kw) / st + 1;
        size_t M = (size_t)S.n * ho * wo, xs = (size_t)S.n * S.hw * S.hw * S.ci, ws = (size_t)S.co * K, ys = M * S.co;
        /* output rows of y_ld channels, the conv's at y_off (FP8_LAB_SLICE); yb elements in all */
        const int y_ld = slice ? S.co + 64 : S.co, y_off = slice ? 32 : 0;
        const size_t yb = M * y_ld;
        /* host data: x fp16 (relu-like, |x| up to ~4), its e4m3 codes at scale sx; weights as
         * e4m3 codes with per-channel scales; bias; residual x fp16 and its e4m3 copy */
        float sx = 4.0f / 448.0f, sr = 3.0f / 448.0f, sy = 6.0f / 448.0f, rs = 0.17f;
        float inv_x = 1.0f / sx, inv_r = 1.0f / sr, inv_y = 1.0f / sy;
        float *inv_ch = (float *)malloc(S.co * 4); /* each channel's 1 / e4m3 scale (its sibling's with FP8_LAB_SPLIT) */
        for (int o = 0, k = 0; o < S.co; o++) {
            while (split && o >= outs.c0[k + 1]) k++;
            inv_ch[o] = split ? inv_y / (1.0f + 0.5f * (float)k) : inv_y;
        }
        for (int k = 0; k < outs.n; k++) outs.inv[k] = inv_ch[outs.c0[k]];
        __half *hx = (__half *)malloc(xs * 2), *hr = (__half *)malloc(ys * 2), *hw16 = (__half *)malloc(ws * 2);
        uint8_t *qx = (uint8_t *)malloc(xs), *qw = (uint8_t *)malloc(ws), *qr = (uint8_t *)malloc(ys);
        float *wsc = (float *)malloc(S.co * 4), *mult = (float *)malloc(S.co * 4), *bias = (float *)malloc(S.co * 4);
        float *ref = (float *)malloc(ys * 4), *ref_q = (float *)malloc(ys * 4), *ref_h = (float *)malloc(ys * 4);
        uint8_t *refc = (uint8_t *)malloc(ys), *gotc = (uint8_t *)malloc(ys);
        __half *goth = (__half *)malloc(ys * 2);
        for (size_t i = 0; i < xs; i++) {
            hx[i] = __float2half_rn(fmaxf(0.0f, nrand()));
            qx[i] = q8(__half2float(hx[i]) * inv_x);
        }
        for (size_t i = 0; i < ys; i++) {
            hr[i] = __float2half_rn(nrand());
            qr[i] = q8(__half2float(hr[i]) * inv_r);
        }
        for (int o = 0; o < S.co; o++) {
            float amax = 0, w[4096];
            for (int k = 0; k < K; k++) amax = fmaxf(amax, fabsf(w[k] = nrand() * sqrtf(2.0f / K)));
            wsc[o] = amax / 448.0f;
            for (int k = 0; k < K; k++) {
                qw[(size_t)o * K + k] = q8(w[k] * (1.0f / wsc[o]));
                hw16[(size_t)o * K + k] = __float2half_rn(dq8(qw[(size_t)o * K + k]) * wsc[o]);
            }
            bias[o] = 0.1f * nrand();
        }
        /* reference accumulations: over the e4m3 codes (what the kernel multiplies), decoded
         * through a table (the batch-32 spatial shape has 542 M products) */
        /* (weights [co][ky][kx][ci]; taps in the padding add nothing) */
        double dq[256];
        for (int q = 0; q < 256; q++) dq[q] = dq8((uint8_t)q);
        for (size_t m = 0; m < M; m++) {
            const int img = (int)(m / ((size_t)ho * wo)), oy = (int)(m / wo % ho), ox = (int)(m % wo);
            for (int o = 0; o < S.co; o++) {
                double acc = 0;
                for (int ky = 0; ky < kh; ky++)
                    for (int kx = 0; kx < kw; kx++) {
                        const int iy = oy * st - S.ph + ky, ix = ox * st - S.pw + kx;
                        if (iy < 0 || iy >= S.hw || ix < 0 || ix >= S.hw) continue;
                        const uint8_t *xp = qx + (((size_t)img * S.hw + iy) * S.hw + ix) * S.ci;
                        const uint8_t *wp = qw + (size_t)o * K + (size_t)(ky * kw + kx) * S.ci;
                        for (int k = 0; k < S.ci; k++) acc += dq[xp[k]] * dq[wp[k]];
                    }
                ref[m * S.co + o] = (float)acc;
            }
        }
        uint8_t *dqx, *dqw, *dqr, *dyq;
        __half *dhx, *dhr, *dy, *dw16;
        float *dmult, *dbias;
        CK(cudaMalloc(&dqx, xs));
        CK(cudaMalloc(&dqw, ws));
        CK(cudaMalloc(&dqr, ys));
        CK(cudaMalloc(&dyq, yb + 16));
        CK(cudaMalloc(&dhx, xs * 2));
        CK(cudaMalloc(&dhr, ys * 2));
        CK(cudaMalloc(&dy, yb * 2 + 16));
        CK(cudaMalloc(&dw16, ws * 2));
        CK(cudaMalloc(&dmult, S.co * 4));
        CK(cudaMalloc(&dbias, S.co * 4));
        CK(cudaMemcpy(dqx, qx, xs, cudaMemcpyHostToDevice));
        CK(cudaMemcpy(dqw, qw, ws, cudaMemcpyHostToDevice));
        CK(cudaMemcpy(dqr, qr, ys, cudaMemcpyHostToDevice));
        CK(cudaMemcpy(dhx, hx, xs * 2, cudaMemcpyHostToDevice));
        CK(cudaMemcpy(dhr, hr, ys * 2, cudaMemcpyHostToDevice));
        CK(cudaMemcpy(dw16, hw16, ws * 2, cudaMemcpyHostToDevice));
        printf("\n%s (M %zu, K %d, N %d)%s%s%s\n", S.name, M, K, S.co, slice ? " (outputs: a channel slice)" : "",
               split ? ", as siblings " : "", split ? split_env : "");
        for (int mode = 0; mode < MODES; mode++) {
            if (!S.res && mode >= 2 && mode <= 5) continue; /* the residual modes */
            if (S.res && mode == 6) continue;
            if (only_mode && mode != atoi(only_mode)) continue;
            float r_s = S.res ? rs : 1.0f;
            for (int o = 0; o < S.co; o++) mult[o] = sx * wsc[o] * r_s;
            float bias_s[4096];
            for (int o = 0; o < S.co; o++) bias_s[o] = r_s * bias[o];
            CK(cudaMemcpy(dmult, mult, S.co * 4, cudaMemcpyHostToDevice));
            CK(cudaMemcpy(dbias, bias_s, S.co * 4, cudaMemcpyHostToDevice));
            int want_h = mode != 1 && mode != 6, want_q = mode == 0 || mode == 1 || mode == 3 || mode == 4 || mode == 6;
            int res_mode = !S.res                  ? I8_FP8_RES_NONE
                           : mode == 2 || mode == 4 ? I8_FP8_RES_F16
                           : mode == 3              ? I8_FP8_RES_Q
                           : mode == 5              ? I8_FP8_RES_F16_FQ
                                                    : I8_FP8_RES_NONE;
            /* reference epilogue, as the contract in cuda_fp8.h says; vmax: its largest |v| */
            double vmax = 0;
            for (size_t m = 0; m < M; m++)
                for (int o = 0; o < S.co; o++) {
                    size_t i = m * S.co + o;
                    float v = ref[i] * mult[o] + bias_s[o];
                    if (res_mode == I8_FP8_RES_F16) v = __half2float(hr[i]) + v;
                    if (res_mode == I8_FP8_RES_Q) v = dq8(qr[i]) * sr + v;
                    if (res_mode == I8_FP8_RES_F16_FQ) v = dq8(q8(__half2float(hr[i]) * inv_r)) * sr + v;
                    v = fmaxf(v, 0.0f);
                    ref_h[i] = v;
                    vmax = fmax(vmax, fabs(v));
                    refc[i] = q8(v * inv_ch[o]); /* the float v, as the contract says */
                }
            float mode_best = 1e30f;
            int mode_best_v = -1;
            for (int variant = split ? lab_variants() : 0; variant < lab_variants() + (split ? 2 : 0); variant++) {
                if (only_variant && !in_list(only_variant, variant)) continue;
                fp8_call c;
                memset(&c, 0, sizeof c);
                if (split) {
                    for (int k = 0; k < outs.n; k++) {
                        outs.y[k] = want_h ? (void *)(dy + y_off + outs.c0[k]) : NULL;
                        outs.yq[k] = want_q ? (void *)(dyq + y_off + outs.c0[k]) : NULL;
                        outs.ld[k] = y_ld;
                    }
                    c.outs = &outs;
                }
                i8_cuda_fp8_conv_args &a = c.a;
                a.x = mode == 1 ? (const void *)dhx : (const void *)dqx;
                a.x_fp8 = mode != 1;
                a.x_inv = inv_x;
                a.n = S.n, a.h = S.hw, a.w = S.hw, a.c_in = S.ci, a.x_ld = S.ci;
                a.wq = dqw, a.mult = dmult, a.bias = dbias;
                a.tma_store_off = tma_store_off;
                a.tma_store_drain = tma_store_drain, a.tma_early_off = tma_early_off;
                a.halo_prefetch = halo_prefetch;
                a.pdl = pdl;
                a.res_mode = res_mode;
                a.res = res_mode == I8_FP8_RES_Q ? (const void *)dqr : (const void *)dhr;
                a.res_ld = S.co, a.res_scale = sr, a.res_inv = inv_r;
                a.y = want_h ? dy + y_off : NULL;
                a.yq = want_q ? dyq + y_off : NULL;
                a.y_ld = y_ld, a.y_inv = inv_y;
                a.ho = ho, a.wo = wo, a.c_out = S.co, a.kh = kh, a.kw = kw, a.sh = a.sw = st, a.relu = 1;
                a.ph = S.ph, a.pw = S.pw;
                a.partial = part, a.partial_bytes = (size_t)64 << 20, a.counters = cnt, a.n_counters = 65536;
                c.variant = variant;
                if (is_multi(variant) ? !i8_cuda_conv_fp8_tma_multi_fits(&a, &outs)
                    : is_lab(variant) ? !lab_tma_fits(&a, variant - i8_cuda_conv_fp8_variants())
                                      : !i8_cuda_conv_fp8_fits(&a, variant))
                    continue;
                CK(cudaMemset(dy, 0xff, yb * 2)); /* poison: NaN halves, 0xFF codes (NaN) */
                CK(cudaMemset(dyq, 0xff, yb));
                int rc = run_fp8(&c);
                if (rc) {
                    cudaGetLastError();
                    if (var_splits(variant) == 1) { /* split-K variants may not apply (K too short) */
                        printf("  %-13s %-11s launch failed (%d)\n", modes[mode], var_name(variant), rc);
                        failures++;
                    }
                    continue;
                }
                CK(cudaDeviceSynchronize());
                double maxd = 0, maxr = 0, qbad = 0, far_v = 0; /* |v| of the largest far code */
                int qfar = 0, qwrong = 0; /* codes > 1 step off; of those, ones that fail */
                /* bytes written outside the conv's channels (FP8_LAB_SLICE): a neighbour's output
                 * overwritten */
                size_t outside = 0;
                if (slice) {
                    uint8_t *all = (uint8_t *)malloc(yb * 2);
                    for (int buf = 0; buf < 2; buf++) {
                        const int eb = buf ? 1 : 2; /* element bytes: fp16, e4m3 */
                        CK(cudaMemcpy(all, buf ? (void *)dyq : (void *)dy, yb * eb, cudaMemcpyDeviceToHost));
                        for (size_t m = 0; m < M; m++)
                            for (int c = 0; c < y_ld; c++)
                                if (c < y_off || c >= y_off + S.co)
                                    for (int e = 0; e < eb; e++) outside += all[(m * y_ld + c) * eb + e] != 0xff;
                    }
                    free(all);
                }
                if (want_h) {
                    CK(cudaMemcpy2D(goth, S.co * 2, dy + y_off, (size_t)y_ld * 2, S.co * 2, M, cudaMemcpyDeviceToHost));
                    for (size_t i = 0; i < ys; i++) {
                        double d = fabs((double)__half2float(goth[i]) - ref_h[i]);
                        if (!(d <= maxd)) maxd = d;
                        maxr = fmax(maxr, fabs(ref_h[i]));
                    }
                }
                if (want_q) {
                    CK(cudaMemcpy2D(gotc, S.co, dyq + y_off, y_ld, S.co, M, cudaMemcpyDeviceToHost));
                    for (size_t i = 0; i < ys; i++)
                        if (gotc[i] != refc[i]) {
                            qbad++;
                            if (gotc[i] == 0x7f || gotc[i] == 0xff || i8_fp8_code_steps(refc[i], gotc[i]) > 1) {
                                qfar++, far_v = fmax(far_v, fabs(ref_h[i]));
                                /* near zero a code may be several steps off: the tensor
                                 * cores' FP8 sums (fewer bits than fp32 within a K slice)
                                 * cancel to a few of their ulps, the double reference does
                                 * not; where the two codes' values are within 2e-3 of the
                                 * largest output (the fp16 check's tolerance) that is
                                 * rounding, not a bug: the tuner's rule (i8_fp8_code_far),
                                 * measured against the largest float output (vmax / sy in
                                 * code units), not the largest code */
                                if (gotc[i] == 0x7f || gotc[i] == 0xff ||
                                    i8_fp8_code_far(refc[i], gotc[i], (float)(vmax * inv_ch[i % S.co])))
                                    qwrong++;
                            }
                        }
                }
                double rel = maxr > 0 ? maxd / maxr : maxd, qshare = qbad / (double)ys;
                int ok = (!want_h || rel <= 2e-3) && (!want_q || (qshare < 0.01 && qwrong == 0)) && outside == 0;
                const bool ablation = is_lab(variant) && !is_multi(variant) && lab_tma_ablation(variant - i8_cuda_conv_fp8_variants());
                /* the epilogue stores 16- / 8-byte groups where the outputs are aligned, else one
                 * element at a time: outputs moved off alignment by 8 / 4 bytes take the second
                 * path, which must give the same bits */
                const char *epi = "";
                if (ablation) ok = 1, epi = "  (ablation: output not checked)";
                if (outside) epi = "  WROTE OUTSIDE ITS SLICE";
                else if (variant < I8_FP8_TMA_FIRST && !slice) { /* the TMA kernels need aligned outputs */
                    a.y = want_h ? (void *)((char *)dy + 8) : NULL;
                    a.yq = want_q ? (void *)(dyq + 4) : NULL;
                    CK(cudaMemset(dy, 0xff, ys * 2 + 16));
                    CK(cudaMemset(dyq, 0xff, ys + 16));
                    CK((cudaError_t)run_fp8(&c));
                    CK(cudaDeviceSynchronize());
                    size_t diff = 0;
                    if (want_h) {
                        __half *h2 = (__half *)malloc(ys * 2);
                        CK(cudaMemcpy(h2, (char *)dy + 8, ys * 2, cudaMemcpyDeviceToHost));
                        for (size_t i = 0; i < ys; i++)
                            diff += memcmp(&h2[i], &goth[i], 2) != 0;
                        free(h2);
                    }
                    if (want_q) {
                        uint8_t *c2 = (uint8_t *)malloc(ys);
                        CK(cudaMemcpy(c2, dyq + 4, ys, cudaMemcpyDeviceToHost));
                        for (size_t i = 0; i < ys; i++) diff += c2[i] != gotc[i];
                        free(c2);
                    }
                    epi = diff ? "  UNALIGNED OUTPUT DIFFERS" : "  unaligned identical";
                    if (diff) ok = 0;
                    a.y = want_h ? dy : NULL;
                    a.yq = want_q ? dyq : NULL;
                }
                failures += !ok;
                float us = time_us(run_fp8, &c);
                if (!ok || var_splits(variant) == 1)
                    printf("  %-13s %-11s k%d %8.2f us  fp16 rel %.2e  e4m3 codes differing %.4f%% (far %d, |v| <= %.1e of max)  %s%s\n",
                           modes[mode], var_name(variant), var_splits(variant), us, rel, 100 * qshare, qfar,
                           vmax > 0 ? far_v / vmax : 0.0, ok ? "ok" : "FAIL", epi);
                if (ok && !ablation && us >= 0 && us < mode_best) mode_best = us, mode_best_v = variant;
            }
            if (mode_best_v >= 0)
                printf("  %-13s best: %s k%d %.2f us\n", modes[mode], var_name(mode_best_v), var_splits(mode_best_v),
                       mode_best);
        }
        /* the fp16 own kernel on the same problem (weights = dequantized e4m3), best variant */
        float best = 1e30f;
        int best_v = -1;
        for (int v = 0; v < i8_cuda_conv_own_variants(); v++) {
            own_call c;
            memset(&c, 0, sizeof c);
            i8_cuda_conv_args &a = c.a;
            a.x = dhx, a.n = S.n, a.h = S.hw, a.w = S.hw, a.c_in = S.ci, a.x_ld = S.ci, a.wt = dw16, a.bias = dbias;
            a.res = S.res ? dhr : NULL, a.res_ld = S.co, a.y = dy, a.y_ld = S.co;
            a.ho = ho, a.wo = wo, a.c_out = S.co, a.kh = kh, a.kw = kw, a.sh = a.sw = st, a.relu = 1;
            a.ph = S.ph, a.pw = S.pw;
            a.partial = part, a.partial_bytes = (size_t)64 << 20, a.counters = cnt, a.n_counters = 65536;
            c.variant = v;
            if (run_own(&c)) {
                cudaGetLastError();
                continue;
            }
            float us = time_us(run_own, &c);
            if (us >= 0 && us < best) best = us, best_v = v;
        }
        if (best_v >= 0) printf("  fp16 own kernel best: %s k%d %.2f us\n", i8_cuda_conv_own_name(best_v), i8_cuda_conv_own_splits(best_v), best);
        cudaFree(dqx), cudaFree(dqw), cudaFree(dqr), cudaFree(dyq), cudaFree(dhx), cudaFree(dhr), cudaFree(dy);
        cudaFree(dw16), cudaFree(dmult), cudaFree(dbias);
        free(hx), free(hr), free(hw16), free(qx), free(qw), free(qr), free(wsc), free(mult), free(bias);
        free(ref), free(ref_q), free(ref_h), free(refc), free(gotc), free(goth), free(inv_ch);
    }
    printf("\n%s: %d failure(s)\n", failures ? "FAIL" : "PASS", failures);
    return failures ? 1 : 0;
}
