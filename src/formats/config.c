/* timm config.json reader/writer (architecture, classes, pretrained_cfg preprocessing, label
 * names) and the float32 .npy reader/writer used for golden tensors. The JSON reader type-checks
 * every field it uses and names the dotted key at fault; fields it does not use are ignored. */
#include "formats/config.h"
#include "formats/formats_util.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- config.json reader ---- */

#define MAX_CLASSES 100000
#define MAX_LABEL_BYTES 1024

static const char *type_name(const cJSON *j) {
    if (cJSON_IsString(j)) return "string";
    if (cJSON_IsNumber(j)) return "number";
    if (cJSON_IsObject(j)) return "object";
    if (cJSON_IsArray(j)) return "array";
    if (cJSON_IsBool(j)) return "boolean";
    if (cJSON_IsNull(j)) return "null";
    return "invalid value";
}

static infer8_status wrong_type(const char *name, const char *key, const char *expected, const cJSON *j, i8_err *err) {
    return i8_fail(err, INFER8_E_FORMAT, "%s: %s: expected %s, found %s", name, key, expected, type_name(j));
}

static infer8_status get_int(const char *name, const char *key, const cJSON *j, int lo, int hi, int *out, i8_err *err) {
    if (!cJSON_IsNumber(j)) return wrong_type(name, key, "an integer", j, err);
    if (!i8_double_to_int(j->valuedouble, lo, hi, out))
        return i8_fail(err, INFER8_E_FORMAT, "%s: %s: expected an integer in [%d, %d], found %.17g", name, key, lo, hi,
                       j->valuedouble);
    return INFER8_OK;
}

/* A short string into out[size] (< size bytes). */
static infer8_status get_short_string(const char *name, const char *key, const cJSON *j, char *out, size_t size,
                                      int allow_empty, i8_err *err) {
    if (!cJSON_IsString(j)) return wrong_type(name, key, "a string", j, err);
    size_t len = strlen(j->valuestring);
    if (len >= size || (!allow_empty && len == 0) || !i8_text_plain(j->valuestring)) { /* printed later */
        char shown[96];
        return i8_fail(err, INFER8_E_FORMAT,
                       "%s: %s: expected a%s UTF-8 string below %zu bytes, without control characters, found '%s'", name,
                       key, allow_empty ? "" : " non-empty", size, i8_text_show(j->valuestring, shown, sizeof shown));
    }
    memcpy(out, j->valuestring, len + 1);
    return INFER8_OK;
}

/* Exactly 3 finite numbers; positive if `positive`. */
static infer8_status get_triple(const char *name, const char *key, const cJSON *j, int positive, float out[3],
                                i8_err *err) {
    if (!cJSON_IsArray(j) || cJSON_GetArraySize(j) != 3) {
        if (cJSON_IsArray(j))
            return i8_fail(err, INFER8_E_FORMAT, "%s: %s: expected 3 numbers, found %d", name, key,
                           cJSON_GetArraySize(j));
        return wrong_type(name, key, "an array of 3 numbers", j, err);
    }
    for (int i = 0; i < 3; i++) {
        const cJSON *v = cJSON_GetArrayItem(j, i);
        if (!cJSON_IsNumber(v))
            return i8_fail(err, INFER8_E_FORMAT, "%s: %s[%d]: expected a number, found %s", name, key, i, type_name(v));
        double d = v->valuedouble;
        if (!isfinite(d) || fabs(d) > 1e30 || (positive && !(d > 0)))
            return i8_fail(err, INFER8_E_FORMAT, "%s: %s[%d]: expected a finite%s number, found %.17g", name, key, i,
                           positive ? " positive" : "", d);
        out[i] = (float)d;
    }
    return INFER8_OK;
}

static void free_labels(char **labels, int n) {
    if (!labels) return;
    for (int i = 0; i < n; i++) free(labels[i]);
    free(labels);
}

