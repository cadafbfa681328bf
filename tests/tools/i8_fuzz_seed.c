/* i8_fuzz_seed: writes small valid inputs for the fuzz targets' seed corpora (fuzz/make-seeds.sh)
 * and the malformed-input corpus, through the project's own writers:
 *   i8_fuzz_seed image SEED W H p|j|w OUT     generated image encoded as PNG, JPEG or WebP
 *   i8_fuzz_seed safetensors OUT              a few small F32/F16/BF16/I64 tensors + metadata
 *   i8_fuzz_seed npy OUT                      float32 [2][3] .npy
 *   i8_fuzz_seed scales OUT                   scales.json with two entries
 *   i8_fuzz_seed config ARCH OUT              config.json with label_names (4 classes)
 *   i8_fuzz_seed bundle OUT [PIECES_DIR]      tiny bundle container (graph: conv, relu, pool,
 *                                             linear; labels; tactics); with PIECES_DIR also the
 *                                             raw sections in fuzz_bundle's split form
 * Exits 1 with the library's message on failure, 2 on bad usage. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "formats/bundle.h"
#include "formats/config.h"
#include "formats/safetensors.h"
#include "image/image.h"
#include "quant/scales.h"

static int fail(const i8_err *err) {
    fprintf(stderr, "i8_fuzz_seed: %s\n", err->msg);
    return 1;
}

static float *floats(size_t n, float base) {
    float *p = malloc(n * sizeof *p);
    for (size_t i = 0; p && i < n; i++) p[i] = base + 0.125f * (float)(i % 7) - 0.25f;
    return p;
}

/* fuzz_bundle's direct form: byte 0 = decoder (0 graph, 1 labels, 2 tactics), 4-byte split, data */
static int write_piece(const char *dir, const char *name, int kind, const uint8_t *a, size_t an, const uint8_t *b,
                       size_t bn, i8_err *err) {
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    size_t n = 5 + an + bn;
    uint8_t *buf = malloc(n);
    if (!buf) return 1;
    buf[0] = (uint8_t)kind;
    for (int i = 0; i < 4; i++) buf[1 + i] = (uint8_t)(an >> (8 * i));
    memcpy(buf + 5, a, an);
    if (bn) memcpy(buf + 5 + an, b, bn);
    infer8_status s = i8_write_file_atomic(path, buf, n, err);
    free(buf);
    return s != INFER8_OK;
}

static int make_bundle(const char *out, const char *pieces, i8_err *err) {
    i8_graph g;
    if (i8_graph_init(&g, "inception_v3", 3, 8, 8, err)) return fail(err);
    int64_t ws[4] = {4, 3, 3, 3}, bs[1] = {4}, ls[2] = {2, 4}, lbs[1] = {2};
    i8_node conv = i8_node_blank(I8_OP_CONV, "conv");
    conv.n_inputs = 1, conv.inputs[0] = 0, conv.c = 4, conv.h = 8, conv.w = 8;
    conv.kh = conv.kw = 3, conv.sh = conv.sw = 1, conv.ph = conv.pw = 1, conv.act = I8_ACT_RELU;
    i8_node pool = i8_node_blank(I8_OP_GLOBAL_AVGPOOL, "global_pool");
    pool.n_inputs = 1, pool.inputs[0] = 1, pool.c = 4, pool.h = 1, pool.w = 1;
    i8_node fc = i8_node_blank(I8_OP_LINEAR, "fc");
    fc.n_inputs = 1, fc.inputs[0] = 2, fc.c = 2, fc.h = 1, fc.w = 1;
    int idx;
    if (i8_graph_add_weight(&g, "conv.weight", 4, ws, floats(108, 0), &conv.weight, err) ||
        i8_graph_add_weight(&g, "conv.bias", 1, bs, floats(4, 0.5f), &conv.bias, err) ||
        i8_graph_add_node(&g, &conv, &idx, err) || i8_graph_add_node(&g, &pool, &idx, err) ||
        i8_graph_add_weight(&g, "fc.weight", 2, ls, floats(8, 1), &fc.weight, err) ||
        i8_graph_add_weight(&g, "fc.bias", 1, lbs, floats(2, 0), &fc.bias, err) ||
        i8_graph_add_node(&g, &fc, &idx, err))
        return fail(err);
    g.output = idx;
    g.num_classes = 2;
    if (i8_graph_validate(&g, err)) return fail(err);
    i8_graph_blob blob = {0};
    if (i8_bundle_encode_graph(&g, 1, &blob, err)) return fail(err);
    const char *labels[2] = {"cat", "dog"};
    uint8_t *lab = NULL, *tac = NULL;
    size_t lab_n = 0, tac_n = 0;
    i8_bundle_tactic t[3] = {{0}};
    t[1].kind = 1, t[1].variant = 2, t[1].engine = 7, t[1].ms = 0.5f;
    i8_bundle_tactic_set set = {.batch = 1, .n_nodes = 3, .tactics = t};
    snprintf(set.gpu, sizeof set.gpu, "NVIDIA H200");
    if (i8_bundle_encode_labels(labels, 2, &lab, &lab_n, err) || i8_bundle_encode_tactics(&set, 1, &tac, &tac_n, err))
        return fail(err);
    i8_bundle_writer w = {0};
    if (i8_bundle_writer_add(&w, "graph", blob.graph, blob.graph_size, err) ||
        i8_bundle_writer_add(&w, "weights", blob.weights, blob.weights_size, err) ||
        i8_bundle_writer_add(&w, "labels", lab, lab_n, err) || i8_bundle_writer_add(&w, "tactics.cuda", tac, tac_n, err) ||
        i8_bundle_writer_write(&w, out, err))
        return fail(err);
    if (pieces && (write_piece(pieces, "graph.piece", 0, blob.graph, blob.graph_size, blob.weights, blob.weights_size, err) ||
                   write_piece(pieces, "labels.piece", 1, lab, lab_n, NULL, 0, err) ||
                   write_piece(pieces, "tactics.piece", 2, tac, tac_n, NULL, 0, err)))
        return fail(err);
    free(lab);
    free(tac);
    i8_graph_blob_free(&blob);
    i8_graph_free(&g);
    return 0;
}

