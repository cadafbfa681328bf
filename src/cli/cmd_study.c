/* `infer8 study`: the whole FP8 study of one checkpoint in one command (infer8_study): dataset,
 * calibration, variants built as bundles, quality against fp32, speed on CUDA, and the report
 * (README.md, study.json, SVG plots) in one folder, with the decision printed. */
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"

static const char *const study_help =
    "usage: infer8 study MODEL --images SRC -o OUTDIR [options]\n"
    "\n"
    "Runs the FP8 study of MODEL (fp32 checkpoint: snapshot folder or .safetensors) and writes its\n"
    "report into OUTDIR: README.md (summary and decision, recipe layer lists, method, results, why\n"
    "there is or is not a gain, what was not tried, when to revisit), study.json (every raw figure),\n"
    "SVG plots, scales/, recipes/ and bundles/ (one bundle per variant). See docs/study.md.\n"
    "\n"
    "  --images SRC          image folder (class sub-folders, or flat + labels.txt), list file, or\n"
    "                        webdataset tar shards (\"val-{000000..000146}.tar\"; KEY.jpg + KEY.cls)\n"
    "  --take N              samples used (default 2000; 0 = all)\n"
    "  --every K             every K-th sample (default 25)\n"
    "  --calib N             the first N samples calibrate, the rest are held out (default 500)\n"
    "  --calib-methods L     comma list of max, percentile, entropy, mse (default max)\n"
    "  --variants L          comma list (default fp16,fp8,residual-fp8:10-39,residual-fp8):\n"
    "                        fp16, fp8 (recipe default), residual-fp8[:A-B], fp8:RECIPE.json\n"
    "  --batch L             batch sizes timed on CUDA (default 1,32)\n"
    "  --device DEV          cpu (default): quality only, variants scored on the oneDNN backend\n"
    "                        (FP8 emulated); ref: the same on the reference executor (the\n"
    "                        oracle, slower); cuda: also speed\n"
    "  --max-kl X            decision: held-out KL(fp32 || variant) mean <= X (default 0.02)\n"
    "  --min-agreement Y     decision: top-1 agreement with fp32 >= Y (default 0.99)\n"
    "  --min-speedup Z       decision: fp16 time / variant time >= Z at every batch (default 1.1)\n"
    "  --rounds R            timed rounds per variant and batch (default 7)\n"
    "  --iters N             forwards per round (default 200)\n"
    "  --eval-batch N        images per forward for calibration and quality (default 8)\n"
    "  --stress N|all        stress inputs used (default all; 0 = none)\n"
    "  --threads N           CPU threads (default: all cores)\n"
    "  --opt-level N         cuda: tuning effort of the timed models, 0..3 (default 2; see\n"
    "                        infer8 classify --help)\n"
    "  --roofline GPU        report each FP8 variant's roofline bound over fp16 on GPU (H200,\n"
    "                        H100, H100 PCIe), also without measuring speed (default: the\n"
    "                        timing GPU's, when it is one of these)\n"
    "  -o, --output OUTDIR   report folder (created; files replaced atomically)\n";

static int parse_double(const char *opt, const char *text, double *out) {
    char *end = NULL;
    double v = strtod(text, &end);
    if (!*text || *end || !(v >= 0) || v > 1e9) {
        cli_usage_error("study", "%s expects a non-negative number, got '%s'", opt, text);
        return 0;
    }
    *out = v;
    return 1;
}

