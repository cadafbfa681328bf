/* The infer8 command-line tool: a thin client of include/infer8.h. Shared helpers for the
 * subcommands (argument parsing, exit codes, progress, JSON output). */
#ifndef I8_CLI_H
#define I8_CLI_H

#include <stdio.h>

#include "infer8.h"

/* Exit codes (documented in README): */
enum {
    EXIT_OK_ = 0,
    EXIT_RUNTIME = 1,   /* out of memory, device or internal failure */
    EXIT_INPUT = 2,     /* bad input: missing file, malformed data, wrong key or shape, limits */
    EXIT_USAGE = 64     /* bad command line */
};

/* Maps a status to the exit code above. */
int cli_exit_code(infer8_status s);
/* Prints "infer8 <cmd>: error: <message>" for the context's last failure; returns the exit code. */
int cli_fail(infer8_context *ctx, const char *cmd);
/* Prints a usage error and returns EXIT_USAGE. */
int cli_usage_error(const char *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Tiny option scanner: options may be given as --name value or --name=value. */
typedef struct cli_args {
    int argc;
    char **argv;
    int i;              /* next index */
    const char *cmd;
} cli_args;
/* Returns 1 if argv[i] is option `name` taking a value; stores it, or reports a missing or empty
 * value as a usage error and sets *error (the value is then not to be read). */
int cli_opt_value(cli_args *a, const char *name, const char **value, int *error);
int cli_opt_flag(cli_args *a, const char *name);
int cli_parse_int(const char *cmd, const char *opt, const char *text, long min, long max, long *out);
/* A comma-separated list of batch sizes (1..4096, at most `max`) of option `opt` into out[],
 * their number into *n; 0 after a usage error was reported. */
int cli_parse_batches(const char *cmd, const char *opt, const char *text, long *out, int max, int *n);

/* s as a JSON string literal (quotes, backslashes and control characters escaped) on f. */
void cli_json_string(FILE *f, const char *s);
/* "infer8 ARGS..." as typed, arguments that need it single-quoted for the shell; malloc'ed. */
char *cli_command_line(int argc, char **argv);

/* Progress on stderr: a bar with ETA on a terminal, plain lines otherwise. */
void cli_progress(void *user, const char *phase, uint64_t done, uint64_t total);
void cli_log(void *user, int level, const char *message);

/* Options shared by commands that open a model. */
typedef struct cli_model_opts {
    const char *arch;
    const char *device;     /* "ref" (default), "cpu", "cuda" */
    int fp64;
    long threads;
    long max_batch;
    int allow_nonfinite;    /* --allow-nonfinite */
    int fp16_activations;   /* --fp16-activations */
    infer8_limits limits;   /* --max-image-pixels etc.; 0 fields keep the defaults */
    const char *precision;  /* --precision: NULL/"fp32" or "fp8" (FP8 emulation of a checkpoint) */
    const char *recipe;     /* --recipe: FP8 recipe (default "default") */
    const char *scales;     /* --scales: scales.json for --precision fp8 */
    long opt_level;         /* --opt-level: CUDA tuning effort 0..3, when has_opt_level */
    int has_opt_level;
    const char *split_weights; /* --split-weights SPEC */
    const char *adaptive_rounding; /* --adaptive-rounding SPEC */
    const char *rounding_images;   /* --rounding-images SRC */
    long rounding_count;           /* --rounding-count N (0: the library's default) */
} cli_model_opts;
/* Consumes a model option at a->i if it is one; returns 1 if consumed, -1 on error. */
int cli_model_option(cli_args *a, cli_model_opts *m);
infer8_status cli_open_model(infer8_context *ctx, const char *path, const cli_model_opts *m, infer8_model **out);
/* Opens MODEL, asks describe(ctx, model, user, &text) for a text (infer8_free'd here) and prints
 * it with a final newline: the body of inspect and recipe. Returns the command's exit code. */
typedef infer8_status (*cli_describe_fn)(infer8_context *ctx, infer8_model *model, void *user, char **text);
int cli_print_model_text(const char *cmd, const char *model_path, const cli_model_opts *mo, cli_describe_fn describe,
                         void *user);
/* Parses `CMD MODEL [--json] [model options]` (inspect, recipe). Returns -1 when the command
 * should go on, otherwise the exit code to return at once (0 after printing help). */
int cli_parse_model_json(cli_args *a, cli_model_opts *mo, const char *help, const char **model_path, int *json);
#define CLI_OPT_LEVEL_HELP                                                                         \
    "  --opt-level N      cuda: how hard each layer's implementation is tuned on this GPU: 0 own\n"  \
    "                     kernels and cuBLASLt only, 1 up to 10 s of cuDNN plans per batch size,\n"  \
    "                     2 (default) 30 s (then cuDNN's first choice for each fp16 conv left),\n" \
    "                     3 every cuDNN configuration (slowest start, fastest run); bundles\n"      \
    "                     with tactics stored for this GPU skip the tuning\n"
#define CLI_SPLIT_WEIGHTS_HELP                                                                     \
    "  --split-weights S  checkpoints: run these convs as two, their weights split into fp16 halves\n" \
    "                     (W = fp16(W) + rest), so fp16 engines keep ~22 bits of them; S: \"stem\"\n" \
    "                     and / or layer-name globs, comma-separated (e.g. stem,features.6.*)\n"
#define CLI_ADAPTIVE_ROUNDING_HELP                                                                 \
    "  --adaptive-rounding S  checkpoints: round these convs' weights to fp16 by error feedback on\n" \
    "                     their inputs' correlations (GPTQ's method; each weight within 2.5 fp16\n" \
    "                     ulps) instead of to nearest: free at run time; S as --split-weights;\n"  \
    "                     needs --rounding-images SRC (a folder or list file of calibration\n"     \
    "                     images) and uses --rounding-count N of them (default 16)\n"
#define CLI_MODEL_OPTIONS_HELP                                                                     \
    "  --arch ARCH        family of a bare .safetensors file (inception_resnet_v2, inception_v4,\n" \
    "                     inception_v3); read from config.json otherwise\n"                          \
    "  --device DEV       ref (plain C reference, default), cpu (fastest CPU backend), cuda\n"       \
    "  --threads N        CPU threads (default: all cores)\n"                                         \
    "  --fp64             reference executor accumulates in double\n"                                \
    "  --fp16-activations --device ref stores activations as binary16, as the GPU does (with\n"      \
    "                     an fp16 bundle: the fp16 rounding floor of a model on the CPU)\n"           \
    "  --max-batch N      largest batch run at once (default 32)\n"                                  \
    "  --allow-nonfinite  accept NaN/Inf weights in a checkpoint (refused by default)\n"               \
    "  --max-image-pixels N, --max-image-bytes N, --max-json-bytes N, --max-tensors N\n"             \
    "                     input limits, checked before allocating (docs/reliability.md)\n"      \
    "  --precision P      fp32 (default) or fp8: emulate FP8 on the reference executor with\n"     \
    "                     --recipe R (default, residual-fp8[:A-B], recipe.json) and --scales F\n"  \
    "                     (scales.json from infer8 calibrate); see docs/fp8.md\n"                  \
    CLI_SPLIT_WEIGHTS_HELP                                                                         \
    CLI_ADAPTIVE_ROUNDING_HELP                                                                     \
    CLI_OPT_LEVEL_HELP

int cmd_synth(int argc, char **argv);
int cmd_build(int argc, char **argv);
int cmd_inspect(int argc, char **argv);
int cmd_classify(int argc, char **argv);
int cmd_preprocess(int argc, char **argv);
int cmd_gen_images(int argc, char **argv);
int cmd_bench(int argc, char **argv);
int cmd_calibrate(int argc, char **argv);
int cmd_recipe(int argc, char **argv);
int cmd_study(int argc, char **argv);

#endif
