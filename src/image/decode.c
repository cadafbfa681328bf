/* Image decoding: JPEG (libjpeg-turbo), PNG (libpng) and WebP (libwebp) into 8-bit RGB with
 * the pixel values Pillow 9.4's Image.open(f).convert("RGB") gives (the oracle timm uses).
 * Not here: EXIF orientation, colour management (ICC, gAMA) -- Pillow ignores them too. */
#include "image/image.h"

#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jpeglib.h>
#include <jerror.h>
#include <png.h>
#include <webp/decode.h>

void i8_image_free(i8_image *im) {
    if (!im) return;
    free(im->rgb);
    im->rgb = NULL;
    im->width = im->height = 0;
}

infer8_status i8_image_alloc(i8_image *im, int width, int height, i8_err *err) {
    size_t bytes;
    if (width <= 0 || height <= 0)
        return i8_fail(err, INFER8_E_INVALID_ARGUMENT, "image size %dx%d: both sides must be positive", width, height);
    if (!i8_mul3_size((size_t)width, (size_t)height, 3, &bytes))
        return i8_fail(err, INFER8_E_LIMIT, "image size %dx%d overflows", width, height);
    uint8_t *p = i8_malloc(bytes, err);
    if (!p) return err ? err->code : INFER8_E_NOMEM;
    im->width = width;
    im->height = height;
    im->rgb = p;
    return INFER8_OK;
}

/* Refuses zero-size and oversized images before any pixel buffer exists. */
static infer8_status check_dims(uint64_t w, uint64_t h, const char *name, const i8_limits *limits, i8_err *err) {
    if (w == 0 || h == 0)
        return i8_fail(err, INFER8_E_FORMAT, "%s: image has zero size (%llux%llu)", name,
                       (unsigned long long)w, (unsigned long long)h);
    uint64_t max = limits ? limits->max_image_pixels : 0;
    if (max == 0) {
        i8_limits def;
        i8_limits_default(&def);
        max = def.max_image_pixels;
    }
    if (w > 0x7fffffffu || h > 0x7fffffffu || w * h > max)
        return i8_fail(err, INFER8_E_LIMIT, "%s: image %llux%llu has %llu pixels, above the limit of %llu", name,
                       (unsigned long long)w, (unsigned long long)h, (unsigned long long)(w * h),
                       (unsigned long long)max);
    return INFER8_OK;
}

/* ---- JPEG ----------------------------------------------------------------------------- */

typedef struct jpeg_guard {
    struct jpeg_error_mgr pub;
    jmp_buf jump;
    int hit_eof;                 /* libjpeg padded a truncated stream with a fake EOI */
    char msg[JMSG_LENGTH_MAX];
} jpeg_guard;

static void jpeg_on_error(j_common_ptr cinfo) {
    jpeg_guard *g = (jpeg_guard *)cinfo->err;
    g->pub.format_message(cinfo, g->msg);
    longjmp(g->jump, 1);
}

/* Warnings are ignored as Pillow ignores them, except the end-of-data one: Pillow refuses a
 * truncated JPEG ("image file is truncated") where libjpeg's memory source would pad it. */
static void jpeg_on_message(j_common_ptr cinfo, int level) {
    jpeg_guard *g = (jpeg_guard *)cinfo->err;
    if (level < 0 && g->pub.msg_code == JWRN_JPEG_EOF) g->hit_eof = 1;
}

/* Pillow reads 4-component JPEGs as Adobe-inverted CMYK ("CMYK;I") and converts with its
 * cmyk2rgb: nk = 255 - k; out = nk - (c * nk) / 255 with its rounding division. */
static uint8_t cmyk_channel(int c, int nk) {
    int tmp = c * nk + 128;
    int v = nk - (((tmp >> 8) + tmp) >> 8);
    return (uint8_t)(v <= 0 ? 0 : v > 255 ? 255 : v);
}

