/* Bundle container and section codecs (see bundle.h and docs/bundle-format.md). All integers
 * are little-endian and read/written byte by byte, so the format does not depend on the host's
 * struct layout or byte order. Checksums: XXH3-64 (Debian libxxhash); provenance: SHA-256
 * (Debian nettle). */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <nettle/sha2.h>
#include <xxhash.h>

#include "core/text.h"
#include "formats/bundle.h"
#include "quant/fp8.h"

/* ---- little-endian helpers ---- */

static void put_u32(uint8_t *p, uint32_t v) {
    for (int i = 0; i < 4; i++) p[i] = (uint8_t)(v >> (8 * i));
}
static void put_u64(uint8_t *p, uint64_t v) {
    for (int i = 0; i < 8; i++) p[i] = (uint8_t)(v >> (8 * i));
}
static void put_f32(uint8_t *p, float f) {
    uint32_t v;
    memcpy(&v, &f, 4);
    put_u32(p, v);
}
static uint32_t get_u32(const uint8_t *p) {
    uint32_t v = 0;
    for (int i = 0; i < 4; i++) v |= (uint32_t)p[i] << (8 * i);
    return v;
}
static uint64_t get_u64(const uint8_t *p) {
    uint64_t v = 0;
    for (int i = 0; i < 8; i++) v |= (uint64_t)p[i] << (8 * i);
    return v;
}
static int32_t get_i32(const uint8_t *p) { return (int32_t)get_u32(p); }
static float get_f32(const uint8_t *p) {
    uint32_t v = get_u32(p);
    float f;
    memcpy(&f, &v, 4);
    return f;
}

uint64_t i8_xxh3_64(const void *data, size_t size) { return (uint64_t)XXH3_64bits(data, size); }

static uint64_t align_up(uint64_t x) { return (x + I8_BUNDLE_ALIGN - 1) & ~(uint64_t)(I8_BUNDLE_ALIGN - 1); }

int i8_bundle_has_magic(const void *data, size_t size) { return size >= 8 && memcmp(data, I8_BUNDLE_MAGIC, 8) == 0; }

int i8_bundle_path_has_magic(const char *path) {
    int fd = -1;
    if (i8_open_regular(path, &fd, NULL, NULL) != INFER8_OK) return 0;
    uint8_t m[8];
    ssize_t got = read(fd, m, sizeof m);
    close(fd);
    return got > 0 && i8_bundle_has_magic(m, (size_t)got);
}

/* ---- container reader ---- */

infer8_status i8_bundle_parse(i8_bundle *b, const uint8_t *d, size_t size, const char *name, i8_err *err) {
    if (!name) name = "bundle";
    if (size < 8 || memcmp(d, I8_BUNDLE_MAGIC, 8) != 0)
        return i8_fail(err, INFER8_E_FORMAT, "%s: not an infer8 bundle (magic bytes differ)", name);
    if (size < I8_BUNDLE_HEADER_BYTES)
        return i8_fail(err, INFER8_E_INTEGRITY, "%s: header: truncated: file has %zu bytes, the header needs %u", name,
                       size, I8_BUNDLE_HEADER_BYTES);
    uint32_t version = get_u32(d + 8);
    if (version != I8_BUNDLE_VERSION)
        return i8_fail(err, INFER8_E_UNSUPPORTED, "%s: header: format version %u is unknown (this build reads %u)", name,
                       version, I8_BUNDLE_VERSION);
    uint64_t hsum = get_u64(d + 56), hcalc = i8_xxh3_64(d, 56);
    if (hsum != hcalc)
        return i8_fail(err, INFER8_E_INTEGRITY,
                       "%s: header: checksum mismatch (stored %016llx, computed %016llx over bytes 0..55)", name,
                       (unsigned long long)hsum, (unsigned long long)hcalc);
    uint32_t hbytes = get_u32(d + 12), entry = get_u32(d + 36), n = get_u32(d + 32);
    uint64_t file_size = get_u64(d + 16), table = get_u64(d + 24);
    if (hbytes != I8_BUNDLE_HEADER_BYTES || entry != I8_BUNDLE_ENTRY_BYTES)
        return i8_fail(err, INFER8_E_FORMAT, "%s: header: header size %u / table entry size %u, expected %u / %u", name,
                       hbytes, entry, I8_BUNDLE_HEADER_BYTES, I8_BUNDLE_ENTRY_BYTES);
    if (file_size != size)
        return i8_fail(err, INFER8_E_INTEGRITY, "%s: header: file size check failed: header says %llu bytes, file has %zu%s",
                       name, (unsigned long long)file_size, size, file_size > size ? " (truncated)" : "");
    if (n < 1 || n > I8_BUNDLE_MAX_SECTIONS)
        return i8_fail(err, INFER8_E_FORMAT, "%s: header: section count %u not in 1..%d", name, n, I8_BUNDLE_MAX_SECTIONS);
    if (table != I8_BUNDLE_HEADER_BYTES || table + (uint64_t)n * I8_BUNDLE_ENTRY_BYTES > size)
        return i8_fail(err, INFER8_E_FORMAT,
                       "%s: section table: offset %llu + %u entries of %u bytes lies outside the file (%zu bytes)", name,
                       (unsigned long long)table, n, I8_BUNDLE_ENTRY_BYTES, size);
    uint64_t table_end = table + (uint64_t)n * I8_BUNDLE_ENTRY_BYTES;
    uint64_t tsum = get_u64(d + 40), tcalc = i8_xxh3_64(d + table, (size_t)(table_end - table));
    if (tsum != tcalc)
        return i8_fail(err, INFER8_E_INTEGRITY, "%s: section table: checksum mismatch (stored %016llx, computed %016llx)",
                       name, (unsigned long long)tsum, (unsigned long long)tcalc);
    memset(b, 0, sizeof *b);
    b->version = version;
    b->file_size = file_size;
    b->n_sections = (int)n;
    uint64_t prev_end = table_end;
    for (uint32_t i = 0; i < n; i++) {
        const uint8_t *e = d + table + (uint64_t)i * I8_BUNDLE_ENTRY_BYTES;
        i8_bundle_section *s = &b->sections[i];
        if (memchr(e, 0, I8_BUNDLE_NAME_MAX) == NULL || e[0] == 0)
            return i8_fail(err, INFER8_E_FORMAT, "%s: section table entry %u: name empty or not NUL-terminated", name, i);
        memcpy(s->name, e, I8_BUNDLE_NAME_MAX);
        s->offset = get_u64(e + 32);
        s->length = get_u64(e + 40);
        s->checksum = get_u64(e + 48);
        for (uint32_t j = 0; j < i; j++)
            if (!strcmp(b->sections[j].name, s->name))
                return i8_fail(err, INFER8_E_FORMAT, "%s: section '%s': appears twice in the table", name, s->name);
        if (s->offset % I8_BUNDLE_ALIGN)
            return i8_fail(err, INFER8_E_FORMAT, "%s: section '%s': offset %llu not aligned to %u bytes", name, s->name,
                           (unsigned long long)s->offset, I8_BUNDLE_ALIGN);
        if (s->offset < prev_end || s->offset > size || s->length > size - s->offset)
            return i8_fail(err, INFER8_E_FORMAT,
                           "%s: section '%s': bounds check failed: offset %llu length %llu outside the file (%zu bytes) "
                           "or overlapping the previous section (ends at %llu)",
                           name, s->name, (unsigned long long)s->offset, (unsigned long long)s->length, size,
                           (unsigned long long)prev_end);
        for (uint64_t p = prev_end; p < s->offset; p++)
            if (d[p])
                return i8_fail(err, INFER8_E_INTEGRITY, "%s: section '%s': padding byte at offset %llu before it is not zero",
                               name, s->name, (unsigned long long)p);
        s->data = d + s->offset;
        uint64_t c = i8_xxh3_64(s->data, (size_t)s->length);
        if (c != s->checksum)
            return i8_fail(err, INFER8_E_INTEGRITY,
                           "%s: section '%s': checksum mismatch (XXH3-64 stored %016llx, computed %016llx over %llu bytes "
                           "at offset %llu)",
                           name, s->name, (unsigned long long)s->checksum, (unsigned long long)c,
                           (unsigned long long)s->length, (unsigned long long)s->offset);
        prev_end = s->offset + s->length;
    }
    if (prev_end != size)
        return i8_fail(err, INFER8_E_INTEGRITY, "%s: %llu trailing bytes after the last section (offset %llu)", name,
                       (unsigned long long)(size - prev_end), (unsigned long long)prev_end);
    return INFER8_OK;
}