int main(int argc, char **argv) {
    i8_err err = {0};
    if (argc == 7 && !strcmp(argv[1], "image")) {
        i8_image im = {0};
        if (i8_image_generate(&im, strtoull(argv[2], NULL, 10), atoi(argv[3]), atoi(argv[4]), &err)) return fail(&err);
        uint8_t *buf = NULL;
        size_t size = 0;
        if (i8_image_encode(&im, argv[5][0], &buf, &size, &err)) return fail(&err);
        if (i8_write_file_atomic(argv[6], buf, size, &err)) return fail(&err);
        free(buf);
        i8_image_free(&im);
        return 0;
    }
    if (argc == 3 && !strcmp(argv[1], "safetensors")) {
        float a[6] = {1, -2, 3.5f, 0, 0.25f, -0.125f};
        uint16_t h[4] = {0x3c00, 0xc000, 0x3555, 0x0001};
        uint16_t b[2] = {0x3f80, 0xc040};
        int64_t l[1] = {7};
        int64_t sa[2] = {2, 3}, sh[1] = {4}, sb[3] = {1, 2, 1}, sl[1] = {1};
        i8_st_write_entry e[4] = {{"conv.weight", I8_DTYPE_F32, 2, sa, a},
                                  {"bn.bias", I8_DTYPE_F16, 1, sh, h},
                                  {"fc.weight", I8_DTYPE_BF16, 3, sb, b},
                                  {"bn.num_batches_tracked", I8_DTYPE_I64, 1, sl, l}};
        if (i8_st_write(argv[2], e, 4, "{\"format\":\"pt\"}", &err)) return fail(&err);
        return 0;
    }
    if (argc == 3 && !strcmp(argv[1], "npy")) {
        float a[6] = {1, 2, 3, 4, 5, -6};
        int64_t shape[2] = {2, 3};
        if (i8_npy_write_f32(argv[2], a, 2, shape, &err)) return fail(&err);
        return 0;
    }
    if (argc == 3 && !strcmp(argv[1], "scales")) {
        i8_scales s;
        memset(&s, 0, sizeof s);
        snprintf(s.method, sizeof s.method, "percentile");
        s.percentile = 99.99;
        s.images = 8;
        if (i8_scales_add(&s, "Conv2d_1a_3x3.conv", 3.5f, 3.5f / 448, &err) ||
            i8_scales_add(&s, "Mixed_5b.branch1x1", 0.75f, 0.75f / 448, &err) ||
            i8_scales_write(argv[2], &s, &err))
            return fail(&err);
        i8_scales_free(&s);
        return 0;
    }
    if (argc == 4 && !strcmp(argv[1], "config")) {
        i8_model_config cfg;
        memset(&cfg, 0, sizeof cfg);
        snprintf(cfg.architecture, sizeof cfg.architecture, "%s", argv[2]);
        snprintf(cfg.tag, sizeof cfg.tag, "tf_in1k");
        cfg.num_classes = 4;
        cfg.num_features = 2048;
        cfg.pre = (i8_preproc){{3, 299, 299}, 0.875f, I8_INTERP_BICUBIC, {0.5f, 0.5f, 0.5f}, {0.5f, 0.5f, 0.5f}};
        char *labels[4] = {"tench", "goldfish", "great white shark", "caf\xc3\xa9"};
        cfg.n_labels = 4;
        cfg.labels = labels;
        char *json = NULL;
        if (i8_config_to_json(&cfg, "Conv2d_1a_3x3.conv", "fc", &json, &err)) return fail(&err);
        if (i8_write_file_atomic(argv[3], json, strlen(json), &err)) return fail(&err);
        free(json);
        return 0;
    }
    if ((argc == 3 || argc == 4) && !strcmp(argv[1], "bundle")) return make_bundle(argv[2], argc == 4 ? argv[3] : NULL, &err);
    fprintf(stderr, "usage: i8_fuzz_seed image SEED W H p|j|w OUT | safetensors OUT | npy OUT | scales OUT | "
                    "config ARCH OUT | bundle OUT [PIECES_DIR]\n");
    return 2;
}
