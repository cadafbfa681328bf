/* What the FP8 kernel labs (fp8_lab.cu, pair_lab.cu) share: a CUDA call that must succeed, the
 * labs' random numbers (xorshift64, fixed seed: every run sees the same data) and e4m3 codes. */
#ifndef I8_LAB_COMMON_CUH
#define I8_LAB_COMMON_CUH

#include <cuda_fp16.h>
#include <cuda_fp8.h>
#include <cuda_runtime.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define CK(x)                                                                                        \
    do {                                                                                             \
        cudaError_t e = (x);                                                                         \
        if (e != cudaSuccess) {                                                                      \
            fprintf(stderr, "%s:%d %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorString(e));        \
            exit(1);                                                                                 \
        }                                                                                            \
    } while (0)

static uint64_t rng_state = 88172645463325252ull;
static inline double urand(void) { /* uniform [0, 1) */
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return (double)(rng_state >> 11) * (1.0 / 9007199254740992.0);
}
static inline float nrand(void) { return (float)(sqrt(-2.0 * log(urand() + 1e-300)) * cos(6.283185307179586 * urand())); }
static inline uint8_t q8(float v) { return (uint8_t)__nv_cvt_float_to_fp8(v, __NV_SATFINITE, __NV_E4M3); }
static inline float dq8(uint8_t q) { return __half2float(__half(__nv_cvt_fp8_to_halfraw(q, __NV_E4M3))); }

#endif
