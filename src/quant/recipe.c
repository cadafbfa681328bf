/* FP8 recipes: parsing (built-in specs and recipe JSON files), application to a graph (plan),
 * and the per-layer listing. See recipe.h for the semantics. */
#include "quant/recipe.h"

#include <cjson/cJSON.h>
#include <fnmatch.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/text.h"

#define SPECS_HELP "default, none, residual-fp8, residual-fp8:FIRST-LAST or a recipe .json file"

static void free_list(char **v, size_t n) {
    for (size_t i = 0; i < n; i++) free(v[i]);
    free(v);
}

void i8_fp8_recipe_free(i8_fp8_recipe *r) {
    if (!r) return;
    free_list(r->include, r->n_include);
    free_list(r->exclude, r->n_exclude);
    i8_fp8_recipe_default(r);
}

void i8_fp8_recipe_default(i8_fp8_recipe *r) {
    memset(r, 0, sizeof *r);
    snprintf(r->name, sizeof r->name, "default");
    r->base = I8_RECIPE_BASE_DEFAULT;
    r->residual_first = r->residual_last = -1;
}

/* "A-B" with 0 <= A <= B <= 9999 -> 1; else 0. */
static int parse_range(const char *s, int *a, int *b) {
    char *end;
    long x = strtol(s, &end, 10);
    if (end == s || *end != '-' || x < 0) return 0;
    const char *t = end + 1;
    long y = strtol(t, &end, 10);
    if (end == t || *end || y < x || y > 9999) return 0;
    *a = (int)x;
    *b = (int)y;
    return 1;
}

static int ends_with(const char *s, const char *suf) {
    size_t a = strlen(s), b = strlen(suf);
    return a >= b && !strcmp(s + a - b, suf);
}

infer8_status i8_fp8_recipe_from_spec(const char *spec, const i8_limits *limits, i8_fp8_recipe *out, i8_err *err) {
    if (!spec || !*spec || !out)
        return i8_fail(err, INFER8_E_INVALID_ARGUMENT, "recipe: empty spec (expected " SPECS_HELP ")");
    i8_fp8_recipe r;
    i8_fp8_recipe_default(&r);
    if (strchr(spec, '/') || ends_with(spec, ".json")) {
        i8_limits lim;
        if (!limits) i8_limits_default(&lim), limits = &lim;
        uint8_t *data = NULL;
        size_t size = 0;
        infer8_status st = i8_read_file(spec, limits->max_json_bytes, &data, &size, err);
        if (st) return st;
        st = i8_fp8_recipe_parse_json((const char *)data, size, spec, out, err);
        free(data);
        return st;
    }
    if (!strcmp(spec, "default")) {
    } else if (!strcmp(spec, "none")) {
        r.base = I8_RECIPE_BASE_NONE;
    } else if (!strcmp(spec, "residual-fp8")) {
        r.residual_first = 0;
        r.residual_last = 9999;
    } else if (!strncmp(spec, "residual-fp8:", 13)) {
        if (!parse_range(spec + 13, &r.residual_first, &r.residual_last))
            return i8_fail(err, INFER8_E_INVALID_ARGUMENT,
                           "recipe '%s': expected residual-fp8:FIRST-LAST with 0 <= FIRST <= LAST", spec);
    } else {
        return i8_fail(err, INFER8_E_INVALID_ARGUMENT, "unknown recipe '%s' (expected " SPECS_HELP ")", spec);
    }
    snprintf(r.name, sizeof r.name, "%s", spec);
    *out = r;
    return INFER8_OK;
}

