/* libFuzzer target: recipe files (i8_fp8_recipe_parse_json), then the parsed recipe applied to a
 * small IRv2-shaped graph (i8_fp8_plan_make: fnmatch globs, residual block ranges) and listed
 * both ways (i8_fp8_plan_describe). A refusal must carry a message; a plan's counts must agree
 * with its flags. */
#include "fuzz_util.h"
#include "quant/recipe.h"

/* input -> conv2d_1a (stem) -> mixed_5b.branch0 -> repeat.0.conv2d (fused residual, block 0)
 * -> repeat.1.conv2d (block 1) -> conv2d_7b: names as the family gives them, shapes irrelevant
 * to the recipe code (the graph is not validated). */
static int small_graph(i8_graph *g) {
    i8_err err = {0};
    if (i8_graph_init(g, "inception_resnet_v2", 3, 8, 8, &err)) return 0;
    static const struct {
        const char *name;
        int residual_of, block;
    } convs[] = {{"conv2d_1a.conv", -1, -1},
                 {"mixed_5b.branch0.conv", -1, -1},
                 {"repeat.0.conv2d", 2, 0},
                 {"repeat.1.conv2d", 3, 1},
                 {"conv2d_7b.conv", -1, -1}};
    for (size_t i = 0; i < sizeof convs / sizeof convs[0]; i++) {
        i8_node nd = i8_node_blank(I8_OP_CONV, convs[i].name);
        nd.n_inputs = 1;
        nd.inputs[0] = (int)i; /* the previous node */
        nd.c = 8, nd.h = 8, nd.w = 8;
        nd.block = convs[i].block;
        if (convs[i].residual_of >= 0) {
            nd.residual = convs[i].residual_of;
            nd.inputs[1] = nd.residual;
            nd.n_inputs = 2;
        }
        int idx;
        if (i8_graph_add_node(g, &nd, &idx, &err)) return 0;
    }
    return 1;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    i8_fp8_recipe r;
    memset(&r, 0, sizeof r);
    i8_err err = {0};
    if (i8_fp8_recipe_parse_json((const char *)data, size, "recipe.json", &r, &err) != INFER8_OK) {
        if (!err.msg[0]) abort();
        return 0;
    }
    if (r.residual_first > r.residual_last) abort();
    i8_graph g;
    if (!small_graph(&g)) abort();
    i8_fp8_plan p;
    memset(&p, 0, sizeof p);
    err.msg[0] = 0;
    if (i8_fp8_plan_make(&g, &r, &p, &err) != INFER8_OK) {
        if (!err.msg[0]) abort();
    } else {
        int n_fp8 = 0, n_res = 0;
        for (int k = 0; k < p.n_nodes; k++) {
            if (p.fp8[k] && g.nodes[k].op != I8_OP_CONV) abort();
            n_fp8 += p.fp8[k], n_res += p.residual_fp8[k];
        }
        if (n_fp8 != p.n_fp8 || n_res != p.n_residual_fp8 || p.n_convs != 5) abort();
        for (int json = 0; json < 2; json++) {
            char *text = NULL;
            if (i8_fp8_plan_describe(&g, &r, &p, json, &text, &err) != INFER8_OK || !text) abort();
            free(text);
        }
        i8_fp8_plan_free(&p);
    }
    i8_graph_free(&g);
    i8_fp8_recipe_free(&r);
    return 0;
}