const i8_bundle_section *i8_bundle_find(const i8_bundle *b, const char *name) {
    for (int i = 0; i < b->n_sections; i++)
        if (!strcmp(b->sections[i].name, name)) return &b->sections[i];
    return NULL;
}

/* ---- container writer ---- */

infer8_status i8_bundle_writer_add(i8_bundle_writer *w, const char *name, const void *data, size_t length,
                                   i8_err *err) {
    if (w->n_sections >= I8_BUNDLE_MAX_SECTIONS || !name[0] || strlen(name) >= I8_BUNDLE_NAME_MAX)
        return i8_fail(err, INFER8_E_INTERNAL, "bundle writer: cannot add section '%s'", name);
    i8_bundle_section *s = &w->sections[w->n_sections++];
    memset(s, 0, sizeof *s);
    snprintf(s->name, sizeof s->name, "%s", name);
    s->data = data;
    s->length = length;
    return INFER8_OK;
}

uint64_t i8_bundle_writer_layout(i8_bundle_writer *w) {
    uint64_t pos = I8_BUNDLE_HEADER_BYTES + (uint64_t)w->n_sections * I8_BUNDLE_ENTRY_BYTES;
    for (int i = 0; i < w->n_sections; i++) {
        w->sections[i].offset = align_up(pos);
        pos = w->sections[i].offset + w->sections[i].length;
    }
    return pos;
}

infer8_status i8_bundle_writer_write(i8_bundle_writer *w, const char *path, i8_err *err) {
    uint8_t head[I8_BUNDLE_HEADER_BYTES + I8_BUNDLE_MAX_SECTIONS * I8_BUNDLE_ENTRY_BYTES];
    memset(head, 0, sizeof head);
    const uint64_t file_size = i8_bundle_writer_layout(w);
    for (int i = 0; i < w->n_sections; i++) {
        i8_bundle_section *s = &w->sections[i];
        s->checksum = i8_xxh3_64(s->data, (size_t)s->length);
        uint8_t *e = head + I8_BUNDLE_HEADER_BYTES + i * I8_BUNDLE_ENTRY_BYTES;
        memcpy(e, s->name, strlen(s->name));
        put_u64(e + 32, s->offset);
        put_u64(e + 40, s->length);
        put_u64(e + 48, s->checksum);
    }
    size_t table_bytes = (size_t)w->n_sections * I8_BUNDLE_ENTRY_BYTES;
    memcpy(head, I8_BUNDLE_MAGIC, 8);
    put_u32(head + 8, I8_BUNDLE_VERSION);
    put_u32(head + 12, I8_BUNDLE_HEADER_BYTES);
    put_u64(head + 16, file_size);
    put_u64(head + 24, I8_BUNDLE_HEADER_BYTES);
    put_u32(head + 32, (uint32_t)w->n_sections);
    put_u32(head + 36, I8_BUNDLE_ENTRY_BYTES);
    put_u64(head + 40, i8_xxh3_64(head + I8_BUNDLE_HEADER_BYTES, table_bytes));
    put_u64(head + 56, i8_xxh3_64(head, 56));

    i8_atomic_file f;
    infer8_status s = i8_atomic_open(&f, path, err);
    if (s) return s;
    static const uint8_t zeros[I8_BUNDLE_ALIGN];
    uint64_t at = I8_BUNDLE_HEADER_BYTES + table_bytes;
    s = i8_atomic_write(&f, head, (size_t)at, err);
    for (int i = 0; !s && i < w->n_sections; i++) {
        const i8_bundle_section *sec = &w->sections[i];
        if (sec->offset > at) s = i8_atomic_write(&f, zeros, (size_t)(sec->offset - at), err);
        if (!s && sec->length) s = i8_atomic_write(&f, sec->data, (size_t)sec->length, err);
        at = sec->offset + sec->length;
    }
    if (s) {
        i8_atomic_abort(&f);
        return s;
    }
    return i8_atomic_commit(&f, err);
}