/* Copies a JSON array of non-empty strings under key into *v / *n. */
static infer8_status string_list(const cJSON *root, const char *key, const char *name, char ***v, size_t *n,
                                 i8_err *err) {
    const cJSON *a = cJSON_GetObjectItemCaseSensitive(root, key);
    *v = NULL;
    *n = 0;
    if (!a || cJSON_IsNull(a)) return INFER8_OK;
    if (!cJSON_IsArray(a)) return i8_fail(err, INFER8_E_FORMAT, "%s: %s: expected an array of glob strings", name, key);
    size_t count = (size_t)cJSON_GetArraySize(a);
    if (count == 0) return INFER8_OK;
    char **list = i8_calloc(count, sizeof *list, err);
    if (!list) return INFER8_E_NOMEM;
    size_t i = 0;
    const cJSON *it;
    cJSON_ArrayForEach(it, a) {
        if (!cJSON_IsString(it) || !it->valuestring[0] || strlen(it->valuestring) >= 256 ||
            !i8_text_plain(it->valuestring)) {
            free_list(list, i);
            return i8_fail(err, INFER8_E_FORMAT,
                           "%s: %s[%zu]: expected a non-empty string (under 256 bytes of UTF-8, no control characters)",
                           name, key, i);
        }
        if (!(list[i] = i8_strdup(it->valuestring, err))) {
            free_list(list, i);
            return INFER8_E_NOMEM;
        }
        i++;
    }
    *v = list;
    *n = count;
    return INFER8_OK;
}

/* 1 and *out = j's value when j is a JSON number holding an integer in [lo, hi]. */
static int json_int(const cJSON *j, int lo, int hi, int *out) {
    return j && cJSON_IsNumber(j) && i8_double_to_int(j->valuedouble, lo, hi, out);
}

infer8_status i8_fp8_recipe_parse_json(const char *text, size_t size, const char *name, i8_fp8_recipe *out,
                                       i8_err *err) {
    if (!name) name = "recipe";
    if (!text || !out) return i8_fail(err, INFER8_E_INVALID_ARGUMENT, "%s: NULL argument", name);
    infer8_status checked = i8_json_text_require(text, size, name, 0, err);
    if (checked) return checked;
    cJSON *root = cJSON_ParseWithLength(text, size);
    if (!root) {
        const char *at = cJSON_GetErrorPtr();
        long off = at && at >= text && at <= text + size ? (long)(at - text) : -1;
        return i8_fail(err, INFER8_E_FORMAT, "%s: malformed JSON near byte %ld", name, off);
    }
    infer8_status st = INFER8_OK;
    i8_fp8_recipe r;
    i8_fp8_recipe_default(&r);
    snprintf(r.name, sizeof r.name, "%s", name);
    const cJSON *it;
    if (!cJSON_IsObject(root)) {
        st = i8_fail(err, INFER8_E_FORMAT, "%s: expected a JSON object", name);
        goto done;
    }
    cJSON_ArrayForEach(it, root) {
        static const char *const known[] = {"format", "version", "base", "include", "exclude", "residual_fp8",
                                            "description"};
        int ok = 0;
        for (size_t k = 0; k < sizeof known / sizeof known[0]; k++) ok |= it->string && !strcmp(it->string, known[k]);
        if (!ok) {
            char shown[96];
            st = i8_fail(err, INFER8_E_FORMAT,
                         "%s: unknown key \"%s\" (expected format, version, base, include, exclude, residual_fp8, "
                         "description)",
                         name, i8_text_show(it->string ? it->string : "", shown, sizeof shown));
            goto done;
        }
    }
    it = cJSON_GetObjectItemCaseSensitive(root, "format");
    if (!it) {
        st = i8_fail(err, INFER8_E_MISSING_KEY, "%s: format: missing (expected \"infer8-recipe\")", name);
        goto done;
    }
    if (!cJSON_IsString(it) || strcmp(it->valuestring, "infer8-recipe")) {
        st = i8_fail(err, INFER8_E_FORMAT, "%s: format: expected \"infer8-recipe\"", name);
        goto done;
    }
    it = cJSON_GetObjectItemCaseSensitive(root, "version");
    if (!it) {
        st = i8_fail(err, INFER8_E_MISSING_KEY, "%s: version: missing (expected 1)", name);
        goto done;
    }
    int version = 0;
    if (!json_int(it, INT_MIN, INT_MAX, &version)) {
        st = i8_fail(err, INFER8_E_FORMAT, "%s: version: expected an integer", name);
        goto done;
    }
    if (version != 1) {
        st = i8_fail(err, INFER8_E_UNSUPPORTED, "%s: version: %d is not supported (this build reads version 1)", name,
                     version);
        goto done;
    }
    it = cJSON_GetObjectItemCaseSensitive(root, "base");
    if (!it) {
        st = i8_fail(err, INFER8_E_MISSING_KEY, "%s: base: missing (expected \"default\" or \"none\")", name);
        goto done;
    }
    if (cJSON_IsString(it) && !strcmp(it->valuestring, "default")) r.base = I8_RECIPE_BASE_DEFAULT;
    else if (cJSON_IsString(it) && !strcmp(it->valuestring, "none")) r.base = I8_RECIPE_BASE_NONE;
    else {
        st = i8_fail(err, INFER8_E_FORMAT, "%s: base: expected \"default\" or \"none\"", name);
        goto done;
    }
    it = cJSON_GetObjectItemCaseSensitive(root, "description");
    if (it && !cJSON_IsString(it)) {
        st = i8_fail(err, INFER8_E_FORMAT, "%s: description: expected a string", name);
        goto done;
    }
    if ((st = string_list(root, "include", name, &r.include, &r.n_include, err))) goto done;
    if ((st = string_list(root, "exclude", name, &r.exclude, &r.n_exclude, err))) goto done;
    it = cJSON_GetObjectItemCaseSensitive(root, "residual_fp8");
    if (it && !cJSON_IsNull(it)) {
        const cJSON *a = cJSON_IsArray(it) && cJSON_GetArraySize(it) == 2 ? cJSON_GetArrayItem(it, 0) : NULL;
        const cJSON *b = a ? cJSON_GetArrayItem(it, 1) : NULL;
        int first = 0, last = 0;
        if (!json_int(a, 0, 9999, &first) || !json_int(b, first, 9999, &last)) {
            st = i8_fail(err, INFER8_E_FORMAT, "%s: residual_fp8: expected [first, last] with 0 <= first <= last", name);
            goto done;
        }
        r.residual_first = first;
        r.residual_last = last;
    }
done:
    cJSON_Delete(root);
    if (st) {
        i8_fp8_recipe_free(&r);
        return st;
    }
    *out = r;
    return INFER8_OK;
}

