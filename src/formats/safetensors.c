/* safetensors reader (memory-mapped, single file or sharded via model.safetensors.index.json)
 * and writer (header sorted by name, 8-byte padded, atomic). Untrusted input: every header
 * field is validated before any tensor pointer is formed; see safetensors.h for the rules. */
#include "formats/safetensors.h"
#include "formats/formats_util.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const struct {
    const char *name;
    size_t size;
} DTYPES[I8_DTYPE_COUNT] = {
    [I8_DTYPE_F32] = {"F32", 4},     [I8_DTYPE_F16] = {"F16", 2},         [I8_DTYPE_BF16] = {"BF16", 2},
    [I8_DTYPE_F64] = {"F64", 8},     [I8_DTYPE_I64] = {"I64", 8},         [I8_DTYPE_I32] = {"I32", 4},
    [I8_DTYPE_I16] = {"I16", 2},     [I8_DTYPE_I8] = {"I8", 1},           [I8_DTYPE_U8] = {"U8", 1},
    [I8_DTYPE_BOOL] = {"BOOL", 1},   [I8_DTYPE_F8_E4M3] = {"F8_E4M3", 1}, [I8_DTYPE_F8_E5M2] = {"F8_E5M2", 1},
};

const char *i8_dtype_name(i8_dtype d) { return (unsigned)d < I8_DTYPE_COUNT ? DTYPES[d].name : "?"; }

size_t i8_dtype_size(i8_dtype d) { return (unsigned)d < I8_DTYPE_COUNT ? DTYPES[d].size : 0; }

int i8_dtype_from_name(const char *name, i8_dtype *out) {
    for (int i = 0; i < I8_DTYPE_COUNT; i++) {
        if (strcmp(name, DTYPES[i].name) == 0) {
            *out = (i8_dtype)i;
            return 1;
        }
    }
    return 0;
}

uint64_t i8_st_nelems(const i8_st_tensor *t) {
    uint64_t n = 1;
    for (int i = 0; i < t->ndim; i++) n *= (uint64_t)t->shape[i]; /* checked when the header was read */
    return n;
}

/* "[10, 4]" into buf. */
static const char *shape_str(const int64_t *shape, int ndim, char *buf, size_t size) {
    size_t k = (size_t)snprintf(buf, size, "[");
    for (int i = 0; i < ndim && k < size; i++)
        k += (size_t)snprintf(buf + k, size - k, "%s%lld", i ? ", " : "", (long long)shape[i]);
    if (k < size) snprintf(buf + k, size - k, "]");
    return buf;
}

/* ---- reader ---- */

/* Largest integer that a JSON number can carry exactly through a double (2^53 - 1); larger
 * text may have been rounded by the parser, so it is refused rather than trusted. */
#define MAX_EXACT_INT 9007199254740991.0

static int json_uint(const cJSON *item, uint64_t *out) {
    if (!cJSON_IsNumber(item)) return 0;
    double v = item->valuedouble;
    if (!isfinite(v) || v < 0 || v > MAX_EXACT_INT || v != floor(v)) return 0;
    *out = (uint64_t)v;
    return 1;
}

static int cmp_tensor_name(const void *a, const void *b) {
    return strcmp(((const i8_st_tensor *)a)->name, ((const i8_st_tensor *)b)->name);
}

typedef struct span {
    uint64_t begin, end;
    const char *name;
} span;

static int cmp_span(const void *a, const void *b) {
    const span *x = a, *y = b;
    if (x->begin != y->begin) return x->begin < y->begin ? -1 : 1;
    if (x->end != y->end) return x->end < y->end ? -1 : 1;
    return 0;
}

static void free_tensors(i8_st_tensor *t, int n) {
    if (!t) return;
    for (int i = 0; i < n; i++) free(t[i].name);
    free(t);
}

