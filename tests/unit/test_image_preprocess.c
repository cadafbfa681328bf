/* Unit tests of timm's eval transform pieces (src/image/preprocess.c): scale size from
 * crop_pct, torchvision's short-side resize target, Python round, center crop offsets with
 * padding, and the float32 normalisation; the same transform split into the uint8 crop and its
 * normalisation (the GPU's input path). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <cmocka.h>

#include "image/image.h"

static void round_half_even(void **state) {
    (void)state;
    assert_int_equal(i8_python_round_half_even(0.5), 0);
    assert_int_equal(i8_python_round_half_even(1.5), 2);
    assert_int_equal(i8_python_round_half_even(2.5), 2);
    assert_int_equal(i8_python_round_half_even(3.5), 4);
    assert_int_equal(i8_python_round_half_even(77.5), 78);
    assert_int_equal(i8_python_round_half_even(2.4999), 2);
    assert_int_equal(i8_python_round_half_even(2.5001), 3);
    assert_int_equal(i8_python_round_half_even(-0.5), 0);
    assert_int_equal(i8_python_round_half_even(-1.5), -2);
    assert_int_equal(i8_python_round_half_even(0.0), 0);
}

static void resize_targets(void **state) {
    (void)state;
    int w, h;
    /* 299 / 0.8975 = 333.15 -> 333; 375 short: long = int(333 * 500 / 375) = int(444.0) */
    i8_resize_target(500, 375, 299, 0.8975f, &w, &h);
    assert_int_equal(w, 444);
    assert_int_equal(h, 333);
    /* 299 / 0.875 = 341.71 -> 341; int(341 * 500 / 375) = int(454.67) = 454 */
    i8_resize_target(500, 375, 299, 0.875f, &w, &h);
    assert_int_equal(w, 454);
    assert_int_equal(h, 341);
    i8_resize_target(375, 500, 299, 0.875f, &w, &h);
    assert_int_equal(w, 341);
    assert_int_equal(h, 454);
    /* square: both sides S; w == h takes the w <= h branch */
    i8_resize_target(299, 299, 299, 0.875f, &w, &h);
    assert_int_equal(w, 341);
    assert_int_equal(h, 341);
    /* short side already S: unchanged */
    i8_resize_target(333, 500, 299, 0.8975f, &w, &h);
    assert_int_equal(w, 333);
    assert_int_equal(h, 500);
    /* 224 / 0.9 = 248.888 -> 248 (0.9f is 0.899999976; the decimal 0.9 is what timm divides by) */
    i8_resize_target(640, 480, 224, 0.9f, &w, &h);
    assert_int_equal(h, 248);
    assert_int_equal(w, 330);          /* int(248 * 640 / 480) = int(330.67) */
    /* 0.8f = 0.800000012 > 0.8: dividing by the float would give 279.99 -> 279; timm gets 280 */
    i8_resize_target(300, 400, 224, 0.8f, &w, &h);
    assert_int_equal(w, 280);
    assert_int_equal(h, 373);          /* int(280 * 400 / 300) = int(373.33) */
    i8_resize_target(300, 400, 240, 0.8f, &w, &h);
    assert_int_equal(w, 300);          /* already 300: no resize follows */
    assert_int_equal(h, 400);
    /* crop_pct 1.0, 0.95: 224 / 0.95 = 235.79 -> 235 */
    i8_resize_target(100, 1000, 224, 1.0f, &w, &h);
    assert_int_equal(w, 224);
    assert_int_equal(h, 2240);
    i8_resize_target(100, 1000, 224, 0.95f, &w, &h);
    assert_int_equal(w, 235);
    assert_int_equal(h, 2350);
}

static void crop_offsets(void **state) {
    (void)state;
    int l, t;
    i8_center_crop_offsets(454, 341, 299, 299, &l, &t);
    assert_int_equal(l, 78);           /* (454 - 299) / 2 = 77.5 -> 78 (even) */
    assert_int_equal(t, 21);
    i8_center_crop_offsets(300, 302, 299, 299, &l, &t);
    assert_int_equal(l, 0);            /* 0.5 -> 0 */
    assert_int_equal(t, 2);            /* 1.5 -> 2 */
    i8_center_crop_offsets(304, 299, 299, 299, &l, &t);
    assert_int_equal(l, 2);            /* 2.5 -> 2 */
    assert_int_equal(t, 0);
    /* smaller than the crop: torchvision pads (crop - size) // 2 on the left/top */
    i8_center_crop_offsets(50, 400, 64, 64, &l, &t);
    assert_int_equal(l, -7);
    assert_int_equal(t, 168);
    i8_center_crop_offsets(51, 51, 64, 64, &l, &t);
    assert_int_equal(l, -6);           /* 13 // 2 = 6 left, 7 right */
    assert_int_equal(t, -6);
}