/* ---- plan ---- */

void i8_fp8_plan_free(i8_fp8_plan *p) {
    if (!p) return;
    free(p->fp8);
    free(p->residual_fp8);
    free(p->stem);
    free(p->quantized);
    memset(p, 0, sizeof *p);
}

infer8_status i8_fp8_stem_end(const i8_graph *g, int *first_block_node, i8_err *err) {
    static const struct {
        const char *arch, *first_block;
    } table[] = {{"inception_resnet_v2", "mixed_5b"}, {"inception_v4", "features.6"}, {"inception_v3", "Mixed_5b"}};
    const char *fb = NULL;
    for (size_t i = 0; i < sizeof table / sizeof table[0]; i++)
        if (!strcmp(g->arch, table[i].arch)) fb = table[i].first_block;
    if (!fb)
        return i8_fail(err, INFER8_E_UNSUPPORTED, "FP8 recipe: no stem rule for architecture '%s'", g->arch);
    size_t n = strlen(fb);
    for (int k = 0; k < g->n_nodes; k++) {
        const char *nm = g->nodes[k].name;
        if (!strncmp(nm, fb, n) && (nm[n] == 0 || nm[n] == '.')) {
            *first_block_node = k;
            return INFER8_OK;
        }
    }
    return i8_fail(err, INFER8_E_INVALID_ARGUMENT, "FP8 recipe: %s graph has no node '%s' (first Inception block)",
                   g->arch, fb);
}

/* Marks convs matching pattern with value; returns how many convs matched. */
static int apply_pattern(const i8_graph *g, const char *pat, uint8_t *fp8, uint8_t value) {
    int hits = 0;
    for (int k = 0; k < g->n_nodes; k++)
        if (g->nodes[k].op == I8_OP_CONV && fnmatch(pat, g->nodes[k].name, 0) == 0) {
            fp8[k] = value;
            hits++;
        }
    return hits;
}

