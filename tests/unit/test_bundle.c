/* Bundles: build a small hand-made model (input 3x75x75, an FP8 stem conv with per-channel
 * scales, a fused residual 1x1 conv, maxpool, global pool, linear, 3 labelled classes) into a
 * bundle, open it from path and from memory, and check:
 *   - fp32: every node field and weight bit round-trips, logits identical to the source model,
 *     the FP8 conv's weights stored as 1-byte e4m3 codes (weights section size computed by
 *     hand), act_scales present, provenance SHA-256 of the source equals the known digest of "abc";
 *   - fp16: kernels are the binary16 rounding of the source, biases exact, conv/linear layers
 *     marked fp16, logits identical to the source model with those kernels rounded by hand;
 *   - corruption: wrong magic, unknown version, truncation at every offset, a flipped byte at
 *     six places in every section, in the header and in the section table, a section pointing
 *     outside the file, huge lengths and file size, too many sections, non-zero padding, and a
 *     graph record with a bad weight index behind valid checksums: each refused with the
 *     status and a message naming the section and the failed check. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <cjson/cJSON.h>

#include <stdio.h>
#include <unistd.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "api/model.h"
#include "formats/bundle.h"
#include "image/image.h"
#include "quant/fp8.h"
#include "quant/scales.h"

static char work[1024];

static float *rand_data(i8_rng *r, size_t n, double scale) {
    float *p = malloc(n * sizeof *p);
    for (size_t i = 0; i < n; i++) p[i] = (float)((i8_rng_uniform(r) * 2 - 1) * scale);
    return p;
}

static int add_w(i8_graph *g, const char *name, int ndim, const int64_t *shape, float *data) {
    int idx = -1;
    i8_err err = {0};
    assert_int_equal(i8_graph_add_weight(g, name, ndim, shape, data, &idx, &err), INFER8_OK);
    return idx;
}

/* The hand-made graph; round_kernels: kernels of non-FP8 conv/linear rounded to binary16. */
static void build_graph(i8_graph *g, int round_kernels) {
    i8_err err = {0};
    i8_rng r;
    i8_rng_seed(&r, 7);
    assert_int_equal(i8_graph_init(g, "inception_v3", 3, 75, 75, &err), INFER8_OK);
    g->nodes[0].out_scale = 0.0173f; /* the FP8 stem reads the input as e4m3 */
    int64_t ws[4] = {4, 3, 3, 3}, c4[1] = {4}, w1[4] = {4, 4, 1, 1}, wl[2] = {3, 4}, c3[1] = {3};
    float *w = rand_data(&r, 108, 0.5), *sc = malloc(4 * sizeof *sc);
    assert_int_equal(i8_fp8_weight_scales(w, 4, 27, "stem", NULL, sc, &err), INFER8_OK);
    for (int o = 0; o < 4; o++)
        for (int k = 0; k < 27; k++) w[o * 27 + k] = i8_fp8_fake_quant(w[o * 27 + k], i8_fp8_inv_scale(sc[o]), sc[o]);
    i8_node n = i8_node_blank(I8_OP_CONV, "stem");
    n.n_inputs = 1, n.inputs[0] = 0, n.c = 4, n.h = n.w = 37, n.kh = n.kw = 3, n.sh = n.sw = 2, n.act = I8_ACT_RELU;
    n.weight = add_w(g, "stem.weight", 4, ws, w);
    n.bias = add_w(g, "stem.bias", 1, c4, rand_data(&r, 4, 0.1));
    n.weight_scales = add_w(g, "stem.weight_scales", 1, c4, sc);
    n.precision = I8_PREC_FP8;
    n.out_scale = 0.0041f;
    assert_int_equal(i8_graph_add_node(g, &n, NULL, &err), INFER8_OK);
    n = i8_node_blank(I8_OP_CONV, "side");
    n.n_inputs = 2, n.inputs[0] = 1, n.inputs[1] = 1, n.residual = 1, n.residual_scale = 0.17f, n.residual_fp8 = 1;
    n.c = 4, n.h = n.w = 37, n.kh = n.kw = 1, n.sh = n.sw = 1, n.act = I8_ACT_RELU, n.block = 3;
    float *k1 = rand_data(&r, 16, 0.7);
    float *kl = rand_data(&r, 12, 2.0);
    if (round_kernels) {
        for (int i = 0; i < 16; i++) k1[i] = i8_f16_to_f32(i8_f32_to_f16(k1[i]));
        for (int i = 0; i < 12; i++) kl[i] = i8_f16_to_f32(i8_f32_to_f16(kl[i]));
    }
    n.weight = add_w(g, "side.weight", 4, w1, k1);
    n.bias = add_w(g, "side.bias", 1, c4, rand_data(&r, 4, 0.1));
    assert_int_equal(i8_graph_add_node(g, &n, NULL, &err), INFER8_OK);
    n = i8_node_blank(I8_OP_MAXPOOL, "pool");
    n.n_inputs = 1, n.inputs[0] = 2, n.c = 4, n.h = n.w = 18, n.kh = n.kw = 3, n.sh = n.sw = 2;
    assert_int_equal(i8_graph_add_node(g, &n, NULL, &err), INFER8_OK);
    n = i8_node_blank(I8_OP_GLOBAL_AVGPOOL, "global_pool");
    n.n_inputs = 1, n.inputs[0] = 3, n.c = 4, n.h = n.w = 1;
    assert_int_equal(i8_graph_add_node(g, &n, NULL, &err), INFER8_OK);
    n = i8_node_blank(I8_OP_LINEAR, "fc");
    n.n_inputs = 1, n.inputs[0] = 4, n.c = 3, n.h = n.w = 1;
    n.weight = add_w(g, "fc.weight", 2, wl, kl);
    n.bias = add_w(g, "fc.bias", 1, c3, rand_data(&r, 3, 0.3));
    assert_int_equal(i8_graph_add_node(g, &n, NULL, &err), INFER8_OK);
    g->output = 5;
    g->num_classes = 3;
    g->checkpoint_parameters = 183;
    assert_int_equal(i8_graph_validate(g, &err), INFER8_OK);
}

static infer8_model *make_model(int round_kernels) {
    infer8_model *m = calloc(1, sizeof *m);
    pthread_mutex_init(&m->lock, NULL);
    infer8_open_options_init(&m->options);
    i8_limits_default(&m->limits);
    char src[1100];
    snprintf(src, sizeof src, "%s/source.bin", work);
    m->source = strdup(src);
    m->family = i8_family_find("inception_v3");
    i8_model_config *c = &m->config;
    snprintf(c->architecture, sizeof c->architecture, "inception_v3");
    c->num_classes = 3;
    c->pre.input_size[0] = 3, c->pre.input_size[1] = c->pre.input_size[2] = 75;
    c->pre.crop_pct = 0.875f;
    c->pre.interpolation = I8_INTERP_BILINEAR;
    for (int k = 0; k < 3; k++) c->pre.mean[k] = 0.25f * (float)(k + 1), c->pre.std[k] = 0.5f;
    c->n_labels = 3;
    c->labels = malloc(3 * sizeof *c->labels);
    c->labels[0] = strdup("alpha"), c->labels[1] = strdup("beta"), c->labels[2] = strdup("gamma \"q\"");
    build_graph(&m->graph, round_kernels);
    return m;
}