static void normalise_and_pad(void **state) {
    (void)state;
    i8_image im;
    i8_err err;
    assert_int_equal(i8_image_alloc(&im, 2, 2, &err), INFER8_OK);
    for (int i = 0; i < 12; i++) im.rgb[i] = (uint8_t)(i % 3 == 0 ? 255 : i % 3 == 1 ? 51 : 0);
    i8_preproc pre = {.input_size = {3, 2, 2}, .crop_pct = 1.0f, .interpolation = I8_INTERP_BICUBIC,
                      .mean = {0.5f, 0.5f, 0.5f}, .std = {0.5f, 0.5f, 0.5f}};
    float out[3 * 4 * 4];
    assert_int_equal(i8_preprocess(&im, &pre, out, &err), INFER8_OK);
    for (int i = 0; i < 4; i++) {
        assert_true(out[i] == 1.0f);                       /* 255 -> (1 - 0.5) / 0.5 */
        assert_true(out[4 + i] == (0.2f - 0.5f) / 0.5f);   /* 51/255 = 0.2f */
        assert_true(out[8 + i] == -1.0f);
    }
    /* crop_pct 2: S = floor(4 / 2) = 2, no resize; crop 4 on 2 pads 1 on each side with zeros */
    pre.input_size[1] = pre.input_size[2] = 4;
    pre.crop_pct = 2.0f;
    assert_int_equal(i8_preprocess(&im, &pre, out, &err), INFER8_OK);
    for (int y = 0; y < 4; y++)
        for (int x = 0; x < 4; x++) {
            int inside = y >= 1 && y <= 2 && x >= 1 && x <= 2;
            assert_true(out[y * 4 + x] == (inside ? 1.0f : -1.0f));
            assert_true(out[32 + y * 4 + x] == -1.0f);
        }
    pre.input_size[2] = 5;
    assert_int_equal(i8_preprocess(&im, &pre, out, &err), INFER8_E_UNSUPPORTED);
    pre.input_size[2] = 4;
    pre.std[1] = 0.0f;
    assert_int_equal(i8_preprocess(&im, &pre, out, &err), INFER8_E_INVALID_ARGUMENT);
    i8_image_free(&im);
}

/* The uint8 crop and its normalisation against the pieces: for a generated image resized down
 * (bicubic), one resized up (bilinear) and one zero-padded (crop_pct 2), the crop bytes are the
 * resized image's at the center-crop offsets (zero outside), and both i8_normalize_u8 of the crop
 * and i8_preprocess give (v / 255 - mean) / std in float32 for each of them. */
