/* libFuzzer target: image decoding (JPEG, PNG, WebP: the format is chosen by the magic bytes,
 * so seeds of each format drive each decoder path) followed by timm preprocessing of the
 * decoded pixels. The pixel limit is lowered so decompression bombs are refused quickly. */
#include "fuzz_util.h"
#include "image/image.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    i8_limits limits;
    i8_limits_default(&limits);
    limits.max_image_pixels = 1 << 18; /* 512x512: keeps each run fast under ASan */
    i8_image im = {0};
    i8_err err = {0};
    if (i8_image_decode(&im, data, size, "fuzz.img", &limits, &err) != INFER8_OK) {
        if (!err.msg[0]) abort();
        return 0;
    }
    if (im.width <= 0 || im.height <= 0 || (uint64_t)im.width * (uint64_t)im.height > limits.max_image_pixels) abort();
    /* the smallest input size config.json allows keeps preprocessing cheap */
    i8_preproc pre = {.input_size = {3, 75, 75}, .crop_pct = 0.875f, .interpolation = (size & 1) ? I8_INTERP_BILINEAR : I8_INTERP_BICUBIC,
                      .mean = {0.5f, 0.5f, 0.5f}, .std = {0.5f, 0.5f, 0.5f}};
    static float out[3 * 75 * 75];
    if (i8_preprocess(&im, &pre, out, &err) != INFER8_OK) abort(); /* valid image + valid config must succeed */
    i8_image_free(&im);
    return 0;
}