static infer8_status parse_pretrained(const char *name, const cJSON *pc, i8_model_config *c, int *pc_classes,
                                      i8_err *err) {
    infer8_status s;
    const cJSON *j;
    if ((j = cJSON_GetObjectItemCaseSensitive(pc, "tag")) &&
        (s = get_short_string(name, "pretrained_cfg.tag", j, c->tag, sizeof c->tag, 1, err)))
        return s;
    if ((j = cJSON_GetObjectItemCaseSensitive(pc, "num_classes")) &&
        (s = get_int(name, "pretrained_cfg.num_classes", j, 1, MAX_CLASSES, pc_classes, err)))
        return s;
    if ((j = cJSON_GetObjectItemCaseSensitive(pc, "input_size"))) {
        if (!cJSON_IsArray(j)) return wrong_type(name, "pretrained_cfg.input_size", "an array [3, H, W]", j, err);
        if (cJSON_GetArraySize(j) != 3)
            return i8_fail(err, INFER8_E_FORMAT, "%s: pretrained_cfg.input_size: expected [3, H, W], found %d entries",
                           name, cJSON_GetArraySize(j));
        static const char *const keys[3] = {"pretrained_cfg.input_size[0]", "pretrained_cfg.input_size[1]",
                                            "pretrained_cfg.input_size[2]"};
        int v[3];
        for (int i = 0; i < 3; i++) {
            int lo = i == 0 ? 3 : 75, hi = i == 0 ? 3 : 4096;
            if ((s = get_int(name, keys[i], cJSON_GetArrayItem(j, i), lo, hi, &v[i], err))) return s;
        }
        memcpy(c->pre.input_size, v, sizeof v);
    }
    if ((j = cJSON_GetObjectItemCaseSensitive(pc, "crop_pct"))) {
        if (!cJSON_IsNumber(j)) return wrong_type(name, "pretrained_cfg.crop_pct", "a number", j, err);
        if (!(j->valuedouble > 0 && j->valuedouble <= 1))
            return i8_fail(err, INFER8_E_FORMAT, "%s: pretrained_cfg.crop_pct: expected a number in (0, 1], found %.17g",
                           name, j->valuedouble);
        c->pre.crop_pct = (float)j->valuedouble;
    }
    if ((j = cJSON_GetObjectItemCaseSensitive(pc, "interpolation"))) {
        if (!cJSON_IsString(j)) return wrong_type(name, "pretrained_cfg.interpolation", "a string", j, err);
        if (strcmp(j->valuestring, "bicubic") == 0) c->pre.interpolation = I8_INTERP_BICUBIC;
        else if (strcmp(j->valuestring, "bilinear") == 0) c->pre.interpolation = I8_INTERP_BILINEAR;
        else {
            char shown[96];
            return i8_fail(err, INFER8_E_UNSUPPORTED,
                           "%s: pretrained_cfg.interpolation: '%s' is not supported (bicubic or bilinear)", name,
                           i8_text_show(j->valuestring, shown, sizeof shown));
        }
    }
    if ((j = cJSON_GetObjectItemCaseSensitive(pc, "crop_mode"))) {
        if (!cJSON_IsString(j)) return wrong_type(name, "pretrained_cfg.crop_mode", "a string", j, err);
        if (strcmp(j->valuestring, "center") != 0) {
            char shown[96];
            return i8_fail(err, INFER8_E_UNSUPPORTED, "%s: pretrained_cfg.crop_mode: '%s' is not supported (center)",
                           name, i8_text_show(j->valuestring, shown, sizeof shown));
        }
    }
    if ((j = cJSON_GetObjectItemCaseSensitive(pc, "mean")) &&
        (s = get_triple(name, "pretrained_cfg.mean", j, 0, c->pre.mean, err)))
        return s;
    if ((j = cJSON_GetObjectItemCaseSensitive(pc, "std")) &&
        (s = get_triple(name, "pretrained_cfg.std", j, 1, c->pre.std, err)))
        return s;
    return INFER8_OK;
}