static infer8_status decode_jpeg(i8_image *out, const uint8_t *data, size_t size, const char *name,
                                 const i8_limits *limits, i8_err *err) {
    struct jpeg_decompress_struct cinfo;
    jpeg_guard g;
    /* volatile: modified between setjmp and a possible longjmp */
    uint8_t *volatile row = NULL;
    i8_image im = {0, 0, NULL};
    volatile i8_image *vim = &im;
    infer8_status st = INFER8_OK;

    memset(&cinfo, 0, sizeof(cinfo));
    memset(&g, 0, sizeof(g));
    cinfo.err = jpeg_std_error(&g.pub);
    g.pub.error_exit = jpeg_on_error;
    g.pub.emit_message = jpeg_on_message;
    if (setjmp(g.jump)) {
        jpeg_destroy_decompress(&cinfo);
        free(row);
        free(vim->rgb);
        return i8_fail(err, INFER8_E_FORMAT, "%s: corrupt JPEG: %s", name, g.msg);
    }
    jpeg_create_decompress(&cinfo);
    jpeg_mem_src(&cinfo, data, (unsigned long)size);
    jpeg_read_header(&cinfo, TRUE);

    int comps = cinfo.num_components;
    if (comps == 1) cinfo.out_color_space = JCS_GRAYSCALE;
    else if (comps == 3) cinfo.out_color_space = JCS_RGB;
    else if (comps == 4) cinfo.out_color_space = JCS_CMYK;
    else {
        jpeg_destroy_decompress(&cinfo);
        return i8_fail(err, INFER8_E_UNSUPPORTED, "%s: JPEG with %d components (1, 3 or 4 supported)", name, comps);
    }
    st = check_dims(cinfo.image_width, cinfo.image_height, name, limits, err);
    if (st != INFER8_OK) {
        jpeg_destroy_decompress(&cinfo);
        return st;
    }
    /* libjpeg defaults as Pillow leaves them: JDCT_ISLOW, fancy upsampling on. */
    jpeg_start_decompress(&cinfo);
    if (cinfo.output_components != comps) {
        jpeg_destroy_decompress(&cinfo);
        return i8_fail(err, INFER8_E_INTERNAL, "%s: libjpeg gave %d output components", name, cinfo.output_components);
    }
    int w = (int)cinfo.output_width, h = (int)cinfo.output_height;
    if (i8_image_alloc(&im, w, h, err) != INFER8_OK ||
        !(row = i8_malloc((size_t)w * (size_t)cinfo.output_components, err))) {
        jpeg_destroy_decompress(&cinfo);
        i8_image_free(&im);
        return err ? err->code : INFER8_E_NOMEM;
    }
    while (cinfo.output_scanline < cinfo.output_height && !g.hit_eof) {
        JSAMPROW rows[1] = {row};
        int y = (int)cinfo.output_scanline;
        if (jpeg_read_scanlines(&cinfo, rows, 1) != 1) break;
        uint8_t *o = im.rgb + (size_t)y * (size_t)w * 3;
        for (int x = 0; x < w; x++) {
            if (comps == 1) {
                o[3 * x] = o[3 * x + 1] = o[3 * x + 2] = row[x];
            } else if (comps == 3) {
                o[3 * x] = row[3 * x];
                o[3 * x + 1] = row[3 * x + 1];
                o[3 * x + 2] = row[3 * x + 2];
            } else {
                const uint8_t *p = row + 4 * x;
                int nk = 255 - (uint8_t)~p[3];
                for (int c = 0; c < 3; c++) o[3 * x + c] = cmyk_channel((uint8_t)~p[c], nk);
            }
        }
    }
    if (g.hit_eof || cinfo.output_scanline < cinfo.output_height) {
        jpeg_destroy_decompress(&cinfo);
        free(row);
        i8_image_free(&im);
        return i8_fail(err, INFER8_E_FORMAT, "%s: truncated JPEG (%zu bytes)", name, size);
    }
    /* Trailing garbage is tolerated as Pillow does; only the pixels matter. */
    jpeg_abort_decompress(&cinfo);
    jpeg_destroy_decompress(&cinfo);
    free(row);
    *out = im;
    return INFER8_OK;
}

