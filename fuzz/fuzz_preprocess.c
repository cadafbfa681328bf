/* libFuzzer target: timm preprocessing (resize shorter side, center crop, normalize) for
 * fuzzer-chosen image sizes, crop_pct, interpolation and input size, on fuzzer pixels. */
#include "fuzz_util.h"
#include "image/image.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (size < 8) return 0;
    int w = 1 + data[0] % 128, h = 1 + data[1] % 128;
    int in = 75 + data[2] % 50;                              /* config.json allows 75..4096 */
    /* crop_pct in [0.5, 1]: smaller ones (and long thin images) are refused by the pixel limit,
     * which tests/unit/test_limits.c checks; here they would only make each run slow */
    float crop = (float)(256 + data[3]) / 511.0f;
    i8_interp interp = (data[4] & 1) ? I8_INTERP_BILINEAR : I8_INTERP_BICUBIC;
    data += 8;
    size -= 8;
    i8_image im = {0};
    i8_err err = {0};
    if (i8_image_alloc(&im, w, h, &err)) return 0;
    size_t n = (size_t)w * h * 3;
    for (size_t i = 0; i < n; i++) im.rgb[i] = size ? data[i % size] : (uint8_t)i;
    i8_preproc pre = {.input_size = {3, in, in}, .crop_pct = crop, .interpolation = interp,
                      .mean = {0.485f, 0.456f, 0.406f}, .std = {0.229f, 0.224f, 0.225f}};
    float *out = malloc(sizeof(float) * 3 * (size_t)in * in);
    if (!out) abort();
    infer8_status st = i8_preprocess(&im, &pre, out, &err);
    if (st == INFER8_E_LIMIT) goto done; /* refused before allocating: fine */
    if (st != INFER8_OK) abort();
    for (size_t i = 0; i < 3 * (size_t)in * in; i++)
        if (!(out[i] > -10.0f && out[i] < 10.0f)) abort(); /* (x/255 - mean)/std is bounded */
done:
    free(out);
    i8_image_free(&im);
    return 0;
}