/* ---- SHA-256 ---- */

infer8_status i8_sha256_file(const char *path, char hex[65], i8_err *err) {
    int fd = -1;
    infer8_status st = i8_open_regular(path, &fd, NULL, err);
    if (st) return st;
    FILE *f = fdopen(fd, "rb");
    if (!f) {
        close(fd);
        return i8_fail(err, INFER8_E_IO, "%s: cannot open for SHA-256: %s", path, strerror(errno));
    }
    struct sha256_ctx c;
    sha256_init(&c);
    uint8_t *buf = malloc(1 << 20);
    if (!buf) {
        fclose(f);
        return i8_fail(err, INFER8_E_NOMEM, "%s: SHA-256: out of memory", path);
    }
    size_t got;
    while ((got = fread(buf, 1, 1 << 20, f)) > 0) sha256_update(&c, got, buf);
    int bad = ferror(f);
    fclose(f);
    free(buf);
    if (bad) return i8_fail(err, INFER8_E_IO, "%s: read error while hashing", path);
    uint8_t digest[SHA256_DIGEST_SIZE];
    sha256_digest(&c, sizeof digest, digest);
    for (int i = 0; i < SHA256_DIGEST_SIZE; i++) snprintf(hex + 2 * i, 3, "%02x", digest[i]);
    return INFER8_OK;
}

/* ---- graph section ----
 * header (128 bytes): u32 record version (1), u32 n_nodes, u32 n_weights, u32 0, char arch[64],
 *   i32 input_c, input_h, input_w, output, num_classes, u32 0, u64 checkpoint_parameters, pad.
 * node record (256 bytes): name[96], then i32/f32 fields in the order of NODE_FIELDS below.
 * weight record (192 bytes): name[128], i32 ndim, u32 0, i64 shape[4], u32 storage, i32 scales
 *   (E4M3: weight index of its f32 per-channel scales, else -1), u64 offset, u64 bytes
 *   (offset into the weights section, a multiple of 64). */
#define GRAPH_HEADER 128u
#define NODE_RECORD 256u
#define WEIGHT_RECORD 192u
#define NODE_NAME 96u
#define WEIGHT_NAME 128u

_Static_assert(I8_NAME_MAX == NODE_NAME, "node record name size follows graph.h");
_Static_assert(I8_NAME_MAX + 32 == WEIGHT_NAME, "weight record name size follows graph.h");

/* Integer fields of a node in record order (floats handled by position below). */
static void node_fields(i8_node *n, int32_t **ints, float **floats) {
    int k = 0;
    ints[k++] = (int32_t *)&n->op; /* enum stored as int (checked on read) */
    ints[k++] = &n->n_inputs;
    for (int i = 0; i < I8_MAX_INPUTS; i++) ints[k++] = &n->inputs[i];
    ints[k++] = &n->c, ints[k++] = &n->h, ints[k++] = &n->w;
    ints[k++] = &n->kh, ints[k++] = &n->kw, ints[k++] = &n->sh, ints[k++] = &n->sw, ints[k++] = &n->ph,
    ints[k++] = &n->pw;
    ints[k++] = &n->count_include_pad;
    ints[k++] = &n->weight, ints[k++] = &n->bias, ints[k++] = &n->bn_gamma, ints[k++] = &n->bn_beta,
    ints[k++] = &n->bn_mean, ints[k++] = &n->bn_var;
    ints[k++] = (int32_t *)&n->act;
    ints[k++] = &n->residual;
    ints[k++] = &n->block;
    ints[k++] = (int32_t *)&n->precision;
    ints[k++] = &n->weight_scales;
    ints[k++] = &n->residual_fp8;
    (void)k; /* k == NODE_INTS (checked by test_bundle's round trip of every field) */
    floats[0] = &n->bn_eps;
    floats[1] = &n->residual_scale;
    floats[2] = &n->out_scale;
}
#define NODE_INTS 32 /* must equal the count in node_fields */
#define NODE_FLOATS 3
_Static_assert(sizeof(i8_op) == 4 && sizeof(i8_act) == 4 && sizeof(i8_precision) == 4, "enums are int-sized");
_Static_assert(NODE_NAME + 4 * (NODE_INTS + NODE_FLOATS) <= NODE_RECORD, "node record fits");

static size_t storage_size(int st) { return st == I8_BUNDLE_F32 ? 4 : st == I8_BUNDLE_F16 ? 2 : 1; }

