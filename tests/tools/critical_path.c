/* critical_path: how long the longest chain of dependent nodes of a model's graph takes with the
 * per-conv times of a benchmark's per-layer TSV (fp8_bench's fp8-layers-*.tsv), against the sum
 * of those times. A CUDA graph runs the branches of a block concurrently, so its time lies
 * between the two; a conv off the critical path gives the graph back only what the SMs it frees
 * are worth to the branches beside it (docs/performance.md, "Session 50"). Not part of the
 * library; bench/results analyses and tests/cli/test_critical_path.sh call it.
 *
 *   critical_path MODEL TSV [--columns C1,C2,...] [--nonconv-ms MS] [--fuse-pairs FRAC [--fuse-match GLOB]...]
 *   critical_path MODEL --template
 *
 * MODEL: a snapshot folder / .safetensors file or "random:<arch>" (the graph is what matters:
 * batch norm folded, layers fused, as the backends run it). TSV: tab-separated, a header naming
 * a "name" column and the cost columns (ms per conv, default fp16_tuned_ms and fp8_tuned_ms);
 * one row per conv, named as the graph's conv nodes. Nodes other than convs cost --nonconv-ms
 * (default I8_CRITICAL_PATH_NONCONV_MS, as the CUDA backend's priority choice counts them).
 * --fuse-pairs FRAC: a what-if for a kernel not yet written (docs/performance.md, "Session 53"):
 * every stride-1 1x1 conv whose output only one spatial conv reads (a branch's reduction 1x1) is
 * computed inside that conv, so the pair is one node of the consumer's cost plus FRAC of the 1x1's
 * (0: free; 1: the pair costs what both did, so nothing changes); "fused_pairs" counts them.
 * --fuse-match GLOB (up to 8): only the pairs whose 1x1 is named as one of the globs (fnmatch).
 * Prints one JSON object per cost column. --template prints a TSV of every conv at 1 ms. Exit 0, or 1 with a message naming
 * the file and line at fault. */
#include <errno.h>
#include <fnmatch.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "graph/graph.h"
#include "test_weights.h"

#define MAX_LINE 8192
#define MAX_COLUMNS 8

static int load_graph(const char *model, i8_graph *g, i8_err *err) {
    if (i8_test_model_graph(model, g, err)) {
        fprintf(stderr, "critical_path: %s: %s\n", model, err->msg);
        return 1;
    }
    return 0;
}

/* splits line (tabs; the trailing newline removed) into at most max fields; returns the count */
static int split_tabs(char *line, char **fields, int max) {
    line[strcspn(line, "\r\n")] = '\0';
    int n = 0;
    for (char *p = line; n < max;) {
        fields[n++] = p;
        char *tab = strchr(p, '\t');
        if (!tab) break;
        *tab = '\0';
        p = tab + 1;
    }
    return n;
}

static int find_conv(const i8_graph *g, const char *name) {
    for (int i = 0; i < g->n_nodes; i++)
        if (g->nodes[i].op == I8_OP_CONV && !strcmp(g->nodes[i].name, name)) return i;
    return -1;
}

/* fused_into[i]: for a stride-1 1x1 conv i whose output one spatial conv alone reads (and nothing
 * else: no other input, no residual), that conv's index; -1 for every other node. Returns the count. */
static int find_fusable_pairs(const i8_graph *g, char **match, int n_match, int *fused_into) {
    int pairs = 0;
    for (int i = 0; i < g->n_nodes; i++) fused_into[i] = -1;
    for (int i = 0; i < g->n_nodes; i++) {
        const i8_node *p = &g->nodes[i];
        if (p->op != I8_OP_CONV || p->kh != 1 || p->kw != 1 || p->sh != 1 || p->sw != 1 || p->residual >= 0) continue;
        int named = !n_match;
        for (int m = 0; m < n_match && !named; m++) named = !fnmatch(match[m], p->name, 0);
        if (!named) continue;
        int reader = -1, readers = 0;
        for (int j = i + 1; j < g->n_nodes; j++)
            for (int k = 0; k < g->nodes[j].n_inputs; k++)
                if (g->nodes[j].inputs[k] == i) reader = j, readers++;
        if (readers != 1) continue;
        const i8_node *q = &g->nodes[reader];
        if (q->op != I8_OP_CONV || q->kh * q->kw == 1 || q->n_inputs != 1) continue;
        fused_into[i] = reader, pairs++;
    }
    return pairs;
}

