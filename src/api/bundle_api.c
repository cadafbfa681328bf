/* Bundles in the public API: infer8_build (model -> one bundle file), loading a bundle into a
 * model (infer8_model_open / infer8_model_open_memory detect the magic and call i8_bundle_load),
 * bundle fields of infer8_model_info, the bundle part of inspect, and the CUDA tactic records
 * (stored by a build with --device cuda, restored when the GPU name matches).
 *
 * Weights are converted to float32 at load (fp16 and e4m3 need converting anyway, and the
 * graph owns malloc'ed weights); the file is mapped only while it is being read. */
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <cjson/cJSON.h>

#include "api/model.h"
#include "core/text.h"
#include "formats/bundle.h"
#ifdef INFER8_HAVE_CUDA
#include "backends/cuda/cuda_backend.h"
#include "backends/cuda/cuda_fp8.h"
_Static_assert(I8_CUDA_TACTIC_FLAG_CHOSEN == I8_BUNDLE_TACTIC_FLAG_CHOSEN &&
                   I8_CUDA_TACTIC_FLAG_PRIORITY == I8_BUNDLE_TACTIC_FLAG_PRIORITY &&
                   I8_CUDA_TACTIC_FLAG_PDL == I8_BUNDLE_TACTIC_FLAG_PDL &&
                   I8_CUDA_TACTIC_FLAG_MERGE == I8_BUNDLE_TACTIC_FLAG_MERGE &&
                   I8_CUDA_TACTIC_FLAG_MERGE_WIDE == I8_BUNDLE_TACTIC_FLAG_MERGE_WIDE &&
                   I8_CUDA_TACTIC_FLAG_PAIR == I8_BUNDLE_TACTIC_FLAG_PAIR &&
                   I8_CUDA_TACTIC_FLAG_PAIR_V0 == I8_BUNDLE_TACTIC_FLAG_PAIR_V0 &&
                   I8_FP8_PAIR_VARIANTS == I8_BUNDLE_PAIR_VARIANTS,
               "bundle tactic flags mirror the CUDA backend's");
#endif

#define EXPORT __attribute__((visibility("default")))

struct i8_bundle_model {
    char precision[8];
    uint64_t file_bytes;
    int n_sections;
    infer8_section_info sections[I8_BUNDLE_MAX_SECTIONS];
    char names[I8_BUNDLE_MAX_SECTIONS][I8_BUNDLE_NAME_MAX];
    char *header_json;            /* the header section's text (NUL-terminated) */
    char sha256[65];
    char source[1024];            /* provenance source path */
    i8_bundle_tactic_set *tactics;
    int n_tactics;
    /* the log of the context that opened the model: tactic restore happens at first classify */
    infer8_log_fn log_fn;
    void *log_user;
    int log_max_level;
};

void i8_bundle_model_free(struct i8_bundle_model *b) {
    if (!b) return;
    free(b->header_json);
    i8_bundle_tactics_free(b->tactics, b->n_tactics);
    free(b);
}

