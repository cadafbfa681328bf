/* `infer8 synth`: timm-compatible synthetic checkpoints, our stand-in for hub downloads.
 *
 * 1. The family builder asks a generator source for every tensor (so the key list is the
 *    family's own); the source draws deterministic weights: He-normal convolutions, batch-norm
 *    affine parameters near (1, 0), residual projections scaled down, a placeholder classifier.
 * 2. The unoptimized graph runs on the reference executor over generated natural-looking
 *    images. A hook before each BATCHNORM sets running_mean / running_var to the statistics of
 *    the activations that actually arrive, so every layer is normalised as in a trained model,
 *    through all residual blocks. A hook before the LINEAR head standardises the features and
 *    scales the classifier so the top-1 softmax probability spreads like a trained model's
 *    (median about 0.5 over the calibration images).
 * 3. config.json (pretrained_cfg, label_names) and model.safetensors (F32, plus int64
 *    num_batches_tracked per batch norm as timm's state_dict has) are written atomically.
 * Only + - * / and sqrt are used on generated values (portable exp/log from core), and the
 * reference executor is deterministic for any thread count, so the bytes are identical on
 * every x86-64 machine for a given seed. */
#include <errno.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "api/model.h"
#include "formats/safetensors.h"
#include "image/image.h"

#define EXPORT __attribute__((visibility("default")))

typedef struct synth_source {
    i8_rng rng;
    i8_err *err;
} synth_source;

static int ends_with(const char *s, const char *suffix) {
    size_t n = strlen(s), m = strlen(suffix);
    return n >= m && strcmp(s + n - m, suffix) == 0;
}

/* Weight values by role, recognised from the timm key. */
static infer8_status synth_get(void *vctx, const char *key, int ndim, const int64_t *shape, float **data, i8_err *err) {
    synth_source *src = vctx;
    size_t count = 1;
    for (int i = 0; i < ndim; i++) {
        if (shape[i] < 0 || !i8_mul_size(count, (size_t)shape[i], &count))
            return i8_fail(err, INFER8_E_INTERNAL, "synth: bad shape for '%s'", key);
    }
    float *w = i8_malloc(count * sizeof(float), err);
    if (!w) return INFER8_E_NOMEM;
    if (ndim == 4) {
        /* conv weight [out][in][kh][kw]: He normal; residual projections (no batch norm after
         * them) get a smaller gain so the scaled residual adds a moderate update */
        double fan_in = (double)shape[1] * (double)shape[2] * (double)shape[3];
        int projection = !ends_with(key, ".conv.weight");
        double stdv = sqrt((projection ? 1.0 : 2.0) / fan_in);
        for (size_t i = 0; i < count; i++) w[i] = (float)(stdv * i8_rng_normal(&src->rng));
    } else if (ends_with(key, ".bn.weight")) {
        for (size_t i = 0; i < count; i++) w[i] = (float)(0.75 + 0.5 * i8_rng_uniform(&src->rng));
    } else if (ends_with(key, ".bn.bias")) {
        /* a positive shift keeps most ReLUs active, as in trained networks; with zero-mean
         * shifts the random network is chaotic enough that fp32 rounding differences grow to
         * 1e-3 of the logits through inception_v4's depth (measured), which no real model does */
        for (size_t i = 0; i < count; i++) w[i] = (float)(1.0 + 0.3 * i8_rng_normal(&src->rng));
    } else if (ends_with(key, ".running_mean")) {
        for (size_t i = 0; i < count; i++) w[i] = 0.0f; /* set from activations by the hook */
    } else if (ends_with(key, ".running_var")) {
        for (size_t i = 0; i < count; i++) w[i] = 1.0f;
    } else if (ndim == 2) {
        for (size_t i = 0; i < count; i++) w[i] = (float)i8_rng_normal(&src->rng); /* scaled by the hook */
    } else {
        /* biases of residual projections and of the classifier */
        for (size_t i = 0; i < count; i++) w[i] = (float)(0.05 * i8_rng_normal(&src->rng));
    }
    *data = w;
    return INFER8_OK;
}

typedef struct synth_hook {
    infer8_progress_fn progress;
    void *progress_user;
    int done;
    int total;
} synth_hook;