static uint64_t weight_elems(const i8_weight *w) {
    uint64_t n = 1;
    for (int i = 0; i < w->ndim; i++) n *= (uint64_t)w->shape[i];
    return n;
}

void i8_graph_blob_free(i8_graph_blob *b) {
    free(b->graph);
    free(b->weights);
    memset(b, 0, sizeof *b);
}

/* E4M3 storage of weight wi of FP8 conv n when lossless: codes into q (elems bytes). */
static int try_e4m3(const i8_graph *g, const i8_node *n, uint8_t *q) {
    const i8_weight *w = &g->weights[n->weight];
    if (n->weight_scales < 0 || n->weight_scales >= g->n_weights) return 0;
    const i8_weight *sw = &g->weights[n->weight_scales];
    if (sw->ndim != 1 || sw->shape[0] != w->shape[0] || w->shape[0] < 1) return 0;
    size_t per = (size_t)(weight_elems(w) / (uint64_t)w->shape[0]);
    for (int64_t o = 0; o < w->shape[0]; o++) {
        float s = sw->data[o];
        if (!(s > 0) || !isfinite(s)) return 0;
        float inv = i8_fp8_inv_scale(s);
        for (size_t k = 0; k < per; k++) {
            size_t i = (size_t)o * per + k;
            uint8_t c = i8_fp8_from_f32(w->data[i] * inv);
            float back = i8_fp8_to_f32(c) * s;
            if (memcmp(&back, &w->data[i], 4) != 0) return 0;
            q[i] = c;
        }
    }
    return 1;
}

infer8_status i8_bundle_encode_graph(const i8_graph *g, int fp16, i8_graph_blob *out, i8_err *err) {
    memset(out, 0, sizeof *out);
    size_t gsize = GRAPH_HEADER + (size_t)g->n_nodes * NODE_RECORD + (size_t)g->n_weights * WEIGHT_RECORD;
    uint8_t *gb = i8_calloc(1, gsize, err);
    int *storage = i8_calloc((size_t)g->n_weights + 1, sizeof *storage, err);
    int *scales_of = i8_calloc((size_t)g->n_weights + 1, sizeof *scales_of, err);
    unsigned char *is_scale = i8_calloc((size_t)g->n_weights + 1, 1, err);
    uint64_t *offs = i8_calloc((size_t)g->n_weights + 1, sizeof *offs, err);
    uint8_t *wb = NULL;
    unsigned char *is_kernel = NULL;
    uint8_t **codes = NULL;
    infer8_status s = INFER8_OK;
    if (!gb || !storage || !scales_of || !is_scale || !offs) {
        s = INFER8_E_NOMEM;
        goto done;
    }
    for (int i = 0; i < g->n_weights; i++) scales_of[i] = -1;
    /* fp16 applies to conv / linear kernels (the bulk of the bytes); biases and other small
     * vectors stay f32, which keeps the logits closer to the fp32 model for ~0.1% of the size */
    is_kernel = i8_calloc((size_t)g->n_weights + 1, 1, err);
    if (!is_kernel) {
        s = INFER8_E_NOMEM;
        goto done;
    }
    for (int i = 0; i < g->n_nodes; i++)
        if ((g->nodes[i].op == I8_OP_CONV || g->nodes[i].op == I8_OP_LINEAR) && g->nodes[i].weight >= 0 &&
            g->nodes[i].weight < g->n_weights)
            is_kernel[g->nodes[i].weight] = 1;
    for (int i = 0; i < g->n_nodes; i++)
        if (g->nodes[i].precision == I8_PREC_FP8 && g->nodes[i].weight_scales >= 0 &&
            g->nodes[i].weight_scales < g->n_weights)
            is_scale[g->nodes[i].weight_scales] = 1;
    /* FP8 convs: e4m3 codes where lossless (decided first: it changes the layout) */
    codes = i8_calloc((size_t)g->n_weights + 1, sizeof *codes, err);
    if (!codes) {
        s = INFER8_E_NOMEM;
        goto done;
    }
    for (int i = 0; i < g->n_nodes; i++) {
        const i8_node *n = &g->nodes[i];
        if (n->precision != I8_PREC_FP8 || n->op != I8_OP_CONV || n->weight < 0 || n->weight >= g->n_weights ||
            codes[n->weight])
            continue;
        uint8_t *q = i8_malloc((size_t)weight_elems(&g->weights[n->weight]), err);
        if (!q) {
            s = INFER8_E_NOMEM;
            goto done;
        }
        if (try_e4m3(g, n, q)) {
            codes[n->weight] = q;
            scales_of[n->weight] = n->weight_scales;
        } else {
            free(q);
        }
    }
    /* storage choice and layout */
    uint64_t pos = 0;
    for (int i = 0; i < g->n_weights; i++) {
        const i8_weight *w = &g->weights[i];
        int st = I8_BUNDLE_F32;
        if (fp16 && !is_scale[i] && is_kernel[i]) {
            st = I8_BUNDLE_F16;
            uint64_t n = weight_elems(w);
            for (uint64_t k = 0; k < n; k++)
                if (!isfinite(i8_f16_to_f32(i8_f32_to_f16(w->data[k])))) {
                    st = I8_BUNDLE_F32; /* would overflow binary16: keep exact */
                    break;
                }
        }
        if (codes[i]) st = I8_BUNDLE_E4M3;
        storage[i] = st;
        pos = align_up(pos);
        offs[i] = pos;
        pos += weight_elems(w) * storage_size(st);
    }
    size_t wsize = (size_t)align_up(pos);
    wb = i8_calloc(1, wsize ? wsize : 1, err);
    if (!wb) {
        s = INFER8_E_NOMEM;
        goto done;
    }
    free(is_kernel);
    is_kernel = NULL;
    for (int i = 0; i < g->n_weights; i++) {
        const i8_weight *w = &g->weights[i];
        uint64_t n = weight_elems(w);
        uint8_t *p = wb + offs[i];
        if (storage[i] == I8_BUNDLE_E4M3)
            memcpy(p, codes[i], (size_t)n);
        else if (storage[i] == I8_BUNDLE_F32)
            for (uint64_t k = 0; k < n; k++) put_f32(p + 4 * k, w->data[k]);
        else if (storage[i] == I8_BUNDLE_F16)
            for (uint64_t k = 0; k < n; k++) {
                uint16_t h = i8_f32_to_f16(w->data[k]);
                p[2 * k] = (uint8_t)h, p[2 * k + 1] = (uint8_t)(h >> 8);
            }
    }
    /* graph header */
    put_u32(gb + 0, 1);
    put_u32(gb + 4, (uint32_t)g->n_nodes);
    put_u32(gb + 8, (uint32_t)g->n_weights);
    memcpy(gb + 16, g->arch, strnlen(g->arch, 63));
    put_u32(gb + 80, (uint32_t)g->input_c);
    put_u32(gb + 84, (uint32_t)g->input_h);
    put_u32(gb + 88, (uint32_t)g->input_w);
    put_u32(gb + 92, (uint32_t)g->output);
    put_u32(gb + 96, (uint32_t)g->num_classes);
    put_u64(gb + 104, g->checkpoint_parameters);
    for (int i = 0; i < g->n_nodes; i++) {
        uint8_t *r = gb + GRAPH_HEADER + (size_t)i * NODE_RECORD;
        i8_node n = g->nodes[i];
        if (fp16 && n.precision == I8_PREC_FP32 && (n.op == I8_OP_CONV || n.op == I8_OP_LINEAR))
            n.precision = I8_PREC_FP16;
        int32_t *ints[NODE_INTS];
        float *floats[NODE_FLOATS];
        node_fields(&n, ints, floats);
        memcpy(r, n.name, strnlen(n.name, NODE_NAME - 1));
        for (int k = 0; k < NODE_INTS; k++) put_u32(r + NODE_NAME + 4 * k, (uint32_t)*ints[k]);
        for (int k = 0; k < NODE_FLOATS; k++) put_f32(r + NODE_NAME + 4 * (NODE_INTS + k), *floats[k]);
    }
    for (int i = 0; i < g->n_weights; i++) {
        uint8_t *r = gb + GRAPH_HEADER + (size_t)g->n_nodes * NODE_RECORD + (size_t)i * WEIGHT_RECORD;
        const i8_weight *w = &g->weights[i];
        memcpy(r, w->name, strnlen(w->name, WEIGHT_NAME - 1));
        put_u32(r + 128, (uint32_t)w->ndim);
        for (int k = 0; k < 4; k++) put_u64(r + 136 + 8 * k, k < w->ndim ? (uint64_t)w->shape[k] : 0);
        put_u32(r + 168, (uint32_t)storage[i]);
        put_u32(r + 172, (uint32_t)scales_of[i]);
        put_u64(r + 176, offs[i]);
        put_u64(r + 184, weight_elems(w) * storage_size(storage[i]));
    }
    out->graph = gb, out->graph_size = gsize;
    out->weights = wb, out->weights_size = wsize;
    gb = NULL, wb = NULL;
done:
    if (codes)
        for (int i = 0; i < g->n_weights; i++) free(codes[i]);
    free(codes);
    free(is_kernel);
    free(gb);
    free(wb);
    free(storage);
    free(scales_of);
    free(is_scale);
    free(offs);
    return s;
}

