/* inception_v3 (timm/models/inception_v3.py, torchvision layout): stem Conv2d_*, Mixed_5b..7c,
 * head fc; see shared/reference/architectures.md. Every avg pool here counts padding
 * (F.avg_pool2d default), unlike v4 and IRv2. The functional pools have no module, so their
 * nodes are named "<block>.avg_pool" / "<block>.max_pool". InceptionE's nested concats are
 * flattened into one concat in the same channel order. AuxLogits.* keys are ignored. */
#include "families/family.h"

#include <stdio.h>

#define N I8_NAME_MAX

static int cv(i8_builder *b, const char *name, int in, int out, int k, int s, int p) {
    return i8_build_cbr(b, name, in, out, k, k, s, s, p, p);
}

static int cr(i8_builder *b, const char *name, int in, int out, int kh, int kw) {
    return i8_build_cbr(b, name, in, out, kh, kw, 1, 1, kh / 2, kw / 2);
}

static int avg(i8_builder *b, const char *m, int in) {
    char n[N];
    snprintf(n, N, "%s.avg_pool", m);
    return i8_build_avgpool(b, n, in, 3, 1, 1, 1);
}

static int inception_a(i8_builder *b, const char *m, int x, int pool_features) {
    char n[N];
    int br[4], t;
    snprintf(n, N, "%s.branch1x1", m), br[0] = cv(b, n, x, 64, 1, 1, 0);
    snprintf(n, N, "%s.branch5x5_1", m), t = cv(b, n, x, 48, 1, 1, 0);
    snprintf(n, N, "%s.branch5x5_2", m), br[1] = cv(b, n, t, 64, 5, 1, 2);
    snprintf(n, N, "%s.branch3x3dbl_1", m), t = cv(b, n, x, 64, 1, 1, 0);
    snprintf(n, N, "%s.branch3x3dbl_2", m), t = cv(b, n, t, 96, 3, 1, 1);
    snprintf(n, N, "%s.branch3x3dbl_3", m), br[2] = cv(b, n, t, 96, 3, 1, 1);
    t = avg(b, m, x);
    snprintf(n, N, "%s.branch_pool", m), br[3] = cv(b, n, t, pool_features, 1, 1, 0);
    return i8_build_concat(b, m, br, 4);
}

static int inception_b(i8_builder *b, const char *m, int x) {
    char n[N];
    int br[3], t;
    snprintf(n, N, "%s.branch3x3", m), br[0] = cv(b, n, x, 384, 3, 2, 0);
    snprintf(n, N, "%s.branch3x3dbl_1", m), t = cv(b, n, x, 64, 1, 1, 0);
    snprintf(n, N, "%s.branch3x3dbl_2", m), t = cv(b, n, t, 96, 3, 1, 1);
    snprintf(n, N, "%s.branch3x3dbl_3", m), br[1] = cv(b, n, t, 96, 3, 2, 0);
    snprintf(n, N, "%s.max_pool", m), br[2] = i8_build_maxpool(b, n, x, 3, 2, 0);
    return i8_build_concat(b, m, br, 3);
}

static int inception_c(i8_builder *b, const char *m, int x, int c7) {
    char n[N];
    int br[4], t;
    snprintf(n, N, "%s.branch1x1", m), br[0] = cv(b, n, x, 192, 1, 1, 0);
    snprintf(n, N, "%s.branch7x7_1", m), t = cv(b, n, x, c7, 1, 1, 0);
    snprintf(n, N, "%s.branch7x7_2", m), t = cr(b, n, t, c7, 1, 7);
    snprintf(n, N, "%s.branch7x7_3", m), br[1] = cr(b, n, t, 192, 7, 1);
    snprintf(n, N, "%s.branch7x7dbl_1", m), t = cv(b, n, x, c7, 1, 1, 0);
    snprintf(n, N, "%s.branch7x7dbl_2", m), t = cr(b, n, t, c7, 7, 1);
    snprintf(n, N, "%s.branch7x7dbl_3", m), t = cr(b, n, t, c7, 1, 7);
    snprintf(n, N, "%s.branch7x7dbl_4", m), t = cr(b, n, t, c7, 7, 1);
    snprintf(n, N, "%s.branch7x7dbl_5", m), br[2] = cr(b, n, t, 192, 1, 7);
    t = avg(b, m, x);
    snprintf(n, N, "%s.branch_pool", m), br[3] = cv(b, n, t, 192, 1, 1, 0);
    return i8_build_concat(b, m, br, 4);
}

