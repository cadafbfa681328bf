/* Convolution tactics of the CUDA backend: for each distinct conv problem of a batch size,
 * time the implementations that fit and keep the fastest:
 *   - cuBLASLt GEMM for 1x1 stride-1 convs (NHWC makes them [pixels, c_in] x [c_in, c_out]);
 *     epilogue BIAS / RELU_BIAS, residual through beta = 1 with C = x, ldd = slice stride;
 *   - cuDNN 9 backend graph conv -> add bias [-> add x] [-> relu], strided NHWC descriptors so
 *     the output lands in its concat slice (configs that reject the strides fail to finalize
 *     and are skipped);
 *   - the own implicit-GEMM kernel (cuda_kernels.cu), which fits every conv and is the fallback.
 * The residual scale is folded into the weights and bias at prepare, so every epilogue is
 * act(conv + bias [+ x]). Nodes with the same signature share the tuned plan. */
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "backends/cuda/cuda_private.h"
#include "backends/cuda/cudnn_budget.h"

#define TUNE_WARMUP 2
#define TUNE_REPS 10
#define TUNE_REPLAYS 2 /* timed replays of the graph of TUNE_REPS calls */
#define MAX_LT_ALGOS 4
#define MAX_CUDNN_CFGS 4

int i8_cuda_align_of(const void *p) {
    uintptr_t a = (uintptr_t)p;
    int al = 256;
    while (al > 1 && (a % (uintptr_t)al) != 0) al >>= 1;
    return al;
}

static double now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void make_sig(const cu_ctx *c, int node, cu_conv_sig *s) {
    const i8_node *nd = &c->g->nodes[node], *in = &c->g->nodes[nd->inputs[0]];
    memset(s, 0, sizeof *s);
    s->h = in->h, s->w = in->w, s->c_in = c->rt[node].c_in_phys, s->x_ld = i8_cuda_view_ld(c, nd->inputs[0]);
    s->ho = nd->h, s->wo = nd->w, s->c_out = nd->c, s->kh = nd->kh, s->kw = nd->kw;
    s->sh = nd->sh, s->sw = nd->sw, s->ph = nd->ph, s->pw = nd->pw;
    s->relu = nd->act == I8_ACT_RELU;
    s->has_res = nd->residual >= 0;
    s->res_ld = s->has_res ? i8_cuda_view_ld(c, nd->inputs[1]) : 0;
    s->y_ld = i8_cuda_view_ld(c, node);
    s->align_x = i8_cuda_align_of(i8_cuda_view_ptr(c, nd->inputs[0]));
    s->align_y = i8_cuda_align_of(i8_cuda_view_ptr(c, node));
    s->align_r = s->has_res ? i8_cuda_align_of(i8_cuda_view_ptr(c, nd->inputs[1])) : 0;
    i8_cuda_fp8_sig(c, node, s); /* FP8 fields; zero (unchanged signature) for fp16 convs */
}

void i8_cuda_conv_sig(const cu_ctx *c, int node, cu_conv_sig *s) { make_sig(c, node, s); }

/* ---------------------------------------------------------------- execution of one plan */

/* The bias a cuBLASLt fp16 conv reads: fp32 (lt_setup says why), the fp16 copy only with
 * INFER8_CUDA_LOSSY_ENGINES=1 */
static const void *lt_bias(const cu_ctx *c, int node) {
    return c->cudnn_lossy_ok ? c->rt[node].b16 : (const void *)c->rt[node].b32;
}

static int run_plan(cu_ctx *c, int n, cu_conv_plan *p, int node, cudaStream_t s, int wsi,
                    cudnnBackendDescriptor_t vp) {
    void *ws = c->ws[wsi];
    const i8_node *nd = &c->g->nodes[node];
    const cu_conv_sig *g = &p->sig;
    const void *x = i8_cuda_view_ptr(c, nd->inputs[0]);
    const void *res = g->has_res ? i8_cuda_view_ptr(c, nd->inputs[1]) : NULL;
    void *y = i8_cuda_view_ptr(c, node);
    switch (p->tac.kind) {
    case I8_CUDA_TACTIC_OWN: {
        i8_cuda_conv_args a = {
            .x = x, .n = n, .h = g->h, .w = g->w, .c_in = g->c_in, .x_ld = g->x_ld, .wt = c->rt[node].w16,
            .bias = c->rt[node].b32, .res = res, .res_ld = g->res_ld, .y = y, .y_ld = g->y_ld, .ho = g->ho,
            .wo = g->wo, .c_out = g->c_out, .kh = g->kh, .kw = g->kw, .sh = g->sh, .sw = g->sw, .ph = g->ph,
            .pw = g->pw, .relu = g->relu, .partial = ws, .partial_bytes = CU_WORKSPACE_BYTES,
            .counters = c->counters[wsi], .n_counters = CU_SPLIT_COUNTERS,
            .c_in_used = c->g->nodes[nd->inputs[0]].c, .sm_count = c->sm_count};
        return i8_cuda_conv_own(&a, p->tac.variant, s);
    }
    case I8_CUDA_TACTIC_CUBLASLT: {
        const void *bias = lt_bias(c, node);
        cublasStatus_t st =
            c->lt_fn.desc_set_attribute(p->mm, CUBLASLT_MATMUL_DESC_BIAS_POINTER, &bias, sizeof bias);
        if (st != CUBLAS_STATUS_SUCCESS) return (int)st;
        float alpha = 1.0f, beta = g->has_res ? 1.0f : 0.0f;
        cublasLtMatmulAlgo_t algo;
        memcpy(&algo, p->tac.algo, sizeof algo);
        st = c->lt_fn.matmul(c->lt, p->mm, &alpha, c->rt[node].w16, p->la, x, p->lb, &beta, g->has_res ? res : y,
                             p->lc, y, p->ld, &algo, ws, CU_WORKSPACE_BYTES, s);
        return (int)st;
    }
    case I8_CUDA_TACTIC_CUDNN:
    case I8_CUDA_TACTIC_FP8_DNN: {
        cudnnStatus_t st = cudnnSetStream(c->dnn, s);
        if (st == CUDNN_STATUS_SUCCESS) st = cudnnBackendExecute(c->dnn, p->plan, vp);
        return (int)st;
    }
    case I8_CUDA_TACTIC_FP8: return i8_cuda_fp8_launch(c, n, g, node, p->tac.variant, s, wsi);
    case I8_CUDA_TACTIC_FP8_LT: return i8_cuda_fp8_lt_launch(c, n, p, node, s, wsi);
    default: return -1;
    }
}

typedef struct plan_reps {
    cu_ctx *c;
    int n, node;
    cu_conv_plan *p;
    cudnnBackendDescriptor_t vp;
    cudaStream_t s;
} plan_reps;

static int launch_reps(void *arg) {
    const plan_reps *r = arg;
    int rc = 0;
    for (int i = 0; i < TUNE_REPS && !rc; i++) rc = run_plan(r->c, r->n, r->p, r->node, r->s, 0, r->vp);
    return rc;
}

/* Mean milliseconds of one call, after warm-up; < 0 when a call fails (launch errors are
 * cleared so the next candidate starts clean; a sticky device error is reported by the sync).
 * Timed as replays of a captured graph of the calls, as the forward runs: the GPU's time
 * without the host's per-call cost. Timed as stream launches (until session 16, still the
 * fallback), a batch-1 conv of a few microseconds measured the host as well: cuDNN's execute
 * and the TMA kernels' tensor-map encoding cost microseconds of CPU per call, and which tactic
 * won changed with the CPU of the machine (IRv2 FP8 batch 1: 0.819 ms in one session's graph,
 * 1.035 in the next, the fp16 graph 4% apart). */
static float time_plan(cu_ctx *c, int n, cu_conv_plan *p, int node, cudnnBackendDescriptor_t vp) {
    cudaStream_t s = c->streams[0];
    for (int i = 0; i < TUNE_WARMUP; i++)
        if (run_plan(c, n, p, node, s, 0, vp) != 0) {
            cudaGetLastError();
            cudaStreamSynchronize(s);
            return -1.0f;
        }
    /* TUNE_REPS calls captured as one graph; without a graph (the capture failed), timed as
     * stream launches */
    plan_reps reps = {c, n, node, p, vp, s};
    float replayed_ms = 0.0f;
    const int replayed = i8_cuda_captured_ms(c, s, launch_reps, &reps, TUNE_REPLAYS, &replayed_ms);
    if (replayed == 0) return replayed_ms / (TUNE_REPLAYS * TUNE_REPS);
    if (replayed < 0) {
        cudaGetLastError();
        cudaStreamSynchronize(s);
        return -1.0f;
    }
    if (cudaEventRecord(c->t0, s) != cudaSuccess) return -1.0f;
    for (int i = 0; i < TUNE_REPS; i++)
        if (run_plan(c, n, p, node, s, 0, vp) != 0) {
            cudaGetLastError();
            cudaStreamSynchronize(s);
            return -1.0f;
        }
    float ms = 0.0f;
    if (cudaEventRecord(c->t1, s) != cudaSuccess || cudaEventSynchronize(c->t1) != cudaSuccess ||
        cudaEventElapsedTime(&ms, c->t0, c->t1) != cudaSuccess) {
        cudaGetLastError();
        return -1.0f;
    }
    return ms / TUNE_REPS;
}

/* p run as own-kernel tactic (kind, variant) of the FP8 or fp16 kernels: *tac is that tactic
 * with its time, which is returned (< 0: it did not run) */