static void input_tensor(float *x) {
    i8_rng r;
    i8_rng_seed(&r, 99);
    for (int i = 0; i < 3 * 75 * 75; i++) x[i] = (float)(i8_rng_uniform(&r) * 4 - 2);
}

static void logits_of(infer8_context *ctx, infer8_model *m, float out[3]) {
    static float x[3 * 75 * 75];
    input_tensor(x);
    assert_int_equal(infer8_classify_tensor(ctx, m, 1, x, out), INFER8_OK);
}

static void bundle_path(char *buf, size_t size, const char *name) { snprintf(buf, size, "%s/%s", work, name); }

static void build(infer8_model *m, infer8_precision p, const char *name) {
    infer8_context *ctx = infer8_context_new();
    infer8_build_options o;
    infer8_build_options_init(&o);
    o.precision = p;
    o.max_batch = 4;
    char path[1100];
    bundle_path(path, sizeof path, name);
    infer8_status s = infer8_build(ctx, m, &o, path);
    if (s) fprintf(stderr, "%s\n", infer8_errmsg(ctx));
    assert_int_equal(s, INFER8_OK);
    /* infer8_build_size, which writes nothing, gives the written file's size to the byte */
    uint64_t sized = 1;
    struct stat st;
    assert_int_equal(infer8_build_size(ctx, m, &o, &sized), INFER8_OK);
    assert_int_equal(stat(path, &st), 0);
    assert_int_equal(sized, (uint64_t)st.st_size);
    assert_int_equal(infer8_build_size(ctx, m, &o, NULL), INFER8_E_INVALID_ARGUMENT);
    assert_non_null(strstr(infer8_errmsg(ctx), "infer8_build_size: NULL argument"));
    infer8_context_free(ctx);
}

static int setup(void **state) {
    const char *w = getenv("INFER8_WORK");
    snprintf(work, sizeof work, "%s", w ? w : "/tmp/infer8_test_bundle");
    char cmd[1200];
    snprintf(cmd, sizeof cmd, "mkdir -p '%s'", work);
    if (system(cmd)) return -1;
    char src[1100];
    snprintf(src, sizeof src, "%s/source.bin", work);
    i8_err err;
    if (i8_write_file_atomic(src, "abc", 3, &err)) return -1;
    infer8_model *m = make_model(0);
    build(m, INFER8_PRECISION_FP32, "small.bundle");
    build(m, INFER8_PRECISION_FP16, "small16.bundle");
    infer8_model_close(m);
    *state = NULL;
    return 0;
}

static infer8_model *open_bundle(infer8_context *ctx, const char *name) {
    char path[1100];
    bundle_path(path, sizeof path, name);
    infer8_model *m = NULL;
    infer8_status s = infer8_model_open(ctx, path, NULL, &m);
    if (s) fprintf(stderr, "%s\n", infer8_errmsg(ctx));
    assert_int_equal(s, INFER8_OK);
    return m;
}

