/* Checkpoint -> graph: resolves a snapshot folder or bare .safetensors file, parses
 * config.json, builds the family's graph from the safetensors tensors (every key and shape
 * checked by the family), refuses unexpected keys as timm's strict load would, then runs the
 * optimization passes. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "api/model.h"
#include "formats/safetensors.h"

typedef struct st_source {
    const i8_safetensors *st;
    const char *path;          /* for messages */
    unsigned char *used;       /* per tensor */
    int allow_nonfinite;
} st_source;

static void shape_text(char *buf, size_t size, int ndim, const int64_t *shape) {
    size_t len = 0;
    len += (size_t)snprintf(buf + len, size - len, "[");
    for (int i = 0; i < ndim && len < size; i++)
        len += (size_t)snprintf(buf + len, size - len, "%s%lld", i ? ", " : "", (long long)shape[i]);
    if (len < size) snprintf(buf + len, size - len, "]");
}

static infer8_status st_get(void *vctx, const char *key, int ndim, const int64_t *shape, float **data, i8_err *err) {
    st_source *src = vctx;
    const i8_st_tensor *t = i8_st_find(src->st, key);
    if (!t) return i8_fail(err, INFER8_E_MISSING_KEY, "%s: missing tensor '%s'", src->path, key);
    int same = t->ndim == ndim;
    for (int i = 0; same && i < ndim; i++) same = t->shape[i] == shape[i];
    if (!same) {
        char want[128], found[128];
        shape_text(want, sizeof want, ndim, shape);
        shape_text(found, sizeof found, t->ndim, t->shape);
        return i8_fail(err, INFER8_E_SHAPE, "%s: tensor '%s': expected shape %s, found %s", src->path, key, want,
                       found);
    }
    if (t->dtype != I8_DTYPE_F32 && t->dtype != I8_DTYPE_F16 && t->dtype != I8_DTYPE_BF16)
        return i8_fail(err, INFER8_E_SHAPE, "%s: tensor '%s': dtype %s is not F32, F16 or BF16", src->path, key,
                       i8_dtype_name(t->dtype));
    infer8_status s = i8_st_to_f32(t, data, err);
    if (s) return i8_err_prefix(err, "%s", src->path);
    if (!src->allow_nonfinite) {
        /* a NaN/Inf weight poisons every output downstream: refuse it at the source */
        uint64_t n = i8_st_nelems(t);
        for (uint64_t i = 0; i < n; i++)
            if (!isfinite((*data)[i])) {
                float v = (*data)[i];
                free(*data);
                *data = NULL;
                return i8_fail(err, INFER8_E_FORMAT,
                               "%s: tensor '%s': non-finite weight %s at element %llu (pass --allow-nonfinite to "
                               "accept it)",
                               src->path, key, isnan(v) ? "NaN" : v > 0 ? "+Inf" : "-Inf", (unsigned long long)i);
            }
    }
    src->used[t - src->st->tensors] = 1;
    return INFER8_OK;
}