/* Validates one header entry (key already checked) into *t. */
static infer8_status parse_entry(const char *path, const cJSON *e, const char *key, uint64_t data_size,
                                 i8_st_tensor *t, uint64_t *begin_out, i8_err *err) {
    if (!cJSON_IsObject(e))
        return i8_fail(err, INFER8_E_FORMAT, "%s: tensor '%s': entry is not a JSON object", path, key);
    const cJSON *jd = cJSON_GetObjectItemCaseSensitive(e, "dtype");
    const cJSON *js = cJSON_GetObjectItemCaseSensitive(e, "shape");
    const cJSON *jo = cJSON_GetObjectItemCaseSensitive(e, "data_offsets");
    if (!cJSON_IsString(jd))
        return i8_fail(err, INFER8_E_FORMAT, "%s: tensor '%s': \"dtype\" missing or not a string", path, key);
    if (!i8_dtype_from_name(jd->valuestring, &t->dtype)) {
        char shown[128];
        return i8_fail(err, INFER8_E_UNSUPPORTED, "%s: tensor '%s': unknown dtype '%s'", path, key,
                       i8_text_show(jd->valuestring, shown, sizeof shown));
    }
    if (!cJSON_IsArray(js))
        return i8_fail(err, INFER8_E_FORMAT, "%s: tensor '%s': \"shape\" missing or not an array", path, key);
    int rank = cJSON_GetArraySize(js);
    if (rank > I8_ST_MAX_RANK)
        return i8_fail(err, INFER8_E_UNSUPPORTED, "%s: tensor '%s': rank %d above the maximum of %d", path, key,
                       rank, I8_ST_MAX_RANK);
    t->ndim = rank;
    uint64_t nelems = 1;
    int overflow = 0, has_zero = 0;
    for (int i = 0; i < rank; i++) {
        uint64_t d;
        if (!json_uint(cJSON_GetArrayItem(js, i), &d))
            return i8_fail(err, INFER8_E_FORMAT, "%s: tensor '%s': shape[%d] is not a non-negative integer below 2^53",
                           path, key, i);
        t->shape[i] = (int64_t)d;
        if (d == 0) has_zero = 1;
        else if (nelems > UINT64_MAX / d) overflow = 1;
        nelems *= d;
    }
    char sbuf[256];
    size_t dsize = i8_dtype_size(t->dtype);
    /* a zero dimension anywhere makes the count 0, whatever overflowed on the way */
    if (has_zero) nelems = 0;
    else if (overflow || nelems > UINT64_MAX / dsize)
        return i8_fail(err, INFER8_E_FORMAT, "%s: tensor '%s': shape %s: byte count overflows", path, key,
                       shape_str(t->shape, rank, sbuf, sizeof sbuf));
    t->nbytes = nelems * dsize;
    if (!cJSON_IsArray(jo) || cJSON_GetArraySize(jo) != 2)
        return i8_fail(err, INFER8_E_FORMAT, "%s: tensor '%s': \"data_offsets\" missing or not an array of 2 integers",
                       path, key);
    uint64_t off[2];
    for (int i = 0; i < 2; i++) {
        const cJSON *o = cJSON_GetArrayItem(jo, i);
        if (!json_uint(o, &off[i])) {
            if (cJSON_IsNumber(o))
                return i8_fail(err, INFER8_E_FORMAT,
                               "%s: tensor '%s': data_offsets[%d] = %.17g is not a non-negative integer below 2^53",
                               path, key, i, o->valuedouble);
            return i8_fail(err, INFER8_E_FORMAT, "%s: tensor '%s': data_offsets[%d] is not a number", path, key, i);
        }
    }
    if (off[0] > off[1])
        return i8_fail(err, INFER8_E_FORMAT, "%s: tensor '%s': data_offsets [%llu, %llu]: begin after end", path, key,
                       (unsigned long long)off[0], (unsigned long long)off[1]);
    if (off[1] > data_size)
        return i8_fail(err, INFER8_E_FORMAT,
                       "%s: tensor '%s': data_offsets [%llu, %llu]: end is past the data area of %llu bytes", path,
                       key, (unsigned long long)off[0], (unsigned long long)off[1], (unsigned long long)data_size);
    if (off[1] - off[0] != t->nbytes)
        return i8_fail(err, INFER8_E_FORMAT, "%s: tensor '%s': data_offsets [%llu, %llu] give %llu bytes but %s %s needs %llu",
                       path, key, (unsigned long long)off[0], (unsigned long long)off[1],
                       (unsigned long long)(off[1] - off[0]), i8_dtype_name(t->dtype),
                       shape_str(t->shape, rank, sbuf, sizeof sbuf), (unsigned long long)t->nbytes);
    *begin_out = off[0];
    return INFER8_OK;
}

