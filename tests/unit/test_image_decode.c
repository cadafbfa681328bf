/* Unit tests of image decoding and encoding (src/image/decode.c, encode.c): lossless round
 * trips, and every kind of bad input -- truncation at many lengths, corrupted bytes, zero-size
 * headers, pixel and byte limits, unknown formats -- returning its status without crashing. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "image/image.h"

static i8_image test_image(int w, int h) {
    i8_image im;
    i8_err err;
    assert_int_equal(i8_image_generate(&im, 7, w, h, &err), INFER8_OK);
    return im;
}

static void roundtrip(void **state) {
    (void)state;
    i8_image im = test_image(37, 23), back;
    i8_err err;
    i8_limits lim;
    i8_limits_default(&lim);
    const char fmts[] = {'p', 'w', 'j'};
    for (int f = 0; f < 3; f++) {
        uint8_t *data = NULL;
        size_t n = 0;
        assert_int_equal(i8_image_encode(&im, fmts[f], &data, &n, &err), INFER8_OK);
        assert_true(n > 20);
        assert_int_equal(i8_image_decode(&back, data, n, "mem", &lim, &err), INFER8_OK);
        assert_int_equal(back.width, 37);
        assert_int_equal(back.height, 23);
        if (fmts[f] != 'j') {
            assert_memory_equal(back.rgb, im.rgb, 37 * 23 * 3);
        } else {   /* quality 90 with 4:2:0 chroma: close (Pillow also gets a mean error ~5.5 here) */
            long sum = 0;
            for (int i = 0; i < 37 * 23 * 3; i++) sum += labs((long)back.rgb[i] - im.rgb[i]);
            assert_true(sum < 37 * 23 * 3 * 8);
        }
        i8_image_free(&back);
        free(data);
    }
    assert_int_equal(i8_image_encode(&im, 'x', &(uint8_t *){NULL}, &(size_t){0}, &err), INFER8_E_INVALID_ARGUMENT);
    i8_image_free(&im);
}

/* Every prefix-truncation must fail with FORMAT (PNG, WebP: always; JPEG: once past the header,
 * the end-of-data warning makes it FORMAT too), never crash or succeed with garbage. */
static void truncated(void **state) {
    (void)state;
    i8_image im = test_image(40, 30), back;
    i8_err err;
    i8_limits lim;
    i8_limits_default(&lim);
    const char fmts[] = {'p', 'w', 'j'};
    for (int f = 0; f < 3; f++) {
        uint8_t *data = NULL;
        size_t n = 0;
        assert_int_equal(i8_image_encode(&im, fmts[f], &data, &n, &err), INFER8_OK);
        /* PNG: the IEND chunk (last 12 bytes) is not needed for pixels, as in Pillow */
        size_t stop = fmts[f] == 'p' ? n - 12 : n;
        for (size_t len = 0; len < stop; len += (len < 64 ? 1 : 7)) {
            back.rgb = NULL;
            infer8_status st = i8_image_decode(&back, data, len, "cut.img", &lim, &err);
            if (st == INFER8_OK) fail_msg("format %c truncated to %zu of %zu bytes decoded", fmts[f], len, n);
            assert_true(st == INFER8_E_FORMAT || (len < 12 && st == INFER8_E_UNSUPPORTED));
            assert_non_null(strstr(err.msg, "cut.img"));
        }
        free(data);
    }
    i8_image_free(&im);
}

/* Flipped bytes: PNG's CRCs catch them (FORMAT); JPEG may decode with warnings as Pillow does,
 * so only "no crash, OK or FORMAT" is required there. */
static void corrupted(void **state) {
    (void)state;
    i8_image im = test_image(40, 30), back;
    i8_err err;
    i8_limits lim;
    i8_limits_default(&lim);
    const char fmts[] = {'p', 'j', 'w'};
    for (int f = 0; f < 3; f++) {
        uint8_t *data = NULL;
        size_t n = 0;
        assert_int_equal(i8_image_encode(&im, fmts[f], &data, &n, &err), INFER8_OK);
        for (size_t pos = 16; pos < n; pos += 13) {
            uint8_t *copy = malloc(n);
            memcpy(copy, data, n);
            copy[pos] ^= 0x5a;
            back.rgb = NULL;
            infer8_status st = i8_image_decode(&back, copy, n, "bad.img", &lim, &err);
            if (fmts[f] == 'p' && pos < n - 12) assert_int_equal(st, INFER8_E_FORMAT);
            else assert_true(st == INFER8_OK || st == INFER8_E_FORMAT || st == INFER8_E_UNSUPPORTED);
            if (st == INFER8_OK) i8_image_free(&back);
            free(copy);
        }
        free(data);
    }
    i8_image_free(&im);
}

static void put32(uint8_t *p, uint32_t v) {
    p[0] = (uint8_t)(v >> 24);
    p[1] = (uint8_t)(v >> 16);
    p[2] = (uint8_t)(v >> 8);
    p[3] = (uint8_t)v;
}

