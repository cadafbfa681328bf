/* Per-output-channel FP8 weight scales and the scales.json reader/writer (cJSON). */
#include "quant/scales.h"

#include <cjson/cJSON.h>
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/text.h"
#include "quant/fp8.h"

#define SCALES_FORMAT "infer8-scales"
#define SCALES_VERSION 1

infer8_status i8_fp8_weight_scales(const float *w, size_t out_channels, size_t per_channel, const char *name,
                                   float *amax, float *scales, i8_err *err) {
    const char *n = name ? name : "weight";
    size_t total;
    if (per_channel == 0 || !i8_mul_size(out_channels, per_channel, &total))
        return i8_fail(err, INFER8_E_INVALID_ARGUMENT, "%s: bad weight shape [%zu][%zu]", n, out_channels,
                       per_channel);
    /* Validate everything first so the outputs are written only on success. */
    for (size_t i = 0; i < total; i++) {
        if (!isfinite(w[i]))
            return i8_fail(err, INFER8_E_FORMAT, "%s: weight of output channel %zu, element %zu is not finite", n,
                           i / per_channel, i % per_channel);
    }
    for (size_t o = 0; o < out_channels; o++) {
        const float *row = w + o * per_channel;
        float m = 0.0f;
        for (size_t k = 0; k < per_channel; k++) {
            float a = fabsf(row[k]);
            if (a > m) m = a;
        }
        if (amax) amax[o] = m;
        scales[o] = i8_fp8_scale_from_amax(m);
    }
    return INFER8_OK;
}

infer8_status i8_fp8_quantize_weights(const float *w, size_t out_channels, size_t per_channel,
                                      const float *scales, uint8_t *q, i8_err *err) {
    size_t total;
    if (!i8_mul_size(out_channels, per_channel, &total))
        return i8_fail(err, INFER8_E_INVALID_ARGUMENT, "bad weight shape [%zu][%zu]", out_channels, per_channel);
    for (size_t o = 0; o < out_channels; o++) {
        if (!(scales[o] >= FLT_MIN && scales[o] <= FLT_MAX))
            return i8_fail(err, INFER8_E_INVALID_ARGUMENT, "weight scale of output channel %zu is %g, not a positive "
                           "normal finite float", o, (double)scales[o]);
    }
    for (size_t o = 0; o < out_channels; o++)
        i8_fp8_quantize(w + o * per_channel, per_channel, scales[o], q + o * per_channel);
    return INFER8_OK;
}

/* ---- scales.json ---- */

static int method_known(const char *m) {
    return !strcmp(m, "max") || !strcmp(m, "percentile") || !strcmp(m, "entropy") || !strcmp(m, "mse");
}

static int amax_ok(float a) { return isfinite(a) && a >= 0.0f; }
static int scale_ok(float s) { return s >= FLT_MIN && s <= FLT_MAX; }

void i8_scales_free(i8_scales *s) {
    if (!s) return;
    for (size_t i = 0; i < s->count; i++) free(s->tensors[i].name);
    free(s->tensors);
    s->tensors = NULL;
    s->count = 0;
}

const i8_scale_entry *i8_scales_find(const i8_scales *s, const char *name) {
    for (size_t i = 0; i < s->count; i++)
        if (!strcmp(s->tensors[i].name, name)) return &s->tensors[i];
    return NULL;
}

/* Appends without the duplicate check (the reader checks duplicates in O(n log n)). */
static infer8_status append_entry(i8_scales *s, const char *name, float amax, float scale, i8_err *err) {
    size_t bytes;
    if (!i8_mul_size(s->count + 1, sizeof *s->tensors, &bytes))
        return i8_fail(err, INFER8_E_NOMEM, "too many scale entries");
    char *copy = i8_strdup(name, err);
    if (!copy) return INFER8_E_NOMEM;
    i8_scale_entry *t = i8_realloc(s->tensors, bytes, err);
    if (!t) {
        free(copy);
        return INFER8_E_NOMEM;
    }
    s->tensors = t;
    s->tensors[s->count].name = copy;
    s->tensors[s->count].amax = amax;
    s->tensors[s->count].scale = scale;
    s->count++;
    return INFER8_OK;
}