/* Validates the key of a header entry. */
static infer8_status check_key(const char *path, const char *key, i8_err *err) {
    char shown[300];
    size_t len = strlen(key);
    if (len == 0) return i8_fail(err, INFER8_E_FORMAT, "%s: header has an empty tensor name", path);
    if (len > 1024)
        return i8_fail(err, INFER8_E_FORMAT, "%s: tensor '%s': name is %zu bytes, above the maximum of 1024", path,
                       i8_text_show(key, shown, sizeof shown), len);
    /* the header passed i8_json_text_require, but an escaped control character ("\u001b") is
     * valid JSON: refused here, as every name infer8 may print later */
    if (!i8_text_plain(key))
        return i8_fail(err, INFER8_E_FORMAT, "%s: tensor '%s': name is not UTF-8 without control characters", path,
                       i8_text_show(key, shown, sizeof shown));
    return INFER8_OK;
}

/* Parses and validates the header of a mapped file; on success *tensors (sorted by name,
 * names owned) has *n entries pointing into map. */
static infer8_status parse_header(const char *path, const i8_mapped_file *map, const i8_limits *limits, int file_index,
                                  i8_st_tensor **tensors_out, int *n_out, i8_err *err) {
    if (map->size < 8)
        return i8_fail(err, INFER8_E_FORMAT, "%s: file is %zu bytes, too short for the 8-byte header length at offset 0",
                       path, map->size);
    uint64_t hlen = 0;
    for (int i = 7; i >= 0; i--) hlen = (hlen << 8) | map->data[i];
    if (hlen > limits->max_json_bytes)
        return i8_fail(err, INFER8_E_LIMIT, "%s: header length %llu (at offset 0) is above the limit of %llu bytes", path,
                       (unsigned long long)hlen, (unsigned long long)limits->max_json_bytes);
    if (hlen > (uint64_t)map->size - 8)
        return i8_fail(err, INFER8_E_FORMAT,
                       "%s: header length %llu (at offset 0) goes past the end of the file at offset %zu", path,
                       (unsigned long long)hlen, map->size);
    size_t n = (size_t)hlen;
    uint64_t data_size = (uint64_t)map->size - 8 - hlen;
    /* cJSON gets a private NUL-terminated copy: it never reads near the end of the mapping */
    char *text = i8_malloc(n + 1, err);
    if (!text) return INFER8_E_NOMEM;
    memcpy(text, map->data + 8, n);
    text[n] = 0;
    infer8_status checked = i8_json_text_require(text, n, path, 8, err); /* offsets in the file */
    if (checked) {
        free(text);
        return checked;
    }
    const char *end = NULL;
    cJSON *root = cJSON_ParseWithLengthOpts(text, n, &end, 0);
    if (!root) {
        size_t at = end ? (size_t)(end - text) : 0;
        free(text);
        return i8_fail(err, INFER8_E_FORMAT, "%s: header JSON is malformed at header byte %zu (file offset %zu)", path,
                       at, at + 8);
    }
    infer8_status s = INFER8_OK;
    i8_st_tensor *tensors = NULL;
    span *spans = NULL;
    int count = 0;
    size_t trail = i8_fmt_trailing_garbage(text, n, (size_t)(end - text));
    if (trail != SIZE_MAX) {
        s = i8_fail(err, INFER8_E_FORMAT, "%s: unexpected text after the header JSON at file offset %zu", path, trail + 8);
        goto done;
    }
    if (!cJSON_IsObject(root)) {
        s = i8_fail(err, INFER8_E_FORMAT, "%s: header (file offset 8) is not a JSON object", path);
        goto done;
    }
    uint64_t total = 0;
    int n_meta = 0;
    for (const cJSON *c = root->child; c; c = c->next) {
        if (strcmp(c->string, "__metadata__") == 0) {
            if (++n_meta > 1) {
                s = i8_fail(err, INFER8_E_FORMAT, "%s: \"__metadata__\" appears twice in the header", path);
                goto done;
            }
        } else {
            total++;
        }
    }
    if (total > limits->max_tensors || total > INT32_MAX) {
        s = i8_fail(err, INFER8_E_LIMIT, "%s: header lists %llu tensors, above the limit of %llu", path,
                    (unsigned long long)total, (unsigned long long)limits->max_tensors);
        goto done;
    }
    tensors = i8_calloc((size_t)total, sizeof *tensors, err);
    spans = i8_calloc((size_t)total, sizeof *spans, err);
    if (!tensors || !spans) {
        s = INFER8_E_NOMEM;
        goto done;
    }
    for (const cJSON *c = root->child; c; c = c->next) {
        if (strcmp(c->string, "__metadata__") == 0) continue; /* ignored whatever it holds */
        if ((s = check_key(path, c->string, err))) goto done;
        i8_st_tensor *t = &tensors[count];
        uint64_t begin = 0;
        if ((s = parse_entry(path, c, c->string, data_size, t, &begin, err))) goto done;
        if (!(t->name = i8_strdup(c->string, err))) {
            s = INFER8_E_NOMEM;
            goto done;
        }
        count++;
        t->file_offset = 8 + hlen + begin;
        t->data = map->data + t->file_offset;
        t->file_index = file_index;
        spans[count - 1] = (span){begin, begin + t->nbytes, t->name};
    }
    qsort(spans, (size_t)count, sizeof *spans, cmp_span);
    uint64_t reach = 0;             /* furthest end of the non-empty tensors so far */
    const char *reach_name = NULL;
    for (int i = 0; i < count; i++) {
        if (spans[i].begin == spans[i].end) continue; /* empty tensors occupy no bytes */
        if (reach_name && spans[i].begin < reach) {
            s = i8_fail(err, INFER8_E_FORMAT,
                        "%s: tensor '%s': data_offsets [%llu, %llu] overlap tensor '%s' (data ends at %llu)", path,
                        spans[i].name, (unsigned long long)spans[i].begin, (unsigned long long)spans[i].end,
                        reach_name, (unsigned long long)reach);
            goto done;
        }
        if (spans[i].end > reach) {
            reach = spans[i].end;
            reach_name = spans[i].name;
        }
    }
    qsort(tensors, (size_t)count, sizeof *tensors, cmp_tensor_name);
    for (int i = 1; i < count; i++) {
        if (strcmp(tensors[i - 1].name, tensors[i].name) == 0) {
            s = i8_fail(err, INFER8_E_FORMAT, "%s: tensor '%s' appears twice in the header", path, tensors[i].name);
            goto done;
        }
    }
done:
    cJSON_Delete(root);
    free(text);
    free(spans);
    if (s) {
        free_tensors(tensors, count);
        return s;
    }
    *tensors_out = tensors;
    *n_out = count;
    return INFER8_OK;
}