static void test_roundtrip_fp32(void **state) {
    (void)state;
    infer8_context *ctx = infer8_context_new();
    infer8_model *src = make_model(0), *b = open_bundle(ctx, "small.bundle");
    const i8_graph *g = &src->graph, *h = &b->graph;
    assert_int_equal(h->n_nodes, g->n_nodes);
    assert_int_equal(h->n_weights, g->n_weights);
    assert_string_equal(h->arch, g->arch);
    assert_int_equal(h->output, g->output);
    assert_int_equal(h->checkpoint_parameters, 183);
    for (int i = 0; i < g->n_nodes; i++) assert_memory_equal(&h->nodes[i], &g->nodes[i], sizeof(i8_node));
    for (int i = 0; i < g->n_weights; i++) {
        assert_string_equal(h->weights[i].name, g->weights[i].name);
        assert_int_equal(h->weights[i].ndim, g->weights[i].ndim);
        assert_memory_equal(h->weights[i].shape, g->weights[i].shape, sizeof g->weights[i].shape);
        size_t n = 1;
        for (int k = 0; k < g->weights[i].ndim; k++) n *= (size_t)g->weights[i].shape[k];
        assert_memory_equal(h->weights[i].data, g->weights[i].data, n * sizeof(float));
    }
    float a[3], c[3];
    logits_of(ctx, src, a);
    logits_of(ctx, b, c);
    assert_memory_equal(a, c, sizeof a);
    infer8_model_info info;
    infer8_model_info_init(&info);
    assert_int_equal(infer8_model_get_info(b, &info), INFER8_OK);
    assert_string_equal(info.precision, "fp32");
    assert_int_equal(info.is_bundle, 1);
    assert_string_equal(info.source_sha256, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    assert_int_equal(info.input_height, 75);
    assert_true(info.interpolation == INFER8_INTERP_BILINEAR);
    assert_true(info.mean[2] == 0.75f && info.std[0] == 0.5f && info.crop_pct == 0.875f);
    assert_string_equal(infer8_model_label(b, 2), "gamma \"q\"");
    /* sections: header config labels graph act_scales weights; weights: stem kernel as 108 e4m3
     * bytes (padded to 128) + six tensors of <= 64 bytes, each at a 64-byte boundary */
    assert_int_equal(info.num_sections, 6);
    const char *names[6] = {"header", "config", "labels", "graph", "act_scales", "weights"};
    uint64_t total = 0;
    for (int i = 0; i < 6; i++) {
        assert_string_equal(info.sections[i].name, names[i]);
        assert_int_equal(info.sections[i].offset % 64, 0);
        total = info.sections[i].offset + info.sections[i].length;
    }
    assert_int_equal(info.file_bytes, total);
    assert_int_equal(info.sections[4].length, 6 * 4);
    assert_int_equal(info.sections[5].length, 128 + 6 * 64);
    assert_int_equal(info.sections[3].length, 128 + 6 * 256 + 7 * 192);
    assert_int_equal(info.sections[2].length, 4 + 6 + 5 + 10);
    char *text = NULL;
    assert_int_equal(infer8_model_describe(ctx, b, INFER8_DESCRIBE_JSON, &text), INFER8_OK);
    assert_non_null(strstr(text, "\"out_scale\":0.0041"));
    assert_non_null(strstr(text, "\"name\":\"act_scales\""));
    assert_non_null(strstr(text, "\"precision\":\"fp32\""));
    assert_non_null(strstr(text, "\"layers\":[{\"index\":0,"));
#ifdef INFER8_HAVE_CUDA
    /* the CUDA memory plan's error branch: conv 'side' reads 4 channels (the CUDA kernels need
     * multiples of 8), so the section says why instead of an arena size */
    assert_non_null(strstr(text, "\"memory\":{\"cuda\":{\"max_batch\":"));
    assert_non_null(strstr(text, "\"error\":\"cuda: node 'side' (conv) is not supported by the CUDA backend\""));
    assert_null(strstr(text, "activation_arena_bytes"));
#else
    assert_null(strstr(text, "\"memory\""));
#endif
    infer8_free(text);
    /* text: the bundle block, the graph listing, then the FP8 scales */
    assert_int_equal(infer8_model_describe(ctx, b, INFER8_DESCRIBE_TEXT, &text), INFER8_OK);
    const char *bundle_line = strstr(text, "bundle: "), *sections = strstr(text, "sections:\n"),
               *act = strstr(text, "\n  act_scales "), *fp8 = strstr(text, "\nFP8 scales: ");
    assert_true(bundle_line == text && sections && act && fp8 && sections < act && act < fp8);
    /* one line per layer with a scale: the input (read as e4m3 by the FP8 stem), the stem (its
     * out_scale and its 4 weight scales, as the JSON's range), 'side' (residual read as e4m3) */
    float lo = INFINITY, hi = 0;
    const i8_weight *ws = &b->graph.weights[b->graph.nodes[1].weight_scales];
    for (int k = 0; k < 4; k++) lo = fminf(lo, ws->data[k]), hi = fmaxf(hi, ws->data[k]);
    char want[160];
    snprintf(want, sizeof want, "\n      1 %-34s %-9s %-16s 4, %.4g .. %.4g\n", "stem", "fp8", "0.00410000002", (double)lo,
             (double)hi);
    assert_non_null(strstr(fp8, want));
    assert_non_null(strstr(fp8, "\n      0 input                              fp32      0.0173000004     -\n"));
    snprintf(want, sizeof want, "\n      2 %-34s %-9s %-16s -  (residual read as e4m3)\n", "side", "fp32", "-");
    assert_non_null(strstr(fp8, want));
    assert_null(strstr(fp8, " pool ")); /* no scale: not listed */
#ifdef INFER8_HAVE_CUDA
    assert_non_null(strstr(text, "memory (CUDA executor, max batch "));
    assert_non_null(strstr(text, "): not planned: cuda: node 'side' (conv) is not supported"));
#endif
    infer8_free(text);
    infer8_model_close(b);
    infer8_model_close(src);
    infer8_context_free(ctx);
}

/* infer8_profile_by_type sums a per-layer profile by layer type, in order of first appearance */
static void test_profile_by_type(void **state) {
    (void)state;
    infer8_model *m = make_model(0);
    m->graph.nodes[4].op = I8_OP_MAXPOOL; /* two layers of one type (the graph is not run) */
    const double ms[6] = {1, 2, 4, 8, 16, 32};
    infer8_type_time t[8];
    assert_int_equal(infer8_profile_by_type(m, ms, 6, t, 8), 5);
    const char *types[5] = {"input", "fp8 conv3x3/2", "conv1x1+residual", "maxpool", "linear"};
    const double sums[5] = {1, 2, 4, 24, 32};
    const int counts[5] = {1, 1, 1, 2, 1};
    for (int i = 0; i < 5; i++) {
        assert_string_equal(t[i].type, types[i]);
        assert_true(t[i].ms == sums[i]);
        assert_int_equal(t[i].count, counts[i]);
    }
    /* a cap keeps the first types and still adds into them */
    assert_int_equal(infer8_profile_by_type(m, ms, 6, t, 4), 4);
    assert_true(t[3].ms == 24 && t[3].count == 2);
    /* no layers, no types; bad arguments give -1 */
    assert_int_equal(infer8_profile_by_type(m, ms, 0, t, 8), 0);
    assert_int_equal(infer8_profile_by_type(NULL, ms, 6, t, 8), -1);
    assert_int_equal(infer8_profile_by_type(m, NULL, 6, t, 8), -1);
    assert_int_equal(infer8_profile_by_type(m, ms, 6, NULL, 8), -1);
    infer8_model_close(m);
}

static void test_roundtrip_fp16(void **state) {
    (void)state;
    infer8_context *ctx = infer8_context_new();
    infer8_model *src = make_model(0), *oracle = make_model(1), *b = open_bundle(ctx, "small16.bundle");
    const i8_graph *g = &oracle->graph, *h = &b->graph;
    assert_int_equal(h->n_weights, g->n_weights);
    for (int i = 0; i < g->n_weights; i++) {
        size_t n = 1;
        for (int k = 0; k < g->weights[i].ndim; k++) n *= (size_t)g->weights[i].shape[k];
        assert_memory_equal(h->weights[i].data, g->weights[i].data, n * sizeof(float));
    }
    /* kernels really changed by the rounding (the test can fail) */
    assert_memory_not_equal(src->graph.weights[src->graph.nodes[2].weight].data, h->weights[h->nodes[2].weight].data,
                            16 * sizeof(float));
    assert_int_equal(h->nodes[1].precision, I8_PREC_FP8);
    assert_int_equal(h->nodes[2].precision, I8_PREC_FP16);
    assert_int_equal(h->nodes[5].precision, I8_PREC_FP16);
    assert_int_equal(h->nodes[3].precision, I8_PREC_FP32);
    float a[3], c[3];
    logits_of(ctx, oracle, a);
    logits_of(ctx, b, c);
    assert_memory_equal(a, c, sizeof a);
    infer8_model_info info;
    infer8_model_info_init(&info);
    infer8_model_get_info(b, &info);
    assert_string_equal(info.precision, "fp16");
    /* side kernel 32 B, fc kernel 24 B: still one 64-byte slot each */
    assert_int_equal(info.sections[5].length, 128 + 6 * 64);
    infer8_model_close(b);
    infer8_model_close(oracle);
    infer8_model_close(src);
    infer8_context_free(ctx);
}

/* ---- corruption ---- */

static uint8_t *load(const char *name, size_t *size) {
    char path[1100];
    bundle_path(path, sizeof path, name);
    uint8_t *d = NULL;
    i8_err err;
    assert_int_equal(i8_read_file(path, 1 << 30, &d, size, &err), INFER8_OK);
    return d;
}

static void put64(uint8_t *p, uint64_t v) {
    for (int i = 0; i < 8; i++) p[i] = (uint8_t)(v >> (8 * i));
}
static uint64_t get64(const uint8_t *p) {
    uint64_t v = 0;
    for (int i = 0; i < 8; i++) v |= (uint64_t)p[i] << (8 * i);
    return v;
}

/* Recomputes every checksum (section payloads that lie in the file, table, header) so a
 * test reaches the checks behind them. */
static void reseal(uint8_t *d, size_t size) {
    uint32_t n = d[32] | d[33] << 8;
    for (uint32_t i = 0; i < n && i < 32; i++) {
        uint8_t *e = d + 64 + 64 * i;
        uint64_t off = get64(e + 32), len = get64(e + 40);
        if (off <= size && len <= size - off) put64(e + 48, i8_xxh3_64(d + off, (size_t)len));
    }
    if (64 + 64 * (size_t)n <= size) put64(d + 40, i8_xxh3_64(d + 64, 64 * (size_t)n));
    put64(d + 56, i8_xxh3_64(d, 56));
}

static int expect_bad(const uint8_t *d, size_t size, infer8_status code, const char *s1, const char *s2) {
    infer8_context *ctx = infer8_context_new();
    infer8_model *m = NULL;
    infer8_status s = infer8_model_open_memory(ctx, d, size, NULL, &m);
    int ok = s == code && m == NULL && strstr(infer8_errmsg(ctx), s1) && (!s2 || strstr(infer8_errmsg(ctx), s2));
    if (!ok)
        fprintf(stderr, "expected status %d with '%s' '%s', got %d: %s\n", (int)code, s1, s2 ? s2 : "", (int)s,
                infer8_errmsg(ctx));
    infer8_model_close(m);
    infer8_context_free(ctx);
    return ok;
}

static void test_open_memory(void **state) {
    (void)state;
    size_t size;
    uint8_t *d = load("small.bundle", &size);
    infer8_context *ctx = infer8_context_new();
    infer8_model *m = NULL, *p = open_bundle(ctx, "small.bundle");
    assert_int_equal(infer8_model_open_memory(ctx, d, size, NULL, &m), INFER8_OK);
    memset(d, 0xAB, size); /* the model must not keep pointers into the buffer */
    float a[3], c[3];
    logits_of(ctx, p, a);
    logits_of(ctx, m, c);
    assert_memory_equal(a, c, sizeof a);
    infer8_model_close(m);
    infer8_model_close(p);
    infer8_context_free(ctx);
    free(d);
}

/* opt_level (CUDA tuning effort) is 0..3 in the open and build options; other values are refused
 * with a message naming it, and the default is 2. */
static void test_opt_level_range(void **state) {
    (void)state;
    infer8_open_options oo;
    infer8_open_options_init(&oo);
    assert_int_equal(oo.opt_level, 2);
    char path[1100];
    bundle_path(path, sizeof path, "small.bundle");
    infer8_context *ctx = infer8_context_new();
    infer8_model *m = NULL;
    for (int level = -1; level <= 4; level++) {
        oo.opt_level = level;
        infer8_status s = infer8_model_open(ctx, path, &oo, &m);
        if (level >= 0 && level <= 3) {
            assert_int_equal(s, INFER8_OK);
            infer8_model_close(m);
        } else {
            assert_int_equal(s, INFER8_E_INVALID_ARGUMENT);
            assert_null(m);
            assert_non_null(strstr(infer8_errmsg(ctx), "opt_level"));
        }
        m = NULL;
    }
    infer8_build_options bo;
    infer8_build_options_init(&bo);
    assert_int_equal(bo.opt_level, 2);
    bo.opt_level = 7;
    infer8_model *src = open_bundle(ctx, "small.bundle");
    bundle_path(path, sizeof path, "never.bundle");
    assert_int_equal(infer8_build(ctx, src, &bo, path), INFER8_E_INVALID_ARGUMENT);
    assert_non_null(strstr(infer8_errmsg(ctx), "opt_level 7"));
    assert_int_equal(access(path, F_OK), -1);
    infer8_model_close(src);
    infer8_context_free(ctx);
}

/* infer8_get_tuning on the CPU: before any forward the model has not run; after one, the
 * reference executor says it tunes nothing, and the caller's struct is left as it was. (On the
 * GPU the study's report check, tools/gpu-check.d/check_study.py, reads what it gives.) */
static void test_get_tuning_cpu(void **state) {
    (void)state;
    infer8_context *ctx = infer8_context_new();
    infer8_model *m = open_bundle(ctx, "small.bundle");
    infer8_tuning t;
    infer8_tuning_init(&t);
    assert_int_equal(t.struct_size, sizeof t);
    t.conv_problems = 77;
    assert_int_equal(infer8_get_tuning(ctx, m, 1, &t), INFER8_E_INVALID_ARGUMENT);
    assert_non_null(strstr(infer8_errmsg(ctx), "has not run yet"));
    double ms = 0;
    assert_int_equal(infer8_time_forward(ctx, m, 1, 1, &ms), INFER8_OK);
    assert_int_equal(infer8_get_tuning(ctx, m, 1, &t), INFER8_E_UNSUPPORTED);
    assert_non_null(strstr(infer8_errmsg(ctx), "cpu-reference executor tunes nothing"));
    assert_int_equal(t.conv_problems, 77);
    infer8_model_close(m);
    infer8_context_free(ctx);
}

/* infer8_tuning_json: every field by name with its value, parsed back by cJSON; non-finite
 * seconds as null; a struct from before partly_tuned_problems (smaller struct_size) reads it as 0;
 * a short buffer is cut and NUL-terminated while the whole length is returned */
static void test_tuning_json(void **state) {
    (void)state;
    infer8_tuning t;
    infer8_tuning_init(&t);
    t.conv_problems = 39, t.untuned_problems = 2, t.partly_tuned_problems = 5, t.restored_tactics = 7;
    t.tune_seconds = 35.4567, t.cudnn_budget_s = -1;
    char text[256];
    int n = infer8_tuning_json(&t, text, sizeof text);
    assert_int_equal(n, (int)strlen(text));
    cJSON *o = cJSON_Parse(text);
    assert_non_null(o);
    assert_int_equal(cJSON_GetArraySize(o), 6);
    const struct {
        const char *key;
        double value;
    } want[] = {{"conv_problems", 39},  {"untuned_problems", 2}, {"partly_tuned_problems", 5},
                {"restored_tactics", 7}, {"tune_seconds", 35.457}, {"cudnn_budget_s", -1}};
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, want[i].key);
        assert_true(cJSON_IsNumber(v));
        assert_float_equal(v->valuedouble, want[i].value, 1e-9);
    }
    cJSON_Delete(o);

    t.tune_seconds = NAN, t.cudnn_budget_s = INFINITY;
    assert_true(infer8_tuning_json(&t, text, sizeof text) > 0);
    o = cJSON_Parse(text);
    assert_true(cJSON_IsNull(cJSON_GetObjectItemCaseSensitive(o, "tune_seconds")));
    assert_true(cJSON_IsNull(cJSON_GetObjectItemCaseSensitive(o, "cudnn_budget_s")));
    cJSON_Delete(o);

    t.struct_size = offsetof(infer8_tuning, partly_tuned_problems);
    infer8_tuning_json(&t, text, sizeof text);
    assert_non_null(strstr(text, "\"partly_tuned_problems\": 0,"));

    char small[10];
    assert_int_equal(infer8_tuning_json(&t, small, sizeof small), n - 2); /* null for 35.457, null for -1.0 */
    assert_string_equal(small, "{\"conv_pr");
    assert_int_equal(infer8_tuning_json(&t, NULL, 0), n - 2);
    assert_int_equal(infer8_tuning_json(NULL, text, sizeof text), -1);
    assert_int_equal(infer8_tuning_json(&t, NULL, 4), -1);
}

