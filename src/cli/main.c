/* infer8 command-line entry: dispatches to subcommands; shared helpers for them. */
#include <limits.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli/cli.h"

static const char *const usage_text =
    "infer8 " INFER8_VERSION_STRING " -- inference engine and FP8 study tool for Inception-family classifiers\n"
    "\n"
    "usage: infer8 <command> [options]\n"
    "\n"
    "commands:\n"
    "  synth        write a deterministic timm-compatible synthetic checkpoint\n"
    "  build        write a model as one bundle file (fp32, fp16 or FP8 weights, tactics, provenance)\n"
    "  inspect      print a model's optimized graph: every layer, totals\n"
    "  classify     classify images (top-k labels, or all logits as JSON)\n"
    "  preprocess   write timm's eval transform of an image as a .npy tensor\n"
    "  gen-images   write deterministic generated test images (PNG)\n"
    "  calibrate    measure FP8 activation scales over images (scales.json)\n"
    "  recipe       list which layers an FP8 recipe quantizes (exact count, every layer)\n"
    "  bench        time models: warm-up, interleaved rounds, median/min/max, per-layer profile\n"
    "  study        the whole FP8 study of a checkpoint: quality, speed, bundles, report, decision\n"
    "  version      print the version\n"
    "\n"
    "`infer8 <command> --help` describes each command. Exit codes: 0 success, 1 runtime failure,\n"
    "2 bad input (file, format, key, shape, limit), 64 bad command line.\n";

int main(int argc, char **argv) {
    if (argc < 2 || !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") || !strcmp(argv[1], "help")) {
        fputs(usage_text, argc < 2 ? stderr : stdout);
        return argc < 2 ? EXIT_USAGE : 0;
    }
    const char *cmd = argv[1];
    if (!strcmp(cmd, "version") || !strcmp(cmd, "--version")) {
        printf("infer8 %s\n", infer8_version());
        return 0;
    }
    static const struct {
        const char *name;
        int (*fn)(int, char **);
    } commands[] = {
        {"synth", cmd_synth}, {"build", cmd_build},           {"inspect", cmd_inspect},     {"classify", cmd_classify},
        {"preprocess", cmd_preprocess}, {"gen-images", cmd_gen_images}, {"bench", cmd_bench},
        {"calibrate", cmd_calibrate}, {"recipe", cmd_recipe},
        {"study", cmd_study},
    };
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
        if (!strcmp(cmd, commands[i].name)) return commands[i].fn(argc - 1, argv + 1);
    fprintf(stderr, "infer8: unknown command '%s'\n\n%s", cmd, usage_text);
    return EXIT_USAGE;
}

int cli_exit_code(infer8_status s) {
    switch (s) {
    case INFER8_OK: return 0;
    case INFER8_E_INVALID_ARGUMENT:
    case INFER8_E_IO:
    case INFER8_E_FORMAT:
    case INFER8_E_SHAPE:
    case INFER8_E_MISSING_KEY:
    case INFER8_E_UNSUPPORTED:
    case INFER8_E_LIMIT:
    case INFER8_E_INTEGRITY: return EXIT_INPUT;
    default: return EXIT_RUNTIME;
    }
}

/* The command line as typed, with arguments that need it single-quoted for the shell. */
char *cli_command_line(int argc, char **argv) {
    size_t cap = 16;
    for (int i = 0; i < argc; i++) cap += 4 * strlen(argv[i]) + 3;
    char *s = malloc(cap);
    if (!s) return NULL;
    size_t len = (size_t)snprintf(s, cap, "infer8");
    for (int i = 0; i < argc; i++) {
        const char *a = argv[i];
        int plain = *a != 0;
        for (const char *p = a; *p; p++)
            if (!strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_./:=,+@%", *p)) plain = 0;
        s[len++] = ' ';
        if (plain) {
            len += (size_t)snprintf(s + len, cap - len, "%s", a);
            continue;
        }
        s[len++] = '\'';
        for (const char *p = a; *p; p++) {
            if (*p == '\'') len += (size_t)snprintf(s + len, cap - len, "'\\''");
            else s[len++] = *p;
        }
        s[len++] = '\'';
        s[len] = 0;
    }
    return s;
}

void cli_json_string(FILE *f, const char *s) {
    fputc('"', f);
    size_t n = strlen(s), valid = infer8_utf8_valid_length(s, n);
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        if (i == valid) { /* paths and arguments are bytes: JSON must stay UTF-8 */
            fputs("\\ufffd", f);
            valid = i + 1 + infer8_utf8_valid_length(s + i + 1, n - i - 1);
        } else if (c == '"' || c == '\\') fprintf(f, "\\%c", c);
        else if (c < 0x20 || c == 0x7f) fprintf(f, "\\u%04x", c);
        else fputc(c, f);
    }
    fputc('"', f);
}

