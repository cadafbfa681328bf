/* x / d by one multiply-high, for a divisor d >= 1 fixed at launch and 0 <= x with x d < 2^32:
 * m = floor(2^32 / d) + 1 makes x m / 2^32 = x / d + x e / 2^32 with e in (0, 1], which stays
 * short of the next integer while x d < 2^32 (d 1: m is 0, and x itself the quotient). A division
 * by a run-time int costs the GPU about 20 instructions; the halo kernels' loads made three a copy,
 * in kernels bound by issue latency (session 58: 6% fewer instructions, 7% fewer cycles without
 * them). Host C and CUDA; tests/unit/test_quotient.c checks it against division. */
#ifndef I8_QUOTIENT_H
#define I8_QUOTIENT_H

static inline unsigned i8_quot_multiplier(long long d) {
    return d <= 1 ? 0u : (unsigned)((1ull << 32) / (unsigned long long)d + 1);
}
#ifdef __CUDACC__
__device__ __forceinline__ int i8_quot(int x, unsigned m) { return m ? (int)__umulhi((unsigned)x, m) : x; }
#else
static inline int i8_quot(int x, unsigned m) { return m ? (int)(((unsigned long long)(unsigned)x * m) >> 32) : x; }
#endif

#endif
