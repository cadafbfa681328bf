/* timm's eval transform (transforms_imagenet_eval, crop_mode "center") for a square input:
 * torchvision Resize(floor(size / crop_pct)) on the short side, CenterCrop(size) (zero padding
 * when the image is smaller), ToTensor, Normalize -- reproduced bit for bit in float32. */
#include "image/image.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* crop_pct reaches us as a float (0.8975f = 0.89749997...), but timm divides by the Python
 * float parsed from the config's decimal text. Recover that double: the shortest decimal that
 * reads back as the same float, which is the config's text for any value written with <= 7
 * significant digits. */
static double crop_pct_as_python(float f) {
    char buf[64];
    for (int prec = 1; prec <= 9; prec++) {
        snprintf(buf, sizeof(buf), "%.*g", prec, (double)f);
        double d = strtod(buf, NULL);
        if ((float)d == f) return d;
    }
    return (double)f;
}

int i8_python_round_half_even(double x) {
    double r = floor(x);
    double diff = x - r;
    if (diff > 0.5 || (diff == 0.5 && fmod(r, 2.0) != 0.0)) r += 1.0;
    return (int)r;
}

/* Scale size S = floor(size / crop_pct); short side -> S, long side -> int(S * long / short)
 * (torchvision _compute_resized_output_size, short = w when w <= h). */
void i8_resize_target(int w, int h, int size, float crop_pct, int *out_w, int *out_h) {
    double cp = crop_pct > 0.0f ? crop_pct_as_python(crop_pct) : 1.0;
    /* a tiny crop_pct or an extreme aspect ratio (hostile config or image) must not overflow:
     * sides are clamped to INT32_MAX and the caller refuses the pixel count */
    double ds = floor((double)size / cp);
    int64_t s = ds < (double)INT32_MAX ? (int64_t)ds : INT32_MAX;
    int64_t shrt = w <= h ? w : h, lng = w <= h ? h : w;
    int64_t nl = shrt > 0 ? (int64_t)((double)(s * lng) / (double)shrt) : 0;
    if (nl > INT32_MAX) nl = INT32_MAX;
    if (w <= h) {
        *out_w = (int)s;
        *out_h = (int)nl;
    } else {
        *out_w = (int)nl;
        *out_h = (int)s;
    }
}

/* torchvision center_crop: pad with zeros when the crop is larger (left/top pad =
 * (crop - size) // 2, so the offset becomes negative), else round((size - crop) / 2) half even. */
void i8_center_crop_offsets(int w, int h, int crop_w, int crop_h, int *left, int *top) {
    *left = crop_w > w ? -((crop_w - w) / 2) : i8_python_round_half_even((w - crop_w) / 2.0);
    *top = crop_h > h ? -((crop_h - h) / 2) : i8_python_round_half_even((h - crop_h) / 2.0);
}

/* Checks shared by i8_preprocess_crop_u8 and i8_preprocess: the square input side, or an error. */
static infer8_status check_preproc(const i8_image *in, const i8_preproc *pre, const void *out, i8_err *err) {
    if (!in || !in->rgb || in->width <= 0 || in->height <= 0 || !pre || !out)
        return i8_fail(err, INFER8_E_INVALID_ARGUMENT, "preprocess: empty image or NULL argument");
    int size = pre->input_size[1];
    if (pre->input_size[0] != 3 || size <= 0)
        return i8_fail(err, INFER8_E_INVALID_ARGUMENT, "preprocess: input_size (%d, %d, %d) must be (3, H, W), H > 0",
                       pre->input_size[0], pre->input_size[1], pre->input_size[2]);
    if (pre->input_size[2] != size)
        return i8_fail(err, INFER8_E_UNSUPPORTED,
                       "preprocess: non-square input_size %dx%d (timm's ResizeKeepRatio path) is not supported",
                       pre->input_size[1], pre->input_size[2]);
    if (!(pre->crop_pct > 0.0f) || !(pre->crop_pct < 64.0f))
        return i8_fail(err, INFER8_E_INVALID_ARGUMENT, "preprocess: crop_pct %g out of range", (double)pre->crop_pct);
    for (int c = 0; c < 3; c++)
        if (!(pre->std[c] != 0.0f))
            return i8_fail(err, INFER8_E_INVALID_ARGUMENT, "preprocess: std[%d] is zero", c);
    return INFER8_OK;
}

