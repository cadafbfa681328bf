/* Core utilities: error records, checked allocation, fp16/bf16 conversion, limits, file
 * reading, atomic writes, memory maps and a deterministic random generator. */
#include "core/i8.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

infer8_status i8_fail(i8_err *err, infer8_status code, const char *fmt, ...) {
    if (err) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err->msg, sizeof err->msg, fmt, ap);
        va_end(ap);
        err->code = code;
    }
    return code;
}

infer8_status i8_err_prefix(i8_err *err, const char *fmt, ...) {
    if (!err) return INFER8_E_INTERNAL;
    char prefix[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(prefix, sizeof prefix, fmt, ap);
    va_end(ap);
    char old[sizeof err->msg];
    memcpy(old, err->msg, sizeof old);
    snprintf(err->msg, sizeof err->msg, "%s: %s", prefix, old);
    return err->code;
}

void i8_err_clear(i8_err *err) {
    if (err) {
        err->code = INFER8_OK;
        err->msg[0] = 0;
    }
}

int i8_mul_size(size_t a, size_t b, size_t *out) {
    if (a && b > SIZE_MAX / a) return 0;
    *out = a * b;
    return 1;
}

int i8_mul3_size(size_t a, size_t b, size_t c, size_t *out) {
    size_t ab;
    return i8_mul_size(a, b, &ab) && i8_mul_size(ab, c, out);
}

int i8_add_size(size_t a, size_t b, size_t *out) {
    if (b > SIZE_MAX - a) return 0;
    *out = a + b;
    return 1;
}

void *i8_malloc(size_t size, i8_err *err) {
    void *p = malloc(size ? size : 1);
    if (!p) i8_fail(err, INFER8_E_NOMEM, "out of memory allocating %zu bytes", size);
    return p;
}

void *i8_calloc(size_t count, size_t size, i8_err *err) {
    size_t total;
    if (!i8_mul_size(count, size, &total)) {
        i8_fail(err, INFER8_E_NOMEM, "allocation size overflow (%zu x %zu)", count, size);
        return NULL;
    }
    void *p = calloc(count ? count : 1, size ? size : 1);
    if (!p) i8_fail(err, INFER8_E_NOMEM, "out of memory allocating %zu bytes", total);
    return p;
}

void *i8_realloc(void *ptr, size_t size, i8_err *err) {
    void *p = realloc(ptr, size ? size : 1);
    if (!p) i8_fail(err, INFER8_E_NOMEM, "out of memory allocating %zu bytes", size);
    return p;
}

char *i8_strdup(const char *s, i8_err *err) {
    size_t n = strlen(s) + 1;
    char *p = i8_malloc(n, err);
    if (p) memcpy(p, s, n);
    return p;
}

/* Room for need more bytes plus the NUL; 0, or 1 with oom set. */
static int strbuf_reserve(i8_strbuf *b, size_t need) {
    if (b->s && need < b->cap - b->len) return 0;
    if (need > SIZE_MAX / 4 - b->len) {
        b->oom = 1;
        return 1;
    }
    size_t cap = b->cap ? b->cap : 4096;
    while (cap <= b->len + need) cap *= 2;
    char *t = realloc(b->s, cap);
    if (!t) {
        b->oom = 1;
        return 1;
    }
    b->s = t;
    b->cap = cap;
    return 0;
}

void i8_strbuf_append(i8_strbuf *b, const char *s, size_t n) {
    if (b->oom || strbuf_reserve(b, n)) return;
    memcpy(b->s + b->len, s, n);
    b->len += n;
    b->s[b->len] = 0;
}

void i8_strbuf_printf(i8_strbuf *b, const char *fmt, ...) {
    if (b->oom) return;
    for (;;) {
        va_list ap;
        va_start(ap, fmt);
        int n = vsnprintf(b->s ? b->s + b->len : NULL, b->s ? b->cap - b->len : 0, fmt, ap);
        va_end(ap);
        if (n < 0) {
            b->oom = 1;
            return;
        }
        if (b->s && (size_t)n < b->cap - b->len) {
            b->len += (size_t)n;
            return;
        }
        if (strbuf_reserve(b, (size_t)n)) return;
    }
}

/* ---- half precision ---- */

uint16_t i8_f32_to_f16(float f) {
    uint32_t x;
    memcpy(&x, &f, 4);
    uint32_t sign = (x >> 16) & 0x8000u;
    uint32_t exp = (x >> 23) & 0xffu;
    uint32_t mant = x & 0x7fffffu;
    if (exp == 0xff) return (uint16_t)(sign | 0x7c00u | (mant ? 0x200u | (mant >> 13) : 0));
    int32_t e = (int32_t)exp - 127 + 15;
    if (e >= 31) return (uint16_t)(sign | 0x7c00u);
    if (e <= 0) {
        if (e < -10) return (uint16_t)sign;
        mant |= 0x800000u;
        uint32_t shift = (uint32_t)(14 - e);
        uint32_t half = mant >> shift;
        uint32_t rem = mant & ((1u << shift) - 1);
        uint32_t mid = 1u << (shift - 1);
        if (rem > mid || (rem == mid && (half & 1))) half++;
        return (uint16_t)(sign | half);
    }
    uint32_t half = sign | ((uint32_t)e << 10) | (mant >> 13);
    uint32_t rem = mant & 0x1fffu;
    if (rem > 0x1000u || (rem == 0x1000u && (half & 1))) half++; /* may carry into exponent: correct */
    return (uint16_t)half;
}

float i8_f16_to_f32(uint16_t h) {
    uint32_t sign = ((uint32_t)h & 0x8000u) << 16;
    uint32_t exp = (h >> 10) & 0x1fu;
    uint32_t mant = h & 0x3ffu;
    uint32_t x;
    if (exp == 0) {
        if (mant == 0) {
            x = sign;
        } else {
            int e = -1;
            do {
                e++;
                mant <<= 1;
            } while (!(mant & 0x400u));
            x = sign | ((uint32_t)(127 - 15 - e) << 23) | ((mant & 0x3ffu) << 13);
        }
    } else if (exp == 31) {
        x = sign | 0x7f800000u | (mant << 13);
    } else {
        x = sign | ((exp - 15 + 127) << 23) | (mant << 13);
    }
    float f;
    memcpy(&f, &x, 4);
    return f;
}

static inline float f16_round_bits(float x) {
    const uint32_t u = i8_f32_bits(x), sign = u & 0x80000000u, a = u & 0x7fffffffu;
    /* |x| >= 2^-14: binary16 normals keep 10 mantissa bits, ties to even (carries are right);
     * beyond 65504 Inf */
    uint32_t normal = (a + 0xfffu + ((a >> 13) & 1u)) & 0xffffe000u;
    normal = i8_bits_pick(i8_bits_at_least(normal, 0x477fe001u), 0x7f800000u, normal);
    /* below: binary16 subnormals, multiples of 2^-24, which is the ulp of 0.5 */
    const uint32_t subnormal = i8_f32_bits((i8_bits_f32(a) + 0.5f) - 0.5f);
    uint32_t r = i8_bits_pick(i8_bits_at_least(a, 0x38800000u), normal, subnormal);
    r = i8_bits_pick(i8_bits_at_least(a, 0x7f800000u), a, r);                                  /* Inf */
    r = i8_bits_pick(i8_bits_at_least(a, 0x7f800001u), 0x7fc00000u | (u & 0x003fe000u), r);   /* NaN: quieted, payload cut */
    return i8_bits_f32(r | sign);
}

float i8_f16_round(float x) { return f16_round_bits(x); }

void i8_f16_round_array(const float *x, float *y, size_t n) {
#pragma omp parallel for schedule(static) if (n >= 65536)
    for (size_t i = 0; i < n; i++) y[i] = f16_round_bits(x[i]);
}

float i8_bf16_to_f32(uint16_t h) {
    uint32_t x = (uint32_t)h << 16;
    float f;
    memcpy(&f, &x, 4);
    return f;
}

/* ---- limits ---- */

void i8_limits_default(i8_limits *l) {
    l->max_json_bytes = 64ull << 20;
    l->max_tensors = 100000;
    l->max_image_pixels = 178956970ull;
    l->max_image_bytes = 256ull << 20;
}

int i8_double_to_int(double v, int lo, int hi, int *out) {
    if (!(v >= lo && v <= hi) || v != floor(v)) return 0;
    *out = (int)v;
    return 1;
}

/* ---- files ---- */

infer8_status i8_open_regular(const char *path, int *fd, uint64_t *size, i8_err *err) {
    /* O_NONBLOCK: opening a FIFO without a writer would otherwise wait forever; it has no
     * effect on reads of regular files, the only kind kept */
    int d = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (d < 0) return i8_fail(err, INFER8_E_IO, "%s: cannot open: %s", path, strerror(errno));
    struct stat st;
    if (fstat(d, &st) != 0 || !S_ISREG(st.st_mode)) {
        close(d);
        return i8_fail(err, INFER8_E_IO, "%s: not a regular file", path);
    }
    *fd = d;
    if (size) *size = (uint64_t)st.st_size;
    return INFER8_OK;
}

infer8_status i8_read_file(const char *path, uint64_t max_bytes, uint8_t **data, size_t *size, i8_err *err) {
    uint64_t file_size = 0;
    int fd = -1;
    infer8_status st = i8_open_regular(path, &fd, &file_size, err);
    if (st) return st;
    if (file_size > max_bytes || file_size > SIZE_MAX - 1) {
        close(fd);
        return i8_fail(err, INFER8_E_LIMIT, "%s: file is %llu bytes, above the limit of %llu bytes", path,
                       (unsigned long long)file_size, (unsigned long long)max_bytes);
    }
    FILE *f = fdopen(fd, "rb");
    if (!f) {
        close(fd);
        return i8_fail(err, INFER8_E_IO, "%s: cannot open: %s", path, strerror(errno));
    }
    size_t n = (size_t)file_size;
    uint8_t *buf = i8_malloc(n + 1, err);
    if (!buf) {
        fclose(f);
        return INFER8_E_NOMEM;
    }
    size_t got = n ? fread(buf, 1, n, f) : 0;
    fclose(f);
    if (got != n) {
        free(buf);
        return i8_fail(err, INFER8_E_IO, "%s: short read (%zu of %zu bytes)", path, got, n);
    }
    buf[n] = 0;
    *data = buf;
    *size = n;
    return INFER8_OK;
}

static char *temp_name_for(const char *path, i8_err *err) {
    size_t n = strlen(path) + 32;
    char *t = i8_malloc(n, err);
    if (t) snprintf(t, n, "%s.tmp.%ld", path, (long)getpid());
    return t;
}

infer8_status i8_atomic_open(i8_atomic_file *f, const char *path, i8_err *err) {
    memset(f, 0, sizeof *f);
    f->final_path = i8_strdup(path, err);
    f->temp_path = f->final_path ? temp_name_for(path, err) : NULL;
    if (!f->temp_path) {
        free(f->final_path);
        f->final_path = NULL;
        return INFER8_E_NOMEM;
    }
    FILE *fp = fopen(f->temp_path, "wb");
    if (!fp) {
        infer8_status s = i8_fail(err, INFER8_E_IO, "cannot write %s: %s (creating its temporary file %s)", path,
                                  strerror(errno), f->temp_path);
        free(f->final_path);
        free(f->temp_path);
        f->final_path = f->temp_path = NULL;
        return s;
    }
    f->fp = fp;
    return INFER8_OK;
}

infer8_status i8_atomic_write(i8_atomic_file *f, const void *data, size_t size, i8_err *err) {
    if (size && fwrite(data, 1, size, (FILE *)f->fp) != size)
        return i8_fail(err, INFER8_E_IO, "%s: write failed: %s", f->temp_path, strerror(errno));
    f->written += size;
    return INFER8_OK;
}

void i8_atomic_abort(i8_atomic_file *f) {
    if (f->fp) fclose((FILE *)f->fp);
    if (f->temp_path) unlink(f->temp_path);
    free(f->final_path);
    free(f->temp_path);
    memset(f, 0, sizeof *f);
}

infer8_status i8_atomic_commit(i8_atomic_file *f, i8_err *err) {
    FILE *fp = (FILE *)f->fp;
    infer8_status s = INFER8_OK;
    if (fflush(fp) != 0 || fsync(fileno(fp)) != 0)
        s = i8_fail(err, INFER8_E_IO, "%s: flush failed: %s", f->temp_path, strerror(errno));
    if (fclose(fp) != 0 && s == INFER8_OK)
        s = i8_fail(err, INFER8_E_IO, "%s: close failed: %s", f->temp_path, strerror(errno));
    f->fp = NULL;
    if (s == INFER8_OK && rename(f->temp_path, f->final_path) != 0)
        s = i8_fail(err, INFER8_E_IO, "%s: cannot rename into place: %s", f->final_path, strerror(errno));
    if (s == INFER8_OK) {
        /* make the rename durable: fsync the folder */
        char *dir_copy = strdup(f->final_path);
        if (dir_copy) {
            int dfd = open(dirname(dir_copy), O_RDONLY);
            if (dfd >= 0) {
                fsync(dfd);
                close(dfd);
            }
            free(dir_copy);
        }
        free(f->temp_path);
        f->temp_path = NULL;
    }
    i8_atomic_abort(f);
    return s;
}

infer8_status i8_write_file_atomic(const char *path, const void *data, size_t size, i8_err *err) {
    i8_atomic_file f;
    infer8_status s = i8_atomic_open(&f, path, err);
    if (s) return s;
    s = i8_atomic_write(&f, data, size, err);
    if (s) {
        i8_atomic_abort(&f);
        return s;
    }
    return i8_atomic_commit(&f, err);
}

infer8_status i8_map_file(const char *path, i8_mapped_file *out, i8_err *err) {
    uint64_t file_size = 0;
    int fd = -1;
    infer8_status st = i8_open_regular(path, &fd, &file_size, err);
    if (st) return st;
    if (file_size > SIZE_MAX) {
        close(fd);
        return i8_fail(err, INFER8_E_LIMIT, "%s: file of %llu bytes cannot be mapped", path,
                       (unsigned long long)file_size);
    }
    size_t size = (size_t)file_size;
    const uint8_t *data = NULL;
    if (size > 0) {
        void *p = mmap(NULL, size, PROT_READ, MAP_PRIVATE, fd, 0);
        if (p == MAP_FAILED) {
            close(fd);
            return i8_fail(err, INFER8_E_IO, "%s: cannot map: %s", path, strerror(errno));
        }
        data = p;
    }
    close(fd);
    char *name = i8_strdup(path, err);
    if (!name) {
        if (data) munmap((void *)data, size);
        return INFER8_E_NOMEM;
    }
    out->data = data;
    out->size = size;
    out->path = name;
    return INFER8_OK;
}

void i8_unmap_file(i8_mapped_file *m) {
    if (m->data) munmap((void *)m->data, m->size);
    free(m->path);
    memset(m, 0, sizeof *m);
}

/* ---- random ---- */

static uint64_t splitmix64(uint64_t *x) {
    uint64_t z = (*x += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

void i8_rng_seed(i8_rng *r, uint64_t seed) {
    uint64_t x = seed;
    for (int i = 0; i < 4; i++) r->s[i] = splitmix64(&x);
}

static uint64_t rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }

uint64_t i8_rng_next(i8_rng *r) {
    uint64_t *s = r->s;
    uint64_t result = rotl(s[1] * 5, 7) * 9;
    uint64_t t = s[1] << 17;
    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] ^= t;
    s[3] = rotl(s[3], 45);
    return result;
}

double i8_rng_uniform(i8_rng *r) { return (double)(i8_rng_next(r) >> 11) * (1.0 / 9007199254740992.0); }

/* Natural log by range reduction to [sqrt(1/2), sqrt(2)) and the atanh series; only + - * /,
 * so identical on every machine (libm's log may differ in the last bit between versions). */
double i8_portable_log(double x) {
    int k = 0;
    while (x > 1.4142135623730951) { x *= 0.5; k++; }
    while (x < 0.7071067811865476) { x *= 2.0; k--; }
    double t = (x - 1.0) / (x + 1.0), t2 = t * t, term = t, sum = 0.0;
    for (int n = 1; n < 60; n += 2) {
        sum += term / n;
        term *= t2;
    }
    return 2.0 * sum + k * 0.6931471805599453;
}

/* exp by x = k ln2 + r, |r| <= ln2/2, Taylor series of r, then exact scaling by 2^k. */
double i8_portable_exp(double x) {
    if (x != x) return x;
    if (x > 709.0) return 1.0 / 0.0;
    if (x < -745.0) return 0.0;
    const double ln2 = 0.6931471805599453;
    double kf = x / ln2;
    int k = (int)(kf < 0 ? kf - 0.5 : kf + 0.5);
    double r = x - k * ln2, term = 1.0, sum = 1.0;
    for (int n = 1; n < 30; n++) {
        term *= r / n;
        sum += term;
    }
    /* multiply by 2^k in steps that stay in range */
    while (k > 0) { int step = k > 1000 ? 1000 : k; sum *= ldexp(1.0, step); k -= step; }
    while (k < 0) { int step = k < -1000 ? -1000 : k; sum *= ldexp(1.0, step); k -= step; }
    return sum;
}

double i8_rng_normal(i8_rng *r) {
    for (;;) {
        double u = 2.0 * i8_rng_uniform(r) - 1.0, v = 2.0 * i8_rng_uniform(r) - 1.0;
        double s = u * u + v * v;
        if (s > 0.0 && s < 1.0) {
            double m = -2.0 * i8_portable_log(s) / s;
            /* sqrt is correctly rounded by IEEE 754, so it is portable */
            return u * sqrt(m);
        }
    }
}