/* Open options out of range or not initialised are refused, naming the field; 0 and 4096 are
 * valid max_batch values (0 = 32). */
static void test_open_options_range(void **state) {
    (void)state;
    char path[1100];
    bundle_path(path, sizeof path, "small.bundle");
    infer8_context *ctx = infer8_context_new();
    const struct {
        const char *what, *message;
        int struct_size, device, threads, max_batch;
    } cases[] = {
        {"struct_size 3", "options struct_size 3 is below the smallest layout", 3, 0, 0, 32},
        {"device 77", "device 77 unknown", -1, 77, 0, 32},
        {"device -1", "device -1 unknown", -1, -1, 0, 32},
        {"threads -5", "threads -5 is negative", -1, 0, -5, 32},
        {"max_batch -1", "max_batch -1 is not in 1..4096", -1, 0, 0, -1},
        {"max_batch 4097", "max_batch 4097 is not in 1..4096", -1, 0, 0, 4097},
        {"max_batch 0", NULL, -1, 0, 0, 0},
        {"max_batch 4096", NULL, -1, 0, 0, 4096},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        infer8_open_options oo;
        infer8_open_options_init(&oo);
        if (cases[i].struct_size >= 0) oo.struct_size = (uint32_t)cases[i].struct_size;
        oo.device = (infer8_device)cases[i].device;
        oo.threads = cases[i].threads;
        oo.max_batch = cases[i].max_batch;
        infer8_model *m = NULL;
        infer8_status s = infer8_model_open(ctx, path, &oo, &m);
        if (!cases[i].message) {
            if (s) fail_msg("%s: %s", cases[i].what, infer8_errmsg(ctx));
            infer8_model_close(m);
            continue;
        }
        if (s != INFER8_E_INVALID_ARGUMENT || m || !strstr(infer8_errmsg(ctx), cases[i].message))
            fail_msg("%s: status %d, message '%s'", cases[i].what, s, infer8_errmsg(ctx));
    }
    infer8_context_free(ctx);
}