int cmd_study(int argc, char **argv) {
    cli_args a = {argc, argv, 1, "study"};
    infer8_study_options o;
    infer8_study_options_init(&o);
    const char *model = NULL, *out = NULL, *v = NULL, *device = "cpu";
    int error = 0;
    long n = 0;
    while (a.i < argc && !error) {
        if (!strcmp(argv[a.i], "--help") || !strcmp(argv[a.i], "-h")) {
            fputs(study_help, stdout);
            return 0;
        }
        if (cli_opt_value(&a, "--images", &o.images, &error)) {
        } else if (cli_opt_value(&a, "--take", &v, &error)) {
            if (!error && cli_parse_int("study", "--take", v, 0, 1000000000L, &n)) o.take = (uint64_t)n;
            else error = 1;
        } else if (cli_opt_value(&a, "--every", &v, &error)) {
            if (!error && cli_parse_int("study", "--every", v, 1, 1000000000L, &n)) o.every = (uint64_t)n;
            else error = 1;
        } else if (cli_opt_value(&a, "--calib", &v, &error)) {
            if (!error && cli_parse_int("study", "--calib", v, 0, 1000000000L, &n)) o.calib = (uint64_t)n;
            else error = 1;
        } else if (cli_opt_value(&a, "--calib-methods", &o.calib_methods, &error)) {
        } else if (cli_opt_value(&a, "--variants", &o.variants, &error)) {
        } else if (cli_opt_value(&a, "--batch", &o.batches, &error)) {
        } else if (cli_opt_value(&a, "--device", &device, &error)) {
            if (!error && strcmp(device, "cpu") && strcmp(device, "ref") && strcmp(device, "cuda"))
                return cli_usage_error("study", "--device must be cpu, ref or cuda, got '%s'", device);
        } else if (cli_opt_value(&a, "--max-kl", &v, &error)) {
            if (error || !parse_double("--max-kl", v, &o.max_kl)) error = 1;
        } else if (cli_opt_value(&a, "--min-agreement", &v, &error)) {
            if (error || !parse_double("--min-agreement", v, &o.min_agreement)) error = 1;
        } else if (cli_opt_value(&a, "--min-speedup", &v, &error)) {
            if (error || !parse_double("--min-speedup", v, &o.min_speedup)) error = 1;
        } else if (cli_opt_value(&a, "--rounds", &v, &error)) {
            if (!error && cli_parse_int("study", "--rounds", v, 1, 1000, &n)) o.rounds = (int)n;
            else error = 1;
        } else if (cli_opt_value(&a, "--iters", &v, &error)) {
            if (!error && cli_parse_int("study", "--iters", v, 1, 1000000, &n)) o.iters = (int)n;
            else error = 1;
        } else if (cli_opt_value(&a, "--eval-batch", &v, &error)) {
            if (!error && cli_parse_int("study", "--eval-batch", v, 1, 256, &n)) o.batch = (int)n;
            else error = 1;
        } else if (cli_opt_value(&a, "--stress", &v, &error)) {
            if (!error && !strcmp(v, "all")) o.stress = -1;
            else if (!error && cli_parse_int("study", "--stress", v, 0, 1000000, &n)) o.stress = (int)n;
            else error = 1;
        } else if (cli_opt_value(&a, "--threads", &v, &error)) {
            if (!error && cli_parse_int("study", "--threads", v, 0, 4096, &n)) o.threads = (int)n;
            else error = 1;
        } else if (cli_opt_value(&a, "--opt-level", &v, &error)) {
            if (!error && cli_parse_int("study", "--opt-level", v, 0, INFER8_OPT_LEVEL_MAX, &n)) o.opt_level = (int)n;
            else error = 1;
        } else if (cli_opt_value(&a, "--roofline", &o.roofline_gpu, &error)) {
        } else if (cli_opt_value(&a, "-o", &out, &error) || cli_opt_value(&a, "--output", &out, &error)) {
        } else if (argv[a.i][0] == '-') {
            return cli_usage_error("study", "unknown option %s", argv[a.i]);
        } else if (model) {
            return cli_usage_error("study", "one MODEL only (got '%s' and '%s')", model, argv[a.i]);
        } else {
            model = argv[a.i++];
        }
    }
    if (error) return EXIT_USAGE;
    if (!model) return cli_usage_error("study", "give the MODEL (fp32 checkpoint)");
    if (!o.images) return cli_usage_error("study", "--images SRC is required");
    if (!out) return cli_usage_error("study", "-o OUTDIR is required");
    if (o.min_agreement > 1) return cli_usage_error("study", "--min-agreement is a fraction in [0, 1]");
    o.device = !strcmp(device, "cuda") ? INFER8_DEVICE_CUDA
               : !strcmp(device, "cpu") ? INFER8_DEVICE_CPU
                                        : INFER8_DEVICE_CPU_REFERENCE;
    char *cmdline = cli_command_line(argc, argv);
    infer8_study_summary sum;
    infer8_study_summary_init(&sum);
    o.command = cmdline;
    o.summary = &sum;
    o.progress = cli_progress;
    infer8_context *ctx = infer8_context_new();
    if (!ctx || !cmdline) {
        free(cmdline);
        infer8_context_free(ctx);
        return EXIT_RUNTIME;
    }
    infer8_set_log(ctx, cli_log, NULL, 1);
    int rc = 0;
    if (infer8_study(ctx, model, &o, out) != INFER8_OK) {
        rc = cli_fail(ctx, "study");
    } else {
        const char *d = sum.decision > 0 ? "ship" : sum.decision == 0 ? "do not ship" : "undecided";
        printf("decision: %s%s%s\n", d, sum.decision > 0 ? " " : "", sum.decision > 0 ? sum.best_variant : "");
        printf("reason: %s\n", sum.reason);
        printf("images: %llu held out, %llu calibration, %llu stress; %llu skipped (corrupt)\n",
               (unsigned long long)sum.held_out_images, (unsigned long long)sum.calib_images,
               (unsigned long long)sum.stress_images, (unsigned long long)sum.skipped_items);
        if (!sum.speed_measured) printf("speed: not measured (CPU run; use --device cuda on a GPU)\n");
        printf("report: %s/README.md (study.json, plots) in %.1f s\n", out, sum.wall_s);
    }
    free(cmdline);
    infer8_context_free(ctx);
    return rc;
}
