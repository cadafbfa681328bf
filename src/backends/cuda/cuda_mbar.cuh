/* mbarriers in shared memory, the way the TMA-fed kernels (cuda_fp8_tma.cu) wait for asynchronous
 * copies: init, arrivals with expected transaction bytes, and a bounded wait. */
#ifndef I8_CUDA_MBAR_CUH
#define I8_CUDA_MBAR_CUH

#include <cuda_runtime.h>
#include <stdint.h>

__device__ __forceinline__ unsigned smem_u32(const void *p) { return (unsigned)__cvta_generic_to_shared(p); }

__device__ __forceinline__ void mbar_init(uint64_t *bar, unsigned count) {
    asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;\n" ::"r"(smem_u32(bar)), "r"(count) : "memory");
}
/* this thread's arrival, and `bytes` more transaction bytes the phase must see land */
__device__ __forceinline__ void mbar_arrive_expect_tx(uint64_t *bar, unsigned bytes) {
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;\n" ::"r"(smem_u32(bar)), "r"(bytes) : "memory");
}
__device__ __forceinline__ void mbar_arrive(uint64_t *bar) {
    asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];\n" ::"r"(smem_u32(bar)) : "memory");
}
/* waits until the phase of parity `parity` has completed (a fresh barrier counts its phase
 * "before 0", parity 1, as completed). try_wait suspends for a while per call; a wait that
 * never ends (a pipeline bug) traps after about 2^22 calls, seconds, so that the launch fails
 * ("unspecified launch failure") instead of hanging the stream for ever. No printf: a function
 * call anywhere in a kernel makes ptxas serialize all its wgmma (C7510; it did until session
 * 12's call 5, so those times are of serialized kernels; tests/dev/wgmma_pipelined.sh).
 * FAULT (the kernels that move registers between warpgroups, setmaxnreg): a store to address 0
 * fails the launch instead ("an illegal memory access"). Where a kernel holds a trap, ptxas
 * (CUDA 13) compiles every warpgroup within the registers the block starts with, ignoring
 * setmaxnreg's: the three-consumer kernels' consumers spilled 264 bytes at 128 registers. */
__device__ __forceinline__ bool mbar_try(uint64_t *bar, unsigned parity) {
    unsigned done;
    asm volatile("{\n"
                 ".reg .pred p;\n"
                 "mbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2;\n"
                 "selp.u32 %0, 1, 0, p;\n"
                 "}\n"
                 : "=r"(done)
                 : "r"(smem_u32(bar)), "r"(parity)
                 : "memory");
    return done != 0;
}
template <bool FAULT = false> __device__ __forceinline__ void mbar_wait(uint64_t *bar, unsigned parity) {
    for (unsigned spins = 0; !mbar_try(bar, parity); spins++)
        if (spins == (1u << 22)) {
            if constexpr (FAULT) asm volatile("st.global.u32 [%0], 0;\n" ::"l"(0ull) : "memory");
            else __trap();
        }
}

#endif