/* ---- PNG ------------------------------------------------------------------------------ */

typedef struct png_src {
    const uint8_t *data;
    size_t size, pos;
    jmp_buf jump;
    char msg[256];
} png_src;

static void png_on_error(png_structp png, png_const_charp msg) {
    png_src *s = png_get_error_ptr(png);
    snprintf(s->msg, sizeof(s->msg), "%s", msg ? msg : "error");
    longjmp(s->jump, 1);
}

static void png_on_warning(png_structp png, png_const_charp msg) { (void)png; (void)msg; }

static void png_read_mem(png_structp png, png_bytep dst, png_size_t n) {
    png_src *s = png_get_io_ptr(png);
    if (n > s->size - s->pos) png_error(png, "unexpected end of data (truncated file)");
    memcpy(dst, s->data + s->pos, n);
    s->pos += n;
}

static infer8_status decode_png(i8_image *out, const uint8_t *data, size_t size, const char *name,
                                const i8_limits *limits, i8_err *err) {
    png_src src;
    png_structp png = NULL;
    png_infop info = NULL;
    uint8_t *volatile raw = NULL;
    png_bytep *volatile rows = NULL;
    i8_image im = {0, 0, NULL};
    volatile i8_image *vim = &im;

    memset(&src, 0, sizeof(src));
    src.data = data;
    src.size = size;
    png = png_create_read_struct(PNG_LIBPNG_VER_STRING, &src, png_on_error, png_on_warning);
    if (!png) return i8_fail(err, INFER8_E_NOMEM, "%s: cannot create the PNG reader", name);
    info = png_create_info_struct(png);
    if (!info) {
        png_destroy_read_struct(&png, NULL, NULL);
        return i8_fail(err, INFER8_E_NOMEM, "%s: cannot create the PNG reader", name);
    }
    if (setjmp(src.jump)) {
        png_destroy_read_struct(&png, &info, NULL);
        free(raw);
        free(rows);
        free(vim->rgb);
        return i8_fail(err, INFER8_E_FORMAT, "%s: corrupt PNG at byte %zu: %s", name, src.pos, src.msg);
    }
    png_set_read_fn(png, &src, png_read_mem);
    /* Our own pixel limit applies instead of libpng's default 1,000,000-pixel side limit. */
    png_set_user_limits(png, 0x7fffffff, 0x7fffffff);
    png_read_info(png, info);

    png_uint_32 w = 0, h = 0;
    int depth = 0, ctype = 0, interlace = 0;
    png_get_IHDR(png, info, &w, &h, &depth, &ctype, &interlace, NULL, NULL);
    infer8_status st = check_dims(w, h, name, limits, err);
    if (st != INFER8_OK) {
        png_destroy_read_struct(&png, &info, NULL);
        return st;
    }

    /* Palette: Pillow starts from a grey ramp (index i -> (i,i,i)) and overwrites the PLTE
     * entries, so indices past the palette give grey, not libpng's black: look up ourselves. */
    uint8_t pal[256][3];
    for (int i = 0; i < 256; i++) pal[i][0] = pal[i][1] = pal[i][2] = (uint8_t)i;
    if (ctype == PNG_COLOR_TYPE_PALETTE) {
        png_colorp plte = NULL;
        int n = 0;
        if (png_get_PLTE(png, info, &plte, &n) & PNG_INFO_PLTE) {
            for (int i = 0; i < n && i < 256; i++) {
                pal[i][0] = plte[i].red;
                pal[i][1] = plte[i].green;
                pal[i][2] = plte[i].blue;
            }
        }
        png_set_packing(png);
    } else if (ctype == PNG_COLOR_TYPE_GRAY && depth < 8) {
        png_set_expand_gray_1_2_4_to_8(png);   /* scales as Pillow's "1", "L;2", "L;4" */
    } else if (depth == 16 && ctype != PNG_COLOR_TYPE_GRAY) {
        png_set_strip_16(png);                 /* high byte, as Pillow's "RGB;16B" etc. */
    }
    /* 16-bit grey stays 16-bit: Pillow makes it mode "I" and convert("RGB") clamps to 255. */
    /* tRNS is deliberately not expanded: convert("RGB") ignores transparency. */
    png_set_interlace_handling(png);
    png_read_update_info(png, info);

    size_t rowbytes = png_get_rowbytes(png, info), total;
    int channels = png_get_channels(png, info);
    int odepth = png_get_bit_depth(png, info);
    size_t bpp = (size_t)channels * (odepth == 16 ? 2 : 1);
    if (odepth < 8 || rowbytes < bpp * w || !i8_mul_size(rowbytes, h, &total)) {
        png_destroy_read_struct(&png, &info, NULL);
        return i8_fail(err, INFER8_E_INTERNAL, "%s: unexpected PNG row layout (%d channels, %d bits)", name,
                       channels, odepth);
    }
    raw = i8_malloc(total, err);
    rows = raw ? i8_calloc(h, sizeof(png_bytep), err) : NULL;
    if (!rows || i8_image_alloc(&im, (int)w, (int)h, err) != INFER8_OK) {
        png_destroy_read_struct(&png, &info, NULL);
        free(raw);
        free(rows);
        return err ? err->code : INFER8_E_NOMEM;
    }
    for (png_uint_32 y = 0; y < h; y++) rows[y] = raw + (size_t)y * rowbytes;
    png_read_image(png, rows);
    /* The end chunk is not read: Pillow stops after the image data too. */
    png_destroy_read_struct(&png, &info, NULL);

    for (size_t y = 0; y < h; y++) {
        const uint8_t *r = raw + y * rowbytes;
        uint8_t *o = im.rgb + y * (size_t)w * 3;
        for (size_t x = 0; x < w; x++, o += 3) {
            if (ctype == PNG_COLOR_TYPE_PALETTE) {
                memcpy(o, pal[r[x]], 3);
            } else if (ctype == PNG_COLOR_TYPE_GRAY && odepth == 16) {
                unsigned v = ((unsigned)r[2 * x] << 8) | r[2 * x + 1];
                o[0] = o[1] = o[2] = (uint8_t)(v > 255 ? 255 : v);
            } else if (channels <= 2) {
                o[0] = o[1] = o[2] = r[x * channels];
            } else {
                memcpy(o, r + x * channels, 3);
            }
        }
    }
    free(raw);
    free(rows);
    *out = im;
    return INFER8_OK;
}

