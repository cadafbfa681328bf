/* Calibration statistics on the GPU: i8_calib_collect (src/quant/calibrate.c) for an fp16 NHWC
 * tensor, with the histogram state (i8_calib_hist, same layout as on the host) in device
 * memory. Three kernels on one stream, all capturable:
 *   1. the batch's largest finite |x| (atomicMax on the float's bits: valid for x >= 0);
 *   2. one block applies it as i8_calib_collect does: running amax, first width = amax / bins,
 *      width doubled (bin pairs merged) while amax exceeds the range;
 *   3. the histogram of the batch with that width: the same double-precision bin index as the
 *      host ((double)|x| / width, capped at the last bin), per-block shared counters, zeros
 *      counted in a register (ReLU outputs are mostly zeros), NaN / Inf counted apart.
 * Given the same values the bins equal the host's bin for bin (tests/unit/test_cuda_calib.c). */
#include <cuda_fp16.h>
#include <cuda_runtime.h>
#include <stdint.h>

#include "cuda_kernels.h"

extern "C" {
#include "quant/calibrate.h"
}

#define CALIB_THREADS 256

static unsigned calib_blocks(size_t count) {
    size_t b = (count + CALIB_THREADS * 16 - 1) / (CALIB_THREADS * 16);
    if (b < 1) b = 1;
    if (b > 2048) b = 2048;
    return (unsigned)b;
}

__device__ __forceinline__ float load_abs(const __half *x, size_t e, int c, int ld) {
    size_t m = e / (unsigned)c, ch = e - m * (unsigned)c;
    return fabsf(__half2float(x[m * (size_t)ld + ch]));
}

__global__ void calib_amax_kernel(const __half *x, size_t count, int c, int ld, unsigned *bmax_bits) {
    float mx = 0.0f;
    for (size_t e = blockIdx.x * (size_t)blockDim.x + threadIdx.x; e < count; e += (size_t)gridDim.x * blockDim.x) {
        float a = load_abs(x, e, c, ld);
        if (a > mx && a <= 3.40282347e38f) mx = a; /* NaN and Inf never win, as on the host */
    }
    for (int o = 16; o > 0; o >>= 1) mx = fmaxf(mx, __shfl_xor_sync(0xffffffffu, mx, o));
    __shared__ float warp_max[CALIB_THREADS / 32];
    if ((threadIdx.x & 31) == 0) warp_max[threadIdx.x >> 5] = mx;
    __syncthreads();
    if (threadIdx.x == 0) {
        for (int w = 1; w < (int)(blockDim.x >> 5); w++) mx = fmaxf(mx, warp_max[w]);
        atomicMax(bmax_bits, __float_as_uint(mx));
    }
}

/* One block of I8_CALIB_BINS / 2 threads. Consumes and clears *bmax_bits. */
__global__ void calib_update_kernel(i8_calib_hist *h, unsigned *bmax_bits) {
    __shared__ double width;
    __shared__ float amax;
    const int t = threadIdx.x;
    if (t == 0) {
        float b = __uint_as_float(*bmax_bits);
        *bmax_bits = 0u;
        amax = h->amax;
        if (b > amax) amax = b;
        h->amax = amax;
        width = h->width;
        if (width == 0.0 && amax > 0.0f) width = (double)amax / I8_CALIB_BINS;
    }
    __syncthreads();
    while (width > 0.0 && (double)amax > width * I8_CALIB_BINS) {
        unsigned long long merged = h->bins[2 * t] + h->bins[2 * t + 1];
        __syncthreads();
        h->bins[t] = merged;
        h->bins[t + I8_CALIB_BINS / 2] = 0;
        __syncthreads();
        if (t == 0) width *= 2.0;
        __syncthreads();
    }
    if (t == 0) h->width = width;
}

__global__ void calib_hist_kernel(const __half *x, size_t count, int c, int ld, i8_calib_hist *h) {
    __shared__ unsigned bins[I8_CALIB_BINS];
    for (int i = threadIdx.x; i < I8_CALIB_BINS; i += blockDim.x) bins[i] = 0u;
    __syncthreads();
    const double width = h->width;
    unsigned long long zeros = 0, finite = 0, nonfinite = 0;
    for (size_t e = blockIdx.x * (size_t)blockDim.x + threadIdx.x; e < count; e += (size_t)gridDim.x * blockDim.x) {
        float a = load_abs(x, e, c, ld);
        if (!isfinite(a)) {
            nonfinite++;
            continue;
        }
        finite++;
        if (a > 0.0f) {
            double q = (double)a / width; /* width > 0 here: a <= amax and amax > 0 */
            unsigned idx = q >= I8_CALIB_BINS ? I8_CALIB_BINS - 1 : (unsigned)q;
            if (idx) atomicAdd(&bins[idx], 1u);
            else zeros++;
        } else {
            zeros++;
        }
    }
    for (int o = 16; o > 0; o >>= 1) {
        zeros += __shfl_xor_sync(0xffffffffu, zeros, o);
        finite += __shfl_xor_sync(0xffffffffu, finite, o);
        nonfinite += __shfl_xor_sync(0xffffffffu, nonfinite, o);
    }
    if ((threadIdx.x & 31) == 0) {
        if (zeros) atomicAdd(&bins[0], (unsigned)zeros);
        if (finite) atomicAdd((unsigned long long *)&h->count, finite);
        if (nonfinite) atomicAdd((unsigned long long *)&h->nonfinite, nonfinite);
    }
    __syncthreads();
    for (int i = threadIdx.x; i < I8_CALIB_BINS; i += blockDim.x)
        if (bins[i]) atomicAdd((unsigned long long *)&h->bins[i], (unsigned long long)bins[i]);
}

extern "C" int i8_cuda_calib_collect(const void *x, size_t pixels, int c, int x_ld, void *hist, unsigned *scratch,
                                     void *stream) {
    cudaStream_t s = (cudaStream_t)stream;
    const size_t count = pixels * (size_t)c;
    if (count == 0) return 0;
    const unsigned blocks = calib_blocks(count);
    calib_amax_kernel<<<blocks, CALIB_THREADS, 0, s>>>((const __half *)x, count, c, x_ld, scratch);
    calib_update_kernel<<<1, I8_CALIB_BINS / 2, 0, s>>>((i8_calib_hist *)hist, scratch);
    calib_hist_kernel<<<blocks, CALIB_THREADS, 0, s>>>((const __half *)x, count, c, x_ld, (i8_calib_hist *)hist);
    return (int)cudaGetLastError();
}
