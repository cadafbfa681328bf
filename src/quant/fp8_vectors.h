/* Deterministic float32 test inputs for FP8 e4m3 conversion, shared by tools/fp8-table.cu
 * (which converts them on the GPU into tests/fixtures/fp8/fp8_from_f32.bin) and
 * tests/unit/test_fp8.c (which regenerates them to compare the C conversion with the table).
 * Header-only, integer arithmetic only, valid C11 and CUDA C++ host code, so both sides produce
 * the same bit patterns. Not part of libinfer8's API.
 *
 * Input k (0 <= k < I8_FP8_VEC_COUNT) is float bits built from r = splitmix64(seed, k) by the
 * category k % 8:
 *   0 raw 32-bit pattern (any float: NaN payloads, Inf, subnormals)
 *   1 midpoint between two adjacent e4m3 values (including 464, between 448 and 480), moved by
 *     -1, 0 or +1 float ulp: exercises round-to-nearest-even ties
 *   2 random mantissa with exponent in [-12, 10] (the e4m3 range and a little around it)
 *   3 an exact e4m3 value moved by -1, 0 or +1 float ulp
 *   4 random mantissa with exponent in [-17, -6] (e4m3 subnormals and underflow)
 *   5 random mantissa with exponent in [8, 27] (saturation), 1 in 16 of them +-Inf
 *   6 a fixed list of special values (NaNs, Inf, 448, 464, 480, 2^-9, 2^-10, ...)
 *   7 float32 subnormals and the smallest normals (exponent field 0..7)
 * and a random sign (bit 63 of r) for categories 1-7. */
#ifndef I8_FP8_VECTORS_H
#define I8_FP8_VECTORS_H

#include <stdint.h>

#define I8_FP8_VEC_COUNT (1u << 20)
#define I8_FP8_VEC_SEED 0x1E4A3F8C0FFEE123ull

static inline uint64_t i8_fp8_vec_mix(uint64_t seed, uint32_t k) {
    uint64_t z = seed + 0x9E3779B97F4A7C15ull * ((uint64_t)k + 1u);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

/* Float bits of n * 2^p for 0 < n < 2^24 (result a normal float). */
static inline uint32_t i8_fp8_vec_scaled_int(uint32_t n, int p) {
    int msb = 31;
    while (!(n >> msb)) msb--;
    uint32_t mant = (n ^ (1u << msb)) << (23 - msb);
    return ((uint32_t)(msb + p + 127) << 23) | mant;
}

/* Float bits of the e4m3 value of code c (0..126, positive). */
static inline uint32_t i8_fp8_vec_code_bits(uint32_t c) {
    if (c == 0) return 0;
    if (c < 8) return i8_fp8_vec_scaled_int(c, -9);
    return ((uint32_t)((int)(c >> 3) - 7 + 127) << 23) | ((c & 7u) << 20);
}

static inline uint32_t i8_fp8_vec_bits(uint64_t seed, uint32_t k) {
    static const uint32_t specials[] = {
        0x00000000u, 0x7FC00000u, 0x7F800001u, 0x7FFFFFFFu, 0x7FA00000u, 0x7F800000u, 0x43E00000u /* 448 */,
        0x43E80000u /* 464 */, 0x43F00000u /* 480 */, 0x43E7FFFFu, 0x43E80001u, 0x43DFFFFFu, 0x3B000000u /* 2^-9 */,
        0x3A800000u /* 2^-10 */, 0x3A800001u, 0x3A7FFFFFu, 0x3AC00000u /* 1.5*2^-10 */, 0x3F880000u /* 1.0625 */,
        0x3F980000u /* 1.1875 */, 0x3F800000u /* 1 */, 0x7F7FFFFFu /* FLT_MAX */, 0x00000001u, 0x00800000u,
        0x3C800000u /* 2^-6 */, 0x3C7FFFFFu, 0x3C780000u, 0x3B400000u /* 3*2^-10 */, 0x3BE00000u /* 7*2^-9 */,
        0x3BF00000u /* 15*2^-10 */};
    uint64_t r = i8_fp8_vec_mix(seed, k);
    uint32_t sign = (uint32_t)(r >> 63) << 31;
    uint32_t mant = (uint32_t)(r >> 32) & 0x7FFFFFu;
    uint32_t bits;
    switch (k % 8u) {
    case 0:
        return (uint32_t)r;
    case 1: {
        uint32_t c = (uint32_t)((r >> 8) % 127u);
        uint32_t mid = c < 8 ? i8_fp8_vec_scaled_int(2 * c + 1, -10)
                             : ((uint32_t)((int)(c >> 3) - 7 + 127) << 23) | ((c & 7u) << 20) | (1u << 19);
        bits = mid + (uint32_t)((r >> 16) % 3u) - 1u;
        break;
    }
    case 2:
        bits = ((uint32_t)(127 - 12 + (int)((r >> 8) % 23u)) << 23) | mant;
        break;
    case 3: {
        uint32_t v = i8_fp8_vec_code_bits((uint32_t)((r >> 8) % 127u));
        uint32_t d = (uint32_t)((r >> 16) % 3u);
        bits = v == 0 ? (d == 2 ? 1u : 0u) : v + d - 1u;
        break;
    }
    case 4:
        bits = ((uint32_t)(127 - 17 + (int)((r >> 8) % 12u)) << 23) | mant;
        break;
    case 5:
        bits = ((r >> 40) % 16u) == 0 ? 0x7F800000u : ((uint32_t)(127 + 8 + (int)((r >> 8) % 20u)) << 23) | mant;
        break;
    case 6:
        bits = specials[(k / 8u) % (uint32_t)(sizeof specials / sizeof specials[0])];
        break;
    default:
        bits = ((uint32_t)((r >> 8) % 8u) << 23) | mant;
        break;
    }
    return bits | sign;
}

#endif
