/* Unit tests of the Pillow-exact resampler (src/image/resize.c): coefficient tables for tiny
 * hand-computed cases (22-bit fixed point) and whole-image results checked against Pillow 9.4. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "image/image.h"

/* 4 -> 2 bilinear: scale 2, support 2; output 0 has centre 1.0 and reads inputs 0..2 with
 * filter((x - 0.5) * 0.5) = 0.75, 0.75, 0.25 -> normalised 3/7, 3/7, 1/7 -> *2^22 rounded. */
static void bilinear_4_to_2(void **state) {
    (void)state;
    i8_resize_coeffs c;
    i8_err err;
    assert_int_equal(i8_resize_coeffs_init(&c, 4, 2, I8_INTERP_BILINEAR, &err), INFER8_OK);
    assert_int_equal(c.ksize, 5);                     /* ceil(2) * 2 + 1 */
    assert_int_equal(c.bounds[0], 0);
    assert_int_equal(c.bounds[1], 3);
    assert_int_equal(c.k[0], 1797559);                /* 3/7 * 4194304 = 1797558.86 */
    assert_int_equal(c.k[1], 1797559);
    assert_int_equal(c.k[2], 599186);                 /* 1/7 * 4194304 = 599186.29 */
    assert_int_equal(c.bounds[2], 1);                 /* centre 3.0: inputs 1..3 */
    assert_int_equal(c.bounds[3], 3);
    assert_int_equal(c.k[5 + 0], 599186);
    assert_int_equal(c.k[5 + 1], 1797559);
    assert_int_equal(c.k[5 + 2], 1797559);
    i8_resize_coeffs_free(&c);
}

/* 2 -> 4 bilinear (upsampling, support 1): output 0 centre 0.25 reads input 0 only (weight 1);
 * output 1 centre 0.75 reads inputs 0, 1 with 0.75, 0.25. */
static void bilinear_2_to_4(void **state) {
    (void)state;
    i8_resize_coeffs c;
    i8_err err;
    assert_int_equal(i8_resize_coeffs_init(&c, 2, 4, I8_INTERP_BILINEAR, &err), INFER8_OK);
    assert_int_equal(c.ksize, 3);
    assert_int_equal(c.bounds[0], 0);
    assert_int_equal(c.bounds[1], 1);
    assert_int_equal(c.k[0], 4194304);
    assert_int_equal(c.bounds[2], 0);
    assert_int_equal(c.bounds[3], 2);
    assert_int_equal(c.k[3], 3145728);
    assert_int_equal(c.k[4], 1048576);
    i8_resize_coeffs_free(&c);
}

/* 4 -> 2 bicubic (a = -0.5), support 4: output 0 reads inputs 0..3 at distances 0.25, 0.25, 0.75,
 * 1.25 -> 111/128, 111/128, 29/128, -9/128; normalised by 242/128; negative rounds away from 0. */
static void bicubic_4_to_2(void **state) {
    (void)state;
    i8_resize_coeffs c;
    i8_err err;
    assert_int_equal(i8_resize_coeffs_init(&c, 4, 2, I8_INTERP_BICUBIC, &err), INFER8_OK);
    assert_int_equal(c.ksize, 9);
    assert_int_equal(c.bounds[0], 0);
    assert_int_equal(c.bounds[1], 4);
    assert_int_equal(c.k[0], 1923834);                /* 111/242 * 2^22 = 1923833.65 */
    assert_int_equal(c.k[1], 1923834);
    assert_int_equal(c.k[2], 502623);                 /* 29/242 * 2^22 = 502622.68 */
    assert_int_equal(c.k[3], -155987);                /* -9/242 * 2^22 = -155986.51 */
    i8_resize_coeffs_free(&c);
}

static void make_row(i8_image *im, const uint8_t *v, int n) {
    i8_err err;
    assert_int_equal(i8_image_alloc(im, n, 1, &err), INFER8_OK);
    for (int i = 0; i < n; i++) im->rgb[3 * i] = im->rgb[3 * i + 1] = im->rgb[3 * i + 2] = v[i];
}

/* [0 70 140 210] -> 2 pixels: bilinear (0*3 + 70*3 + 140*1)/7 + rounding -> 50 and 160;
 * bicubic 41 and 169 (both what Pillow 9.4's Image.resize gives). */
static void tiny_images(void **state) {
    (void)state;
    static const uint8_t px[4] = {0, 70, 140, 210};
    i8_image in, out;
    i8_err err;
    make_row(&in, px, 4);
    assert_int_equal(i8_image_resize(&in, 2, 1, I8_INTERP_BILINEAR, &out, &err), INFER8_OK);
    assert_int_equal(out.width, 2);
    assert_int_equal(out.height, 1);
    assert_int_equal(out.rgb[0], 50);
    assert_int_equal(out.rgb[3], 160);
    assert_int_equal(out.rgb[4], 160);
    i8_image_free(&out);
    assert_int_equal(i8_image_resize(&in, 2, 1, I8_INTERP_BICUBIC, &out, &err), INFER8_OK);
    assert_int_equal(out.rgb[0], 41);
    assert_int_equal(out.rgb[5], 169);
    i8_image_free(&out);
    /* same size: a copy, not a filtered image */
    assert_int_equal(i8_image_resize(&in, 4, 1, I8_INTERP_BICUBIC, &out, &err), INFER8_OK);
    assert_memory_equal(out.rgb, in.rgb, 12);
    assert_ptr_not_equal(out.rgb, in.rgb);
    i8_image_free(&out);
    /* bad targets */
    assert_int_equal(i8_image_resize(&in, 0, 1, I8_INTERP_BICUBIC, &out, &err), INFER8_E_INVALID_ARGUMENT);
    i8_image_free(&in);
}

/* A vertical-only resize is the horizontal case transposed (the same coefficients). */
static void vertical_matches_horizontal(void **state) {
    (void)state;
    i8_image row, col, a, b;
    i8_err err;
    uint8_t px[7] = {3, 250, 17, 90, 255, 0, 128};
    make_row(&row, px, 7);
    assert_int_equal(i8_image_alloc(&col, 1, 7, &err), INFER8_OK);
    memcpy(col.rgb, row.rgb, 21);   /* a 1-wide column has the same byte layout */
    assert_int_equal(i8_image_resize(&row, 3, 1, I8_INTERP_BICUBIC, &a, &err), INFER8_OK);
    assert_int_equal(i8_image_resize(&col, 1, 3, I8_INTERP_BICUBIC, &b, &err), INFER8_OK);
    assert_memory_equal(a.rgb, b.rgb, 9);
    i8_image_free(&row);
    i8_image_free(&col);
    i8_image_free(&a);
    i8_image_free(&b);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(bilinear_4_to_2), cmocka_unit_test(bilinear_2_to_4), cmocka_unit_test(bicubic_4_to_2),
        cmocka_unit_test(tiny_images), cmocka_unit_test(vertical_matches_horizontal),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