static void blog(const struct i8_bundle_model *b, int level, const char *fmt, ...) __attribute__((format(printf, 3, 4), unused));
static void blog(const struct i8_bundle_model *b, int level, const char *fmt, ...) {
    if (!b->log_fn || level > b->log_max_level) return;
    char buf[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    b->log_fn(b->log_user, level, buf);
}

/* ---- loading ---- */

static const char *json_str(const cJSON *o, const char *key) {
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    return cJSON_IsString(v) ? v->valuestring : NULL;
}

static infer8_status parse_header(struct i8_bundle_model *bm, const i8_bundle_section *s, const i8_limits *limits,
                                  const i8_family **fam, i8_err *err) {
    if (s->length > limits->max_json_bytes)
        return i8_fail(err, INFER8_E_LIMIT, "section 'header': %llu bytes exceed the JSON limit of %llu",
                       (unsigned long long)s->length, (unsigned long long)limits->max_json_bytes);
    bm->header_json = i8_malloc((size_t)s->length + 1, err);
    if (!bm->header_json) return INFER8_E_NOMEM;
    memcpy(bm->header_json, s->data, (size_t)s->length);
    bm->header_json[s->length] = 0;
    infer8_status checked = i8_json_text_require(bm->header_json, (size_t)s->length, "section 'header'", s->offset, err);
    if (checked) return checked;
    cJSON *h = cJSON_ParseWithLength(bm->header_json, (size_t)s->length);
    if (!h || !cJSON_IsObject(h)) {
        cJSON_Delete(h);
        return i8_fail(err, INFER8_E_FORMAT, "section 'header': not a JSON object");
    }
    infer8_status st = INFER8_OK;
    const char *format = json_str(h, "format"), *family = json_str(h, "family"), *task = json_str(h, "task"),
               *prec = json_str(h, "precision");
    const cJSON *prov = cJSON_GetObjectItemCaseSensitive(h, "provenance");
    if (!format || strcmp(format, "infer8-bundle"))
        st = i8_fail(err, INFER8_E_FORMAT, "section 'header': key 'format': expected \"infer8-bundle\"");
    else if (!family || !(*fam = i8_family_find(family)))
        st = i8_fail(err, INFER8_E_UNSUPPORTED, "section 'header': key 'family': '%s' is not a supported family",
                     family ? family : "(missing)");
    else if (!task || strcmp(task, "image_to_class_scores"))
        st = i8_fail(err, INFER8_E_UNSUPPORTED, "section 'header': key 'task': '%s' unsupported (image_to_class_scores)",
                     task ? task : "(missing)");
    else if (!prec || (strcmp(prec, "fp32") && strcmp(prec, "fp16") && strcmp(prec, "fp8")))
        st = i8_fail(err, INFER8_E_FORMAT, "section 'header': key 'precision': expected fp32, fp16 or fp8");
    if (!st) {
        snprintf(bm->precision, sizeof bm->precision, "%s", prec);
        const char *sha = cJSON_IsObject(prov) ? json_str(prov, "source_sha256") : NULL;
        const char *src = cJSON_IsObject(prov) ? json_str(prov, "source") : NULL;
        snprintf(bm->sha256, sizeof bm->sha256, "%s", sha && strlen(sha) == 64 ? sha : "");
        snprintf(bm->source, sizeof bm->source, "%s", src ? src : "");
    }
    cJSON_Delete(h);
    return st;
}

static const i8_bundle_section *need(const i8_bundle *b, const char *name, i8_err *err) {
    const i8_bundle_section *s = i8_bundle_find(b, name);
    if (!s) i8_fail(err, INFER8_E_FORMAT, "section '%s': missing (every bundle has header, config, labels, graph, weights)", name);
    return s;
}

infer8_status i8_bundle_load(infer8_model *m, infer8_context *ctx, const uint8_t *data, size_t size, const char *name,
                             i8_err *err) {
    i8_bundle b;
    infer8_status s = i8_bundle_parse(&b, data, size, name, err);
    if (s) return s;
    struct i8_bundle_model *bm = i8_calloc(1, sizeof *bm, err);
    if (!bm) return INFER8_E_NOMEM;
    m->bundle = bm;
    bm->file_bytes = b.file_size;
    bm->n_sections = b.n_sections;
    for (int i = 0; i < b.n_sections; i++) {
        memcpy(bm->names[i], b.sections[i].name, I8_BUNDLE_NAME_MAX);
        bm->sections[i].name = bm->names[i];
        bm->sections[i].offset = b.sections[i].offset;
        bm->sections[i].length = b.sections[i].length;
        bm->sections[i].checksum = b.sections[i].checksum;
    }
    if (ctx) bm->log_fn = ctx->log_fn, bm->log_user = ctx->log_user, bm->log_max_level = ctx->log_max_level;
    const i8_bundle_section *hs, *cs, *ls, *gs, *ws;
    if (!(hs = need(&b, "header", err)) || !(cs = need(&b, "config", err)) || !(ls = need(&b, "labels", err)) ||
        !(gs = need(&b, "graph", err)) || !(ws = need(&b, "weights", err)))
        goto fail;
    const i8_family *fam = NULL;
    if ((s = parse_header(bm, hs, &m->limits, &fam, err))) goto fail;

    /* config over the family's defaults (the writer stores every field) */
    memset(&m->config, 0, sizeof m->config);
    m->config.num_classes = 1000;
    m->config.pre.input_size[0] = 3;
    m->config.pre.input_size[1] = m->config.pre.input_size[2] = fam->default_size;
    m->config.pre.crop_pct = fam->default_crop_pct;
    for (int c = 0; c < 3; c++) m->config.pre.mean[c] = m->config.pre.std[c] = 0.5f;
    if (cs->length > m->limits.max_json_bytes) {
        s = i8_fail(err, INFER8_E_LIMIT, "section 'config': %llu bytes exceed the JSON limit",
                    (unsigned long long)cs->length);
        goto fail;
    }
    if ((s = i8_config_parse(&m->config, (const char *)cs->data, (size_t)cs->length, "section 'config'", err)))
        goto fail;
    if (strcmp(m->config.architecture, fam->arch)) {
        s = i8_fail(err, INFER8_E_FORMAT, "section 'config': architecture '%s' differs from the header's family '%s'",
                    m->config.architecture, fam->arch);
        goto fail;
    }
    char **labels = NULL;
    int n_labels = 0;
    if ((s = i8_bundle_decode_labels(ls->data, (size_t)ls->length, &labels, &n_labels, err))) goto fail;
    i8_config_free(&m->config); /* drops label_names if any: the labels section is authoritative */
    m->config.labels = labels;
    m->config.n_labels = n_labels;
    if (n_labels && n_labels != m->config.num_classes) {
        s = i8_fail(err, INFER8_E_FORMAT, "section 'labels': %d labels for %d classes", n_labels, m->config.num_classes);
        goto fail;
    }
    if ((s = i8_bundle_decode_graph(gs->data, (size_t)gs->length, ws->data, (size_t)ws->length, &m->graph, err)))
        goto fail;
    const i8_graph *g = &m->graph;
    if (strcmp(g->arch, fam->arch) || g->input_h != m->config.pre.input_size[1] ||
        g->input_w != m->config.pre.input_size[2] || g->num_classes != m->config.num_classes) {
        s = i8_fail(err, INFER8_E_FORMAT,
                    "section 'graph': arch '%s', input %dx%d, %d classes differ from section 'config' (%s, %dx%d, %d)",
                    g->arch, g->input_h, g->input_w, g->num_classes, fam->arch, m->config.pre.input_size[1],
                    m->config.pre.input_size[2], m->config.num_classes);
        goto fail;
    }
    const i8_bundle_section *as = i8_bundle_find(&b, "act_scales");
    if (as) {
        if (as->length != (uint64_t)g->n_nodes * 4) {
            s = i8_fail(err, INFER8_E_FORMAT, "section 'act_scales': %llu bytes, expected %d (one float per layer)",
                        (unsigned long long)as->length, g->n_nodes * 4);
            goto fail;
        }
        for (int i = 0; i < g->n_nodes; i++) {
            uint32_t v = (uint32_t)as->data[4 * i] | (uint32_t)as->data[4 * i + 1] << 8 |
                         (uint32_t)as->data[4 * i + 2] << 16 | (uint32_t)as->data[4 * i + 3] << 24, w;
            memcpy(&w, &g->nodes[i].out_scale, 4);
            if (v != w) {
                s = i8_fail(err, INFER8_E_FORMAT, "section 'act_scales': layer %d '%s': scale differs from the graph's",
                            i, g->nodes[i].name);
                goto fail;
            }
        }
    }
    const i8_bundle_section *ts = i8_bundle_find(&b, "tactics.cuda");
    if (ts && (s = i8_bundle_decode_tactics(ts->data, (size_t)ts->length, g->n_nodes, &bm->tactics, &bm->n_tactics, err)))
        goto fail;
    m->family = fam;
    return INFER8_OK;
fail:
    if (!s) s = err->code;
    return i8_err_prefix(err, "%s", name);
}

/* ---- info, describe ---- */

void i8_bundle_fill_info(const infer8_model *m, infer8_model_info *full) {
    const struct i8_bundle_model *b = m->bundle;
    full->precision = b ? b->precision : "fp32";
    full->is_bundle = b != NULL;
    full->file_bytes = b ? b->file_bytes : 0;
    full->num_sections = b ? b->n_sections : 0;
    full->sections = b ? b->sections : NULL;
    full->source_sha256 = b ? b->sha256 : "";
}

int i8_bundle_describe_json(const infer8_model *m, cJSON *root) {
    const struct i8_bundle_model *b = m->bundle;
    cJSON *hdr = cJSON_Parse(b->header_json); /* stored as JSON text; checked at load */
    cJSON *bo = cJSON_CreateObject(), *secs = cJSON_CreateArray();
    int ok = hdr && bo && secs && cJSON_AddItemToObject(bo, "header", hdr);
    if (ok) hdr = NULL;
    ok = ok && cJSON_AddItemToObject(bo, "sections", secs);
    if (ok) secs = NULL;
    ok = ok && cJSON_AddNumberToObject(bo, "file_bytes", (double)b->file_bytes) &&
         cJSON_AddStringToObject(bo, "precision", b->precision);
    cJSON *sa = ok ? cJSON_GetObjectItemCaseSensitive(bo, "sections") : NULL;
    for (int i = 0; ok && i < b->n_sections; i++) {
        cJSON *o = cJSON_CreateObject();
        char sum[17];
        snprintf(sum, sizeof sum, "%016llx", (unsigned long long)b->sections[i].checksum);
        ok = o && cJSON_AddItemToArray(sa, o);
        if (!ok) cJSON_Delete(o);
        ok = ok && cJSON_AddStringToObject(o, "name", b->sections[i].name) &&
             cJSON_AddNumberToObject(o, "offset", (double)b->sections[i].offset) &&
             cJSON_AddNumberToObject(o, "bytes", (double)b->sections[i].length) &&
             cJSON_AddStringToObject(o, "xxh3_64", sum);
    }
    ok = ok && cJSON_AddItemToObject(root, "bundle", bo);
    if (ok) bo = NULL;
    cJSON_Delete(hdr), cJSON_Delete(bo), cJSON_Delete(secs);
    return ok;
}

infer8_status i8_bundle_describe_text(const infer8_model *m, const char *graph, char **out, i8_err *err) {
    const struct i8_bundle_model *b = m->bundle;
    i8_strbuf t = {0};
    i8_strbuf_printf(&t, "bundle: %s, %llu bytes, precision %s, format version %u\n", m->source,
                     (unsigned long long)b->file_bytes, b->precision, I8_BUNDLE_VERSION);
    i8_strbuf_printf(&t, "header: %.3000s\n", b->header_json);
    i8_strbuf_printf(&t, "sections:\n  %-14s %12s %14s  %s\n", "name", "offset", "bytes", "xxh3-64");
    for (int i = 0; i < b->n_sections; i++)
        i8_strbuf_printf(&t, "  %-14s %12llu %14llu  %016llx\n", b->sections[i].name,
                         (unsigned long long)b->sections[i].offset, (unsigned long long)b->sections[i].length,
                         (unsigned long long)b->sections[i].checksum);
    i8_strbuf_append(&t, graph, strlen(graph));
    if (t.oom || !t.s) {
        free(t.s);
        return i8_fail(err, INFER8_E_NOMEM, "describe: out of memory");
    }
    *out = t.s;
    return INFER8_OK;
}

/* ---- CUDA tactics ---- */

#ifdef INFER8_HAVE_CUDA
_Static_assert(I8_CUDA_TACTIC_KINDS == I8_BUNDLE_TACTIC_KIND_MAX + 1,
               "formats/bundle.h must accept every CUDA tactic kind the backend writes");

/* GPU name from the backend's device description ("NVIDIA H200 (sm_90, ...), driver ..."). */
static void gpu_name(void *bctx, char *buf, size_t size) {
    char desc[512] = "unknown GPU";
    if (i8_backend_cuda.describe_device) i8_backend_cuda.describe_device(bctx, desc, sizeof desc);
    char *cut = strstr(desc, " (");
    if (cut) *cut = 0;
    snprintf(buf, size, "%s", desc);
}

/* tuning[i]: how set i was tuned (infer8_get_tuning's counts). Its untuned problems are stored as
 * they are and every later run restores them untimed, so the build must say so. */
static infer8_status tune_cuda(const infer8_model *m, int max_batch, int opt_level, i8_bundle_tactic_set **out,
                               int *n_out, char *gpu, size_t gpu_size, infer8_tuning tuning[2], i8_err *err) {
    if (i8_cuda_device_count() < 1) return i8_fail(err, INFER8_E_DEVICE, "build --device cuda: no CUDA device visible");
    void *bctx = NULL;
    i8_backend_options bo;
    memset(&bo, 0, sizeof bo);
    bo.max_batch = max_batch;
    bo.cudnn_budget_s = i8_opt_level_cudnn_budget(opt_level);
    infer8_status s = i8_backend_cuda.prepare(&bctx, (i8_graph *)&m->graph, &bo, err);
    if (s) return s;
    gpu_name(bctx, gpu, gpu_size);
    int batches[2] = {1, max_batch}, nb = max_batch > 1 ? 2 : 1;
    i8_bundle_tactic_set *sets = i8_calloc(2, sizeof *sets, err);
    if (!sets) s = INFER8_E_NOMEM;
    for (int i = 0; !s && i < nb; i++) {
        const i8_cuda_tactic *t = NULL;
        if ((s = i8_cuda_tactics(bctx, batches[i], &t, err))) break;
        i8_cuda_get_tuning(bctx, batches[i], &tuning[i]);
        snprintf(sets[i].gpu, sizeof sets[i].gpu, "%s", gpu);
        sets[i].batch = batches[i];
        sets[i].n_nodes = m->graph.n_nodes;
        sets[i].tactics = i8_calloc((size_t)m->graph.n_nodes, sizeof *sets[i].tactics, err);
        if (!sets[i].tactics) {
            s = INFER8_E_NOMEM;
            break;
        }
        for (int k = 0; k < m->graph.n_nodes; k++) {
            i8_bundle_tactic *d = &sets[i].tactics[k];
            d->kind = t[k].kind, d->variant = t[k].variant, d->engine = t[k].engine;
            memcpy(d->algo, t[k].algo, sizeof d->algo);
            d->ms = t[k].ms, d->workspace = t[k].workspace, d->flags = t[k].flags;
        }
    }
    i8_backend_cuda.destroy(bctx);
    if (s) {
        i8_bundle_tactics_free(sets, 2);
        return s;
    }
    *out = sets;
    *n_out = nb;
    return INFER8_OK;
}
#endif

infer8_status i8_bundle_after_prepare(infer8_model *m, i8_err *err) {
    struct i8_bundle_model *b = m->bundle;
    if (!b || !b->n_tactics) return INFER8_OK;
#ifdef INFER8_HAVE_CUDA
    if (m->backend != &i8_backend_cuda) return INFER8_OK;
    char gpu[128];
    gpu_name(m->backend_ctx, gpu, sizeof gpu);
    for (int i = 0; i < b->n_tactics; i++) {
        const i8_bundle_tactic_set *set = &b->tactics[i];
        if (strcmp(set->gpu, gpu)) {
            blog(b, 2, "bundle tuned for %s, re-tuning on %s (batch %d)", set->gpu, gpu, set->batch);
            continue;
        }
        if (set->batch > m->options.max_batch) continue;
        i8_cuda_tactic *t = i8_calloc((size_t)set->n_nodes, sizeof *t, err);
        if (!t) return INFER8_E_NOMEM;
        for (int k = 0; k < set->n_nodes; k++) {
            const i8_bundle_tactic *d = &set->tactics[k];
            t[k].kind = d->kind, t[k].variant = d->variant, t[k].engine = d->engine;
            memcpy(t[k].algo, d->algo, sizeof t[k].algo);
            t[k].ms = 0, t[k].workspace = d->workspace, t[k].flags = d->flags;
        }
        infer8_status s = i8_cuda_preset_tactics(m->backend_ctx, set->batch, t, err);
        free(t);
        if (s) return s;
        blog(b, 2, "restored CUDA tactics for batch %d (tuned on %s)", set->batch, gpu);
    }
#else
    (void)err;
#endif
    return INFER8_OK;
}

/* ---- build ---- */

EXPORT void infer8_build_options_init(infer8_build_options *o) {
    if (!o) return;
    memset(o, 0, sizeof *o);
    o->struct_size = sizeof *o;
    o->precision = INFER8_PRECISION_FP32;
    o->max_batch = 32;
    o->device = INFER8_DEVICE_CPU_REFERENCE;
    o->opt_level = 2;
}

/* build_options.split_weights: the convs split by --split-weights (i8_pass_split_weights), when any */
static int add_split_convs(cJSON *bopt, const i8_graph *g) {
    cJSON *list = NULL;
    for (int k = 0; k < g->n_nodes; k++) {
        if (!i8_node_is_split(g, k)) continue;
        if (!list && !(list = cJSON_AddArrayToObject(bopt, "split_weights"))) return 0;
        cJSON *name = cJSON_CreateString(g->nodes[k].name);
        if (!name || !cJSON_AddItemToArray(list, name)) {
            cJSON_Delete(name);
            return 0;
        }
    }
    return 1;
}

/* build_options.adaptive_rounding: per conv rounded by --adaptive-rounding, its output error
 * against round-to-nearest's on the calibration images */
static int add_adaptive_rounding(cJSON *bopt, const infer8_model *m) {
    if (!m->adaptive_rounding) return 1;
    cJSON *copy = cJSON_Duplicate(m->adaptive_rounding, 1);
    if (copy && cJSON_AddItemToObject(bopt, "adaptive_rounding", copy)) return 1;
    cJSON_Delete(copy);
    return 0;
}

static const char *precision_name(infer8_precision p) {
    return p == INFER8_PRECISION_FP16 ? "fp16" : p == INFER8_PRECISION_FP8 ? "fp8" : "fp32";
}

/* The checkpoint file whose SHA-256 is the provenance: model.safetensors in a snapshot folder
 * (else its sharded index), or the bare file. */
static void source_file(const char *src, char *buf, size_t size) {
    struct stat st;
    if (stat(src, &st) == 0 && S_ISDIR(st.st_mode)) {
        snprintf(buf, size, "%s/model.safetensors", src);
        if (stat(buf, &st) != 0) snprintf(buf, size, "%s/model.safetensors.index.json", src);
    } else {
        snprintf(buf, size, "%s", src);
    }
}

static int has_fp8(const i8_graph *g) {
    for (int i = 0; i < g->n_nodes; i++)
        if (g->nodes[i].out_scale > 0) return 1;
    return 0;
}

/* infer8_build (out_path) and infer8_build_size (size_only: the file's size, nothing written;
 * no tuning, and the source's SHA-256 not computed: its 64 hex digits have a fixed length);
 * fn names the caller in errors */
static infer8_status build_bundle(const char *fn, infer8_context *ctx, const infer8_model *m,
                                  const infer8_build_options *options, const char *out_path, uint64_t *size_only) {
    i8_err e;
    i8_err_clear(&e);
    i8_err *err = &e;
    if (!ctx || !m || (!out_path && !size_only)) {
        i8_fail(err, INFER8_E_INVALID_ARGUMENT, "%s: NULL argument", fn);
        return i8_ctx_fail(ctx, err);
    }
    infer8_build_options o;
    infer8_build_options_init(&o);
    if (options) {
        if (options->struct_size < offsetof(infer8_build_options, device) + sizeof(infer8_device)) {
            i8_fail(err, INFER8_E_INVALID_ARGUMENT, "%s: options struct_size %u too small", fn,
                    options->struct_size);
            return i8_ctx_fail(ctx, err);
        }
        memcpy(&o, options, options->struct_size < sizeof o ? options->struct_size : sizeof o);
    }
    if (o.max_batch < 1 || o.max_batch > 4096 || (int)o.precision < 0 || o.precision > INFER8_PRECISION_FP8) {
        i8_fail(err, INFER8_E_INVALID_ARGUMENT, "%s: max_batch %d not in 1..4096 or precision %d unknown", fn,
                o.max_batch, (int)o.precision);
        return i8_ctx_fail(ctx, err);
    }
    if (i8_opt_level_check(o.opt_level, fn, err)) return i8_ctx_fail(ctx, err);
    /* FP8: the model must already hold the quantized graph (opened with precision fp8, a recipe
     * and scales.json: i8_model_apply_fp8); its FP8 convs are stored as e4m3 codes + scales and
     * every other conv / linear kernel as fp16 (the study's recipe keeps those layers in fp16).
     * Quantizing an fp32 model here (o.fp8_recipe / o.fp8_scales_path) is not wired yet. */
    int model_fp8 = 0;
    for (int i = 0; i < m->graph.n_nodes; i++)
        if (m->graph.nodes[i].precision == I8_PREC_FP8) model_fp8 = 1;
    if (o.precision == INFER8_PRECISION_FP8 && !model_fp8) {
        i8_fail(err, INFER8_E_UNSUPPORTED,
                "%s: precision fp8: fp8 is not available from an fp32 model; open the checkpoint with "
                "precision fp8, a recipe and scales.json (infer8 calibrate) and build that model",
                fn);
        return i8_ctx_fail(ctx, err);
    }
    /* A model with FP8 layers built as fp32 or fp16 keeps its FP8 convs as e4m3 codes + scales
     * (lossless) and stores the other kernels in the requested precision. */
    const char *prec = precision_name(o.precision);
    if (size_only) o.device = INFER8_DEVICE_CPU; /* no tactic records */
    else i8_ctx_log(ctx, 2, "building %s bundle of %s (%d layers) -> %s", prec, m->family->arch, m->graph.n_nodes, out_path);

    /* provenance */
    char sha[65] = "", src_file[4096] = "";
    const char *src_path = m->source;
    infer8_status s = INFER8_OK;
    if (m->bundle) { /* rebuilding a bundle keeps its original source */
        snprintf(sha, sizeof sha, "%s", m->bundle->sha256);
        src_path = m->bundle->source;
        snprintf(src_file, sizeof src_file, "%s", src_path);
    } else {
        source_file(m->source, src_file, sizeof src_file);
        if (size_only) memset(sha, '0', 64);
        else if ((s = i8_sha256_file(src_file, sha, err))) return i8_ctx_fail(ctx, err);
    }

    i8_bundle_tactic_set *tactics = NULL;
    int n_tactics = 0;
    char gpu[128] = "";
    if (o.device == INFER8_DEVICE_CUDA) {
#ifdef INFER8_HAVE_CUDA
        infer8_tuning tuning[2];
        infer8_tuning_init(&tuning[0]), infer8_tuning_init(&tuning[1]);
        if ((s = tune_cuda(m, o.max_batch, o.opt_level, &tactics, &n_tactics, gpu, sizeof gpu, tuning, err)))
            return i8_ctx_fail(ctx, err);
        i8_ctx_log(ctx, 2, "tuned CUDA tactics on %s for batch 1 and %d (opt level %d)", gpu, o.max_batch, o.opt_level);
        for (int i = 0; i < n_tactics; i++)
            if (tuning[i].untuned_problems)
                i8_ctx_log(ctx, 1,
                           "batch %d: %d of %d conv problems keep cuDNN's first configuration, untimed (the cuDNN "
                           "budget of opt level %d left no time for more); the bundle stores them and every run restores them as "
                           "they are: build with a higher --opt-level for a fully tuned bundle",
                           tactics[i].batch, tuning[i].untuned_problems, tuning[i].conv_problems, o.opt_level);
#else
        i8_fail(err, INFER8_E_UNSUPPORTED, "infer8_build: --device cuda needs a build with the CUDA backend");
        return i8_ctx_fail(ctx, err);
#endif
    }

    /* header */
    char *header = NULL, *config = NULL;
    uint8_t *labels = NULL, *tac = NULL, *act = NULL;
    size_t labels_size = 0, tac_size = 0;
    i8_graph_blob blob = {0};
    cJSON *h = cJSON_CreateObject(), *prov = cJSON_CreateObject(), *bopt = cJSON_CreateObject(),
          *hints = cJSON_CreateObject();
    const char *devices[3] = {"cpu-reference", "cpu-onednn", "cuda"};
    int ok = h && prov && bopt && hints && cJSON_AddStringToObject(h, "format", "infer8-bundle") &&
             cJSON_AddNumberToObject(h, "format_version", I8_BUNDLE_VERSION) &&
             cJSON_AddStringToObject(h, "family", m->family->arch) &&
             cJSON_AddStringToObject(h, "task", "image_to_class_scores") && cJSON_AddStringToObject(h, "precision", prec) &&
             cJSON_AddNumberToObject(h, "max_batch", o.max_batch) &&
             cJSON_AddNumberToObject(h, "layers", m->graph.n_nodes) &&
             cJSON_AddNumberToObject(h, "num_classes", m->config.num_classes) &&
             cJSON_AddItemToObject(hints, "devices", cJSON_CreateStringArray(devices, 3)) &&
             (gpu[0] ? cJSON_AddStringToObject(hints, "tuned_gpu", gpu) != NULL : cJSON_AddNullToObject(hints, "tuned_gpu") != NULL) &&
             cJSON_AddItemToObject(h, "backend_hints", hints);
    if (ok) hints = NULL;
    ok = ok && cJSON_AddStringToObject(h, "tool", "infer8") && cJSON_AddStringToObject(h, "tool_version", infer8_version()) &&
         cJSON_AddStringToObject(prov, "source", src_path) && cJSON_AddStringToObject(prov, "source_file", src_file) &&
         cJSON_AddStringToObject(prov, "source_sha256", sha) && cJSON_AddStringToObject(bopt, "precision", prec) &&
         cJSON_AddNumberToObject(bopt, "max_batch", o.max_batch) &&
         cJSON_AddStringToObject(bopt, "device", o.device == INFER8_DEVICE_CUDA ? "cuda" : "cpu") &&
         (o.device != INFER8_DEVICE_CUDA || cJSON_AddNumberToObject(bopt, "opt_level", o.opt_level)) &&
         add_split_convs(bopt, &m->graph) && add_adaptive_rounding(bopt, m) &&
         cJSON_AddItemToObject(prov, "build_options", bopt);
    if (ok) bopt = NULL;
    ok = ok && cJSON_AddItemToObject(h, "provenance", prov);
    if (ok) prov = NULL;
    header = ok ? i8_json_print(h, 1) : NULL; /* the source path may not be UTF-8; the header must be */
    cJSON_Delete(h), cJSON_Delete(prov), cJSON_Delete(bopt), cJSON_Delete(hints);
    if (!header) {
        s = i8_fail(err, INFER8_E_NOMEM, "%s: out of memory (header)", fn);
        goto done;
    }
    /* config (timm config.json layout; labels go to their own section) */
    i8_model_config cfg = m->config;
    cfg.n_labels = 0;
    cfg.labels = NULL;
    if ((s = i8_config_to_json(&cfg, m->family->first_conv, m->family->classifier, &config, err))) goto done;
    /* labels: config.json's label_names, else the ImageNet-1k names for 1000 classes */
    const char *const *names = NULL;
    int n_names = 0;
    if (m->config.n_labels == m->config.num_classes) names = (const char *const *)m->config.labels, n_names = m->config.n_labels;
    else if (m->config.num_classes == 1000) names = i8_imagenet_labels, n_names = 1000;
    if ((s = i8_bundle_encode_labels(names, n_names, &labels, &labels_size, err))) goto done;
    if ((s = i8_bundle_encode_graph(&m->graph, o.precision != INFER8_PRECISION_FP32, &blob, err))) goto done;

    i8_bundle_writer w;
    memset(&w, 0, sizeof w);
    s = i8_bundle_writer_add(&w, "header", header, strlen(header), err);
    if (!s) s = i8_bundle_writer_add(&w, "config", config, strlen(config), err);
    if (!s) s = i8_bundle_writer_add(&w, "labels", labels, labels_size, err);
    if (!s) s = i8_bundle_writer_add(&w, "graph", blob.graph, blob.graph_size, err);
    if (!s && has_fp8(&m->graph)) {
        act = i8_malloc((size_t)m->graph.n_nodes * 4, err);
        if (!act) s = INFER8_E_NOMEM;
        for (int i = 0; !s && i < m->graph.n_nodes; i++) {
            uint32_t v;
            memcpy(&v, &m->graph.nodes[i].out_scale, 4);
            for (int k = 0; k < 4; k++) act[4 * i + k] = (uint8_t)(v >> (8 * k));
        }
        if (!s) s = i8_bundle_writer_add(&w, "act_scales", act, (size_t)m->graph.n_nodes * 4, err);
    }
    if (!s && n_tactics) {
        s = i8_bundle_encode_tactics(tactics, n_tactics, &tac, &tac_size, err);
        if (!s) s = i8_bundle_writer_add(&w, "tactics.cuda", tac, tac_size, err);
    }
    if (!s) s = i8_bundle_writer_add(&w, "weights", blob.weights, blob.weights_size, err);
    if (!s && size_only) *size_only = i8_bundle_writer_layout(&w);
    else if (!s) s = i8_bundle_writer_write(&w, out_path, err);
    if (!s && !size_only)
        for (int i = 0; i < w.n_sections; i++)
            i8_ctx_log(ctx, 2, "section %-14s %12llu bytes", w.sections[i].name, (unsigned long long)w.sections[i].length);
done:
    free(header);
    free(config);
    free(labels);
    free(tac);
    free(act);
    i8_graph_blob_free(&blob);
    i8_bundle_tactics_free(tactics, n_tactics);
    return s ? i8_ctx_fail(ctx, err) : INFER8_OK;
}

EXPORT infer8_status infer8_build(infer8_context *ctx, const infer8_model *m, const infer8_build_options *options,
                                  const char *out_path) {
    return build_bundle("infer8_build", ctx, m, options, out_path, NULL);
}

EXPORT infer8_status infer8_build_size(infer8_context *ctx, const infer8_model *m, const infer8_build_options *options,
                                       uint64_t *bytes) {
    if (bytes) *bytes = 0;
    return build_bundle("infer8_build_size", ctx, m, options, NULL, bytes);
}