int cli_fail(infer8_context *ctx, const char *cmd) {
    infer8_status s = infer8_errcode(ctx);
    fprintf(stderr, "infer8 %s: error (%s): %s\n", cmd, infer8_status_string(s), infer8_errmsg(ctx));
    return cli_exit_code(s);
}

int cli_usage_error(const char *cmd, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "infer8 %s: ", cmd);
    vfprintf(stderr, fmt, ap);
    fprintf(stderr, " (see infer8 %s --help)\n", cmd);
    va_end(ap);
    return EXIT_USAGE;
}

int cli_opt_value(cli_args *a, const char *name, const char **value, int *error) {
    const char *arg = a->argv[a->i];
    size_t n = strlen(name);
    if (strncmp(arg, name, n) != 0) return 0;
    if (arg[n] == '=') {
        *value = arg + n + 1;
        a->i++;
    } else if (arg[n] != 0) {
        return 0;
    } else if (a->i + 1 >= a->argc) {
        cli_usage_error(a->cmd, "option %s needs a value", name);
        *error = 1;
        a->i++;
        return 1;
    } else {
        *value = a->argv[a->i + 1];
        a->i += 2;
    }
    /* no option takes an empty value: an empty path or name is a slip (an unset shell variable),
     * better named here than after the work, as a failed rename of "" */
    if (!**value) {
        cli_usage_error(a->cmd, "option %s needs a value, got an empty one", name);
        *error = 1;
    }
    return 1;
}

int cli_opt_flag(cli_args *a, const char *name) {
    if (strcmp(a->argv[a->i], name) != 0) return 0;
    a->i++;
    return 1;
}

int cli_parse_int(const char *cmd, const char *opt, const char *text, long min, long max, long *out) {
    char *end = NULL;
    long v = strtol(text, &end, 10);
    if (!*text || *end || v < min || v > max) {
        cli_usage_error(cmd, "%s expects an integer in [%ld, %ld], got '%s'", opt, min, max, text);
        return 0;
    }
    *out = v;
    return 1;
}

