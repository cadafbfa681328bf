/* The persistent kernels' grid bound (packk128, the FP8 halo kernels): how many blocks of a
 * kernel fit the device at once; and the SM count they and the TMA kernels size grids by. */
#ifndef INFER8_CUDA_RESIDENT_CUH
#define INFER8_CUDA_RESIDENT_CUH

#include <cuda_runtime.h>

/* *sms, asked of the current device when < 1 (the kernel labs pass none) */
static inline cudaError_t i8_cuda_sm_count(int *sms) {
    int dev = 0;
    cudaError_t e = cudaSuccess;
    if (*sms < 1 && (e = cudaGetDevice(&dev)) == cudaSuccess)
        e = cudaDeviceGetAttribute(sms, cudaDevAttrMultiProcessorCount, dev);
    return e;
}

/* Blocks of `threads` threads and smem bytes of dynamic shared memory that kernel can keep
 * resident: its occupancy per SM times sms (the caller's SM count; asked of the current device
 * when < 1, as the kernel labs pass none), at least 1 of each. */
static inline cudaError_t i8_cuda_resident_blocks(const void *kernel, int threads, size_t smem, int sms,
                                                  long long *blocks) {
    int per_sm = 0;
    cudaError_t e = i8_cuda_sm_count(&sms);
    if (e == cudaSuccess) e = cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, threads, smem);
    if (e != cudaSuccess) return e;
    *blocks = (long long)(per_sm > 0 ? per_sm : 1) * (sms > 0 ? sms : 1);
    return cudaSuccess;
}

#endif
