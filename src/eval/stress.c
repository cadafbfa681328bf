/* Stress inputs (stress.h): one table row per image; each kind is a few lines of integer
 * arithmetic (noise through i8_rng, natural images through i8_image_generate), so the bytes
 * are the same on every machine. Appending rows is fine; changing one changes its hash in
 * docs/stress-inputs.md (the unit test then asks for the document to be regenerated). */
#include "eval/stress.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef enum kind {
    FLAT,           /* a = 0xRRGGBB */
    CHECKER,        /* a = square side; colours b0 / b1 (0xRRGGBB) */
    STRIPES_H,      /* a = stripe height; black / white rows */
    STRIPES_V,      /* a = stripe width; black / white columns */
    NOISE_UNIFORM,  /* a = seed; every channel uniform in 0..255 */
    NOISE_GAUSS,    /* a = seed, b0 = standard deviation; mean 128, clamped */
    NATURAL,        /* a = seed for i8_image_generate */
    GRADIENT,       /* smooth: R follows x, G follows y, B the diagonal */
    RAMP_H,         /* grey 0 at the left to 255 at the right */
    QUAD            /* 2x2: red, green / blue, white */
} kind;

typedef struct stress_def {
    i8_stress_info info;
    kind k;
    uint64_t a;
    uint32_t b0, b1;
} stress_def;

#define S 299 /* the input size of the Inception family: no resize before the crop */
static const stress_def DEFS[] = {
    {{"black", "all pixels 0: every input at the lowest normalised value", S, S}, FLAT, 0x000000, 0, 0},
    {{"white", "all pixels 255: every input at the highest normalised value", S, S}, FLAT, 0xFFFFFF, 0, 0},
    {{"gray_mid", "all pixels 128: inputs near zero after normalisation", S, S}, FLAT, 0x808080, 0, 0},
    {{"red", "saturated red (255,0,0)", S, S}, FLAT, 0xFF0000, 0, 0},
    {{"green", "saturated green (0,255,0)", S, S}, FLAT, 0x00FF00, 0, 0},
    {{"blue", "saturated blue (0,0,255)", S, S}, FLAT, 0x0000FF, 0, 0},
    {{"cyan", "saturated cyan (0,255,255)", S, S}, FLAT, 0x00FFFF, 0, 0},
    {{"magenta", "saturated magenta (255,0,255)", S, S}, FLAT, 0xFF00FF, 0, 0},
    {{"yellow", "saturated yellow (255,255,0)", S, S}, FLAT, 0xFFFF00, 0, 0},
    {{"checker_1px", "black/white checkerboard, 1-pixel squares (highest spatial frequency)", S, S}, CHECKER, 1,
     0x000000, 0xFFFFFF},
    {{"checker_2px", "black/white checkerboard, 2-pixel squares", S, S}, CHECKER, 2, 0x000000, 0xFFFFFF},
    {{"checker_8px", "black/white checkerboard, 8-pixel squares", S, S}, CHECKER, 8, 0x000000, 0xFFFFFF},
    {{"checker_1px_red_cyan", "red/cyan checkerboard, 1-pixel squares: every channel flips at every pixel", S, S},
     CHECKER, 1, 0xFF0000, 0x00FFFF},
    {{"stripes_h_1px", "black/white horizontal stripes, 1 pixel high", S, S}, STRIPES_H, 1, 0, 0},
    {{"stripes_v_1px", "black/white vertical stripes, 1 pixel wide", S, S}, STRIPES_V, 1, 0, 0},
    {{"stripes_h_2px", "black/white horizontal stripes, 2 pixels high", S, S}, STRIPES_H, 2, 0, 0},
    {{"stripes_v_2px", "black/white vertical stripes, 2 pixels wide", S, S}, STRIPES_V, 2, 0, 0},
    {{"stripes_h_8px", "black/white horizontal stripes, 8 pixels high", S, S}, STRIPES_H, 8, 0, 0},
    {{"stripes_v_8px", "black/white vertical stripes, 8 pixels wide", S, S}, STRIPES_V, 8, 0, 0},
    {{"noise_uniform", "independent uniform noise 0..255 in every channel", S, S}, NOISE_UNIFORM, 1, 0, 0},
    {{"noise_uniform_odd", "uniform noise at an odd size (resized before the crop)", 337, 211}, NOISE_UNIFORM, 2, 0,
     0},
    {{"noise_gaussian", "Gaussian noise, mean 128, standard deviation 48, clamped to 0..255", S, S}, NOISE_GAUSS, 3,
     48, 0},
    {{"noise_gaussian_wide", "Gaussian noise, mean 128, standard deviation 160: mostly clamped to 0 or 255", S, S},
     NOISE_GAUSS, 4, 160, 0},
    {{"wide_4000x20", "natural-looking image with aspect ratio 200:1 (short side upscaled)", 4000, 20}, NATURAL, 21, 0,
     0},
    {{"tall_20x4000", "natural-looking image with aspect ratio 1:200", 20, 4000}, NATURAL, 22, 0, 0},
    {{"pixel_1x1", "a single pixel (200,30,90), upscaled to the whole input", 1, 1}, FLAT, 0xC81E5A, 0, 0},
    {{"tiny_2x2", "2x2 pixels: red, green / blue, white", 2, 2}, QUAD, 0, 0, 0},
    {{"tiny_3x7", "natural-looking image of 3x7 pixels", 3, 7}, NATURAL, 37, 0, 0},
    {{"large_4096x4096", "smooth 4096x4096 gradient (large downscale)", 4096, 4096}, GRADIENT, 0, 0, 0},
    {{"extremes_blocks_16", "16-pixel blocks alternating 0 and 255 in all channels (normalisation extremes)", S, S},
     CHECKER, 16, 0x000000, 0xFFFFFF},
    {{"extremes_channels_16", "16-pixel blocks alternating (255,0,255) and (0,255,0): channels at opposite extremes",
      S, S},
     CHECKER, 16, 0xFF00FF, 0x00FF00},
    {{"ramp_h", "grey ramp from 0 at the left edge to 255 at the right", S, S}, RAMP_H, 0, 0, 0},
    {{"natural_299", "natural-looking image at the input size", S, S}, NATURAL, 11, 0, 0},
    {{"natural_333x197", "natural-looking image, odd landscape size", 333, 197}, NATURAL, 12, 0, 0},
    {{"natural_97x513", "natural-looking image, odd portrait size", 97, 513}, NATURAL, 13, 0, 0},
    {{"natural_1023x769", "natural-looking image, odd size larger than the input", 1023, 769}, NATURAL, 14, 0, 0},
};
#undef S

