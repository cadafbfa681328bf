/* inception_resnet_v2 (timm/models/inception_resnet_v2.py): module paths, channel counts,
 * kernels and residual scales as timm defines them; see shared/reference/architectures.md.
 * Node order follows timm's forward (branches in concat order). */
#include "families/family.h"

#include <stdio.h>

#define N I8_NAME_MAX

/* CBR with square kernel k, stride s, padding p. */
static int cv(i8_builder *b, const char *name, int in, int out, int k, int s, int p) {
    return i8_build_cbr(b, name, in, out, k, k, s, s, p, p);
}

/* CBR with a rectangular kernel kh x kw, stride 1, padding (kh/2, kw/2). */
static int cr(i8_builder *b, const char *name, int in, int out, int kh, int kw) {
    return i8_build_cbr(b, name, in, out, kh, kw, 1, 1, kh / 2, kw / 2);
}

static int mixed_5b(i8_builder *b, int x) {
    int br[4], t;
    br[0] = cv(b, "mixed_5b.branch0", x, 96, 1, 1, 0);
    t = cv(b, "mixed_5b.branch1.0", x, 48, 1, 1, 0);
    br[1] = cv(b, "mixed_5b.branch1.1", t, 64, 5, 1, 2);
    t = cv(b, "mixed_5b.branch2.0", x, 64, 1, 1, 0);
    t = cv(b, "mixed_5b.branch2.1", t, 96, 3, 1, 1);
    br[2] = cv(b, "mixed_5b.branch2.2", t, 96, 3, 1, 1);
    t = i8_build_avgpool(b, "mixed_5b.branch3.0", x, 3, 1, 1, 0);
    br[3] = cv(b, "mixed_5b.branch3.1", t, 64, 1, 1, 0);
    return i8_build_concat(b, "mixed_5b", br, 4);
}

/* Residual tail shared by Block35/17/8: cat -> 1x1 conv with bias -> act(x + scale * .). */
static int residual_tail(i8_builder *b, const char *m, int x, const int *br, int nbr, int out_c, float scale,
                         i8_act act) {
    char n1[N], n2[N];
    snprintf(n1, N, "%s.cat", m);
    snprintf(n2, N, "%s.conv2d", m);
    int cat = i8_build_concat(b, n1, br, nbr);
    int proj = i8_build_conv_bias(b, n2, cat, out_c, 1, 1);
    return i8_build_residual(b, m, x, proj, scale, act);
}

static int block35(i8_builder *b, int idx, int x) {
    char m[32], n[N];
    snprintf(m, sizeof m, "repeat.%d", idx);
    int br[3], t;
    snprintf(n, N, "%s.branch0", m), br[0] = cv(b, n, x, 32, 1, 1, 0);
    snprintf(n, N, "%s.branch1.0", m), t = cv(b, n, x, 32, 1, 1, 0);
    snprintf(n, N, "%s.branch1.1", m), br[1] = cv(b, n, t, 32, 3, 1, 1);
    snprintf(n, N, "%s.branch2.0", m), t = cv(b, n, x, 32, 1, 1, 0);
    snprintf(n, N, "%s.branch2.1", m), t = cv(b, n, t, 48, 3, 1, 1);
    snprintf(n, N, "%s.branch2.2", m), br[2] = cv(b, n, t, 64, 3, 1, 1);
    return residual_tail(b, m, x, br, 3, 320, 0.17f, I8_ACT_RELU);
}

static int mixed_6a(i8_builder *b, int x) {
    int br[3], t;
    br[0] = cv(b, "mixed_6a.branch0", x, 384, 3, 2, 0);
    t = cv(b, "mixed_6a.branch1.0", x, 256, 1, 1, 0);
    t = cv(b, "mixed_6a.branch1.1", t, 256, 3, 1, 1);
    br[1] = cv(b, "mixed_6a.branch1.2", t, 384, 3, 2, 0);
    br[2] = i8_build_maxpool(b, "mixed_6a.branch2", x, 3, 2, 0);
    return i8_build_concat(b, "mixed_6a", br, 3);
}

