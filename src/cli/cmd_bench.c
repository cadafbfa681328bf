/* `infer8 bench`: latency of one or more models measured the way the FP8 study says studies
 * must be measured: warm-up, CUDA-graph replay (on CUDA), rounds interleaved across models
 * (A B A B ...) so drift hits all alike, median with min and max per model and batch, and the
 * speed-up against the first model. --profile adds a per-layer-type breakdown; --input f32 / u8
 * time whole host calls (input upload, forward, logits back) instead of the forward alone. */
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <time.h>

#include "cli/cli.h"

static const char *const bench_help =
    "usage: infer8 bench MODEL [MODEL ...] [--device ref|cpu|cuda] [--batch 1,32] [--rounds R]\n"
    "                    [--iters N] [--input forward|f32|u8] [--profile] [--json] [-o OUT.json]\n"
    "                    [options]\n"
    "\n"
    "Times forward passes of each MODEL (snapshot folder, .safetensors with --arch, or bundle).\n"
    "Per batch size: one warm-up round per model (on CUDA this tunes each layer and captures the\n"
    "CUDA graph), then R rounds interleaved across models; a round is N back-to-back forwards\n"
    "(CUDA: graph replays between two events; CPU: wall clock). Reports the median, min and max\n"
    "milliseconds per batch, images/s, and x = first model's median / this model's median.\n"
    "On CUDA each row also records how its model was tuned (JSON \"tuning\"), and a model whose\n"
    "cuDNN budget left convs on cuDNN's first configuration, untimed, gets a warning: it may run\n"
    "slower than fully tuned, so a ratio against it may be unfair (raise --opt-level).\n"
    "\n"
    "  --device DEV       cuda, cpu (oneDNN) or ref (reference executor); default cpu\n"
    "  --batch LIST       comma-separated batch sizes (default 1,32)\n"
    "  --rounds R         timed rounds per model and batch (default 7)\n"
    "  --iters N          calls per round (default 200 on cuda, 3 on cpu, 1 on ref)\n"
    "  --input MODE       what one timed call is: forward (default) the forward alone, on data the\n"
    "                     executor holds (CUDA: a graph replay); f32 a whole infer8_classify_tensor\n"
    "                     call from a host float32 NCHW batch (upload, forward, logits back); u8 a\n"
    "                     whole infer8_classify_u8 call from host uint8 crops (on CUDA the bytes are\n"
    "                     uploaded and normalized on the GPU). Rounds are wall clock for f32 and u8\n"
    "  --profile          also time every layer separately (outside any graph) and print the time\n"
    "                     per layer type and the slowest layers of each model (the JSON document\n"
    "                     holds every layer's time)\n"
    "  --json             print the results as one JSON document\n"
    "  -o, --output FILE  also write the JSON document to FILE (atomically)\n"
    "  --threads N, --max-batch N, --arch ARCH  as for the other model commands\n"
    CLI_OPT_LEVEL_HELP;

#define MAX_MODELS 16
#define MAX_BATCHES 16

typedef struct bench_row {
    int model, batch;
    double *rounds;
    double median, min, max;
    infer8_tuning tuning;  /* how the model was tuned at this batch size (CUDA) */
    int tuning_ok;
} bench_row;

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static void summarize(bench_row *r, int n) {
    double *sorted = malloc(sizeof(double) * (size_t)n);
    if (!sorted) return;
    memcpy(sorted, r->rounds, sizeof(double) * (size_t)n);
    qsort(sorted, (size_t)n, sizeof(double), cmp_double);
    r->min = sorted[0];
    r->max = sorted[n - 1];
    r->median = n % 2 ? sorted[n / 2] : 0.5 * (sorted[n / 2 - 1] + sorted[n / 2]);
    free(sorted);
}

typedef enum bench_input { INPUT_FORWARD, INPUT_F32, INPUT_U8 } bench_input;
static const char *const input_names[] = {"forward", "f32", "u8"};

/* Host inputs of one model and batch for --input f32 / u8: deterministic bytes, and floats in
 * the normalized range (only their size matters to the time) */
typedef struct host_batch {
    uint8_t *u8;
    float *f32, *logits;
} host_batch;

static void host_batch_free(host_batch *h) {
    free(h->u8), free(h->f32), free(h->logits);
    memset(h, 0, sizeof *h);
}