static infer8_status parse_labels(const char *name, const cJSON *j, int num_classes, char ***out, i8_err *err) {
    if (!cJSON_IsArray(j)) return wrong_type(name, "label_names", "an array of strings", j, err);
    int n = cJSON_GetArraySize(j);
    if (n != num_classes)
        return i8_fail(err, INFER8_E_FORMAT, "%s: label_names: %d names for %d classes", name, n, num_classes);
    char **labels = i8_calloc((size_t)n, sizeof *labels, err);
    if (!labels) return INFER8_E_NOMEM;
    int i = 0;
    for (const cJSON *v = j->child; v; v = v->next, i++) {
        if (!cJSON_IsString(v)) {
            free_labels(labels, i);
            return i8_fail(err, INFER8_E_FORMAT, "%s: label_names[%d]: expected a string, found %s", name, i,
                           type_name(v));
        }
        size_t len = strlen(v->valuestring);
        if (len > MAX_LABEL_BYTES || !i8_text_plain(v->valuestring)) { /* labels are printed as they are */
            free_labels(labels, i);
            return i8_fail(err, INFER8_E_FORMAT,
                           "%s: label_names[%d]: not UTF-8 without control characters of at most %d bytes (%zu bytes)",
                           name, i, MAX_LABEL_BYTES, len);
        }
        if (!(labels[i] = i8_strdup(v->valuestring, err))) {
            free_labels(labels, i);
            return INFER8_E_NOMEM;
        }
    }
    *out = labels;
    return INFER8_OK;
}

infer8_status i8_config_parse(i8_model_config *cfg, const char *text, size_t size, const char *name, i8_err *err) {
    /* private NUL-terminated copy: the caller's text need not be terminated */
    char *copy = i8_malloc(size + 1, err);
    if (!copy) return INFER8_E_NOMEM;
    memcpy(copy, text, size);
    copy[size] = 0;
    infer8_status s = i8_json_text_require(copy, size, name, 0, err);
    if (s) {
        free(copy);
        return s;
    }
    const char *end = NULL;
    cJSON *root = cJSON_ParseWithLengthOpts(copy, size, &end, 0);
    i8_model_config c = *cfg; /* *cfg changes only on success */
    char **labels = NULL;
    const cJSON *j;
    if (!root) {
        s = i8_fail(err, INFER8_E_FORMAT, "%s: malformed JSON at byte offset %zu", name,
                    end ? (size_t)(end - copy) : 0);
        goto done;
    }
    size_t trail = i8_fmt_trailing_garbage(copy, size, (size_t)(end - copy));
    if (trail != SIZE_MAX) {
        s = i8_fail(err, INFER8_E_FORMAT, "%s: malformed JSON: unexpected text at byte offset %zu", name, trail);
        goto done;
    }
    if (!cJSON_IsObject(root)) {
        s = i8_fail(err, INFER8_E_FORMAT, "%s: expected a JSON object, found %s", name, type_name(root));
        goto done;
    }
    j = cJSON_GetObjectItemCaseSensitive(root, "architecture");
    if (!j) {
        s = i8_fail(err, INFER8_E_MISSING_KEY, "%s: architecture: missing", name);
        goto done;
    }
    if ((s = get_short_string(name, "architecture", j, c.architecture, sizeof c.architecture, 0, err))) goto done;
    if ((j = cJSON_GetObjectItemCaseSensitive(root, "num_features")) &&
        (s = get_int(name, "num_features", j, 0, 1 << 20, &c.num_features, err)))
        goto done;
    int pc_classes = 0;
    if ((j = cJSON_GetObjectItemCaseSensitive(root, "pretrained_cfg"))) {
        if (!cJSON_IsObject(j)) {
            s = wrong_type(name, "pretrained_cfg", "an object", j, err);
            goto done;
        }
        if ((s = parse_pretrained(name, j, &c, &pc_classes, err))) goto done;
    }
    if ((j = cJSON_GetObjectItemCaseSensitive(root, "num_classes"))) {
        if ((s = get_int(name, "num_classes", j, 1, MAX_CLASSES, &c.num_classes, err))) goto done;
    } else if (pc_classes) {
        c.num_classes = pc_classes;
    }
    if (c.num_classes < 1 || c.num_classes > MAX_CLASSES) {
        s = i8_fail(err, INFER8_E_FORMAT, "%s: num_classes: missing (no default given)", name);
        goto done;
    }
    if ((j = cJSON_GetObjectItemCaseSensitive(root, "label_names"))) {
        if ((s = parse_labels(name, j, c.num_classes, &labels, err))) goto done;
        c.labels = labels;
        c.n_labels = c.num_classes;
    }
done:
    cJSON_Delete(root);
    free(copy);
    if (s) return s;
    if (labels && cfg->labels) free_labels(cfg->labels, cfg->n_labels);
    *cfg = c;
    return INFER8_OK;
}

