/* Subcommands that make data: synth (checkpoints) and gen-images (test images). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli/cli.h"

static const char *const synth_help =
    "usage: infer8 synth --arch ARCH [--seed N] [--calib-images N] [--threads N] -o DIR\n"
    "\n"
    "Writes a timm-compatible snapshot (config.json with pretrained_cfg and label_names,\n"
    "model.safetensors in F32 with every key timm expects) of a synthetic model: weights are\n"
    "deterministic from the seed, batch-norm statistics are measured on generated images so\n"
    "every layer is well scaled, and the classifier is scaled so predictions are confident but\n"
    "not certain. The same seed gives the same bytes on every machine. This is the stand-in for\n"
    "hub checkpoints, which cannot be downloaded here.\n"
    "\n"
    "  --arch ARCH        inception_resnet_v2, inception_v4 or inception_v3\n"
    "  --seed N           random seed (default 0)\n"
    "  --calib-images N   generated images for batch-norm statistics and the classifier scale (default 32)\n"
    "  --threads N        CPU threads (default: all cores; the result does not depend on it)\n"
    "  -o, --output DIR   output folder (created if missing)\n";

int cmd_synth(int argc, char **argv) {
    cli_args a = {argc, argv, 1, "synth"};
    infer8_synth_options o;
    infer8_synth_options_init(&o);
    const char *out = NULL, *v = NULL;
    int error = 0;
    long num;
    while (a.i < argc && !error) {
        if (!strcmp(argv[a.i], "--help") || !strcmp(argv[a.i], "-h")) {
            fputs(synth_help, stdout);
            return 0;
        }
        if (cli_opt_value(&a, "--arch", &o.arch, &error)) continue;
        if (cli_opt_value(&a, "-o", &out, &error) || cli_opt_value(&a, "--output", &out, &error)) continue;
        if (cli_opt_value(&a, "--seed", &v, &error)) {
            if (error) break; /* no value: v is not set */
            char *end = NULL;
            errno = 0;
            /* digits only: strtoull would take a sign ("-1" wraps) or leading blanks */
            unsigned long long s = *v >= '0' && *v <= '9' ? strtoull(v, &end, 10) : 0;
            if (!end || *end || errno)
                return cli_usage_error("synth", "--seed expects a non-negative integer, got '%s'", v);
            o.seed = s;
            continue;
        }
        if (cli_opt_value(&a, "--calib-images", &v, &error)) {
            if (error) break;
            if (!cli_parse_int("synth", "--calib-images", v, 1, 4096, &num)) return EXIT_USAGE;
            o.calibration_images = (int)num;
            continue;
        }
        if (cli_opt_value(&a, "--threads", &v, &error)) {
            if (error) break;
            if (!cli_parse_int("synth", "--threads", v, 0, 4096, &num)) return EXIT_USAGE;
            o.threads = (int)num;
            continue;
        }
        return cli_usage_error("synth", "unknown argument %s", argv[a.i]);
    }
    if (error) return EXIT_USAGE;
    if (!o.arch || !out) return cli_usage_error("synth", "--arch and -o are required");
    o.progress = cli_progress;
    infer8_context *ctx = infer8_context_new();
    if (!ctx) return EXIT_RUNTIME;
    int rc = 0;
    if (infer8_synth(ctx, &o, out)) rc = cli_fail(ctx, "synth");
    else fprintf(stderr, "infer8 synth: wrote %s/config.json and %s/model.safetensors (%s, seed %llu)\n", out, out,
                 o.arch, (unsigned long long)o.seed);
    infer8_context_free(ctx);
    return rc;
}

static const char *const gen_images_help =
    "usage: infer8 gen-images -o DIR [--count N] [--seed N] [--size WxH]\n"
    "\n"
    "Writes N deterministic natural-looking test images (smooth gradients, soft shapes, mild\n"
    "noise) as DIR/img_NNNNNN.png (the seed, six digits). Sizes vary around 400x330 unless\n"
    "--size is given.\n"
    "\n"
    "  --count N          number of images (default 8)\n"
    "  --seed N           seed of the first image (default 0); image i uses seed + i\n"
    "  --size WxH         fixed size\n"
    "  -o, --output DIR   output folder (created if missing)\n";

/* "WxH", each side 1..16384 in decimal digits, nothing else (strtol: no sign, no overflow, no
 * trailing text, as sscanf would let through) */
static int parse_size(const char *text, int *width, int *height) {
    long side[2];
    const char *p = text;
    for (int i = 0; i < 2; i++) {
        if (*p < '0' || *p > '9') return 0;
        char *end = NULL;
        errno = 0;
        side[i] = strtol(p, &end, 10);
        if (errno || side[i] < 1 || side[i] > 16384 || *end != (i == 0 ? 'x' : '\0')) return 0;
        p = end + 1;
    }
    *width = (int)side[0], *height = (int)side[1];
    return 1;
}

int cmd_gen_images(int argc, char **argv) {
    cli_args a = {argc, argv, 1, "gen-images"};
    const char *out = NULL, *v = NULL;
    long count = 8, seed = 0;
    int width = 0, height = 0, error = 0;
    while (a.i < argc && !error) {
        if (!strcmp(argv[a.i], "--help") || !strcmp(argv[a.i], "-h")) {
            fputs(gen_images_help, stdout);
            return 0;
        }
        if (cli_opt_value(&a, "-o", &out, &error) || cli_opt_value(&a, "--output", &out, &error)) continue;
        if (cli_opt_value(&a, "--count", &v, &error)) {
            if (!error && !cli_parse_int("gen-images", "--count", v, 1, 1000000, &count)) return EXIT_USAGE;
            continue;
        }
        if (cli_opt_value(&a, "--seed", &v, &error)) {
            if (!error && !cli_parse_int("gen-images", "--seed", v, 0, 1L << 40, &seed)) return EXIT_USAGE;
            continue;
        }
        if (cli_opt_value(&a, "--size", &v, &error)) {
            if (!error && !parse_size(v, &width, &height))
                return cli_usage_error("gen-images", "--size expects WxH (1..16384), got '%s'", v);
            continue;
        }
        return cli_usage_error("gen-images", "unknown argument %s", argv[a.i]);
    }
    if (error) return EXIT_USAGE;
    if (!out) return cli_usage_error("gen-images", "-o DIR is required");
    if (mkdir(out, 0777) != 0 && errno != EEXIST) {
        fprintf(stderr, "infer8 gen-images: error (i/o error): %s: %s\n", out, strerror(errno));
        return EXIT_INPUT;
    }
    infer8_context *ctx = infer8_context_new();
    if (!ctx) return EXIT_RUNTIME;
    int rc = 0;
    for (long i = 0; i < count && !rc; i++) {
        long s = seed + i;
        int w = width ? width : 300 + (int)((s * 7919) % 200), h = height ? height : 280 + (int)((s * 104729) % 120);
        char path[4096];
        snprintf(path, sizeof path, "%s/img_%06ld.png", out, s);
        if (infer8_generate_image_png(ctx, (uint64_t)s, w, h, path)) rc = cli_fail(ctx, "gen-images");
    }
    if (!rc) fprintf(stderr, "infer8 gen-images: wrote %ld images to %s\n", count, out);
    infer8_context_free(ctx);
    return rc;
}