/* Every entry point given NULL where it needs a pointer returns INFER8_E_INVALID_ARGUMENT (or
 * does nothing, for the void ones) and never dereferences it. */
static void test_null_arguments(void **state) {
    (void)state;
    infer8_context *ctx = infer8_context_new();
    infer8_model *m = open_bundle(ctx, "small.bundle");
    infer8_set_log(NULL, NULL, NULL, 0);
    infer8_limits_init(NULL);
    infer8_open_options_init(NULL);
    infer8_model_info_init(NULL);
    infer8_build_options_init(NULL);
    infer8_synth_options_init(NULL);
    infer8_calibrate_options_init(NULL);
    infer8_calibrate_report_init(NULL);
    infer8_study_summary_init(NULL);
    infer8_study_options_init(NULL);
    infer8_tuning_init(NULL);
    infer8_model_close(NULL);
    infer8_context_free(NULL);
    infer8_free(NULL);
    assert_int_equal(infer8_errcode(NULL), INFER8_E_INVALID_ARGUMENT);
    assert_string_equal(infer8_errmsg(NULL), "no context");
    const infer8_status bad = INFER8_E_INVALID_ARGUMENT;
    infer8_model *out = NULL;
    char *text = NULL;
    float f[4];
    uint64_t bytes;
    char text_buf[64];
    double ms[4];
    assert_int_equal(infer8_set_limits(ctx, NULL), bad);
    /* with a context, the refusal also leaves its own message there: a caller that reports
     * infer8_errmsg (the study does, for every call it makes) must not show a stale one */
    char stale[256];
    snprintf(stale, sizeof stale, "%s", infer8_errmsg(ctx));
#define BAD_WITH_MESSAGE(call)                                                                        \
    do {                                                                                              \
        assert_int_equal(infer8_set_limits(ctx, NULL), bad); /* the known, stale message */           \
        assert_int_equal((call), bad);                                                                \
        assert_int_equal(infer8_errcode(ctx), bad);                                                   \
        assert_string_not_equal(infer8_errmsg(ctx), stale);                                           \
    } while (0)
    BAD_WITH_MESSAGE(infer8_model_open(ctx, NULL, NULL, &out));
    assert_int_equal(infer8_model_open(NULL, "x", NULL, &out), bad);
    BAD_WITH_MESSAGE(infer8_model_open_memory(ctx, NULL, 10, NULL, &out));
    assert_int_equal(infer8_model_get_info(m, NULL), bad);
    BAD_WITH_MESSAGE(infer8_model_describe(ctx, m, INFER8_DESCRIBE_TEXT, NULL));
    BAD_WITH_MESSAGE(infer8_model_describe(ctx, m, (infer8_describe_format)42, &text));
    assert_non_null(strstr(infer8_errmsg(ctx), "format is neither"));
    BAD_WITH_MESSAGE(infer8_preprocess_encoded(ctx, m, NULL, 10, f));
    BAD_WITH_MESSAGE(infer8_preprocess_rgb8(ctx, m, NULL, 4, 4, 12, f));
    BAD_WITH_MESSAGE(infer8_preprocess_encoded_u8(ctx, m, NULL, 10, (uint8_t *)text_buf));
    BAD_WITH_MESSAGE(infer8_classify_encoded(ctx, m, 1, NULL, NULL, f));
    BAD_WITH_MESSAGE(infer8_classify_tensor(ctx, m, 1, NULL, f));
    BAD_WITH_MESSAGE(infer8_classify_u8(ctx, m, 1, NULL, f));
    BAD_WITH_MESSAGE(infer8_classify_rgb8(ctx, m, 1, NULL, 4, 4, 12, f));
    assert_int_equal(infer8_topk(m, NULL, 1, NULL), bad);
    BAD_WITH_MESSAGE(infer8_build(ctx, m, NULL, NULL));
    BAD_WITH_MESSAGE(infer8_build_size(ctx, NULL, NULL, &bytes));
    BAD_WITH_MESSAGE(infer8_synth(ctx, NULL, NULL));
    infer8_synth_options so;
    infer8_synth_options_init(&so);
    so.arch = "inception_v3";
    so.threads = -2;
    BAD_WITH_MESSAGE(infer8_synth(ctx, &so, "/nonexistent/never"));
    assert_non_null(strstr(infer8_errmsg(ctx), "threads -2"));
    so.threads = 0;
    so.struct_size = 8;
    BAD_WITH_MESSAGE(infer8_synth(ctx, &so, "/nonexistent/never"));
    BAD_WITH_MESSAGE(infer8_generate_image_png(ctx, 1, 4, 4, NULL));
    assert_non_null(strstr(infer8_errmsg(ctx), "out_path is NULL"));
    BAD_WITH_MESSAGE(infer8_time_forward(ctx, m, 1, 1, NULL));
    BAD_WITH_MESSAGE(infer8_time_forward(ctx, NULL, 1, 1, ms));
    BAD_WITH_MESSAGE(infer8_profile(ctx, NULL, 1, 1, ms));
    BAD_WITH_MESSAGE(infer8_device_info(ctx, NULL, text_buf, sizeof text_buf));
    BAD_WITH_MESSAGE(infer8_device_info(ctx, m, NULL, 10));
    infer8_tuning tuning;
    infer8_tuning_init(&tuning);
    BAD_WITH_MESSAGE(infer8_get_tuning(ctx, NULL, 1, &tuning));
    BAD_WITH_MESSAGE(infer8_get_tuning(ctx, m, 1, NULL));
    tuning.struct_size = 0;
    BAD_WITH_MESSAGE(infer8_get_tuning(ctx, m, 1, &tuning));
    BAD_WITH_MESSAGE(infer8_roofline(ctx, m, NULL, 1, NULL, NULL, NULL));
    BAD_WITH_MESSAGE(infer8_fp8_recipe_describe(ctx, NULL, "default", 0, &text, NULL));
    BAD_WITH_MESSAGE(infer8_calibrate(ctx, m, NULL, NULL));
    BAD_WITH_MESSAGE(infer8_study(ctx, NULL, NULL, NULL));
    BAD_WITH_MESSAGE(infer8_save_npy(ctx, NULL, f, 1, NULL));
    assert_string_equal(infer8_model_label(NULL, 0), "(invalid class)");
    assert_string_equal(infer8_model_label(m, -1), "(invalid class)");
    assert_int_equal(infer8_model_num_classes(NULL), 0);
#undef BAD_WITH_MESSAGE
    infer8_model_close(m);
    infer8_context_free(ctx);
}

