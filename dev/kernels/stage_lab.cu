/* stage_lab: the floor of a chain of dependent layers at batch 1, three ways (session 59).
 *
 * IRv2's batch-1 forward is bound by its critical path: 175 convs one after another (tests/tools/
 * critical_path on session 59's per-conv times), 3.5-3.8 us each, against a roofline of well under
 * 1 us each. Launch latency, not arithmetic, sets that time; kernels that fuse two convs lost to a
 * floor of 3 us for an empty clustered launch (docs/performance.md, "Session 56"). What one
 * persistent kernel that runs every layer and orders them with counters in global memory would
 * pay per layer is not known. This lab measures it on stand-in layers: stage s of STAGES reads
 * its own BYTES of "weights" (distinct per stage, as a forward's are), then one value that another
 * block wrote in stage s - 1 (the data dependence), and writes one value. Modes:
 *   graph       one kernel per stage, in a CUDA graph on one stream (what the backend does now)
 *   graph-pdl   the same, each kernel launched with programmatic dependent launch: it loads its
 *               weights, lets the next kernel start, then waits for the previous one's results
 *               (what the own FP8 kernels do)
 *   persistent  one cooperative kernel of BLOCKS blocks walking the stages: weights loaded, then a
 *               spin on a counter until all BLOCKS blocks of stage s - 1 have arrived (acquire
 *               loads), the dependent value read, the result written, arrival counted (release)
 * Each mode's results are checked against the host's recursion after a run on poisoned outputs
 * (a stage that read its input early reads poison); then timed: median [min, max] us per forward
 * and per stage over REPS runs (CUDA events).
 * Session 60 (H100): 1.87 us a stage as graph kernels, 1.31 with PDL, 1.78 persistent: no
 * persistent forward. At batch 1 the own FP8 kernels take about 1 us more than cuDNN's e4m3
 * kernels on nearly every IRv2 conv, the smallest included (1x1 320 -> 32 at 35x35: 3.7 against
 * 2.6 us), as if each paid a fixed cost. Their code is large (SASS, tools/ptx-summary --sass: the
 * TMA kernels 28-52 KB each, the halo ones 38-61, the cp.async wgmma ones 82-166), and at batch 1
 * a block runs much of it once, cold in the instruction caches. STAGE_LAB_CODE: warp 0 of each
 * block runs the same instructions after the wait (8 chains of FFMAs, 8 a step), either as a loop
 * (1: a few hundred bytes of code) or unrolled (2: STAGE_LAB_CODE_KB of code), each stage on one of
 * STAGE_LAB_KINDS kernels with code of their own (1-4; 4 x 64 KB exceeds what an SM caches), so
 * that a stage finds its code cold as a forward's convs do. The persistent mode runs without it.
 * Session 61 (H100): the loop ran slower than the unrolled code (64 KB: 10.47 against 7.77 us a
 * stage), so loop against unrolled does not isolate code size; one kernel against four at the
 * same size does (64 KB unrolled: 7.59 against 7.77 us as graph kernels, 6.65 against 7.48 with
 * PDL).
 * Env: STAGE_LAB_STAGES (175), STAGE_LAB_BLOCKS (the SM count), STAGE_LAB_BYTES (229376: IRv2's
 * 55 MB of e4m3 weights over 244 convs), STAGE_LAB_REPS (50), STAGE_LAB_CODE (0: none, 1 loop, 2
 * unrolled), STAGE_LAB_CODE_KB (16, 32 or 64), STAGE_LAB_KINDS (1..4).
 * Build: cmake --build build-device --target stage_lab (tools/prepare-device packs it). */
#include <algorithm>
#include <vector>

#include "backends/cuda/cuda_pdl.cuh"
#include "lab_common.cuh"

#define THREADS 256

struct stage_args {
    const uint4 *weights; /* stages x words16 uint4 */
    unsigned *out;        /* stages x blocks */
    unsigned *sink;       /* STAGE_LAB_CODE: the code's results, one a block (kept, never checked) */
    unsigned *arrived;    /* persistent: blocks arrived, counting on from base across launches */
    unsigned base;        /* persistent: the counter's value when this launch began */
    int stages, blocks, words16;
    int code_steps;       /* STAGE_LAB_CODE 1: the loop's steps (8 instructions each) */
};