infer8_status i8_preprocess_crop_u8(const i8_image *in, const i8_preproc *pre, uint8_t *out, i8_err *err) {
    infer8_status st = check_preproc(in, pre, out, err);
    if (st != INFER8_OK) return st;
    int size = pre->input_size[1];
    int tw, th;
    i8_resize_target(in->width, in->height, size, pre->crop_pct, &tw, &th);
    if (tw <= 0 || th <= 0)
        return i8_fail(err, INFER8_E_INVALID_ARGUMENT, "preprocess: %dx%d resizes to %dx%d (size %d, crop_pct %g)",
                       in->width, in->height, tw, th, size, (double)pre->crop_pct);
    /* the resized intermediate is an image too: a long thin image (or a tiny crop_pct) would
     * otherwise make a decompression bomb out of a small input */
    i8_limits lim;
    i8_limits_default(&lim);
    if ((uint64_t)tw * (uint64_t)th > lim.max_image_pixels)
        return i8_fail(err, INFER8_E_LIMIT,
                       "preprocess: %dx%d resizes to %dx%d (size %d, crop_pct %g): %llu pixels, above the limit of %llu",
                       in->width, in->height, tw, th, size, (double)pre->crop_pct,
                       (unsigned long long)((uint64_t)tw * (uint64_t)th), (unsigned long long)lim.max_image_pixels);
    i8_image resized = {0, 0, NULL};
    const i8_image *im = in;
    if (tw != in->width || th != in->height) {   /* torchvision returns the image unchanged */
        st = i8_image_resize(in, tw, th, pre->interpolation, &resized, err);
        if (st != INFER8_OK) return st;
        im = &resized;
    }
    int left, top;
    i8_center_crop_offsets(im->width, im->height, size, size, &left, &top);
    for (int y = 0; y < size; y++) {
        int sy = y + top;
        uint8_t *o = out + (size_t)y * size * 3;
        for (int x = 0; x < size; x++) {
            int sx = x + left;
            if (sy >= 0 && sy < im->height && sx >= 0 && sx < im->width)
                memcpy(o + (size_t)x * 3, im->rgb + ((size_t)sy * (size_t)im->width + (size_t)sx) * 3, 3);
            else
                memset(o + (size_t)x * 3, 0, 3);   /* padding is zero */
        }
    }
    i8_image_free(&resized);
    return INFER8_OK;
}

void i8_normalize_u8(const uint8_t *hwc, int height, int width, const float mean[3], const float std[3], float *out) {
    size_t plane = (size_t)height * (size_t)width;
    for (int c = 0; c < 3; c++) {
        float *o = out + (size_t)c * plane;
        for (size_t p = 0; p < plane; p++) {
            /* ToTensor: float32 v / 255; Normalize: (x - mean) / std, each rounded to float32
             * (the CUDA input kernel, i8_cuda_input_u8_to_nhwc, does the same three operations) */
            float t = (float)hwc[p * 3 + (size_t)c] / 255.0f;
            t = t - mean[c];
            o[p] = t / std[c];
        }
    }
}

infer8_status i8_preprocess(const i8_image *in, const i8_preproc *pre, float *out, i8_err *err) {
    infer8_status st = check_preproc(in, pre, out, err);
    if (st != INFER8_OK) return st;
    int size = pre->input_size[1];
    uint8_t *crop = i8_malloc((size_t)size * (size_t)size * 3, err);
    if (!crop) return err->code;
    st = i8_preprocess_crop_u8(in, pre, crop, err);
    if (st == INFER8_OK) i8_normalize_u8(crop, size, size, pre->mean, pre->std, out);
    free(crop);
    return st;
}
