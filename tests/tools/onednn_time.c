/* onednn_time: times the oneDNN CPU backend on one model, for bench/cpu_peer.py until
 * `infer8 bench --device cpu` covers it. Not part of the library.
 *
 *   onednn_time MODEL [--threads T] [--bf16] [--serve | --batch N --iters K]
 *
 * MODEL is a snapshot folder / .safetensors file, or "random:<arch>" for deterministic
 * He-initialised weights (speed does not depend on the values). Prints one JSON line
 * describing the device, then with --serve reads lines "N ITERS" from stdin and answers each
 * with one line {"batch": N, "ms": mean ms per forward} (the caller interleaves rounds with
 * its own timings); otherwise times one warm-up and K forwards of batch N. Exit 0 / 1. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backends/backend.h"
#include "test_weights.h"

#ifdef INFER8_HAVE_ONEDNN
int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: onednn_time MODEL|random:<arch> [--threads T] [--bf16] [--serve | --batch N --iters K]\n");
        return 1;
    }
    int threads = 0, bf16 = 0, serve = 0, batch = 1, iters = 10;
    for (int a = 2; a < argc; a++) {
        if (!strcmp(argv[a], "--threads") && a + 1 < argc) threads = atoi(argv[++a]);
        else if (!strcmp(argv[a], "--bf16")) bf16 = 1;
        else if (!strcmp(argv[a], "--serve")) serve = 1;
        else if (!strcmp(argv[a], "--batch") && a + 1 < argc) batch = atoi(argv[++a]);
        else if (!strcmp(argv[a], "--iters") && a + 1 < argc) iters = atoi(argv[++a]);
        else {
            fprintf(stderr, "onednn_time: unknown argument %s\n", argv[a]);
            return 1;
        }
    }
    i8_err err = {0};
    i8_graph g;
    memset(&g, 0, sizeof g);
    infer8_status st = i8_test_model_graph(argv[1], &g, &err);
    if (st) {
        fprintf(stderr, "onednn_time: %s\n", err.msg);
        return 1;
    }
    int max_batch = serve ? 64 : batch;
    i8_backend_options o = {.max_batch = max_batch, .threads = threads, .bf16 = bf16};
    void *ctx = NULL;
    if ((st = i8_backend_cpu_onednn.prepare(&ctx, &g, &o, &err))) {
        fprintf(stderr, "onednn_time: %s\n", err.msg);
        return 1;
    }
    char dev[512];
    i8_backend_cpu_onednn.describe_device(ctx, dev, sizeof dev);
    printf("{\"arch\": \"%s\", \"device\": \"%s\"}\n", g.arch, dev);
    fflush(stdout);
    char line[256];
    double ms = 0;
    int rc = 0;
    if (serve) {
        while (fgets(line, sizeof line, stdin)) {
            int n = 0, k = 0;
            if (sscanf(line, "%d %d", &n, &k) != 2) break;
            st = i8_backend_cpu_onednn.time_forward(ctx, n, k, &ms, &err);
            if (st) {
                fprintf(stderr, "onednn_time: %s\n", err.msg);
                rc = 1;
                break;
            }
            printf("{\"batch\": %d, \"ms\": %.4f}\n", n, ms);
            fflush(stdout);
        }
    } else {
        st = i8_backend_cpu_onednn.time_forward(ctx, batch, 1, &ms, &err);
        if (!st) st = i8_backend_cpu_onednn.time_forward(ctx, batch, iters, &ms, &err);
        if (st) {
            fprintf(stderr, "onednn_time: %s\n", err.msg);
            rc = 1;
        } else
            printf("{\"batch\": %d, \"ms\": %.4f}\n", batch, ms);
    }
    i8_backend_cpu_onednn.destroy(ctx);
    i8_graph_free(&g);
    return rc;
}
#else
int main(void)
{
    fprintf(stderr, "onednn_time: built without oneDNN\n");
    return 1;
}
#endif