/* Per-channel mean and variance over n*h*w positions of an NHWC tensor, in double. */
static void channel_stats(const float *x, size_t positions, int c, double *mean, double *var) {
    for (int k = 0; k < c; k++) mean[k] = var[k] = 0.0;
    for (size_t p = 0; p < positions; p++)
        for (int k = 0; k < c; k++) mean[k] += x[p * c + k];
    for (int k = 0; k < c; k++) mean[k] /= (double)positions;
    for (size_t p = 0; p < positions; p++)
        for (int k = 0; k < c; k++) {
            double d = x[p * c + k] - mean[k];
            var[k] += d * d;
        }
    for (int k = 0; k < c; k++) var[k] /= (double)positions;
}

/* Median over images of the top-1 softmax probability of logits = alpha * z. */
static double median_top1(const double *z, int n, int classes, double alpha, double *scratch) {
    for (int i = 0; i < n; i++) {
        const double *row = z + (size_t)i * classes;
        double mx = row[0];
        for (int k = 1; k < classes; k++)
            if (row[k] > mx) mx = row[k];
        double sum = 0.0;
        for (int k = 0; k < classes; k++) sum += i8_portable_exp(alpha * (row[k] - mx));
        scratch[i] = 1.0 / sum;
    }
    for (int i = 1; i < n; i++) /* insertion sort: n is small */
        for (int j = i; j > 0 && scratch[j] < scratch[j - 1]; j--) {
            double t = scratch[j];
            scratch[j] = scratch[j - 1];
            scratch[j - 1] = t;
        }
    return n % 2 ? scratch[n / 2] : 0.5 * (scratch[n / 2 - 1] + scratch[n / 2]);
}

/* Cyclic Jacobi eigen-decomposition of the symmetric n x n matrix a (destroyed): eigenvalues
 * into d, eigenvectors into the columns of v. Only + - * / sqrt: portable bits. */
static void jacobi_eigen(double *a, int n, double *d, double *v) {
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++) v[i * n + j] = i == j;
    for (int sweep = 0; sweep < 64; sweep++) {
        double off = 0.0;
        for (int p = 0; p < n; p++)
            for (int q = p + 1; q < n; q++) off += a[p * n + q] * a[p * n + q];
        if (off < 1e-30) break;
        for (int p = 0; p < n; p++)
            for (int q = p + 1; q < n; q++) {
                double apq = a[p * n + q];
                if (apq == 0.0) continue;
                double theta = (a[q * n + q] - a[p * n + p]) / (2.0 * apq);
                double t = (theta >= 0 ? 1.0 : -1.0) / ((theta >= 0 ? theta : -theta) + sqrt(theta * theta + 1.0));
                double c = 1.0 / sqrt(t * t + 1.0), s = t * c;
                for (int k = 0; k < n; k++) { /* columns p, q */
                    double akp = a[k * n + p], akq = a[k * n + q];
                    a[k * n + p] = c * akp - s * akq;
                    a[k * n + q] = s * akp + c * akq;
                }
                for (int k = 0; k < n; k++) { /* rows p, q */
                    double apk = a[p * n + k], aqk = a[q * n + k];
                    a[p * n + k] = c * apk - s * aqk;
                    a[q * n + k] = s * apk + c * aqk;
                }
                for (int k = 0; k < n; k++) {
                    double vkp = v[k * n + p], vkq = v[k * n + q];
                    v[k * n + p] = c * vkp - s * vkq;
                    v[k * n + q] = s * vkp + c * vkq;
                }
            }
    }
    for (int i = 0; i < n; i++) d[i] = a[i * n + i];
}

/* Classifier of a synthetic model. Random-weight networks map different images to features
 * that differ from the mean feature along a few directions only, so a plain random classifier
 * would predict the same two or three classes for everything. Every class gets a random
 * combination of the principal directions of the centred calibration features (unit vectors,
 * from the n x n Gram matrix), so predictions spread over many classes. The directions are not
 * whitened: dividing by sqrt(lambda) would amplify the weakest directions, where rounding noise
 * is largest relative to the signal. The scale alpha is set by bisection so the median top-1 softmax probability over
 * calibration images the directions did not see is 0.5, so unseen images land mostly between
 * 0.2 and 0.9. */