infer8_status i8_scales_add(i8_scales *s, const char *name, float amax, float scale, i8_err *err) {
    if (!name || !name[0]) return i8_fail(err, INFER8_E_INVALID_ARGUMENT, "scales: empty tensor name");
    if (i8_scales_find(s, name))
        return i8_fail(err, INFER8_E_INVALID_ARGUMENT, "scales: tensor \"%s\" added twice", name);
    if (!amax_ok(amax))
        return i8_fail(err, INFER8_E_INVALID_ARGUMENT, "scales: tensor \"%s\": amax %g is not finite and >= 0", name,
                       (double)amax);
    if (!scale_ok(scale))
        return i8_fail(err, INFER8_E_INVALID_ARGUMENT, "scales: tensor \"%s\": scale %g is not a positive normal "
                       "finite float", name, (double)scale);
    return append_entry(s, name, amax, scale, err);
}

static cJSON *raw_float(float v) {
    char buf[32];
    snprintf(buf, sizeof buf, "%.9g", (double)v);
    return cJSON_CreateRaw(buf);
}

infer8_status i8_scales_write(const char *path, const i8_scales *s, i8_err *err) {
    if (!method_known(s->method))
        return i8_fail(err, INFER8_E_INVALID_ARGUMENT, "%s: unknown calibration method \"%s\"", path, s->method);
    int is_pct = !strcmp(s->method, "percentile");
    if (is_pct && !(s->percentile >= 0.0 && s->percentile <= 100.0))
        return i8_fail(err, INFER8_E_INVALID_ARGUMENT, "%s: percentile %g outside [0, 100]", path, s->percentile);
    for (size_t i = 0; i < s->count; i++) {
        const i8_scale_entry *e = &s->tensors[i];
        if (!e->name || !e->name[0] || !amax_ok(e->amax) || !scale_ok(e->scale))
            return i8_fail(err, INFER8_E_INVALID_ARGUMENT, "%s: entry %zu (\"%s\") has an empty name, a bad amax (%g) "
                           "or a bad scale (%g)", path, i, e->name ? e->name : "", (double)e->amax, (double)e->scale);
    }
    infer8_status st = INFER8_OK;
    char *text = NULL;
    cJSON *root = cJSON_CreateObject();
    cJSON *tensors = NULL;
    int ok = root != NULL;
    ok = ok && cJSON_AddStringToObject(root, "format", SCALES_FORMAT);
    ok = ok && cJSON_AddNumberToObject(root, "version", SCALES_VERSION);
    ok = ok && cJSON_AddStringToObject(root, "method", s->method);
    if (ok && is_pct) {
        char buf[40];
        snprintf(buf, sizeof buf, "%.17g", s->percentile);
        ok = cJSON_AddRawToObject(root, "percentile", buf) != NULL;
    } else if (ok) {
        ok = cJSON_AddNullToObject(root, "percentile") != NULL;
    }
    ok = ok && cJSON_AddNumberToObject(root, "images", (double)s->images);
    ok = ok && (tensors = cJSON_AddObjectToObject(root, "tensors")) != NULL;
    for (size_t i = 0; ok && i < s->count; i++) {
        cJSON *e = cJSON_CreateObject();
        cJSON *a = raw_float(s->tensors[i].amax), *sc = raw_float(s->tensors[i].scale);
        if (!e || !a || !sc) {
            cJSON_Delete(e);
            cJSON_Delete(a);
            cJSON_Delete(sc);
            ok = 0;
            break;
        }
        cJSON_AddItemToObject(e, "amax", a);
        cJSON_AddItemToObject(e, "scale", sc);
        cJSON_AddItemToObject(tensors, s->tensors[i].name, e);
    }
    if (ok) text = i8_json_print(root, 1);
    if (!text) {
        st = i8_fail(err, INFER8_E_NOMEM, "%s: out of memory building JSON", path);
    } else {
        i8_atomic_file f;
        st = i8_atomic_open(&f, path, err);
        if (st == INFER8_OK) st = i8_atomic_write(&f, text, strlen(text), err);
        if (st == INFER8_OK) st = i8_atomic_write(&f, "\n", 1, err);
        if (st == INFER8_OK) st = i8_atomic_commit(&f, err);
        else i8_atomic_abort(&f);
    }
    free(text);
    cJSON_Delete(root);
    return st;
}