size_t i8_stress_count(void) { return I8_ARRAY_LEN(DEFS); }

const i8_stress_info *i8_stress_get(size_t i) { return i < I8_ARRAY_LEN(DEFS) ? &DEFS[i].info : NULL; }

int i8_stress_find(const char *name) {
    for (size_t i = 0; name && i < I8_ARRAY_LEN(DEFS); i++)
        if (strcmp(DEFS[i].info.name, name) == 0) return (int)i;
    return -1;
}

static void put(uint8_t *p, uint32_t rgb) {
    p[0] = (uint8_t)(rgb >> 16);
    p[1] = (uint8_t)(rgb >> 8);
    p[2] = (uint8_t)rgb;
}

static uint8_t clamp255(double v) { return v <= 0.0 ? 0 : v >= 255.0 ? 255 : (uint8_t)(v + 0.5); }

infer8_status i8_stress_generate(size_t i, i8_image *out, i8_err *err) {
    if (i >= I8_ARRAY_LEN(DEFS))
        return i8_fail(err, INFER8_E_INVALID_ARGUMENT, "stress input %zu does not exist (%zu entries)", i,
                       I8_ARRAY_LEN(DEFS));
    const stress_def *d = &DEFS[i];
    int w = d->info.width, h = d->info.height;
    if (d->k == NATURAL) return i8_image_generate(out, d->a, w, h, err);
    i8_image im = {0, 0, NULL};
    infer8_status st = i8_image_alloc(&im, w, h, err);
    if (st != INFER8_OK) return st;
    i8_rng rng;
    i8_rng_seed(&rng, d->a);
    uint64_t p = d->a ? d->a : 1;
    for (int y = 0; y < h; y++) {
        for (int x = 0; x < w; x++) {
            uint8_t *px = im.rgb + ((size_t)y * w + x) * 3;
            switch (d->k) {
            case FLAT: put(px, (uint32_t)d->a); break;
            case CHECKER: put(px, ((x / p + y / p) & 1) ? d->b1 : d->b0); break;
            case STRIPES_H: put(px, ((y / p) & 1) ? 0xFFFFFF : 0); break;
            case STRIPES_V: put(px, ((x / p) & 1) ? 0xFFFFFF : 0); break;
            case NOISE_UNIFORM: {
                uint64_t r = i8_rng_next(&rng);
                px[0] = (uint8_t)(r >> 56), px[1] = (uint8_t)(r >> 48), px[2] = (uint8_t)(r >> 40);
                break;
            }
            case NOISE_GAUSS:
                for (int c = 0; c < 3; c++) px[c] = clamp255(128.0 + (double)d->b0 * i8_rng_normal(&rng));
                break;
            case GRADIENT:
                px[0] = (uint8_t)((uint64_t)x * 255 / (uint64_t)(w - 1));
                px[1] = (uint8_t)((uint64_t)y * 255 / (uint64_t)(h - 1));
                px[2] = (uint8_t)((uint64_t)(x + y) * 255 / (uint64_t)(w + h - 2));
                break;
            case RAMP_H: {
                uint8_t v = (uint8_t)((uint64_t)x * 255 / (uint64_t)(w - 1));
                px[0] = px[1] = px[2] = v;
                break;
            }
            case QUAD: {
                static const uint32_t q[4] = {0xFF0000, 0x00FF00, 0x0000FF, 0xFFFFFF};
                put(px, q[(y & 1) * 2 + (x & 1)]);
                break;
            }
            case NATURAL: break;
            }
        }
    }
    *out = im;
    return INFER8_OK;
}

