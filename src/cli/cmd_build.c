/* `infer8 build`: writes a checkpoint (or bundle) as one bundle file through infer8_build, then
 * re-opens the result (which verifies every checksum) and prints layers, bytes per section and
 * the time taken. */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli/cli.h"

static const char *const build_help =
    "usage: infer8 build MODEL --precision fp32|fp16|fp8 [--max-batch N] [--device cpu|cuda]\n"
    "                    [--split-weights S | --adaptive-rounding S --rounding-images SRC] -o OUT.bundle\n"
    "       infer8 build MODEL --precision fp8 --recipe R (--scales F | --calib-images SRC) -o OUT.bundle\n"
    "       (either form: [--json])\n"
    "\n"
    "Writes MODEL (a snapshot folder, a bare .safetensors file with --arch, or a bundle) as one\n"
    "bundle file (docs/bundle-format.md): the optimized graph, weights in the build precision,\n"
    "preprocessing config, labels, provenance (source path and SHA-256). The file is written to a\n"
    "temporary name, fsynced and renamed: an interrupted build leaves no partial OUT. It prints\n"
    "the bytes per section; an FP8 build of a checkpoint also the size of the fp16 bundle of the\n"
    "same checkpoint, which it replaces (sized, not written).\n"
    "\n"
    "  --precision P      fp32 (default; logits identical to the checkpoint's), fp16 (weights\n"
    "                     stored as binary16, about half the size) or fp8 (the recipe's layers as\n"
    "                     e4m3 with per-channel weight scales and static activation scales, the\n"
    "                     other kernels as fp16)\n"
    "  --recipe R         fp8: default, residual-fp8[:FIRST-LAST] or a recipe JSON file (infer8 recipe)\n"
    "  --scales F         fp8: activation scales from infer8 calibrate\n"
    "  --calib-images SRC fp8: calibrate here instead (max method) over SRC (as calibrate --images)\n"
    "  --calib-count N    fp8 with --calib-images: images used (default 500)\n"
    "  --max-batch N      largest batch recorded in the header and tuned for (default 32)\n"
    "  --device cpu|cuda  cuda: tune CUDA tactics on this GPU for batch 1 and N and store them\n"
    "                     (restored when the bundle runs on a GPU of the same name)\n"
    CLI_OPT_LEVEL_HELP
    CLI_SPLIT_WEIGHTS_HELP
    CLI_ADAPTIVE_ROUNDING_HELP
    "  --arch ARCH        family of a bare .safetensors file\n"
    "  --json             print the result as one JSON object (bundle, arch, precision, layers,\n"
    "                     sections, bytes, seconds; FP8: fp16_bundle_bytes, fp8_over_fp16)\n"
    "  -o, --output FILE  the bundle to write\n";

static double now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* FP8 builds: the size of the fp16 bundle of the same checkpoint (same options, no FP8; sized,
 * not written; no tactic records). The bundle is built by then, so a failure here is a warning. */
static int fp16_bundle_size(infer8_context *ctx, const char *model_path, const infer8_open_options *fp8_open,
                            const infer8_build_options *fp8_build, uint64_t *fp16_bytes) {
    infer8_open_options oo = *fp8_open;
    oo.precision = INFER8_PRECISION_FP32, oo.fp8_recipe = NULL, oo.fp8_scales_path = NULL;
    infer8_build_options bo = *fp8_build;
    bo.precision = INFER8_PRECISION_FP16;
    infer8_model *plain = NULL;
    const int ok = !infer8_model_open(ctx, model_path, &oo, &plain) && !infer8_build_size(ctx, plain, &bo, fp16_bytes);
    if (!ok) fprintf(stderr, "infer8 build: warning: the fp16 bundle was not sized: %s\n", infer8_errmsg(ctx));
    infer8_model_close(plain);
    return ok;
}

/* --json: one object with what the text lists, and the fp16 comparison of FP8 builds (null when
 * it was not sized) */