static float time_variant(cu_ctx *c, int n, const cu_conv_plan *p, int node, int kind, int variant,
                          i8_cuda_tactic *tac) {
    cu_conv_plan trial = *p;
    memset(&trial.tac, 0, sizeof trial.tac);
    trial.tac.kind = kind, trial.tac.variant = variant, trial.tac.engine = -1;
    trial.tac.ms = time_plan(c, n, &trial, node, NULL);
    *tac = trial.tac;
    return tac->ms;
}

/* ---------------------------------------------------------------- cuBLASLt */

static void lt_destroy(const cu_ctx *c, cu_conv_plan *p) {
    if (p->la) c->lt_fn.layout_destroy(p->la);
    if (p->lb) c->lt_fn.layout_destroy(p->lb);
    if (p->lc) c->lt_fn.layout_destroy(p->lc);
    if (p->ld) c->lt_fn.layout_destroy(p->ld);
    if (p->mm) c->lt_fn.desc_destroy(p->mm);
    p->la = p->lb = p->lc = p->ld = NULL;
    p->mm = NULL;
}

int i8_cuda_lt_desc(cu_ctx *c, cu_conv_plan *p, int relu, const void *bias, int32_t bias_type) {
    const i8_cublaslt *lt = &c->lt_fn;
    const cublasOperation_t ta = CUBLAS_OP_T, tb = CUBLAS_OP_N;
    const cublasLtEpilogue_t epi = relu ? CUBLASLT_EPILOGUE_RELU_BIAS : CUBLASLT_EPILOGUE_BIAS;
    return lt->desc_create(&p->mm, CUBLAS_COMPUTE_32F, CUDA_R_32F) == CUBLAS_STATUS_SUCCESS &&
           !lt->desc_set_attribute(p->mm, CUBLASLT_MATMUL_DESC_TRANSA, &ta, sizeof ta) &&
           !lt->desc_set_attribute(p->mm, CUBLASLT_MATMUL_DESC_TRANSB, &tb, sizeof tb) &&
           !lt->desc_set_attribute(p->mm, CUBLASLT_MATMUL_DESC_EPILOGUE, &epi, sizeof epi) &&
           !lt->desc_set_attribute(p->mm, CUBLASLT_MATMUL_DESC_BIAS_POINTER, &bias, sizeof bias) &&
           !lt->desc_set_attribute(p->mm, CUBLASLT_MATMUL_DESC_BIAS_DATA_TYPE, &bias_type, sizeof bias_type);
}

static int lt_fits(const cu_conv_sig *g) {
    return g->kh == 1 && g->kw == 1 && g->sh == 1 && g->sw == 1 && g->ph == 0 && g->pw == 0;
}

/* Creates the GEMM descriptors of p and asks the heuristic for up to max algorithms. The bias is
 * asked for in fp32, as cuDNN's graphs and the own kernels read it: in fp16 (the descriptor's
 * default for an fp16 output) it is rounded once more before the sum is, up to a whole fp16 ulp
 * off in all (test_fp16_single_rounding), which put inception_v3 above the fp16 floor (session
 * 18). cuBLASLt 13.1 offers no algorithm for an fp32 bias with an fp16 output, so by default
 * the fp16 1x1 convs run on cuDNN or the own kernels (IRv2 batch 32: 5% slower, session 18);
 * INFER8_CUDA_LOSSY_ENGINES=1 reads the fp16 copy and brings cuBLASLt back. */
static int lt_setup(cu_ctx *c, int n, cu_conv_plan *p, int node, cublasLtMatmulHeuristicResult_t *res, int max) {
    const cu_conv_sig *g = &p->sig;
    uint64_t m = (uint64_t)n * g->h * g->w, k = (uint64_t)g->c_in, co = (uint64_t)g->c_out;
    if (!i8_cuda_lt_desc(c, p, g->relu, lt_bias(c, node), c->cudnn_lossy_ok ? CUDA_R_16F : CUDA_R_32F) ||
        c->lt_fn.layout_create(&p->la, CUDA_R_16F, k, co, (int64_t)k) ||
        c->lt_fn.layout_create(&p->lb, CUDA_R_16F, k, m, g->x_ld) ||
        c->lt_fn.layout_create(&p->lc, CUDA_R_16F, co, m, g->has_res ? g->res_ld : g->y_ld) ||
        c->lt_fn.layout_create(&p->ld, CUDA_R_16F, co, m, g->y_ld))
        return 0;
    return i8_cuda_lt_heuristic(c, p, 16, (uint32_t)g->align_x, (uint32_t)(g->has_res ? g->align_r : g->align_y),
                                (uint32_t)g->align_y, res, max);
}

/* cuBLASLt's split-K algorithms that add the partial sums in the output type (INPLACE and
 * OUTPUT_TYPE: fp16 here) round once more per split, as cuDNN's reduced-precision reductions do
 * (dnn_engine_lossy); the heuristic offers them only with INFER8_CUDA_LOSSY_ENGINES=1. Partial
 * sums in fp32 (COMPUTE_TYPE) and no split-K stay. */
static uint32_t lt_reduction_schemes(const cu_ctx *c) {
    return c->cudnn_lossy_ok ? (uint32_t)CUBLASLT_REDUCTION_SCHEME_MASK : (uint32_t)CUBLASLT_REDUCTION_SCHEME_COMPUTE_TYPE;
}

int i8_cuda_tactic_lossy_reduction(const void *ctx, const i8_cuda_tactic *t) {
    const cu_ctx *c = ctx;
    if (t->kind != I8_CUDA_TACTIC_CUBLASLT && t->kind != I8_CUDA_TACTIC_FP8_LT) return 0;
    cublasLtMatmulAlgo_t algo;
    memcpy(&algo, t->algo, sizeof algo);
    uint32_t scheme = CUBLASLT_REDUCTION_SCHEME_NONE;
    size_t written = 0;
    if (c->lt_fn.algo_config_get_attribute(&algo, CUBLASLT_ALGO_CONFIG_REDUCTION_SCHEME, &scheme, sizeof scheme,
                                           &written) != CUBLAS_STATUS_SUCCESS)
        return -1;
    return scheme == CUBLASLT_REDUCTION_SCHEME_INPLACE || scheme == CUBLASLT_REDUCTION_SCHEME_OUTPUT_TYPE;
}

int i8_cuda_lt_heuristic(cu_ctx *c, cu_conv_plan *p, uint32_t al_a, uint32_t al_b, uint32_t al_c, uint32_t al_d,
                         cublasLtMatmulHeuristicResult_t *res, int max) {
    uint64_t wsb = CU_WORKSPACE_BYTES;
    const uint32_t schemes = lt_reduction_schemes(c);
    cublasLtMatmulPreference_t pref = NULL;
    int found = 0;
    if (c->lt_fn.preference_create(&pref) ||
        c->lt_fn.preference_set_attribute(pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &wsb, sizeof wsb) ||
        c->lt_fn.preference_set_attribute(pref, CUBLASLT_MATMUL_PREF_REDUCTION_SCHEME_MASK, &schemes, sizeof schemes) ||
        c->lt_fn.preference_set_attribute(pref, CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_A_BYTES, &al_a, sizeof al_a) ||
        c->lt_fn.preference_set_attribute(pref, CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_B_BYTES, &al_b, sizeof al_b) ||
        c->lt_fn.preference_set_attribute(pref, CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_C_BYTES, &al_c, sizeof al_c) ||
        c->lt_fn.preference_set_attribute(pref, CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_D_BYTES, &al_d, sizeof al_d) ||
        c->lt_fn.algo_get_heuristic(c->lt, p->mm, p->la, p->lb, p->lc, p->ld, pref, max, res, &found) !=
            CUBLAS_STATUS_SUCCESS)
        found = 0;
    if (pref) c->lt_fn.preference_destroy(pref);
    return found;
}

/* ---------------------------------------------------------------- cuDNN backend graph */

static void dnn_destroy(cu_conv_plan *p) {
    if (p->plan) cudnnBackendDestroyDescriptor(p->plan);
    p->plan = NULL;
    for (int i = p->n_desc - 1; i >= 0; i--) cudnnBackendDestroyDescriptor(p->desc[i]);
    p->n_desc = 0;
}

static cudnnStatus_t newd(cu_conv_plan *p, cudnnBackendDescriptorType_t t, cudnnBackendDescriptor_t *d) {
    if (p->n_desc >= CU_MAX_CUDNN_DESC) return CUDNN_STATUS_INTERNAL_ERROR;
    cudnnStatus_t st = cudnnBackendCreateDescriptor(t, d);
    if (st == CUDNN_STATUS_SUCCESS) p->desc[p->n_desc++] = *d;
    return st;
}

#define DNN_TRY(call)                                                                                        \
    do {                                                                                                     \
        st = (call);                                                                                         \
        if (st != CUDNN_STATUS_SUCCESS) return st;                                                           \
    } while (0)

static cudnnStatus_t tensor_desc(cu_conv_plan *p, int64_t uid, cudnnDataType_t dt, const int64_t dims[4],
                                 const int64_t strides[4], int64_t align, int virt, cudnnBackendDescriptor_t *out) {
    cudnnStatus_t st;
    bool v = virt != 0;
    DNN_TRY(newd(p, CUDNN_BACKEND_TENSOR_DESCRIPTOR, out));
    DNN_TRY(cudnnBackendSetAttribute(*out, CUDNN_ATTR_TENSOR_DATA_TYPE, CUDNN_TYPE_DATA_TYPE, 1, &dt));
    DNN_TRY(cudnnBackendSetAttribute(*out, CUDNN_ATTR_TENSOR_DIMENSIONS, CUDNN_TYPE_INT64, 4, dims));
    DNN_TRY(cudnnBackendSetAttribute(*out, CUDNN_ATTR_TENSOR_STRIDES, CUDNN_TYPE_INT64, 4, strides));
    DNN_TRY(cudnnBackendSetAttribute(*out, CUDNN_ATTR_TENSOR_UNIQUE_ID, CUDNN_TYPE_INT64, 1, &uid));
    DNN_TRY(cudnnBackendSetAttribute(*out, CUDNN_ATTR_TENSOR_BYTE_ALIGNMENT, CUDNN_TYPE_INT64, 1, &align));
    DNN_TRY(cudnnBackendSetAttribute(*out, CUDNN_ATTR_TENSOR_IS_VIRTUAL, CUDNN_TYPE_BOOLEAN, 1, &v));
    return cudnnBackendFinalize(*out);
}