/* ---- reader ---- */

static infer8_status type_error(i8_err *err, const char *name, const char *key, const char *expected) {
    return i8_fail(err, INFER8_E_FORMAT, "%s: %s: expected %s", name, key, expected);
}

static const cJSON *need(const cJSON *obj, const char *key, const char *name, i8_err *err) {
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);
    if (!v) i8_fail(err, INFER8_E_MISSING_KEY, "%s: missing key \"%s\"", name, key);
    return v;
}

/* A float32 from a JSON number; *ok = 0 when not a number or not finite as float. */
static float json_float(const cJSON *v, int *ok) {
    *ok = 0;
    if (!cJSON_IsNumber(v) || !isfinite(v->valuedouble)) return 0.0f;
    float f = (float)v->valuedouble;
    if (!isfinite(f)) return 0.0f;
    *ok = 1;
    return f;
}

static int cmp_entry_name(const void *a, const void *b) {
    const i8_scale_entry *const *x = a, *const *y = b;
    return strcmp((*x)->name, (*y)->name);
}

static infer8_status check_duplicates(const i8_scales *s, const char *name, i8_err *err) {
    if (s->count < 2) return INFER8_OK;
    const i8_scale_entry **idx = i8_calloc(s->count, sizeof *idx, err);
    if (!idx) return INFER8_E_NOMEM;
    for (size_t i = 0; i < s->count; i++) idx[i] = &s->tensors[i];
    qsort(idx, s->count, sizeof *idx, cmp_entry_name);
    infer8_status st = INFER8_OK;
    for (size_t i = 1; i < s->count; i++) {
        if (!strcmp(idx[i]->name, idx[i - 1]->name)) {
            st = i8_fail(err, INFER8_E_FORMAT, "%s: tensors.\"%s\": duplicate key", name, idx[i]->name);
            break;
        }
    }
    free(idx);
    return st;
}

static infer8_status parse_tensors(const cJSON *tensors, const char *name, uint64_t max_tensors, i8_scales *s,
                                   i8_err *err) {
    if (!cJSON_IsObject(tensors)) return type_error(err, name, "tensors", "an object");
    uint64_t n = 0;
    for (const cJSON *t = tensors->child; t; t = t->next) n++;
    if (n > max_tensors)
        return i8_fail(err, INFER8_E_LIMIT, "%s: tensors: %llu entries, above the limit of %llu", name,
                       (unsigned long long)n, (unsigned long long)max_tensors);
    for (const cJSON *t = tensors->child; t; t = t->next) {
        char key[600], shown[520];
        snprintf(key, sizeof key, "tensors.\"%s\"", i8_text_show(t->string ? t->string : "", shown, sizeof shown));
        if (!t->string || !t->string[0]) return i8_fail(err, INFER8_E_FORMAT, "%s: %s: empty tensor name", name, key);
        /* names are layer names: printable as they are in every later message */
        if (!i8_text_plain(t->string))
            return i8_fail(err, INFER8_E_FORMAT, "%s: %s: tensor name is not UTF-8 without control characters", name,
                           key);
        if (!cJSON_IsObject(t)) return type_error(err, name, key, "an object {\"amax\": x, \"scale\": s}");
        const cJSON *a = cJSON_GetObjectItemCaseSensitive(t, "amax");
        const cJSON *sc = cJSON_GetObjectItemCaseSensitive(t, "scale");
        if (!a) return i8_fail(err, INFER8_E_MISSING_KEY, "%s: %s: missing key \"amax\"", name, key);
        if (!sc) return i8_fail(err, INFER8_E_MISSING_KEY, "%s: %s: missing key \"scale\"", name, key);
        int ok_a, ok_s;
        float amax = json_float(a, &ok_a), scale = json_float(sc, &ok_s);
        if (!ok_a || !amax_ok(amax))
            return i8_fail(err, INFER8_E_FORMAT, "%s: %s.amax: expected a finite number >= 0 (float32)", name, key);
        if (!ok_s || !scale_ok(scale))
            return i8_fail(err, INFER8_E_FORMAT, "%s: %s.scale: expected a positive finite number (normal float32)",
                           name, key);
        infer8_status st = append_entry(s, t->string, amax, scale, err);
        if (st != INFER8_OK) return st;
    }
    return check_duplicates(s, name, err);
}

