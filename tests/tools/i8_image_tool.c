/* i8_image_tool: command-line access to src/image for the Pillow parity tests.
 *   decode IN OUT.rgb                          raw RGB bytes; prints "W H"
 *   resize IN W H bicubic|bilinear OUT.rgb     decode + Pillow-exact resize; prints "W H"
 *   preprocess IN SIZE CROP_PCT bicubic|bilinear M0,M1,M2 S0,S1,S2 OUT.f32   float32 CHW
 *   generate SEED W H OUT.png                  i8_image_generate, saved as PNG
 * Exits 1 with the library's message on failure, 2 on bad usage. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "image/image.h"

static int usage(void) {
    fprintf(stderr, "usage: i8_image_tool decode IN OUT.rgb\n"
                    "       i8_image_tool resize IN W H bicubic|bilinear OUT.rgb\n"
                    "       i8_image_tool preprocess IN SIZE CROP_PCT bicubic|bilinear M0,M1,M2 S0,S1,S2 OUT.f32\n"
                    "       i8_image_tool generate SEED W H OUT.png\n");
    return 2;
}

static int fail(const i8_err *err) {
    fprintf(stderr, "i8_image_tool: %s\n", err->msg);
    return 1;
}

static int parse_interp(const char *s, i8_interp *out) {
    if (strcmp(s, "bicubic") == 0) *out = I8_INTERP_BICUBIC;
    else if (strcmp(s, "bilinear") == 0) *out = I8_INTERP_BILINEAR;
    else return 0;
    return 1;
}

static int parse3(const char *s, float v[3]) {
    char *end;
    for (int i = 0; i < 3; i++) {
        v[i] = strtof(s, &end);
        if (end == s || (i < 2 && *end != ',') || (i == 2 && *end)) return 0;
        s = end + 1;
    }
    return 1;
}

int main(int argc, char **argv) {
    i8_err err;
    i8_err_clear(&err);
    i8_limits limits;
    i8_limits_default(&limits);
    i8_image im = {0, 0, NULL}, out = {0, 0, NULL};
    if (argc < 2) return usage();
    const char *cmd = argv[1];
    if (strcmp(cmd, "decode") == 0 && argc == 4) {
        if (i8_image_load(&im, argv[2], &limits, &err) != INFER8_OK) return fail(&err);
        if (i8_write_file_atomic(argv[3], im.rgb, (size_t)im.width * im.height * 3, &err) != INFER8_OK) return fail(&err);
        printf("%d %d\n", im.width, im.height);
    } else if (strcmp(cmd, "resize") == 0 && argc == 7) {
        i8_interp interp;
        if (!parse_interp(argv[5], &interp)) return usage();
        if (i8_image_load(&im, argv[2], &limits, &err) != INFER8_OK) return fail(&err);
        if (i8_image_resize(&im, atoi(argv[3]), atoi(argv[4]), interp, &out, &err) != INFER8_OK) return fail(&err);
        if (i8_write_file_atomic(argv[6], out.rgb, (size_t)out.width * out.height * 3, &err) != INFER8_OK)
            return fail(&err);
        printf("%d %d\n", out.width, out.height);
    } else if (strcmp(cmd, "preprocess") == 0 && argc == 9) {
        i8_preproc pre;
        memset(&pre, 0, sizeof(pre));
        int size = atoi(argv[3]);
        pre.input_size[0] = 3;
        pre.input_size[1] = pre.input_size[2] = size;
        pre.crop_pct = strtof(argv[4], NULL);
        if (size <= 0 || size > 8192 || !parse_interp(argv[5], &pre.interpolation) || !parse3(argv[6], pre.mean) ||
            !parse3(argv[7], pre.std))
            return usage();
        if (i8_image_load(&im, argv[2], &limits, &err) != INFER8_OK) return fail(&err);
        size_t n = (size_t)3 * size * size;
        float *t = malloc(n * sizeof(float));
        if (!t) return 1;
        if (i8_preprocess(&im, &pre, t, &err) != INFER8_OK) return fail(&err);
        if (i8_write_file_atomic(argv[8], t, n * sizeof(float), &err) != INFER8_OK) return fail(&err);
        free(t);
    } else if (strcmp(cmd, "generate") == 0 && argc == 6) {
        uint64_t seed = strtoull(argv[2], NULL, 10);
        if (i8_image_generate(&im, seed, atoi(argv[3]), atoi(argv[4]), &err) != INFER8_OK) return fail(&err);
        if (i8_image_save_png(&im, argv[5], &err) != INFER8_OK) return fail(&err);
    } else {
        return usage();
    }
    i8_image_free(&im);
    i8_image_free(&out);
    return 0;
}
