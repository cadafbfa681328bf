/* Thread-block clusters (sm_90): this block's rank and the cluster's size, the cluster barrier,
 * and stores into another cluster block's shared memory (distributed shared memory). Shared by
 * the pair kernels (cuda_fp8_pair.cu) and the lab's wgmma pair (dev/kernels/pair_wg.cuh). */
#ifndef I8_CUDA_CLUSTER_CUH
#define I8_CUDA_CLUSTER_CUH

#include <cuda_runtime.h>
#include <stdint.h>

__device__ __forceinline__ unsigned cluster_rank(void) {
    unsigned r;
    asm volatile("mov.u32 %0, %%cluster_ctarank;\n" : "=r"(r));
    return r;
}
__device__ __forceinline__ unsigned cluster_blocks(void) {
    unsigned n;
    asm volatile("mov.u32 %0, %%cluster_nctarank;\n" : "=r"(n));
    return n;
}
/* arrival without ordering: "this block has started", waited for before the first store into
 * another block's shared memory */
__device__ __forceinline__ void cluster_arrive_relaxed(void) {
    asm volatile("barrier.cluster.arrive.relaxed.aligned;\n" ::: "memory");
}
__device__ __forceinline__ void cluster_arrive(void) { asm volatile("barrier.cluster.arrive.release.aligned;\n" ::: "memory"); }
__device__ __forceinline__ void cluster_wait(void) { asm volatile("barrier.cluster.wait.acquire.aligned;\n" ::: "memory"); }
/* the address in cluster block `rank`'s shared memory of local shared address `addr` */
__device__ __forceinline__ unsigned cluster_map(unsigned addr, unsigned rank) {
    unsigned remote;
    asm volatile("mapa.shared::cluster.u32 %0, %1, %2;\n" : "=r"(remote) : "r"(addr), "r"(rank));
    return remote;
}
/* 8 / 2 bytes into cluster block `rank`'s shared memory at the offset of local address `addr` */
__device__ __forceinline__ void cluster_st_v2(unsigned addr, unsigned rank, uint2 v) {
    asm volatile("st.shared::cluster.v2.u32 [%0], {%1, %2};\n" ::"r"(cluster_map(addr, rank)), "r"(v.x), "r"(v.y) : "memory");
}
__device__ __forceinline__ void cluster_st_u16(unsigned addr, unsigned rank, unsigned short v) {
    asm volatile("st.shared::cluster.u16 [%0], %1;\n" ::"r"(cluster_map(addr, rank)), "h"(v) : "memory");
}

#endif