#define GFAIL(...) i8_fail(err, INFER8_E_FORMAT, __VA_ARGS__)

infer8_status i8_bundle_decode_graph(const uint8_t *gd, size_t gsize, const uint8_t *wd, size_t wsize, i8_graph *g,
                                     i8_err *err) {
    memset(g, 0, sizeof *g);
    g->output = -1;
    if (gsize < GRAPH_HEADER) return GFAIL("section 'graph': %zu bytes, shorter than its %u-byte header", gsize, GRAPH_HEADER);
    uint32_t rv = get_u32(gd), nn = get_u32(gd + 4), nw = get_u32(gd + 8);
    if (rv != 1) return GFAIL("section 'graph': record version %u unknown (expected 1)", rv);
    if (nn < 1 || nn > (1u << 20) || nw > (1u << 20))
        return GFAIL("section 'graph': %u nodes / %u weights out of range", nn, nw);
    uint64_t want = GRAPH_HEADER + (uint64_t)nn * NODE_RECORD + (uint64_t)nw * WEIGHT_RECORD;
    if (want != gsize)
        return GFAIL("section 'graph': size check failed: %u nodes and %u weights need %llu bytes, section has %zu", nn, nw,
                     (unsigned long long)want, gsize);
    if (!memchr(gd + 16, 0, 64)) return GFAIL("section 'graph': arch name not NUL-terminated");
    char arch[64];
    memcpy(arch, gd + 16, 64);
    /* names are echoed in messages and listings: printable UTF-8 only (infer8 writes no other) */
    if (!i8_text_plain(arch)) return GFAIL("section 'graph': arch name is not UTF-8 without control characters");
    int in_c = get_i32(gd + 80), in_h = get_i32(gd + 84), in_w = get_i32(gd + 88);
    if (in_c != 3 || in_h < 1 || in_h > 4096 || in_w < 1 || in_w > 4096)
        return GFAIL("section 'graph': input shape %dx%dx%d out of range", in_c, in_h, in_w);
    infer8_status s = i8_graph_init(g, arch, in_c, in_h, in_w, err);
    if (s) return s;
    g->output = get_i32(gd + 92);
    g->num_classes = get_i32(gd + 96);
    g->checkpoint_parameters = get_u64(gd + 104);
    for (uint32_t i = 0; i < nn; i++) {
        const uint8_t *r = gd + GRAPH_HEADER + (size_t)i * NODE_RECORD;
        i8_node n;
        memset(&n, 0, sizeof n);
        if (!memchr(r, 0, NODE_NAME)) {
            s = GFAIL("section 'graph': node %u: name not NUL-terminated", i);
            goto fail;
        }
        memcpy(n.name, r, NODE_NAME);
        if (!i8_text_plain(n.name)) {
            s = GFAIL("section 'graph': node %u: name is not UTF-8 without control characters", i);
            goto fail;
        }
        int32_t *ints[NODE_INTS];
        float *floats[NODE_FLOATS];
        node_fields(&n, ints, floats);
        for (int k = 0; k < NODE_INTS; k++) *ints[k] = get_i32(r + NODE_NAME + 4 * k);
        for (int k = 0; k < NODE_FLOATS; k++) *floats[k] = get_f32(r + NODE_NAME + 4 * (NODE_INTS + k));
        /* fields i8_graph_validate does not cover, or must see in range before indexing */
        int32_t refs[7] = {n.weight, n.bias, n.bn_gamma, n.bn_beta, n.bn_mean, n.bn_var, n.weight_scales};
        for (int k = 0; k < 7; k++)
            if (refs[k] < -1 || refs[k] >= (int32_t)nw) {
                s = GFAIL("section 'graph': node %u '%s': weight index %d out of range (%u weights)", i, n.name, refs[k], nw);
                goto fail;
            }
        if ((int)n.op < 0 || n.op >= I8_OP_COUNT || (int)n.precision < 0 || n.precision > I8_PREC_FP8 ||
            (n.residual_fp8 != 0 && n.residual_fp8 != 1) || n.residual < -1 || n.residual >= (int32_t)i ||
            !isfinite(n.out_scale) || n.out_scale < 0 || !isfinite(n.residual_scale) || !isfinite(n.bn_eps) ||
            n.c > 65536 || n.h > 65536 || n.w > 65536 || n.kh > 64 || n.kw > 64 || n.sh > 64 || n.sw > 64) {
            s = GFAIL("section 'graph': node %u '%s': a field is out of range (op %d, precision %d, residual %d, "
                      "out_scale %g, shape %dx%dx%d)",
                      i, n.name, (int)n.op, (int)n.precision, n.residual, (double)n.out_scale, n.c, n.h, n.w);
            goto fail;
        }
        if (i == 0) {
            if (n.op != I8_OP_INPUT) {
                s = GFAIL("section 'graph': node 0 '%s' is not the input", n.name);
                goto fail;
            }
            g->nodes[0] = n;
        } else if ((s = i8_graph_add_node(g, &n, NULL, err))) {
            goto fail;
        }
    }
    const uint8_t *wr0 = gd + GRAPH_HEADER + (size_t)nn * NODE_RECORD;
    for (uint32_t i = 0; i < nw; i++) {
        const uint8_t *r = wr0 + (size_t)i * WEIGHT_RECORD;
        char name[WEIGHT_NAME];
        if (!memchr(r, 0, WEIGHT_NAME)) {
            s = GFAIL("section 'graph': weight %u: name not NUL-terminated", i);
            goto fail;
        }
        memcpy(name, r, WEIGHT_NAME);
        if (!i8_text_plain(name)) {
            s = GFAIL("section 'graph': weight %u: name is not UTF-8 without control characters", i);
            goto fail;
        }
        int ndim = get_i32(r + 128);
        int64_t shape[4] = {0};
        uint64_t elems = 1;
        if (ndim < 1 || ndim > 4) {
            s = GFAIL("section 'graph': weight %u '%s': rank %d not in 1..4", i, name, ndim);
            goto fail;
        }
        for (int k = 0; k < ndim; k++) {
            uint64_t d = get_u64(r + 136 + 8 * k);
            if (d < 1 || d > (1u << 24) || elems > (UINT64_C(1) << 32) / d) {
                s = GFAIL("section 'graph': weight %u '%s': dimension %d = %llu out of range", i, name, k,
                          (unsigned long long)d);
                goto fail;
            }
            shape[k] = (int64_t)d;
            elems *= d;
        }
        uint32_t st = get_u32(r + 168);
        int32_t scales = get_i32(r + 172);
        uint64_t off = get_u64(r + 176), bytes = get_u64(r + 184);
        if (st > I8_BUNDLE_E4M3 || bytes != elems * storage_size((int)st) || off % I8_BUNDLE_ALIGN || off > wsize ||
            bytes > wsize - off) {
            s = GFAIL("section 'weights': weight %u '%s': storage %u, %llu bytes at offset %llu: size or bounds check "
                      "failed (%llu elements, section %zu bytes)",
                      i, name, st, (unsigned long long)bytes, (unsigned long long)off, (unsigned long long)elems, wsize);
            goto fail;
        }
        if (st == I8_BUNDLE_E4M3 && (scales < 0 || scales >= (int32_t)nw)) {
            s = GFAIL("section 'graph': weight %u '%s': e4m3 storage without a valid scales index (%d)", i, name, scales);
            goto fail;
        }
        float *data = i8_malloc((size_t)elems * sizeof(float), err);
        if (!data) {
            s = INFER8_E_NOMEM;
            goto fail;
        }
        const uint8_t *p = wd + off;
        if (st == I8_BUNDLE_F32)
            for (uint64_t k = 0; k < elems; k++) data[k] = get_f32(p + 4 * k);
        else if (st == I8_BUNDLE_F16)
            for (uint64_t k = 0; k < elems; k++) data[k] = i8_f16_to_f32((uint16_t)(p[2 * k] | (p[2 * k + 1] << 8)));
        else
            for (uint64_t k = 0; k < elems; k++) data[k] = i8_fp8_to_f32(p[k]); /* scaled below */
        if ((s = i8_graph_add_weight(g, name, ndim, shape, data, NULL, err))) goto fail;
    }
    /* e4m3 tensors: multiply by their per-output-channel scales (exactly as the encoder checked) */
    for (uint32_t i = 0; i < nw; i++) {
        const uint8_t *r = wr0 + (size_t)i * WEIGHT_RECORD;
        if (get_u32(r + 168) != I8_BUNDLE_E4M3) continue;
        int32_t si = get_i32(r + 172);
        const uint8_t *sr = wr0 + (size_t)si * WEIGHT_RECORD;
        i8_weight *w = &g->weights[i], *sw = &g->weights[si];
        if (get_u32(sr + 168) != I8_BUNDLE_F32 || sw->ndim != 1 || sw->shape[0] != w->shape[0]) {
            s = GFAIL("section 'graph': weight %u '%s': scales tensor %d '%s' is not f32 [%lld]", i, w->name, si, sw->name,
                      (long long)w->shape[0]);
            goto fail;
        }
        size_t per = (size_t)(weight_elems(w) / (uint64_t)w->shape[0]);
        for (int64_t o = 0; o < w->shape[0]; o++) {
            float sc = sw->data[o];
            if (!(sc > 0) || !isfinite(sc)) {
                s = GFAIL("section 'graph': weight '%s': scale %lld = %g not positive finite", sw->name, (long long)o,
                          (double)sc);
                goto fail;
            }
            for (size_t k = 0; k < per; k++) w->data[(size_t)o * per + k] *= sc;
        }
    }
    s = i8_graph_validate(g, err);
    if (s) {
        err->code = s = INFER8_E_FORMAT;
        i8_err_prefix(err, "section 'graph': validation failed");
        goto fail;
    }
    for (int i = 0; i < g->n_nodes; i++) {
        const i8_node *n = &g->nodes[i];
        if (n->precision == I8_PREC_FP8 && n->op == I8_OP_CONV && n->weight_scales >= 0) {
            const i8_weight *sw = &g->weights[n->weight_scales];
            if (sw->ndim != 1 || sw->shape[0] != n->c) {
                s = GFAIL("section 'graph': node '%s': weight_scales '%s' is not [%d]", n->name, sw->name, n->c);
                goto fail;
            }
        }
    }
    return INFER8_OK;
fail:
    i8_graph_free(g);
    return s;
}

