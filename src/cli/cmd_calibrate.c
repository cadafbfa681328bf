/* FP8 subcommands: calibrate (activation scales over images -> scales.json) and recipe (which
 * layers a recipe quantizes). Thin clients of infer8_calibrate / infer8_fp8_recipe_describe. */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli/cli.h"

static const char *const calibrate_help =
    "usage: infer8 calibrate MODEL --images SRC [--count N] [--method M] [--percentile P]\n"
    "                        [--batch N] -o scales.json [options]\n"
    "\n"
    "Runs MODEL (fp32 checkpoint) over calibration images and writes the static FP8\n"
    "activation scales (amax / 448) of every tensor read by a convolution, named after the layer\n"
    "producing it, as scales.json (docs/fp8.md). Deterministic: images in a fixed order, fixed\n"
    "batches, one pass. Unreadable or corrupt images are reported and skipped.\n"
    "\n"
    "  --images SRC       images as study reads them: a folder (its .jpg/.jpeg/.png/.webp files\n"
    "                     by name, or one sub-folder per class), a list file (a path per line,\n"
    "                     relative to the list's folder) or webdataset tar shards\n"
    "                     (\"val-{000000..000146}.tar\")\n"
    "  --count N          use the first N images (default 500; 0 = all)\n"
    "  --method M         max (default, the study's recipe), percentile, entropy or mse\n"
    "  --percentile P     for --method percentile (default 99.99)\n"
    "  --batch N          images per forward pass (default 8)\n"
    "  -o, --output F     scales.json to write\n"
    "  --device DEV       cuda: collect on the GPU (fp16 activations, histograms binned there; the\n"
    "                     fast path); cpu (default): on the oneDNN backend where built (fp32,\n"
    "                     binned after each layer), else as ref: the reference executor's hooks\n" CLI_MODEL_OPTIONS_HELP;

static double now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

