#include "test_weights.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "api/model.h"
#include "families/family.h"
#include "graph/graph.h"
#include "image/image.h"

static int ends_with(const char *s, size_t len, const char *suffix) {
    size_t n = strlen(suffix);
    return len >= n && !strcmp(s + len - n, suffix);
}

infer8_status i8_test_random_weight(void *ctx, const char *key, int ndim, const int64_t *shape, float **data,
                                    i8_err *err) {
    (void)ctx;
    size_t count = 1;
    for (int k = 0; k < ndim; k++) count *= (size_t)shape[k];
    float *d = i8_malloc(sizeof(float) * (count ? count : 1), err);
    if (!d) return err->code;
    uint64_t h = 1469598103934665603ull;
    for (const char *p = key; *p; p++) h = (h ^ (uint8_t)*p) * 1099511628211ull;
    i8_rng r;
    i8_rng_seed(&r, h);
    size_t len = strlen(key);
    double fill = -1, std = 0;
    if (ends_with(key, len, "running_var") || ends_with(key, len, ".bn.weight")) fill = 1;
    else if (ends_with(key, len, "running_mean") || ends_with(key, len, ".bn.bias")) fill = 0;
    else if (ndim == 4) std = sqrt(2.0 / (double)(shape[1] * shape[2] * shape[3]));
    else if (ndim == 2) std = sqrt(1.0 / (double)shape[1]);
    else std = 0.01;
    for (size_t k = 0; k < count; k++) d[k] = fill >= 0 ? (float)fill : (float)(std * i8_rng_normal(&r));
    *data = d;
    return INFER8_OK;
}

float *i8_test_generated_inputs(int n, uint64_t seed0, i8_err *err) {
    const size_t per = (size_t)3 * 299 * 299;
    float *in = i8_malloc(sizeof(float) * per * (size_t)(n > 0 ? n : 1), err);
    if (!in) return NULL;
    const i8_preproc pre = {{3, 299, 299}, 0.875f, I8_INTERP_BICUBIC, {0.5f, 0.5f, 0.5f}, {0.5f, 0.5f, 0.5f}};
    for (int i = 0; i < n; i++) {
        i8_image im;
        memset(&im, 0, sizeof im);
        infer8_status s = i8_image_generate(&im, seed0 + (uint64_t)i, 320 + 16 * (i % 3), 300, err);
        if (!s) s = i8_preprocess(&im, &pre, in + per * (size_t)i, err);
        i8_image_free(&im);
        if (s) {
            free(in);
            return NULL;
        }
    }
    return in;
}

infer8_status i8_test_model_graph(const char *model, i8_graph *g, i8_err *err) {
    if (strncmp(model, "random:", 7)) {
        i8_limits lim;
        i8_limits_default(&lim);
        i8_model_config cfg;
        const i8_family *fam = NULL;
        memset(&cfg, 0, sizeof cfg);
        return i8_checkpoint_load(model, NULL, &lim, &cfg, &fam, g, I8_CKPT_OPTIMIZE, err);
    }
    const i8_family *fam = i8_family_find(model + 7);
    if (!fam) return i8_fail(err, INFER8_E_UNSUPPORTED, "unknown arch '%s'", model + 7);
    i8_weight_source src = {NULL, i8_test_random_weight};
    infer8_status st = fam->build(g, &src, 1000, fam->default_size, fam->default_size, err);
    if (!st) st = i8_pass_optimize(g, NULL, err); /* as i8_checkpoint_load */
    return st;
}
