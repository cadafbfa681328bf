/* fp32 <-> its bit pattern, for tests that compare results bit for bit (written apart from the
 * library's own, so that a test does not lean on the code it checks) */
#ifndef I8_TEST_FLOAT_BITS_H
#define I8_TEST_FLOAT_BITS_H

#include <stdint.h>
#include <string.h>

static inline float from_bits(uint32_t u) {
    float f;
    memcpy(&f, &u, sizeof f);
    return f;
}

static inline uint32_t to_bits(float f) {
    uint32_t u;
    memcpy(&u, &f, sizeof u);
    return u;
}

#endif
