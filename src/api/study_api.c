/* infer8_study (include/infer8.h): the whole FP8 study of one checkpoint in one call, as
 * /work/shared/reference/fp8-study.md describes it and docs/study.md documents it:
 *   1. dataset (src/eval/dataset.h): take/every subset, calibration split, corrupt items counted;
 *   2. one calibration pass (as infer8_calibrate: one histogram per tensor read by a conv, fed on
 *      the GPU from fp16 activations in a CUDA study, else by the fp32 reference executor's
 *      pre-node hook); every method's scales.json from the same histograms; the calibration
 *      images' fp32 logits are kept as their reference;
 *   3. variants: fp16 (fp16 bundle: fp16-rounded weights; CUDA runs it on the fp16 backend) and
 *      FP8 recipes x methods (checkpoint opened with precision fp8, built as an FP8 bundle, the
 *      bundle is what is scored); residual recipes on families without residual blocks are
 *      reported as not applicable;
 *   4. quality against the fp32 reference over held-out, calibration and stress inputs;
 *   5. speed on CUDA only: interleaved rounds of infer8_time_forward, per-layer-type profiles;
 *      a variant the device cannot run is reported as not measured, with the executor's reason;
 *   6. the report: README.md, study.json, SVG plots (all written atomically), and the decision
 *      from the thresholds. */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "api/model.h"
#include "core/text.h"
#include "eval/dataset.h"
#include "eval/metrics.h"
#include "eval/roofline.h"
#include "eval/stress.h"
#include "eval/svg.h"
#include "image/image.h"
#include "quant/calibrate.h"
#include "quant/fp8.h"
#include "quant/recipe.h"
#include "quant/scales.h"

#define EXPORT __attribute__((visibility("default")))

#define MAX_BATCHES 8
#define MAX_METHODS 4
#define MAX_VARIANTS 32
#define MAX_TYPES 128

enum { SPLIT_HELD = 0, SPLIT_CALIB = 1, SPLIT_STRESS = 2, N_SPLITS = 3 };
static const char *const split_key[N_SPLITS] = {"held_out", "calibration", "stress"};
static const char *const split_title[N_SPLITS] = {"held-out", "calibration", "stress"};


/* ---- state ---- */

typedef struct variant {
    char name[192];               /* "fp16", "fp8/max", "residual-fp8:10-39/max" */
    char token[128];              /* as given in options.variants */
    char recipe[128];             /* FP8 recipe spec */
    int fp16;                     /* 1: the fp16 variant; 0: an FP8 variant */
    int method;                   /* i8_calib_method (FP8) */
    int applicable;
    char note[512];               /* why not applicable */
    int fp8_count, n_quantized, n_residual_fp8;
    char bundle[4096];
    uint64_t bundle_bytes;
    infer8_model *qm;             /* scored model */
    char quality_executor[96];
    infer8_model *sm;             /* timed model (may be qm) */
    int speed_ok;
    char speed_note[640];
    i8_metrics met[N_SPLITS];
    float *logits;                /* batch buffer */
    double *rounds[MAX_BATCHES];
    double med[MAX_BATCHES], mn[MAX_BATCHES], mx[MAX_BATCHES];
    infer8_type_time prof[MAX_BATCHES][MAX_TYPES];
    int nprof[MAX_BATCHES];
    double *layer_ms[MAX_BATCHES]; /* per-layer profile per batch size (speed_ok only; NULL where it failed) */
    infer8_tuning tuning[MAX_BATCHES]; /* how the timed model was tuned at each batch size */
    int tuning_ok[MAX_BATCHES];   /* 1: tuning[] was read (CUDA) */
    int q_ok, s_ok;               /* decision criteria */
    double bound[MAX_BATCHES];    /* roofline bound over fp16 per batch size (FP8, S->peaks set) */
} variant;

typedef struct recipe_list {
    char spec[128];
    char file[64];
    char *text;
    int fp8_count, n_convs;
} recipe_list;

typedef struct study {
    infer8_context *ctx;
    infer8_study_options o;
    const char *model_path, *out_dir;
    infer8_model *ref;
    int num_classes, is_synth;
    size_t per_image;
    variant v[MAX_VARIANTS];
    int nv;
    int methods[MAX_METHODS], nmethods;
    int batches[MAX_BATCHES], nbatches, max_batch;
    i8_dataset *ds;
    i8_dataset_stats stats;
    int pass;                     /* 1 calibration pass, 2 quality pass */
    char *issues[I8_DATASET_MAX_KEPT_ISSUES]; /* pass 1's issue messages (first ones) */
    uint64_t n_issues;
    i8_metrics ref_met[N_SPLITS];  /* the fp32 reference against labels */
    uint64_t ref_nonfinite[N_SPLITS];
    char **keys[N_SPLITS];
    size_t nkeys[N_SPLITS], capkeys[N_SPLITS];
    float *calib_logits;          /* fp32 logits of the calibration images, in order */
    size_t n_calib_logits;
    char scales_path[MAX_METHODS][4096];
    recipe_list recipes[MAX_VARIANTS];
    int nrecipes;
    int speed_measured;
    char speed_reason[640];
    char host[256], cpu[256], device_desc[512], date[64], compiler[128];
    char calib_executor[32];      /* where the calibration statistics were collected */
    int cpu_count;
    double t0, t_calib, t_build, t_quality, t_stress, t_speed;
    int decision;
    char best[192];
    const i8_peaks *peaks;        /* the GPU of the roofline bounds, or NULL (roofline_bounds) */
    i8_strbuf reason;
} study;

/* Variant 0 is the fp16 baseline; any further variant is FP8, which needs scales and recipes. */
static int has_fp8_variants(const study *S) { return S->nv > 1; }

static double now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static void progress(study *S, const char *phase, uint64_t done, uint64_t total) {
    if (S->o.progress) S->o.progress(S->o.progress_user, phase, done, total);
}

/* Status of a failed public call, its message moved from the context into err. */
static infer8_status api(study *S, infer8_status s, i8_err *err) {
    if (!s) return s;
    *err = S->ctx->err;
    /* a call that failed without leaving its own error must not hand back an older one, or none:
     * the study returns err's code, and a zero code would read as success */
    if (err->code != s) i8_fail(err, s, "infer8_study: a library call failed (status %d) without a message", (int)s);
    return s;
}

static infer8_status mkdir_p(const char *path, i8_err *err) {
    char buf[4096];
    if (snprintf(buf, sizeof buf, "%s", path) >= (int)sizeof buf)
        return i8_fail(err, INFER8_E_INVALID_ARGUMENT, "%s: path too long", path);
    for (char *p = buf + 1;; p++) {
        if (*p == '/' || !*p) {
            char c = *p;
            *p = 0;
            if (mkdir(buf, 0777) != 0 && errno != EEXIST)
                return i8_fail(err, INFER8_E_IO, "%s: cannot create folder: %s", buf, strerror(errno));
            *p = c;
            if (!c) break;
        }
    }
    return INFER8_OK;
}

static infer8_status push_key(study *S, int split, const char *key, i8_err *err) {
    if (S->nkeys[split] == S->capkeys[split]) {
        size_t cap = S->capkeys[split] ? S->capkeys[split] * 2 : 64;
        char **t = i8_realloc(S->keys[split], cap * sizeof *t, err);
        if (!t) return INFER8_E_NOMEM;
        S->keys[split] = t;
        S->capkeys[split] = cap;
    }
    char *k = i8_malloc(strlen(key) + 1, err);
    if (!k) return INFER8_E_NOMEM;
    strcpy(k, key);
    S->keys[split][S->nkeys[split]++] = k;
    return INFER8_OK;
}

static void dataset_issue(void *user, const char *message) {
    study *S = user;
    if (S->pass != 1) return; /* the same data is read twice: report each issue once */
    i8_ctx_log(S->ctx, 1, "study: dataset: %s", message);
    if (S->n_issues < I8_DATASET_MAX_KEPT_ISSUES) S->issues[S->n_issues] = strdup(message);
    S->n_issues++;
}

/* ---- options ---- */

EXPORT void infer8_study_summary_init(infer8_study_summary *s) {
    if (!s) return;
    memset(s, 0, sizeof *s);
    s->struct_size = sizeof *s;
}

EXPORT void infer8_study_options_init(infer8_study_options *o) {
    if (!o) return;
    memset(o, 0, sizeof *o);
    o->struct_size = sizeof *o;
    o->take = 2000;
    o->every = 25;
    o->calib = 500;
    o->calib_methods = "max";
    o->variants = "fp16,fp8,residual-fp8:10-39,residual-fp8";
    o->batches = "1,32";
    o->device = INFER8_DEVICE_CPU_REFERENCE;
    o->opt_level = 2;
    o->max_kl = 0.02;
    o->min_agreement = 0.99;
    o->min_speedup = 1.1;
    o->rounds = 7;
    o->iters = 200;
    o->batch = 8;
    o->stress = -1;
}

/* How hard the timed CUDA models were tuned: the opt level, or the environment's override. */
static const char *cuda_tuning_text(const infer8_study_options *o, char *buf, size_t size) {
    const char *env = getenv("INFER8_CUDA_CUDNN_BUDGET");
    if (env) snprintf(buf, size, "opt level %d overridden by INFER8_CUDA_CUDNN_BUDGET=%s s", o->opt_level, env);
    else snprintf(buf, size, "opt level %d", o->opt_level);
    return buf;
}

/* Splits a comma list into at most cap tokens of < tsize bytes. */
static infer8_status split_list(const char *list, const char *what, char (*tok)[128], int cap, int *n, i8_err *err) {
    *n = 0;
    const char *p = list;
    while (*p) {
        const char *e = strchr(p, ',');
        size_t len = e ? (size_t)(e - p) : strlen(p);
        if (len == 0 || len >= 128) return i8_fail(err, INFER8_E_INVALID_ARGUMENT, "%s '%s': empty or over-long item", what, list);
        if (*n == cap) return i8_fail(err, INFER8_E_INVALID_ARGUMENT, "%s '%s': at most %d items", what, list, cap);
        memcpy(tok[*n], p, len);
        tok[*n][len] = 0;
        (*n)++;
        p += len + (e ? 1 : 0);
        if (e && !*p) return i8_fail(err, INFER8_E_INVALID_ARGUMENT, "%s '%s': trailing comma", what, list);
    }
    if (*n == 0) return i8_fail(err, INFER8_E_INVALID_ARGUMENT, "%s: empty list", what);
    return INFER8_OK;
}

static int graph_has_residual_conv(const i8_graph *g) {
    for (int i = 0; i < g->n_nodes; i++)
        if (g->nodes[i].op == I8_OP_CONV && g->nodes[i].residual >= 0) return 1;
    return 0;
}