/* NHWC activation tensor [n][h][w] with row stride ld, as dims [n, ch, h, w]. */
static cudnnStatus_t tensor(cu_conv_plan *p, int64_t uid, cudnnDataType_t dt, int64_t n, int64_t ch, int64_t h,
                            int64_t w, int64_t ld, int64_t align, int virt, cudnnBackendDescriptor_t *out) {
    const int64_t dims[4] = {n, ch, h, w}, strides[4] = {h * w * ld, 1, w * ld, ld};
    return tensor_desc(p, uid, dt, dims, strides, align, virt, out);
}

static cudnnStatus_t pointwise(cu_conv_plan *p, cudnnPointwiseMode_t mode, cudnnBackendDescriptor_t x,
                               cudnnBackendDescriptor_t b, cudnnBackendDescriptor_t y, cudnnBackendDescriptor_t *op) {
    cudnnStatus_t st;
    cudnnBackendDescriptor_t pw;
    cudnnDataType_t prec = CUDNN_DATA_FLOAT;
    DNN_TRY(newd(p, CUDNN_BACKEND_POINTWISE_DESCRIPTOR, &pw));
    DNN_TRY(cudnnBackendSetAttribute(pw, CUDNN_ATTR_POINTWISE_MODE, CUDNN_TYPE_POINTWISE_MODE, 1, &mode));
    DNN_TRY(cudnnBackendSetAttribute(pw, CUDNN_ATTR_POINTWISE_MATH_PREC, CUDNN_TYPE_DATA_TYPE, 1, &prec));
    DNN_TRY(cudnnBackendFinalize(pw));
    DNN_TRY(newd(p, CUDNN_BACKEND_OPERATION_POINTWISE_DESCRIPTOR, op));
    DNN_TRY(cudnnBackendSetAttribute(*op, CUDNN_ATTR_OPERATION_POINTWISE_PW_DESCRIPTOR, CUDNN_TYPE_BACKEND_DESCRIPTOR,
                                     1, &pw));
    DNN_TRY(cudnnBackendSetAttribute(*op, CUDNN_ATTR_OPERATION_POINTWISE_XDESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &x));
    if (b)
        DNN_TRY(cudnnBackendSetAttribute(*op, CUDNN_ATTR_OPERATION_POINTWISE_BDESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1,
                                         &b));
    DNN_TRY(cudnnBackendSetAttribute(*op, CUDNN_ATTR_OPERATION_POINTWISE_YDESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &y));
    return cudnnBackendFinalize(*op);
}

enum { UID_X = 1, UID_W = 2, UID_B = 3, UID_R = 4, UID_Y = 5, UID_M = 6, UID_D = 7, UID_YQ = 8, UID_V = 100 };

/* Filter tensor KRSC (dims [k, c, r, s]) of data type dt. */
static cudnnStatus_t filter_tensor(cu_conv_plan *p, cudnnDataType_t dt, int64_t k, int64_t ch, int64_t r, int64_t s,
                                   cudnnBackendDescriptor_t *out) {
    const int64_t dims[4] = {k, ch, r, s}, strides[4] = {r * s * ch, 1, s * ch, ch};
    return tensor_desc(p, UID_W, dt, dims, strides, 16, 0, out);
}

/* Convolution forward operation x (*) w -> y (fp32 accumulation) for g. */
static cudnnStatus_t conv_op(cu_conv_plan *p, const cu_conv_sig *g, cudnnBackendDescriptor_t x,
                             cudnnBackendDescriptor_t w, cudnnBackendDescriptor_t y, cudnnBackendDescriptor_t *op) {
    cudnnStatus_t st;
    cudnnBackendDescriptor_t cd;
    DNN_TRY(newd(p, CUDNN_BACKEND_CONVOLUTION_DESCRIPTOR, &cd));
    cudnnDataType_t comp = CUDNN_DATA_FLOAT;
    cudnnConvolutionMode_t mode = CUDNN_CROSS_CORRELATION;
    int64_t sd = 2, dil[2] = {1, 1}, str[2] = {g->sh, g->sw}, pad[2] = {g->ph, g->pw};
    DNN_TRY(cudnnBackendSetAttribute(cd, CUDNN_ATTR_CONVOLUTION_COMP_TYPE, CUDNN_TYPE_DATA_TYPE, 1, &comp));
    DNN_TRY(cudnnBackendSetAttribute(cd, CUDNN_ATTR_CONVOLUTION_CONV_MODE, CUDNN_TYPE_CONVOLUTION_MODE, 1, &mode));
    DNN_TRY(cudnnBackendSetAttribute(cd, CUDNN_ATTR_CONVOLUTION_SPATIAL_DIMS, CUDNN_TYPE_INT64, 1, &sd));
    DNN_TRY(cudnnBackendSetAttribute(cd, CUDNN_ATTR_CONVOLUTION_DILATIONS, CUDNN_TYPE_INT64, 2, dil));
    DNN_TRY(cudnnBackendSetAttribute(cd, CUDNN_ATTR_CONVOLUTION_FILTER_STRIDES, CUDNN_TYPE_INT64, 2, str));
    DNN_TRY(cudnnBackendSetAttribute(cd, CUDNN_ATTR_CONVOLUTION_PRE_PADDINGS, CUDNN_TYPE_INT64, 2, pad));
    DNN_TRY(cudnnBackendSetAttribute(cd, CUDNN_ATTR_CONVOLUTION_POST_PADDINGS, CUDNN_TYPE_INT64, 2, pad));
    DNN_TRY(cudnnBackendFinalize(cd));
    float alpha = 1.0f, beta = 0.0f;
    DNN_TRY(newd(p, CUDNN_BACKEND_OPERATION_CONVOLUTION_FORWARD_DESCRIPTOR, op));
    DNN_TRY(cudnnBackendSetAttribute(*op, CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_X, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1,
                                     &x));
    DNN_TRY(cudnnBackendSetAttribute(*op, CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_W, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1,
                                     &w));
    DNN_TRY(cudnnBackendSetAttribute(*op, CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_Y, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1,
                                     &y));
    DNN_TRY(cudnnBackendSetAttribute(*op, CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_CONV_DESC,
                                     CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &cd));
    DNN_TRY(cudnnBackendSetAttribute(*op, CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_ALPHA, CUDNN_TYPE_FLOAT, 1, &alpha));
    DNN_TRY(cudnnBackendSetAttribute(*op, CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_BETA, CUDNN_TYPE_FLOAT, 1, &beta));
    return cudnnBackendFinalize(*op);
}

static cudnnStatus_t dnn_graph_fp8(cu_ctx *c, int n, cu_conv_plan *p, cudnnBackendDescriptor_t *graph);

/* Operation graph conv -> add bias [-> add residual] [-> relu] for p->sig at batch n (FP8
 * convs: dnn_graph_fp8). */
static cudnnStatus_t dnn_graph(cu_ctx *c, int n, cu_conv_plan *p, cudnnBackendDescriptor_t *graph) {
    if (p->sig.fp8) return dnn_graph_fp8(c, n, p, graph);
    const cu_conv_sig *g = &p->sig;
    cudnnStatus_t st;
    cudnnBackendDescriptor_t xd, wd, bd, rd = NULL, yd, cv, conv, ops[4];
    int nops = 0;
    DNN_TRY(tensor(p, UID_X, CUDNN_DATA_HALF, n, g->c_in, g->h, g->w, g->x_ld, g->align_x, 0, &xd));
    DNN_TRY(filter_tensor(p, CUDNN_DATA_HALF, g->c_out, g->c_in, g->kh, g->kw, &wd));
    DNN_TRY(tensor(p, UID_B, CUDNN_DATA_FLOAT, 1, g->c_out, 1, 1, g->c_out, 16, 0, &bd));
    if (g->has_res)
        DNN_TRY(tensor(p, UID_R, CUDNN_DATA_HALF, n, g->c_out, g->ho, g->wo, g->res_ld, g->align_r, 0, &rd));
    DNN_TRY(tensor(p, UID_Y, CUDNN_DATA_HALF, n, g->c_out, g->ho, g->wo, g->y_ld, g->align_y, 0, &yd));
    DNN_TRY(tensor(p, UID_V, CUDNN_DATA_FLOAT, n, g->c_out, g->ho, g->wo, g->c_out, 16, 1, &cv));
    DNN_TRY(conv_op(p, g, xd, wd, cv, &conv));
    /* pointwise chain; the last op writes Y */
    int npw = 1 + g->has_res + g->relu;
    cudnnBackendDescriptor_t cur = cv;
    for (int k = 0; k < npw; k++) {
        cudnnBackendDescriptor_t out = yd;
        if (k < npw - 1)
            DNN_TRY(tensor(p, UID_V + 1 + k, CUDNN_DATA_FLOAT, n, g->c_out, g->ho, g->wo, g->c_out, 16, 1, &out));
        if (k == 0) DNN_TRY(pointwise(p, CUDNN_POINTWISE_ADD, cur, bd, out, &ops[1 + nops]));
        else if (k == 1 && g->has_res) DNN_TRY(pointwise(p, CUDNN_POINTWISE_ADD, cur, rd, out, &ops[1 + nops]));
        else DNN_TRY(pointwise(p, CUDNN_POINTWISE_RELU_FWD, cur, NULL, out, &ops[1 + nops]));
        nops++;
        cur = out;
    }
    ops[0] = conv;
    DNN_TRY(newd(p, CUDNN_BACKEND_OPERATIONGRAPH_DESCRIPTOR, graph));
    DNN_TRY(cudnnBackendSetAttribute(*graph, CUDNN_ATTR_OPERATIONGRAPH_HANDLE, CUDNN_TYPE_HANDLE, 1, &c->dnn));
    DNN_TRY(cudnnBackendSetAttribute(*graph, CUDNN_ATTR_OPERATIONGRAPH_OPS, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1 + nops,
                                     ops));
    return cudnnBackendFinalize(*graph);
}