infer8_status i8_config_load(i8_model_config *cfg, const char *path, const i8_limits *limits, i8_err *err) {
    i8_limits def;
    if (!limits) {
        i8_limits_default(&def);
        limits = &def;
    }
    uint8_t *text = NULL;
    size_t size = 0;
    infer8_status s = i8_read_file(path, limits->max_json_bytes, &text, &size, err);
    if (s) return s;
    s = i8_config_parse(cfg, (const char *)text, size, path, err);
    free(text);
    return s;
}

void i8_config_free(i8_model_config *cfg) {
    if (!cfg) return;
    free_labels(cfg->labels, cfg->n_labels);
    cfg->labels = NULL;
    cfg->n_labels = 0;
}

/* ---- config.json writer (Python json.dump(indent=2) layout, ensure_ascii escaping) ---- */

/* String as Python's json.dumps (ensure_ascii) writes it; s must be valid UTF-8. */
static void put_str(i8_strbuf *b, const char *s) {
    i8_strbuf_append(b, "\"", 1);
    const unsigned char *p = (const unsigned char *)s;
    while (*p) {
        unsigned c = *p;
        if (c == '"') i8_strbuf_append(b, "\\\"", 2);
        else if (c == '\\') i8_strbuf_append(b, "\\\\", 2);
        else if (c == '\n') i8_strbuf_append(b, "\\n", 2);
        else if (c == '\r') i8_strbuf_append(b, "\\r", 2);
        else if (c == '\t') i8_strbuf_append(b, "\\t", 2);
        else if (c == '\b') i8_strbuf_append(b, "\\b", 2);
        else if (c == '\f') i8_strbuf_append(b, "\\f", 2);
        else if (c < 0x20) i8_strbuf_printf(b, "\\u%04x", c);
        if (c < 0x80) {
            if (c >= 0x20 && c != '"' && c != '\\') i8_strbuf_append(b, (const char *)p, 1);
            p++;
            continue;
        }
        int len = c >= 0xf0 ? 4 : c >= 0xe0 ? 3 : 2;
        unsigned cp = c & (len == 4 ? 0x07 : len == 3 ? 0x0f : 0x1f);
        for (int k = 1; k < len; k++) cp = (cp << 6) | (p[k] & 0x3f);
        p += len;
        if (cp >= 0x10000) {
            cp -= 0x10000;
            i8_strbuf_printf(b, "\\u%04x\\u%04x", 0xd800 + (cp >> 10), 0xdc00 + (cp & 0x3ff));
        } else {
            i8_strbuf_printf(b, "\\u%04x", cp);
        }
    }
    i8_strbuf_append(b, "\"", 1);
}

/* Shortest decimal that reads back as the same float, spelled like Python's float repr
 * (0.8975, 0.5, 1.0). */
static void put_float(i8_strbuf *b, float f) {
    char t[48];
    for (int prec = 1; prec <= 9; prec++) {
        snprintf(t, sizeof t, "%.*g", prec, (double)f);
        if (strtof(t, NULL) == f) break;
    }
    i8_strbuf_append(b, t, strlen(t));
    if (!strpbrk(t, ".eni")) i8_strbuf_append(b, ".0", 2);
}

static void indent(i8_strbuf *b, int level) {
    i8_strbuf_append(b, "\n", 1);
    for (int i = 0; i < level; i++) i8_strbuf_append(b, "  ", 2);
}

static void key(i8_strbuf *b, int level, int *first, const char *k) {
    if (!*first) i8_strbuf_append(b, ",", 1);
    *first = 0;
    indent(b, level);
    put_str(b, k);
    i8_strbuf_append(b, ": ", 2);
}

static void int_array(i8_strbuf *b, int level, const int *v, int n) {
    i8_strbuf_append(b, "[", 1);
    for (int i = 0; i < n; i++) {
        if (i) i8_strbuf_append(b, ",", 1);
        indent(b, level + 1);
        i8_strbuf_printf(b, "%d", v[i]);
    }
    indent(b, level);
    i8_strbuf_append(b, "]", 1);
}

static void float_array(i8_strbuf *b, int level, const float *v, int n) {
    i8_strbuf_append(b, "[", 1);
    for (int i = 0; i < n; i++) {
        if (i) i8_strbuf_append(b, ",", 1);
        indent(b, level + 1);
        put_float(b, v[i]);
    }
    indent(b, level);
    i8_strbuf_append(b, "]", 1);
}