/* ---- tactics ----
 * u32 version (1), u32 n_sets; per set: char gpu[128], i32 batch, i32 n_nodes, then n_nodes
 * records of 96 bytes: i32 kind, i32 variant, i64 engine, u64 algo[8], f32 ms, u32 flags, u64 workspace
 * (flags were written as 0 before session 27, which still reads as "no graph choice stored"). */
#define TACTIC_RECORD 96u
#define TACTIC_SET_HEADER 136u

infer8_status i8_bundle_encode_tactics(const i8_bundle_tactic_set *sets, int n_sets, uint8_t **out, size_t *size,
                                       i8_err *err) {
    size_t total = 8;
    for (int i = 0; i < n_sets; i++) total += TACTIC_SET_HEADER + (size_t)sets[i].n_nodes * TACTIC_RECORD;
    uint8_t *b = i8_calloc(1, total, err);
    if (!b) return INFER8_E_NOMEM;
    put_u32(b, 1);
    put_u32(b + 4, (uint32_t)n_sets);
    uint8_t *p = b + 8;
    for (int i = 0; i < n_sets; i++) {
        memcpy(p, sets[i].gpu, strnlen(sets[i].gpu, 127));
        put_u32(p + 128, (uint32_t)sets[i].batch);
        put_u32(p + 132, (uint32_t)sets[i].n_nodes);
        p += TACTIC_SET_HEADER;
        for (int k = 0; k < sets[i].n_nodes; k++, p += TACTIC_RECORD) {
            const i8_bundle_tactic *t = &sets[i].tactics[k];
            put_u32(p, (uint32_t)t->kind);
            put_u32(p + 4, (uint32_t)t->variant);
            put_u64(p + 8, (uint64_t)t->engine);
            for (int a = 0; a < 8; a++) put_u64(p + 16 + 8 * a, t->algo[a]);
            put_f32(p + 80, t->ms);
            put_u32(p + 84, t->flags);
            put_u64(p + 88, t->workspace);
        }
    }
    *out = b;
    *size = total;
    return INFER8_OK;
}