static infer8_status calibrate_head(i8_graph *g, const i8_node *node, int n, const float *features, i8_err *err) {
    int in = g->nodes[node->inputs[0]].c;
    int classes = node->c;
    float *w = g->weights[node->weight].data; /* random normal from synth_get: the class mixing */
    float *b = g->weights[node->bias].data;
    double *mean = i8_calloc((size_t)in, sizeof(double), err);
    double *var = i8_calloc((size_t)in, sizeof(double), err);
    double *x = i8_calloc((size_t)n * in, sizeof(double), err);
    double *gram = i8_calloc((size_t)n * n, sizeof(double), err);
    double *vecs = i8_calloc((size_t)n * n, sizeof(double), err);
    double *eig = i8_calloc((size_t)n, sizeof(double), err);
    double *dirs = i8_calloc((size_t)n * in, sizeof(double), err);   /* unit vectors u_m */
    double *cls = i8_calloc((size_t)classes * in, sizeof(double), err);
    double *z = i8_calloc((size_t)n * classes, sizeof(double), err);
    double *scratch = i8_calloc((size_t)n, sizeof(double), err);
    infer8_status s = INFER8_OK;
    if (!mean || !var || !x || !gram || !vecs || !eig || !dirs || !cls || !z || !scratch) {
        s = INFER8_E_NOMEM;
        goto done;
    }
    /* the first half of the images gives the directions, the second half (unseen by them) sets the
     * scale; with fewer than 4 images both use all */
    int n_fit = n >= 4 ? n / 2 : n;
    int first_eval = n >= 4 ? n_fit : 0;
    channel_stats(features, (size_t)n_fit, in, mean, var);
    for (int i = 0; i < n; i++)
        for (int j = 0; j < in; j++) x[(size_t)i * in + j] = (double)features[(size_t)i * in + j] - mean[j];
    for (int i = 0; i < n_fit; i++)
        for (int l = 0; l < n_fit; l++) {
            double acc = 0.0;
            for (int j = 0; j < in; j++) acc += x[(size_t)i * in + j] * x[(size_t)l * in + j];
            gram[i * n_fit + l] = acc / n_fit;
        }
    jacobi_eigen(gram, n_fit, eig, vecs);
    double max_eig = 0.0;
    for (int m = 0; m < n_fit; m++)
        if (eig[m] > max_eig) max_eig = eig[m];
    int r = 0;
    for (int m = 0; m < n_fit; m++) {
        if (!(eig[m] > 1e-9 * max_eig) || max_eig <= 0.0) continue;
        /* u_m = X^T v_m / sqrt(n lambda_m) is a unit vector */
        double norm = 1.0 / sqrt((double)n_fit * eig[m]);
        for (int j = 0; j < in; j++) {
            double acc = 0.0;
            for (int i = 0; i < n_fit; i++) acc += vecs[i * n_fit + m] * x[(size_t)i * in + j];
            dirs[(size_t)r * in + j] = acc * norm;
        }
        r++;
    }
    for (int k = 0; k < classes; k++)
        for (int m = 0; m < r; m++) {
            double mix = w[(size_t)k * in + m] / sqrt((double)(r > 0 ? r : 1));
            for (int j = 0; j < in; j++) cls[(size_t)k * in + j] += mix * dirs[(size_t)m * in + j];
        }
    int n_eval = n - first_eval;
    for (int i = 0; i < n_eval; i++)
        for (int k = 0; k < classes; k++) {
            double acc = 0.0;
            for (int j = 0; j < in; j++) acc += cls[(size_t)k * in + j] * x[(size_t)(first_eval + i) * in + j];
            z[(size_t)i * classes + k] = acc;
        }
    /* bisection on alpha (the median top-1 probability grows with alpha) */
    double lo = 0.0, hi = 4096.0;
    for (int it = 0; it < 60; it++) {
        double mid = 0.5 * (lo + hi);
        if (median_top1(z, n_eval, classes, mid, scratch) < 0.5) lo = mid;
        else hi = mid;
    }
    double alpha = 0.5 * (lo + hi);
    for (int k = 0; k < classes; k++) {
        double bias = 0.0;
        for (int j = 0; j < in; j++) {
            double wk = alpha * cls[(size_t)k * in + j];
            w[(size_t)k * in + j] = (float)wk;
            bias -= wk * mean[j];
        }
        b[k] = (float)(bias + 0.1 * (double)b[k]);
    }
done:
    free(mean), free(var), free(x), free(gram), free(vecs), free(eig), free(dirs), free(cls), free(z), free(scratch);
    return s;
}