/* FP8 conv as a cuDNN graph: conv(x e4m3, w e4m3) in fp32 -> * mult[o]
 * -> + bias[o] [-> + x fp16] [-> relu] = v, then v -> fp16 Y and / or v * (1 / out_scale) ->
 * e4m3 YQ (both from one virtual v when the node writes both). The numbers of the own kernel's
 * epilogue (cuda_fp8.cu): both quantize v itself (docs/fp8.md). On unless INFER8_CUDA_FP8_DNN=0. */
static cudnnStatus_t dnn_graph_fp8(cu_ctx *c, int n, cu_conv_plan *p, cudnnBackendDescriptor_t *graph) {
    const cu_conv_sig *g = &p->sig;
    cudnnStatus_t st;
    cudnnBackendDescriptor_t xd, wd, md, bd, rd = NULL, yd = NULL, yqd = NULL, dd = NULL, cur, ops[8];
    int nops = 0, vid = UID_V;
    DNN_TRY(tensor(p, UID_X, CUDNN_DATA_FP8_E4M3, n, g->c_in, g->h, g->w, g->x_ld, g->align_xq, 0, &xd));
    DNN_TRY(filter_tensor(p, CUDNN_DATA_FP8_E4M3, g->c_out, g->c_in, g->kh, g->kw, &wd));
    DNN_TRY(tensor(p, UID_M, CUDNN_DATA_FLOAT, 1, g->c_out, 1, 1, g->c_out, 16, 0, &md));
    DNN_TRY(tensor(p, UID_B, CUDNN_DATA_FLOAT, 1, g->c_out, 1, 1, g->c_out, 16, 0, &bd));
    if (g->res_mode == I8_FP8_RES_F16)
        DNN_TRY(tensor(p, UID_R, CUDNN_DATA_HALF, n, g->c_out, g->ho, g->wo, g->res_ld, g->align_r, 0, &rd));
    if (g->out_f16)
        DNN_TRY(tensor(p, UID_Y, CUDNN_DATA_HALF, n, g->c_out, g->ho, g->wo, g->y_ld, g->align_y, 0, &yd));
    if (g->out_q) {
        DNN_TRY(tensor(p, UID_YQ, CUDNN_DATA_FP8_E4M3, n, g->c_out, g->ho, g->wo, g->y_ld, g->align_yq, 0, &yqd));
        DNN_TRY(tensor(p, UID_D, CUDNN_DATA_FLOAT, 1, 1, 1, 1, 1, 16, 0, &dd));
    }
    DNN_TRY(tensor(p, vid++, CUDNN_DATA_FLOAT, n, g->c_out, g->ho, g->wo, g->c_out, 16, 1, &cur));
    DNN_TRY(conv_op(p, g, xd, wd, cur, &ops[nops++]));
    /* the pointwise chain up to v: * mult, + bias, [+ x], [relu] */
    const int chain = 2 + (rd != NULL) + g->relu;
    /* v goes straight to Y when the node writes fp16 only */
    const int single = !yqd;
    for (int k = 0; k < chain; k++) {
        cudnnBackendDescriptor_t out;
        if (k == chain - 1 && single) out = yd;
        else DNN_TRY(tensor(p, vid++, CUDNN_DATA_FLOAT, n, g->c_out, g->ho, g->wo, g->c_out, 16, 1, &out));
        if (k == 0) DNN_TRY(pointwise(p, CUDNN_POINTWISE_MUL, cur, md, out, &ops[nops++]));
        else if (k == 1) DNN_TRY(pointwise(p, CUDNN_POINTWISE_ADD, cur, bd, out, &ops[nops++]));
        else if (k == 2 && rd) DNN_TRY(pointwise(p, CUDNN_POINTWISE_ADD, cur, rd, out, &ops[nops++]));
        else DNN_TRY(pointwise(p, CUDNN_POINTWISE_RELU_FWD, cur, NULL, out, &ops[nops++]));
        cur = out;
    }
    if (!single) {
        /* v is quantized directly, as the own kernel and the CPU emulation do (a binary16
         * virtual tensor between them, tried in session 4 when the contract was fp16(v), made
         * whole models drift: docs/performance.md, "FP8 through cuDNN") */
        if (yd) DNN_TRY(pointwise(p, CUDNN_POINTWISE_IDENTITY, cur, NULL, yd, &ops[nops++]));
        DNN_TRY(pointwise(p, CUDNN_POINTWISE_MUL, cur, dd, yqd, &ops[nops++]));
    }
    DNN_TRY(newd(p, CUDNN_BACKEND_OPERATIONGRAPH_DESCRIPTOR, graph));
    DNN_TRY(cudnnBackendSetAttribute(*graph, CUDNN_ATTR_OPERATIONGRAPH_HANDLE, CUDNN_TYPE_HANDLE, 1, &c->dnn));
    DNN_TRY(cudnnBackendSetAttribute(*graph, CUDNN_ATTR_OPERATIONGRAPH_OPS, CUDNN_TYPE_BACKEND_DESCRIPTOR, nops, ops));
    return cudnnBackendFinalize(*graph);
}

/* Engine configs proposed by the heuristic (mode A, then the fallback list); returns count. */
static int dnn_configs(cu_ctx *c, cu_conv_plan *p, cudnnBackendDescriptor_t graph, cudnnBackendDescriptor_t *cfg,
                       int max) {
    cudnnBackendHeurMode_t modes[2] = {CUDNN_HEUR_MODE_A, CUDNN_HEUR_MODE_FALLBACK};
    for (int mi = 0; mi < 2; mi++) {
        cudnnBackendDescriptor_t heur = NULL;
        int64_t got = 0;
        if (cudnnBackendCreateDescriptor(CUDNN_BACKEND_ENGINEHEUR_DESCRIPTOR, &heur) != CUDNN_STATUS_SUCCESS)
            return 0;
        int ok = cudnnBackendSetAttribute(heur, CUDNN_ATTR_ENGINEHEUR_OPERATION_GRAPH, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1,
                                          &graph) == CUDNN_STATUS_SUCCESS &&
                 cudnnBackendSetAttribute(heur, CUDNN_ATTR_ENGINEHEUR_MODE, CUDNN_TYPE_HEUR_MODE, 1, &modes[mi]) ==
                     CUDNN_STATUS_SUCCESS &&
                 cudnnBackendFinalize(heur) == CUDNN_STATUS_SUCCESS;
        int made = 0;
        if (ok) {
            for (; made < max; made++)
                if (cudnnBackendCreateDescriptor(CUDNN_BACKEND_ENGINECFG_DESCRIPTOR, &cfg[made]) !=
                    CUDNN_STATUS_SUCCESS)
                    break;
            if (cudnnBackendGetAttribute(heur, CUDNN_ATTR_ENGINEHEUR_RESULTS, CUDNN_TYPE_BACKEND_DESCRIPTOR, made,
                                         &got, cfg) != CUDNN_STATUS_SUCCESS)
                got = 0;
            if (got > made) got = made;
            for (int i = (int)got; i < made; i++) cudnnBackendDestroyDescriptor(cfg[i]);
        }
        cudnnBackendDestroyDescriptor(heur);
        if (got > 0) return (int)got;
    }
    (void)c;
    (void)p;
    return 0;
}

static int64_t dnn_engine_index(cudnnBackendDescriptor_t cfg) {
    cudnnBackendDescriptor_t eng = NULL;
    int64_t idx = -1, got = 0;
    if (cudnnBackendCreateDescriptor(CUDNN_BACKEND_ENGINE_DESCRIPTOR, &eng) != CUDNN_STATUS_SUCCESS) return -1;
    if (cudnnBackendGetAttribute(cfg, CUDNN_ATTR_ENGINECFG_ENGINE, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &got, &eng) !=
            CUDNN_STATUS_SUCCESS ||
        cudnnBackendGetAttribute(eng, CUDNN_ATTR_ENGINE_GLOBAL_INDEX, CUDNN_TYPE_INT64, 1, &got, &idx) !=
            CUDNN_STATUS_SUCCESS)
        idx = -1;
    cudnnBackendDestroyDescriptor(eng);
    return idx;
}

/* Does the engine of cfg trade accuracy for speed (Winograd or FFT transforms, reductions in
 * reduced precision)? An fp16 engine should cost no more than fp16 storage does, so the tuner
 * leaves such engines out unless INFER8_CUDA_LOSSY_ENGINES=1. Measured on the H200: with the
 * filter, inception_v3's KL went from 1.2e-4 to 8.7e-5 at batch 1, on the fp16-storage floor
 * (docs/performance.md). Unknown notes count as exact. */