static int host_batch_make(infer8_model *m, int n, host_batch *h) {
    infer8_model_info info;
    infer8_model_info_init(&info);
    if (infer8_model_get_info(m, &info)) return -1;
    size_t count = (size_t)3 * info.input_height * info.input_width * n;
    h->u8 = malloc(count);
    h->f32 = malloc(sizeof(float) * count);
    h->logits = malloc(sizeof(float) * (size_t)info.num_classes * n);
    if (!h->u8 || !h->f32 || !h->logits) return -1;
    for (size_t k = 0; k < count; k++) {
        h->u8[k] = (uint8_t)((k * 2654435761u) >> 24);
        h->f32[k] = h->u8[k] / 127.5f - 1.0f;
    }
    return 0;
}

static double now_ms(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

/* ms per call of `iters` calls of batch n in the given mode */
static infer8_status time_calls(infer8_context *ctx, infer8_model *m, bench_input mode, int n, int iters,
                                const host_batch *h, double *ms) {
    if (mode == INPUT_FORWARD) return infer8_time_forward(ctx, m, n, iters, ms);
    infer8_status s = INFER8_OK;
    double t0 = now_ms();
    for (int i = 0; i < iters && !s; i++)
        s = mode == INPUT_U8 ? infer8_classify_u8(ctx, m, n, h->u8, h->logits)
                             : infer8_classify_tensor(ctx, m, n, h->f32, h->logits);
    *ms = (now_ms() - t0) / iters;
    return s;
}

/* The SLOWEST layers of a profile, slowest first: where a type's total does not say which block
 * it is (the profile's layers are timed one by one, outside any graph) */
enum { SLOWEST = 10 };
static void print_slowest(FILE *txt, const infer8_model *model, const double *ms, int n_layers, double total) {
    int top[SLOWEST], n_top = 0;
    for (int i = 0; i < n_layers; i++) { /* insertion into a sorted list of at most SLOWEST */
        int at = n_top;
        while (at > 0 && ms[top[at - 1]] < ms[i]) at--;
        if (at == SLOWEST) continue;
        if (n_top < SLOWEST) n_top++;
        for (int k = n_top - 1; k > at; k--) top[k] = top[k - 1];
        top[at] = i;
    }
    fprintf(txt, "  slowest layers:\n");
    for (int k = 0; k < n_top; k++) {
        char type[64];
        fprintf(txt, "    %-40.40s %-24.24s %9.4f ms %5.1f%%\n", infer8_layer_name(model, top[k]),
                infer8_layer_type(model, top[k], type, sizeof type), ms[top[k]], total > 0 ? 100 * ms[top[k]] / total : 0);
    }
}

int cmd_bench(int argc, char **argv) {
    cli_args a = {argc, argv, 1, "bench"};
    cli_model_opts mo = {0};
    mo.device = "cpu";
    const char *models[MAX_MODELS];
    int n_models = 0, n_batches = 0, json = 0, profile = 0, error = 0;
    int layer_counts[MAX_MODELS] = {0}; /* per model, set where --profile allocates its times */
    bench_input input = INPUT_FORWARD;
    long batches[MAX_BATCHES], rounds = 7, iters = 0;
    const char *v = NULL, *out_path = NULL;
    while (a.i < argc && !error) {
        if (!strcmp(argv[a.i], "--help") || !strcmp(argv[a.i], "-h")) {
            fputs(bench_help, stdout);
            return 0;
        }
        int r = cli_model_option(&a, &mo);
        if (r < 0) return EXIT_USAGE;
        if (r > 0) continue;
        if (cli_opt_value(&a, "--batch", &v, &error)) {
            if (!error && !cli_parse_batches("bench", "--batch", v, batches, MAX_BATCHES, &n_batches)) error = 1;
        } else if (cli_opt_value(&a, "--rounds", &v, &error)) {
            if (!error && !cli_parse_int("bench", "--rounds", v, 1, 1000, &rounds)) error = 1;
        } else if (cli_opt_value(&a, "--iters", &v, &error)) {
            if (!error && !cli_parse_int("bench", "--iters", v, 1, 1000000, &iters)) error = 1;
        } else if (cli_opt_value(&a, "-o", &out_path, &error) || cli_opt_value(&a, "--output", &out_path, &error)) {
        } else if (cli_opt_flag(&a, "--json")) {
            json = 1;
        } else if (cli_opt_value(&a, "--input", &v, &error)) {
            if (error) break;
            int k = 0;
            while (k < 3 && strcmp(v, input_names[k])) k++;
            if (k == 3) return cli_usage_error("bench", "--input must be forward, f32 or u8, not '%s'", v);
            input = (bench_input)k;
        } else if (cli_opt_flag(&a, "--profile")) {
            profile = 1;
        } else if (argv[a.i][0] == '-') {
            return cli_usage_error("bench", "unknown option %s", argv[a.i]);
        } else if (n_models == MAX_MODELS) {
            return cli_usage_error("bench", "at most %d models", MAX_MODELS);
        } else {
            models[n_models++] = argv[a.i++];
        }
    }
    if (error) return EXIT_USAGE;
    if (n_models == 0) return cli_usage_error("bench", "give at least one MODEL");
    if (n_batches == 0) {
        batches[0] = 1;
        batches[1] = 32;
        n_batches = 2;
    }
    int is_cuda = !strcmp(mo.device, "cuda"), is_ref = !strcmp(mo.device, "ref");
    if (!iters) iters = is_cuda ? 200 : is_ref ? 1 : 3;
    long max_batch = 1;
    for (int b = 0; b < n_batches; b++)
        if (batches[b] > max_batch) max_batch = batches[b];
    if (!mo.max_batch || mo.max_batch < max_batch) mo.max_batch = max_batch;

    infer8_context *ctx = infer8_context_new();
    if (!ctx) return EXIT_RUNTIME;
    infer8_model *handles[MAX_MODELS] = {0};
    host_batch hosts[MAX_MODELS] = {{0}};
    bench_row *rows = calloc((size_t)n_models * n_batches, sizeof *rows);
    double *round_store = calloc((size_t)n_models * n_batches * rounds, sizeof(double));
    infer8_type_time(*profiles)[128] = profile ? calloc((size_t)n_models * n_batches, sizeof *profiles) : NULL;
    int *profile_counts = calloc((size_t)n_models * n_batches, sizeof(int));
    /* every layer's ms, per batch and model (kept for the slowest-layer lines and the JSON) */
    double **layer_ms = profile ? calloc((size_t)n_models * n_batches, sizeof *layer_ms) : NULL;
    int rc = 0;
    char device[512] = "";
    if (!rows || !round_store || !profile_counts || (profile && (!profiles || !layer_ms))) {
        rc = EXIT_RUNTIME;
        goto done;
    }
    for (int m = 0; m < n_models; m++) {
        if (cli_open_model(ctx, models[m], &mo, &handles[m])) {
            rc = cli_fail(ctx, "bench");
            goto done;
        }
    }
    if (infer8_device_info(ctx, handles[0], device, sizeof device)) {
        rc = cli_fail(ctx, "bench");
        goto done;
    }
    fprintf(stderr, "infer8 bench: %s; %d model(s), batches", device, n_models);
    for (int b = 0; b < n_batches; b++) fprintf(stderr, " %ld", batches[b]);
    fprintf(stderr, "; %ld rounds of %ld %s\n", rounds, iters,
            input == INPUT_FORWARD ? "forwards" : input == INPUT_F32 ? "host calls from float32" : "host calls from uint8");

    for (int b = 0; b < n_batches; b++) {
        int n = (int)batches[b];
        for (int m = 0; m < n_models; m++) { /* warm-up: tuning, capture, caches */
            double ms;
            fprintf(stderr, "  warm-up %s batch %d\n", models[m], n);
            host_batch_free(&hosts[m]);
            if (input != INPUT_FORWARD && host_batch_make(handles[m], n, &hosts[m])) {
                fprintf(stderr, "infer8 bench: error (out of memory): host input of batch %d\n", n);
                rc = EXIT_RUNTIME;
                goto done;
            }
            if (time_calls(ctx, handles[m], input, n, (int)(iters < 20 ? iters : 20), &hosts[m], &ms)) {
                rc = cli_fail(ctx, "bench");
                goto done;
            }
        }
        cli_progress(NULL, "timed rounds", 0, (uint64_t)rounds);
        for (int r = 0; r < rounds; r++) {
            for (int m = 0; m < n_models; m++) {
                bench_row *row = &rows[b * n_models + m];
                row->model = m;
                row->batch = n;
                row->rounds = round_store + ((size_t)b * n_models + m) * rounds;
                if (time_calls(ctx, handles[m], input, n, (int)iters, &hosts[m], &row->rounds[r])) {
                    rc = cli_fail(ctx, "bench");
                    goto done;
                }
            }
            cli_progress(NULL, "timed rounds", (uint64_t)r + 1, (uint64_t)rounds);
        }
        for (int m = 0; m < n_models; m++) {
            bench_row *row = &rows[b * n_models + m];
            summarize(row, (int)rounds);
            infer8_tuning_init(&row->tuning); /* CPU executors tune nothing: tuning_ok stays 0 */
            row->tuning_ok = infer8_get_tuning(ctx, handles[m], n, &row->tuning) == INFER8_OK;
        }
        if (profile) {
            for (int m = 0; m < n_models; m++) {
                infer8_model_info info;
                infer8_model_info_init(&info);
                infer8_model_get_info(handles[m], &info);
                layer_counts[m] = info.num_layers;
                double *ms = calloc((size_t)info.num_layers, sizeof(double));
                if (!ms) {
                    rc = EXIT_RUNTIME;
                    goto done;
                }
                layer_ms[b * n_models + m] = ms;
                if (infer8_profile(ctx, handles[m], n, (int)(iters < 20 ? iters : 20), ms)) {
                    rc = cli_fail(ctx, "bench");
                    goto done;
                }
                profile_counts[b * n_models + m] =
                    infer8_profile_by_type(handles[m], ms, info.num_layers, profiles[b * n_models + m], 128);
            }
        }
    }

    /* text table */
    FILE *txt = json ? stderr : stdout;
    fprintf(txt, "%-40s %5s %10s %10s %10s %10s %8s\n", "model", "batch", "median_ms", "min_ms", "max_ms", "images/s",
            "x_first");
    for (int b = 0; b < n_batches; b++)
        for (int m = 0; m < n_models; m++) {
            bench_row *row = &rows[b * n_models + m];
            double first = rows[b * n_models].median;
            fprintf(txt, "%-40.40s %5d %10.4f %10.4f %10.4f %10.1f %8.3f\n", models[m], row->batch, row->median,
                    row->min, row->max, row->batch * 1000.0 / row->median, first / row->median);
        }
    /* a ratio is only as fair as the tuning of both sides (docs/study.md, step 7 of the study) */
    for (int i = 0; i < n_batches * n_models; i++)
        if (rows[i].tuning_ok && rows[i].tuning.untuned_problems > 0)
            fprintf(stderr,
                    "infer8 bench: warning: %s batch %d: %d of %d conv problems kept cuDNN's first configuration, "
                    "untimed (the %.0f s cuDNN budget left no time for more); it may run slower than fully tuned: raise --opt-level\n",
                    models[rows[i].model], rows[i].batch, rows[i].tuning.untuned_problems, rows[i].tuning.conv_problems,
                    rows[i].tuning.cudnn_budget_s);
    if (profile) {
        for (int b = 0; b < n_batches; b++)
            for (int m = 0; m < n_models; m++) {
                fprintf(txt, "\nprofile %s batch %ld (layers timed one by one, outside the graph):\n", models[m],
                        batches[b]);
                infer8_type_time *t = profiles[b * n_models + m];
                int nt = profile_counts[b * n_models + m];
                double total = 0;
                for (int k = 0; k < nt; k++) total += t[k].ms;
                for (int k = 0; k < nt; k++)
                    fprintf(txt, "  %-28s %4d layers %9.4f ms %5.1f%%\n", t[k].type, t[k].count, t[k].ms,
                            total > 0 ? 100 * t[k].ms / total : 0);
                fprintf(txt, "  %-28s            %9.4f ms\n", "sum", total);
                print_slowest(txt, handles[m], layer_ms[b * n_models + m], layer_counts[m], total);
            }
    }

    /* JSON document, made once in memory: printed (--json) and / or written atomically (-o) */
    if (json || out_path) {
        char *doc = NULL;
        size_t doc_len = 0;
        FILE *f = open_memstream(&doc, &doc_len);
        if (!f) {
            fprintf(stderr, "infer8 bench: error (out of memory): JSON document\n");
            rc = EXIT_RUNTIME;
            goto done;
        }
        struct utsname un;
        uname(&un);
        time_t now = time(NULL);
        char stamp[64];
        strftime(stamp, sizeof stamp, "%Y-%m-%dT%H:%M:%SZ", gmtime(&now));
        fprintf(f, "{\n  \"tool\": \"infer8 %s\",\n  \"date\": \"%s\",\n  \"host\": ", infer8_version(), stamp);
        cli_json_string(f, un.nodename);
        fprintf(f, ",\n  \"device\": ");
        cli_json_string(f, device);
        fprintf(f, ",\n  \"executor\": ");
        cli_json_string(f, mo.device);
        fprintf(f, ",\n  \"command\": ");
        char *command = cli_command_line(argc, argv);
        cli_json_string(f, command ? command : "");
        free(command);
        fprintf(f, ",\n  \"input\": \"%s\",\n  \"rounds\": %ld,\n  \"iters\": %ld,\n  \"rows\": [\n",
                input_names[input], rounds, iters);
        for (int b = 0; b < n_batches; b++)
            for (int m = 0; m < n_models; m++) {
                bench_row *row = &rows[b * n_models + m];
                infer8_model_info info;
                infer8_model_info_init(&info);
                infer8_model_get_info(handles[m], &info);
                fprintf(f, "    {\"model\": ");
                cli_json_string(f, models[m]);
                fprintf(f, ", \"arch\": ");
                cli_json_string(f, info.arch);
                fprintf(f,
                        ", \"batch\": %d, \"median_ms\": %.6f, \"min_ms\": %.6f, \"max_ms\": %.6f, "
                        "\"images_per_s\": %.2f, \"x_vs_first\": %.4f, \"rounds_ms\": [",
                        row->batch, row->median, row->min, row->max, row->batch * 1000.0 / row->median,
                        rows[b * n_models].median / row->median);
                for (int r = 0; r < rounds; r++) fprintf(f, "%s%.6f", r ? ", " : "", row->rounds[r]);
                fprintf(f, "]");
                char tuning[256];
                if (row->tuning_ok && infer8_tuning_json(&row->tuning, tuning, sizeof tuning) < (int)sizeof tuning)
                    fprintf(f, ", \"tuning\": %s", tuning);
                if (profile) {
                    fprintf(f, ", \"profile_ms_by_type\": {");
                    infer8_type_time *t = profiles[b * n_models + m];
                    for (int k = 0; k < profile_counts[b * n_models + m]; k++) {
                        fprintf(f, "%s", k ? ", " : "");
                        cli_json_string(f, t[k].type);
                        fprintf(f, ": {\"ms\": %.6f, \"layers\": %d}", t[k].ms, t[k].count);
                    }
                    fprintf(f, "}, \"profile_ms_by_layer\": [");
                    const double *ms = layer_ms[b * n_models + m];
                    for (int i = 0; i < info.num_layers; i++) {
                        char type[64];
                        fprintf(f, "%s{\"layer\": ", i ? ", " : "");
                        cli_json_string(f, infer8_layer_name(handles[m], i));
                        fprintf(f, ", \"type\": ");
                        cli_json_string(f, infer8_layer_type(handles[m], i, type, sizeof type));
                        fprintf(f, ", \"ms\": %.6f}", ms[i]);
                    }
                    fprintf(f, "]");
                }
                fprintf(f, "}%s\n", b == n_batches - 1 && m == n_models - 1 ? "" : ",");
            }
        fprintf(f, "  ]\n}\n");
        if (fclose(f) != 0 || !doc) {
            fprintf(stderr, "infer8 bench: error (out of memory): JSON document\n");
            free(doc);
            rc = EXIT_RUNTIME;
            goto done;
        }
        if (out_path && infer8_write_file(ctx, out_path, doc, doc_len) != INFER8_OK) rc = cli_fail(ctx, "bench");
        if (json && rc == 0) fwrite(doc, 1, doc_len, stdout); /* with -o too, once it is written */
        free(doc);
    }
done:
    for (int m = 0; m < n_models; m++) infer8_model_close(handles[m]), host_batch_free(&hosts[m]);
    free(rows);
    free(round_store);
    free(profiles);
    free(profile_counts);
    for (int k = 0; layer_ms && k < n_models * n_batches; k++) free(layer_ms[k]);
    free(layer_ms);
    infer8_context_free(ctx);
    return rc;
}