int cmd_calibrate(int argc, char **argv) {
    cli_args a = {argc, argv, 1, "calibrate"};
    cli_model_opts mo = {0};
    infer8_calibrate_options o;
    infer8_calibrate_options_init(&o);
    const char *model_path = NULL, *out = NULL, *v = NULL;
    int error = 0;
    long num;
    while (a.i < argc && !error) {
        if (!strcmp(argv[a.i], "--help") || !strcmp(argv[a.i], "-h")) {
            fputs(calibrate_help, stdout);
            return 0;
        }
        int r = cli_model_option(&a, &mo);
        if (r < 0) return EXIT_USAGE;
        if (r > 0) continue;
        if (cli_opt_value(&a, "--images", &o.images, &error)) continue;
        if (cli_opt_value(&a, "-o", &out, &error) || cli_opt_value(&a, "--output", &out, &error)) continue;
        if (cli_opt_value(&a, "--count", &v, &error)) {
            if (error) break;
            if (!cli_parse_int("calibrate", "--count", v, 0, 100000000, &num)) return EXIT_USAGE;
            o.count = (int)num;
            continue;
        }
        if (cli_opt_value(&a, "--batch", &v, &error)) {
            if (error) break;
            if (!cli_parse_int("calibrate", "--batch", v, 1, 4096, &num)) return EXIT_USAGE;
            o.batch = (int)num;
            continue;
        }
        if (cli_opt_value(&a, "--method", &v, &error)) {
            if (error) break;
            static const char *const names[] = {"max", "percentile", "entropy", "mse"};
            int found = -1;
            for (int i = 0; i < 4; i++)
                if (!strcmp(v, names[i])) found = i;
            if (found < 0)
                return cli_usage_error("calibrate", "--method must be max, percentile, entropy or mse, got '%s'", v);
            o.method = (infer8_calib_method)found;
            continue;
        }
        if (cli_opt_value(&a, "--percentile", &v, &error)) {
            if (error) break;
            char *end = NULL;
            double p = strtod(v, &end);
            if (!*v || *end || !(p > 0 && p <= 100))
                return cli_usage_error("calibrate", "--percentile expects a number in (0, 100], got '%s'", v);
            o.percentile = p;
            continue;
        }
        if (argv[a.i][0] == '-') return cli_usage_error("calibrate", "unknown option %s", argv[a.i]);
        if (model_path) return cli_usage_error("calibrate", "unexpected argument %s", argv[a.i]);
        model_path = argv[a.i++];
    }
    if (error) return EXIT_USAGE;
    if (!model_path || !o.images || !out) return cli_usage_error("calibrate", "MODEL, --images and -o are required");
    if (mo.device && strcmp(mo.device, "ref") && strcmp(mo.device, "cpu") && strcmp(mo.device, "cuda"))
        return cli_usage_error("calibrate", "--device must be cuda, ref or cpu, got '%s'", mo.device);
    if (mo.precision && strcmp(mo.precision, "fp32"))
        return cli_usage_error("calibrate", "calibration runs the fp32 model (no --precision fp8)");
    if (!mo.device) mo.device = "cpu"; /* oneDNN where built: the same scales as ref, faster */
    infer8_context *ctx = infer8_context_new();
    if (!ctx) return EXIT_RUNTIME;
    infer8_set_log(ctx, cli_log, NULL, 1);
    infer8_calibrate_report rep;
    infer8_calibrate_report_init(&rep);
    o.report = &rep;
    o.progress = cli_progress;
    infer8_model *model = NULL;
    int rc = 0;
    double t0 = now_s();
    if (cli_open_model(ctx, model_path, &mo, &model) || infer8_calibrate(ctx, model, &o, out)) {
        rc = cli_fail(ctx, "calibrate");
    } else {
        static const char *const names[] = {"max", "percentile", "entropy", "mse"};
        fprintf(stderr,
                "infer8 calibrate: wrote %s: %d tensors, method %s, %d images (%d skipped), %llu NaN/Inf values, "
                "%.1f s on %s\n",
                out, rep.tensors, names[o.method], rep.images_used, rep.images_skipped,
                (unsigned long long)rep.nonfinite_values, now_s() - t0, rep.executor);
    }
    infer8_model_close(model);
    infer8_context_free(ctx);
    return rc;
}

static const char *const recipe_help =
    "usage: infer8 recipe MODEL [--recipe R] [--json] [options]\n"
    "\n"
    "Lists which convolutions of MODEL an FP8 recipe quantizes: a summary with the exact count\n"
    "and the layers kept out, then one line per convolution (precision, residual-x precision,\n"
    "residual block, name, input tensor). Recipes: default (the study's: every convolution after\n"
    "the stem), none, residual-fp8 (default + the residual add reads the FP8 copy of x in every\n"
    "block), residual-fp8:FIRST-LAST (blocks FIRST..LAST), or a recipe .json file (docs/fp8.md).\n"
    "\n"
    "  --recipe R         the recipe (default: default)\n"
    "  --json             one JSON object instead of text\n" CLI_MODEL_OPTIONS_HELP;

typedef struct recipe_request {
    const char *recipe;
    int json;
} recipe_request;

static infer8_status describe_recipe(infer8_context *ctx, infer8_model *model, void *user, char **text) {
    const recipe_request *r = user;
    return infer8_fp8_recipe_describe(ctx, model, r->recipe, r->json, text, NULL);
}

int cmd_recipe(int argc, char **argv) {
    cli_args a = {argc, argv, 1, "recipe"};
    cli_model_opts mo = {0};
    const char *model_path = NULL;
    recipe_request r = {NULL, 0};
    int parsed = cli_parse_model_json(&a, &mo, recipe_help, &model_path, &r.json);
    if (parsed >= 0) return parsed;
    r.recipe = mo.recipe ? mo.recipe : "default";
    mo.recipe = NULL;
    mo.precision = NULL; /* list against the fp32 graph */
    return cli_print_model_text("recipe", model_path, &mo, describe_recipe, &r);
}