static infer8_status synth_hook_fn(void *user, i8_graph *g, int index, int n, const float *const *inputs, i8_err *err) {
    synth_hook *h = user;
    i8_node *node = &g->nodes[index];
    if (node->op == I8_OP_BATCHNORM) {
        const i8_node *in = &g->nodes[node->inputs[0]];
        double *mean = i8_calloc((size_t)in->c * 2, sizeof(double), err);
        if (!mean) return INFER8_E_NOMEM;
        double *var = mean + in->c;
        channel_stats(inputs[0], (size_t)n * in->h * in->w, in->c, mean, var);
        float *rm = g->weights[node->bn_mean].data, *rv = g->weights[node->bn_var].data;
        for (int k = 0; k < in->c; k++) {
            rm[k] = (float)mean[k];
            rv[k] = (float)(var[k] > 1e-6 ? var[k] : 1e-6);
        }
        free(mean);
        h->done++;
        if (h->progress) h->progress(h->progress_user, "batch-norm statistics", (uint64_t)h->done, (uint64_t)h->total);
    } else if (node->op == I8_OP_LINEAR) {
        return calibrate_head(g, node, n, inputs[0], err);
    }
    return INFER8_OK;
}

EXPORT void infer8_synth_options_init(infer8_synth_options *o) {
    if (!o) return;
    memset(o, 0, sizeof *o);
    o->struct_size = sizeof *o;
    o->calibration_images = 32;
}

static infer8_status write_snapshot(const i8_graph *g, const i8_family *fam, const char *out_dir, i8_err *err) {
    /* safetensors: every fetched tensor in request order, plus num_batches_tracked per bn */
    int n_bn = 0;
    for (int i = 0; i < g->n_weights; i++)
        if (ends_with(g->weights[i].name, ".running_var")) n_bn++;
    int n_entries = g->n_weights + n_bn;
    i8_st_write_entry *entries = i8_calloc((size_t)n_entries, sizeof *entries, err);
    char (*nbt_names)[I8_NAME_MAX + 40] = i8_calloc((size_t)n_bn + 1, sizeof *nbt_names, err);
    static const int64_t zero64 = 0;
    if (!entries || !nbt_names) {
        free(entries), free(nbt_names);
        return INFER8_E_NOMEM;
    }
    int e = 0, b = 0;
    for (int i = 0; i < g->n_weights; i++) {
        const i8_weight *w = &g->weights[i];
        entries[e++] = (i8_st_write_entry){w->name, I8_DTYPE_F32, w->ndim, w->shape, w->data};
        if (ends_with(w->name, ".running_var")) {
            size_t stem = strlen(w->name) - strlen("running_var");
            snprintf(nbt_names[b], sizeof nbt_names[b], "%.*snum_batches_tracked", (int)stem, w->name);
            entries[e++] = (i8_st_write_entry){nbt_names[b], I8_DTYPE_I64, 0, NULL, &zero64};
            b++;
        }
    }
    char path[4096];
    snprintf(path, sizeof path, "%s/model.safetensors", out_dir);
    infer8_status s = i8_st_write(path, entries, e, "{\"format\": \"pt\"}", err);
    free(entries);
    free(nbt_names);
    if (s) return s;

    i8_model_config cfg;
    memset(&cfg, 0, sizeof cfg);
    snprintf(cfg.architecture, sizeof cfg.architecture, "%s", fam->arch);
    snprintf(cfg.tag, sizeof cfg.tag, "infer8_synth");
    cfg.num_classes = g->num_classes;
    cfg.num_features = fam->num_features;
    cfg.pre.input_size[0] = 3;
    cfg.pre.input_size[1] = g->input_h;
    cfg.pre.input_size[2] = g->input_w;
    cfg.pre.crop_pct = fam->default_crop_pct;
    cfg.pre.interpolation = I8_INTERP_BICUBIC;
    for (int c = 0; c < 3; c++) cfg.pre.mean[c] = cfg.pre.std[c] = 0.5f;
    cfg.n_labels = g->num_classes == 1000 ? 1000 : 0;
    cfg.labels = (char **)(cfg.n_labels ? i8_imagenet_labels : NULL);
    char *json = NULL;
    s = i8_config_to_json(&cfg, fam->first_conv, fam->classifier, &json, err);
    if (s) return s;
    snprintf(path, sizeof path, "%s/config.json", out_dir);
    s = i8_write_file_atomic(path, json, strlen(json), err);
    free(json);
    return s;
}