static void test_bad_magic_version(void **state) {
    (void)state;
    size_t size;
    uint8_t *d = load("small.bundle", &size);
    d[1] ^= 0x20;
    assert_true(expect_bad(d, size, INFER8_E_FORMAT, "not an infer8 bundle", "magic"));
    d[1] ^= 0x20;
    d[8] = 2;
    assert_true(expect_bad(d, size, INFER8_E_UNSUPPORTED, "header: format version 2 is unknown", NULL));
    reseal(d, size); /* even with a valid checksum */
    assert_true(expect_bad(d, size, INFER8_E_UNSUPPORTED, "format version 2", NULL));
    free(d);
}

static void test_truncation(void **state) {
    (void)state;
    size_t size;
    uint8_t *d = load("small.bundle", &size);
    for (size_t cut = 0; cut < size; cut++) {
        uint8_t *t = malloc(cut ? cut : 1); /* exact-size copy so ASan sees any over-read */
        memcpy(t, d, cut);
        if (cut < 8) assert_true(expect_bad(t, cut, INFER8_E_FORMAT, "magic", NULL));
        else assert_true(expect_bad(t, cut, INFER8_E_INTEGRITY, "truncated", NULL));
        free(t);
    }
    free(d);
}

static void test_flipped_bytes(void **state) {
    (void)state;
    size_t size;
    uint8_t *d = load("small.bundle", &size);
    i8_bundle b;
    i8_err err;
    assert_int_equal(i8_bundle_parse(&b, d, size, "x", &err), INFER8_OK);
    assert_int_equal(b.n_sections, 6);
    i8_rng r;
    i8_rng_seed(&r, 5);
    for (int i = 0; i < b.n_sections; i++) {
        const i8_bundle_section *s = &b.sections[i];
        char want[64];
        snprintf(want, sizeof want, "section '%s': checksum mismatch", s->name);
        uint64_t at[6] = {0, s->length / 2, s->length - 1, i8_rng_next(&r) % s->length, i8_rng_next(&r) % s->length,
                          i8_rng_next(&r) % s->length};
        for (int k = 0; k < 6; k++) {
            uint8_t *t = malloc(size);
            memcpy(t, d, size);
            t[s->offset + at[k]] ^= (uint8_t)(1u << (k % 8));
            assert_true(expect_bad(t, size, INFER8_E_INTEGRITY, want, NULL));
            free(t);
        }
    }
    for (size_t p = 12; p < 56; p += 7) { /* header fields */
        d[p] ^= 0x10;
        assert_true(expect_bad(d, size, INFER8_E_INTEGRITY, "header: checksum mismatch", NULL));
        d[p] ^= 0x10;
    }
    for (size_t p = 64; p < 64 + 6 * 64; p += 29) { /* section table */
        d[p] ^= 0x01;
        assert_true(expect_bad(d, size, INFER8_E_INTEGRITY, "section table: checksum mismatch", NULL));
        d[p] ^= 0x01;
    }
    /* padding between the config and labels sections */
    uint64_t gap = b.sections[1].offset + b.sections[1].length;
    assert_true(gap < b.sections[2].offset);
    d[gap] = 1;
    assert_true(expect_bad(d, size, INFER8_E_INTEGRITY, "section 'labels': padding byte", NULL));
    free(d);
}

static void test_bad_table(void **state) {
    (void)state;
    size_t size;
    uint8_t *d = load("small.bundle", &size);
    uint8_t *t = malloc(size);
    const char *names[6] = {"header", "config", "labels", "graph", "act_scales", "weights"};
    for (int i = 0; i < 6; i++) {
        char want[64];
        snprintf(want, sizeof want, "section '%s': bounds check failed", names[i]);
        uint8_t *e = t + 64 + 64 * i;
        memcpy(t, d, size);
        put64(e + 32, ((uint64_t)size + 64) & ~(uint64_t)63); /* offset past the end */
        reseal(t, size);
        assert_true(expect_bad(t, size, INFER8_E_FORMAT, want, NULL));
        memcpy(t, d, size);
        put64(e + 40, UINT64_MAX - 7); /* huge length */
        reseal(t, size);
        assert_true(expect_bad(t, size, INFER8_E_FORMAT, want, NULL));
        memcpy(t, d, size);
        put64(e + 32, UINT64_MAX & ~(uint64_t)63); /* offset + length wraps */
        reseal(t, size);
        assert_true(expect_bad(t, size, INFER8_E_FORMAT, want, NULL));
    }
    memcpy(t, d, size);
    put64(t + 16, UINT64_C(1) << 62); /* header claims a huge file */
    reseal(t, size);
    assert_true(expect_bad(t, size, INFER8_E_INTEGRITY, "header: file size check failed", "truncated"));
    memcpy(t, d, size);
    t[32] = 0xE8, t[33] = 0x03; /* 1000 sections */
    reseal(t, size);
    assert_true(expect_bad(t, size, INFER8_E_FORMAT, "header: section count 1000", NULL));
    memcpy(t, d, size);
    put64(t + 64 + 64 * 3 + 32, get64(t + 64 + 64 * 3 + 32) + 8); /* misaligned graph */
    reseal(t, size);
    assert_true(expect_bad(t, size, INFER8_E_FORMAT, "section 'graph': offset", "not aligned"));
    memcpy(t, d, size);
    memcpy(t + 64 + 64 * 2, "config", 7); /* duplicate name */
    reseal(t, size);
    assert_true(expect_bad(t, size, INFER8_E_FORMAT, "section 'config': appears twice", NULL));
    free(t);
    free(d);
}