static int dnn_engine_lossy(cudnnBackendDescriptor_t cfg) {
    cudnnBackendDescriptor_t eng = NULL;
    cudnnBackendNumericalNote_t notes[CUDNN_NUMERICAL_NOTE_TYPE_COUNT];
    int64_t got = 0, n = 0;
    int lossy = 0;
    if (cudnnBackendCreateDescriptor(CUDNN_BACKEND_ENGINE_DESCRIPTOR, &eng) != CUDNN_STATUS_SUCCESS) return 0;
    if (cudnnBackendGetAttribute(cfg, CUDNN_ATTR_ENGINECFG_ENGINE, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &got, &eng) ==
            CUDNN_STATUS_SUCCESS &&
        cudnnBackendGetAttribute(eng, CUDNN_ATTR_ENGINE_NUMERICAL_NOTE, CUDNN_TYPE_NUMERICAL_NOTE,
                                 CUDNN_NUMERICAL_NOTE_TYPE_COUNT, &n, notes) == CUDNN_STATUS_SUCCESS) {
        for (int64_t i = 0; i < n && i < CUDNN_NUMERICAL_NOTE_TYPE_COUNT; i++)
            switch (notes[i]) {
            case CUDNN_NUMERICAL_NOTE_REDUCED_PRECISION_REDUCTION:
            case CUDNN_NUMERICAL_NOTE_FFT:
            case CUDNN_NUMERICAL_NOTE_WINOGRAD:
            case CUDNN_NUMERICAL_NOTE_WINOGRAD_TILE_4x4:
            case CUDNN_NUMERICAL_NOTE_WINOGRAD_TILE_6x6:
            case CUDNN_NUMERICAL_NOTE_WINOGRAD_TILE_13x13: lossy = 1; break;
            default: break;
            }
    }
    cudnnBackendDestroyDescriptor(eng);
    return lossy;
}

static cudnnStatus_t dnn_varpack(cu_ctx *c, int node, const cu_conv_sig *g, void *ws, cudnnBackendDescriptor_t *vp) {
    const i8_node *nd = &c->g->nodes[node];
    int64_t uids[8];
    void *ptrs[8];
    int k = 0;
    if (g->fp8) { /* dnn_graph_fp8 */
        uids[k] = UID_X, ptrs[k++] = i8_cuda_view_qptr(c, nd->inputs[0]);
        uids[k] = UID_W, ptrs[k++] = c->rt[node].wq;
        uids[k] = UID_M, ptrs[k++] = c->rt[node].mult;
        uids[k] = UID_B, ptrs[k++] = c->rt[node].b32;
        if (g->res_mode == I8_FP8_RES_F16) uids[k] = UID_R, ptrs[k++] = i8_cuda_view_ptr(c, nd->inputs[1]);
        if (g->out_f16) uids[k] = UID_Y, ptrs[k++] = i8_cuda_view_ptr(c, node);
        if (g->out_q) {
            uids[k] = UID_YQ, ptrs[k++] = i8_cuda_view_qptr(c, node);
            uids[k] = UID_D, ptrs[k++] = c->rt[node].dscale;
        }
    } else {
        uids[k] = UID_X, ptrs[k++] = i8_cuda_view_ptr(c, nd->inputs[0]);
        uids[k] = UID_W, ptrs[k++] = c->rt[node].w16;
        uids[k] = UID_B, ptrs[k++] = c->rt[node].b32;
        if (g->has_res) uids[k] = UID_R, ptrs[k++] = i8_cuda_view_ptr(c, nd->inputs[1]);
        uids[k] = UID_Y, ptrs[k++] = i8_cuda_view_ptr(c, node);
    }
    cudnnStatus_t st = cudnnBackendCreateDescriptor(CUDNN_BACKEND_VARIANT_PACK_DESCRIPTOR, vp);
    if (st != CUDNN_STATUS_SUCCESS) return st;
    if ((st = cudnnBackendSetAttribute(*vp, CUDNN_ATTR_VARIANT_PACK_UNIQUE_IDS, CUDNN_TYPE_INT64, k, uids)) ||
        (st = cudnnBackendSetAttribute(*vp, CUDNN_ATTR_VARIANT_PACK_DATA_POINTERS, CUDNN_TYPE_VOID_PTR, k, ptrs)) ||
        (st = cudnnBackendSetAttribute(*vp, CUDNN_ATTR_VARIANT_PACK_WORKSPACE, CUDNN_TYPE_VOID_PTR, 1, &ws)) ||
        (st = cudnnBackendFinalize(*vp))) {
        cudnnBackendDestroyDescriptor(*vp);
        *vp = NULL;
    }
    return st;
}

/* Finalizes a plan for cfg; 0 when it fails or needs too much workspace. */
static cudnnBackendDescriptor_t dnn_plan(cu_ctx *c, cudnnBackendDescriptor_t cfg, int64_t *workspace) {
    cudnnBackendDescriptor_t plan = NULL;
    if (cudnnBackendCreateDescriptor(CUDNN_BACKEND_EXECUTION_PLAN_DESCRIPTOR, &plan) != CUDNN_STATUS_SUCCESS)
        return NULL;
    int64_t got = 0;
    *workspace = 0;
    if (cudnnBackendSetAttribute(plan, CUDNN_ATTR_EXECUTION_PLAN_HANDLE, CUDNN_TYPE_HANDLE, 1, &c->dnn) ||
        cudnnBackendSetAttribute(plan, CUDNN_ATTR_EXECUTION_PLAN_ENGINE_CONFIG, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1,
                                 &cfg) ||
        cudnnBackendFinalize(plan) ||
        cudnnBackendGetAttribute(plan, CUDNN_ATTR_EXECUTION_PLAN_WORKSPACE_SIZE, CUDNN_TYPE_INT64, 1, &got,
                                 workspace) ||
        *workspace < 0 || (uint64_t)*workspace > CU_WORKSPACE_BYTES) {
        cudnnBackendDestroyDescriptor(plan);
        return NULL;
    }
    return plan;
}

typedef struct dnn_launch_args {
    cu_ctx *c;
    int n, node;
    cu_conv_plan *p;
    cudnnBackendDescriptor_t vp;
} dnn_launch_args;

static int dnn_launch_cb(void *user, cudaStream_t s) {
    dnn_launch_args *a = user;
    return run_plan(a->c, a->n, a->p, a->node, s, 0, a->vp);
}

/* Tries the cuDNN configs for p; on success p->plan / p->tac hold the fastest (if faster than
 * *best_ms) and *best_ms is updated. want_rank >= 0 restores one config without timing. FP8
 * convs (kind I8_CUDA_TACTIC_FP8_DNN): every config is first checked against the own FP8
 * kernel's variant p->tac.variant (i8_cuda_fp8_check) and the numerical-note filter is left to
 * that check. */
static void dnn_tune(cu_ctx *c, cu_batch *b, cu_conv_plan *p, int node, float *best_ms, int want_rank,
                     int64_t want_engine) {
    const int fp8 = p->sig.fp8, own_variant = p->tac.variant, kind = fp8 ? I8_CUDA_TACTIC_FP8_DNN : I8_CUDA_TACTIC_CUDNN;
    /* The budget limits tuning (cudnn_budget.h: how it is spent); restoring a
     * stored tactic (want_rank >= 0) is always allowed. An fp16 problem always tries cuDNN's
     * first config (its heuristic's pick): the own kernels run 2-3x slower than cuDNN on the
     * spatial convs, and a machine that built plans slowly had spent the budget part way through
     * inception_v3, which then ran 3.30 ms at batch 32 instead of 1.89 (session 19). */
    const int tuning = want_rank < 0, spent = tuning && c->cudnn_spent_s > c->cudnn_budget_s;
    if (tuning && (c->cudnn_budget_s <= 0.0 || (fp8 && spent))) return;
    const double share_s = i8_cudnn_share_s(c->cudnn_budget_s, c->cudnn_spent_s, c->cudnn_fp16_left, fp8, c->cudnn_share);
    double t_start = now_s();
    cudnnBackendDescriptor_t graph = NULL, cfg[MAX_CUDNN_CFGS];
    int saved_desc = p->n_desc;
    if (dnn_graph(c, b->n, p, &graph) != CUDNN_STATUS_SUCCESS) {
        b->stats.cudnn_plans_failed++;
        goto fail;
    }
    int ncfg = dnn_configs(c, p, graph, cfg, MAX_CUDNN_CFGS);
    int chosen_cfg = -1, tried = 0;
    for (int i = 0; i < ncfg; i++) {
        if (want_rank >= 0 && i != want_rank) continue;
        if (tuning && !i8_cudnn_may_try(now_s() - t_start, share_s, tried, fp8, c->cudnn_share)) {
            if (!fp8) b->stats.cudnn_after_budget += tried == 1, b->stats.cudnn_cut_short += tried > 1;
            break;
        }
        int64_t ws = 0, eng = dnn_engine_index(cfg[i]);
        if (want_rank >= 0 && eng != want_engine) continue;
        if (want_rank < 0 && !fp8 && !c->cudnn_lossy_ok && dnn_engine_lossy(cfg[i])) continue; /* a stored tactic is kept */
        b->stats.cudnn_plans_tried++;
        tried++;
        cudnnBackendDescriptor_t plan = dnn_plan(c, cfg[i], &ws), vp = NULL;
        if (!plan) {
            b->stats.cudnn_plans_failed++;
            continue;
        }
        float ms = -1.0f;
        if (dnn_varpack(c, node, &p->sig, c->ws[0], &vp) == CUDNN_STATUS_SUCCESS) {
            cu_conv_plan trial = *p;
            trial.tac.kind = kind;
            trial.plan = plan;
            dnn_launch_args la = {c, b->n, node, &trial, vp};
            if (fp8 && !i8_cuda_fp8_check(c, b->n, &p->sig, node, own_variant, dnn_launch_cb, &la))
                b->stats.fp8_checks_failed++, ms = -2.0f; /* runs, but computes other numbers */
            else
                ms = want_rank >= 0 ? (run_plan(c, b->n, &trial, node, c->streams[0], 0, vp) == 0 &&
                                               cudaStreamSynchronize(c->streams[0]) == cudaSuccess
                                           ? 0.0f
                                           : -1.0f)
                                    : time_plan(c, b->n, &trial, node, vp);
            cudnnBackendDestroyDescriptor(vp);
        }
        if (ms < 0.0f) {
            if (ms > -2.0f) b->stats.cudnn_plans_failed++;
            cudnnBackendDestroyDescriptor(plan);
            continue;
        }
        if (ms < *best_ms) {
            if (p->plan) cudnnBackendDestroyDescriptor(p->plan);
            p->plan = plan;
            chosen_cfg = i;
            *best_ms = ms;
            memset(&p->tac, 0, sizeof p->tac);
            p->tac.kind = kind, p->tac.variant = i, p->tac.engine = eng, p->tac.ms = ms;
            p->tac.workspace = (uint64_t)ws;
        } else {
            cudnnBackendDestroyDescriptor(plan);
        }
    }
    for (int i = 0; i < ncfg; i++) {
        if (i == chosen_cfg && p->n_desc < CU_MAX_CUDNN_DESC) p->desc[p->n_desc++] = cfg[i];
        else if (i == chosen_cfg) { /* no room: keep it alive anyway (leak is bounded, one per problem) */
        } else cudnnBackendDestroyDescriptor(cfg[i]);
    }
    c->cudnn_spent_s += now_s() - t_start;
    if (chosen_cfg >= 0) return;
fail:
    /* nothing kept: drop the graph descriptors created for this attempt */
    for (int i = p->n_desc - 1; i >= saved_desc; i--) cudnnBackendDestroyDescriptor(p->desc[i]);
    p->n_desc = saved_desc;
    c->cudnn_spent_s += 0.0;
}

