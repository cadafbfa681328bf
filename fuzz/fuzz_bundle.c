/* libFuzzer target: the bundle reader (src/formats/bundle.c). The input is tried as a whole
 * container (i8_bundle_parse, then the section decoders on what it finds), and -- because
 * checksums stop most mutations at the container level -- also split into pieces fed to the
 * section decoders directly: byte 0 picks the decoder, bytes 1..4 the graph/weights split. */
#include "fuzz_util.h"
#include "formats/bundle.h"

static void decode_sections(const uint8_t *g, size_t gs, const uint8_t *w, size_t ws, const uint8_t *l, size_t ls,
                            const uint8_t *t, size_t ts) {
    i8_err err = {0};
    if (g) {
        i8_graph graph;
        memset(&graph, 0, sizeof graph);
        if (i8_bundle_decode_graph(g, gs, w, ws, &graph, &err) == INFER8_OK) i8_graph_free(&graph);
        else if (!err.msg[0]) abort();
    }
    if (l) {
        char **labels = NULL;
        int n = 0;
        if (i8_bundle_decode_labels(l, ls, &labels, &n, &err) == INFER8_OK) {
            for (int i = 0; i < n; i++) free(labels[i]); /* each label is its own allocation */
            free(labels);
        }
    }
    if (t) {
        i8_bundle_tactic_set *sets = NULL;
        int n = 0;
        for (int expect = 0; expect < 3; expect++)
            if (i8_bundle_decode_tactics(t, ts, expect, &sets, &n, &err) == INFER8_OK) i8_bundle_tactics_free(sets, n);
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    i8_err err = {0};
    i8_bundle b;
    if (i8_bundle_parse(&b, data, size, "fuzz.bundle", &err) == INFER8_OK) {
        const i8_bundle_section *g = i8_bundle_find(&b, "graph"), *w = i8_bundle_find(&b, "weights");
        const i8_bundle_section *l = i8_bundle_find(&b, "labels"), *t = i8_bundle_find(&b, "tactics.cuda");
        decode_sections(g && w ? g->data : NULL, g ? g->length : 0, w ? w->data : NULL, w ? w->length : 0,
                        l ? l->data : NULL, l ? l->length : 0, t ? t->data : NULL, t ? t->length : 0);
    } else if (!err.msg[0]) {
        abort();
    }
    if (size < 5) return 0;
    uint32_t split = (uint32_t)data[1] | (uint32_t)data[2] << 8 | (uint32_t)data[3] << 16 | (uint32_t)data[4] << 24;
    const uint8_t *p = data + 5;
    size_t n = size - 5;
    switch (data[0] % 3) {
    case 0: {
        size_t gs = split % (n + 1);
        /* copies so ASan sees the exact bounds of each piece */
        uint8_t *g = malloc(gs ? gs : 1), *w = malloc(n - gs ? n - gs : 1);
        memcpy(g, p, gs);
        memcpy(w, p + gs, n - gs);
        decode_sections(g, gs, w, n - gs, NULL, 0, NULL, 0);
        free(g);
        free(w);
        break;
    }
    case 1: decode_sections(NULL, 0, NULL, 0, p, n, NULL, 0); break;
    default: decode_sections(NULL, 0, NULL, 0, NULL, 0, p, n); break;
    }
    return 0;
}