static infer8_status parse_options(study *S, i8_err *err) {
    infer8_study_options *o = &S->o;
    if (!o->images) return i8_fail(err, INFER8_E_INVALID_ARGUMENT, "infer8_study: options->images (the dataset) is required");
    if (o->every == 0) o->every = 1;
    if (o->batch < 1 || o->batch > 256 || o->rounds < 1 || o->rounds > 1000 || o->iters < 1 || o->iters > 1000000 ||
        !(o->max_kl >= 0) || !(o->min_agreement >= 0 && o->min_agreement <= 1) || !(o->min_speedup > 0) ||
        o->threads < 0 || o->stress < -1)
        return i8_fail(err, INFER8_E_INVALID_ARGUMENT,
                       "infer8_study: batch 1..256, rounds 1..1000, iters >= 1, max_kl >= 0, min_agreement in [0, 1], "
                       "min_speedup > 0, threads >= 0 and stress >= -1 are required");
    if (i8_opt_level_check(o->opt_level, "infer8_study", err)) return err->code;
    if (o->roofline_gpu && !i8_peaks_find(o->roofline_gpu))
        return i8_fail(err, INFER8_E_INVALID_ARGUMENT,
                       "infer8_study: no roofline figures for GPU '%s' (known: H200, H100, H100 PCIe)", o->roofline_gpu);
    if (o->device != INFER8_DEVICE_CPU_REFERENCE && o->device != INFER8_DEVICE_CPU && o->device != INFER8_DEVICE_CUDA)
        return i8_fail(err, INFER8_E_INVALID_ARGUMENT, "infer8_study: unknown device %d", (int)o->device);
    char tok[MAX_VARIANTS][128];
    int n = 0;
    infer8_status s = split_list(o->calib_methods ? o->calib_methods : "max", "calib methods", tok, MAX_METHODS, &n, err);
    if (s) return s;
    for (int i = 0; i < n; i++) {
        i8_calib_method m;
        if (!i8_calib_method_parse(tok[i], &m))
            return i8_fail(err, INFER8_E_INVALID_ARGUMENT, "calib method '%s': expected max, percentile, entropy or mse", tok[i]);
        for (int k = 0; k < S->nmethods; k++)
            if (S->methods[k] == (int)m) return i8_fail(err, INFER8_E_INVALID_ARGUMENT, "calib method '%s' given twice", tok[i]);
        S->methods[S->nmethods++] = (int)m;
    }
    if ((s = split_list(o->batches ? o->batches : "1,32", "batches", tok, MAX_BATCHES, &n, err))) return s;
    S->max_batch = o->batch;
    for (int i = 0; i < n; i++) {
        char *end = NULL;
        long b = strtol(tok[i], &end, 10);
        if (*end || b < 1 || b > 4096) return i8_fail(err, INFER8_E_INVALID_ARGUMENT, "batch '%s': expected 1..4096", tok[i]);
        S->batches[S->nbatches++] = (int)b;
        if (b > S->max_batch) S->max_batch = (int)b;
    }
    if ((s = split_list(o->variants ? o->variants : "fp16", "variants", tok, MAX_VARIANTS, &n, err))) return s;
    int has_fp16 = 0;
    for (int i = 0; i < n; i++) {
        const char *t = tok[i], *recipe = NULL;
        if (!strcmp(t, "fp16")) {
            if (has_fp16) return i8_fail(err, INFER8_E_INVALID_ARGUMENT, "variant fp16 given twice");
            has_fp16 = 1;
            continue;
        }
        if (!strcmp(t, "fp8")) recipe = "default";
        else if (!strncmp(t, "residual-fp8", 12)) recipe = t;
        else if (!strncmp(t, "fp8:", 4) && t[4]) recipe = t + 4;
        else
            return i8_fail(err, INFER8_E_INVALID_ARGUMENT,
                           "variant '%s': expected fp16, fp8, residual-fp8, residual-fp8:A-B or fp8:RECIPE", t);
        for (int k = 0; k < S->nmethods; k++) {
            if (S->nv + 1 >= MAX_VARIANTS) return i8_fail(err, INFER8_E_INVALID_ARGUMENT, "at most %d variants x methods", MAX_VARIANTS - 1);
            variant *v = &S->v[1 + S->nv++];
            snprintf(v->token, sizeof v->token, "%s", t);
            snprintf(v->recipe, sizeof v->recipe, "%s", recipe);
            v->method = S->methods[k];
            snprintf(v->name, sizeof v->name, "%s/%s", t, i8_calib_method_name((i8_calib_method)v->method));
            for (int j = 1; j < S->nv; j++)
                if (!strcmp(S->v[j].name, v->name)) return i8_fail(err, INFER8_E_INVALID_ARGUMENT, "variant '%s' given twice", t);
        }
    }
    /* v[0] is always fp16: the speed baseline (x = fp16 time / variant time) */
    variant *f = &S->v[0];
    snprintf(f->name, sizeof f->name, "fp16");
    snprintf(f->token, sizeof f->token, "fp16");
    f->fp16 = 1;
    S->nv++;
    return INFER8_OK;
}

/* ---- environment ---- */

static void environment(study *S) {
    struct utsname un;
    if (uname(&un) == 0) snprintf(S->host, sizeof S->host, "%s (%s %s, %s)", un.nodename, un.sysname, un.release, un.machine);
    snprintf(S->cpu, sizeof S->cpu, "unknown CPU");
    FILE *f = fopen("/proc/cpuinfo", "r");
    if (f) {
        char line[512];
        while (fgets(line, sizeof line, f))
            if (!strncmp(line, "model name", 10)) {
                const char *c = strchr(line, ':');
                if (c) {
                    snprintf(S->cpu, sizeof S->cpu, "%s", c + 2);
                    S->cpu[strcspn(S->cpu, "\n")] = 0;
                }
                break;
            }
        fclose(f);
    }
    long nc = sysconf(_SC_NPROCESSORS_ONLN);
    S->cpu_count = nc > 0 ? (int)nc : 0;
    time_t now = time(NULL);
    struct tm tmv;
    gmtime_r(&now, &tmv);
    strftime(S->date, sizeof S->date, "%Y-%m-%dT%H:%M:%SZ", &tmv);
#ifdef __VERSION__
    snprintf(S->compiler, sizeof S->compiler, "gcc %s", __VERSION__);
#endif
}

/* ---- calibration: one pass, histograms of every tensor read by a conv ---- */


static infer8_status grow_calib_logits(study *S, size_t n, i8_err *err) {
    float *t = i8_realloc(S->calib_logits, (S->n_calib_logits + n) * (size_t)S->num_classes * sizeof(float), err);
    if (!t) return INFER8_E_NOMEM;
    S->calib_logits = t;
    return INFER8_OK;
}

/* Where a variant is scored on the CPU: the reference executor with --device ref, else the
 * oneDNN backend where built (its FP8 emulation is the reference executor's, in fp32 with
 * oneDNN's accumulation order, and 5-15x faster), and its name for the report. */
static infer8_device cpu_scoring_device(const study *S, const char **name) {
#ifdef INFER8_HAVE_ONEDNN
    if (S->o.device != INFER8_DEVICE_CPU_REFERENCE) {
        *name = "cpu-onednn";
        return INFER8_DEVICE_CPU;
    }
#endif
    *name = "cpu-reference";
    return INFER8_DEVICE_CPU_REFERENCE;
}

/* Pass 1: calibration split through the calibration executor (i8_calib_backend); counts the held-out split. */
static infer8_status calibrate(study *S, uint64_t *n_held, i8_err *err) {
    infer8_model *m = S->ref;
    const i8_graph *g = &m->graph;
    i8_calib_collector c = {0};
    void *bctx = NULL;
    float *batch = NULL, *logits = NULL;
    infer8_status s = INFER8_OK;
    const int B = S->o.batch;
    const int need_scales = has_fp8_variants(S);
    /* no FP8 variant: the pass only keeps the calibration split's reference logits */
    if (need_scales && (s = i8_calib_collector_init(&c, g, err))) goto done;
    /* on a GPU study the statistics come from the GPU (fp16 activations, binned there) and the
     * calibration split's fp32 reference logits from the reference model (oneDNN); on the CPU
     * both from one pass of the CPU scoring executor (oneDNN where built, binning after each
     * node; the reference executor's hooks with --device ref) */
    const int gpu = S->o.device == INFER8_DEVICE_CUDA && need_scales;
    const i8_backend_ops *be = NULL;
    i8_backend_options bo;
    memset(&bo, 0, sizeof bo);
    bo.max_batch = B;
    bo.threads = S->o.threads;
    const char *cpu_name;
    const infer8_device cpu_dev = cpu_scoring_device(S, &cpu_name);
    if ((s = i8_calib_backend(gpu ? INFER8_DEVICE_CUDA : cpu_dev, &c, &bo, &be, err))) goto done;
    snprintf(S->calib_executor, sizeof S->calib_executor, "%s", be->name);
    if ((s = be->prepare(&bctx, &m->graph, &bo, err))) goto done;
    if (!(batch = i8_calloc((size_t)B, S->per_image * sizeof(float), err)) ||
        !(logits = i8_calloc((size_t)B, (size_t)S->num_classes * sizeof(float), err))) {
        s = INFER8_E_NOMEM;
        goto done;
    }
    const uint64_t total_calib = S->o.take && S->o.take < S->o.calib ? S->o.take : S->o.calib;
    progress(S, "calibrate", 0, total_calib);
    int filled = 0, has = 1;
    while (has) {
        i8_sample smp;
        if ((s = i8_dataset_next(S->ds, &smp, &has, err))) goto done;
        if (has && !smp.calib) {
            (*n_held)++;
            continue;
        }
        if (has) {
            if ((s = i8_preprocess(smp.image, &m->config.pre, batch + (size_t)filled * S->per_image, err))) goto done;
            if ((s = push_key(S, SPLIT_CALIB, smp.key, err))) goto done;
            filled++;
        }
        if (filled == B || (!has && filled > 0)) {
            if ((s = be->run(bctx, filled, batch, logits, err))) goto done;
            if (gpu && (s = api(S, infer8_classify_tensor(S->ctx, S->ref, filled, batch, logits), err))) goto done;
            if ((s = grow_calib_logits(S, (size_t)filled, err))) goto done;
            memcpy(S->calib_logits + S->n_calib_logits * (size_t)S->num_classes, logits,
                   (size_t)filled * (size_t)S->num_classes * sizeof(float));
            S->n_calib_logits += (size_t)filled;
            c.batch_id++;
            filled = 0;
            progress(S, "calibrate", S->n_calib_logits, total_calib > S->n_calib_logits ? total_calib : S->n_calib_logits);
        }
    }
    if (need_scales && S->n_calib_logits == 0) {
        s = i8_fail(err, INFER8_E_INVALID_ARGUMENT,
                    "%s: no calibration image could be read (calib %llu of take %llu every %llu); FP8 variants need some",
                    S->o.images, (unsigned long long)S->o.calib, (unsigned long long)S->o.take,
                    (unsigned long long)S->o.every);
        goto done;
    }
    /* every method's scales from the same histograms */
    for (int k = 0; k < S->nmethods && need_scales; k++) {
        i8_scales sc;
        memset(&sc, 0, sizeof sc);
        snprintf(sc.method, sizeof sc.method, "%s", i8_calib_method_name((i8_calib_method)S->methods[k]));
        sc.percentile = 99.99;
        sc.images = S->n_calib_logits;
        for (int p = 0; p < g->n_nodes && !s; p++) {
            if (!c.hist[p]) continue;
            float amax = 0;
            if (c.hist[p]->nonfinite)
                i8_ctx_log(S->ctx, 1, "study: calibration tensor %s: %llu NaN/Inf values ignored", g->nodes[p].name,
                           (unsigned long long)c.hist[p]->nonfinite);
            s = i8_calib_compute_amax(c.hist[p], (i8_calib_method)S->methods[k], sc.percentile, g->nodes[p].name, &amax, err);
            if (!s) s = i8_scales_add(&sc, g->nodes[p].name, amax, i8_fp8_scale_from_amax(amax), err);
        }
        snprintf(S->scales_path[k], sizeof S->scales_path[k], "%s/scales/%s.json", S->out_dir, sc.method);
        if (!s) s = i8_scales_write(S->scales_path[k], &sc, err);
        i8_scales_free(&sc);
        if (s) goto done;
    }
done:
    if (bctx) be->destroy(bctx);
    i8_calib_collector_free(&c);
    free(batch);
    free(logits);
    return s;
}

/* ---- variants ---- */

static int method_index(const study *S, int method) {
    for (int k = 0; k < S->nmethods; k++)
        if (S->methods[k] == method) return k;
    return 0;
}