/* ---------------------------------------------------------------- setup per node */

static void plan_release(const cu_ctx *c, cu_conv_plan *p) {
    lt_destroy(c, p);
    dnn_destroy(p);
}

void i8_cuda_conv_free_batch(const cu_ctx *c, cu_batch *b) {
    for (int i = 0; i < b->n_plans; i++) plan_release(c, &b->plans[i]);
    free(b->plans);
    b->plans = NULL;
    b->n_plans = b->cap_plans = 0;
}

/* whether the tuning may try FP8 variant v (INFER8_CUDA_FP8_TMA=0 leaves the TMA kernels out;
 * the skip set, INFER8_CUDA_FP8_SKIP and INFER8_CUDA_FP8_MIXED=0, those in it unless
 * INFER8_CUDA_FP8_VARIANT names them) */
static int fp8_variant_allowed(const cu_ctx *c, int v) {
    if (!c->fp8_tma && i8_cuda_conv_fp8_is_tma(v)) return 0;
    return i8_fp8_variant_set_has(&c->fp8_only, v) || !i8_fp8_variant_set_has(&c->fp8_skip, v);
}

/* whether two tactics run the same kernel (kind, variant, engine; times and flags aside) */
static int same_tactic(const i8_cuda_tactic *a, const i8_cuda_tactic *b) {
    return a->kind == b->kind && a->variant == b->variant && a->engine == b->engine;
}

/* An alternative own-kernel tactic for the whole-graph choices: cand itself, unless it is a wgmma
 * variant whose output differs from the fastest mma.sync variant's (best_sync, when there is one):
 * then best_sync (counted as a failed check). */
static i8_cuda_tactic checked_alternative(cu_ctx *c, cu_batch *b, const cu_conv_plan *p, int node, i8_cuda_tactic cand,
                                          const i8_cuda_tactic *best_sync) {
    if (i8_cuda_conv_fp8_is_wgmma(cand.variant) && best_sync->kind == I8_CUDA_TACTIC_FP8 &&
        !i8_cuda_fp8_variant_check(c, b->n, &p->sig, node, best_sync->variant, cand.variant)) {
        b->stats.fp8_checks_failed++;
        return *best_sync;
    }
    return cand;
}

/* FP8 convs: the own e4m3 kernel's tile variants (a preset is restored untimed when it runs).
 * Returns 1 when a stored tactic was restored (nothing more is tried for the conv). */
static int tune_fp8(cu_ctx *c, cu_batch *b, cu_conv_plan *p, int node) {
    const i8_cuda_tactic *pre = b->preset ? &b->preset[node] : NULL;
    float best = INFINITY;
    const int variants = i8_cuda_conv_fp8_variants();
    p->tac.kind = I8_CUDA_TACTIC_NONE;
    memset(&p->own, 0, sizeof p->own);
    memset(&p->nohalo, 0, sizeof p->nohalo);
    if (pre && pre->kind == I8_CUDA_TACTIC_FP8 && pre->variant >= 0 && pre->variant < variants &&
        fp8_variant_allowed(c, pre->variant)) {
        p->tac = *pre;
        if (time_plan(c, b->n, p, node, NULL) >= 0.0f) return 1;
        p->tac.kind = I8_CUDA_TACTIC_NONE;
    }
    /* a stored cuDNN e4m3 config is rebuilt untimed; it must still pass the check against the
     * own kernel (variant 0, mma.sync, runs on every problem), as when it was tuned */
    if (pre && pre->kind == I8_CUDA_TACTIC_FP8_DNN && i8_cuda_fp8_dnn_fits(c, &p->sig, node)) {
        memset(&p->tac, 0, sizeof p->tac);
        p->tac.kind = I8_CUDA_TACTIC_FP8, p->tac.variant = 0, p->tac.engine = -1;
        dnn_tune(c, b, p, node, &best, pre->variant, pre->engine);
        if (p->tac.kind == I8_CUDA_TACTIC_FP8_DNN) {
            p->tac.ms = pre->ms;
            return 1;
        }
        best = INFINITY;
        p->tac.kind = I8_CUDA_TACTIC_NONE;
    }
    /* a wgmma variant is kept only when its output matches the fastest mma.sync variant's
     * (i8_cuda_fp8_check) */
    i8_cuda_tactic best_sync = {0}, best_plain = {0}, best_nohalo = {0}; /* best_plain: the fastest without TMA */
    float best_sync_ms = INFINITY, best_plain_ms = INFINITY, best_nohalo_ms = INFINITY;
    memset(&p->alt, 0, sizeof p->alt);
    i8_fp8_variant_set only = {{0}}; /* INFER8_CUDA_FP8_VARIANT: those of its variants that fit, when any does */
    for (int v = 0; v < variants; v++)
        if (i8_fp8_variant_set_has(&c->fp8_only, v) && fp8_variant_allowed(c, v) && i8_cuda_fp8_fits(c, b->n, &p->sig, node, v))
            i8_fp8_variant_set_add(&only, v);
    /* pass 0: the forced variants; pass 1: all, when none was forced or none of them ran */
    for (int pass = i8_fp8_variant_set_empty(&only) ? 1 : 0; pass < 2 && p->tac.kind == I8_CUDA_TACTIC_NONE; pass++)
        for (int v = 0; v < variants; v++) {
            if (pass == 0 && !i8_fp8_variant_set_has(&only, v)) continue;
            if (!fp8_variant_allowed(c, v) || !i8_cuda_fp8_fits(c, b->n, &p->sig, node, v)) continue; /* would fail to launch */
            i8_cuda_tactic t;
            const float ms = time_variant(c, b->n, p, node, I8_CUDA_TACTIC_FP8, v, &t);
            if (ms >= 0.0f && ms < best) best = ms, p->tac = t;
            if (!i8_cuda_conv_fp8_is_wgmma(v) && ms >= 0.0f && ms < best_sync_ms) best_sync_ms = ms, best_sync = t;
            if (!i8_cuda_conv_fp8_is_tma(v) && ms >= 0.0f && ms < best_plain_ms) best_plain_ms = ms, best_plain = t;
            if (!i8_cuda_conv_fp8_is_halo(v) && ms >= 0.0f && ms < best_nohalo_ms) best_nohalo_ms = ms, best_nohalo = t;
        }
    if (p->tac.kind == I8_CUDA_TACTIC_FP8 && i8_cuda_conv_fp8_is_wgmma(p->tac.variant) && best_sync.kind == I8_CUDA_TACTIC_FP8) {
        if (!i8_cuda_fp8_variant_check(c, b->n, &p->sig, node, best_sync.variant, p->tac.variant)) {
            b->stats.fp8_checks_failed++;
            if (getenv("INFER8_CUDA_DEBUG"))
                fprintf(stderr, "cuda fp8: %s b%d: %s differs from %s, not used\n", c->g->nodes[node].name, b->n,
                        i8_cuda_conv_fp8_name(p->tac.variant), i8_cuda_conv_fp8_name(best_sync.variant));
            p->tac = best_sync;
            best = best_sync_ms;
        }
    }
    /* a TMA winner holds whole SMs (one block each, most of their shared memory) and was timed
     * alone; beside concurrent branches the graph may run faster without it, so the fastest
     * checked kernel without TMA is kept for the whole-graph choice (ensure_batch) */
    if (p->tac.kind == I8_CUDA_TACTIC_FP8 && i8_cuda_conv_fp8_is_tma(p->tac.variant) && best_plain.kind == I8_CUDA_TACTIC_FP8)
        p->alt = checked_alternative(c, b, p, node, best_plain, &best_sync);
    /* likewise a halo winner: the fastest checked kernel without halo (i8_cuda_conv_swap_own) */
    if (p->tac.kind == I8_CUDA_TACTIC_FP8 && i8_cuda_conv_fp8_is_halo(p->tac.variant) && best_nohalo.kind == I8_CUDA_TACTIC_FP8)
        p->nohalo = checked_alternative(c, b, p, node, best_nohalo, &best_sync);
    /* experimental (INFER8_CUDA_FP8_LT=1): cuBLASLt e4m3 GEMMs for 1x1 convs, each checked
     * against the own kernel's output before it is timed */
    if (p->tac.kind != I8_CUDA_TACTIC_FP8 || !i8_cuda_fp8_lt_fits(c, &p->sig)) return 0;
    cu_conv_plan lt = *p;
    lt.mm = NULL, lt.la = lt.lb = lt.lc = lt.ld = NULL;
    cublasLtMatmulHeuristicResult_t res[MAX_LT_ALGOS];
    int nres = i8_cuda_fp8_lt_setup(c, b->n, &lt, node, res, MAX_LT_ALGOS), won = 0, checked_bad = 0;
    const float own_ms = best;
    float lt_best = INFINITY;
    for (int r = 0; r < nres; r++) {
        if (res[r].workspaceSize > CU_WORKSPACE_BYTES) continue;
        memset(&lt.tac, 0, sizeof lt.tac);
        lt.tac.kind = I8_CUDA_TACTIC_FP8_LT, lt.tac.variant = r, lt.tac.engine = -1;
        lt.tac.workspace = res[r].workspaceSize;
        memcpy(lt.tac.algo, &res[r].algo, sizeof res[r].algo);
        if (!i8_cuda_fp8_lt_check(c, b->n, &lt, node, p->tac.variant)) {
            checked_bad++;
            continue;
        }
        float ms = time_plan(c, b->n, &lt, node, NULL);
        if (ms >= 0.0f && ms < lt_best) lt_best = ms;
        if (ms >= 0.0f && ms < best) {
            best = ms;
            p->tac = lt.tac;
            p->tac.ms = ms;
            won = 1;
        }
    }
    if (getenv("INFER8_CUDA_DEBUG"))
        fprintf(stderr, "cuda fp8-lt: %s b%d (M %d K %d N %d, out %s): %d algos, %d failed the check, best %.4f ms vs own %.4f ms%s\n",
                c->g->nodes[node].name, b->n, b->n * p->sig.h * p->sig.w, p->sig.c_in, p->sig.c_out,
                p->sig.out_q ? "e4m3" : "fp16", nres, checked_bad, (double)lt_best, (double)own_ms, won ? " (won)" : "");
    if (won) p->mm = lt.mm, p->la = lt.la, p->lb = lt.lb, p->lc = lt.lc, p->ld = lt.ld;
    else lt_destroy(c, &lt);
    return 0;
}