static infer8_status parse_root(const cJSON *root, const char *name, uint64_t max_tensors, i8_scales *s,
                                i8_err *err) {
    if (!cJSON_IsObject(root)) return type_error(err, name, "(top level)", "a JSON object");
    const cJSON *v = need(root, "format", name, err);
    if (!v) return INFER8_E_MISSING_KEY;
    if (!cJSON_IsString(v) || strcmp(v->valuestring, SCALES_FORMAT) != 0)
        return type_error(err, name, "format", "the string \"" SCALES_FORMAT "\"");
    if (!(v = need(root, "version", name, err))) return INFER8_E_MISSING_KEY;
    if (!cJSON_IsNumber(v) || v->valuedouble != floor(v->valuedouble))
        return type_error(err, name, "version", "an integer");
    if (v->valuedouble != SCALES_VERSION)
        return i8_fail(err, INFER8_E_UNSUPPORTED, "%s: version: %g is not supported (this build reads version %d)",
                       name, v->valuedouble, SCALES_VERSION);
    if (!(v = need(root, "method", name, err))) return INFER8_E_MISSING_KEY;
    if (!cJSON_IsString(v) || !method_known(v->valuestring))
        return type_error(err, name, "method", "one of \"max\", \"percentile\", \"entropy\", \"mse\"");
    snprintf(s->method, sizeof s->method, "%s", v->valuestring);
    v = cJSON_GetObjectItemCaseSensitive(root, "percentile");
    int is_pct = !strcmp(s->method, "percentile");
    if (is_pct && !v) return i8_fail(err, INFER8_E_MISSING_KEY, "%s: missing key \"percentile\"", name);
    if (v && !cJSON_IsNull(v)) {
        if (!cJSON_IsNumber(v) || !(v->valuedouble >= 0.0 && v->valuedouble <= 100.0))
            return type_error(err, name, "percentile", "a number in [0, 100] or null");
        s->percentile = v->valuedouble;
    } else if (is_pct) {
        return type_error(err, name, "percentile", "a number in [0, 100] (method is \"percentile\")");
    }
    if (!(v = need(root, "images", name, err))) return INFER8_E_MISSING_KEY;
    if (!cJSON_IsNumber(v) || !(v->valuedouble >= 0.0 && v->valuedouble <= 9007199254740992.0) ||
        v->valuedouble != floor(v->valuedouble))
        return type_error(err, name, "images", "a non-negative integer");
    s->images = (uint64_t)v->valuedouble;
    if (!(v = need(root, "tensors", name, err))) return INFER8_E_MISSING_KEY;
    return parse_tensors(v, name, max_tensors, s, err);
}

infer8_status i8_scales_parse(const char *text, size_t size, const char *name, const i8_limits *limits,
                              i8_scales *out, i8_err *err) {
    i8_limits def;
    if (!limits) {
        i8_limits_default(&def);
        limits = &def;
    }
    if (!name) name = "scales.json";
    infer8_status checked = i8_json_text_require(text, size, name, 0, err);
    if (checked) return checked;
    cJSON *root = cJSON_ParseWithLength(text, size);
    if (!root) {
        const char *at = cJSON_GetErrorPtr();
        size_t off = at && at >= text && at <= text + size ? (size_t)(at - text) : 0;
        return i8_fail(err, INFER8_E_FORMAT, "%s: invalid JSON near byte %zu", name, off);
    }
    i8_scales s;
    memset(&s, 0, sizeof s);
    infer8_status st = parse_root(root, name, limits->max_tensors, &s, err);
    cJSON_Delete(root);
    if (st != INFER8_OK) {
        i8_scales_free(&s);
        return st;
    }
    *out = s;
    return INFER8_OK;
}

infer8_status i8_scales_read(const char *path, const i8_limits *limits, i8_scales *out, i8_err *err) {
    i8_limits def;
    if (!limits) {
        i8_limits_default(&def);
        limits = &def;
    }
    uint8_t *data = NULL;
    size_t size = 0;
    infer8_status st = i8_read_file(path, limits->max_json_bytes, &data, &size, err);
    if (st != INFER8_OK) return st;
    st = i8_scales_parse((const char *)data, size, path, limits, out, err);
    free(data);
    return st;
}
