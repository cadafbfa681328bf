/* Input limits (i8_limits / infer8_limits): each reader refuses oversized input with
 * INFER8_E_LIMIT and a message naming the limit, before allocating for it; and the preprocessing
 * resize cannot be turned into a decompression bomb by a long thin image or a tiny crop_pct. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/i8.h"
#include "formats/bundle.h"
#include "formats/config.h"
#include "formats/safetensors.h"
#include "image/image.h"
#include "quant/scales.h"
#include "test_work.h"

static int setup_work(void **state) {
    (void)state;
    return i8_test_work_init("test_limits");
}

/* The growing string used by every writer of headers and listings: appends past the first
 * 4096-byte block, printf output longer than the room left, always NUL-terminated. */
static void test_strbuf_growth(void **state) {
    (void)state;
    i8_strbuf b = {0};
    char chunk[1000];
    memset(chunk, 'a', sizeof chunk);
    for (int i = 0; i < 9; i++) i8_strbuf_append(&b, chunk, sizeof chunk);
    assert_false(b.oom);
    assert_int_equal(b.len, 9000);
    assert_int_equal(b.s[8999], 'a');
    assert_int_equal(b.s[9000], 0);
    i8_strbuf_printf(&b, "%s|%d|%5000s|", "x", 42, "y");
    assert_int_equal(b.len, 9000 + 2 + 3 + 5000 + 1);
    assert_memory_equal(b.s + 9000, "x|42|    ", 9);
    assert_int_equal(b.s[b.len - 2], 'y');
    assert_int_equal(b.s[b.len - 1], '|');
    assert_int_equal(b.s[b.len], 0);
    assert_int_equal(strlen(b.s), b.len);
    i8_strbuf_append(&b, "", 0);
    assert_int_equal(strlen(b.s), b.len);
    free(b.s);
    i8_strbuf p = {0}; /* printf into an empty buffer allocates */
    i8_strbuf_printf(&p, "%d", 7);
    assert_string_equal(p.s, "7");
    free(p.s);
    i8_strbuf o = {0};
    o.oom = 1; /* after a failure appends are ignored */
    i8_strbuf_append(&o, "z", 1);
    i8_strbuf_printf(&o, "z");
    assert_null(o.s);
}

static void test_preprocess_long_thin_image(void **state) {
    (void)state;
    i8_image im = {0};
    i8_err err = {0};
    /* 1 x 20000 pixels (20000 px, far under the decode limit) -> short side 341, long side
     * 6,820,000: 2.3e9 pixels if resized; refused before the resize allocates */
    assert_int_equal(i8_image_alloc(&im, 1, 20000, &err), INFER8_OK);
    memset(im.rgb, 128, 3 * 20000);
    i8_preproc pre = {{3, 299, 299}, 0.875f, I8_INTERP_BICUBIC, {0.5f, 0.5f, 0.5f}, {0.5f, 0.5f, 0.5f}};
    static float out[3 * 299 * 299];
    assert_int_equal(i8_preprocess(&im, &pre, out, &err), INFER8_E_LIMIT);
    assert_non_null(strstr(err.msg, "1x20000 resizes to 341x6820000"));
    assert_non_null(strstr(err.msg, "above the limit"));
    /* a tiny crop_pct on a normal image: the short side would be ~3e31 (clamped, no overflow) */
    i8_image_free(&im);
    assert_int_equal(i8_image_alloc(&im, 8, 8, &err), INFER8_OK);
    memset(im.rgb, 7, 3 * 64);
    pre.crop_pct = 1e-30f;
    assert_int_equal(i8_preprocess(&im, &pre, out, &err), INFER8_E_LIMIT);
    assert_non_null(strstr(err.msg, "resizes to 2147483647x2147483647"));
    /* the same image at crop_pct 0.875 still works: 8x8 -> 341x341, centre 299x299 */
    pre.crop_pct = 0.875f;
    assert_int_equal(i8_preprocess(&im, &pre, out, &err), INFER8_OK);
    assert_true(out[0] > -0.95f && out[0] < -0.93f); /* (7/255 - 0.5) / 0.5 = -0.945 */
    i8_image_free(&im);
}

static void test_image_bytes_and_pixels(void **state) {
    (void)state;
    i8_image im = {0};
    i8_err err = {0};
    uint8_t *png = NULL;
    size_t size = 0;
    assert_int_equal(i8_image_alloc(&im, 40, 30, &err), INFER8_OK);
    memset(im.rgb, 200, 3 * 1200);
    assert_int_equal(i8_image_encode(&im, 'p', &png, &size, &err), INFER8_OK);
    i8_image_free(&im);
    i8_limits lim;
    i8_limits_default(&lim);
    lim.max_image_bytes = size - 1;
    assert_int_equal(i8_image_decode(&im, png, size, "a.png", &lim, &err), INFER8_E_LIMIT);
    assert_non_null(strstr(err.msg, "a.png: encoded image of"));
    lim.max_image_bytes = size;
    lim.max_image_pixels = 1199;
    assert_int_equal(i8_image_decode(&im, png, size, "a.png", &lim, &err), INFER8_E_LIMIT);
    assert_non_null(strstr(err.msg, "40x30 has 1200 pixels, above the limit of 1199"));
    assert_null(im.rgb);
    lim.max_image_pixels = 1200;
    assert_int_equal(i8_image_decode(&im, png, size, "a.png", &lim, &err), INFER8_OK);
    assert_int_equal(im.width * im.height, 1200);
    i8_image_free(&im);
    free(png);
}

