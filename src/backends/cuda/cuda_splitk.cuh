/* Split-K reduction shared by the own conv kernels (cuda_kernels.cu fp16, cuda_fp8.cu e4m3).
 * A block that computed a BM x BN partial tile (fp32, in shared memory sC with row pitch ldc)
 * publishes it to its slot of `partial`; the last of the `splits` blocks of that tile (counted
 * in counters[tile], which it resets to 0 for the next launch or graph replay) sums every slot
 * back into sC and returns true to run the epilogue; the others return false and must exit.
 * All threads of the block call it (it synchronizes). */
#ifndef I8_CUDA_SPLITK_CUH
#define I8_CUDA_SPLITK_CUH

template <int BM, int BN, int NT>
__device__ __forceinline__ bool splitk_reduce(float *sC, int ldc, float *partial, unsigned *counters, int splits) {
    __shared__ int is_last;
    const int tid = threadIdx.x;
    const int tile = blockIdx.x * gridDim.y + blockIdx.y;
    float *mine = partial + ((size_t)tile * splits + blockIdx.z) * BM * BN;
    for (int idx = tid; idx < BM * BN; idx += NT) mine[idx] = sC[(idx / BN) * ldc + idx % BN];
    __threadfence();
    __syncthreads();
    if (tid == 0) is_last = atomicAdd(&counters[tile], 1u) == (unsigned)splits - 1;
    __syncthreads();
    if (!is_last) return false;
    __threadfence();
    const float *all = partial + (size_t)tile * splits * BM * BN;
    for (int idx = tid; idx < BM * BN; idx += NT) {
        float v = 0.0f;
        for (int z = 0; z < splits; z++) v += __ldcg(all + (size_t)z * BM * BN + idx);
        sC[(idx / BN) * ldc + idx % BN] = v;
    }
    if (tid == 0) counters[tile] = 0u;
    __syncthreads();
    return true;
}

#endif