/* On unless INFER8_CUDA_FP8_DNN=0: cuDNN e4m3 convolution graphs, each config checked
 * against the own kernel's variant before it is timed (dnn_tune). */
static void tune_fp8_dnn(cu_ctx *c, cu_batch *b, cu_conv_plan *p, int node) {
    if (p->tac.kind != I8_CUDA_TACTIC_FP8 || !i8_cuda_fp8_dnn_fits(c, &p->sig, node)) return;
    const i8_cuda_tactic own = p->tac;
    /* INFER8_CUDA_TACTIC=cudnn: a config that passes the check wins however fast it is */
    float best = c->force_kind == I8_CUDA_TACTIC_CUDNN ? INFINITY : p->tac.ms;
    const int checks_before = b->stats.fp8_checks_failed, tried_before = b->stats.cudnn_plans_tried;
    dnn_tune(c, b, p, node, &best, -1, -1);
    if (getenv("INFER8_CUDA_DEBUG"))
        fprintf(stderr, "cuda fp8-dnn: %s b%d (%dx%d, C %d K %d, out%s%s, res %d): %d configs tried, %d failed the check, "
                        "%s %.4f ms vs own %.4f ms\n",
                c->g->nodes[node].name, b->n, p->sig.kh, p->sig.kw, p->sig.c_in, p->sig.c_out,
                p->sig.out_f16 ? " fp16" : "", p->sig.out_q ? " e4m3" : "", p->sig.res_mode,
                b->stats.cudnn_plans_tried - tried_before, b->stats.fp8_checks_failed - checks_before,
                p->tac.kind == I8_CUDA_TACTIC_FP8_DNN ? "won:" : "best own", (double)p->tac.ms, (double)own.ms);
    if (p->tac.kind != I8_CUDA_TACTIC_FP8_DNN) p->tac = own;
    else p->own = own; /* timed alone, cuDNN won; the whole graph may still run faster on own (choose_own) */
}

static void tune_plan(cu_ctx *c, cu_batch *b, cu_conv_plan *p, int node) {
    if (p->sig.fp8) {
        /* cuDNN's e4m3 configs are slow to build, so the budget rarely covers every problem:
         * they are tried once every conv of the batch has its own kernel's time, the problems
         * that take the most time first (i8_cuda_conv_tune_deferred). A restored tactic stays. */
        int restored = tune_fp8(c, b, p, node);
        const int forced = p->tac.kind == I8_CUDA_TACTIC_FP8 && i8_fp8_variant_set_has(&c->fp8_only, p->tac.variant);
        p->dnn_deferred = !restored && !forced && c->fp8_dnn && p->tac.kind == I8_CUDA_TACTIC_FP8;
        return;
    }
    float best = INFINITY;
    const i8_cuda_tactic *pre = b->preset ? &b->preset[node] : NULL;
    int force = c->force_kind;
    cublasLtMatmulHeuristicResult_t lt_res[MAX_LT_ALGOS];
    int lt_n = 0;
    p->tac.kind = I8_CUDA_TACTIC_NONE;

    /* restore a preset first: used untimed when it still runs here */
    if (pre && pre->kind == I8_CUDA_TACTIC_OWN && pre->variant >= 0 && pre->variant < i8_cuda_conv_own_variants()) {
        p->tac = *pre;
        if (time_plan(c, b->n, p, node, NULL) >= 0.0f) return;
    } else if (pre && pre->kind == I8_CUDA_TACTIC_CUBLASLT && lt_fits(&p->sig)) {
        lt_n = lt_setup(c, b->n, p, node, lt_res, MAX_LT_ALGOS);
        p->tac = *pre;
        if (p->mm && time_plan(c, b->n, p, node, NULL) >= 0.0f) return;
        lt_destroy(c, p);
    } else if (pre && pre->kind == I8_CUDA_TACTIC_CUDNN) {
        dnn_tune(c, b, p, node, &best, pre->variant, pre->engine);
        if (p->plan) return;
        best = INFINITY;
    }
    p->tac.kind = I8_CUDA_TACTIC_NONE;

    if ((force == 0 || force == I8_CUDA_TACTIC_CUBLASLT) && lt_fits(&p->sig)) {
        lt_n = lt_setup(c, b->n, p, node, lt_res, MAX_LT_ALGOS);
        for (int i = 0; i < lt_n; i++) {
            cu_conv_plan trial = *p;
            trial.tac.kind = I8_CUDA_TACTIC_CUBLASLT;
            memcpy(trial.tac.algo, &lt_res[i].algo, sizeof lt_res[i].algo);
            float ms = time_plan(c, b->n, &trial, node, NULL);
            if (ms >= 0.0f && ms < best) {
                best = ms;
                memset(&p->tac, 0, sizeof p->tac);
                p->tac.kind = I8_CUDA_TACTIC_CUBLASLT, p->tac.variant = i, p->tac.engine = -1, p->tac.ms = ms;
                p->tac.workspace = lt_res[i].workspaceSize;
                memcpy(p->tac.algo, &lt_res[i].algo, sizeof lt_res[i].algo);
            }
        }
    }
    if (force == 0 || force == I8_CUDA_TACTIC_CUDNN) {
        i8_cuda_tactic keep = p->tac;
        float before = best;
        dnn_tune(c, b, p, node, &best, -1, -1);
        if (!(best < before)) p->tac = keep;
    }
    if (force == 0 || force == I8_CUDA_TACTIC_OWN || p->tac.kind == I8_CUDA_TACTIC_NONE) {
        i8_cuda_tactic t;
        if (c->own_only >= 0 && time_variant(c, b->n, p, node, I8_CUDA_TACTIC_OWN, c->own_only, &t) >= 0.0f)
            p->tac = t; /* INFER8_CUDA_OWN_VARIANT fits this conv: it runs there, whatever else was faster */
        else
            for (int v = 0; v < i8_cuda_conv_own_variants(); v++) {
                const float ms = time_variant(c, b->n, p, node, I8_CUDA_TACTIC_OWN, v, &t);
                if (ms >= 0.0f && ms < best) best = ms, p->tac = t;
            }
    }
    if (p->tac.kind != I8_CUDA_TACTIC_CUBLASLT) lt_destroy(c, p);
    if (p->tac.kind != I8_CUDA_TACTIC_CUDNN) dnn_destroy(p);
}

/* Adds delta (1 or -1) x tactic t of `node` to b's statistics. */
static void count_tactic(cu_batch *b, int node, const i8_cuda_tactic *t, int delta) {
    const i8_cuda_tactic *pre = b->preset ? &b->preset[node] : NULL;
    if (pre && pre->kind != I8_CUDA_TACTIC_NONE) {
        const int kept = same_tactic(pre, t);
        b->stats.presets_kept += delta * kept;
        b->stats.presets_retuned += delta * !kept;
    }
    b->stats.convs_per_kind[t->kind] += delta;
    b->stats.fp8_wgmma += delta * (t->kind == I8_CUDA_TACTIC_FP8 && i8_cuda_conv_fp8_is_wgmma(t->variant));
    b->stats.fp8_tma += delta * (t->kind == I8_CUDA_TACTIC_FP8 && i8_cuda_conv_fp8_is_tma(t->variant));
    b->stats.fp8_halo += delta * (t->kind == I8_CUDA_TACTIC_FP8 && i8_cuda_conv_fp8_is_halo(t->variant));
}

