/* Internal core of libinfer8: error records, checked allocation and size arithmetic,
 * half-precision conversion, configurable input limits. Every internal module includes this.
 * Not public: applications use include/infer8.h only. */
#ifndef I8_CORE_H
#define I8_CORE_H

#include <stddef.h>
#include <stdint.h>
#include <stdarg.h>
#include <string.h>

#include "infer8.h"

/* An error record: the status of the first failure and a message that names the file, key,
 * shape or byte offset at fault. Functions that can fail take an `i8_err *` and return the
 * status they stored (INFER8_OK leaves the record untouched). */
typedef struct i8_err {
    infer8_status code;
    char msg[1024];
} i8_err;

/* Stores code and a printf-style message into err (if err is not NULL); returns code. */
infer8_status i8_fail(i8_err *err, infer8_status code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* Prefixes the existing message with "context: " (e.g. a file name); returns err->code. */
infer8_status i8_err_prefix(i8_err *err, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void i8_err_clear(i8_err *err);

/* Allocation that reports INFER8_E_NOMEM through err; size arithmetic is overflow-checked. */
void *i8_malloc(size_t size, i8_err *err);
void *i8_calloc(size_t count, size_t size, i8_err *err);
void *i8_realloc(void *ptr, size_t size, i8_err *err);
char *i8_strdup(const char *s, i8_err *err);
/* a*b (and a*b*c) into *out; returns 0 on overflow, 1 otherwise. */
int i8_mul_size(size_t a, size_t b, size_t *out);
int i8_mul3_size(size_t a, size_t b, size_t c, size_t *out);
int i8_add_size(size_t a, size_t b, size_t *out);

/* IEEE binary16 <-> float32, round to nearest even, NaN and Inf preserved. */
uint16_t i8_f32_to_f16(float f);
float i8_f16_to_f32(uint16_t h);
/* i8_f16_to_f32(i8_f32_to_f16(x)) bit for bit (NaN payloads included), without branches: the
 * binary16 storage of the FP8 emulation runs it on every activation. The array form (y may be
 * x) vectorizes and runs on the OpenMP threads. */
float i8_f16_round(float x);

/* Float bits and a branch-free select on them (all_ones_or_zero picks a, else b), shared by the
 * element-wise conversions so their loops vectorize. */
static inline uint32_t i8_f32_bits(float f) {
    uint32_t u;
    memcpy(&u, &f, sizeof u);
    return u;
}
static inline float i8_bits_f32(uint32_t u) {
    float f;
    memcpy(&f, &u, sizeof f);
    return f;
}
static inline uint32_t i8_bits_pick(uint32_t all_ones_or_zero, uint32_t a, uint32_t b) {
    return (a & all_ones_or_zero) | (b & ~all_ones_or_zero);
}
/* all ones when a >= b, else zero */
static inline uint32_t i8_bits_at_least(uint32_t a, uint32_t b) { return 0u - (uint32_t)(a >= b); }
void i8_f16_round_array(const float *x, float *y, size_t n);
/* bfloat16 -> float32 (exact). */
float i8_bf16_to_f32(uint16_t h);

/* Limits applied to outside data before any allocation. The defaults are documented in README. */
typedef struct i8_limits {
    uint64_t max_json_bytes;          /* config.json, index.json, safetensors header */
    uint64_t max_tensors;             /* tensors in one safetensors file */
    uint64_t max_image_pixels;        /* decoded width * height (decompression bombs) */
    uint64_t max_image_bytes;         /* encoded image file size */
} i8_limits;
void i8_limits_default(i8_limits *limits);

/* 1 and *out = v when v is an integer in [lo, hi] (numbers read from JSON files). The range is
 * checked on the double before the conversion, which is undefined behaviour outside int's range
 * (fuzz_recipe found "version": 666666666666666661). NaN is refused. */
int i8_double_to_int(double v, int lo, int hi, int *out);

/* Opens path read-only as a regular file: *fd (close-on-exec; the caller closes it) and *size
 * (may be NULL). Errors: INFER8_E_IO ("cannot open: ...", "not a regular file"). The open does
 * not block: a FIFO or device named where a file is expected is refused instead of waiting
 * for a writer forever. */
infer8_status i8_open_regular(const char *path, int *fd, uint64_t *size, i8_err *err);

/* Whole-file reads and atomic writes (temporary file in the same folder, fsync, rename). */
infer8_status i8_read_file(const char *path, uint64_t max_bytes, uint8_t **data, size_t *size, i8_err *err);
infer8_status i8_write_file_atomic(const char *path, const void *data, size_t size, i8_err *err);

/* Atomic writer for large outputs written piece by piece. */
typedef struct i8_atomic_file {
    void *fp;            /* FILE* of the temporary file */
    char *final_path;
    char *temp_path;
    uint64_t written;
} i8_atomic_file;
infer8_status i8_atomic_open(i8_atomic_file *f, const char *path, i8_err *err);
infer8_status i8_atomic_write(i8_atomic_file *f, const void *data, size_t size, i8_err *err);
/* fsync + rename on success; on failure (or if commit is not reached) removes the temporary. */
infer8_status i8_atomic_commit(i8_atomic_file *f, i8_err *err);
void i8_atomic_abort(i8_atomic_file *f);

/* Read-only memory map of a whole file. */
typedef struct i8_mapped_file {
    const uint8_t *data;
    size_t size;
    char *path;
} i8_mapped_file;
infer8_status i8_map_file(const char *path, i8_mapped_file *out, i8_err *err);
void i8_unmap_file(i8_mapped_file *m);

/* Deterministic random numbers (splitmix64 seeding a xoshiro256**); only integer and
 * +,-,*,/,sqrt arithmetic so results are identical on every x86-64 machine and libm. */
typedef struct i8_rng { uint64_t s[4]; } i8_rng;
void i8_rng_seed(i8_rng *r, uint64_t seed);
uint64_t i8_rng_next(i8_rng *r);
double i8_rng_uniform(i8_rng *r);              /* [0, 1) with 53 bits */
double i8_rng_normal(i8_rng *r);               /* standard normal, Marsaglia polar without libm log */
/* exp and log from + - * / only (libm's may differ in the last bit between versions); accurate
 * to a few ulp, for deterministic generation (synth), not for hot paths. */
double i8_portable_exp(double x);
double i8_portable_log(double x);

/* Growing string for reports, listings and written headers: append with i8_strbuf_append /
 * i8_strbuf_printf (s stays NUL-terminated); after an allocation failure oom is set and further
 * appends are ignored; the caller frees s. */
typedef struct i8_strbuf {
    char *s;
    size_t len, cap;
    int oom;
} i8_strbuf;
void i8_strbuf_append(i8_strbuf *b, const char *s, size_t n);
void i8_strbuf_printf(i8_strbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#define I8_ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))
#define I8_MIN(a, b) ((a) < (b) ? (a) : (b))
#define I8_MAX(a, b) ((a) > (b) ? (a) : (b))

#endif
