/* Images: decoding (libjpeg-turbo, libpng, libwebp) to 8-bit RGB as Pillow's convert("RGB")
 * does, timm's eval transform with Pillow-exact resampling, and deterministic generated
 * test images. */
#ifndef I8_IMAGE_H
#define I8_IMAGE_H

#include "core/i8.h"
#include "formats/config.h"

/* 8-bit RGB, row-major, stride = 3 * width. */
typedef struct i8_image {
    int width, height;
    uint8_t *rgb;              /* owned (malloc) */
} i8_image;

/* Frees im->rgb and zeroes the struct (NULL-safe, idempotent). */
void i8_image_free(i8_image *im);
/* Allocates an uninitialised width x height image (both > 0, else INVALID_ARGUMENT). */
infer8_status i8_image_alloc(i8_image *im, int width, int height, i8_err *err);

/* Detects the format from the first bytes (JPEG FF D8 FF, PNG signature, RIFF....WEBP).
 * Gray, gray+alpha, palette (with tRNS), 16-bit and alpha images become RGB as Pillow 9.4's
 * convert("RGB") does: alpha and tRNS dropped, not composited; 16-bit RGB/RGBA/gray+alpha PNG
 * samples >> 8, but 16-bit grey (Pillow mode "I") clamped to 255; palette indices beyond PLTE
 * give grey (i,i,i); CMYK/YCCK JPEGs read as Adobe-inverted CMYK and Pillow's cmyk2rgb. Animated
 * WebP and 2-component JPEG -> INFER8_E_UNSUPPORTED; truncated/corrupt data -> INFER8_E_FORMAT;
 * zero size -> INFER8_E_FORMAT; too many pixels -> INFER8_E_LIMIT.
 * EXIF orientation is ignored (as timm does). width*height above limits->max_image_pixels
 * is refused before the pixel buffer is allocated. `name` (a file name) appears in errors. */
infer8_status i8_image_decode(i8_image *out, const uint8_t *data, size_t size, const char *name,
                              const i8_limits *limits, i8_err *err);
/* Reads the file (at most limits->max_image_bytes; limits NULL or 0 fields = defaults), decodes. */
infer8_status i8_image_load(i8_image *out, const char *path, const i8_limits *limits, i8_err *err);
/* PNG encoder (8-bit RGB), atomic write. */
infer8_status i8_image_save_png(const i8_image *im, const char *path, i8_err *err);
/* Encodes to memory: format 'p' = PNG, 'j' = JPEG (quality 90), 'w' = WebP lossless. *out malloc'ed. */
infer8_status i8_image_encode(const i8_image *im, char format, uint8_t **out, size_t *size, i8_err *err);

/* Pillow-exact resize (ImagingResample, 8-bit integer path with 22-bit fixed point weights,
 * horizontal pass first, a pass skipped when that dimension is unchanged; same size = copy).
 * *out is a new image owned by the caller; in is not modified. */
infer8_status i8_image_resize(const i8_image *in, int out_w, int out_h, i8_interp interp, i8_image *out, i8_err *err);

/* timm eval transform: short side to floor(size / crop_pct) (long side int(S * long / short)),
 * resize skipped when the short side already equals S; center crop with Python round (half to
 * even), zero padding if smaller; x/255, (x - mean) / std in float32. out: float32 CHW [3][H][W],
 * H = W = pre->input_size[1..2] (caller-owned, 3*H*W floats). Non-square input_size ->
 * INFER8_E_UNSUPPORTED. */
infer8_status i8_preprocess(const i8_image *in, const i8_preproc *pre, float *out, i8_err *err);
/* The same in two steps. i8_preprocess_crop_u8: resize and center crop (zero padding) only,
 * out: uint8 HWC [H][W][3] (caller-owned, 3*H*W bytes), the batch a GPU normalizes itself.
 * i8_normalize_u8: ToTensor and Normalize of such a crop into float32 CHW [3][H][W].
 * i8_preprocess = crop, then normalize, bit for bit. */
infer8_status i8_preprocess_crop_u8(const i8_image *in, const i8_preproc *pre, uint8_t *out, i8_err *err);
void i8_normalize_u8(const uint8_t *hwc, int height, int width, const float mean[3], const float std[3], float *out);

/* Resampling coefficients of one axis exactly as Pillow's precompute_coeffs followed by
 * normalize_coeffs_8bpc: output i reads inputs bounds[2i] .. bounds[2i] + bounds[2i+1] - 1 with
 * weights k[i * ksize + j] in 22-bit fixed point (sum ~ 1 << 22). Free with i8_resize_coeffs_free. */
typedef struct i8_resize_coeffs {
    int in_size, out_size, ksize;
    int *bounds;               /* [out_size][2]: first input index, count (owned) */
    int32_t *k;                /* [out_size][ksize] (owned) */
} i8_resize_coeffs;
infer8_status i8_resize_coeffs_init(i8_resize_coeffs *c, int in_size, int out_size, i8_interp interp, i8_err *err);
void i8_resize_coeffs_free(i8_resize_coeffs *c);

/* Pieces, exposed for unit tests. i8_resize_target: S = floor(size / crop_pct) with crop_pct
 * taken as the shortest decimal that reads back as that float (timm divides by the Python
 * float), short side -> S, long -> int(S * long / short). i8_center_crop_offsets: source
 * offset of the crop's top-left pixel; negative when torchvision would zero-pad first
 * (-(crop - size) // 2), else round((size - crop) / 2) half to even. */
void i8_resize_target(int w, int h, int size, float crop_pct, int *out_w, int *out_h);
int i8_python_round_half_even(double x);
void i8_center_crop_offsets(int w, int h, int crop_w, int crop_h, int *left, int *top);

/* Deterministic natural-looking image from a seed: smooth colour gradients, a few filled
 * ellipses and rectangles with soft edges, mild noise. Pure integer/float arithmetic without
 * libm transcendental functions: identical bytes on every machine. */
infer8_status i8_image_generate(i8_image *out, uint64_t seed, int width, int height, i8_err *err);

#endif
