/* inception_v4 (timm/models/inception_v4.py): modules features.0..21 and head last_linear,
 * exactly as timm names and orders them; see shared/reference/architectures.md. No residuals.
 * Mixed3a concatenates (maxpool, conv), Mixed5a (conv, maxpool); InceptionC's nested concats
 * are flattened into one concat in the same channel order. */
#include "families/family.h"

#include <stdio.h>

#define N I8_NAME_MAX

static int cv(i8_builder *b, const char *name, int in, int out, int k, int s, int p) {
    return i8_build_cbr(b, name, in, out, k, k, s, s, p, p);
}

static int cr(i8_builder *b, const char *name, int in, int out, int kh, int kw) {
    return i8_build_cbr(b, name, in, out, kh, kw, 1, 1, kh / 2, kw / 2);
}

/* avgpool 3 s1 p1 excluding padding, as every v4 avgpool */
static int avg(i8_builder *b, const char *name, int in) { return i8_build_avgpool(b, name, in, 3, 1, 1, 0); }

static int mixed_3a(i8_builder *b, int x) {
    int br[2];
    br[0] = i8_build_maxpool(b, "features.3.maxpool", x, 3, 2, 0);
    br[1] = cv(b, "features.3.conv", x, 96, 3, 2, 0);
    return i8_build_concat(b, "features.3", br, 2);
}

static int mixed_4a(i8_builder *b, int x) {
    int br[2], t;
    t = cv(b, "features.4.branch0.0", x, 64, 1, 1, 0);
    br[0] = cv(b, "features.4.branch0.1", t, 96, 3, 1, 0);
    t = cv(b, "features.4.branch1.0", x, 64, 1, 1, 0);
    t = cr(b, "features.4.branch1.1", t, 64, 1, 7);
    t = cr(b, "features.4.branch1.2", t, 64, 7, 1);
    br[1] = cv(b, "features.4.branch1.3", t, 96, 3, 1, 0);
    return i8_build_concat(b, "features.4", br, 2);
}

static int mixed_5a(i8_builder *b, int x) {
    int br[2];
    br[0] = cv(b, "features.5.conv", x, 192, 3, 2, 0);
    br[1] = i8_build_maxpool(b, "features.5.maxpool", x, 3, 2, 0);
    return i8_build_concat(b, "features.5", br, 2);
}

static int inception_a(i8_builder *b, int idx, int x) {
    char m[32], n[N];
    snprintf(m, sizeof m, "features.%d", idx);
    int br[4], t;
    snprintf(n, N, "%s.branch0", m), br[0] = cv(b, n, x, 96, 1, 1, 0);
    snprintf(n, N, "%s.branch1.0", m), t = cv(b, n, x, 64, 1, 1, 0);
    snprintf(n, N, "%s.branch1.1", m), br[1] = cv(b, n, t, 96, 3, 1, 1);
    snprintf(n, N, "%s.branch2.0", m), t = cv(b, n, x, 64, 1, 1, 0);
    snprintf(n, N, "%s.branch2.1", m), t = cv(b, n, t, 96, 3, 1, 1);
    snprintf(n, N, "%s.branch2.2", m), br[2] = cv(b, n, t, 96, 3, 1, 1);
    snprintf(n, N, "%s.branch3.0", m), t = avg(b, n, x);
    snprintf(n, N, "%s.branch3.1", m), br[3] = cv(b, n, t, 96, 1, 1, 0);
    return i8_build_concat(b, m, br, 4);
}

static int reduction_a(i8_builder *b, int x) {
    int br[3], t;
    br[0] = cv(b, "features.10.branch0", x, 384, 3, 2, 0);
    t = cv(b, "features.10.branch1.0", x, 192, 1, 1, 0);
    t = cv(b, "features.10.branch1.1", t, 224, 3, 1, 1);
    br[1] = cv(b, "features.10.branch1.2", t, 256, 3, 2, 0);
    br[2] = i8_build_maxpool(b, "features.10.branch2", x, 3, 2, 0);
    return i8_build_concat(b, "features.10", br, 3);
}