static void crop_then_normalize(void **state) {
    (void)state;
    static const struct { int w, h, size; float crop_pct; i8_interp interp; } cases[] = {
        {173, 131, 64, 0.875f, I8_INTERP_BICUBIC}, {40, 57, 75, 0.9f, I8_INTERP_BILINEAR}, {9, 7, 12, 2.0f, I8_INTERP_BICUBIC}};
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        i8_err err;
        i8_image im;
        assert_int_equal(i8_image_generate(&im, 40 + k, cases[k].w, cases[k].h, &err), INFER8_OK);
        int size = cases[k].size;
        i8_preproc pre = {.input_size = {3, size, size}, .crop_pct = cases[k].crop_pct, .interpolation = cases[k].interp,
                          .mean = {0.485f, 0.456f, 0.406f}, .std = {0.229f, 0.224f, 0.225f}};
        size_t plane = (size_t)size * size;
        float *want = malloc(3 * plane * sizeof(float)), *got = malloc(3 * plane * sizeof(float));
        uint8_t *crop = malloc(3 * plane);
        assert_true(want && got && crop);
        assert_int_equal(i8_preprocess(&im, &pre, want, &err), INFER8_OK);
        assert_int_equal(i8_preprocess_crop_u8(&im, &pre, crop, &err), INFER8_OK);
        i8_normalize_u8(crop, size, size, pre.mean, pre.std, got);
        assert_memory_equal(got, want, 3 * plane * sizeof(float));
        /* the bytes: the resized image at the crop offsets (torchvision skips an equal-size resize) */
        int tw, th, left, top;
        i8_resize_target(im.width, im.height, size, pre.crop_pct, &tw, &th);
        i8_image rs = {0, 0, NULL};
        if (tw != im.width || th != im.height) assert_int_equal(i8_image_resize(&im, tw, th, pre.interpolation, &rs, &err), INFER8_OK);
        const i8_image *src = rs.rgb ? &rs : &im;
        i8_center_crop_offsets(src->width, src->height, size, size, &left, &top);
        int padded = 0;
        for (int y = 0; y < size; y++)
            for (int x = 0; x < size; x++)
                for (int c = 0; c < 3; c++) {
                    int sy = y + top, sx = x + left, in = sy >= 0 && sy < src->height && sx >= 0 && sx < src->width;
                    uint8_t v = in ? src->rgb[((size_t)sy * src->width + sx) * 3 + c] : 0;
                    padded += !in;
                    assert_int_equal(crop[((size_t)y * size + x) * 3 + c], v);
                    /* ToTensor and Normalize, float32 steps (torchvision's order) */
                    float t = (float)v / 255.0f;
                    t = t - pre.mean[c];
                    t = t / pre.std[c];
                    assert_true(got[c * plane + (size_t)y * size + x] == t);
                    assert_true(want[c * plane + (size_t)y * size + x] == t);
                }
        assert_true(k == 2 ? padded > 0 : padded == 0);
        /* the checks of i8_preprocess apply to the crop alone too */
        pre.std[2] = 0.0f;
        assert_int_equal(i8_preprocess_crop_u8(&im, &pre, crop, &err), INFER8_E_INVALID_ARGUMENT);
        i8_image_free(&rs);
        i8_image_free(&im);
        free(want), free(got), free(crop);
    }
}

/* INFER8_PREPROCESS_BENCH=1: ms per image of one thread's share of the GPU input path's CPU work,
 * decoding a generated 500x375 JPEG (quality 90) and resizing and cropping it to 299 (bicubic,
 * crop_pct 0.8975: inception_v3's); mean of 50 after one warm-up. Prints; returns 0. */
static int bench_main(void) {
    i8_err err;
    i8_image im;
    uint8_t *enc = NULL;
    size_t size = 0;
    if (i8_image_generate(&im, 1, 500, 375, &err) || i8_image_encode(&im, 'j', &enc, &size, &err)) {
        fprintf(stderr, "bench: %s\n", err.msg);
        return 1;
    }
    i8_image_free(&im);
    i8_preproc pre = {.input_size = {3, 299, 299}, .crop_pct = 0.8975f, .interpolation = I8_INTERP_BICUBIC,
                      .mean = {0.5f, 0.5f, 0.5f}, .std = {0.5f, 0.5f, 0.5f}};
    static uint8_t crop[3 * 299 * 299];
    struct timespec t0, t1;
    for (int i = -1; i < 50; i++) {
        if (i == 0) clock_gettime(CLOCK_MONOTONIC, &t0);
        i8_image d;
        if (i8_image_decode(&d, enc, size, "bench.jpg", NULL, &err) || i8_preprocess_crop_u8(&d, &pre, crop, &err)) {
            fprintf(stderr, "bench: %s\n", err.msg);
            return 1;
        }
        i8_image_free(&d);
    }
    clock_gettime(CLOCK_MONOTONIC, &t1);
    printf("500x375 JPEG decode + bicubic resize + center crop to 299x299 bytes: %.2f ms per image (one thread)\n",
           ((t1.tv_sec - t0.tv_sec) * 1e3 + (t1.tv_nsec - t0.tv_nsec) / 1e6) / 50);
    free(enc);
    return 0;
}

int main(void) {
    if (getenv("INFER8_PREPROCESS_BENCH")) return bench_main();
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(round_half_even), cmocka_unit_test(resize_targets), cmocka_unit_test(crop_offsets),
        cmocka_unit_test(normalise_and_pad), cmocka_unit_test(crop_then_normalize),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