int cli_model_option(cli_args *a, cli_model_opts *m) {
    const char *v = NULL;
    int error = 0;
    if (cli_opt_value(a, "--arch", &m->arch, &error)) return error ? -1 : 1;
    if (cli_opt_value(a, "--device", &m->device, &error)) {
        if (error) return -1;
        if (strcmp(m->device, "ref") && strcmp(m->device, "cpu") && strcmp(m->device, "cuda")) {
            cli_usage_error(a->cmd, "--device must be ref, cpu or cuda, got '%s'", m->device);
            return -1;
        }
        return 1;
    }
    if (cli_opt_value(a, "--threads", &v, &error))
        return error || !cli_parse_int(a->cmd, "--threads", v, 0, 4096, &m->threads) ? -1 : 1;
    if (cli_opt_value(a, "--max-batch", &v, &error))
        return error || !cli_parse_int(a->cmd, "--max-batch", v, 1, 4096, &m->max_batch) ? -1 : 1;
    if (cli_opt_value(a, "--precision", &m->precision, &error)) {
        if (error) return -1;
        if (strcmp(m->precision, "fp32") && strcmp(m->precision, "fp8")) {
            cli_usage_error(a->cmd, "--precision must be fp32 or fp8, got '%s'", m->precision);
            return -1;
        }
        return 1;
    }
    if (cli_opt_value(a, "--recipe", &m->recipe, &error)) return error ? -1 : 1;
    if (cli_opt_value(a, "--scales", &m->scales, &error)) return error ? -1 : 1;
    if (cli_opt_value(a, "--split-weights", &m->split_weights, &error)) return error ? -1 : 1;
    if (cli_opt_value(a, "--adaptive-rounding", &m->adaptive_rounding, &error)) return error ? -1 : 1;
    if (cli_opt_value(a, "--rounding-images", &m->rounding_images, &error)) return error ? -1 : 1;
    if (cli_opt_value(a, "--rounding-count", &v, &error))
        return error || !cli_parse_int(a->cmd, "--rounding-count", v, 1, 100000, &m->rounding_count) ? -1 : 1;
    if (cli_opt_value(a, "--opt-level", &v, &error)) {
        if (error || !cli_parse_int(a->cmd, "--opt-level", v, 0, INFER8_OPT_LEVEL_MAX, &m->opt_level)) return -1;
        m->has_opt_level = 1;
        return 1;
    }
    if (cli_opt_flag(a, "--fp64")) {
        m->fp64 = 1;
        return 1;
    }
    if (cli_opt_flag(a, "--allow-nonfinite")) {
        m->allow_nonfinite = 1;
        return 1;
    }
    if (cli_opt_flag(a, "--fp16-activations")) {
        m->fp16_activations = 1;
        return 1;
    }
    static const struct {
        const char *name;
        size_t offset;
    } limit_opts[] = {{"--max-image-pixels", offsetof(infer8_limits, max_image_pixels)},
                      {"--max-image-bytes", offsetof(infer8_limits, max_image_bytes)},
                      {"--max-json-bytes", offsetof(infer8_limits, max_json_bytes)},
                      {"--max-tensors", offsetof(infer8_limits, max_tensors)}};
    for (size_t i = 0; i < sizeof limit_opts / sizeof limit_opts[0]; i++) {
        long n = 0;
        if (cli_opt_value(a, limit_opts[i].name, &v, &error)) {
            if (error || !cli_parse_int(a->cmd, limit_opts[i].name, v, 1, LONG_MAX, &n)) return -1;
            *(uint64_t *)((char *)&m->limits + limit_opts[i].offset) = (uint64_t)n;
            return 1;
        }
    }
    return 0;
}

int cli_parse_batches(const char *cmd, const char *opt, const char *text, long *out, int max, int *n) {
    char *copy = strdup(text), *save = NULL;
    int ok = copy != NULL;
    *n = 0;
    for (char *tok = copy ? strtok_r(copy, ",", &save) : NULL; tok && ok; tok = strtok_r(NULL, ",", &save)) {
        if (*n == max) {
            cli_usage_error(cmd, "at most %d batch sizes in %s", max, opt);
            ok = 0;
        } else if (!cli_parse_int(cmd, opt, tok, 1, 4096, &out[(*n)++])) {
            ok = 0;
        }
    }
    if (ok && *n == 0) {
        cli_usage_error(cmd, "%s needs at least one batch size", opt);
        ok = 0;
    }
    free(copy);
    return ok;
}

int cli_parse_model_json(cli_args *a, cli_model_opts *mo, const char *help, const char **model_path, int *json) {
    while (a->i < a->argc) {
        const char *arg = a->argv[a->i];
        if (!strcmp(arg, "--help") || !strcmp(arg, "-h")) {
            fputs(help, stdout);
            return 0;
        }
        int r = cli_model_option(a, mo);
        if (r < 0) return EXIT_USAGE;
        if (r > 0) continue;
        if (cli_opt_flag(a, "--json")) *json = 1;
        else if (arg[0] == '-') return cli_usage_error(a->cmd, "unknown option %s", arg);
        else if (!*model_path) *model_path = a->argv[a->i++];
        else return cli_usage_error(a->cmd, "unexpected argument %s", arg);
    }
    if (!*model_path) return cli_usage_error(a->cmd, "MODEL is required");
    return -1;
}

