/* Programmatic dependent launch (Hopper) for the own FP8 kernels: the backend's choose_launch times
 * the forward with and without it and keeps the faster (INFER8_CUDA_PDL=0 never, 2 always).
 * A kernel launched with it may start while the kernel before it in the stream still runs: it
 * sets up what depends on no earlier kernel (shared memory, barriers, weights), then waits in
 * griddep_wait() until that kernel has completed and its writes are visible; right after, it lets
 * the kernel after it start its own setup (griddep_launch_dependents: that one's blocks then wait
 * in their griddep_wait). Without the launch attribute both instructions do nothing. Each node's
 * launch gap is then partly hidden (docs/fp8.md, "Launch choice"). */
#ifndef INFER8_CUDA_PDL_CUH
#define INFER8_CUDA_PDL_CUH

#include <cuda_runtime.h>

static __device__ __forceinline__ void griddep_wait(void) { asm volatile("griddepcontrol.wait;\n" ::: "memory"); }
static __device__ __forceinline__ void griddep_launch_dependents(void) {
    asm volatile("griddepcontrol.launch_dependents;\n" ::: "memory");
}

/* kernel(args...) on stream s, allowed to overlap the stream's previous kernel when pdl (the
 * kernel must call griddep_wait() before it touches memory an earlier kernel writes or reads) */
static inline cudaError_t launch_pdl(const void *kernel, dim3 grid, dim3 block, size_t smem, cudaStream_t s, int pdl,
                                     void **args) {
    cudaLaunchAttribute attr = {};
    attr.id = cudaLaunchAttributeProgrammaticStreamSerialization;
    attr.val.programmaticStreamSerializationAllowed = 1;
    cudaLaunchConfig_t cfg = {};
    cfg.gridDim = grid, cfg.blockDim = block, cfg.dynamicSmemBytes = smem, cfg.stream = s;
    cfg.attrs = pdl ? &attr : NULL, cfg.numAttrs = pdl ? 1 : 0;
    return cudaLaunchKernelExC(&cfg, kernel, args);
}

#endif
