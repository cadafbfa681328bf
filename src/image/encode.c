/* Image encoding to memory (PNG via libpng, JPEG quality 90 via libjpeg-turbo, lossless WebP
 * via libwebp) and an atomic PNG file writer. Used by tests, the generator and the demo. */
#include "image/image.h"

#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jpeglib.h>
#include <png.h>
#include <webp/encode.h>

static int check_image(const i8_image *im) {
    return im && im->rgb && im->width > 0 && im->height > 0;
}

/* ---- PNG ---- */

typedef struct png_sink {
    uint8_t *data;
    size_t size, cap;
    int oom;
    jmp_buf jump;
    char msg[256];
} png_sink;

static void sink_write(png_structp png, png_bytep src, png_size_t n) {
    png_sink *s = png_get_io_ptr(png);
    if (s->oom) return;
    if (n > s->cap - s->size) {
        size_t cap = s->cap ? s->cap : 65536;
        while (cap - s->size < n) {
            if (cap > SIZE_MAX / 2) {
                s->oom = 1;
                png_error(png, "output too large");
            }
            cap *= 2;
        }
        uint8_t *p = realloc(s->data, cap);
        if (!p) {
            s->oom = 1;
            png_error(png, "out of memory");
        }
        s->data = p;
        s->cap = cap;
    }
    memcpy(s->data + s->size, src, n);
    s->size += n;
}

static void sink_flush(png_structp png) { (void)png; }

static void png_w_error(png_structp png, png_const_charp msg) {
    png_sink *s = png_get_error_ptr(png);
    snprintf(s->msg, sizeof(s->msg), "%s", msg ? msg : "error");
    longjmp(s->jump, 1);
}

static void png_w_warning(png_structp png, png_const_charp msg) { (void)png; (void)msg; }

static infer8_status encode_png(const i8_image *im, uint8_t **out, size_t *size, i8_err *err) {
    png_sink sink;
    memset(&sink, 0, sizeof(sink));
    png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, &sink, png_w_error, png_w_warning);
    png_infop info = png ? png_create_info_struct(png) : NULL;
    if (!info) {
        png_destroy_write_struct(&png, NULL);
        return i8_fail(err, INFER8_E_NOMEM, "PNG encoder: cannot create the writer");
    }
    if (setjmp(sink.jump)) {
        png_destroy_write_struct(&png, &info);
        free(sink.data);
        return i8_fail(err, sink.oom ? INFER8_E_NOMEM : INFER8_E_INTERNAL, "PNG encoder: %s", sink.msg);
    }
    png_set_write_fn(png, &sink, sink_write, sink_flush);
    png_set_IHDR(png, info, (png_uint_32)im->width, (png_uint_32)im->height, 8, PNG_COLOR_TYPE_RGB,
                 PNG_INTERLACE_NONE, PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
    png_write_info(png, info);
    for (int y = 0; y < im->height; y++) png_write_row(png, im->rgb + (size_t)y * (size_t)im->width * 3);
    png_write_end(png, info);
    png_destroy_write_struct(&png, &info);
    *out = sink.data;
    *size = sink.size;
    return INFER8_OK;
}

/* ---- JPEG ---- */

typedef struct jpeg_w_guard {
    struct jpeg_error_mgr pub;
    jmp_buf jump;
    char msg[JMSG_LENGTH_MAX];
} jpeg_w_guard;

static void jpeg_w_error(j_common_ptr cinfo) {
    jpeg_w_guard *g = (jpeg_w_guard *)cinfo->err;
    g->pub.format_message(cinfo, g->msg);
    longjmp(g->jump, 1);
}

static void jpeg_w_message(j_common_ptr cinfo, int level) { (void)cinfo; (void)level; }

static infer8_status encode_jpeg(const i8_image *im, uint8_t **out, size_t *size, i8_err *err) {
    struct jpeg_compress_struct cinfo;
    jpeg_w_guard g;
    unsigned char *volatile buf = NULL;
    unsigned long len = 0;
    memset(&cinfo, 0, sizeof(cinfo));
    memset(&g, 0, sizeof(g));
    cinfo.err = jpeg_std_error(&g.pub);
    g.pub.error_exit = jpeg_w_error;
    g.pub.emit_message = jpeg_w_message;
    if (setjmp(g.jump)) {
        jpeg_destroy_compress(&cinfo);
        free(buf);
        return i8_fail(err, INFER8_E_INTERNAL, "JPEG encoder: %s", g.msg);
    }
    jpeg_create_compress(&cinfo);
    jpeg_mem_dest(&cinfo, (unsigned char **)&buf, &len);
    cinfo.image_width = (JDIMENSION)im->width;
    cinfo.image_height = (JDIMENSION)im->height;
    cinfo.input_components = 3;
    cinfo.in_color_space = JCS_RGB;
    jpeg_set_defaults(&cinfo);
    jpeg_set_quality(&cinfo, 90, TRUE);
    jpeg_start_compress(&cinfo, TRUE);
    while (cinfo.next_scanline < cinfo.image_height) {
        JSAMPROW row = im->rgb + (size_t)cinfo.next_scanline * (size_t)im->width * 3;
        jpeg_write_scanlines(&cinfo, &row, 1);
    }
    jpeg_finish_compress(&cinfo);
    jpeg_destroy_compress(&cinfo);
    /* jpeg_mem_dest's buffer comes from malloc: hand it over. */
    *out = buf;
    *size = len;
    return INFER8_OK;
}

/* ---- WebP ---- */

static infer8_status encode_webp(const i8_image *im, uint8_t **out, size_t *size, i8_err *err) {
    if (im->width > 16383 || im->height > 16383)
        return i8_fail(err, INFER8_E_UNSUPPORTED, "WebP encoder: %dx%d exceeds WebP's 16383 limit", im->width,
                       im->height);
    uint8_t *w = NULL;
    size_t n = WebPEncodeLosslessRGB(im->rgb, im->width, im->height, im->width * 3, &w);
    if (n == 0 || !w) return i8_fail(err, INFER8_E_INTERNAL, "WebP encoder failed for %dx%d", im->width, im->height);
    /* Copy into malloc'ed memory so callers can free() it whatever libwebp's allocator is. */
    uint8_t *p = i8_malloc(n, err);
    if (!p) {
        WebPFree(w);
        return err ? err->code : INFER8_E_NOMEM;
    }
    memcpy(p, w, n);
    WebPFree(w);
    *out = p;
    *size = n;
    return INFER8_OK;
}

infer8_status i8_image_encode(const i8_image *im, char format, uint8_t **out, size_t *size, i8_err *err) {
    if (!check_image(im) || !out || !size) return i8_fail(err, INFER8_E_INVALID_ARGUMENT, "encode: empty image");
    switch (format) {
    case 'p': return encode_png(im, out, size, err);
    case 'j': return encode_jpeg(im, out, size, err);
    case 'w': return encode_webp(im, out, size, err);
    default: return i8_fail(err, INFER8_E_INVALID_ARGUMENT, "encode: unknown format '%c' (p, j or w)", format);
    }
}

infer8_status i8_image_save_png(const i8_image *im, const char *path, i8_err *err) {
    uint8_t *data = NULL;
    size_t size = 0;
    infer8_status st = i8_image_encode(im, 'p', &data, &size, err);
    if (st != INFER8_OK) {
        if (err) i8_err_prefix(err, "%s", path);
        return st;
    }
    st = i8_write_file_atomic(path, data, size, err);
    free(data);
    return st;
}