infer8_status i8_st_open(i8_safetensors *st, const char *path, const i8_limits *limits, i8_err *err) {
    i8_limits def;
    if (!limits) {
        i8_limits_default(&def);
        limits = &def;
    }
    i8_mapped_file *files = i8_calloc(1, sizeof *files, err);
    if (!files) return INFER8_E_NOMEM;
    infer8_status s = i8_map_file(path, &files[0], err);
    if (s) {
        free(files);
        return s;
    }
    i8_st_tensor *tensors = NULL;
    int n = 0;
    if ((s = parse_header(path, &files[0], limits, 0, &tensors, &n, err))) {
        i8_unmap_file(&files[0]);
        free(files);
        return s;
    }
    st->n_files = 1;
    st->files = files;
    st->n_tensors = n;
    st->tensors = tensors;
    return INFER8_OK;
}

void i8_st_close(i8_safetensors *st) {
    if (!st) return;
    free_tensors(st->tensors, st->n_tensors);
    for (int i = 0; i < st->n_files; i++) i8_unmap_file(&st->files[i]);
    free(st->files);
    memset(st, 0, sizeof *st);
}

const i8_st_tensor *i8_st_find(const i8_safetensors *st, const char *name) {
    int lo = 0, hi = st->n_tensors - 1;
    while (lo <= hi) {
        int mid = lo + (hi - lo) / 2;
        int c = strcmp(st->tensors[mid].name, name);
        if (c == 0) return &st->tensors[mid];
        if (c < 0) lo = mid + 1;
        else hi = mid - 1;
    }
    return NULL;
}

/* ---- sharded checkpoints ---- */

typedef struct shard_list {
    char **names;
    int n;
} shard_list;

static int shard_index(const shard_list *l, const char *name) {
    for (int i = 0; i < l->n; i++)
        if (strcmp(l->names[i], name) == 0) return i;
    return -1;
}