/* Valid checksums over bad contents: the section decoders' own checks. */
static void test_bad_contents(void **state) {
    (void)state;
    size_t size;
    uint8_t *d = load("small.bundle", &size);
    i8_bundle b;
    i8_err err;
    assert_int_equal(i8_bundle_parse(&b, d, size, "x", &err), INFER8_OK);
    uint64_t goff = b.sections[3].offset, loff = b.sections[2].offset, woff = b.sections[5].offset;
    uint8_t *t = malloc(size);
    /* node 1 (stem): weight index field (after name[96] and 24 ints) set to 1000 */
    memcpy(t, d, size);
    t[goff + 128 + 256 + 96 + 4 * 20] = 0xE8, t[goff + 128 + 256 + 96 + 4 * 20 + 1] = 0x03;
    reseal(t, size);
    assert_true(expect_bad(t, size, INFER8_E_FORMAT, "section 'graph': node 1 'stem': weight index 1000", NULL));
    /* node count larger than the section */
    memcpy(t, d, size);
    t[goff + 4] = 200;
    reseal(t, size);
    assert_true(expect_bad(t, size, INFER8_E_FORMAT, "section 'graph': size check failed", NULL));
    /* a weight record's byte count past the weights section */
    memcpy(t, d, size);
    put64(t + goff + 128 + 6 * 256 + 176, b.sections[5].length); /* offset = section end */
    reseal(t, size);
    assert_true(expect_bad(t, size, INFER8_E_FORMAT, "section 'weights': weight 0 'stem.weight'", "bounds check failed"));
    /* conv output shape changed: graph validation names the layer */
    memcpy(t, d, size);
    t[goff + 128 + 256 + 96 + 4 * 10 + 1] = 1; /* stem c: 4 -> 260 */
    reseal(t, size);
    assert_true(expect_bad(t, size, INFER8_E_FORMAT, "section 'graph': validation failed", "stem"));
    /* node 1's name 'stem' given an ESC byte (checksums resealed: a crafted file): refused */
    memcpy(t, d, size);
    t[goff + 128 + 256 + 2] = 0x1b;
    reseal(t, size);
    assert_true(expect_bad(t, size, INFER8_E_FORMAT, "section 'graph': node 1: name is not UTF-8 without control", NULL));
    /* weight 0's name 'stem.weight' with a broken UTF-8 byte */
    memcpy(t, d, size);
    t[goff + 128 + 6 * 256 + 1] = 0xff;
    reseal(t, size);
    assert_true(expect_bad(t, size, INFER8_E_FORMAT, "section 'graph': weight 0: name is not UTF-8", NULL));
    /* label 0's first byte an ESC */
    memcpy(t, d, size);
    t[loff + 4] = 0x1b;
    reseal(t, size);
    assert_true(expect_bad(t, size, INFER8_E_FORMAT, "section 'labels': label 0 at byte 4 is not UTF-8 without", NULL));
    /* the header's JSON with a raw ESC inside a string (cJSON accepts it, and `inspect` shows the
     * header), then with a byte that is not UTF-8: refused, with the byte's offset in the file */
    const uint8_t *hdr = d + b.sections[0].offset;
    size_t at = 0;
    for (size_t k = 0; !at && k + 13 <= b.sections[0].length; k++)
        if (!memcmp(hdr + k, "infer8-bundle", 13)) at = (size_t)(hdr + k - d) + 6; /* the '-' */
    assert_true(at > 0);
    char want[96];
    memcpy(t, d, size);
    t[at] = 0x1b;
    reseal(t, size);
    snprintf(want, sizeof want, "section 'header': not JSON text: control byte 0x1b at byte offset %zu", at);
    assert_true(expect_bad(t, size, INFER8_E_FORMAT, want, NULL));
    memcpy(t, d, size);
    t[at] = 0xe9;
    reseal(t, size);
    snprintf(want, sizeof want, "section 'header': not JSON text: invalid UTF-8 (byte 0xe9) at byte offset %zu", at);
    assert_true(expect_bad(t, size, INFER8_E_FORMAT, want, NULL));
    /* labels: count says 4 */
    memcpy(t, d, size);
    t[loff] = 4;
    reseal(t, size);
    assert_true(expect_bad(t, size, INFER8_E_FORMAT, "section 'labels'", NULL));
    /* the FP8 stem's scales tensor (weight 2, the third tensor at offset 128 + 64) zeroed */
    memcpy(t, d, size);
    memset(t + woff + 128 + 64, 0, 16);
    reseal(t, size);
    assert_true(expect_bad(t, size, INFER8_E_FORMAT, "section 'graph': weight 'stem.weight_scales'", "not positive"));
    free(t);
    free(d);
}

/* Tactic records round-trip for every kind a CUDA build writes (FP8 bundles built with --device
 * cuda store kinds 4..6) with their graph-choice flags; an unknown kind or flag is refused with
 * the section, set and node named; records of older bundles (flags 0) still read. */
static void test_tactic_kinds(void **state) {
    (void)state;
    i8_bundle_tactic t[I8_BUNDLE_TACTIC_KIND_MAX + 1];
    memset(t, 0, sizeof t);
    for (int k = 0; k <= I8_BUNDLE_TACTIC_KIND_MAX; k++) {
        t[k].kind = k, t[k].variant = 10 + k, t[k].engine = -1, t[k].ms = 0.25f * (float)k;
        t[k].flags = I8_BUNDLE_TACTIC_FLAG_CHOSEN | (k % 2 ? I8_BUNDLE_TACTIC_FLAG_PRIORITY : 0u) | I8_BUNDLE_TACTIC_FLAG_PDL |
                     I8_BUNDLE_TACTIC_FLAG_MERGE | I8_BUNDLE_TACTIC_FLAG_MERGE_WIDE | I8_BUNDLE_TACTIC_FLAG_PAIR |
                     I8_BUNDLE_TACTIC_FLAG_PAIR_V0 * 8u; /* pair variant 7 */
        t[k].workspace = 1000u + (uint64_t)k;
    }
    i8_bundle_tactic_set set;
    memset(&set, 0, sizeof set);
    snprintf(set.gpu, sizeof set.gpu, "NVIDIA H200");
    set.batch = 1;
    set.n_nodes = I8_BUNDLE_TACTIC_KIND_MAX + 1;
    set.tactics = t;
    uint8_t *data = NULL;
    size_t size = 0;
    i8_err err = {0};
    assert_int_equal(i8_bundle_encode_tactics(&set, 1, &data, &size, &err), INFER8_OK);
    i8_bundle_tactic_set *got = NULL;
    int n = 0;
    assert_int_equal(i8_bundle_decode_tactics(data, size, set.n_nodes, &got, &n, &err), INFER8_OK);
    assert_int_equal(n, 1);
    for (int k = 0; k <= I8_BUNDLE_TACTIC_KIND_MAX; k++) {
        assert_int_equal(got[0].tactics[k].kind, k);
        assert_int_equal(got[0].tactics[k].variant, 10 + k);
        assert_true(got[0].tactics[k].ms == 0.25f * (float)k);
        assert_int_equal(got[0].tactics[k].flags, k % 2 ? 0x23f : 0x23d); /* bits 0-5 and 9 */
        assert_int_equal(got[0].tactics[k].workspace, 1000 + k);
    }
    i8_bundle_tactics_free(got, n);
    /* the flags are the u32 at byte 84 of each 96-byte record, after the 8-byte section header
     * and the set's 136-byte header: an older bundle wrote 0 there */
    const size_t rec0 = 8 + 136;
    assert_int_equal(data[rec0 + 84], 0x3d);
    assert_int_equal(data[rec0 + 85], 0x02);
    for (int k = 0; k <= I8_BUNDLE_TACTIC_KIND_MAX; k++) memset(data + rec0 + 96 * (size_t)k + 84, 0, 4);
    assert_int_equal(i8_bundle_decode_tactics(data, size, set.n_nodes, &got, &n, &err), INFER8_OK);
    for (int k = 0; k <= I8_BUNDLE_TACTIC_KIND_MAX; k++) {
        assert_int_equal(got[0].tactics[k].flags, 0);
        assert_int_equal(got[0].tactics[k].workspace, 1000 + k);
    }
    i8_bundle_tactics_free(got, n);
    data[rec0 + 96 * 1 + 84] = 32 | 64; /* pair variant 8 (+ 1 = 9): none exists */
    data[rec0 + 96 * 1 + 85] = 2;
    assert_int_equal(i8_bundle_decode_tactics(data, size, set.n_nodes, &got, &n, &err), INFER8_E_FORMAT);
    assert_non_null(strstr(err.msg, "node 1: flags 0x260 name pair variant 8"));
    data[rec0 + 96 * 1 + 84] = 0, data[rec0 + 96 * 1 + 85] = 0;
    data[rec0 + 96 * 2 + 85] = 4; /* bit 10: no version defines it */
    assert_int_equal(i8_bundle_decode_tactics(data, size, set.n_nodes, &got, &n, &err), INFER8_E_FORMAT);
    assert_non_null(strstr(err.msg, "node 2: flags 0x400 unknown"));
    char where[64];
    snprintf(where, sizeof where, "section byte %zu", rec0 + 96 * 2 + 84);
    assert_non_null(strstr(err.msg, where));
    free(data);
    t[3].kind = I8_BUNDLE_TACTIC_KIND_MAX + 1;
    assert_int_equal(i8_bundle_encode_tactics(&set, 1, &data, &size, &err), INFER8_OK);
    assert_int_equal(i8_bundle_decode_tactics(data, size, set.n_nodes, &got, &n, &err), INFER8_E_FORMAT);
    assert_non_null(strstr(err.msg, "tactics.cuda"));
    assert_non_null(strstr(err.msg, "node 3"));
    free(data);
}