static void print_build_json(const char *out, const char *model_path, const infer8_model_info *info, long max_batch,
                             double seconds, int fp8, int have_fp16, uint64_t fp16_bytes) {
    printf("{\"bundle\": ");
    cli_json_string(stdout, out);
    printf(", \"arch\": ");
    cli_json_string(stdout, info->arch);
    printf(", \"precision\": ");
    cli_json_string(stdout, info->precision);
    printf(", \"layers\": %d, \"convolutions\": %d, \"parameters\": %llu, \"input\": [%d, %d], \"max_batch\": %ld, "
           "\"source\": ",
           info->num_layers, info->num_convolutions, (unsigned long long)info->num_parameters, info->input_height,
           info->input_width, max_batch);
    cli_json_string(stdout, model_path);
    printf(", \"source_sha256\": ");
    cli_json_string(stdout, info->source_sha256);
    printf(", \"sections\": [");
    for (int i = 0; i < info->num_sections; i++) {
        printf("%s{\"name\": ", i ? ", " : "");
        cli_json_string(stdout, info->sections[i].name);
        printf(", \"bytes\": %llu}", (unsigned long long)info->sections[i].length);
    }
    printf("], \"bytes\": %llu, \"seconds\": %.3f", (unsigned long long)info->file_bytes, seconds);
    if (fp8 && have_fp16)
        printf(", \"fp16_bundle_bytes\": %llu, \"fp8_over_fp16\": %.6f", (unsigned long long)fp16_bytes,
               fp16_bytes ? (double)info->file_bytes / (double)fp16_bytes : 0.0);
    else if (fp8)
        printf(", \"fp16_bundle_bytes\": null, \"fp8_over_fp16\": null");
    printf("}\n");
}