infer8_status cli_open_model(infer8_context *ctx, const char *path, const cli_model_opts *m, infer8_model **out) {
    infer8_open_options o;
    infer8_open_options_init(&o);
    o.arch = m->arch;
    o.accumulate_fp64 = m->fp64;
    o.threads = (int)m->threads;
    if (m->max_batch) o.max_batch = (int)m->max_batch;
    if (m->device && !strcmp(m->device, "cpu")) o.device = INFER8_DEVICE_CPU;
    if (m->device && !strcmp(m->device, "cuda")) o.device = INFER8_DEVICE_CUDA;
    o.allow_nonfinite = m->allow_nonfinite;
    o.fp16_activations = m->fp16_activations;
    if (m->has_opt_level) o.opt_level = (int)m->opt_level;
    if (m->precision && !strcmp(m->precision, "fp8")) o.precision = INFER8_PRECISION_FP8;
    o.fp8_recipe = m->recipe;
    o.fp8_scales_path = m->scales;
    o.split_weights = m->split_weights;
    o.adaptive_rounding = m->adaptive_rounding;
    o.adaptive_rounding_images = m->rounding_images;
    o.adaptive_rounding_count = (int)m->rounding_count;
    infer8_limits lim = m->limits;
    lim.struct_size = sizeof lim;
    infer8_status s = infer8_set_limits(ctx, &lim); /* zero fields keep the defaults */
    if (s) return s;
    return infer8_model_open(ctx, path, &o, out);
}

int cli_print_model_text(const char *cmd, const char *model_path, const cli_model_opts *mo, cli_describe_fn describe,
                         void *user) {
    infer8_context *ctx = infer8_context_new();
    if (!ctx) return EXIT_RUNTIME;
    infer8_model *model = NULL;
    char *text = NULL;
    int rc = 0;
    if (cli_open_model(ctx, model_path, mo, &model) || describe(ctx, model, user, &text)) {
        rc = cli_fail(ctx, cmd);
    } else {
        fputs(text, stdout);
        if (text[0] && text[strlen(text) - 1] != '\n') fputc('\n', stdout);
    }
    infer8_free(text);
    infer8_model_close(model);
    infer8_context_free(ctx);
    return rc;
}

static double now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* Progress: redraws one line on a terminal (bar, percent, ETA); on a pipe prints a plain line
 * at most every 10% so logs stay short. total 0: not known yet (tar shards): the count and the
 * time alone, on a pipe at most every 10 s. */
void cli_progress(void *user, const char *phase, uint64_t done, uint64_t total) {
    static double start, last_print; /* CLI-only state: one progress at a time */
    static int last_decile = -1;
    static char last_phase[64];
    if (strncmp(last_phase, phase, sizeof last_phase - 1) != 0 || done == 0) {
        snprintf(last_phase, sizeof last_phase, "%s", phase);
        start = now_s();
        last_decile = -1;
        last_print = -1e9;
    }
    if (!total) {
        const double t = now_s();
        if (isatty(2)) fprintf(stderr, "\r%-24.24s %llu done  %6.1fs", phase, (unsigned long long)done, t - start);
        else if (t - last_print >= 10.0) {
            fprintf(stderr, "%s: %llu done (%.1fs elapsed, total not known yet)\n", phase, (unsigned long long)done,
                    t - start);
            last_print = t;
        }
        (void)user;
        return;
    }
    double frac = total ? (double)done / (double)total : 1.0;
    double elapsed = now_s() - start;
    double eta = frac > 0 ? elapsed * (1 - frac) / frac : 0;
    if (isatty(2)) {
        int width = 30, fill = (int)(frac * width);
        fprintf(stderr, "\r%-24.24s [%.*s%*s] %3d%%  %6.1fs  ETA %5.1fs", phase, fill,
                "##############################", width - fill, "", (int)(frac * 100), elapsed, eta);
        if (done >= total) fputc('\n', stderr);
    } else {
        int decile = (int)(frac * 10);
        if (decile != last_decile) {
            fprintf(stderr, "%s: %llu/%llu (%d%%, %.1fs elapsed, ETA %.1fs)\n", phase, (unsigned long long)done,
                    (unsigned long long)total, (int)(frac * 100), elapsed, eta);
            last_decile = decile;
        }
    }
    (void)user;
}

void cli_log(void *user, int level, const char *message) {
    static const char *const names[] = {"error", "warning", "info", "debug"};
    fprintf(stderr, "infer8: %s: %s\n", names[level < 0 ? 0 : level > 3 ? 3 : level], message);
    (void)user;
}