infer8_status i8_fp8_plan_make(const i8_graph *g, const i8_fp8_recipe *r, i8_fp8_plan *out, i8_err *err) {
    if (!g || !r || !out) return i8_fail(err, INFER8_E_INVALID_ARGUMENT, "FP8 recipe: NULL argument");
    int stem_end = 0;
    infer8_status st = i8_fp8_stem_end(g, &stem_end, err);
    if (st) return st;
    i8_fp8_plan p;
    memset(&p, 0, sizeof p);
    const size_t nn = (size_t)(g->n_nodes > 0 ? g->n_nodes : 1);
    p.n_nodes = g->n_nodes;
    if (!(p.fp8 = i8_calloc(nn, 1, err)) || !(p.residual_fp8 = i8_calloc(nn, 1, err)) ||
        !(p.stem = i8_calloc(nn, 1, err)) || !(p.quantized = i8_calloc(nn, 1, err))) {
        i8_fp8_plan_free(&p);
        return INFER8_E_NOMEM;
    }
    for (int k = 0; k < g->n_nodes; k++) {
        p.stem[k] = k < stem_end;
        if (g->nodes[k].op != I8_OP_CONV) continue;
        p.n_convs++;
        p.fp8[k] = r->base == I8_RECIPE_BASE_DEFAULT && !p.stem[k];
    }
    for (size_t i = 0; i < r->n_include; i++)
        if (!apply_pattern(g, r->include[i], p.fp8, 1)) {
            i8_fp8_plan_free(&p);
            return i8_fail(err, INFER8_E_INVALID_ARGUMENT, "recipe %s: include[%zu] \"%s\" matches no convolution of %s",
                           r->name, i, r->include[i], g->arch);
        }
    for (size_t i = 0; i < r->n_exclude; i++)
        if (!apply_pattern(g, r->exclude[i], p.fp8, 0)) {
            i8_fp8_plan_free(&p);
            return i8_fail(err, INFER8_E_INVALID_ARGUMENT, "recipe %s: exclude[%zu] \"%s\" matches no convolution of %s",
                           r->name, i, r->exclude[i], g->arch);
        }
    if (r->residual_first >= 0) {
        for (int k = 0; k < g->n_nodes; k++) {
            const i8_node *nd = &g->nodes[k];
            if (nd->op == I8_OP_CONV && nd->residual >= 0 && nd->block >= r->residual_first &&
                nd->block <= r->residual_last) {
                p.residual_fp8[k] = 1;
                p.n_residual_fp8++;
            }
        }
        if (!p.n_residual_fp8) {
            i8_fp8_plan_free(&p);
            return i8_fail(err, INFER8_E_INVALID_ARGUMENT,
                           "recipe %s: %s has no fused residual convolution in blocks %d..%d", r->name, g->arch,
                           r->residual_first, r->residual_last);
        }
    }
    for (int k = 0; k < g->n_nodes; k++) {
        const i8_node *nd = &g->nodes[k];
        if (p.fp8[k]) p.n_fp8++, p.quantized[nd->inputs[0]] = 1;
        if (p.residual_fp8[k]) p.quantized[nd->residual] = 1;
    }
    for (int k = 0; k < g->n_nodes; k++) p.n_quantized += p.quantized[k];
    *out = p;
    return INFER8_OK;
}

/* ---- listing ---- */


