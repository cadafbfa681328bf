/* critical_path: how long the longest chain of dependent nodes of a model's graph takes with the
 * per-conv times of a benchmark's per-layer TSV (fp8_bench's fp8-layers-*.tsv), against the sum
 * of those times. A CUDA graph runs the branches of a block concurrently, so its time lies
 * between the two; a conv off the critical path gives the graph back only what the SMs it frees
 * are worth to the branches beside it (docs/performance.md, "Session 50"). Not part of the
 * library; bench/results analyses and tests/cli/test_critical_path.sh call it.
 *
 *   critical_path MODEL TSV [--columns C1,C2,...] [--nonconv-ms MS]
 *   critical_path MODEL --template
 *
 * MODEL: a snapshot folder / .safetensors file or "random:<arch>" (the graph is what matters:
 * batch norm folded, layers fused, as the backends run it). TSV: tab-separated, a header naming
 * a "name" column and the cost columns (ms per conv, default fp16_tuned_ms and fp8_tuned_ms);
 * one row per conv, named as the graph's conv nodes. Nodes other than convs cost --nonconv-ms
 * (default I8_CRITICAL_PATH_NONCONV_MS, as the CUDA backend's priority choice counts them).
 * Prints one JSON object per cost column. --template prints a TSV of every conv at 1 ms. Exit 0, or 1 with a message naming
 * the file and line at fault. */
#include <errno.h>
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

int main(int argc, char **argv) {
    if (argc < 3) {
        fprintf(stderr, "usage: critical_path MODEL TSV [--columns C1,C2,...] [--nonconv-ms MS]\n"
                        "       critical_path MODEL --template\n");
        return 1;
    }
    const char *model = argv[1], *tsv = argv[2], *columns = "fp16_tuned_ms,fp8_tuned_ms";
    double nonconv_ms = I8_CRITICAL_PATH_NONCONV_MS;
    const int template_only = !strcmp(tsv, "--template");
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
        } else {
            fprintf(stderr, "critical_path: unknown argument %s\n", argv[a]);
            return 1;
        }
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
    for (int k = 0; k < n_want && !rc; k++) {
        double *ck = cost + (size_t)k * n, conv_sum = 0.0, path_conv_ms = 0.0, longest = 0.0;
        int convs = 0, on = 0, path_convs = 0;
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
               "\"path_nodes\": %d, \"path_convs\": %d, \"path_conv_ms\": %.4f, \"nonconv_ms\": %g}\n",
               want[k], convs, conv_sum, longest, on, path_convs, path_conv_ms, nonconv_ms);
    }
done:
    if (f) fclose(f);
    free(cost);
    free(seen);
    free(on_path);
    i8_graph_free(&g);
    return rc;
}
