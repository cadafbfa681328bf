/* Hopper warpgroup MMA (wgmma.mma_async, e4m3 x e4m3 -> fp32) from 128-byte-swizzled shared
 * memory, shared by the FP8 kernels of cuda_fp8.cu (cp.async-fed) and cuda_fp8_tma.cu (TMA-fed,
 * persistent). sm_90a only (the only CUDA architecture infer8 builds). */
#ifndef I8_CUDA_WGMMA_CUH
#define I8_CUDA_WGMMA_CUH

#include <stdint.h>

#define FP8_BK 128 /* K bytes per stage (a 128-byte swizzle span): four k32 steps */

/* shared-memory matrix descriptor of K-major rows SW bytes wide, swizzled over SW bytes (128, 64
 * or 32, as TMA's CU_TENSOR_MAP_SWIZZLE_*B writes them): start address, leading byte offset 16
 * (unused: a k32 step of e4m3 never crosses a swizzle span), stride byte offset 8 rows x SW (between
 * 8-row groups), layout type 1 / 2 / 3 for the 128- / 64- / 32-byte swizzle */
template <int SW> __device__ __forceinline__ uint64_t wg_desc_sw(const unsigned char *p) {
    static_assert(SW == 128 || SW == 64 || SW == 32, "a swizzle span wgmma reads");
    constexpr uint64_t layout = SW == 128 ? 1 : SW == 64 ? 2 : 3;
    uint64_t addr = (uint64_t)__cvta_generic_to_shared(p);
    return ((addr & 0x3FFFF) >> 4) | ((uint64_t)(16 >> 4) << 16) | ((uint64_t)(8 * SW >> 4) << 32) | (layout << 62);
}
__device__ __forceinline__ uint64_t wg_desc(const unsigned char *p) { return wg_desc_sw<128>(p); }
/* the descriptor of p + bytes (a multiple of 16) from d = wg_desc_sw<SW>(p): the start address field
 * plus bytes / 16 in the low word alone. Shared addresses stay below 2^18 (228 KB per SM), where
 * wg_desc_sw's mask changes nothing and the field cannot carry into the next. One add per
 * descriptor, where each wg_desc_sw of its own took about 8 instructions (session 30's SASS of the
 * TMA kernel: 97 between a K slice's full-barrier wait and its first wgmma). */
__device__ __forceinline__ uint64_t wg_desc_add(uint64_t d, unsigned bytes) {
    return (d & 0xFFFFFFFF00000000ull) | (uint32_t)((uint32_t)d + (bytes >> 4));
}
/* four 8x8 b16 matrices (= 8 rows x 16 bytes of e4m3 each, or 8 x 8 fp16) from shared memory;
 * thread t gives the row address of row t % 8 of matrix t / 8 and receives, of each matrix, row
 * t / 4, elements 2 (t % 4) and + 1: the mma / wgmma accumulator fragment layout */
__device__ __forceinline__ void ldmatrix_x4(unsigned *r, const void *smem) {
    unsigned s = (unsigned)__cvta_generic_to_shared(smem);
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0,%1,%2,%3}, [%4];\n"
                 : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
                 : "r"(s));
}
__device__ __forceinline__ void wg_fence(void) { asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory"); }
__device__ __forceinline__ void wg_commit(void) { asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory"); }
__device__ __forceinline__ void wg_wait_all(void) { asm volatile("wgmma.wait_group.sync.aligned 0;\n" ::: "memory"); }
/* waits until at most the last committed group is still running */
__device__ __forceinline__ void wg_wait_1(void) { asm volatile("wgmma.wait_group.sync.aligned 1;\n" ::: "memory"); }
/* makes this thread's generic-proxy shared-memory writes (cp.async, st.shared) visible to wgmma */
__device__ __forceinline__ void proxy_fence(void) { asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory"); }
/* keeps the compiler from moving accumulator accesses across wgmma waits */
__device__ __forceinline__ void reg_fence(float &r) { asm volatile("" : "+f"(r)::"memory"); }
/* the promotion of every wgmma kernel: the N tensor-core sums of a finished group (part) added
 * into the fp32 accumulators */
template <int N> __device__ __forceinline__ void wg_promote(float *acc, float *part) {
#pragma unroll
    for (int i = 0; i < N; i++) {
        reg_fence(part[i]);
        acc[i] += part[i];
    }
}

#define WG_D8(i) "+f"(d[i]), "+f"(d[i + 1]), "+f"(d[i + 2]), "+f"(d[i + 3]), "+f"(d[i + 4]), "+f"(d[i + 5]), "+f"(d[i + 6]), "+f"(d[i + 7])
#define WG_REGS16(a, b, c, e, f, g, h, i, j, k, l, m, n, o, p, q) \
    "%" #a ", %" #b ", %" #c ", %" #e ", %" #f ", %" #g ", %" #h ", %" #i ", %" #j ", %" #k ", %" #l ", %" #m ", %" #n ", %" #o ", %" #p ", %" #q

__device__ __forceinline__ void wgmma_n64(float *d, uint64_t da, uint64_t db, int accumulate) {
    asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %34, 0;\n"
                 "wgmma.mma_async.sync.aligned.m64n64k32.f32.e4m3.e4m3 {" WG_REGS16(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15) ", "
                 WG_REGS16(16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31) "}, %32, %33, p, 1, 1;\n}\n"
                 : WG_D8(0), WG_D8(8), WG_D8(16), WG_D8(24)
                 : "l"(da), "l"(db), "r"(accumulate));
}

__device__ __forceinline__ void wgmma_n128(float *d, uint64_t da, uint64_t db, int accumulate) {
    asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %66, 0;\n"
                 "wgmma.mma_async.sync.aligned.m64n128k32.f32.e4m3.e4m3 {" WG_REGS16(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15) ", "
                 WG_REGS16(16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31) ", "
                 WG_REGS16(32, 33, 34, 35, 36, 37, 38, 39, 40, 41, 42, 43, 44, 45, 46, 47) ", "
                 WG_REGS16(48, 49, 50, 51, 52, 53, 54, 55, 56, 57, 58, 59, 60, 61, 62, 63) "}, %64, %65, p, 1, 1;\n}\n"
                 : WG_D8(0), WG_D8(8), WG_D8(16), WG_D8(24), WG_D8(32), WG_D8(40), WG_D8(48), WG_D8(56)
                 : "l"(da), "l"(db), "r"(accumulate));
}

#endif