static int utf8_ok(const char *s) { return s && i8_utf8_check(s, strlen(s)) == SIZE_MAX; }

infer8_status i8_config_to_json(const i8_model_config *cfg, const char *first_conv, const char *classifier,
                                char **out, i8_err *err) {
    if (!utf8_ok(cfg->architecture) || !utf8_ok(cfg->tag) || (first_conv && !utf8_ok(first_conv)) ||
        (classifier && !utf8_ok(classifier)) || (cfg->n_labels > 0 && !cfg->labels))
        return i8_fail(err, INFER8_E_INVALID_ARGUMENT, "config.json: a string field is not valid UTF-8");
    for (int i = 0; i < cfg->n_labels; i++)
        if (!utf8_ok(cfg->labels[i]))
            return i8_fail(err, INFER8_E_INVALID_ARGUMENT, "config.json: label_names[%d] is not valid UTF-8", i);
    const i8_preproc *p = &cfg->pre;
    i8_strbuf b = {0};
    int first = 1;
    i8_strbuf_append(&b, "{", 1);
    key(&b, 1, &first, "architecture");
    put_str(&b, cfg->architecture);
    key(&b, 1, &first, "num_classes");
    i8_strbuf_printf(&b, "%d", cfg->num_classes);
    if (cfg->num_features > 0) {
        key(&b, 1, &first, "num_features");
        i8_strbuf_printf(&b, "%d", cfg->num_features);
    }
    key(&b, 1, &first, "pretrained_cfg");
    i8_strbuf_append(&b, "{", 1);
    int f2 = 1;
    if (cfg->tag[0]) {
        key(&b, 2, &f2, "tag");
        put_str(&b, cfg->tag);
    }
    key(&b, 2, &f2, "custom_load");
    i8_strbuf_append(&b, "false", 5);
    key(&b, 2, &f2, "input_size");
    int_array(&b, 2, p->input_size, 3);
    key(&b, 2, &f2, "fixed_input_size");
    i8_strbuf_append(&b, "false", 5);
    key(&b, 2, &f2, "interpolation");
    put_str(&b, p->interpolation == I8_INTERP_BILINEAR ? "bilinear" : "bicubic");
    key(&b, 2, &f2, "crop_pct");
    put_float(&b, p->crop_pct);
    key(&b, 2, &f2, "crop_mode");
    put_str(&b, "center");
    key(&b, 2, &f2, "mean");
    float_array(&b, 2, p->mean, 3);
    key(&b, 2, &f2, "std");
    float_array(&b, 2, p->std, 3);
    key(&b, 2, &f2, "num_classes");
    i8_strbuf_printf(&b, "%d", cfg->num_classes);
    if (first_conv) {
        key(&b, 2, &f2, "first_conv");
        put_str(&b, first_conv);
    }
    if (classifier) {
        key(&b, 2, &f2, "classifier");
        put_str(&b, classifier);
    }
    indent(&b, 1);
    i8_strbuf_append(&b, "}", 1);
    if (cfg->n_labels > 0) {
        key(&b, 1, &first, "label_names");
        i8_strbuf_append(&b, "[", 1);
        for (int i = 0; i < cfg->n_labels; i++) {
            if (i) i8_strbuf_append(&b, ",", 1);
            indent(&b, 2);
            put_str(&b, cfg->labels[i]);
        }
        indent(&b, 1);
        i8_strbuf_append(&b, "]", 1);
    }
    indent(&b, 0);
    i8_strbuf_append(&b, "}", 1);
    if (b.oom) {
        free(b.s);
        return i8_fail(err, INFER8_E_NOMEM, "config.json: out of memory");
    }
    *out = b.s;
    return INFER8_OK;
}

/* ---- .npy ---- */

#define NPY_MAGIC "\x93NUMPY"