void i8_bundle_tactics_free(i8_bundle_tactic_set *sets, int n_sets) {
    if (!sets) return;
    for (int i = 0; i < n_sets; i++) free(sets[i].tactics);
    free(sets);
}

infer8_status i8_bundle_decode_tactics(const uint8_t *d, size_t size, int expect_nodes, i8_bundle_tactic_set **out,
                                       int *n_out, i8_err *err) {
    if (size < 8) return GFAIL("section 'tactics.cuda': %zu bytes, shorter than its header", size);
    uint32_t v = get_u32(d), n = get_u32(d + 4);
    if (v != 1 || n > 64) return GFAIL("section 'tactics.cuda': version %u / %u sets out of range", v, n);
    i8_bundle_tactic_set *sets = i8_calloc(n ? n : 1, sizeof *sets, err);
    if (!sets) return INFER8_E_NOMEM;
    size_t pos = 8;
    infer8_status s = INFER8_OK;
    for (uint32_t i = 0; i < n && !s; i++) {
        if (size - pos < TACTIC_SET_HEADER) {
            s = GFAIL("section 'tactics.cuda': set %u header beyond the section end", i);
            break;
        }
        const uint8_t *p = d + pos;
        if (!memchr(p, 0, 128)) {
            s = GFAIL("section 'tactics.cuda': set %u: GPU name not NUL-terminated", i);
            break;
        }
        memcpy(sets[i].gpu, p, 128);
        sets[i].batch = get_i32(p + 128);
        sets[i].n_nodes = get_i32(p + 132);
        if (sets[i].batch < 1 || sets[i].batch > 4096 || sets[i].n_nodes != expect_nodes) {
            s = GFAIL("section 'tactics.cuda': set %u: batch %d / %d nodes (graph has %d)", i, sets[i].batch,
                      sets[i].n_nodes, expect_nodes);
            break;
        }
        pos += TACTIC_SET_HEADER;
        if ((size - pos) / TACTIC_RECORD < (size_t)sets[i].n_nodes) {
            s = GFAIL("section 'tactics.cuda': set %u: %d records beyond the section end", i, sets[i].n_nodes);
            break;
        }
        sets[i].tactics = i8_calloc((size_t)sets[i].n_nodes + 1, sizeof *sets[i].tactics, err);
        if (!sets[i].tactics) {
            s = INFER8_E_NOMEM;
            break;
        }
        for (int k = 0; k < sets[i].n_nodes; k++, pos += TACTIC_RECORD) {
            const uint8_t *r = d + pos;
            i8_bundle_tactic *t = &sets[i].tactics[k];
            t->kind = get_i32(r);
            t->variant = get_i32(r + 4);
            t->engine = (int64_t)get_u64(r + 8);
            for (int a = 0; a < 8; a++) t->algo[a] = get_u64(r + 16 + 8 * a);
            t->ms = get_f32(r + 80);
            t->flags = get_u32(r + 84);
            t->workspace = get_u64(r + 88);
            if (t->kind < 0 || t->kind > I8_BUNDLE_TACTIC_KIND_MAX) {
                s = GFAIL("section 'tactics.cuda': set %u node %d: tactic kind %d unknown", i, k, t->kind);
                break;
            }
            if (t->flags & ~I8_BUNDLE_TACTIC_FLAGS_KNOWN) {
                s = GFAIL("section 'tactics.cuda': set %u node %d: flags 0x%x unknown (section byte %zu)", i, k, t->flags,
                          pos + 84);
                break;
            }
            if ((t->flags / I8_BUNDLE_TACTIC_FLAG_PAIR_V0 & 15u) > I8_BUNDLE_PAIR_VARIANTS) {
                s = GFAIL("section 'tactics.cuda': set %u node %d: flags 0x%x name pair variant %u, which does not exist "
                          "(section byte %zu)", i, k, t->flags, (t->flags / I8_BUNDLE_TACTIC_FLAG_PAIR_V0 & 15u) - 1u, pos + 84);
                break;
            }
        }
    }
    if (!s && pos != size) s = GFAIL("section 'tactics.cuda': %zu bytes left after the last record", size - pos);
    if (s) {
        i8_bundle_tactics_free(sets, (int)n);
        return s;
    }
    *out = sets;
    *n_out = (int)n;
    return INFER8_OK;
}