/* A shard must be a plain file name next to the index: no folder parts, no "..". */
static int plain_file_name(const char *s) {
    return s[0] && strcmp(s, ".") != 0 && !strchr(s, '/') && !strchr(s, '\\') && !strstr(s, "..");
}

static char *join_dir(const char *index_path, const char *name, i8_err *err) {
    const char *slash = strrchr(index_path, '/');
    size_t dlen = slash ? (size_t)(slash - index_path) + 1 : 0;
    size_t total = dlen + strlen(name) + 1;
    char *p = i8_malloc(total, err);
    if (p) {
        memcpy(p, index_path, dlen);
        strcpy(p + dlen, name);
    }
    return p;
}

infer8_status i8_st_open_index(i8_safetensors *st, const char *index_path, const i8_limits *limits, i8_err *err) {
    i8_limits def;
    if (!limits) {
        i8_limits_default(&def);
        limits = &def;
    }
    uint8_t *text = NULL;
    size_t size = 0;
    infer8_status s = i8_read_file(index_path, limits->max_json_bytes, &text, &size, err);
    if (!s && (s = i8_json_text_require((const char *)text, size, index_path, 0, err))) free(text);
    if (s) return s;
    const char *end = NULL;
    cJSON *root = cJSON_ParseWithLengthOpts((const char *)text, size, &end, 0);
    shard_list shards = {0};
    i8_mapped_file *files = NULL;
    i8_st_tensor *all = NULL;
    int n_all = 0, n_open = 0;
    if (!root) {
        s = i8_fail(err, INFER8_E_FORMAT, "%s: malformed JSON at byte offset %zu", index_path,
                    end ? (size_t)(end - (const char *)text) : 0);
        goto done;
    }
    size_t trail = i8_fmt_trailing_garbage((const char *)text, size, (size_t)(end - (const char *)text));
    if (trail != SIZE_MAX) {
        s = i8_fail(err, INFER8_E_FORMAT, "%s: unexpected text after the JSON at byte offset %zu", index_path, trail);
        goto done;
    }
    const cJSON *wm = cJSON_IsObject(root) ? cJSON_GetObjectItemCaseSensitive(root, "weight_map") : NULL;
    if (!cJSON_IsObject(wm)) {
        s = i8_fail(err, INFER8_E_FORMAT, "%s: \"weight_map\" missing or not an object", index_path);
        goto done;
    }
    int n_keys = 0;
    for (const cJSON *c = wm->child; c; c = c->next) {
        char shown[128];
        if (!cJSON_IsString(c)) {
            s = i8_fail(err, INFER8_E_FORMAT, "%s: weight_map['%s']: expected a shard file name string", index_path,
                        i8_text_show(c->string, shown, sizeof shown));
            goto done;
        }
        if (!plain_file_name(c->valuestring)) {
            char shown2[128];
            s = i8_fail(err, INFER8_E_FORMAT, "%s: weight_map['%s']: shard '%s' is not a plain file name", index_path,
                        i8_text_show(c->string, shown, sizeof shown), i8_text_show(c->valuestring, shown2, sizeof shown2));
            goto done;
        }
        if ((uint64_t)++n_keys > limits->max_tensors) {
            s = i8_fail(err, INFER8_E_LIMIT, "%s: weight_map has more than %llu keys", index_path,
                        (unsigned long long)limits->max_tensors);
            goto done;
        }
        if (shard_index(&shards, c->valuestring) < 0) {
            char **grown = i8_realloc(shards.names, sizeof(char *) * (size_t)(shards.n + 1), err);
            if (!grown) {
                s = INFER8_E_NOMEM;
                goto done;
            }
            shards.names = grown;
            if (!(shards.names[shards.n] = i8_strdup(c->valuestring, err))) {
                s = INFER8_E_NOMEM;
                goto done;
            }
            shards.n++;
        }
    }
    if (shards.n == 0) {
        s = i8_fail(err, INFER8_E_FORMAT, "%s: weight_map is empty", index_path);
        goto done;
    }
    if (!(files = i8_calloc((size_t)shards.n, sizeof *files, err))) {
        s = INFER8_E_NOMEM;
        goto done;
    }
    for (int i = 0; i < shards.n; i++) {
        char *path = join_dir(index_path, shards.names[i], err);
        if (!path) {
            s = INFER8_E_NOMEM;
            goto done;
        }
        i8_st_tensor *part = NULL;
        int n_part = 0;
        s = i8_map_file(path, &files[i], err);
        if (!s) {
            n_open++;
            s = parse_header(path, &files[i], limits, i, &part, &n_part, err);
        }
        free(path);
        if (s) goto done;
        i8_st_tensor *grown = i8_realloc(all, sizeof *all * ((size_t)n_all + (size_t)n_part), err);
        if (!grown) {
            free_tensors(part, n_part);
            s = INFER8_E_NOMEM;
            goto done;
        }
        all = grown;
        memcpy(all + n_all, part, sizeof *part * (size_t)n_part);
        n_all += n_part;
        free(part); /* names moved into all */
    }
    qsort(all, (size_t)n_all, sizeof *all, cmp_tensor_name);
    for (int i = 1; i < n_all; i++) {
        if (strcmp(all[i - 1].name, all[i].name) == 0) {
            char shown[300], shown_a[128], shown_b[128];
            s = i8_fail(err, INFER8_E_FORMAT, "%s: tensor '%s' is in two shards, '%s' and '%s'", index_path,
                        i8_text_show(all[i].name, shown, sizeof shown),
                        i8_text_show(shards.names[all[i - 1].file_index], shown_a, sizeof shown_a),
                        i8_text_show(shards.names[all[i].file_index], shown_b, sizeof shown_b));
            goto done;
        }
    }
    i8_safetensors merged = {.n_files = shards.n, .files = files, .n_tensors = n_all, .tensors = all};
    for (const cJSON *c = wm->child; c; c = c->next) {
        const i8_st_tensor *t = i8_st_find(&merged, c->string);
        if (!t || strcmp(shards.names[t->file_index], c->valuestring) != 0) {
            char shown[300], shown_shard[128], shown_found[128]; /* names from the file: shown escaped */
            s = i8_fail(err, INFER8_E_MISSING_KEY, "%s: tensor '%s' is not in its shard '%s'%s%s%s", index_path,
                        i8_text_show(c->string, shown, sizeof shown),
                        i8_text_show(c->valuestring, shown_shard, sizeof shown_shard), t ? " (found in '" : "",
                        t ? i8_text_show(shards.names[t->file_index], shown_found, sizeof shown_found) : "",
                        t ? "')" : "");
            goto done;
        }
    }
done:
    cJSON_Delete(root);
    free(text);
    for (int i = 0; i < shards.n; i++) free(shards.names[i]);
    free(shards.names);
    if (s) {
        free_tensors(all, n_all);
        for (int i = 0; i < n_open; i++) i8_unmap_file(&files[i]);
        free(files);
        return s;
    }
    st->n_files = n_open;
    st->files = files;
    st->n_tensors = n_all;
    st->tensors = all;
    return INFER8_OK;
}