EXPORT infer8_status infer8_synth(infer8_context *ctx, const infer8_synth_options *options, const char *out_dir) {
    i8_err err;
    i8_err_clear(&err);
    if (!ctx || !options || !options->arch || !out_dir) {
        i8_fail(&err, INFER8_E_INVALID_ARGUMENT, "infer8_synth: arch and output folder are required");
        return i8_ctx_fail(ctx, &err);
    }
    if (options->struct_size < offsetof(infer8_synth_options, threads) + sizeof(int) || options->threads < 0 ||
        options->calibration_images < 0) {
        i8_fail(&err, INFER8_E_INVALID_ARGUMENT,
                "infer8_synth: options not set up by infer8_synth_options_init (struct_size %u), or threads %d / "
                "calibration_images %d negative",
                options->struct_size, options->threads, options->calibration_images);
        return i8_ctx_fail(ctx, &err);
    }
    infer8_synth_options o;
    infer8_synth_options_init(&o);
    memcpy(&o, options, options->struct_size < sizeof o ? options->struct_size : sizeof o);
    if (o.calibration_images == 0) o.calibration_images = 32;
    const i8_family *fam = i8_family_find(o.arch);
    if (!fam) {
        i8_fail(&err, INFER8_E_UNSUPPORTED, "unknown architecture '%s' (inception_resnet_v2, inception_v4, inception_v3)",
                o.arch);
        return i8_ctx_fail(ctx, &err);
    }
    if (mkdir(out_dir, 0777) != 0 && errno != EEXIST) {
        i8_fail(&err, INFER8_E_IO, "%s: cannot create folder: %s", out_dir, strerror(errno));
        return i8_ctx_fail(ctx, &err);
    }
    synth_source src;
    i8_rng_seed(&src.rng, o.seed * 0x9e3779b97f4a7c15ull + 0x1f8u);
    src.err = &err;
    i8_weight_source ws = {.ctx = &src, .get = synth_get};
    i8_graph g;
    int size = fam->default_size;
    infer8_status s = i8_graph_init(&g, fam->arch, 3, size, size, &err);
    if (s) return i8_ctx_fail(ctx, &err);
    s = fam->build(&g, &ws, 1000, size, size, &err);
    if (s) goto done;

    /* calibration images: generated scenes of varied sizes, preprocessed as timm would */
    int n = o.calibration_images;
    size_t per_image = (size_t)3 * size * size;
    float *batch = i8_calloc((size_t)n, per_image * sizeof(float), &err);
    float *logits = i8_calloc((size_t)n, 1000 * sizeof(float), &err);
    if (!batch || !logits) {
        free(batch), free(logits);
        s = INFER8_E_NOMEM;
        goto done;
    }
    i8_preproc pre = {{3, size, size}, fam->default_crop_pct, I8_INTERP_BICUBIC, {0.5f, 0.5f, 0.5f}, {0.5f, 0.5f, 0.5f}};
    for (int i = 0; i < n && !s; i++) {
        i8_image im = {0};
        int w = 320 + (int)((o.seed * 31 + (uint64_t)i * 97) % 160), h = 320 + (int)((o.seed * 17 + (uint64_t)i * 53) % 120);
        s = i8_image_generate(&im, o.seed * 1000003u + (uint64_t)i, w, h, &err);
        if (!s) s = i8_preprocess(&im, &pre, batch + (size_t)i * per_image, &err);
        i8_image_free(&im);
    }
    synth_hook hook = {o.progress, o.progress_user, 0, 0};
    for (int i = 0; i < g.n_nodes; i++) hook.total += g.nodes[i].op == I8_OP_BATCHNORM;
    if (!s) {
        i8_backend_options bo;
        memset(&bo, 0, sizeof bo);
        bo.max_batch = n;
        bo.threads = o.threads;
        bo.pre_node_hook = synth_hook_fn;
        bo.hook_user = &hook;
        void *exec = NULL;
        s = i8_backend_cpu_reference.prepare(&exec, &g, &bo, &err);
        if (!s) s = i8_backend_cpu_reference.run(exec, n, batch, logits, &err);
        if (exec) i8_backend_cpu_reference.destroy(exec);
    }
    free(batch);
    free(logits);
    if (!s) s = write_snapshot(&g, fam, out_dir, &err);
done:
    i8_graph_free(&g);
    return s ? i8_ctx_fail(ctx, &err) : INFER8_OK;
}

EXPORT infer8_status infer8_generate_image_png(infer8_context *ctx, uint64_t seed, int width, int height,
                                               const char *out_path) {
    if (!out_path) return i8_ctx_bad_arg(ctx, "infer8_generate_image_png: out_path is NULL");
    i8_err err;
    i8_err_clear(&err);
    i8_image im = {0};
    infer8_status s = i8_image_generate(&im, seed, width, height, &err);
    if (!s) s = i8_image_save_png(&im, out_path, &err);
    i8_image_free(&im);
    return s ? i8_ctx_fail(ctx, &err) : INFER8_OK;
}