static int inception_b(i8_builder *b, int idx, int x) {
    char m[32], n[N];
    snprintf(m, sizeof m, "features.%d", idx);
    int br[4], t;
    snprintf(n, N, "%s.branch0", m), br[0] = cv(b, n, x, 384, 1, 1, 0);
    snprintf(n, N, "%s.branch1.0", m), t = cv(b, n, x, 192, 1, 1, 0);
    snprintf(n, N, "%s.branch1.1", m), t = cr(b, n, t, 224, 1, 7);
    snprintf(n, N, "%s.branch1.2", m), br[1] = cr(b, n, t, 256, 7, 1);
    snprintf(n, N, "%s.branch2.0", m), t = cv(b, n, x, 192, 1, 1, 0);
    snprintf(n, N, "%s.branch2.1", m), t = cr(b, n, t, 192, 7, 1);
    snprintf(n, N, "%s.branch2.2", m), t = cr(b, n, t, 224, 1, 7);
    snprintf(n, N, "%s.branch2.3", m), t = cr(b, n, t, 224, 7, 1);
    snprintf(n, N, "%s.branch2.4", m), br[2] = cr(b, n, t, 256, 1, 7);
    snprintf(n, N, "%s.branch3.0", m), t = avg(b, n, x);
    snprintf(n, N, "%s.branch3.1", m), br[3] = cv(b, n, t, 128, 1, 1, 0);
    return i8_build_concat(b, m, br, 4);
}

static int reduction_b(i8_builder *b, int x) {
    int br[3], t;
    t = cv(b, "features.18.branch0.0", x, 192, 1, 1, 0);
    br[0] = cv(b, "features.18.branch0.1", t, 192, 3, 2, 0);
    t = cv(b, "features.18.branch1.0", x, 256, 1, 1, 0);
    t = cr(b, "features.18.branch1.1", t, 256, 1, 7);
    t = cr(b, "features.18.branch1.2", t, 320, 7, 1);
    br[1] = cv(b, "features.18.branch1.3", t, 320, 3, 2, 0);
    br[2] = i8_build_maxpool(b, "features.18.branch2", x, 3, 2, 0);
    return i8_build_concat(b, "features.18", br, 3);
}

static int inception_c(i8_builder *b, int idx, int x) {
    char m[32], n[N];
    snprintf(m, sizeof m, "features.%d", idx);
    int br[6], t;
    snprintf(n, N, "%s.branch0", m), br[0] = cv(b, n, x, 256, 1, 1, 0);
    snprintf(n, N, "%s.branch1_0", m), t = cv(b, n, x, 384, 1, 1, 0);
    snprintf(n, N, "%s.branch1_1a", m), br[1] = cr(b, n, t, 256, 1, 3);
    snprintf(n, N, "%s.branch1_1b", m), br[2] = cr(b, n, t, 256, 3, 1);
    snprintf(n, N, "%s.branch2_0", m), t = cv(b, n, x, 384, 1, 1, 0);
    snprintf(n, N, "%s.branch2_1", m), t = cr(b, n, t, 448, 3, 1);
    snprintf(n, N, "%s.branch2_2", m), t = cr(b, n, t, 512, 1, 3);
    snprintf(n, N, "%s.branch2_3a", m), br[3] = cr(b, n, t, 256, 1, 3);
    snprintf(n, N, "%s.branch2_3b", m), br[4] = cr(b, n, t, 256, 3, 1);
    snprintf(n, N, "%s.branch3.0", m), t = avg(b, n, x);
    snprintf(n, N, "%s.branch3.1", m), br[5] = cv(b, n, t, 256, 1, 1, 0);
    return i8_build_concat(b, m, br, 6);
}

static infer8_status build(i8_graph *g, const i8_weight_source *src, int num_classes, int in_h, int in_w, i8_err *err) {
    i8_builder bb, *b = &bb;
    if (i8_build_begin(b, g, src, "inception_v4", num_classes, in_h, in_w, err) != INFER8_OK) return i8_build_end(b);
    int x = 0;
    x = cv(b, "features.0", x, 32, 3, 2, 0);
    x = cv(b, "features.1", x, 32, 3, 1, 0);
    x = cv(b, "features.2", x, 64, 3, 1, 1);
    x = mixed_3a(b, x);
    x = mixed_4a(b, x);
    x = mixed_5a(b, x);
    for (int i = 6; i <= 9; i++) x = inception_a(b, i, x);
    x = reduction_a(b, x);
    for (int i = 11; i <= 17; i++) x = inception_b(b, i, x);
    x = reduction_b(b, x);
    for (int i = 19; i <= 21; i++) x = inception_c(b, i, x);
    i8_build_head(b, "last_linear", x, num_classes);
    return i8_build_end(b);
}

static const char *const no_prefixes[] = {NULL};

const i8_family i8_family_inception_v4 = {
    .arch = "inception_v4",
    .default_size = 299,
    .default_crop_pct = 0.875f,
    .first_conv = "features.0.conv",
    .classifier = "last_linear",
    .num_features = 1536,
    .build = build,
    .ignored_prefixes = no_prefixes,
};