/* PNG chunk CRC (bitwise CRC-32), so the patched IHDR below passes libpng's checks. */
static uint32_t crc32_bytes(const uint8_t *p, size_t n) {
    uint32_t c = 0xffffffffu;
    for (size_t i = 0; i < n; i++) {
        c ^= p[i];
        for (int k = 0; k < 8; k++) c = (c >> 1) ^ (0xedb88320u & (0u - (c & 1u)));
    }
    return c ^ 0xffffffffu;
}

/* A real 4x3 PNG from our encoder with its IHDR patched to say width x height (valid CRC). */
static size_t png_header(uint8_t *buf, size_t cap, uint32_t w, uint32_t h) {
    i8_image im = test_image(4, 3);
    uint8_t *data = NULL;
    size_t n = 0;
    i8_err err;
    assert_int_equal(i8_image_encode(&im, 'p', &data, &n, &err), INFER8_OK);
    assert_true(n <= cap);
    memcpy(buf, data, n);
    assert_memory_equal(buf + 12, "IHDR", 4);
    put32(buf + 16, w);
    put32(buf + 20, h);
    put32(buf + 29, crc32_bytes(buf + 12, 17));
    free(data);
    i8_image_free(&im);
    return n;
}

static void sizes_and_limits(void **state) {
    (void)state;
    uint8_t buf[4096];
    i8_image back = {0, 0, NULL};
    i8_err err;
    i8_limits lim;
    i8_limits_default(&lim);
    assert_int_equal(i8_image_decode(&back, buf, png_header(buf, sizeof(buf), 0, 5), "zero.png", &lim, &err), INFER8_E_FORMAT);
    assert_int_equal(i8_image_decode(&back, buf, png_header(buf, sizeof(buf), 5, 0), "zero.png", &lim, &err), INFER8_E_FORMAT);
    /* 100000 x 100000 = 1e10 pixels: refused from the header, before any allocation */
    assert_int_equal(i8_image_decode(&back, buf, png_header(buf, sizeof(buf), 100000, 100000), "bomb.png", &lim, &err),
                     INFER8_E_LIMIT);
    assert_non_null(strstr(err.msg, "100000x100000"));
    assert_non_null(strstr(err.msg, "178956970"));
    assert_null(back.rgb);

    /* a configured limit below a real image's size, for each format */
    i8_image im = test_image(20, 10);
    lim.max_image_pixels = 199;
    const char fmts[] = {'p', 'j', 'w'};
    for (int f = 0; f < 3; f++) {
        uint8_t *data = NULL;
        size_t n = 0;
        assert_int_equal(i8_image_encode(&im, fmts[f], &data, &n, &err), INFER8_OK);
        assert_int_equal(i8_image_decode(&back, data, n, "small.img", &lim, &err), INFER8_E_LIMIT);
        assert_non_null(strstr(err.msg, "20x10"));
        lim.max_image_pixels = 200;
        assert_int_equal(i8_image_decode(&back, data, n, "small.img", &lim, &err), INFER8_OK);
        i8_image_free(&back);
        lim.max_image_pixels = 199;
        free(data);
    }

    /* unknown and tiny inputs */
    static const uint8_t gif[16] = "GIF89a\x01\x00\x01\x00\x00\x00\x00\x00\x00";
    assert_int_equal(i8_image_decode(&back, gif, sizeof(gif), "x.gif", &lim, &err), INFER8_E_UNSUPPORTED);
    assert_int_equal(i8_image_decode(&back, gif, 3, "x.gif", &lim, &err), INFER8_E_FORMAT);
    assert_int_equal(i8_image_decode(&back, NULL, 0, "empty", &lim, &err), INFER8_E_FORMAT);
    i8_image_free(&im);
}

static void files(void **state) {
    (void)state;
    const char *work = getenv("INFER8_WORK");
    char dir[512], path[600];
    snprintf(dir, sizeof(dir), "%s", work && *work ? work : "/tmp");
    char cmd[600];
    snprintf(cmd, sizeof(cmd), "mkdir -p '%s'", dir);
    assert_int_equal(system(cmd), 0);
    snprintf(path, sizeof(path), "%s/test_image_decode.png", dir);
    i8_image im = test_image(33, 21), back;
    i8_err err;
    i8_limits lim;
    i8_limits_default(&lim);
    assert_int_equal(i8_image_save_png(&im, path, &err), INFER8_OK);
    assert_int_equal(i8_image_load(&back, path, &lim, &err), INFER8_OK);
    assert_memory_equal(back.rgb, im.rgb, 33 * 21 * 3);
    i8_image_free(&back);
    lim.max_image_bytes = 10;
    assert_int_equal(i8_image_load(&back, path, &lim, &err), INFER8_E_LIMIT);
    snprintf(path, sizeof(path), "%s/does_not_exist.png", dir);
    assert_int_equal(i8_image_load(&back, path, NULL, &err), INFER8_E_IO);
    i8_image_free(&im);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(roundtrip), cmocka_unit_test(truncated), cmocka_unit_test(corrupted),
        cmocka_unit_test(sizes_and_limits), cmocka_unit_test(files),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
