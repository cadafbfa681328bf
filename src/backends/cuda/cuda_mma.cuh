/* The warp-level pieces the mma.sync kernels share (cuda_fp8.cu's qmma family, the pair kernels
 * of cuda_fp8_pair.cu): cp.async copies with zero fill and their groups, the e4m3 m16n8k32 MMA. */
#ifndef I8_CUDA_MMA_CUH
#define I8_CUDA_MMA_CUH

#include <cuda_runtime.h>

/* cp.async of CH (8 or 16) bytes with zero fill of the bytes past src_bytes */
template <int CH> __device__ __forceinline__ void cp_async_ch(void *smem, const void *gmem, int src_bytes) {
    unsigned s = (unsigned)__cvta_generic_to_shared(smem);
    if (CH == 16)
        asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(s), "l"(gmem), "r"(src_bytes));
    else
        asm volatile("cp.async.ca.shared.global [%0], [%1], 8, %2;\n" ::"r"(s), "l"(gmem), "r"(src_bytes));
}
__device__ __forceinline__ void fp8_commit(void) { asm volatile("cp.async.commit_group;\n" ::); }
template <int N> __device__ __forceinline__ void fp8_wait(void) { asm volatile("cp.async.wait_group %0;\n" ::"n"(N)); }

__device__ __forceinline__ void mma_e4m3(float *c, const unsigned *a, const unsigned *b) {
    asm volatile("mma.sync.aligned.m16n8k32.row.col.f32.e4m3.e4m3.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, "
                 "{%0,%1,%2,%3};\n"
                 : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
}

#endif