infer8_status i8_npy_write_f32(const char *path, const float *data, int ndim, const int64_t *shape, i8_err *err) {
    if (ndim < 0 || ndim > 8 || (ndim && !shape))
        return i8_fail(err, INFER8_E_INVALID_ARGUMENT, "%s: .npy rank %d outside 0..8", path, ndim);
    size_t count = sizeof(float);
    for (int i = 0; i < ndim; i++)
        if (shape[i] < 0 || !i8_mul_size(count, (size_t)shape[i], &count))
            return i8_fail(err, INFER8_E_INVALID_ARGUMENT, "%s: .npy shape[%d] = %lld invalid", path, i,
                           (long long)shape[i]);
    if (count && !data) return i8_fail(err, INFER8_E_INVALID_ARGUMENT, "%s: no data", path);
    /* the header numpy 1.24 writes: dict repr, spare room for the first axis to grow to 21
     * digits, then spaces and '\n' so the data starts at a multiple of 64 */
    char h[512];
    int k = snprintf(h, sizeof h, "{'descr': '<f4', 'fortran_order': False, 'shape': (");
    for (int i = 0; i < ndim; i++) k += snprintf(h + k, sizeof h - (size_t)k, "%s%lld", i ? ", " : "", (long long)shape[i]);
    k += snprintf(h + k, sizeof h - (size_t)k, "%s), }", ndim == 1 ? "," : "");
    if (ndim > 0) {
        int digits = snprintf(NULL, 0, "%lld", (long long)shape[0]);
        for (int i = digits; i < 21; i++) h[k++] = ' ';
    }
    int hlen = k + 1; /* with the final '\n' */
    int pad = 64 - (10 + hlen) % 64;
    memset(h + k, ' ', (size_t)pad);
    k += pad;
    h[k++] = '\n';
    uint8_t pre[10];
    memcpy(pre, NPY_MAGIC, 6);
    pre[6] = 1;
    pre[7] = 0;
    pre[8] = (uint8_t)(k & 0xff);
    pre[9] = (uint8_t)(k >> 8);
    i8_atomic_file f;
    infer8_status s = i8_atomic_open(&f, path, err);
    if (s) return s;
    s = i8_atomic_write(&f, pre, sizeof pre, err);
    if (!s) s = i8_atomic_write(&f, h, (size_t)k, err);
    if (!s) s = i8_atomic_write(&f, data, count, err);
    if (s) {
        i8_atomic_abort(&f);
        return s;
    }
    return i8_atomic_commit(&f, err);
}

/* Minimal reader of the Python literal dict in a .npy header. */
typedef struct lit {
    const char *p, *end;
} lit;

static void skip_ws(lit *l) {
    while (l->p < l->end && (*l->p == ' ' || *l->p == '\t' || *l->p == '\n' || *l->p == '\r')) l->p++;
}

static int eat(lit *l, char c) {
    skip_ws(l);
    if (l->p < l->end && *l->p == c) {
        l->p++;
        return 1;
    }
    return 0;
}

/* 'text' or "text" into out (size bytes). */
static int read_quoted(lit *l, char *out, size_t size) {
    skip_ws(l);
    if (l->p >= l->end || (*l->p != '\'' && *l->p != '"')) return 0;
    char q = *l->p++;
    size_t n = 0;
    while (l->p < l->end && *l->p != q) {
        if (n + 1 >= size || *l->p == '\\') return 0;
        out[n++] = *l->p++;
    }
    if (l->p >= l->end) return 0;
    l->p++;
    out[n] = 0;
    return 1;
}

static int read_word(lit *l, const char *w) {
    skip_ws(l);
    size_t n = strlen(w);
    if ((size_t)(l->end - l->p) < n || memcmp(l->p, w, n) != 0) return 0;
    l->p += n;
    return 1;
}

/* (a, b, ...) with non-negative integers (numpy may write 3L on old Pythons: refused). */
static int read_shape(lit *l, int *ndim, int64_t shape[8]) {
    if (!eat(l, '(')) return 0;
    int n = 0;
    for (;;) {
        skip_ws(l);
        if (l->p < l->end && *l->p == ')') {
            l->p++;
            break;
        }
        if (n == 8) return 0;
        int64_t v = 0;
        int digits = 0;
        while (l->p < l->end && *l->p >= '0' && *l->p <= '9') {
            if (v > (INT64_MAX - 9) / 10) return 0;
            v = v * 10 + (*l->p++ - '0');
            digits++;
        }
        if (!digits) return 0;
        shape[n++] = v;
        if (eat(l, ',')) continue;
        if (!eat(l, ')')) return 0;
        if (n == 1) return 0; /* "(5)" is not a tuple */
        break;
    }
    *ndim = n;
    return 1;
}