/* ---- conversion ---- */

infer8_status i8_st_to_f32(const i8_st_tensor *t, float **out, i8_err *err) {
    if (t->dtype != I8_DTYPE_F32 && t->dtype != I8_DTYPE_F16 && t->dtype != I8_DTYPE_BF16 && t->dtype != I8_DTYPE_F64)
        return i8_fail(err, INFER8_E_SHAPE, "tensor '%s': dtype %s not a float type", t->name, i8_dtype_name(t->dtype));
    size_t n = (size_t)(t->nbytes / i8_dtype_size(t->dtype));
    float *f = i8_malloc(n * sizeof(float), err); /* n * 4 <= nbytes for F32/F64; 2 * nbytes for halves */
    if (!f) return INFER8_E_NOMEM;
    const uint8_t *p = t->data; /* may be unaligned: memcpy each element */
    switch (t->dtype) {
    case I8_DTYPE_F32:
        memcpy(f, p, n * sizeof(float));
        break;
    case I8_DTYPE_F64:
        for (size_t i = 0; i < n; i++) {
            double d;
            memcpy(&d, p + 8 * i, 8);
            f[i] = (float)d;
        }
        break;
    case I8_DTYPE_F16:
    case I8_DTYPE_BF16:
        for (size_t i = 0; i < n; i++) {
            uint16_t h = (uint16_t)(p[2 * i] | (p[2 * i + 1] << 8));
            f[i] = t->dtype == I8_DTYPE_F16 ? i8_f16_to_f32(h) : i8_bf16_to_f32(h);
        }
        break;
    default:
        break;
    }
    *out = f;
    return INFER8_OK;
}

