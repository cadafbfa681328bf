/* Unit tests of the stress inputs (src/eval/stress.c): at least 29 entries with unique, stable
 * names; each generated twice to the same bytes at its documented size; pixel content checked
 * for a few kinds; docs/stress-inputs.md equal to what the code generates (names, sizes, hashes). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <math.h>
#include <cmocka.h>

#include "eval/stress.h"

static void table(void **state) {
    (void)state;
    size_t n = i8_stress_count();
    assert_true(n >= 29);
    for (size_t i = 0; i < n; i++) {
        const i8_stress_info *a = i8_stress_get(i);
        assert_non_null(a);
        assert_true(strlen(a->name) > 0 && strspn(a->name, "abcdefghijklmnopqrstuvwxyz0123456789_") == strlen(a->name));
        assert_true(strlen(a->description) > 0 && !strchr(a->description, '\n') && !strchr(a->description, '|'));
        assert_int_equal(i8_stress_find(a->name), (int)i);
        for (size_t j = i + 1; j < n; j++) assert_string_not_equal(a->name, i8_stress_get(j)->name);
    }
    assert_null(i8_stress_get(n));
    assert_int_equal(i8_stress_find("no_such_input"), -1);
    i8_image im;
    i8_err err;
    assert_int_equal(i8_stress_generate(n, &im, &err), INFER8_E_INVALID_ARGUMENT);
}

static const uint8_t *px(const i8_image *im, int x, int y) { return im->rgb + ((size_t)y * im->width + x) * 3; }

static i8_image gen(const char *name) {
    i8_image im = {0, 0, NULL};
    i8_err err;
    int i = i8_stress_find(name);
    assert_true(i >= 0);
    assert_int_equal(i8_stress_generate((size_t)i, &im, &err), INFER8_OK);
    return im;
}

static void content(void **state) {
    (void)state;
    i8_image im = gen("checker_1px");
    assert_int_equal(px(&im, 0, 0)[0], 0);
    assert_int_equal(px(&im, 1, 0)[1], 255);
    assert_int_equal(px(&im, 1, 1)[2], 0);
    i8_image_free(&im);
    im = gen("magenta");
    assert_memory_equal(px(&im, 100, 200), "\xff\x00\xff", 3);
    i8_image_free(&im);
    im = gen("stripes_h_2px");
    assert_int_equal(px(&im, 5, 1)[0], 0);
    assert_int_equal(px(&im, 5, 2)[0], 255);
    i8_image_free(&im);
    im = gen("extremes_channels_16");
    for (size_t k = 0; k < (size_t)im.width * im.height * 3; k++) assert_true(im.rgb[k] == 0 || im.rgb[k] == 255);
    assert_memory_equal(px(&im, 0, 0), "\xff\x00\xff", 3);
    assert_memory_equal(px(&im, 16, 0), "\x00\xff\x00", 3);
    i8_image_free(&im);
    im = gen("large_4096x4096");
    assert_int_equal(im.width, 4096);
    assert_memory_equal(px(&im, 0, 0), "\x00\x00\x00", 3);
    assert_memory_equal(px(&im, 4095, 4095), "\xff\xff\xff", 3);
    i8_image_free(&im);
    im = gen("noise_gaussian");  /* mean 128, sd 48 (clamping at 0/255 trims it slightly) */
    double mean = 0, var = 0;
    size_t n = (size_t)im.width * im.height * 3;
    for (size_t k = 0; k < n; k++) mean += im.rgb[k];
    mean /= (double)n;
    for (size_t k = 0; k < n; k++) var += (im.rgb[k] - mean) * (im.rgb[k] - mean);
    assert_true(fabs(mean - 128.0) < 1.0);
    assert_true(fabs(sqrt(var / (double)n) - 48.0) < 1.5);
    i8_image_free(&im);
    im = gen("pixel_1x1");
    assert_int_equal(im.width * im.height, 1);
    i8_image_free(&im);
}

static void deterministic(void **state) {
    (void)state;
    i8_err err;
    for (size_t i = 0; i < i8_stress_count(); i++) {
        i8_image a = {0, 0, NULL}, b = {0, 0, NULL};
        assert_int_equal(i8_stress_generate(i, &a, &err), INFER8_OK);
        assert_int_equal(i8_stress_generate(i, &b, &err), INFER8_OK);
        assert_int_equal(a.width, i8_stress_get(i)->width);
        assert_int_equal(a.height, i8_stress_get(i)->height);
        assert_memory_equal(a.rgb, b.rgb, (size_t)a.width * a.height * 3);
        i8_image_free(&a);
        i8_image_free(&b);
    }
}

/* docs/stress-inputs.md must be exactly what the code generates (hashes pin the bytes). */
static void documented(void **state) {
    (void)state;
    char *md = NULL;
    i8_err err;
    assert_int_equal(i8_stress_markdown(&md, &err), INFER8_OK);
    FILE *f = fopen(INFER8_SOURCE_DIR "/docs/stress-inputs.md", "rb");
    assert_non_null(f);
    static char doc[1 << 16];
    size_t n = fread(doc, 1, sizeof doc - 1, f);
    fclose(f);
    doc[n] = 0;
    if (strcmp(md, doc) != 0)
        fail_msg("docs/stress-inputs.md differs from the code: regenerate with "
                 "build/tests/tools/i8_dataset_tool stress-doc > docs/stress-inputs.md");
    /* one row per entry, each naming it */
    for (size_t i = 0; i < i8_stress_count(); i++) {
        char needle[128];
        snprintf(needle, sizeof needle, "| `%s` |", i8_stress_get(i)->name);
        assert_non_null(strstr(doc, needle));
    }
    free(md);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(table),
        cmocka_unit_test(content),
        cmocka_unit_test(deterministic),
        cmocka_unit_test(documented),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