uint64_t i8_stress_hash(const i8_image *im) {
    uint64_t h = 0xcbf29ce484222325ull;
    uint8_t dims[8];
    for (int i = 0; i < 4; i++) {
        dims[i] = (uint8_t)((uint32_t)im->width >> (8 * i));
        dims[4 + i] = (uint8_t)((uint32_t)im->height >> (8 * i));
    }
    for (int i = 0; i < 8; i++) h = (h ^ dims[i]) * 0x100000001b3ull;
    size_t n = (size_t)im->width * (size_t)im->height * 3;
    for (size_t i = 0; i < n; i++) h = (h ^ im->rgb[i]) * 0x100000001b3ull;
    return h;
}

infer8_status i8_stress_markdown(char **out, i8_err *err) {
    static const char head[] =
        "# Stress inputs\n\n"
        "Generated by infer8 (`src/eval/stress.c`) as 8-bit RGB with integer arithmetic and its own\n"
        "deterministic random numbers, so every machine makes the same bytes. The FP8 study runs every\n"
        "variant on them and counts NaN and Inf logits. The hash is FNV-1a 64 over width and height\n"
        "(4 bytes each, little-endian) followed by the pixels (`i8_stress_hash`).\n\n"
        "This file is generated: `build/tests/tools/i8_dataset_tool stress-doc > docs/stress-inputs.md`\n"
        "(the unit test `test_stress` fails when it differs from the code).\n\n"
        "| # | name | size | FNV-1a 64 | description |\n"
        "|---|---|---|---|---|\n";
    size_t cap = sizeof head + I8_ARRAY_LEN(DEFS) * 256, len = 0;
    char *s = i8_malloc(cap, err);
    if (!s) return INFER8_E_NOMEM;
    len = (size_t)snprintf(s, cap, "%s", head);
    for (size_t i = 0; i < I8_ARRAY_LEN(DEFS); i++) {
        i8_image im = {0, 0, NULL};
        infer8_status st = i8_stress_generate(i, &im, err);
        if (st != INFER8_OK) {
            free(s);
            return st;
        }
        const i8_stress_info *d = &DEFS[i].info;
        int n = snprintf(s + len, cap - len, "| %zu | `%s` | %dx%d | `%016llx` | %s |\n", i, d->name, d->width,
                         d->height, (unsigned long long)i8_stress_hash(&im), d->description);
        i8_image_free(&im);
        if (n < 0 || (size_t)n >= cap - len) {
            free(s);
            return i8_fail(err, INFER8_E_INTERNAL, "stress markdown row %zu longer than expected", i);
        }
        len += (size_t)n;
    }
    *out = s;
    return INFER8_OK;
}