/* ---- writer ---- */

static void puts_(i8_strbuf *b, const char *s) { i8_strbuf_append(b, s, strlen(s)); }

static void putu(i8_strbuf *b, uint64_t v) { i8_strbuf_printf(b, "%llu", (unsigned long long)v); }

/* JSON string as serde_json writes it: ", \\ and control characters escaped, UTF-8 kept. */
static void put_json_string(i8_strbuf *b, const char *s) {
    static const char hex[] = "0123456789abcdef";
    i8_strbuf_append(b, "\"", 1);
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        char e[7] = {'\\', 0};
        switch (*p) {
        case '"': e[1] = '"'; i8_strbuf_append(b, e, 2); break;
        case '\\': e[1] = '\\'; i8_strbuf_append(b, e, 2); break;
        case '\n': e[1] = 'n'; i8_strbuf_append(b, e, 2); break;
        case '\r': e[1] = 'r'; i8_strbuf_append(b, e, 2); break;
        case '\t': e[1] = 't'; i8_strbuf_append(b, e, 2); break;
        case '\b': e[1] = 'b'; i8_strbuf_append(b, e, 2); break;
        case '\f': e[1] = 'f'; i8_strbuf_append(b, e, 2); break;
        default:
            if (*p < 0x20) {
                memcpy(e, "\\u00", 4);
                e[4] = hex[*p >> 4];
                e[5] = hex[*p & 15];
                i8_strbuf_append(b, e, 6);
            } else {
                i8_strbuf_append(b, (const char *)p, 1);
            }
        }
    }
    i8_strbuf_append(b, "\"", 1);
}

typedef struct named_index {
    const char *name;
    int index;
} named_index;

static int cmp_named(const void *a, const void *b) {
    return strcmp(((const named_index *)a)->name, ((const named_index *)b)->name);
}

/* {"k":"v",...} with keys sorted, from a JSON object of strings. */
static infer8_status put_metadata(i8_strbuf *b, const char *path, const char *metadata_json, i8_err *err) {
    cJSON *m = cJSON_Parse(metadata_json);
    if (!cJSON_IsObject(m)) {
        cJSON_Delete(m);
        return i8_fail(err, INFER8_E_INVALID_ARGUMENT, "%s: metadata is not a JSON object", path);
    }
    int n = cJSON_GetArraySize(m);
    const cJSON **items = i8_calloc((size_t)n, sizeof *items, err);
    if (!items) {
        cJSON_Delete(m);
        return INFER8_E_NOMEM;
    }
    int k = 0;
    for (const cJSON *c = m->child; c; c = c->next) items[k++] = c;
    /* insertion sort by key: metadata holds a handful of entries */
    for (int i = 1; i < n; i++) {
        const cJSON *x = items[i];
        int j = i - 1;
        while (j >= 0 && strcmp(items[j]->string, x->string) > 0) {
            items[j + 1] = items[j];
            j--;
        }
        items[j + 1] = x;
    }
    infer8_status s = INFER8_OK;
    puts_(b, "{");
    for (int i = 0; i < n; i++) {
        if (!cJSON_IsString(items[i]) || (i > 0 && strcmp(items[i - 1]->string, items[i]->string) == 0)) {
            s = i8_fail(err, INFER8_E_INVALID_ARGUMENT, "%s: metadata key '%s' is repeated or its value is not a string",
                        path, items[i]->string);
            break;
        }
        if (i) puts_(b, ",");
        put_json_string(b, items[i]->string);
        puts_(b, ":");
        put_json_string(b, items[i]->valuestring);
    }
    puts_(b, "}");
    free(items);
    cJSON_Delete(m);
    return s;
}