static void sanitize(const char *in, char *out, size_t size) {
    size_t j = 0;
    for (size_t i = 0; in[i] && j + 1 < size; i++) {
        char ch = in[i];
        out[j++] = (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') || ch == '-' ||
                           ch == '.' || ch == '_'
                       ? ch
                       : '_';
    }
    out[j] = 0;
}

static infer8_status open_model(study *S, const char *path, infer8_device dev, int fp8, const char *recipe,
                                const char *scales, infer8_model **out, i8_err *err) {
    infer8_open_options oo;
    infer8_open_options_init(&oo);
    oo.device = dev;
    oo.threads = S->o.threads;
    oo.max_batch = dev == INFER8_DEVICE_CUDA ? S->max_batch : S->o.batch; /* CPU models only score */
    oo.opt_level = S->o.opt_level;
    if (fp8) {
        oo.precision = INFER8_PRECISION_FP8;
        oo.fp8_recipe = recipe;
        oo.fp8_scales_path = scales;
    }
    return api(S, infer8_model_open(S->ctx, path, &oo, out), err);
}

static infer8_status build_bundle(study *S, const infer8_model *m, infer8_precision p, variant *v, i8_err *err) {
    char file[160];
    sanitize(v->name, file, sizeof file);
    snprintf(v->bundle, sizeof v->bundle, "%s/bundles/%s.bundle", S->out_dir, file);
    infer8_build_options bo;
    infer8_build_options_init(&bo);
    bo.precision = p;
    bo.max_batch = S->max_batch;
    infer8_status s = api(S, infer8_build(S->ctx, m, &bo, v->bundle), err);
    if (s) return s;
    struct stat st;
    if (stat(v->bundle, &st) != 0) return i8_fail(err, INFER8_E_IO, "%s: written but cannot stat", v->bundle);
    v->bundle_bytes = (uint64_t)st.st_size;
    return INFER8_OK;
}

static infer8_status recipe_listing(study *S, variant *v, i8_err *err) {
    for (int i = 0; i < S->nrecipes; i++)
        if (!strcmp(S->recipes[i].spec, v->recipe)) {
            v->fp8_count = S->recipes[i].fp8_count;
            return INFER8_OK;
        }
    recipe_list *r = &S->recipes[S->nrecipes];
    snprintf(r->spec, sizeof r->spec, "%s", v->recipe);
    sanitize(v->recipe, r->file, sizeof r->file - 4);
    strcat(r->file, ".txt");
    infer8_status s = api(S, infer8_fp8_recipe_describe(S->ctx, S->ref, v->recipe, 0, &r->text, &r->fp8_count), err);
    if (s) return s;
    S->nrecipes++;
    r->n_convs = 0;
    for (int i = 0; i < S->ref->graph.n_nodes; i++) r->n_convs += S->ref->graph.nodes[i].op == I8_OP_CONV;
    char path[4300];
    snprintf(path, sizeof path, "%s/recipes/%s", S->out_dir, r->file);
    v->fp8_count = r->fp8_count;
    return i8_write_file_atomic(path, r->text, strlen(r->text), err);
}

/* Plan counts (quantized tensors, residual-FP8 convs) for the report. */
static void plan_counts(study *S, variant *v) {
    i8_fp8_recipe r;
    i8_fp8_plan p;
    memset(&r, 0, sizeof r);
    memset(&p, 0, sizeof p);
    i8_err e;
    if (!i8_fp8_recipe_from_spec(v->recipe, &S->ref->limits, &r, &e) && !i8_fp8_plan_make(&S->ref->graph, &r, &p, &e)) {
        v->n_quantized = p.n_quantized;
        v->n_residual_fp8 = p.n_residual_fp8;
    }
    i8_fp8_plan_free(&p);
    i8_fp8_recipe_free(&r);
}

/* Probes whether the device runs this model: one timed forward of batch 1. */
static int probe_device(study *S, infer8_model *m, char *note, size_t size) {
    double ms;
    if (infer8_time_forward(S->ctx, m, 1, 1, &ms) == INFER8_OK) return 1;
    snprintf(note, size, "%s", infer8_errmsg(S->ctx));
    return 0;
}

static infer8_status build_variants(study *S, i8_err *err) {
    const int cuda = S->o.device == INFER8_DEVICE_CUDA;
    const char *cpu_name;
    const infer8_device cpu_dev = cpu_scoring_device(S, &cpu_name);
    const int residual_graph = graph_has_residual_conv(&S->ref->graph);
    infer8_status s;
    for (int i = 0; i < S->nv; i++) {
        variant *v = &S->v[i];
        progress(S, "build variants", (uint64_t)i, (uint64_t)S->nv);
        v->applicable = 1;
        if (v->fp16) {
            if ((s = build_bundle(S, S->ref, INFER8_PRECISION_FP16, v, err))) return s;
            if ((s = open_model(S, v->bundle, cuda ? INFER8_DEVICE_CUDA : cpu_dev, 0, NULL, NULL, &v->qm, err))) return s;
            if (cuda) snprintf(v->quality_executor, sizeof v->quality_executor, "cuda (fp16 backend)");
            else
                snprintf(v->quality_executor, sizeof v->quality_executor, "%s (fp16-rounded weights, fp32 activations)",
                         cpu_name);
            if (cuda) {
                v->sm = v->qm;
                if (!(v->speed_ok = probe_device(S, v->sm, v->speed_note, sizeof v->speed_note)))
                    return i8_fail(err, INFER8_E_DEVICE, "the fp16 baseline cannot run on the CUDA device: %s", v->speed_note);
            }
            continue;
        }
        if (!strncmp(v->recipe, "residual-fp8", 12) && !residual_graph) {
            v->applicable = 0;
            snprintf(v->note, sizeof v->note, "not applicable: %s has no residual blocks (no fused residual convolution)",
                     S->ref->family->arch);
            continue;
        }
        if ((s = recipe_listing(S, v, err))) return s;
        plan_counts(S, v);
        infer8_model *fp8 = NULL;
        if ((s = open_model(S, S->model_path, INFER8_DEVICE_CPU_REFERENCE, 1, v->recipe,
                            S->scales_path[method_index(S, v->method)], &fp8, err)))
            return s;
        s = build_bundle(S, fp8, INFER8_PRECISION_FP8, v, err);
        infer8_model_close(fp8);
        if (s) return s;
        /* the bundle (e4m3 FP8 convs, fp16 other kernels) is what is scored and timed */
        if (cuda) {
            infer8_model *dm = NULL;
            if ((s = open_model(S, v->bundle, INFER8_DEVICE_CUDA, 0, NULL, NULL, &dm, err))) return s;
            if ((v->speed_ok = probe_device(S, dm, v->speed_note, sizeof v->speed_note))) {
                v->qm = v->sm = dm;
                snprintf(v->quality_executor, sizeof v->quality_executor, "cuda");
                continue;
            }
            infer8_model_close(dm);
        }
        if ((s = open_model(S, v->bundle, cpu_dev, 0, NULL, NULL, &v->qm, err))) return s;
        snprintf(v->quality_executor, sizeof v->quality_executor, "%s (FP8 emulation, docs/fp8.md)", cpu_name);
    }
    progress(S, "build variants", (uint64_t)S->nv, (uint64_t)S->nv);
    return INFER8_OK;
}

/* ---- quality ---- */

static int all_finite(const float *x, size_t n) {
    for (size_t i = 0; i < n; i++)
        if (!isfinite(x[i])) return 0;
    return 1;
}

/* Scores one batch: ref logits given (calibration) or computed; every applicable variant. */
static infer8_status score_batch(study *S, int split, int n, const float *x, const float *ref_given, const int *labels,
                                 float *ref_buf, i8_err *err) {
    const size_t C = (size_t)S->num_classes;
    const float *ref = ref_given;
    infer8_status s;
    if (!ref) {
        if ((s = api(S, infer8_classify_tensor(S->ctx, S->ref, n, x, ref_buf), err))) return s;
        ref = ref_buf;
    }
    for (int i = 0; i < n; i++) {
        if (!all_finite(ref + i * C, C)) S->ref_nonfinite[split]++;
        if ((s = i8_metrics_add(&S->ref_met[split], NULL, ref + i * C, labels[i], err))) return s;
    }
    for (int k = 0; k < S->nv; k++) {
        variant *v = &S->v[k];
        if (!v->applicable) continue;
        /* a GPU model always runs the full batch (x has room for it; the extra rows are ignored
         * and never change the others): one tuned batch size instead of one per partial batch */
        const int run_n = v->qm->options.device == INFER8_DEVICE_CUDA ? S->o.batch : n;
        if ((s = api(S, infer8_classify_tensor(S->ctx, v->qm, run_n, x, v->logits), err))) return s;
        for (int i = 0; i < n; i++) {
            const float *r = all_finite(ref + i * C, C) ? ref + i * C : NULL;
            if ((s = i8_metrics_add(&v->met[split], r, v->logits + i * C, labels[i], err))) return s;
        }
    }
    return INFER8_OK;
}

static infer8_status quality(study *S, uint64_t total, i8_err *err) {
    const int B = S->o.batch;
    const size_t C = (size_t)S->num_classes;
    float *batch = i8_calloc((size_t)B, S->per_image * sizeof(float), err);
    float *refb = batch ? i8_calloc((size_t)B, C * sizeof(float), err) : NULL;
    int labels[256];
    if (!refb) {
        free(batch);
        return INFER8_E_NOMEM;
    }
    infer8_status s = i8_dataset_rewind(S->ds, err);
    int filled = 0, split = -1, has = 1;
    size_t calib_pos = 0, done = 0;
    progress(S, "quality", 0, total);
    while (!s && has) {
        i8_sample smp;
        if ((s = i8_dataset_next(S->ds, &smp, &has, err))) break;
        int sp = has ? (smp.calib ? SPLIT_CALIB : SPLIT_HELD) : -1;
        if (filled > 0 && (sp != split || filled == B)) {
            const float *given = NULL;
            if (split == SPLIT_CALIB) {
                if (calib_pos + (size_t)filled > S->n_calib_logits) {
                    s = i8_fail(err, INFER8_E_INTERNAL, "calibration split changed between passes (%zu > %zu images)",
                                calib_pos + (size_t)filled, S->n_calib_logits);
                    break;
                }
                given = S->calib_logits + calib_pos * C;
                calib_pos += (size_t)filled;
            }
            if ((s = score_batch(S, split, filled, batch, given, labels, refb, err))) break;
            done += (size_t)filled;
            progress(S, "quality", done, total > done ? total : done);
            filled = 0;
        }
        if (!has) break;
        split = sp;
        if ((s = i8_preprocess(smp.image, &S->ref->config.pre, batch + (size_t)filled * S->per_image, err))) break;
        if (sp == SPLIT_HELD && (s = push_key(S, SPLIT_HELD, smp.key, err))) break;
        labels[filled++] = smp.label;
    }
    if (!s) S->stats = *i8_dataset_get_stats(S->ds);
    free(batch);
    free(refb);
    return s;
}

static infer8_status stress(study *S, i8_err *err) {
    size_t n = i8_stress_count();
    if (S->o.stress >= 0 && (size_t)S->o.stress < n) n = (size_t)S->o.stress;
    const int B = S->o.batch;
    const size_t C = (size_t)S->num_classes;
    float *x = i8_calloc((size_t)B, S->per_image * sizeof(float), err);
    float *refb = x ? i8_malloc((size_t)B * C * sizeof(float), err) : NULL;
    if (!refb) {
        free(x);
        return INFER8_E_NOMEM;
    }
    infer8_status s = INFER8_OK;
    int labels[256], filled = 0;
    for (int i = 0; i < B; i++) labels[i] = -1;
    progress(S, "stress inputs", 0, n);
    for (size_t i = 0; i < n && !s; i++) {
        i8_image im = {0};
        if ((s = i8_stress_generate(i, &im, err))) break;
        s = i8_preprocess(&im, &S->ref->config.pre, x + (size_t)filled * S->per_image, err);
        i8_image_free(&im);
        if (!s) s = push_key(S, SPLIT_STRESS, i8_stress_get(i)->name, err);
        if (!s && ++filled == B) s = score_batch(S, SPLIT_STRESS, filled, x, NULL, labels, refb, err), filled = 0;
        if (!filled) progress(S, "stress inputs", i + 1, n);
    }
    if (!s && filled) s = score_batch(S, SPLIT_STRESS, filled, x, NULL, labels, refb, err);
    if (!s && n) progress(S, "stress inputs", n, n);
    free(x);
    free(refb);
    return s;
}

/* ---- speed ---- */

/* The reports' roofline bounds (eval/roofline.h), once: the GPU is options.roofline_gpu
 * (checked at the start), else the timing GPU when it is in the table, else none; each FP8
 * variant's bound over fp16 per batch size (NAN without a graph). */
static void roofline_bounds(study *S) {
    S->peaks = S->o.roofline_gpu ? i8_peaks_find(S->o.roofline_gpu)
               : S->speed_measured ? i8_peaks_find(S->device_desc)
                                   : NULL;
    for (int k = 0; k < S->nv && S->peaks; k++) {
        variant *v = &S->v[k];
        const infer8_model *m = v->qm ? v->qm : v->sm;
        for (int b = 0; b < S->nbatches; b++) {
            v->bound[b] = NAN;
            if (!m || v->fp16) continue;
            i8_roofline r;
            i8_roofline_convs(&m->graph, S->batches[b], S->peaks, &r);
            if (r.fp8_s > 0) v->bound[b] = r.fp16_s / r.fp8_s;
        }
    }
}

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static infer8_status speed(study *S, i8_err *err) {
    const int iters = S->o.iters, rounds = S->o.rounds, warm = iters < 20 ? iters : 20;
    int timed[MAX_VARIANTS], nt = 0;
    for (int k = 0; k < S->nv; k++)
        if (S->v[k].applicable && S->v[k].speed_ok) timed[nt++] = k;
    const int layers = S->ref->graph.n_nodes;
    infer8_status s = INFER8_OK;
    uint64_t total = (uint64_t)S->nbatches * (uint64_t)rounds, done = 0;
    progress(S, "speed", 0, total);
    for (int b = 0; b < S->nbatches && !s; b++) {
        const int n = S->batches[b];
        double ms;
        for (int j = 0; j < nt && !s; j++) s = api(S, infer8_time_forward(S->ctx, S->v[timed[j]].sm, n, warm, &ms), err);
        for (int j = 0; j < nt && !s; j++)
            if (!(S->v[timed[j]].rounds[b] = i8_calloc((size_t)rounds, sizeof(double), err))) s = INFER8_E_NOMEM;
        for (int r = 0; r < rounds && !s; r++) { /* interleaved: A B C A B C ... */
            for (int j = 0; j < nt && !s; j++)
                s = api(S, infer8_time_forward(S->ctx, S->v[timed[j]].sm, n, iters, &S->v[timed[j]].rounds[b][r]), err);
            progress(S, "speed", ++done, total);
        }
        for (int j = 0; j < nt && !s; j++) {
            variant *v = &S->v[timed[j]];
            double sorted[1000];
            memcpy(sorted, v->rounds[b], sizeof(double) * (size_t)rounds);
            qsort(sorted, (size_t)rounds, sizeof(double), cmp_double);
            v->mn[b] = sorted[0];
            v->mx[b] = sorted[rounds - 1];
            v->med[b] = rounds % 2 ? sorted[rounds / 2] : 0.5 * (sorted[rounds / 2 - 1] + sorted[rounds / 2]);
            infer8_tuning_init(&v->tuning[b]);
            v->tuning_ok[b] = infer8_get_tuning(S->ctx, v->sm, n, &v->tuning[b]) == INFER8_OK;
            double *lm = i8_calloc((size_t)layers, sizeof(double), err);
            if (!lm) {
                s = INFER8_E_NOMEM;
                break;
            }
            /* the tables compare layer i across variants, and the profile writes one entry per
             * layer of the timed model: both need the reference's graph, layer for layer */
            infer8_model_info mi;
            infer8_model_info_init(&mi);
            if (infer8_model_get_info(v->sm, &mi) != INFER8_OK || mi.num_layers != layers) {
                i8_ctx_log(S->ctx, 1, "study: %s has %d layers against the reference's %d: no per-layer profile", v->name,
                           mi.num_layers, layers);
            } else if (infer8_profile(S->ctx, v->sm, n, warm, lm) == INFER8_OK) {
                const int types = infer8_profile_by_type(v->sm, lm, layers, v->prof[b], MAX_TYPES);
                v->nprof[b] = types > 0 ? types : 0;
                v->layer_ms[b] = lm;
                lm = NULL;
            } else {
                i8_ctx_log(S->ctx, 1, "study: profile of %s batch %d: %s", v->name, n, infer8_errmsg(S->ctx));
            }
            free(lm);
        }
    }
    return s;
}

/* ---- decision ---- */

/* The fp16 baseline's convolutions at batch index b that kept cuDNN's first configuration
 * because the tuning budget left no time to try others (0 when all were tuned or nothing is known):
 * its time is then slower than a fully tuned fp16 graph's, and every x against it is overstated. */
static int baseline_untuned(const study *S, int b) {
    const variant *f = &S->v[0];
    return S->speed_measured && f->speed_ok && f->tuning_ok[b] ? f->tuning[b].untuned_problems : 0;
}

static int any_baseline_untuned(const study *S) {
    for (int b = 0; b < S->nbatches; b++)
        if (baseline_untuned(S, b)) return 1;
    return 0;
}

/* One sentence per batch size whose baseline was under-tuned, into r; 1 when there was one. */
static int undertuned_note(const study *S, i8_strbuf *r) {
    int any = 0;
    for (int b = 0; b < S->nbatches; b++) {
        const int u = baseline_untuned(S, b);
        if (!u) continue;
        const infer8_tuning *t = &S->v[0].tuning[b];
        i8_strbuf_printf(r, "%sthe fp16 baseline at batch %d is under-tuned: %d of its %d convolution problems kept "
                            "cuDNN's first configuration, untimed against the others: the %.0f s cuDNN budget left no time "
                            "for more",
                         any ? "; " : "", S->batches[b], u, t->conv_problems, t->cudnn_budget_s);
        any = 1;
    }
    if (any)
        i8_strbuf_printf(r, ". So the speed-ups above are overstated; a fair baseline needs a higher --opt-level (3 tunes "
                            "every configuration).");
    return any;
}

static void decide_reasons(study *S) {
    const infer8_study_options *o = &S->o;
    i8_strbuf *r = &S->reason;
    int any_q = 0, ship = -1;
    double best_x = -1;
    S->best[0] = 0;
    double best_kl = INFINITY;
    for (int k = 1; k < S->nv; k++) {
        variant *v = &S->v[k];
        if (!v->applicable) {
            i8_strbuf_printf(r, "%s: %s. ", v->name, v->note);
            continue;
        }
        i8_metrics_summary h;
        i8_metrics_summarize(&v->met[SPLIT_HELD], &h);
        uint64_t nonfinite = 0;
        for (int sp = 0; sp < N_SPLITS; sp++) nonfinite += v->met[sp].nonfinite_images;
        v->q_ok = h.compared > 0 && h.kl_mean <= o->max_kl && h.agreement >= o->min_agreement && nonfinite == 0;
        any_q |= v->q_ok;
        if (h.compared > 0 && h.kl_mean < best_kl) best_kl = h.kl_mean, snprintf(S->best, sizeof S->best, "%s", v->name);
        i8_strbuf_printf(r, "%s: ", v->name);
        if (h.compared == 0) i8_strbuf_printf(r, "no held-out image scored (quality unknown)");
        else
            i8_strbuf_printf(r, "KL %.6f %s %g, agreement %.2f%% %s %.2f%%, %llu non-finite images", h.kl_mean,
                      h.kl_mean <= o->max_kl ? "<=" : ">", o->max_kl, 100 * h.agreement,
                      h.agreement >= o->min_agreement ? ">=" : "<", 100 * o->min_agreement, (unsigned long long)nonfinite);
        i8_strbuf_printf(r, " -> quality %s", v->q_ok ? "passes" : "fails");
        if (!S->speed_measured) {
            i8_strbuf_printf(r, "; speed not measured. ");
            continue;
        }
        if (!v->speed_ok) {
            i8_strbuf_printf(r, "; speed not measured: cannot run on the device. ");
            continue;
        }
        v->s_ok = 1;
        for (int b = 0; b < S->nbatches; b++) {
            double x = S->v[0].med[b] / v->med[b];
            i8_strbuf_printf(r, "; batch %d x %.3f %s %.2f", S->batches[b], x, x >= o->min_speedup ? ">=" : "<", o->min_speedup);
            if (!(x >= o->min_speedup)) v->s_ok = 0;
        }
        i8_strbuf_printf(r, " -> speed %s. ", v->s_ok ? "passes" : "fails");
        if (v->q_ok && v->s_ok) {
            double x = S->v[0].med[0] / v->med[0];
            if (x > best_x) best_x = x, ship = k;
        }
    }
    if (S->nv == 1) {
        S->decision = 0;
        i8_strbuf_printf(r, "no FP8 variant was asked for.");
        return;
    }
    const int undertuned = any_baseline_untuned(S);
    if (undertuned) { /* "Note: the fp16 baseline ..." */
        i8_strbuf_printf(r, "Note: ");
        undertuned_note(S, r);
        i8_strbuf_printf(r, " ");
    }
    if (ship >= 0 && undertuned) { /* a speed pass against a slow baseline proves nothing */
        S->decision = -1;
        i8_strbuf_printf(r, "%s passes both, but only against that under-tuned baseline: undecided.", S->v[ship].name);
        return;
    }
    if (ship >= 0) {
        S->decision = 1;
        snprintf(S->best, sizeof S->best, "%s", S->v[ship].name);
        return;
    }
    int any_runnable_q = 0, any_unrunnable_q = 0;
    for (int k = 1; k < S->nv; k++)
        if (S->v[k].applicable && S->v[k].q_ok) {
            if (S->speed_measured && S->v[k].speed_ok) any_runnable_q = 1;
            else any_unrunnable_q = 1;
        }
    if (!any_q) S->decision = 0; /* quality alone rules FP8 out */
    else if (any_runnable_q && !any_unrunnable_q) S->decision = 0; /* measured and too slow */
    else S->decision = -1;                                             /* quality passes, speed unknown */
}

/* the reasons are sentences each followed by a space; the printed and stored text ends at the last */
static void decide(study *S) {
    decide_reasons(S);
    i8_strbuf *r = &S->reason;
    while (r->s && r->len && r->s[r->len - 1] == ' ') r->s[--r->len] = 0;
}

static const char *decision_word(int d) { return d > 0 ? "ship" : d == 0 ? "do not ship" : "undecided"; }

/* ---- report: study.json ---- */

static cJSON *num(double x) { return isfinite(x) ? cJSON_CreateNumber(x) : cJSON_CreateNull(); }

static cJSON *summary_json(const i8_metrics *m) {
    i8_metrics_summary s;
    i8_metrics_summarize(m, &s);
    cJSON *o = cJSON_CreateObject();
    cJSON_AddNumberToObject(o, "images", (double)s.images);
    cJSON_AddNumberToObject(o, "labelled", (double)s.labelled);
    cJSON_AddNumberToObject(o, "compared", (double)s.compared);
    cJSON_AddItemToObject(o, "top1", num(s.top1));
    cJSON_AddItemToObject(o, "top5", num(s.top5));
    cJSON_AddItemToObject(o, "agreement", num(s.agreement));
    cJSON_AddItemToObject(o, "kl_mean", num(s.kl_mean));
    cJSON_AddItemToObject(o, "kl_p99", num(s.kl_p99));
    cJSON_AddItemToObject(o, "kl_max", num(s.kl_max));
    cJSON_AddItemToObject(o, "max_abs_logit_err", num(s.max_abs_logit_err));
    cJSON_AddNumberToObject(o, "nan_logits", (double)s.nan_logits);
    cJSON_AddNumberToObject(o, "inf_logits", (double)s.inf_logits);
    cJSON_AddNumberToObject(o, "nonfinite_images", (double)s.nonfinite_images);
    cJSON *kl = cJSON_AddArrayToObject(o, "kl_per_image");
    for (size_t i = 0; i < m->kl_count; i++) cJSON_AddItemToArray(kl, num(m->kl[i]));
    return o;
}

static char *study_json(study *S, double wall) {
    const infer8_study_options *o = &S->o;
    cJSON *root = cJSON_CreateObject();
    cJSON_AddStringToObject(root, "format", "infer8-study");
    cJSON_AddNumberToObject(root, "version", 1);
    cJSON_AddStringToObject(root, "tool", "infer8");
    cJSON_AddStringToObject(root, "tool_version", infer8_version());
    cJSON_AddStringToObject(root, "command", o->command ? o->command : "");
    cJSON_AddStringToObject(root, "date", S->date);
    cJSON *env = cJSON_AddObjectToObject(root, "environment");
    cJSON_AddStringToObject(env, "host", S->host);
    cJSON_AddStringToObject(env, "cpu", S->cpu);
    cJSON_AddNumberToObject(env, "cpu_count", S->cpu_count);
    cJSON_AddStringToObject(env, "device", o->device == INFER8_DEVICE_CUDA ? "cuda" : "cpu");
    cJSON_AddStringToObject(env, "device_description", S->device_desc);
    if (o->device == INFER8_DEVICE_CUDA) {
        char tuning[128];
        cJSON_AddStringToObject(env, "cuda_tuning", cuda_tuning_text(o, tuning, sizeof tuning));
    }
    cJSON_AddStringToObject(env, "compiler", S->compiler);
    cJSON *md = cJSON_AddObjectToObject(root, "model");
    cJSON_AddStringToObject(md, "path", S->model_path);
    cJSON_AddStringToObject(md, "arch", S->ref->family->arch);
    cJSON_AddStringToObject(md, "tag", S->ref->config.tag);
    cJSON_AddBoolToObject(md, "synthetic", S->is_synth);
    cJSON_AddNumberToObject(md, "num_classes", S->num_classes);
    cJSON_AddNumberToObject(md, "layers", S->ref->graph.n_nodes);
    cJSON *th = cJSON_AddObjectToObject(root, "thresholds");
    cJSON_AddNumberToObject(th, "max_kl", o->max_kl);
    cJSON_AddNumberToObject(th, "min_agreement", o->min_agreement);
    cJSON_AddNumberToObject(th, "min_speedup", o->min_speedup);
    cJSON *dec = cJSON_AddObjectToObject(root, "decision");
    cJSON_AddStringToObject(dec, "decision", decision_word(S->decision));
    cJSON_AddNumberToObject(dec, "code", S->decision);
    cJSON_AddStringToObject(dec, "variant", S->best);
    cJSON_AddStringToObject(dec, "reason", S->reason.s ? S->reason.s : "");
    cJSON *ds = cJSON_AddObjectToObject(root, "dataset");
    cJSON_AddStringToObject(ds, "source", o->images);
    cJSON_AddNumberToObject(ds, "take", (double)o->take);
    cJSON_AddNumberToObject(ds, "every", (double)o->every);
    cJSON_AddNumberToObject(ds, "calib", (double)o->calib);
    cJSON_AddNumberToObject(ds, "seen", (double)S->stats.seen);
    cJSON_AddNumberToObject(ds, "selected", (double)S->stats.selected);
    cJSON_AddNumberToObject(ds, "used", (double)S->stats.yielded);
    cJSON_AddNumberToObject(ds, "calibration_images", (double)S->stats.yielded_calib);
    cJSON_AddNumberToObject(ds, "held_out_images", (double)(S->stats.yielded - S->stats.yielded_calib));
    cJSON_AddNumberToObject(ds, "skipped", (double)S->stats.skipped);
    cJSON_AddNumberToObject(ds, "bad_shards", (double)S->stats.bad_shards);
    cJSON_AddNumberToObject(ds, "issues", (double)S->n_issues);
    cJSON *iss = cJSON_AddArrayToObject(ds, "issue_messages");
    for (size_t i = 0; i < S->n_issues && i < I8_DATASET_MAX_KEPT_ISSUES; i++)
        if (S->issues[i]) cJSON_AddItemToArray(iss, cJSON_CreateString(S->issues[i]));
    cJSON_AddNumberToObject(ds, "stress_inputs", (double)S->nkeys[SPLIT_STRESS]);
    cJSON *keys = cJSON_AddObjectToObject(root, "image_keys");
    for (int sp = 0; sp < N_SPLITS; sp++) {
        cJSON *a = cJSON_AddArrayToObject(keys, split_key[sp]);
        for (size_t i = 0; i < S->nkeys[sp]; i++) cJSON_AddItemToArray(a, cJSON_CreateString(S->keys[sp][i]));
    }
    cJSON *rf = cJSON_AddObjectToObject(root, "reference");
    char ref_executor[64]; /* the backend that computed the fp32 logits (oneDNN where built) */
    snprintf(ref_executor, sizeof ref_executor, "%s fp32", S->ref->backend ? S->ref->backend->name : "cpu-reference");
    cJSON_AddStringToObject(rf, "executor", ref_executor);
    for (int sp = 0; sp < N_SPLITS; sp++) {
        i8_metrics_summary s;
        i8_metrics_summarize(&S->ref_met[sp], &s);
        cJSON *x = cJSON_AddObjectToObject(rf, split_key[sp]);
        cJSON_AddNumberToObject(x, "images", (double)s.images);
        cJSON_AddItemToObject(x, "top1", num(s.top1));
        cJSON_AddItemToObject(x, "top5", num(s.top5));
        cJSON_AddNumberToObject(x, "nonfinite_images", (double)S->ref_nonfinite[sp]);
    }
    cJSON *rc = cJSON_AddArrayToObject(root, "recipes");
    for (int i = 0; i < S->nrecipes; i++) {
        cJSON *x = cJSON_CreateObject();
        cJSON_AddItemToArray(rc, x);
        cJSON_AddStringToObject(x, "spec", S->recipes[i].spec);
        cJSON_AddStringToObject(x, "listing", S->recipes[i].file);
        cJSON_AddNumberToObject(x, "fp8_convolutions", S->recipes[i].fp8_count);
        cJSON_AddNumberToObject(x, "convolutions", S->recipes[i].n_convs);
    }
    cJSON *sc = cJSON_AddArrayToObject(root, "scales");
    for (int k = 0; k < S->nmethods && has_fp8_variants(S); k++) {
        cJSON *x = cJSON_CreateObject();
        cJSON_AddItemToArray(sc, x);
        cJSON_AddStringToObject(x, "method", i8_calib_method_name((i8_calib_method)S->methods[k]));
        cJSON_AddStringToObject(x, "path", S->scales_path[k]);
    }
    cJSON *bt = cJSON_AddArrayToObject(root, "batches");
    for (int b = 0; b < S->nbatches; b++) cJSON_AddItemToArray(bt, cJSON_CreateNumber(S->batches[b]));
    cJSON *sp_ = cJSON_AddObjectToObject(root, "speed");
    cJSON_AddBoolToObject(sp_, "measured", S->speed_measured);
    cJSON_AddStringToObject(sp_, "note", S->speed_reason);
    cJSON_AddNumberToObject(sp_, "rounds", o->rounds);
    cJSON_AddNumberToObject(sp_, "iters", o->iters);
    if (S->speed_measured) { /* the layers every variant's layer_ms and layer_types index */
        cJSON *ln = cJSON_AddArrayToObject(sp_, "layer_names");
        for (int i = 0; i < S->ref->graph.n_nodes; i++) {
            const char *name = infer8_layer_name(S->ref, i);
            cJSON_AddItemToArray(ln, cJSON_CreateString(name ? name : ""));
        }
    }
    cJSON *va = cJSON_AddArrayToObject(root, "variants");
    for (int k = 0; k < S->nv; k++) {
        variant *v = &S->v[k];
        cJSON *x = cJSON_CreateObject();
        cJSON_AddItemToArray(va, x);
        cJSON_AddStringToObject(x, "name", v->name);
        cJSON_AddStringToObject(x, "kind", v->fp16 ? "fp16" : "fp8");
        if (!v->fp16) {
            cJSON_AddStringToObject(x, "recipe", v->recipe);
            cJSON_AddStringToObject(x, "method", i8_calib_method_name((i8_calib_method)v->method));
        }
        cJSON_AddBoolToObject(x, "applicable", v->applicable);
        if (!v->applicable) {
            cJSON_AddStringToObject(x, "note", v->note);
            continue;
        }
        if (!v->fp16) {
            cJSON_AddNumberToObject(x, "fp8_convolutions", v->fp8_count);
            cJSON_AddNumberToObject(x, "quantized_tensors", v->n_quantized);
            cJSON_AddNumberToObject(x, "residual_fp8_convolutions", v->n_residual_fp8);
        }
        cJSON_AddStringToObject(x, "bundle", v->bundle);
        cJSON_AddNumberToObject(x, "bundle_bytes", (double)v->bundle_bytes);
        cJSON_AddStringToObject(x, "quality_executor", v->quality_executor);
        cJSON *q = cJSON_AddObjectToObject(x, "quality");
        for (int sp = 0; sp < N_SPLITS; sp++) cJSON_AddItemToObject(q, split_key[sp], summary_json(&v->met[sp]));
        cJSON_AddBoolToObject(x, "quality_passes", v->q_ok);
        cJSON *spd = cJSON_AddObjectToObject(x, "speed");
        cJSON_AddBoolToObject(spd, "measured", S->speed_measured && v->speed_ok);
        cJSON_AddStringToObject(spd, "note", !S->speed_measured ? S->speed_reason : v->speed_ok ? "" : v->speed_note);
        if (S->peaks && !v->fp16) {
            cJSON *rf = cJSON_AddObjectToObject(spd, "roofline_bound");
            cJSON_AddStringToObject(rf, "gpu", S->peaks->gpu);
            cJSON *xb = cJSON_AddObjectToObject(rf, "x_by_batch");
            for (int b = 0; b < S->nbatches; b++) {
                char key[16];
                snprintf(key, sizeof key, "%d", S->batches[b]);
                cJSON_AddItemToObject(xb, key, num(v->bound[b]));
            }
        }
        if (S->speed_measured && v->speed_ok) {
            cJSON *lt = cJSON_AddArrayToObject(spd, "layer_types");
            for (int i = 0; i < S->ref->graph.n_nodes; i++) {
                char buf[64];
                const char *t = infer8_layer_type(v->sm, i, buf, sizeof buf);
                cJSON_AddItemToArray(lt, cJSON_CreateString(t ? t : ""));
            }
            cJSON *rows = cJSON_AddArrayToObject(spd, "batches");
            for (int b = 0; b < S->nbatches; b++) {
                cJSON *rw = cJSON_CreateObject();
                cJSON_AddItemToArray(rows, rw);
                cJSON_AddNumberToObject(rw, "batch", S->batches[b]);
                cJSON_AddItemToObject(rw, "median_ms", num(v->med[b]));
                cJSON_AddItemToObject(rw, "min_ms", num(v->mn[b]));
                cJSON_AddItemToObject(rw, "max_ms", num(v->mx[b]));
                cJSON_AddItemToObject(rw, "x_vs_fp16", num(S->v[0].med[b] / v->med[b]));
                char tuning[256];
                if (v->tuning_ok[b] && infer8_tuning_json(&v->tuning[b], tuning, sizeof tuning) < (int)sizeof tuning)
                    cJSON_AddRawToObject(rw, "tuning", tuning);
                cJSON *ra = cJSON_AddArrayToObject(rw, "rounds_ms");
                for (int r = 0; r < o->rounds; r++) cJSON_AddItemToArray(ra, num(v->rounds[b] ? v->rounds[b][r] : NAN));
                cJSON *pt = cJSON_AddObjectToObject(rw, "profile_ms_by_type");
                for (int t = 0; t < v->nprof[b]; t++) {
                    cJSON *e = cJSON_AddObjectToObject(pt, v->prof[b][t].type);
                    cJSON_AddNumberToObject(e, "ms", v->prof[b][t].ms);
                    cJSON_AddNumberToObject(e, "layers", v->prof[b][t].count);
                }
                if (v->layer_ms[b]) { /* each layer timed alone, in layer_names' order */
                    cJSON *lm = cJSON_AddArrayToObject(rw, "layer_ms");
                    for (int i = 0; i < S->ref->graph.n_nodes; i++) cJSON_AddItemToArray(lm, num(v->layer_ms[b][i]));
                }
            }
            cJSON_AddBoolToObject(x, "speed_passes", v->s_ok);
        }
    }
    cJSON *tm = cJSON_AddObjectToObject(root, "timings_s");
    cJSON_AddNumberToObject(tm, "calibration", S->t_calib);
    cJSON_AddStringToObject(tm, "calibration_executor", S->calib_executor);
    cJSON_AddNumberToObject(tm, "build", S->t_build);
    cJSON_AddNumberToObject(tm, "quality", S->t_quality);
    cJSON_AddNumberToObject(tm, "stress", S->t_stress);
    cJSON_AddNumberToObject(tm, "speed", S->t_speed);
    cJSON_AddNumberToObject(tm, "total", wall);
    char *text = i8_json_print(root, 1); /* valid UTF-8 whatever the paths' bytes */
    cJSON_Delete(root);
    return text;
}

/* ---- report: README.md ---- */

static void fmt_pct(char *b, size_t n, double x) {
    if (isfinite(x)) snprintf(b, n, "%.2f%%", 100 * x);
    else snprintf(b, n, "n/a");
}
static void fmt_fix(char *b, size_t n, double x, int digits) {
    if (isfinite(x)) snprintf(b, n, "%.*f", digits, x);
    else snprintf(b, n, "%s", isinf(x) ? "inf" : "n/a");
}

static void quality_table(study *S, i8_strbuf *b, int sp) {
    i8_strbuf_printf(b, "| variant | images | top-1 | top-5 | top-1 agreement | KL mean | KL p99 | KL max | max logit error | NaN | Inf |\n");
    i8_strbuf_printf(b, "|---|---|---|---|---|---|---|---|---|---|---|\n");
    i8_metrics_summary r;
    i8_metrics_summarize(&S->ref_met[sp], &r);
    char t1[32], t5[32];
    fmt_pct(t1, sizeof t1, r.top1), fmt_pct(t5, sizeof t5, r.top5);
    i8_strbuf_printf(b, "| fp32 (reference) | %llu | %s | %s | - | - | - | - | - | - | - |\n", (unsigned long long)r.images, t1, t5);
    for (int k = 0; k < S->nv; k++) {
        variant *v = &S->v[k];
        if (!v->applicable) {
            i8_strbuf_printf(b, "| %s | n/a | not applicable | | | | | | | | |\n", v->name);
            continue;
        }
        i8_metrics_summary s;
        i8_metrics_summarize(&v->met[sp], &s);
        char ag[32], km[32], kp[32], kx[32], le[32];
        fmt_pct(t1, sizeof t1, s.top1), fmt_pct(t5, sizeof t5, s.top5), fmt_pct(ag, sizeof ag, s.agreement);
        fmt_fix(km, sizeof km, s.kl_mean, 6), fmt_fix(kp, sizeof kp, s.kl_p99, 6), fmt_fix(kx, sizeof kx, s.kl_max, 6);
        fmt_fix(le, sizeof le, s.compared ? s.max_abs_logit_err : NAN, 4);
        i8_strbuf_printf(b, "| %s | %llu | %s | %s | %s | %s | %s | %s | %s | %llu | %llu |\n", v->name, (unsigned long long)s.images,
                  t1, t5, ag, km, kp, kx, le, (unsigned long long)s.nan_logits, (unsigned long long)s.inf_logits);
    }
    i8_strbuf_printf(b, "\n");
}

static int any_fp8_timed(const study *S) {
    for (int k = 1; k < S->nv; k++)
        if (S->v[k].applicable && S->v[k].speed_ok && S->speed_measured) return 1;
    return 0;
}

/* 1 when layer i of v's timed model runs in FP8 (its profile type key starts with "fp8 "). */
static int fp8_layer(const variant *v, int i) {
    char buf[64];
    const char *t = infer8_layer_type(v->sm, i, buf, sizeof buf);
    return t && !strncmp(t, "fp8 ", 4);
}

/* Where the time goes at batch S->batches[bi]: each layer timed alone, summed by its type in the
 * fp16 graph (the variants share the graph's layers, so a row is the same layers in every
 * column), next to each timed FP8 variant's time for those layers and how many of them it runs
 * in FP8; then every layer, and the CUDA graph end to end. */
static void layer_type_table(const study *S, i8_strbuf *b, int bi) {
    const variant *f = &S->v[0];
    if (!f->layer_ms[bi]) return;
    const int layers = S->ref->graph.n_nodes;
    int cols[MAX_VARIANTS], nc = 0;
    for (int k = 1; k < S->nv; k++)
        if (S->v[k].applicable && S->v[k].speed_ok && S->v[k].layer_ms[bi]) cols[nc++] = k;
    i8_strbuf_printf(b, "### Where the time goes, batch %d (ms, each layer timed alone; x = fp16 / variant)\n\n",
                     S->batches[bi]);
    i8_strbuf_printf(b, "| layer type (fp16 graph) | layers | fp16 |");
    for (int c = 0; c < nc; c++) i8_strbuf_printf(b, " %s | x |", S->v[cols[c]].name);
    i8_strbuf_printf(b, "\n|---|---|---|");
    for (int c = 0; c < nc; c++) i8_strbuf_printf(b, "---|---|");
    i8_strbuf_printf(b, "\n");
    /* one pass over the layers: each one's fp16 type picks its row (the rows are fp16's profile
     * types, in order of first appearance) */
    const int nt = f->nprof[bi];
    double ms16[MAX_TYPES] = {0}, ms[MAX_TYPES][MAX_VARIANTS] = {{0}}; /* 32 KiB */
    int count[MAX_TYPES] = {0}, n8[MAX_TYPES][MAX_VARIANTS] = {{0}};
    for (int i = 0; i < layers; i++) {
        char buf[64];
        const char *ti = infer8_layer_type(f->sm, i, buf, sizeof buf);
        int t = 0;
        while (ti && t < nt && strcmp(ti, f->prof[bi][t].type)) t++;
        if (!ti || t == nt) continue; /* a type past the profile's MAX_TYPES */
        count[t]++, ms16[t] += f->layer_ms[bi][i];
        for (int c = 0; c < nc; c++) {
            const variant *v = &S->v[cols[c]];
            ms[t][c] += v->layer_ms[bi][i];
            n8[t][c] += fp8_layer(v, i);
        }
    }
    for (int t = 0; t < nt; t++) {
        i8_strbuf_printf(b, "| %s | %d | %.4f |", f->prof[bi][t].type, count[t], ms16[t]);
        for (int c = 0; c < nc; c++) {
            char fp8[32] = "";
            if (n8[t][c]) snprintf(fp8, sizeof fp8, " (%d FP8)", n8[t][c]);
            i8_strbuf_printf(b, " %.4f%s | %.3f |", ms[t][c], fp8, ms[t][c] > 0 ? ms16[t] / ms[t][c] : NAN);
        }
        i8_strbuf_printf(b, "\n");
    }
    double all16 = 0, all[MAX_VARIANTS] = {0};
    for (int i = 0; i < layers; i++) {
        all16 += f->layer_ms[bi][i];
        for (int c = 0; c < nc; c++) all[c] += S->v[cols[c]].layer_ms[bi][i];
    }
    i8_strbuf_printf(b, "| every layer, summed | %d | %.4f |", layers, all16);
    for (int c = 0; c < nc; c++) i8_strbuf_printf(b, " %.4f | %.3f |", all[c], all[c] > 0 ? all16 / all[c] : NAN);
    i8_strbuf_printf(b, "\n| end to end (CUDA graph, median) | | %.4f |", f->med[bi]);
    for (int c = 0; c < nc; c++)
        i8_strbuf_printf(b, " %.4f | %.3f |", S->v[cols[c]].med[bi], f->med[bi] / S->v[cols[c]].med[bi]);
    i8_strbuf_printf(b, "\n\n");
}

static void why_section(study *S, i8_strbuf *b) {
    i8_strbuf_printf(b, "## Why there is or is not a gain\n\n");
    const variant *f = &S->v[0];
    int said = 0;
    for (int k = 1; k < S->nv && S->speed_measured; k++) {
        const variant *v = &S->v[k];
        if (!v->applicable || !v->speed_ok) continue;
        i8_strbuf_printf(b,
                  "- **%s**: %d tensors are quantized, none by a stand-alone Quantize kernel: the CUDA backend writes each "
                  "e4m3 copy in its producer's epilogue (next to the fp16 output where both are read) or quantizes while "
                  "the consumer loads its input.\n",
                  v->name, v->n_quantized);
        for (int bi = 0; bi < S->nbatches; bi++) {
            if (!v->layer_ms[bi] || !f->layer_ms[bi]) continue;
            double a8 = 0, a16 = 0, o8 = 0, o16 = 0;
            int n8 = 0;
            for (int i = 0; i < S->ref->graph.n_nodes; i++) {
                if (fp8_layer(v, i)) a8 += v->layer_ms[bi][i], a16 += f->layer_ms[bi][i], n8++;
                else o8 += v->layer_ms[bi][i], o16 += f->layer_ms[bi][i];
            }
            const double layer_x = a8 > 0 ? a16 / a8 : NAN, graph_x = f->med[bi] / v->med[bi];
            const char *why = "";
            if (a8 > 0 && layer_x < 0.95)
                why = " The FP8 convolutions themselves lose: the e4m3 kernels the tuner found fastest per layer "
                      "(cuDNN's e4m3 engines, infer8's own mma.sync, wgmma, halo and TMA kernels in "
                      "src/backends/cuda/cuda_fp8.cu and cuda_fp8_tma.cu) are slower than the fp16 kernels they replace.";
            else if (a8 > 0 && layer_x < 1.05)
                why = " The FP8 convolutions themselves gain nothing: the e4m3 kernels the tuner found fastest per layer "
                      "run at about the speed of the fp16 kernels (cuDNN, cuBLASLt, infer8's own) they replace.";
            else if (a8 > 0 && graph_x < layer_x - 0.02)
                why = " The FP8 convolutions gain; the whole graph gains less, because the layers kept as they were cost "
                      "the same in both and the graph's launches and dependencies do not shrink with FP8.";
            i8_strbuf_printf(b,
                      "  - batch %d (layers timed one by one): the %d FP8 layers took %.4f ms against %.4f ms for the same "
                      "layers in fp16 (x %.3f); the other layers took %.4f ms against %.4f ms (x %.3f). End to end (CUDA "
                      "graph): x %.3f.%s\n",
                      S->batches[bi], n8, a8, a16, layer_x, o8, o16, o8 > 0 ? o16 / o8 : NAN, graph_x, why);
        }
        said = 1;
    }
    if (!said) {
        i8_strbuf_printf(b, "- No speed gain can be claimed, because none was measured: %s\n",
                  S->speed_measured ? "no FP8 variant could run on the device" : S->speed_reason);
        for (int k = 1; k < S->nv; k++)
            if (S->v[k].applicable && S->speed_measured && !S->v[k].speed_ok)
                i8_strbuf_printf(b, "  - %s: %s\n", S->v[k].name, S->v[k].speed_note);
    }
    for (int k = 1; k < S->nv; k++) {
        const variant *v = &S->v[k];
        if (!v->applicable) continue;
        i8_strbuf_printf(b,
                  "- %s: %d FP8 convolutions read %d quantized tensors%s; its bundle is %.1f MiB against %.1f MiB for fp16 "
                  "(%.1f%% smaller).\n",
                  v->name, v->fp8_count, v->n_quantized,
                  v->n_residual_fp8 ? " (the residual adds of its residual-FP8 convolutions read the FP8 copy)" : "",
                  v->bundle_bytes / 1048576.0, f->bundle_bytes / 1048576.0,
                  f->bundle_bytes ? 100.0 * (1.0 - (double)v->bundle_bytes / (double)f->bundle_bytes) : 0.0);
    }
    const i8_peaks *pk = S->peaks;
    for (int k = 1; k < S->nv && pk; k++) {
        const variant *v = &S->v[k];
        if (!v->applicable) continue;
        i8_strbuf_printf(b, "- How far %s could go on the %s: if every convolution of both graphs ran at its roofline "
                            "(%.2f TB/s, %.0f / %.0f dense fp16 / FP8 TFLOPS; residual convolutions still read and write the "
                            "fp16 stream where a layer reads it as fp16), its convolutions would be at most",
                         v->name, pk->gpu, pk->bytes_per_s / 1e12, pk->fp16_flops / 1e12, pk->fp8_flops / 1e12);
        for (int i = 0; i < S->nbatches; i++)
            i8_strbuf_printf(b, "%s x %.2f faster at batch %d", i ? "," : "", v->bound[i], S->batches[i]);
        i8_strbuf_printf(b, " (src/eval/roofline.c); the rest of the model is the same in both.\n");
    }
    i8_strbuf_printf(b,
              "- The reference study (TensorRT, B200/B300) found the FP8 convolutions about 6%% faster but lost the gain "
              "to one extra Quantize kernel per residual block output (needed in fp16 for the add and in FP8 for the next "
              "convolutions); feeding the add from the FP8 copy (residual-fp8 variants) removes those kernels at a cost "
              "in KL.\n");
    if (S->is_synth)
        i8_strbuf_printf(b,
                  "- This checkpoint is synthetic (`infer8 synth`, tag infer8_synth): its random weights make logits "
                  "much more sensitive to rounding than a trained model's, so its KL figures are far above what a "
                  "trained checkpoint gives (docs/fp8.md); the quality verdict applies to this checkpoint only.\n");
    i8_strbuf_printf(b, "\n");
}

static void not_tried(study *S, i8_strbuf *b) {
    i8_strbuf_printf(b, "## What was not tried\n\n");
    static const char *const all[] = {"max", "percentile", "entropy", "mse"};
    i8_strbuf m = {0};
    for (int i = 0; i < 4; i++) {
        int used = 0;
        for (int k = 0; k < S->nmethods; k++) used |= !strcmp(i8_calib_method_name((i8_calib_method)S->methods[k]), all[i]);
        if (!used) i8_strbuf_printf(&m, "%s%s", m.len ? ", " : "", all[i]);
    }
    if (m.len) i8_strbuf_printf(b, "- Calibration methods %s (`--calib-methods`).\n", m.s);
    free(m.s);
    if (!S->speed_measured) i8_strbuf_printf(b, "- Any latency measurement: %s.\n", S->speed_reason);
    i8_strbuf_printf(b, "- Batch sizes other than");
    for (int i = 0; i < S->nbatches; i++) i8_strbuf_printf(b, " %d", S->batches[i]);
    i8_strbuf_printf(b, "; GPUs other than this machine's.\n");
    i8_strbuf_printf(b,
              "- Quantization-aware training, NVFP4, per-tensor weight scales, FP8 for the stem or classifier, recipes "
              "that keep sensitive layers in fp16 (a recipe .json with `exclude` globs: `fp8:my-recipe.json`).\n"
              "- FP8 speed on the CPU (the CPU runs FP8 only as an emulation in fp32, for quality).\n\n");
}

static void revisit(study *S, i8_strbuf *b) {
    i8_strbuf_printf(b, "## When to revisit\n\n");
    int unrunnable = 0, any_q = 0;
    for (int k = 1; k < S->nv; k++)
        if (S->v[k].applicable) unrunnable |= !S->v[k].speed_ok, any_q |= S->v[k].q_ok;
    if (!S->speed_measured) i8_strbuf_printf(b, "- Run the study on a GPU (`--device cuda`) to measure speed.\n");
    else if (unrunnable) i8_strbuf_printf(b, "- When the CUDA backend has FP8 convolution kernels (the variants above could not run on the device).\n");
    i8_strbuf_printf(b,
              "- When the e4m3 convolution kernels come closer to their roofline (docs/performance.md follows how close "
              "they and the fp16 kernels come, per session): the quantization is already fused here "
              "(the extra Quantize kernels that cost the reference study its gain do not exist), so the per-layer ratio "
              "above is what the end-to-end speed follows, up to the roofline bound above.\n");
    if (!any_q)
        i8_strbuf_printf(b, "- When a calibration method or recipe brings the held-out KL under %g and agreement over %.2f%% "
                     "(try percentile / entropy / mse, or keep the most sensitive layers in fp16).\n",
                  S->o.max_kl, 100 * S->o.min_agreement);
    if (S->is_synth) i8_strbuf_printf(b, "- With the trained checkpoint (this one is synthetic).\n");
    i8_strbuf_printf(b, "- On GPUs with higher FP8 tensor throughput relative to fp16, or at batch sizes where convolutions dominate.\n\n");
}

/* s as the report shows it: control bytes, and bytes of broken UTF-8, as \xNN (paths are bytes) */
static char *shown_copy(const char *s) {
    size_t n = 4 * strlen(s) + 8;
    char *out = malloc(n);
    if (out) i8_text_show(s, out, n);
    return out;
}

static char *readme(study *S, double wall) {
    const infer8_study_options *o = &S->o;
    i8_strbuf b = {0};
    char *command = shown_copy(o->command ? o->command : "(API call)"), *model = shown_copy(S->model_path),
         *images = shown_copy(o->images);
    if (!command || !model || !images) b.oom = 1;
    i8_strbuf_printf(&b, "# FP8 study: %s\n\n", S->ref->family->arch);
    i8_strbuf_printf(&b, "- Command: `%s`\n", command ? command : "");
    i8_strbuf_printf(&b, "- Date: %s; infer8 %s; %s\n", S->date, infer8_version(), S->compiler);
    i8_strbuf_printf(&b, "- Host: %s; CPU: %s (%d online)\n", S->host, S->cpu, S->cpu_count);
    i8_strbuf_printf(&b, "- Device: %s; %s\n", o->device == INFER8_DEVICE_CUDA ? "cuda" : "cpu", S->device_desc);
    if (o->device == INFER8_DEVICE_CUDA) {
        char tuning[128];
        i8_strbuf_printf(&b, "- CUDA tuning: %s\n", cuda_tuning_text(o, tuning, sizeof tuning));
    }
    i8_strbuf_printf(&b, "- Model: `%s` (%s%s, %d layers, %d classes)\n", model ? model : "", S->ref->family->arch,
              S->is_synth ? ", synthetic checkpoint" : "", S->ref->graph.n_nodes, S->num_classes);
    i8_strbuf_printf(&b, "- Study wall time: %.1f s\n\n", wall);

    i8_strbuf_printf(&b, "## Summary and decision\n\n");
    i8_strbuf_printf(&b, "**Decision: %s**%s%s%s\n\n", decision_word(S->decision), S->decision > 0 ? " (" : "",
              S->decision > 0 ? S->best : "", S->decision > 0 ? ")" : "");
    i8_strbuf_printf(&b, "Thresholds: held-out KL(fp32 || variant) mean <= %g, top-1 agreement with fp32 >= %.2f%%, no NaN/Inf, "
                  "and x = fp16 time / variant time >= %.2f at every batch size measured.\n\n",
              o->max_kl, 100 * o->min_agreement, o->min_speedup);
    i8_strbuf_printf(&b, "Reason: %s\n\n", S->reason.s ? S->reason.s : "");
    i8_strbuf_printf(&b, "- Images: %llu held out, %llu calibration, %llu stress inputs; %llu dataset items skipped as corrupt or "
                  "unusable.\n",
              (unsigned long long)(S->stats.yielded - S->stats.yielded_calib), (unsigned long long)S->stats.yielded_calib,
              (unsigned long long)S->nkeys[SPLIT_STRESS], (unsigned long long)S->stats.skipped);
    i8_strbuf_printf(&b, "- Speed: %s\n", S->speed_measured ? (any_fp8_timed(S) ? "measured (see Results)"
                                                                         : "fp16 measured; no FP8 variant could run on the device")
                                                     : S->speed_reason);
    if (any_baseline_untuned(S))
        i8_strbuf_printf(&b, "- The fp16 baseline is under-tuned (see the warning under Speed): the x values overstate FP8.\n");
    if (S->best[0]) i8_strbuf_printf(&b, "- Best FP8 variant by held-out KL: %s\n", S->best);
    i8_strbuf_printf(&b, "\n");

    i8_strbuf_printf(&b, "## Recipe\n\n");
    i8_strbuf_printf(&b, "Weights: per-output-channel scale = amax / 448 of the batch-norm-folded kernel (e4m3). Activations: one "
                  "static per-tensor scale per tensor read as FP8 (one shared Quantize per tensor), calibrated on the "
                  "calibration split; the stem, the classifier and pointwise layers stay as they are (fp16 in the "
                  "bundle). Every convolution's precision:\n\n");
    for (int i = 0; i < S->nrecipes; i++) {
        const recipe_list *r = &S->recipes[i];
        i8_strbuf_printf(&b, "### Recipe `%s`: %d of %d convolutions FP8\n\n", r->spec, r->fp8_count, r->n_convs);
        i8_strbuf_printf(&b, "Listing (also in `recipes/%s`):\n\n```\n%s%s```\n\n", r->file, r->text,
                  r->text[0] && r->text[strlen(r->text) - 1] == '\n' ? "" : "\n");
    }
    if (!S->nrecipes) i8_strbuf_printf(&b, "No FP8 recipe applied (no applicable FP8 variant).\n\n");

    i8_strbuf_printf(&b, "## Method\n\n");
    char takes[32];
    if (o->take) snprintf(takes, sizeof takes, "%llu", (unsigned long long)o->take);
    else snprintf(takes, sizeof takes, "all");
    i8_strbuf_printf(&b, "- Dataset `%s`: take %s every %llu; the first %llu of those calibrate, the rest are held out; corrupt "
                  "items are reported, skipped and counted.\n",
              images ? images : "", takes, (unsigned long long)o->every, (unsigned long long)o->calib);
#ifdef INFER8_HAVE_ONEDNN
    i8_strbuf_printf(&b, "- Reference: the fp32 checkpoint on the oneDNN CPU backend (within 2e-6 of the reference "
                         "executor, the oracle; docs/cpu-backend.md).\n");
#else
    i8_strbuf_printf(&b, "- Reference: the fp32 checkpoint on the CPU reference executor (the oracle).\n");
#endif
    i8_strbuf_printf(&b, "- Calibration: one pass over the calibration images in batches of %d on %s, one "
                  "histogram per tensor read by a convolution; the scales of every method (",
              o->batch, !strcmp(S->calib_executor, "cuda") ? "the GPU (fp16 activations of the fp32 checkpoint, "
                  "histograms binned on the device)" : "the fp32 reference executor");
    for (int k = 0; k < S->nmethods; k++)
        i8_strbuf_printf(&b, "%s%s", k ? ", " : "", i8_calib_method_name((i8_calib_method)S->methods[k]));
    i8_strbuf_printf(&b, ") come from the same histograms (`scales/METHOD.json`).\n");
    i8_strbuf_printf(&b, "- Variants: built as bundles from the same checkpoint (`bundles/`); the bundle is what is scored. "
                  "Executors: ");
    for (int k = 0; k < S->nv; k++)
        if (S->v[k].applicable) i8_strbuf_printf(&b, "%s%s: %s", k ? "; " : "", S->v[k].name, S->v[k].quality_executor);
    i8_strbuf_printf(&b, ".\n");
    i8_strbuf_printf(&b, "- Quality: top-1 / top-5 against labels (when present), top-1 agreement and KL(softmax fp32 || "
                  "softmax variant) per image (double precision), its mean / p99 / max, the largest |logit - fp32 "
                  "logit|, NaN/Inf counts; held-out, calibration and %llu stress inputs (docs/stress-inputs.md) "
                  "separately.\n",
              (unsigned long long)S->nkeys[SPLIT_STRESS]);
    if (S->speed_measured)
        i8_strbuf_printf(&b, "- Speed: per batch size, one warm-up round per variant (tuning, CUDA graph capture), then %d rounds "
                      "interleaved across variants (A B C A B C ...), each %d CUDA-graph replays timed with events; "
                      "median, min and max per forward; x = fp16 median / variant median. Per-layer-type time: every "
                      "layer timed separately, outside the forward (on the GPU as replays of a captured graph of that "
                      "layer alone, so without its launches' host cost: docs/performance.md, \"Session 37\").\n",
                  o->rounds, o->iters);
    else i8_strbuf_printf(&b, "- Speed: not measured (%s).\n", S->speed_reason);
    i8_strbuf_printf(&b, "\n");

    i8_strbuf_printf(&b, "## Results\n\n");
    for (int sp = 0; sp < N_SPLITS; sp++) {
        i8_strbuf_printf(&b, "### Quality: %s\n\n", split_title[sp]);
        quality_table(S, &b, sp);
    }
    i8_strbuf_printf(&b, "### Bundle size\n\n| variant | bundle | bytes | MiB | vs fp16 |\n|---|---|---|---|---|\n");
    for (int k = 0; k < S->nv; k++) {
        const variant *v = &S->v[k];
        if (!v->applicable) {
            i8_strbuf_printf(&b, "| %s | - | n/a | n/a | n/a |\n", v->name);
            continue;
        }
        const char *base = strrchr(v->bundle, '/');
        i8_strbuf_printf(&b, "| %s | `bundles/%s` | %llu | %.1f | %.3f |\n", v->name, base ? base + 1 : v->bundle,
                  (unsigned long long)v->bundle_bytes, v->bundle_bytes / 1048576.0,
                  S->v[0].bundle_bytes ? (double)v->bundle_bytes / (double)S->v[0].bundle_bytes : NAN);
    }
    i8_strbuf_printf(&b, "\n### Speed\n\n");
    if (!S->speed_measured) {
        i8_strbuf_printf(&b, "Speed was not measured: %s. `kl.svg` shows KL per variant instead of KL against speed-up.\n\n",
                  S->speed_reason);
    } else {
        i8_strbuf_printf(&b, "| variant | batch | median ms | min ms | max ms | x vs fp16 | note |\n|---|---|---|---|---|---|---|\n");
        for (int k = 0; k < S->nv; k++) {
            const variant *v = &S->v[k];
            if (!v->applicable) continue;
            if (!v->speed_ok) {
                i8_strbuf_printf(&b, "| %s | - | not measured | | | | %s |\n", v->name, v->speed_note);
                continue;
            }
            for (int bi = 0; bi < S->nbatches; bi++) {
                char note[160] = "";
                const infer8_tuning *t = &v->tuning[bi];
                if (v->tuning_ok[bi] && t->untuned_problems)
                    snprintf(note, sizeof note, "%d of %d conv problems on cuDNN's first config (budget %.0f s)",
                             t->untuned_problems, t->conv_problems, t->cudnn_budget_s);
                else if (v->tuning_ok[bi] && t->partly_tuned_problems)
                    snprintf(note, sizeof note, "%d conv problems tuned in %.1f s, %d of them on cuDNN's best-ranked configs only",
                             t->conv_problems, t->tune_seconds, t->partly_tuned_problems);
                else if (v->tuning_ok[bi])
                    snprintf(note, sizeof note, "%d conv problems tuned in %.1f s", t->conv_problems, t->tune_seconds);
                i8_strbuf_printf(&b, "| %s | %d | %.4f | %.4f | %.4f | %.3f | %s |\n", v->name, S->batches[bi], v->med[bi],
                                 v->mn[bi], v->mx[bi], S->v[0].med[bi] / v->med[bi], note);
            }
        }
        i8_strbuf tn = {0};
        if (undertuned_note(S, &tn)) i8_strbuf_printf(&b, "\n**Warning:** %s\n", tn.s);
        free(tn.s);
        i8_strbuf_printf(&b, "\nPlots: ");
        for (int bi = 0; bi < S->nbatches; bi++) i8_strbuf_printf(&b, "`latency-b%d.svg`, ", S->batches[bi]);
        if (any_fp8_timed(S))
            for (int bi = 0; bi < S->nbatches; bi++) i8_strbuf_printf(&b, "`kl-speedup-b%d.svg`, ", S->batches[bi]);
        else
            i8_strbuf_printf(&b, "`kl.svg` (KL per variant: no FP8 variant was timed), ");
        for (int bi = 0; bi < S->nbatches; bi++)
            i8_strbuf_printf(&b, "`layer-types-b%d.svg`%s", S->batches[bi], bi + 1 < S->nbatches ? ", " : ".\n\n");
        for (int bi = 0; bi < S->nbatches; bi++) layer_type_table(S, &b, bi);
        i8_strbuf_printf(&b, "\n");
    }
    for (int k = 0; k < S->nv; k++)
        if (!S->v[k].applicable) i8_strbuf_printf(&b, "- %s: %s\n", S->v[k].name, S->v[k].note);
    i8_strbuf_printf(&b, "\n");
    why_section(S, &b);
    not_tried(S, &b);
    revisit(S, &b);

    i8_strbuf_printf(&b, "## Data\n\n");
    i8_strbuf_printf(&b, "| source | seen | selected | used | calibration | held out | skipped | bad shards | issues |\n");
    i8_strbuf_printf(&b, "|---|---|---|---|---|---|---|---|---|\n");
    i8_strbuf_printf(&b, "| `%s` | %llu | %llu | %llu | %llu | %llu | %llu | %llu | %llu |\n\n", images ? images : "",
              (unsigned long long)S->stats.seen, (unsigned long long)S->stats.selected, (unsigned long long)S->stats.yielded,
              (unsigned long long)S->stats.yielded_calib, (unsigned long long)(S->stats.yielded - S->stats.yielded_calib),
              (unsigned long long)S->stats.skipped, (unsigned long long)S->stats.bad_shards,
              (unsigned long long)S->n_issues);
    if (S->n_issues) {
        i8_strbuf_printf(&b, "Issues (first 20; the first %d are in study.json):\n\n```\n", I8_DATASET_MAX_KEPT_ISSUES);
        for (size_t i = 0; i < 20 && i < S->n_issues; i++) i8_strbuf_printf(&b, "%s\n", S->issues[i] ? S->issues[i] : "(out of memory)");
        i8_strbuf_printf(&b, "```\n\n");
    }
    i8_strbuf_printf(&b, "## Files\n\n- `study.json`: every raw figure (per-image KL, rounds, profiles, dataset issues)\n"
                  "- %s`bundles/`: one bundle per variant\n"
                  "- plots: %s\n",
              has_fp8_variants(S) ? "`scales/`: scales.json per calibration method; `recipes/`: layer listings; " : "",
              S->speed_measured ? (any_fp8_timed(S) ? "`latency-bN.svg`, `kl-speedup-bN.svg`, `layer-types-bN.svg` (N: each batch size)"
                                                    : "`latency-bN.svg`, `kl.svg`, `layer-types-bN.svg` (N: each batch size)")
                                : "`kl.svg`");
    free(command), free(model), free(images);
    if (b.oom) {
        free(b.s);
        return NULL;
    }
    return b.s;
}

/* ---- plots ---- */

/* layer-types-bN.svg: time per layer type at batch S->batches[bi], one bar per timed variant
 * (an FP8 layer counts under its type without the "fp8 " prefix, next to the same fp16 type). */
static infer8_status layer_types_plot(const study *S, int bi, i8_err *err) {
    const char *series[I8_SVG_MAX_SERIES];
    int sv[I8_SVG_MAX_SERIES], ns = 0;
    for (int k = 0; k < S->nv && ns < I8_SVG_MAX_SERIES; k++)
        if (S->v[k].applicable && S->v[k].speed_ok && S->v[k].nprof[bi]) series[ns] = S->v[k].name, sv[ns++] = k;
    char types[MAX_TYPES][64];
    int nt = 0;
    for (int j = 0; j < ns; j++)
        for (int t = 0; t < S->v[sv[j]].nprof[bi]; t++) {
            const char *ty = S->v[sv[j]].prof[bi][t].type;
            if (!strncmp(ty, "fp8 ", 4)) ty += 4;
            int u = 0;
            while (u < nt && strcmp(types[u], ty)) u++;
            if (u == nt && nt < MAX_TYPES) snprintf(types[nt++], 64, "%s", ty);
        }
    if (!nt) return INFER8_OK;
    double vals[MAX_TYPES][I8_SVG_MAX_SERIES] = {{0}}; /* 8 KiB */
    i8_svg_group gr[MAX_TYPES];
    for (int u = 0; u < nt; u++) {
        for (int j = 0; j < ns; j++)
            for (int t = 0; t < S->v[sv[j]].nprof[bi]; t++) {
                const char *ty = S->v[sv[j]].prof[bi][t].type;
                if (!strncmp(ty, "fp8 ", 4)) ty += 4;
                if (!strcmp(ty, types[u])) vals[u][j] += S->v[sv[j]].prof[bi][t].ms;
            }
        gr[u].name = types[u], gr[u].values = vals[u];
    }
    char title[128], path[4200];
    snprintf(title, sizeof title, "Time per layer type, batch %d (layers timed one by one)", S->batches[bi]);
    snprintf(path, sizeof path, "%s/layer-types-b%d.svg", S->out_dir, S->batches[bi]);
    return i8_svg_grouped_bars(path, title, "ms", series, (size_t)ns, gr, (size_t)nt, err);
}

static infer8_status plots(study *S, i8_err *err) {
    char path[4200];
    infer8_status s = INFER8_OK;
    const char *names[MAX_VARIANTS];
    if (S->speed_measured) {
        for (int bi = 0; bi < S->nbatches && !s; bi++) {
            i8_svg_latency_item it[MAX_VARIANTS];
            size_t n = 0;
            for (int k = 0; k < S->nv; k++) {
                const variant *v = &S->v[k];
                if (!v->applicable || !v->speed_ok) continue;
                it[n].name = v->name, it[n].median = v->med[bi], it[n].min = v->mn[bi], it[n].max = v->mx[bi];
                n++;
            }
            char title[128];
            snprintf(title, sizeof title, "Latency per variant, batch %d (median, min-max over rounds)", S->batches[bi]);
            snprintf(path, sizeof path, "%s/latency-b%d.svg", S->out_dir, S->batches[bi]);
            if (n) s = i8_svg_latency(path, title, "ms", it, n, err);
        }
        /* per-layer-type time, fp16 vs the timed FP8 variants, at every batch size */
        for (int bi = 0; bi < S->nbatches && !s; bi++) s = layer_types_plot(S, bi, err);
    }
    if (s) return s;
    if (any_fp8_timed(S)) {
        for (int bi = 0; bi < S->nbatches && !s; bi++) {
            i8_svg_point pt[MAX_VARIANTS];
            size_t n = 0;
            for (int k = 0; k < S->nv; k++) {
                const variant *v = &S->v[k];
                if (!v->applicable || !v->speed_ok) continue;
                i8_metrics_summary h;
                i8_metrics_summarize(&v->met[SPLIT_HELD], &h);
                pt[n].name = v->name, pt[n].x = S->v[0].med[bi] / v->med[bi], pt[n].y = h.kl_mean;
                n++;
            }
            char title[128];
            snprintf(title, sizeof title, "Held-out KL(fp32 || variant) against speed-up over fp16, batch %d",
                     S->batches[bi]);
            snprintf(path, sizeof path, "%s/kl-speedup-b%d.svg", S->out_dir, S->batches[bi]);
            s = i8_svg_kl_speedup(path, title, pt, n, err);
        }
        return s;
    }
    /* speed not measured for FP8: KL per variant */
    static const char *const ser[2] = {"KL mean", "KL p99"};
    double vals[MAX_VARIANTS][2];
    i8_svg_group gr[MAX_VARIANTS];
    size_t n = 0;
    for (int k = 0; k < S->nv; k++) {
        const variant *v = &S->v[k];
        if (!v->applicable) continue;
        i8_metrics_summary h;
        i8_metrics_summarize(&v->met[SPLIT_HELD], &h);
        vals[n][0] = h.kl_mean, vals[n][1] = h.kl_p99;
        names[n] = v->name;
        gr[n].name = names[n], gr[n].values = vals[n];
        n++;
    }
    snprintf(path, sizeof path, "%s/kl.svg", S->out_dir);
    return n ? i8_svg_grouped_bars(path, "Held-out KL(fp32 || variant) per variant (speed not measured)", "KL", ser, 2, gr,
                                   n, err)
             : INFER8_OK;
}

/* ---- entry point ---- */

static void study_free(study *S) {
    for (int k = 0; k < S->nv; k++) {
        variant *v = &S->v[k];
        if (v->sm && v->sm != v->qm) infer8_model_close(v->sm);
        infer8_model_close(v->qm);
        for (int sp = 0; sp < N_SPLITS; sp++) i8_metrics_free(&v->met[sp]);
        for (int b = 0; b < MAX_BATCHES; b++) free(v->rounds[b]);
        free(v->logits);
        for (int b = 0; b < MAX_BATCHES; b++) free(v->layer_ms[b]);
    }
    for (int sp = 0; sp < N_SPLITS; sp++) {
        i8_metrics_free(&S->ref_met[sp]);
        for (size_t i = 0; i < S->nkeys[sp]; i++) free(S->keys[sp][i]);
        free(S->keys[sp]);
    }
    for (int i = 0; i < S->nrecipes; i++) infer8_free(S->recipes[i].text);
    free(S->calib_logits);
    free(S->reason.s);
    for (size_t i = 0; i < S->n_issues && i < I8_DATASET_MAX_KEPT_ISSUES; i++) free(S->issues[i]);
    if (S->ds) i8_dataset_close(S->ds);
    infer8_model_close(S->ref);
    free(S);
}

EXPORT infer8_status infer8_study(infer8_context *ctx, const char *model_path, const infer8_study_options *options,
                                  const char *out_dir) {
    i8_err err;
    i8_err_clear(&err);
    if (!ctx || !model_path || !options || !out_dir || options->struct_size < offsetof(infer8_study_options, device)) {
        i8_fail(&err, INFER8_E_INVALID_ARGUMENT, "infer8_study: NULL argument or options struct_size too small");
        return i8_ctx_fail(ctx, &err);
    }
    study *S = i8_calloc(1, sizeof *S, &err);
    if (!S) return i8_ctx_fail(ctx, &err);
    S->ctx = ctx;
    S->model_path = model_path;
    S->out_dir = out_dir;
    S->t0 = now_s();
    infer8_study_options_init(&S->o);
    memcpy(&S->o, options, options->struct_size < sizeof S->o ? options->struct_size : sizeof S->o);
    S->o.struct_size = sizeof S->o;
    infer8_status s = parse_options(S, &err);
    const int cuda = S->o.device == INFER8_DEVICE_CUDA;
    char path[4200];
    if (!s) {
        environment(S);
        s = mkdir_p(out_dir, &err);
        if (!s) snprintf(path, sizeof path, "%s/bundles", out_dir), s = mkdir_p(path, &err);
        if (!s && has_fp8_variants(S)) snprintf(path, sizeof path, "%s/scales", out_dir), s = mkdir_p(path, &err); /* FP8 variants only */
        if (!s && has_fp8_variants(S)) snprintf(path, sizeof path, "%s/recipes", out_dir), s = mkdir_p(path, &err);
    }
    /* the fp32 reference logits of every scored image come from the fastest CPU executor (oneDNN
     * where built: within 2e-6 of the reference executor, and 15x faster, which decides the
     * study's wall time); calibration statistics come from the GPU in a CUDA study, else from
     * the reference executor's hooks on the same graph */
    if (!s) s = open_model(S, model_path, INFER8_DEVICE_CPU, 0, NULL, NULL, &S->ref, &err);
    if (!s && S->ref->bundle)
        s = i8_fail(&err, INFER8_E_INVALID_ARGUMENT, "%s: the study needs the fp32 checkpoint (snapshot folder or "
                                                     ".safetensors), not a bundle", model_path);
    if (!s) {
        S->num_classes = S->ref->config.num_classes;
        S->per_image = (size_t)S->ref->graph.input_c * S->ref->graph.input_h * S->ref->graph.input_w;
        S->is_synth = !strcmp(S->ref->config.tag, "infer8_synth");
        i8_dataset_options dopt;
        memset(&dopt, 0, sizeof dopt);
        dopt.take = S->o.take;
        dopt.every = S->o.every;
        dopt.calib = S->o.calib;
        dopt.num_classes = S->num_classes;
        dopt.decode = 1;
        dopt.limits = &S->ref->limits;
        dopt.on_issue = dataset_issue;
        dopt.user = S;
        s = i8_dataset_open(&S->ds, S->o.images, &dopt, &err);
    }
    for (int sp = 0; sp < N_SPLITS && !s; sp++) {
        s = i8_metrics_init(&S->ref_met[sp], (size_t)S->num_classes, &err);
        for (int k = 0; k < S->nv && !s; k++) s = i8_metrics_init(&S->v[k].met[sp], (size_t)S->num_classes, &err);
    }
    uint64_t n_held = 0;
    double t = now_s();
    S->pass = 1;
    if (!s) s = calibrate(S, &n_held, &err);
    S->t_calib = now_s() - t, t = now_s();
    S->pass = 2;
    if (!s) s = build_variants(S, &err);
    for (int k = 0; k < S->nv && !s; k++)
        if (!(S->v[k].logits = i8_calloc((size_t)S->o.batch, (size_t)S->num_classes * sizeof(float), &err)))
            s = INFER8_E_NOMEM;
    S->t_build = now_s() - t, t = now_s();
    if (!s) s = quality(S, S->n_calib_logits + n_held, &err);
    S->t_quality = now_s() - t, t = now_s();
    if (!s) s = stress(S, &err);
    S->t_stress = now_s() - t, t = now_s();
    if (!s && cuda) {
        S->speed_measured = 1;
        s = speed(S, &err);
        if (!s) s = api(S, infer8_device_info(ctx, S->v[0].sm, S->device_desc, sizeof S->device_desc), &err);
    } else if (!s) {
        snprintf(S->speed_reason, sizeof S->speed_reason,
                 "the study ran on the CPU (device %s); speed is measured on a GPU only (--device cuda)",
                 S->o.device == INFER8_DEVICE_CPU ? "cpu" : "ref");
        const char *cpu_name;
        cpu_scoring_device(S, &cpu_name);
        snprintf(S->device_desc, sizeof S->device_desc, "CPU, %s (quality only)", cpu_name);
    }
    S->t_speed = now_s() - t;
    char *json = NULL, *md = NULL;
    if (!s) {
        roofline_bounds(S);
        decide(S);
        if (S->reason.oom) s = i8_fail(&err, INFER8_E_NOMEM, "infer8_study: out of memory (reason)");
    }
    double wall = now_s() - S->t0;
    if (!s && !(json = study_json(S, wall))) s = i8_fail(&err, INFER8_E_NOMEM, "infer8_study: out of memory (study.json)");
    if (!s && !(md = readme(S, wall))) s = i8_fail(&err, INFER8_E_NOMEM, "infer8_study: out of memory (README.md)");
    if (!s) s = plots(S, &err);
    if (!s) snprintf(path, sizeof path, "%s/study.json", out_dir), s = i8_write_file_atomic(path, json, strlen(json), &err);
    if (!s) snprintf(path, sizeof path, "%s/README.md", out_dir), s = i8_write_file_atomic(path, md, strlen(md), &err);
    free(json);
    free(md);
    if (!s) {
        i8_ctx_log(ctx, 2, "study: decision %s%s%s: %s", decision_word(S->decision), S->decision > 0 ? " " : "",
                   S->decision > 0 ? S->best : "", S->reason.s ? S->reason.s : "");
        infer8_study_summary *sum = S->o.summary;
        if (sum && sum->struct_size >= sizeof(uint32_t)) {
            infer8_study_summary r;
            infer8_study_summary_init(&r);
            r.decision = S->decision;
            snprintf(r.best_variant, sizeof r.best_variant, "%s", S->best);
            snprintf(r.reason, sizeof r.reason, "%s", S->reason.s ? S->reason.s : "");
            r.speed_measured = S->speed_measured;
            r.held_out_images = S->stats.yielded - S->stats.yielded_calib;
            r.calib_images = S->stats.yielded_calib;
            r.stress_images = S->nkeys[SPLIT_STRESS];
            r.skipped_items = S->stats.skipped;
            r.wall_s = wall;
            uint32_t keep = sum->struct_size;
            memcpy(sum, &r, keep < sizeof r ? keep : sizeof r);
            sum->struct_size = keep;
        }
    }
    study_free(S);
    return s ? i8_ctx_fail(ctx, &err) : INFER8_OK;
}