/* ---- WebP ----------------------------------------------------------------------------- */

static infer8_status decode_webp(i8_image *out, const uint8_t *data, size_t size, const char *name,
                                 const i8_limits *limits, i8_err *err) {
    WebPBitstreamFeatures f;
    VP8StatusCode vs = WebPGetFeatures(data, size, &f);
    if (vs == VP8_STATUS_NOT_ENOUGH_DATA)
        return i8_fail(err, INFER8_E_FORMAT, "%s: truncated WebP (%zu bytes)", name, size);
    if (vs != VP8_STATUS_OK)
        return i8_fail(err, INFER8_E_FORMAT, "%s: corrupt WebP header (libwebp status %d)", name, (int)vs);
    if (f.has_animation)
        return i8_fail(err, INFER8_E_UNSUPPORTED, "%s: animated WebP is not supported", name);
    infer8_status st = check_dims((uint64_t)(f.width < 0 ? 0 : f.width), (uint64_t)(f.height < 0 ? 0 : f.height),
                                  name, limits, err);
    if (st != INFER8_OK) return st;

    /* Pillow decodes to non-premultiplied RGBA and drops A; decode the same way. */
    size_t rgba_bytes;
    if (!i8_mul3_size((size_t)f.width, (size_t)f.height, 4, &rgba_bytes))
        return i8_fail(err, INFER8_E_LIMIT, "%s: WebP size overflows", name);
    uint8_t *rgba = i8_malloc(rgba_bytes, err);
    if (!rgba) return err ? err->code : INFER8_E_NOMEM;
    int w = 0, h = 0;
    if (!WebPGetInfo(data, size, &w, &h) || w != f.width || h != f.height ||
        !WebPDecodeRGBAInto(data, size, rgba, rgba_bytes, 4 * f.width)) {
        free(rgba);
        return i8_fail(err, INFER8_E_FORMAT, "%s: corrupt or truncated WebP data (%zu bytes)", name, size);
    }
    i8_image im;
    if (i8_image_alloc(&im, w, h, err) != INFER8_OK) {
        free(rgba);
        return err ? err->code : INFER8_E_NOMEM;
    }
    size_t n = (size_t)w * (size_t)h;
    for (size_t i = 0; i < n; i++) memcpy(im.rgb + 3 * i, rgba + 4 * i, 3);
    free(rgba);
    *out = im;
    return INFER8_OK;
}