infer8_status i8_st_write(const char *path, const i8_st_write_entry *entries, int n, const char *metadata_json,
                          i8_err *err) {
    if (n < 0 || (n > 0 && !entries)) return i8_fail(err, INFER8_E_INVALID_ARGUMENT, "%s: bad tensor list", path);
    uint64_t *offs = i8_calloc((size_t)n + 1, sizeof *offs, err); /* entry i spans [offs[i], offs[i+1]) */
    named_index *sorted = offs ? i8_calloc((size_t)n, sizeof *sorted, err) : NULL;
    i8_strbuf b = {0};
    infer8_status s = INFER8_OK;
    if (!offs || !sorted) {
        s = INFER8_E_NOMEM;
        goto done;
    }
    for (int i = 0; i < n; i++) {
        const i8_st_write_entry *e = &entries[i];
        if (!e->name || !e->name[0] || strlen(e->name) > 1024 || i8_utf8_check(e->name, strlen(e->name)) != SIZE_MAX ||
            strcmp(e->name, "__metadata__") == 0) {
            s = i8_fail(err, INFER8_E_INVALID_ARGUMENT, "%s: entry %d: invalid tensor name", path, i);
            goto done;
        }
        if ((unsigned)e->dtype >= I8_DTYPE_COUNT || e->ndim < 0 || e->ndim > I8_ST_MAX_RANK || (e->ndim && !e->shape)) {
            s = i8_fail(err, INFER8_E_INVALID_ARGUMENT, "%s: tensor '%s': invalid dtype or rank", path, e->name);
            goto done;
        }
        size_t count = i8_dtype_size(e->dtype);
        for (int d = 0; d < e->ndim; d++) {
            if (e->shape[d] < 0 || !i8_mul_size(count, (size_t)e->shape[d], &count)) {
                s = i8_fail(err, INFER8_E_INVALID_ARGUMENT, "%s: tensor '%s': invalid shape", path, e->name);
                goto done;
            }
        }
        if (count && !e->data) {
            s = i8_fail(err, INFER8_E_INVALID_ARGUMENT, "%s: tensor '%s': no data", path, e->name);
            goto done;
        }
        if (offs[i] + count < offs[i]) {
            s = i8_fail(err, INFER8_E_INVALID_ARGUMENT, "%s: total data size overflows", path);
            goto done;
        }
        offs[i + 1] = offs[i] + count;
        sorted[i] = (named_index){e->name, i};
    }
    qsort(sorted, (size_t)n, sizeof *sorted, cmp_named);
    for (int i = 1; i < n; i++) {
        if (strcmp(sorted[i - 1].name, sorted[i].name) == 0) {
            s = i8_fail(err, INFER8_E_INVALID_ARGUMENT, "%s: tensor '%s' given twice", path, sorted[i].name);
            goto done;
        }
    }
    /* compact JSON as the Python library (serde_json) writes it */
    puts_(&b, "{");
    if (metadata_json) {
        puts_(&b, "\"__metadata__\":");
        if ((s = put_metadata(&b, path, metadata_json, err))) goto done;
    }
    for (int k = 0; k < n; k++) {
        const i8_st_write_entry *e = &entries[sorted[k].index];
        if (k || metadata_json) puts_(&b, ",");
        put_json_string(&b, e->name);
        puts_(&b, ":{\"dtype\":\"");
        puts_(&b, i8_dtype_name(e->dtype));
        puts_(&b, "\",\"shape\":[");
        for (int d = 0; d < e->ndim; d++) {
            if (d) puts_(&b, ",");
            putu(&b, (uint64_t)e->shape[d]);
        }
        puts_(&b, "],\"data_offsets\":[");
        putu(&b, offs[sorted[k].index]);
        puts_(&b, ",");
        putu(&b, offs[sorted[k].index + 1]);
        puts_(&b, "]}");
    }
    puts_(&b, "}");
    while (!b.oom && b.len % 8) puts_(&b, " "); /* data starts 8-byte aligned */
    if (b.oom) {
        s = i8_fail(err, INFER8_E_NOMEM, "%s: out of memory building the header", path);
        goto done;
    }
    uint8_t len8[8];
    for (int i = 0; i < 8; i++) len8[i] = (uint8_t)((uint64_t)b.len >> (8 * i));
    i8_atomic_file f;
    if ((s = i8_atomic_open(&f, path, err))) goto done;
    s = i8_atomic_write(&f, len8, 8, err);
    if (!s) s = i8_atomic_write(&f, b.s, b.len, err);
    for (int i = 0; i < n && !s; i++) s = i8_atomic_write(&f, entries[i].data, (size_t)(offs[i + 1] - offs[i]), err);
    if (s) i8_atomic_abort(&f);
    else s = i8_atomic_commit(&f, err);
done:
    free(offs);
    free(sorted);
    free(b.s);
    return s;
}