int main(int argc, char **argv) {
    if (argc < 3) {
        fprintf(stderr, "usage: critical_path MODEL TSV [--columns C1,C2,...] [--nonconv-ms MS] [--fuse-pairs FRAC [--fuse-match GLOB]...]\n"
                        "       critical_path MODEL --template\n");
        return 1;
    }
    const char *model = argv[1], *tsv = argv[2], *columns = "fp16_tuned_ms,fp8_tuned_ms";
    double nonconv_ms = I8_CRITICAL_PATH_NONCONV_MS, fuse_frac = -1.0; /* < 0: no fusion */
    const int template_only = !strcmp(tsv, "--template");
    char *fuse_match[MAX_COLUMNS];
    int n_fuse_match = 0;
    for (int a = 3; a < argc; a++) {
        if (!strcmp(argv[a], "--columns") && a + 1 < argc) columns = argv[++a];
        else if (!strcmp(argv[a], "--nonconv-ms") && a + 1 < argc) {
            char *end;
            errno = 0;
            nonconv_ms = strtod(argv[++a], &end);
            if (errno || *end || !(nonconv_ms >= 0.0) || !isfinite(nonconv_ms)) {
                fprintf(stderr, "critical_path: --nonconv-ms '%s' is not a time >= 0\n", argv[a]);
                return 1;
            }
        } else if (!strcmp(argv[a], "--fuse-pairs") && a + 1 < argc) {
            char *end;
            errno = 0;
            fuse_frac = strtod(argv[++a], &end);
            if (errno || *end || end == argv[a] || !(fuse_frac >= 0.0 && fuse_frac <= 1.0)) {
                fprintf(stderr, "critical_path: --fuse-pairs '%s' is not a fraction from 0 to 1\n", argv[a]);
                return 1;
            }
        } else if (!strcmp(argv[a], "--fuse-match") && a + 1 < argc) {
            if (n_fuse_match == MAX_COLUMNS) {
                fprintf(stderr, "critical_path: at most %d --fuse-match globs\n", MAX_COLUMNS);
                return 1;
            }
            fuse_match[n_fuse_match++] = argv[++a];
        } else {
            fprintf(stderr, "critical_path: unknown argument %s\n", argv[a]);
            return 1;
        }
    }
    if (n_fuse_match && fuse_frac < 0.0) {
        fprintf(stderr, "critical_path: --fuse-match goes with --fuse-pairs\n");
        return 1;
    }
    i8_err err = {0};
    i8_graph g;
    memset(&g, 0, sizeof g);
    if (load_graph(model, &g, &err)) {
        i8_graph_free(&g);
        return 1;
    }
    const int n = g.n_nodes;
    int rc = 0, lineno = 0;
    double *cost = NULL;
    unsigned char *seen = NULL, *on_path = NULL;
    int *fused_into = NULL;
    FILE *f = NULL;
    if (template_only) {
        printf("name\tfp16_tuned_ms\tfp8_tuned_ms\n");
        for (int i = 0; i < n; i++)
            if (g.nodes[i].op == I8_OP_CONV) printf("%s\t1\t1\n", g.nodes[i].name);
        goto done;
    }

    /* the cost columns asked for */
    char colbuf[512];
    if (strlen(columns) >= sizeof colbuf) {
        fprintf(stderr, "critical_path: --columns is too long\n");
        rc = 1;
        goto done;
    }
    strcpy(colbuf, columns);
    char *want[MAX_COLUMNS];
    int n_want = 0;
    for (char *tok = strtok(colbuf, ","); tok; tok = strtok(NULL, ",")) {
        if (n_want == MAX_COLUMNS) {
            fprintf(stderr, "critical_path: at most %d columns\n", MAX_COLUMNS);
            rc = 1;
            goto done;
        }
        want[n_want++] = tok;
    }
    if (!n_want) {
        fprintf(stderr, "critical_path: --columns names no column\n");
        rc = 1;
        goto done;
    }

    f = fopen(tsv, "r");
    if (!f) {
        fprintf(stderr, "critical_path: %s: %s\n", tsv, strerror(errno));
        rc = 1;
        goto done;
    }
    cost = calloc((size_t)n * (size_t)n_want, sizeof(double));
    seen = calloc((size_t)n, 1), on_path = calloc((size_t)n, 1);
    if (!cost || !seen || !on_path) {
        fprintf(stderr, "critical_path: out of memory\n");
        rc = 1;
        goto done;
    }
    char line[MAX_LINE];
    char *fields[64];
    int name_col = -1, col[MAX_COLUMNS];
    for (int k = 0; k < n_want; k++) col[k] = -1;
    while (!rc && fgets(line, sizeof line, f)) {
        lineno++;
        if (!strchr(line, '\n') && !feof(f)) {
            fprintf(stderr, "critical_path: %s:%d: line longer than %d bytes\n", tsv, lineno, MAX_LINE - 1);
            rc = 1;
            break;
        }
        const int nf = split_tabs(line, fields, 64);
        if (lineno == 1) { /* the header */
            for (int c = 0; c < nf; c++) {
                if (!strcmp(fields[c], "name")) name_col = c;
                for (int k = 0; k < n_want; k++)
                    if (!strcmp(fields[c], want[k])) col[k] = c;
            }
            if (name_col < 0) {
                fprintf(stderr, "critical_path: %s:1: no 'name' column\n", tsv);
                rc = 1;
            }
            for (int k = 0; k < n_want && !rc; k++)
                if (col[k] < 0) {
                    fprintf(stderr, "critical_path: %s:1: no column '%s'\n", tsv, want[k]);
                    rc = 1;
                }
            continue;
        }
        if (nf == 1 && !fields[0][0]) continue; /* a blank line */
        if (name_col >= nf) {
            fprintf(stderr, "critical_path: %s:%d: %d fields, no name\n", tsv, lineno, nf);
            rc = 1;
            break;
        }
        const int node = find_conv(&g, fields[name_col]);
        if (node < 0) {
            fprintf(stderr, "critical_path: %s:%d: '%s' is no conv of %s's graph\n", tsv, lineno, fields[name_col], model);
            rc = 1;
            break;
        }
        if (seen[node]) {
            fprintf(stderr, "critical_path: %s:%d: conv '%s' listed twice\n", tsv, lineno, fields[name_col]);
            rc = 1;
            break;
        }
        seen[node] = 1;
        for (int k = 0; k < n_want && !rc; k++) {
            char *end;
            errno = 0;
            const double ms = col[k] < nf ? strtod(fields[col[k]], &end) : NAN;
            if (col[k] >= nf || errno || end == fields[col[k]] || *end || !(ms >= 0.0) || !isfinite(ms)) {
                fprintf(stderr, "critical_path: %s:%d: column '%s' is not a time >= 0\n", tsv, lineno, want[k]);
                rc = 1;
            }
            cost[(size_t)k * n + node] = ms;
        }
    }
    if (!rc && ferror(f)) {
        fprintf(stderr, "critical_path: %s: read error\n", tsv);
        rc = 1;
    }
    fclose(f);
    f = NULL;
    if (!rc && lineno == 0) {
        fprintf(stderr, "critical_path: %s: empty\n", tsv);
        rc = 1;
    }
    for (int i = 0; i < n && !rc; i++)
        if (g.nodes[i].op == I8_OP_CONV && !seen[i]) {
            fprintf(stderr, "critical_path: %s: no row for conv '%s'\n", tsv, g.nodes[i].name);
            rc = 1;
        }
    int fused_pairs = 0;
    if (!rc && fuse_frac >= 0.0) {
        fused_into = malloc((size_t)n * sizeof(int));
        if (!fused_into) {
            fprintf(stderr, "critical_path: out of memory\n");
            rc = 1;
        } else
            fused_pairs = find_fusable_pairs(&g, fuse_match, n_fuse_match, fused_into);
    }
    for (int k = 0; k < n_want && !rc; k++) {
        double *ck = cost + (size_t)k * n, conv_sum = 0.0, path_conv_ms = 0.0, longest = 0.0;
        int convs = 0, on = 0, path_convs = 0;
        if (fused_into) /* each reduction 1x1 folded into its consumer, before the sums */
            for (int i = 0; i < n; i++)
                if (fused_into[i] >= 0) ck[fused_into[i]] += fuse_frac * ck[i], ck[i] = 0.0;
        for (int i = 0; i < n; i++) {
            if (g.nodes[i].op == I8_OP_CONV) conv_sum += ck[i], convs++;
            else ck[i] = nonconv_ms;
        }
        /* slack 1e-9 ms: the nodes of every longest chain, whatever the sums' last bits */
        if (i8_graph_critical_path(&g, ck, 1e-9, on_path, &on, &longest, &err)) {
            fprintf(stderr, "critical_path: %s\n", err.msg);
            rc = 1;
            break;
        }
        for (int i = 0; i < n; i++)
            if (on_path[i] && g.nodes[i].op == I8_OP_CONV) path_convs++, path_conv_ms += ck[i];
        printf("{\"column\": \"%s\", \"convs\": %d, \"conv_sum_ms\": %.4f, \"critical_path_ms\": %.4f, "
               "\"path_nodes\": %d, \"path_convs\": %d, \"path_conv_ms\": %.4f, \"nonconv_ms\": %g",
               want[k], convs, conv_sum, longest, on, path_convs, path_conv_ms, nonconv_ms);
        if (fused_into) printf(", \"fuse_frac\": %g, \"fused_pairs\": %d", fuse_frac, fused_pairs);
        printf("}\n");
    }
done:
    if (f) fclose(f);
    free(cost);
    free(seen);
    free(on_path);
    free(fused_into);
    i8_graph_free(&g);
    return rc;
}