/* Node `node` runs its plan's tactic (replacing, in the statistics too, one it had): its tactic
 * and cuDNN variant pack. */
static infer8_status node_take_plan(cu_ctx *c, cu_batch *b, int node, i8_err *err) {
    const cu_conv_plan *p = &b->plans[b->node_plan[node]];
    if (b->tactics[node].kind != I8_CUDA_TACTIC_NONE) count_tactic(b, node, &b->tactics[node], -1);
    count_tactic(b, node, &p->tac, 1);
    b->tactics[node] = p->tac;
    b->tactics[node].flags = 0; /* a preset's: the graph choice records its own (choose_launch) */
    if (p->tac.kind == I8_CUDA_TACTIC_CUDNN || p->tac.kind == I8_CUDA_TACTIC_FP8_DNN) {
        if (b->varpack[node]) { /* a tactic taken back by a whole-graph choice: the pack is made anew */
            cudnnBackendDestroyDescriptor(b->varpack[node]);
            b->varpack[node] = NULL;
        }
        cudnnStatus_t st = dnn_varpack(c, node, &p->sig, c->ws[c->rt[node].stream], &b->varpack[node]);
        if (st != CUDNN_STATUS_SUCCESS)
            return i8_fail(err, INFER8_E_DEVICE, "cuda: conv '%s': cuDNN variant pack: %s", c->g->nodes[node].name,
                           cudnnGetErrorString(st));
    }
    return INFER8_OK;
}

int i8_cuda_conv_fp16_problems(const cu_ctx *c, const cu_batch *b) {
    int n = 0, cap = 0;
    cu_conv_sig *seen = NULL;
    for (int i = 0; i < c->g->n_nodes; i++) {
        if (c->g->nodes[i].op != I8_OP_CONV || (b->preset && b->preset[i].kind != I8_CUDA_TACTIC_NONE)) continue;
        cu_conv_sig sig;
        make_sig(c, i, &sig);
        int known = sig.fp8;
        for (int j = 0; j < n && !known; j++) known = !memcmp(&seen[j], &sig, sizeof sig);
        if (known) continue;
        if (n == cap) {
            const int grown = cap ? 2 * cap : 64;
            cu_conv_sig *more = realloc(seen, sizeof *more * (size_t)grown);
            if (!more) break; /* the shares come out larger: the first problems may take more of the budget */
            seen = more, cap = grown;
        }
        seen[n++] = sig;
    }
    free(seen);
    return n;
}

infer8_status i8_cuda_conv_setup(cu_ctx *c, cu_batch *b, int node, i8_err *err) {
    cu_conv_sig sig;
    make_sig(c, node, &sig);
    int idx = -1;
    for (int i = 0; i < b->n_plans; i++)
        if (memcmp(&b->plans[i].sig, &sig, sizeof sig) == 0) {
            idx = i;
            break;
        }
    if (idx < 0) {
        if (b->n_plans == b->cap_plans) {
            int cap = b->cap_plans ? 2 * b->cap_plans : 64;
            cu_conv_plan *np = i8_realloc(b->plans, sizeof *np * (size_t)cap, err);
            if (!np) return err->code;
            b->plans = np;
            b->cap_plans = cap;
        }
        idx = b->n_plans++;
        cu_conv_plan *p = &b->plans[idx];
        memset(p, 0, sizeof *p);
        p->sig = sig;
        p->node = node;
        tune_plan(c, b, p, node);
        const int restoring = b->preset && b->preset[node].kind != I8_CUDA_TACTIC_NONE;
        if (!sig.fp8 && !restoring && c->cudnn_fp16_left > 0) c->cudnn_fp16_left--; /* its share taken (as counted) */
        if (p->tac.kind == I8_CUDA_TACTIC_NONE) {
            cudaError_t e = cudaGetLastError();
            return i8_fail(err, INFER8_E_DEVICE, "cuda: conv '%s' (batch %d): no implementation ran (%s)",
                           c->g->nodes[node].name, b->n, cudaGetErrorString(e));
        }
        b->stats.problems++;
    }
    b->node_plan[node] = idx;
    return node_take_plan(c, b, node, err);
}

/* plan i runs tactic t from now on (its nodes retaken); *moved counts its convs */
static infer8_status plan_switch(cu_ctx *c, cu_batch *b, int i, const i8_cuda_tactic *t, int *moved, i8_err *err) {
    b->plans[i].tac = *t;
    for (int j = 0; j < c->g->n_nodes; j++) {
        if (b->node_plan[j] != i) continue;
        infer8_status rc = node_take_plan(c, b, j, err);
        if (rc != INFER8_OK) return rc;
        (*moved)++;
    }
    return INFER8_OK;
}

infer8_status i8_cuda_conv_swap_alt(cu_ctx *c, cu_batch *b, int *swapped, i8_err *err) {
    *swapped = 0;
    for (int i = 0; i < b->n_plans; i++) {
        cu_conv_plan *p = &b->plans[i];
        const int tma_now = p->tac.kind == I8_CUDA_TACTIC_FP8 && i8_cuda_conv_fp8_is_tma(p->tac.variant);
        const int tma_alt = p->alt.kind == I8_CUDA_TACTIC_FP8 && i8_cuda_conv_fp8_is_tma(p->alt.variant);
        /* a plan whose TMA winner lost to a cuDNN config since has nothing to swap */
        if (p->alt.kind != I8_CUDA_TACTIC_FP8 || tma_now == tma_alt) continue;
        const i8_cuda_tactic next = p->alt;
        p->alt = p->tac;
        infer8_status rc = plan_switch(c, b, i, &next, swapped, err);
        if (rc != INFER8_OK) return rc;
    }
    return INFER8_OK;
}

infer8_status i8_cuda_conv_swap_own(cu_ctx *c, cu_batch *b, int mode, i8_cuda_tactic *saved, int *swapped, i8_err *err) {
    *swapped = 0;
    for (int i = 0; i < b->n_plans; i++) {
        cu_conv_plan *p = &b->plans[i];
        saved[i] = p->tac;
        i8_cuda_tactic t = p->tac;
        if (t.kind == I8_CUDA_TACTIC_FP8_DNN && p->own.kind == I8_CUDA_TACTIC_FP8) t = p->own;
        if (mode >= 2 && t.kind == I8_CUDA_TACTIC_FP8 && i8_cuda_conv_fp8_is_halo(t.variant) &&
            p->nohalo.kind == I8_CUDA_TACTIC_FP8)
            t = p->nohalo;
        if (same_tactic(&t, &p->tac)) continue;
        infer8_status rc = plan_switch(c, b, i, &t, swapped, err);
        if (rc != INFER8_OK) return rc;
    }
    return INFER8_OK;
}

infer8_status i8_cuda_conv_restore(cu_ctx *c, cu_batch *b, const i8_cuda_tactic *saved, i8_err *err) {
    int moved = 0;
    for (int i = 0; i < b->n_plans; i++) {
        if (same_tactic(&saved[i], &b->plans[i].tac)) continue;
        infer8_status rc = plan_switch(c, b, i, &saved[i], &moved, err);
        if (rc != INFER8_OK) return rc;
    }
    return INFER8_OK;
}

typedef struct deferred_plan {
    int plan;
    double ms; /* own kernel's time x convs that run the plan */
} deferred_plan;

static int by_time_desc(const void *x, const void *y) {
    const deferred_plan *a = x, *b = y;
    return a->ms > b->ms ? -1 : a->ms < b->ms ? 1 : a->plan - b->plan;
}

infer8_status i8_cuda_conv_tune_deferred(cu_ctx *c, cu_batch *b, i8_err *err) {
    const int nn = c->g->n_nodes;
    int count = 0;
    for (int i = 0; i < b->n_plans; i++) count += b->plans[i].dnn_deferred;
    if (!count) return INFER8_OK;
    deferred_plan *order = i8_malloc(sizeof *order * (size_t)count, err);
    if (!order) return err->code;
    count = 0;
    for (int i = 0; i < b->n_plans; i++) {
        if (!b->plans[i].dnn_deferred) continue;
        int uses = 0;
        for (int j = 0; j < nn; j++) uses += b->node_plan[j] == i;
        order[count].plan = i, order[count].ms = (double)b->plans[i].tac.ms * uses;
        count++;
    }
    qsort(order, (size_t)count, sizeof *order, by_time_desc);
    infer8_status rc = INFER8_OK;
    for (int k = 0; k < count && rc == INFER8_OK; k++) {
        const int i = order[k].plan;
        cu_conv_plan *p = &b->plans[i];
        p->dnn_deferred = 0;
        tune_fp8_dnn(c, b, p, p->node);
        if (p->tac.kind == I8_CUDA_TACTIC_FP8) continue; /* the own kernel stays */
        for (int j = 0; j < nn && rc == INFER8_OK; j++) {
            if (b->node_plan[j] != i) continue;
            rc = node_take_plan(c, b, j, err);
        }
    }
    free(order);
    return rc;
}

int i8_cuda_conv_launch(cu_ctx *c, cu_batch *b, int node, cudaStream_t s, int ws_index) {
    return run_plan(c, b->n, &b->plans[b->node_plan[node]], node, s, ws_index, b->varpack[node]);
}