static void test_safetensors_json_and_count(void **state) {
    (void)state;
    i8_err err = {0};
    float v[3] = {1, 2, 3};
    int64_t shape[1] = {1};
    i8_st_write_entry e[3] = {{"a", I8_DTYPE_F32, 1, shape, &v[0]}, {"b", I8_DTYPE_F32, 1, shape, &v[1]},
                              {"c", I8_DTYPE_F32, 1, shape, &v[2]}};
    const char *path = i8_test_work_path("limits.safetensors");
    assert_int_equal(i8_st_write(path, e, 3, NULL, &err), INFER8_OK);
    i8_limits lim;
    i8_limits_default(&lim);
    i8_safetensors st;
    memset(&st, 0, sizeof st);
    lim.max_tensors = 2;
    assert_int_equal(i8_st_open(&st, path, &lim, &err), INFER8_E_LIMIT);
    assert_non_null(strstr(err.msg, "3"));
    lim.max_tensors = 3;
    lim.max_json_bytes = 16;
    assert_int_equal(i8_st_open(&st, path, &lim, &err), INFER8_E_LIMIT);
    lim.max_json_bytes = 4096;
    assert_int_equal(i8_st_open(&st, path, &lim, &err), INFER8_OK);
    assert_int_equal(st.n_tensors, 3);
    i8_st_close(&st);
}

static void test_json_readers(void **state) {
    (void)state;
    i8_err err = {0};
    const char *path = i8_test_work_path("limits_config.json");
    const char *cfg_text = "{\"architecture\": \"inception_v3\", \"num_classes\": 10}";
    assert_int_equal(i8_write_file_atomic(path, cfg_text, strlen(cfg_text), &err), INFER8_OK);
    i8_limits lim;
    i8_limits_default(&lim);
    lim.max_json_bytes = strlen(cfg_text) - 1;
    i8_model_config cfg;
    memset(&cfg, 0, sizeof cfg);
    assert_int_equal(i8_config_load(&cfg, path, &lim, &err), INFER8_E_LIMIT);
    lim.max_json_bytes = strlen(cfg_text);
    assert_int_equal(i8_config_load(&cfg, path, &lim, &err), INFER8_OK);
    assert_int_equal(cfg.num_classes, 10);
    i8_config_free(&cfg);
    const char *sc = "{\"format\": \"infer8-scales\", \"version\": 1, \"method\": \"max\", \"percentile\": null, "
                     "\"images\": 1, \"tensors\": {\"a\": {\"amax\": 1, \"scale\": 0.5}, \"b\": {\"amax\": 2, \"scale\": 1}}}";
    i8_scales s;
    memset(&s, 0, sizeof s);
    lim.max_tensors = 1;
    assert_int_equal(i8_scales_parse(sc, strlen(sc), "scales.json", &lim, &s, &err), INFER8_E_LIMIT);
    lim.max_tensors = 2;
    assert_int_equal(i8_scales_parse(sc, strlen(sc), "scales.json", &lim, &s, &err), INFER8_OK);
    assert_int_equal(s.count, 2);
    i8_scales_free(&s);
}

/* A FIFO (or device) where a file is expected is refused at once: the open does not wait for a
 * writer (alarm: a regression would hang here, so it ends the test instead). */
static void test_fifo_refused(void **state) {
    (void)state;
    const char *path = i8_test_work_path("not_a_file.fifo");
    unlink(path);
    assert_int_equal(mkfifo(path, 0600), 0);
    alarm(20);
    uint8_t *data = NULL;
    size_t size = 0;
    i8_err err = {0};
    assert_int_equal(i8_read_file(path, 1 << 20, &data, &size, &err), INFER8_E_IO);
    assert_non_null(strstr(err.msg, "not_a_file.fifo: not a regular file"));
    i8_mapped_file m;
    memset(&m, 0, sizeof m);
    err.msg[0] = 0;
    assert_int_equal(i8_map_file(path, &m, &err), INFER8_E_IO);
    assert_non_null(strstr(err.msg, "not a regular file"));
    assert_int_equal(i8_bundle_path_has_magic(path), 0);
    char hex[65];
    assert_int_equal(i8_sha256_file(path, hex, &err), INFER8_E_IO);
    assert_int_equal(i8_read_file("/dev/null", 1 << 20, &data, &size, &err), INFER8_E_IO); /* a device */
    alarm(0);
    unlink(path);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_strbuf_growth),
        cmocka_unit_test(test_preprocess_long_thin_image),
        cmocka_unit_test(test_image_bytes_and_pixels),
        cmocka_unit_test(test_safetensors_json_and_count),
        cmocka_unit_test(test_json_readers),
        cmocka_unit_test(test_fifo_refused),
    };
    return cmocka_run_group_tests(tests, setup_work, NULL);
}