infer8_status i8_fp8_plan_describe(const i8_graph *g, const i8_fp8_recipe *r, const i8_fp8_plan *p, int json,
                                   char **out, i8_err *err) {
    if (!g || !r || !p || !out || p->n_nodes != g->n_nodes)
        return i8_fail(err, INFER8_E_INVALID_ARGUMENT, "FP8 plan listing: bad argument");
    if (json) {
        cJSON *o = cJSON_CreateObject(), *layers = cJSON_CreateArray();
        if (!o || !layers) {
            cJSON_Delete(o);
            cJSON_Delete(layers);
            return i8_fail(err, INFER8_E_NOMEM, "out of memory");
        }
        cJSON_AddStringToObject(o, "recipe", r->name);
        cJSON_AddStringToObject(o, "arch", g->arch);
        cJSON_AddNumberToObject(o, "convolutions", p->n_convs);
        cJSON_AddNumberToObject(o, "fp8_convolutions", p->n_fp8);
        cJSON_AddNumberToObject(o, "residual_fp8_convolutions", p->n_residual_fp8);
        cJSON_AddNumberToObject(o, "quantized_tensors", p->n_quantized);
        cJSON_AddItemToObject(o, "layers", layers);
        for (int k = 0; k < g->n_nodes; k++) {
            const i8_node *nd = &g->nodes[k];
            if (nd->op != I8_OP_CONV) continue;
            cJSON *l = cJSON_CreateObject();
            if (!l) break;
            cJSON_AddStringToObject(l, "name", nd->name);
            cJSON_AddStringToObject(l, "precision", p->fp8[k] ? "fp8" : "keep");
            cJSON_AddStringToObject(l, "input", g->nodes[nd->inputs[0]].name);
            if (nd->residual >= 0) cJSON_AddBoolToObject(l, "residual_fp8", p->residual_fp8[k]);
            cJSON_AddNumberToObject(l, "block", nd->block);
            cJSON_AddBoolToObject(l, "stem", p->stem[k]);
            cJSON_AddItemToArray(layers, l);
        }
        char *s = i8_json_print(o, 1);
        cJSON_Delete(o);
        if (!s) return i8_fail(err, INFER8_E_NOMEM, "out of memory");
        *out = s;
        return INFER8_OK;
    }
    i8_strbuf b = {0};
    i8_strbuf_printf(&b, "recipe %s on %s: %d of %d convolutions FP8, %d not", r->name, g->arch, p->n_fp8, p->n_convs,
              p->n_convs - p->n_fp8);
    int first = 1;
    for (int k = 0; k < g->n_nodes; k++)
        if (g->nodes[k].op == I8_OP_CONV && !p->fp8[k]) {
            i8_strbuf_printf(&b, "%s%s", first ? ": " : ", ", g->nodes[k].name);
            first = 0;
        }
    i8_strbuf_printf(&b, "\n  residual x read as FP8: %d fused residual convolutions; tensors quantized: %d\n",
              p->n_residual_fp8, p->n_quantized);
    i8_strbuf_printf(&b, "  %-5s %-9s %-5s %-34s %s\n", "prec", "residual", "block", "name", "input");
    for (int k = 0; k < g->n_nodes; k++) {
        const i8_node *nd = &g->nodes[k];
        if (nd->op != I8_OP_CONV) continue;
        i8_strbuf_printf(&b, "  %-5s %-9s %-5d %-34s %s\n", p->fp8[k] ? "fp8" : "keep",
                  nd->residual < 0 ? "-" : p->residual_fp8[k] ? "x:fp8" : "x:keep", nd->block, nd->name,
                  g->nodes[nd->inputs[0]].name);
    }
    if (b.oom) {
        free(b.s);
        return i8_fail(err, INFER8_E_NOMEM, "out of memory");
    }
    *out = b.s;
    return INFER8_OK;
}

infer8_status i8_conv_select(const i8_graph *g, const char *option, const char *spec, uint8_t **select, int *count,
                             i8_err *err) {
    *select = NULL;
    *count = 0;
    uint8_t *sel = i8_calloc((size_t)g->n_nodes, 1, err);
    char *copy = sel ? i8_strdup(spec, err) : NULL;
    if (!copy) {
        free(sel);
        return INFER8_E_NOMEM;
    }
    infer8_status st = INFER8_OK;
    for (char *p = copy; !st && p;) { /* split on ',' keeping empty items, which are errors */
        char *tok = p, *comma = strchr(p, ',');
        if (comma) *comma = 0, p = comma + 1;
        else p = NULL;
        if (!*tok) {
            st = i8_fail(err, INFER8_E_INVALID_ARGUMENT, "%s \"%s\": empty item", option, spec);
        } else if (!strcmp(tok, "stem")) {
            int stem_end = 0;
            if (!(st = i8_fp8_stem_end(g, &stem_end, err)))
                for (int k = 0; k < stem_end; k++)
                    if (g->nodes[k].op == I8_OP_CONV && g->nodes[k].residual < 0) sel[k] = 1;
        } else if (!apply_pattern(g, tok, sel, 1)) {
            st = i8_fail(err, INFER8_E_INVALID_ARGUMENT, "%s \"%s\": \"%s\" matches no convolution of %s",
                         option, spec, tok, g->arch);
        }
    }
    free(copy);
    if (st) {
        free(sel);
        return st;
    }
    for (int k = 0; k < g->n_nodes; k++) *count += sel[k];
    *select = sel;
    return INFER8_OK;
}