int cmd_build(int argc, char **argv) {
    cli_args a = {argc, argv, 1, "build"};
    const char *model_path = NULL, *out = NULL, *prec = "fp32", *device = "cpu", *arch = NULL, *v = NULL;
    const char *recipe = NULL, *scales = NULL, *calib_images = NULL, *split_weights = NULL;
    const char *adaptive_rounding = NULL, *rounding_images = NULL;
    long max_batch = 32, calib_count = 500, opt_level = 2, rounding_count = 0;
    int error = 0, json = 0;
    while (a.i < argc && !error) {
        if (!strcmp(argv[a.i], "--help") || !strcmp(argv[a.i], "-h")) {
            fputs(build_help, stdout);
            return 0;
        }
        if (cli_opt_flag(&a, "--json")) {
            json = 1;
            continue;
        }
        if (cli_opt_value(&a, "--precision", &prec, &error) || cli_opt_value(&a, "--device", &device, &error) ||
            cli_opt_value(&a, "--arch", &arch, &error) || cli_opt_value(&a, "-o", &out, &error) ||
            cli_opt_value(&a, "--output", &out, &error) || cli_opt_value(&a, "--recipe", &recipe, &error) ||
            cli_opt_value(&a, "--scales", &scales, &error) || cli_opt_value(&a, "--calib-images", &calib_images, &error) ||
            cli_opt_value(&a, "--split-weights", &split_weights, &error) ||
            cli_opt_value(&a, "--adaptive-rounding", &adaptive_rounding, &error) ||
            cli_opt_value(&a, "--rounding-images", &rounding_images, &error))
            continue;
        if (cli_opt_value(&a, "--rounding-count", &v, &error)) {
            if (!error && !cli_parse_int("build", "--rounding-count", v, 1, 100000, &rounding_count)) return EXIT_USAGE;
            continue;
        }
        if (cli_opt_value(&a, "--calib-count", &v, &error)) {
            if (!error && !cli_parse_int("build", "--calib-count", v, 0, 10000000, &calib_count)) return EXIT_USAGE;
            continue;
        }
        if (cli_opt_value(&a, "--max-batch", &v, &error)) {
            if (!error && !cli_parse_int("build", "--max-batch", v, 1, 4096, &max_batch)) return EXIT_USAGE;
            continue;
        }
        if (cli_opt_value(&a, "--opt-level", &v, &error)) {
            if (!error && !cli_parse_int("build", "--opt-level", v, 0, INFER8_OPT_LEVEL_MAX, &opt_level)) return EXIT_USAGE;
            continue;
        }
        if (argv[a.i][0] == '-') return cli_usage_error("build", "unknown option %s", argv[a.i]);
        if (model_path) return cli_usage_error("build", "unexpected argument %s", argv[a.i]);
        model_path = argv[a.i++];
    }
    if (error) return EXIT_USAGE;
    if (!model_path || !out) return cli_usage_error("build", "MODEL and -o OUT.bundle are required");
    infer8_build_options bo;
    infer8_build_options_init(&bo);
    if (!strcmp(prec, "fp32")) bo.precision = INFER8_PRECISION_FP32;
    else if (!strcmp(prec, "fp16")) bo.precision = INFER8_PRECISION_FP16;
    else if (!strcmp(prec, "fp8")) bo.precision = INFER8_PRECISION_FP8;
    else return cli_usage_error("build", "--precision must be fp32, fp16 or fp8, got '%s'", prec);
    int fp8 = bo.precision == INFER8_PRECISION_FP8;
    if (fp8 && !scales == !calib_images)
        return cli_usage_error("build", "--precision fp8 needs exactly one of --scales F and --calib-images SRC");
    if (!fp8 && (recipe || scales || calib_images))
        return cli_usage_error("build", "--recipe, --scales and --calib-images go with --precision fp8");
    if (!strcmp(device, "cuda")) bo.device = INFER8_DEVICE_CUDA;
    else if (strcmp(device, "cpu")) return cli_usage_error("build", "--device must be cpu or cuda, got '%s'", device);
    bo.max_batch = (int)max_batch;
    bo.opt_level = (int)opt_level;

    double t0 = now_s();
    infer8_context *ctx = infer8_context_new();
    if (!ctx) return EXIT_RUNTIME;
    infer8_set_log(ctx, cli_log, NULL, adaptive_rounding ? 2 : 1); /* adaptive rounding: progress and each conv's result */
    infer8_model *model = NULL, *check = NULL;
    int rc = 0;
    infer8_open_options oo;
    infer8_open_options_init(&oo);
    oo.arch = arch;
    char scales_tmp[4096] = "";
    if (fp8 && calib_images) {
        /* calibrate the fp32 model first; the scales go next to the bundle (OUT.scales.json) */
        snprintf(scales_tmp, sizeof scales_tmp, "%s.scales.json", out);
        infer8_calibrate_options co;
        infer8_calibrate_options_init(&co);
        co.images = calib_images;
        co.count = (int)calib_count;
        co.progress = cli_progress;
        if (infer8_model_open(ctx, model_path, &oo, &model) || infer8_calibrate(ctx, model, &co, scales_tmp)) {
            rc = cli_fail(ctx, "build");
            goto done;
        }
        infer8_model_close(model);
        model = NULL;
        scales = scales_tmp;
        fprintf(json ? stderr : stdout, "calibrated %s over %s: activation scales in %s\n", model_path, calib_images,
                scales_tmp);
    }
    oo.split_weights = split_weights;
    oo.adaptive_rounding = adaptive_rounding;
    oo.adaptive_rounding_images = rounding_images;
    oo.adaptive_rounding_count = (int)rounding_count;
    if (fp8) {
        oo.precision = INFER8_PRECISION_FP8;
        oo.fp8_recipe = recipe ? recipe : "default";
        oo.fp8_scales_path = scales;
    }
    if (infer8_model_open(ctx, model_path, &oo, &model) || infer8_build(ctx, model, &bo, out) ||
        infer8_model_open(ctx, out, NULL, &check)) {
        rc = cli_fail(ctx, "build");
    } else {
        infer8_model_info info, src;
        infer8_model_info_init(&info);
        infer8_model_get_info(check, &info);
        const double seconds = now_s() - t0;
        infer8_model_info_init(&src);
        infer8_model_get_info(model, &src);
        uint64_t fp16_bytes = 0; /* an FP8 bundle's input is its checkpoint; a bundle has no fp16 twin to size */
        const int have_fp16 = fp8 && !src.is_bundle && fp16_bundle_size(ctx, model_path, &oo, &bo, &fp16_bytes);
        if (json) {
            print_build_json(out, model_path, &info, max_batch, seconds, fp8, have_fp16, fp16_bytes);
        } else {
            printf("built %s: %s, %s, %d layers (%d convolutions), %llu parameters, input %dx%d, max batch %ld\n", out,
                   info.arch, info.precision, info.num_layers, info.num_convolutions,
                   (unsigned long long)info.num_parameters, info.input_height, info.input_width, max_batch);
            printf("source %s (sha256 %s)\n", model_path, info.source_sha256);
            for (int i = 0; i < info.num_sections; i++)
                printf("  %-14s %14llu bytes\n", info.sections[i].name, (unsigned long long)info.sections[i].length);
            printf("total %llu bytes in %.2f s\n", (unsigned long long)info.file_bytes, seconds);
            if (have_fp16)
                printf("fp16 bundle of the same model: %llu bytes (%.1f MiB); FP8 / fp16 = %.3f\n",
                       (unsigned long long)fp16_bytes, fp16_bytes / 1048576.0,
                       fp16_bytes ? (double)info.file_bytes / (double)fp16_bytes : 0.0);
        }
    }
done:
    infer8_model_close(check);
    infer8_model_close(model);
    infer8_context_free(ctx);
    return rc;
}