infer8_status i8_npy_read_f32(const char *path, float **data, int *ndim, int64_t shape[8], i8_err *err) {
    i8_mapped_file m;
    infer8_status s = i8_map_file(path, &m, err);
    if (s) return s;
    const uint8_t *d = m.data;
    size_t hlen = 0, hstart = 0;
    if (m.size < 10 || memcmp(d, NPY_MAGIC, 6) != 0) {
        s = i8_fail(err, INFER8_E_FORMAT, "%s: not a .npy file (bad magic at offset 0)", path);
        goto fail;
    }
    if (d[6] == 1 && d[7] == 0) {
        hlen = (size_t)d[8] | ((size_t)d[9] << 8);
        hstart = 10;
    } else if (d[6] == 2 && d[7] == 0 && m.size >= 12) {
        hlen = (size_t)d[8] | ((size_t)d[9] << 8) | ((size_t)d[10] << 16) | ((size_t)d[11] << 24);
        hstart = 12;
    } else {
        s = i8_fail(err, INFER8_E_UNSUPPORTED, "%s: .npy version %u.%u at offset 6 is not supported (1.0, 2.0)", path,
                    d[6], d[7]);
        goto fail;
    }
    if (hlen > m.size - hstart) {
        s = i8_fail(err, INFER8_E_FORMAT, "%s: .npy header length %zu at offset 8 goes past the end of the file (%zu bytes)",
                    path, hlen, m.size);
        goto fail;
    }
    lit l = {(const char *)d + hstart, (const char *)d + hstart + hlen};
    char descr[32] = "", k[32];
    int have_descr = 0, have_order = 0, have_shape = 0, fortran = 0, nd = 0;
    int64_t shp[8];
    if (!eat(&l, '{')) goto bad_header;
    while (!eat(&l, '}')) {
        if (!read_quoted(&l, k, sizeof k) || !eat(&l, ':')) goto bad_header;
        if (strcmp(k, "descr") == 0 && !have_descr) {
            if (!read_quoted(&l, descr, sizeof descr)) goto bad_header;
            have_descr = 1;
        } else if (strcmp(k, "fortran_order") == 0 && !have_order) {
            if (read_word(&l, "False")) fortran = 0;
            else if (read_word(&l, "True")) fortran = 1;
            else goto bad_header;
            have_order = 1;
        } else if (strcmp(k, "shape") == 0 && !have_shape) {
            if (!read_shape(&l, &nd, shp)) goto bad_header;
            have_shape = 1;
        } else {
            goto bad_header;
        }
        if (!eat(&l, ',')) {
            if (!eat(&l, '}')) goto bad_header;
            break;
        }
    }
    skip_ws(&l);
    if (l.p != l.end || !have_descr || !have_order || !have_shape) goto bad_header;
    if (strcmp(descr, "<f4") != 0 || fortran) {
        s = i8_fail(err, INFER8_E_UNSUPPORTED, "%s: .npy array is descr '%s'%s; only '<f4' in C order is supported",
                    path, descr, fortran ? " in Fortran order" : "");
        goto fail;
    }
    size_t count = sizeof(float);
    for (int i = 0; i < nd; i++) {
        if (!i8_mul_size(count, (size_t)shp[i], &count)) {
            s = i8_fail(err, INFER8_E_FORMAT, "%s: .npy shape overflows", path);
            goto fail;
        }
    }
    size_t data_at = hstart + hlen;
    if (m.size - data_at != count) {
        s = i8_fail(err, INFER8_E_FORMAT, "%s: .npy data at offset %zu is %zu bytes, the shape needs %zu", path, data_at,
                    m.size - data_at, count);
        goto fail;
    }
    float *out = i8_malloc(count, err);
    if (!out) {
        s = INFER8_E_NOMEM;
        goto fail;
    }
    if (count) memcpy(out, d + data_at, count);
    i8_unmap_file(&m);
    *data = out;
    *ndim = nd;
    memcpy(shape, shp, sizeof(int64_t) * (size_t)nd);
    return INFER8_OK;
bad_header:
    s = i8_fail(err, INFER8_E_FORMAT, "%s: .npy header dict is malformed near offset %zu", path,
                (size_t)(l.p - (const char *)d));
fail:
    i8_unmap_file(&m);
    return s;
}