__device__ __forceinline__ unsigned ld_acquire(const unsigned *p) {
    unsigned v;
    asm volatile("ld.acquire.gpu.global.u32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
    return v;
}

/* the block's share of stage s's weights, summed (every thread's words, then the block's) */
__device__ __forceinline__ unsigned stage_weights(const stage_args &a, int s, unsigned *red) {
    const uint4 *w = a.weights + (size_t)s * a.words16;
    unsigned sum = 0;
    for (int i = blockIdx.x * THREADS + threadIdx.x; i < a.words16; i += a.blocks * THREADS) {
        const uint4 v = __ldcs(w + i); /* streamed: each stage's weights are read once a forward */
        sum += v.x ^ v.y ^ v.z ^ v.w;
    }
    for (int o = 16; o > 0; o >>= 1) sum += __shfl_xor_sync(0xffffffffu, sum, o);
    if (threadIdx.x % 32 == 0) red[threadIdx.x / 32] = sum;
    __syncthreads();
    unsigned total = 0;
    if (threadIdx.x == 0)
        for (int i = 0; i < THREADS / 32; i++) total += red[i];
    __syncthreads();
    return total; /* thread 0's */
}

/* stage s's result of block b: its weights' sum plus what block b + 1 (mod blocks) wrote in s - 1 */
__device__ __forceinline__ void stage_finish(const stage_args &a, int s, unsigned wsum) {
    if (threadIdx.x != 0) return;
    const unsigned prev = s ? ld_acquire(a.out + (size_t)(s - 1) * a.blocks + (blockIdx.x + 1) % a.blocks) : 0u;
    a.out[(size_t)s * a.blocks + blockIdx.x] = wsum + prev * 3u + (unsigned)s;
}

/* one step of the code-size work: 8 FFMAs (one issue cycle a warp each), each chain mixing in two
 * others (without fast math nothing for the compiler to fold; the values do not matter) */
#define CODE_STEP(r)                                                                                \
    _Pragma("unroll") for (int k = 0; k < 8; k++) r[k] = fmaf(r[k], r[(k + 1) & 7], r[(k + 3) & 7])

/* CODE 0: none; 1: a.code_steps steps as a loop (its counter and branch make it, if anything,
 * slower); 2: STEPS steps unrolled (STEPS x 8 FFMAs of 16 bytes: 128 steps are 16 KB of code).
 * KIND makes each kind's code its own. */
template <int CODE, int STEPS, int KIND>
__device__ __forceinline__ void stage_code(const stage_args &a, unsigned seed) {
    if constexpr (CODE != 0) {
        if (threadIdx.x >= 32) return;
        float r[8];
#pragma unroll
        for (int k = 0; k < 8; k++) r[k] = (float)((seed >> k) & 255u) * 0.01f + (float)(k + KIND);
        if constexpr (CODE == 1) {
#pragma unroll 1
            for (int i = 0; i < a.code_steps; i++) CODE_STEP(r);
        } else {
#pragma unroll
            for (int i = 0; i < STEPS; i++) CODE_STEP(r);
        }
        unsigned x = 0;
#pragma unroll
        for (int k = 0; k < 8; k++) x ^= __float_as_uint(r[k]);
        if (threadIdx.x == 0) a.sink[blockIdx.x] = x;
    }
}

/* one stage as its own kernel; launched without PDL's attribute the two griddep calls do nothing */
template <int CODE, int STEPS, int KIND>
__global__ void __launch_bounds__(THREADS) stage_kernel(stage_args a, int s) {
    __shared__ unsigned red[THREADS / 32];
    const unsigned wsum = stage_weights(a, s, red); /* no earlier stage's output: before the wait */
    griddep_launch_dependents();
    griddep_wait();
    stage_code<CODE, STEPS, KIND>(a, wsum); /* warp 0, thread 0 among it: before its result */
    stage_finish(a, s, wsum);
}

#define KINDS_MAX 4
typedef void (*stage_fn)(stage_args, int);
/* [code][kb index: 16, 32, 64][kind] */
#define STAGE_KINDS(C, S) {(stage_fn)stage_kernel<C, S, 0>, (stage_fn)stage_kernel<C, S, 1>, (stage_fn)stage_kernel<C, S, 2>, (stage_fn)stage_kernel<C, S, 3>}
static const stage_fn stage_kernels[3][3][KINDS_MAX] = {
    {STAGE_KINDS(0, 1), STAGE_KINDS(0, 1), STAGE_KINDS(0, 1)},
    {STAGE_KINDS(1, 1), STAGE_KINDS(1, 1), STAGE_KINDS(1, 1)},
    {STAGE_KINDS(2, 128), STAGE_KINDS(2, 256), STAGE_KINDS(2, 512)},
};

__global__ void __launch_bounds__(THREADS) stage_persistent(stage_args a) {
    __shared__ unsigned red[THREADS / 32];
    for (int s = 0; s < a.stages; s++) {
        const unsigned wsum = stage_weights(a, s, red);
        if (threadIdx.x == 0 && s > 0) { /* all blocks of stage s - 1 have arrived */
            const unsigned need = a.base + (unsigned)s * (unsigned)a.blocks;
            while ((int)(ld_acquire(a.arrived) - need) < 0) __nanosleep(20);
        }
        stage_finish(a, s, wsum);
        if (threadIdx.x == 0) {
            __threadfence();
            atomicAdd(a.arrived, 1u);
        }
        __syncthreads();
    }
}

static int env_int(const char *name, int dflt) {
    const char *v = getenv(name);
    return v && *v ? atoi(v) : dflt;
}

static void launch_stage(stage_fn kernel, stage_args a, int s, bool pdl, cudaStream_t st) {
    void *args[] = {&a, &s};
    CK(launch_pdl((const void *)kernel, dim3((unsigned)a.blocks), dim3(THREADS), 0, st, pdl ? 1 : 0, args));
}

int main(void) {
    int dev = 0, sms = 0, coop = 0;
    CK(cudaGetDevice(&dev));
    CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
    CK(cudaDeviceGetAttribute(&coop, cudaDevAttrCooperativeLaunch, dev));
    const int stages = env_int("STAGE_LAB_STAGES", 175), blocks = env_int("STAGE_LAB_BLOCKS", sms);
    const long long bytes = env_int("STAGE_LAB_BYTES", 229376), reps = env_int("STAGE_LAB_REPS", 50);
    const int code = env_int("STAGE_LAB_CODE", 0), code_kb = env_int("STAGE_LAB_CODE_KB", 32),
              kinds = env_int("STAGE_LAB_KINDS", code ? KINDS_MAX : 1);
    const int kb_index = code_kb == 16 ? 0 : code_kb == 32 ? 1 : code_kb == 64 ? 2 : -1;
    int per_sm = 0;
    CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, stage_persistent, THREADS, 0));
    if (stages < 1 || stages > 100000 || blocks < 1 || bytes < 16 || bytes > (1ll << 28) || reps < 1 || reps > 10000 ||
        blocks > per_sm * sms || code < 0 || code > 2 || kb_index < 0 || kinds < 1 || kinds > KINDS_MAX) {
        fprintf(stderr, "stage_lab: STAGES 1..100000, BLOCKS 1..%d (co-resident), BYTES 16..2^28, REPS 1..10000, CODE 0..2, "
                        "CODE_KB 16, 32 or 64, KINDS 1..%d\n", per_sm * sms, KINDS_MAX);
        return 2;
    }
    const int words16 = (int)(bytes / 16);
    cudaDeviceProp prop;
    CK(cudaGetDeviceProperties(&prop, dev));
    printf("stage_lab: %s, %d SMs; %d stages, %d blocks of %d threads, %d bytes of weights a stage (%.1f MB in all), %lld reps\n",
           prop.name, sms, stages, blocks, THREADS, words16 * 16, stages * (double)words16 * 16 / 1e6, reps);
    if (code)
        printf("stage_lab: code after the wait: %d x 8 FFMAs (warp 0), %s, on %d kernel%s taken in turn\n",
               code_kb * 8, code == 1 ? "as a loop" : "unrolled", kinds, kinds > 1 ? "s" : "");

    /* weights: a fixed pattern; the host's expected results by the kernels' recursion */
    std::vector<uint4> hw((size_t)stages * words16);
    for (size_t i = 0; i < hw.size(); i++) {
        const unsigned x = (unsigned)(i * 2654435761u);
        hw[i] = make_uint4(x, x ^ 0x5bd1e995u, x * 7u, x + 13u);
    }
    std::vector<unsigned> want((size_t)stages * blocks), got(want.size());
    for (int s = 0; s < stages; s++)
        for (int b = 0; b < blocks; b++) {
            unsigned w = 0;
            for (int i = b * THREADS; i < words16; i += blocks * THREADS) /* every thread's words of block b */
                for (int t = 0; t < THREADS && i + t < words16; t++) {
                    const uint4 v = hw[(size_t)s * words16 + i + t];
                    w += v.x ^ v.y ^ v.z ^ v.w;
                }
            const unsigned prev = s ? want[(size_t)(s - 1) * blocks + (b + 1) % blocks] : 0u;
            want[(size_t)s * blocks + b] = w + prev * 3u + (unsigned)s;
        }

    stage_args a = {};
    a.stages = stages, a.blocks = blocks, a.words16 = words16;
    a.code_steps = code_kb * 8; /* the unrolled kernels' STEPS for this size: the same work */
    CK(cudaMalloc((void **)&a.weights, hw.size() * sizeof(uint4)));
    CK(cudaMalloc((void **)&a.sink, (size_t)blocks * sizeof(unsigned)));
    CK(cudaMalloc((void **)&a.out, want.size() * sizeof(unsigned)));
    CK(cudaMalloc((void **)&a.arrived, sizeof(unsigned)));
    CK(cudaMemcpy((void *)a.weights, hw.data(), hw.size() * sizeof(uint4), cudaMemcpyHostToDevice));
    CK(cudaMemset(a.arrived, 0, sizeof(unsigned)));
    cudaStream_t st;
    CK(cudaStreamCreateWithFlags(&st, cudaStreamNonBlocking));
    cudaEvent_t e0, e1;
    CK(cudaEventCreate(&e0));
    CK(cudaEventCreate(&e1));

    cudaGraphExec_t graphs[2] = {NULL, NULL};
    for (int pdl = 0; pdl < 2; pdl++) {
        cudaGraph_t g;
        CK(cudaStreamBeginCapture(st, cudaStreamCaptureModeRelaxed));
        for (int s = 0; s < stages; s++) launch_stage(stage_kernels[code][kb_index][s % kinds], a, s, pdl != 0, st);
        CK(cudaStreamEndCapture(st, &g));
        CK(cudaGraphInstantiate(&graphs[pdl], g, 0));
        CK(cudaGraphDestroy(g));
    }
    unsigned launches = 0; /* persistent launches so far: the counter's base */
    auto run = [&](int mode) {
        if (mode < 2) {
            CK(cudaGraphLaunch(graphs[mode], st));
            return;
        }
        if (!coop) {
            fprintf(stderr, "stage_lab: no cooperative launch on this device\n");
            exit(1);
        }
        stage_args p = a;
        p.base = launches * (unsigned)stages * (unsigned)blocks;
        void *args[] = {&p};
        CK(cudaLaunchCooperativeKernel((const void *)stage_persistent, dim3((unsigned)blocks), dim3(THREADS), args, 0, st));
        launches++;
    };
    static const char *const names[3] = {"graph", "graph-pdl", "persistent"};
    int failed = 0;
    for (int mode = 0; mode < (code ? 2 : 3); mode++) { /* the persistent kernel has no code-size work */
        CK(cudaMemsetAsync(a.out, 0xa5, want.size() * sizeof(unsigned), st)); /* poison */
        run(mode);
        CK(cudaStreamSynchronize(st));
        CK(cudaMemcpy(got.data(), a.out, got.size() * sizeof(unsigned), cudaMemcpyDeviceToHost));
        size_t wrong = 0, first = got.size();
        for (size_t i = 0; i < got.size(); i++)
            if (got[i] != want[i]) {
                wrong++;
                if (first == got.size()) first = i;
            }
        for (int w = 0; w < 3; w++) run(mode); /* warm-up */
        std::vector<float> ms((size_t)reps);
        for (long long r = 0; r < reps; r++) {
            CK(cudaEventRecord(e0, st));
            run(mode);
            CK(cudaEventRecord(e1, st));
            CK(cudaEventSynchronize(e1));
            CK(cudaEventElapsedTime(&ms[(size_t)r], e0, e1));
        }
        std::sort(ms.begin(), ms.end());
        const double med = ms[ms.size() / 2] * 1e3, lo = ms.front() * 1e3, hi = ms.back() * 1e3;
        printf("  %-10s %9.1f us [%.1f, %.1f] a forward, %6.2f us a stage; %s", names[mode], med, lo, hi, med / stages,
               wrong ? "WRONG" : "results ok");
        if (wrong) printf(" (%zu of %zu, first at stage %zu block %zu)", wrong, got.size(), first / blocks, first % blocks);
        printf("\n");
        failed |= wrong != 0;
    }
    for (int i = 0; i < 2; i++) CK(cudaGraphExecDestroy(graphs[i]));
    CK(cudaFree((void *)a.weights));
    CK(cudaFree(a.out));
    CK(cudaFree(a.sink));
    CK(cudaFree(a.arrived));
    return failed;
}