static int inception_d(i8_builder *b, const char *m, int x) {
    char n[N];
    int br[3], t;
    snprintf(n, N, "%s.branch3x3_1", m), t = cv(b, n, x, 192, 1, 1, 0);
    snprintf(n, N, "%s.branch3x3_2", m), br[0] = cv(b, n, t, 320, 3, 2, 0);
    snprintf(n, N, "%s.branch7x7x3_1", m), t = cv(b, n, x, 192, 1, 1, 0);
    snprintf(n, N, "%s.branch7x7x3_2", m), t = cr(b, n, t, 192, 1, 7);
    snprintf(n, N, "%s.branch7x7x3_3", m), t = cr(b, n, t, 192, 7, 1);
    snprintf(n, N, "%s.branch7x7x3_4", m), br[1] = cv(b, n, t, 192, 3, 2, 0);
    snprintf(n, N, "%s.max_pool", m), br[2] = i8_build_maxpool(b, n, x, 3, 2, 0);
    return i8_build_concat(b, m, br, 3);
}

static int inception_e(i8_builder *b, const char *m, int x) {
    char n[N];
    int br[6], t;
    snprintf(n, N, "%s.branch1x1", m), br[0] = cv(b, n, x, 320, 1, 1, 0);
    snprintf(n, N, "%s.branch3x3_1", m), t = cv(b, n, x, 384, 1, 1, 0);
    snprintf(n, N, "%s.branch3x3_2a", m), br[1] = cr(b, n, t, 384, 1, 3);
    snprintf(n, N, "%s.branch3x3_2b", m), br[2] = cr(b, n, t, 384, 3, 1);
    snprintf(n, N, "%s.branch3x3dbl_1", m), t = cv(b, n, x, 448, 1, 1, 0);
    snprintf(n, N, "%s.branch3x3dbl_2", m), t = cv(b, n, t, 384, 3, 1, 1);
    snprintf(n, N, "%s.branch3x3dbl_3a", m), br[3] = cr(b, n, t, 384, 1, 3);
    snprintf(n, N, "%s.branch3x3dbl_3b", m), br[4] = cr(b, n, t, 384, 3, 1);
    t = avg(b, m, x);
    snprintf(n, N, "%s.branch_pool", m), br[5] = cv(b, n, t, 192, 1, 1, 0);
    return i8_build_concat(b, m, br, 6);
}

static infer8_status build(i8_graph *g, const i8_weight_source *src, int num_classes, int in_h, int in_w, i8_err *err) {
    i8_builder bb, *b = &bb;
    if (i8_build_begin(b, g, src, "inception_v3", num_classes, in_h, in_w, err) != INFER8_OK) return i8_build_end(b);
    int x = 0;
    x = cv(b, "Conv2d_1a_3x3", x, 32, 3, 2, 0);
    x = cv(b, "Conv2d_2a_3x3", x, 32, 3, 1, 0);
    x = cv(b, "Conv2d_2b_3x3", x, 64, 3, 1, 1);
    x = i8_build_maxpool(b, "Pool1", x, 3, 2, 0);
    x = cv(b, "Conv2d_3b_1x1", x, 80, 1, 1, 0);
    x = cv(b, "Conv2d_4a_3x3", x, 192, 3, 1, 0);
    x = i8_build_maxpool(b, "Pool2", x, 3, 2, 0);
    x = inception_a(b, "Mixed_5b", x, 32);
    x = inception_a(b, "Mixed_5c", x, 64);
    x = inception_a(b, "Mixed_5d", x, 64);
    x = inception_b(b, "Mixed_6a", x);
    x = inception_c(b, "Mixed_6b", x, 128);
    x = inception_c(b, "Mixed_6c", x, 160);
    x = inception_c(b, "Mixed_6d", x, 160);
    x = inception_c(b, "Mixed_6e", x, 192);
    x = inception_d(b, "Mixed_7a", x);
    x = inception_e(b, "Mixed_7b", x);
    x = inception_e(b, "Mixed_7c", x);
    i8_build_head(b, "fc", x, num_classes);
    return i8_build_end(b);
}

static const char *const ignored[] = {"AuxLogits.", NULL};

const i8_family i8_family_inception_v3 = {
    .arch = "inception_v3",
    .default_size = 299,
    .default_crop_pct = 0.875f,
    .first_conv = "Conv2d_1a_3x3.conv",
    .classifier = "fc",
    .num_features = 2048,
    .build = build,
    .ignored_prefixes = ignored,
};