static int is_dir(const char *path) {
    struct stat st;
    return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

static int is_file(const char *path) {
    struct stat st;
    return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

static int ends_with(const char *s, const char *suffix) {
    size_t n = strlen(s), m = strlen(suffix);
    return n >= m && strcmp(s + n - m, suffix) == 0;
}

static int ignored_key(const i8_family *fam, const char *key) {
    if (ends_with(key, ".num_batches_tracked")) return 1;
    for (const char *const *p = fam->ignored_prefixes; p && *p; p++)
        if (strncmp(key, *p, strlen(*p)) == 0) return 1;
    return 0;
}

static void config_defaults(i8_model_config *cfg, const i8_family *fam) {
    cfg->num_classes = 1000;
    cfg->num_features = fam->num_features;
    cfg->pre.input_size[0] = 3;
    cfg->pre.input_size[1] = fam->default_size;
    cfg->pre.input_size[2] = fam->default_size;
    cfg->pre.crop_pct = fam->default_crop_pct;
    cfg->pre.interpolation = I8_INTERP_BICUBIC;
    for (int c = 0; c < 3; c++) {
        cfg->pre.mean[c] = 0.5f;
        cfg->pre.std[c] = 0.5f;
    }
}

infer8_status i8_checkpoint_load(const char *path, const char *arch, const i8_limits *limits, i8_model_config *cfg,
                                 const i8_family **family_out, i8_graph *graph, int optimize, i8_err *err) {
    char config_path[4096] = "", weights_path[4096] = "", index_path[4096] = "";
    infer8_status s;
    if (is_dir(path)) {
        snprintf(config_path, sizeof config_path, "%s/config.json", path);
        snprintf(weights_path, sizeof weights_path, "%s/model.safetensors", path);
        snprintf(index_path, sizeof index_path, "%s/model.safetensors.index.json", path);
        if (!is_file(config_path) && !arch)
            return i8_fail(err, INFER8_E_IO, "%s: no config.json in this folder (pass --arch to name the family)",
                           path);
        if (!is_file(config_path)) config_path[0] = 0;
        if (!is_file(weights_path)) {
            weights_path[0] = 0;
            if (!is_file(index_path))
                return i8_fail(err, INFER8_E_IO,
                               "%s: neither model.safetensors nor model.safetensors.index.json in this folder", path);
        } else {
            index_path[0] = 0;
        }
    } else if (is_file(path)) {
        size_t n = strlen(path);
        if (n >= 7 && strcmp(path + n - 7, ".bundle") == 0) /* the caller found no bundle magic */
            return i8_fail(err, INFER8_E_FORMAT,
                           "%s: not an infer8 bundle: its first 8 bytes at offset 0 are not the bundle magic "
                           "(\\x89I8BNDL\\n); truncated or another kind of file",
                           path);
        if (!arch)
            return i8_fail(err, INFER8_E_INVALID_ARGUMENT,
                           "%s: a bare safetensors file needs the architecture (--arch inception_resnet_v2|"
                           "inception_v4|inception_v3)",
                           path);
        snprintf(weights_path, sizeof weights_path, "%s", path);
    } else {
        return i8_fail(err, INFER8_E_IO, "%s: no such file or folder", path);
    }

    /* family: config.json's architecture wins unless --arch is given and config absent */
    memset(cfg, 0, sizeof *cfg);
    const i8_family *fam = NULL;
    if (config_path[0]) {
        /* parse once to learn the architecture, then again over the family's defaults */
        i8_model_config probe;
        memset(&probe, 0, sizeof probe);
        probe.num_classes = 1000;
        s = i8_config_load(&probe, config_path, limits, err);
        if (s) return s;
        fam = i8_family_find(probe.architecture);
        if (!fam) {
            s = i8_fail(err, INFER8_E_UNSUPPORTED,
                        "%s: architecture '%s' is not supported (inception_resnet_v2, inception_v4, inception_v3)",
                        config_path, probe.architecture);
            i8_config_free(&probe);
            return s;
        }
        if (arch && strcmp(arch, probe.architecture) != 0) {
            s = i8_fail(err, INFER8_E_INVALID_ARGUMENT, "%s: architecture is '%s' but --arch says '%s'", config_path,
                        probe.architecture, arch);
            i8_config_free(&probe);
            return s;
        }
        i8_config_free(&probe);
        config_defaults(cfg, fam);
        s = i8_config_load(cfg, config_path, limits, err);
        if (s) return s;
    } else {
        fam = i8_family_find(arch);
        if (!fam)
            return i8_fail(err, INFER8_E_UNSUPPORTED,
                           "architecture '%s' is not supported (inception_resnet_v2, inception_v4, inception_v3)", arch);
        config_defaults(cfg, fam);
        snprintf(cfg->architecture, sizeof cfg->architecture, "%s", fam->arch);
    }

    i8_safetensors st;
    memset(&st, 0, sizeof st);
    const char *weights_name = weights_path[0] ? weights_path : index_path;
    s = weights_path[0] ? i8_st_open(&st, weights_path, limits, err) : i8_st_open_index(&st, index_path, limits, err);
    if (s) {
        i8_config_free(cfg);
        return s;
    }
    st_source src = {.st = &st, .path = weights_name, .used = NULL,
                     .allow_nonfinite = (optimize & I8_CKPT_ALLOW_NONFINITE) != 0};
    src.used = i8_calloc((size_t)st.n_tensors + 1, 1, err);
    if (!src.used) {
        s = INFER8_E_NOMEM;
        goto fail_st;
    }
    i8_weight_source ws = {.ctx = &src, .get = st_get};
    s = i8_graph_init(graph, fam->arch, cfg->pre.input_size[0], cfg->pre.input_size[1], cfg->pre.input_size[2], err);
    if (s) goto fail_st;
    s = fam->build(graph, &ws, cfg->num_classes, cfg->pre.input_size[1], cfg->pre.input_size[2], err);
    if (s) goto fail_graph;
    for (int i = 0; i < st.n_tensors; i++) {
        if (!src.used[i] && !ignored_key(fam, st.tensors[i].name)) {
            s = i8_fail(err, INFER8_E_FORMAT, "%s: unexpected tensor '%s' (not part of %s)", weights_name,
                        st.tensors[i].name, fam->arch);
            goto fail_graph;
        }
    }
    if (optimize & I8_CKPT_OPTIMIZE) {
        s = i8_pass_optimize(graph, NULL, err);
        if (s) goto fail_graph;
    }
    free(src.used);
    i8_st_close(&st);
    *family_out = fam;
    return INFER8_OK;

fail_graph:
    i8_graph_free(graph);
fail_st:
    free(src.used);
    i8_st_close(&st);
    i8_config_free(cfg);
    return s;
}