/* The uint8 entry points on the CPU executor against the float ones: infer8_preprocess_encoded_u8
 * normalised by hand (torchvision's float32 steps) equals infer8_preprocess_encoded; the logits of
 * infer8_classify_u8, infer8_classify_encoded and infer8_classify_rgb8 equal infer8_classify_tensor's
 * on the float input, bit for bit, over more images than the bundle's max batch (4), with the
 * crops made on 1 and 4 threads; the first bad image is named; bad arguments are refused. */
static void test_uint8_entry_points(void **state) {
    (void)state;
    enum { N = 6, S = 75, PER = 3 * S * S };
    infer8_context *ctx = infer8_context_new();
    infer8_model *m = open_bundle(ctx, "small.bundle");
    infer8_model_info info;
    infer8_model_info_init(&info);
    assert_int_equal(infer8_model_get_info(m, &info), INFER8_OK);
    static uint8_t crops[N * PER];
    static float x[N * PER];
    uint8_t *enc[N] = {0}, *rgb[N] = {0};
    size_t enc_size[N];
    i8_err err;
    for (int i = 0; i < N; i++) { /* different sizes; all one size for the rgb8 batch below */
        i8_image im;
        assert_int_equal(i8_image_generate(&im, 500 + i, 90 + 13 * i, 64 + 7 * i, &err), INFER8_OK);
        assert_int_equal(i8_image_encode(&im, 'p', &enc[i], &enc_size[i], &err), INFER8_OK);
        i8_image_free(&im);
        assert_int_equal(i8_image_generate(&im, 900 + i, 101, 83, &err), INFER8_OK);
        rgb[i] = im.rgb;
    }
    for (int i = 0; i < N; i++) {
        uint8_t *c = crops + (size_t)i * PER;
        assert_int_equal(infer8_preprocess_encoded_u8(ctx, m, enc[i], enc_size[i], c), INFER8_OK);
        assert_int_equal(infer8_preprocess_encoded(ctx, m, enc[i], enc_size[i], x + (size_t)i * PER), INFER8_OK);
        for (int ch = 0; ch < 3; ch++)
            for (int p = 0; p < S * S; p++) {
                float t = (float)c[p * 3 + ch] / 255.0f;
                t = t - info.mean[ch];
                t = t / info.std[ch];
                assert_true(x[(size_t)i * PER + (size_t)ch * S * S + p] == t);
            }
    }
    float want[N * 3], got[N * 3];
    assert_int_equal(infer8_classify_tensor(ctx, m, N, x, want), INFER8_OK);
    memset(got, 0xff, sizeof got);
    assert_int_equal(infer8_classify_u8(ctx, m, N, crops, got), INFER8_OK);
    assert_memory_equal(got, want, sizeof got);
    memset(got, 0xff, sizeof got);
    assert_int_equal(infer8_classify_encoded(ctx, m, N, (const void *const *)enc, enc_size, got), INFER8_OK);
    assert_memory_equal(got, want, sizeof got);
    for (int i = 0; i < N; i++)
        assert_int_equal(infer8_preprocess_rgb8(ctx, m, rgb[i], 101, 83, 101 * 3, x + (size_t)i * PER), INFER8_OK);
    assert_int_equal(infer8_classify_tensor(ctx, m, N, x, want), INFER8_OK);
    memset(got, 0xff, sizeof got);
    assert_int_equal(infer8_classify_rgb8(ctx, m, N, (const uint8_t *const *)rgb, 101, 83, 101 * 3, got), INFER8_OK);
    assert_memory_equal(got, want, sizeof got);
    /* the images are cropped on 4 threads (the model's option): the same logits as on one; the
     * first failing image is the one named, whichever thread met it */
    for (int threads = 1; threads <= 4; threads += 3) {
        infer8_open_options oo;
        infer8_open_options_init(&oo);
        oo.threads = threads;
        char path[1100];
        bundle_path(path, sizeof path, "small.bundle");
        infer8_model *mt = NULL;
        assert_int_equal(infer8_model_open(ctx, path, &oo, &mt), INFER8_OK);
        memset(got, 0xff, sizeof got);
        assert_int_equal(infer8_classify_rgb8(ctx, mt, N, (const uint8_t *const *)rgb, 101, 83, 101 * 3, got), INFER8_OK);
        assert_memory_equal(got, want, sizeof got);
        size_t bad_size[N];
        memcpy(bad_size, enc_size, sizeof bad_size);
        bad_size[2] = 40, bad_size[4] = 30; /* truncated PNGs */
        assert_int_equal(infer8_classify_encoded(ctx, mt, N, (const void *const *)enc, bad_size, got), INFER8_E_FORMAT);
        assert_non_null(strstr(infer8_errmsg(ctx), "image 2:"));
        const uint8_t *holes[N];
        memcpy(holes, rgb, sizeof holes);
        holes[5] = NULL;
        assert_int_equal(infer8_classify_rgb8(ctx, mt, N, holes, 101, 83, 101 * 3, got), INFER8_E_INVALID_ARGUMENT);
        assert_non_null(strstr(infer8_errmsg(ctx), "image 5:"));
        infer8_model_close(mt);
    }
    /* refused */
    assert_int_equal(infer8_classify_u8(ctx, m, 0, crops, got), INFER8_E_INVALID_ARGUMENT);
    assert_int_equal(infer8_classify_u8(ctx, m, 1, NULL, got), INFER8_E_INVALID_ARGUMENT);
    assert_int_equal(infer8_preprocess_encoded_u8(ctx, m, enc[0], 10, crops), INFER8_E_FORMAT);
    assert_int_equal(infer8_classify_rgb8(ctx, m, 1, (const uint8_t *const *)rgb, 101, 83, 100, got),
                     INFER8_E_INVALID_ARGUMENT);
    for (int i = 0; i < N; i++) free(enc[i]), free(rgb[i]);
    infer8_model_close(m);
    infer8_context_free(ctx);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_roundtrip_fp32), cmocka_unit_test(test_roundtrip_fp16),
        cmocka_unit_test(test_open_memory),    cmocka_unit_test(test_opt_level_range),
        cmocka_unit_test(test_open_options_range),
        cmocka_unit_test(test_null_arguments),
        cmocka_unit_test(test_get_tuning_cpu),
        cmocka_unit_test(test_tuning_json),
        cmocka_unit_test(test_bad_magic_version),
        cmocka_unit_test(test_truncation),     cmocka_unit_test(test_flipped_bytes),
        cmocka_unit_test(test_bad_table),      cmocka_unit_test(test_bad_contents),
        cmocka_unit_test(test_tactic_kinds),     cmocka_unit_test(test_profile_by_type),
        cmocka_unit_test(test_uint8_entry_points),
    };
    return cmocka_run_group_tests(tests, setup, NULL);
}