infer8_status i8_image_decode(i8_image *out, const uint8_t *data, size_t size, const char *name,
                              const i8_limits *limits, i8_err *err) {
    static const uint8_t png_sig[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};
    if (!name) name = "<image>";
    if (!out || (!data && size))
        return i8_fail(err, INFER8_E_INVALID_ARGUMENT, "%s: i8_image_decode: NULL argument", name);
    /* in-memory images (API callers) obey the encoded-size limit as files do */
    uint64_t max_bytes = limits ? limits->max_image_bytes : 0;
    if (max_bytes == 0) {
        i8_limits def;
        i8_limits_default(&def);
        max_bytes = def.max_image_bytes;
    }
    if ((uint64_t)size > max_bytes)
        return i8_fail(err, INFER8_E_LIMIT, "%s: encoded image of %zu bytes is above the limit of %llu bytes", name,
                       size, (unsigned long long)max_bytes);
    if (size >= 3 && data[0] == 0xFF && data[1] == 0xD8 && data[2] == 0xFF)
        return decode_jpeg(out, data, size, name, limits, err);
    if (size >= 8 && memcmp(data, png_sig, 8) == 0) return decode_png(out, data, size, name, limits, err);
    if (size >= 12 && memcmp(data, "RIFF", 4) == 0 && memcmp(data + 8, "WEBP", 4) == 0)
        return decode_webp(out, data, size, name, limits, err);
    if (size < 12)
        return i8_fail(err, INFER8_E_FORMAT, "%s: %zu bytes is too short to be an image", name, size);
    return i8_fail(err, INFER8_E_UNSUPPORTED,
                   "%s: unknown image format (first bytes %02x %02x %02x %02x; JPEG, PNG and WebP supported)", name,
                   data[0], data[1], data[2], data[3]);
}

infer8_status i8_image_load(i8_image *out, const char *path, const i8_limits *limits, i8_err *err) {
    i8_limits def;
    if (!limits) {
        i8_limits_default(&def);
        limits = &def;
    }
    uint64_t max_bytes = limits->max_image_bytes;
    if (max_bytes == 0) {   /* 0 keeps the default, as for the public limits */
        i8_limits_default(&def);
        max_bytes = def.max_image_bytes;
    }
    uint8_t *data = NULL;
    size_t size = 0;
    infer8_status st = i8_read_file(path, max_bytes, &data, &size, err);
    if (st != INFER8_OK) return st;
    st = i8_image_decode(out, data, size, path, limits, err);
    free(data);
    return st;
}