/* ---- labels ---- */

infer8_status i8_bundle_encode_labels(const char *const *labels, int n, uint8_t **out, size_t *size, i8_err *err) {
    size_t total = 4;
    for (int i = 0; i < n; i++) total += strlen(labels[i]) + 1;
    uint8_t *b = i8_malloc(total, err);
    if (!b) return INFER8_E_NOMEM;
    put_u32(b, (uint32_t)n);
    size_t pos = 4;
    for (int i = 0; i < n; i++) {
        size_t l = strlen(labels[i]) + 1;
        memcpy(b + pos, labels[i], l);
        pos += l;
    }
    *out = b;
    *size = total;
    return INFER8_OK;
}

infer8_status i8_bundle_decode_labels(const uint8_t *d, size_t size, char ***out, int *n_out, i8_err *err) {
    if (size < 4) return GFAIL("section 'labels': %zu bytes, shorter than its count", size);
    uint32_t n = get_u32(d);
    if (n > 100000 || n > size - 4) return GFAIL("section 'labels': count %u does not fit %zu bytes", n, size);
    char **labels = i8_calloc(n ? n : 1, sizeof *labels, err);
    if (!labels) return INFER8_E_NOMEM;
    size_t pos = 4;
    infer8_status s = INFER8_OK;
    uint32_t i = 0;
    for (; i < n; i++) {
        const uint8_t *z = memchr(d + pos, 0, size - pos);
        if (!z || (size_t)(z - (d + pos)) > 1024) {
            s = GFAIL("section 'labels': label %u at byte %zu not NUL-terminated within 1024 bytes", i, pos);
            break;
        }
        if (!i8_text_plain((const char *)d + pos)) {
            s = GFAIL("section 'labels': label %u at byte %zu is not UTF-8 without control characters", i, pos);
            break;
        }
        labels[i] = i8_strdup((const char *)d + pos, err);
        if (!labels[i]) {
            s = INFER8_E_NOMEM;
            break;
        }
        pos = (size_t)(z - d) + 1;
    }
    if (!s && pos != size) s = GFAIL("section 'labels': %zu bytes left after %u labels", size - pos, n);
    if (s) {
        for (uint32_t k = 0; k < i; k++) free(labels[k]);
        free(labels);
        return s;
    }
    *out = labels;
    *n_out = (int)n;
    return INFER8_OK;
}