static int block17(i8_builder *b, int idx, int x) {
    char m[32], n[N];
    snprintf(m, sizeof m, "repeat_1.%d", idx);
    int br[2], t;
    snprintf(n, N, "%s.branch0", m), br[0] = cv(b, n, x, 192, 1, 1, 0);
    snprintf(n, N, "%s.branch1.0", m), t = cv(b, n, x, 128, 1, 1, 0);
    snprintf(n, N, "%s.branch1.1", m), t = cr(b, n, t, 160, 1, 7);
    snprintf(n, N, "%s.branch1.2", m), br[1] = cr(b, n, t, 192, 7, 1);
    return residual_tail(b, m, x, br, 2, 1088, 0.10f, I8_ACT_RELU);
}

static int mixed_7a(i8_builder *b, int x) {
    int br[4], t;
    t = cv(b, "mixed_7a.branch0.0", x, 256, 1, 1, 0);
    br[0] = cv(b, "mixed_7a.branch0.1", t, 384, 3, 2, 0);
    t = cv(b, "mixed_7a.branch1.0", x, 256, 1, 1, 0);
    br[1] = cv(b, "mixed_7a.branch1.1", t, 288, 3, 2, 0);
    t = cv(b, "mixed_7a.branch2.0", x, 256, 1, 1, 0);
    t = cv(b, "mixed_7a.branch2.1", t, 288, 3, 1, 1);
    br[2] = cv(b, "mixed_7a.branch2.2", t, 320, 3, 2, 0);
    br[3] = i8_build_maxpool(b, "mixed_7a.branch3", x, 3, 2, 0);
    return i8_build_concat(b, "mixed_7a", br, 4);
}

/* m: "repeat_2.N" or "block8" (the last one: scale 1.0, no relu). */
static int block8(i8_builder *b, const char *m, int x, float scale, i8_act act) {
    char n[N];
    int br[2], t;
    snprintf(n, N, "%s.branch0", m), br[0] = cv(b, n, x, 192, 1, 1, 0);
    snprintf(n, N, "%s.branch1.0", m), t = cv(b, n, x, 192, 1, 1, 0);
    snprintf(n, N, "%s.branch1.1", m), t = cr(b, n, t, 224, 1, 3);
    snprintf(n, N, "%s.branch1.2", m), br[1] = cr(b, n, t, 256, 3, 1);
    return residual_tail(b, m, x, br, 2, 2080, scale, act);
}

static infer8_status build(i8_graph *g, const i8_weight_source *src, int num_classes, int in_h, int in_w, i8_err *err) {
    i8_builder bb, *b = &bb;
    if (i8_build_begin(b, g, src, "inception_resnet_v2", num_classes, in_h, in_w, err) != INFER8_OK)
        return i8_build_end(b);
    int x = 0;
    x = cv(b, "conv2d_1a", x, 32, 3, 2, 0);
    x = cv(b, "conv2d_2a", x, 32, 3, 1, 0);
    x = cv(b, "conv2d_2b", x, 64, 3, 1, 1);
    x = i8_build_maxpool(b, "maxpool_3a", x, 3, 2, 0);
    x = cv(b, "conv2d_3b", x, 80, 1, 1, 0);
    x = cv(b, "conv2d_4a", x, 192, 3, 1, 0);
    x = i8_build_maxpool(b, "maxpool_5a", x, 3, 2, 0);
    x = mixed_5b(b, x);
    int block = 0;
    for (int i = 0; i < 10; i++) {
        b->block = block++;
        x = block35(b, i, x);
    }
    b->block = -1;
    x = mixed_6a(b, x);
    for (int i = 0; i < 20; i++) {
        b->block = block++;
        x = block17(b, i, x);
    }
    b->block = -1;
    x = mixed_7a(b, x);
    char m[32];
    for (int i = 0; i < 9; i++) {
        snprintf(m, sizeof m, "repeat_2.%d", i);
        b->block = block++;
        x = block8(b, m, x, 0.20f, I8_ACT_RELU);
    }
    b->block = block++;
    x = block8(b, "block8", x, 1.0f, I8_ACT_NONE);
    b->block = -1;
    x = cv(b, "conv2d_7b", x, 1536, 1, 1, 0);
    i8_build_head(b, "classif", x, num_classes);
    return i8_build_end(b);
}

static const char *const no_prefixes[] = {NULL};

const i8_family i8_family_inception_resnet_v2 = {
    .arch = "inception_resnet_v2",
    .default_size = 299,
    .default_crop_pct = 0.8975f,
    .first_conv = "conv2d_1a.conv",
    .classifier = "classif",
    .num_features = 1536,
    .build = build,
    .ignored_prefixes = no_prefixes,
};
