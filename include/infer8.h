/* infer8.h -- public C API of libinfer8, an inference engine for Inception-family image
 * classifiers (timm inception_resnet_v2, inception_v4, inception_v3).
 *
 * Usage:
 *
 *     infer8_context *ctx = infer8_context_new();
 *     infer8_model *model = NULL;
 *     if (infer8_model_open(ctx, "model_dir_or.bundle", NULL, &model) != INFER8_OK) {
 *         fprintf(stderr, "%s\n", infer8_errmsg(ctx));
 *     }
 *     float *logits = malloc(sizeof(float) * infer8_model_num_classes(model));
 *     const void *images[1] = { jpeg_bytes };  size_t sizes[1] = { jpeg_size };
 *     infer8_classify_encoded(ctx, model, 1, images, sizes, logits);
 *     infer8_class_score top[5];
 *     infer8_topk(model, logits, 5, top);   // top[i].label, top[i].probability
 *     infer8_model_close(model);
 *     infer8_context_free(ctx);
 *
 * Conventions
 * - Every fallible function returns an infer8_status; on failure the context holds a message
 *   (infer8_errmsg) naming the file, key, shape or byte offset at fault, and out-parameters
 *   are left unchanged.
 * - Option and info structs start with `struct_size`; callers set it to sizeof(the struct they
 *   were compiled with) (the *_init functions do this), so later versions can add fields at
 *   the end without breaking old callers.
 * - No global state. Thread-safety: an infer8_context must be used by one thread at a time
 *   (use one per thread). An infer8_model may be shared by threads, each with its own
 *   context: its graph and weights are immutable once opened, and its executor state
 *   (activation buffers, created on the first classify call) is guarded by a lock, so
 *   concurrent classify calls on one model run one after another. Open the model once per
 *   thread to run in parallel.
 */
#ifndef INFER8_H
#define INFER8_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define INFER8_VERSION_MAJOR 0
#define INFER8_VERSION_MINOR 1
#define INFER8_VERSION_PATCH 0
#define INFER8_VERSION_STRING "0.1.0"

/* Returns the library's version string (may differ from the header's at run time). */
const char *infer8_version(void);

typedef enum infer8_status {
    INFER8_OK = 0,
    INFER8_E_INVALID_ARGUMENT = 1, /* a caller passed a bad value */
    INFER8_E_IO = 2,               /* open/read/write/rename failed */
    INFER8_E_FORMAT = 3,           /* malformed file contents (JSON, header, encoding) */
    INFER8_E_SHAPE = 4,            /* a tensor's shape or dtype differs from the architecture's */
    INFER8_E_MISSING_KEY = 5,      /* a tensor or config key the architecture needs is absent */
    INFER8_E_UNSUPPORTED = 6,      /* valid input this build cannot handle (arch, dtype, device) */
    INFER8_E_NOMEM = 7,            /* allocation failed */
    INFER8_E_LIMIT = 8,            /* input exceeds a configured limit (size, pixels, count) */
    INFER8_E_INTEGRITY = 9,        /* checksum or consistency check failed */
    INFER8_E_DEVICE = 10,          /* GPU / accelerator library error */
    INFER8_E_INTERNAL = 11         /* a bug: an invariant did not hold */
} infer8_status;

/* Static name of a status ("ok", "format error", ...). */
const char *infer8_status_string(infer8_status status);

/* ---- context ---------------------------------------------------------------------------- */

typedef struct infer8_context infer8_context;

/* Log callback: level 0 = error, 1 = warning, 2 = info (progress), 3 = debug. */
typedef void (*infer8_log_fn)(void *user, int level, const char *message);

/* Returns NULL only when memory is exhausted. */
infer8_context *infer8_context_new(void);
void infer8_context_free(infer8_context *ctx);
/* Message of the last failure on this context ("" if none). Valid until the next call. */
const char *infer8_errmsg(const infer8_context *ctx);
/* Status of the last failure on this context (INFER8_OK if none). */
infer8_status infer8_errcode(const infer8_context *ctx);
void infer8_set_log(infer8_context *ctx, infer8_log_fn fn, void *user, int max_level);

/* Limits applied to outside data before allocation; 0 keeps the default. */
typedef struct infer8_limits {
    uint32_t struct_size;
    uint64_t max_json_bytes;      /* default 64 MiB */
    uint64_t max_tensors;         /* default 100000 */
    uint64_t max_image_pixels;    /* default 178956970 (Pillow's MAX_IMAGE_PIXELS * 2) */
    uint64_t max_image_bytes;     /* default 256 MiB */
} infer8_limits;
void infer8_limits_init(infer8_limits *limits);
infer8_status infer8_set_limits(infer8_context *ctx, const infer8_limits *limits);

/* ---- models ------------------------------------------------------------------------------- */

typedef struct infer8_model infer8_model;

typedef enum infer8_device { INFER8_DEVICE_CPU_REFERENCE = 0, INFER8_DEVICE_CPU = 1, INFER8_DEVICE_CUDA = 2 } infer8_device;

typedef struct infer8_open_options {
    uint32_t struct_size;
    const char *arch;          /* family for a bare .safetensors file; NULL = from config.json */
    infer8_device device;      /* executor used by classify calls (default CPU reference) */
    int accumulate_fp64;       /* reference executor: accumulate in double (other devices refuse it) */
    int threads;               /* CPU threads; 0 = all available */
    int max_batch;             /* largest batch run at once, 1..4096 (0 = the default, 32); larger
                                * classify calls run in batches of this size */
    /* appended in 0.1 for FP8 emulation of a checkpoint (docs/fp8.md); bundles carry their own.
     * precision INFER8_PRECISION_FP8 applies fp8_recipe (NULL = "default"; see
     * infer8_fp8_recipe_describe) with the activation scales of fp8_scales_path (scales.json
     * written by infer8_calibrate) to the graph at open; classify then emulates FP8 on the
     * reference executor (INFER8_DEVICE_CPU_REFERENCE) or, the same emulation with oneDNN's
     * fp32 convolutions, on INFER8_DEVICE_CPU, or runs e4m3 tensor-core kernels
     * (INFER8_DEVICE_CUDA). */
    int precision;             /* an infer8_precision: FP32 (default) or FP8 */
    const char *fp8_recipe;
    const char *fp8_scales_path;
    /* appended in 0.1: 1 accepts NaN/Inf checkpoint weights; by default the first one fails
     * the open with INFER8_E_FORMAT naming the tensor and element index. */
    int allow_nonfinite;
    /* appended in 0.1: reference executor only (other devices refuse it): store every activation
     * but the logits as binary16, as the GPU's fp16 and FP8 paths do. With an fp16 bundle this
     * emulates infer8's fp16 GPU numbers up to summation order: the rounding floor an fp16
     * engine cannot go below (docs/performance.md, "fp16 parity"). */
    int fp16_activations;
    /* appended in 0.1: CUDA tuning effort when the executor picks each layer's implementation
     * by timing it on this GPU (bundles with stored tactics for this GPU skip it):
     * 0 = own kernels and cuBLASLt only, no cuDNN plans (fastest start);
     * 1 = up to 10 s of cuDNN plan building per batch size; 2 (default) = 30 s (once spent, each
     * fp16 conv left still tries cuDNN's first configuration; INFER8_CUDA_CUDNN_SHARE=1 gives each
     * fp16 conv an equal share of what is left instead, an experiment not yet measured on a GPU);
     * 3 = every cuDNN configuration of every layer, no time limit.
     * The environment variable INFER8_CUDA_CUDNN_BUDGET (seconds) overrides it. */
    int opt_level;
    /* appended in 0.1, checkpoints only (a bundle keeps the graph it was built with): convs whose
     * weights are split into two binary16 halves, W = fp16(W) + (W - fp16(W)), run as two convs
     * summed in one epilogue, so that fp16 engines keep about 22 bits of those weights.
     * Comma-separated "stem" (the family's stem, as the FP8 recipes define it) and fnmatch(3)
     * globs on layer names; NULL = none. One more conv per split layer; for models whose fp16
     * weight rounding in the first layers exceeds a parity budget (docs/performance.md,
     * session 19: inception_v4 on synth weights). */
    const char *split_weights;
    /* appended in 0.1, checkpoints only: convs whose weights are rounded to binary16 adaptively
     * instead of to nearest: rounded one input position at a time, each rounding error
     * compensated on the weights not yet rounded through the correlations of the conv's inputs
     * (GPTQ's error feedback), measured on adaptive_rounding_images by the reference executor;
     * each weight stays within 2.5 fp16 ulps of its value. The weights stay ordinary fp16 values,
     * so fp16 execution (CUDA, fp16 bundles, the fp16 stem of FP8 builds; convs the FP8 recipe
     * makes e4m3 are refused) costs nothing more; for the fp16 weight rounding
     * that --split-weights pays a conv for (docs/performance.md, session 20). Same SPEC as
     * split_weights (not both on one model); NULL = none. */
    const char *adaptive_rounding;
    const char *adaptive_rounding_images; /* images, as infer8_calibrate_options.images */
    int adaptive_rounding_count;          /* images used; 0 = 16 */
} infer8_open_options;
#define INFER8_OPT_LEVEL_MAX 3
void infer8_open_options_init(infer8_open_options *options);

/* Opens a Hugging Face snapshot directory (config.json + model.safetensors or a sharded
 * model.safetensors.index.json), a bare .safetensors file (options->arch required), or a
 * bundle written by infer8_build. The model owns everything it needs; close it with
 * infer8_model_close. options NULL = the defaults; options not set up by
 * infer8_open_options_init (struct_size too small) or out of range (device, threads < 0,
 * max_batch outside 0..4096) give INFER8_E_INVALID_ARGUMENT. */
infer8_status infer8_model_open(infer8_context *ctx, const char *path, const infer8_open_options *options,
                                infer8_model **out);
void infer8_model_close(infer8_model *model);
/* Opens a bundle held in memory (size bytes; only bundles: checkpoints need their files). The
 * bytes are verified and converted during the call; the caller may free them afterwards. */
infer8_status infer8_model_open_memory(infer8_context *ctx, const void *data, size_t size,
                                       const infer8_open_options *options, infer8_model **out);

typedef enum infer8_interpolation { INFER8_INTERP_BICUBIC = 0, INFER8_INTERP_BILINEAR = 1 } infer8_interpolation;

typedef struct infer8_model_info {
    uint32_t struct_size;
    const char *arch;            /* "inception_resnet_v2", ... (owned by the model) */
    const char *source;          /* path it was opened from */
    int num_classes;
    int num_features;
    int input_channels, input_height, input_width;
    float crop_pct;
    infer8_interpolation interpolation;
    float mean[3], std[3];
    int num_layers;              /* nodes of the optimized graph */
    int num_convolutions;
    uint64_t num_parameters;
    uint64_t macs_per_image;
    /* appended in 0.1 for bundles (checkpoints: precision "fp32", is_bundle 0, no sections) */
    const char *precision;       /* build precision: "fp32", "fp16", "fp8" (owned by the model) */
    int is_bundle;
    uint64_t file_bytes;         /* bundle size in bytes (0 for a checkpoint) */
    int num_sections;
    const struct infer8_section_info *sections; /* num_sections entries, owned by the model */
    const char *source_sha256;   /* SHA-256 (hex) of the checkpoint the bundle was built from, or "" */
} infer8_model_info;

/* One section of a bundle file (docs/bundle-format.md). */
typedef struct infer8_section_info {
    const char *name;            /* "header", "config", "labels", "graph", "weights", ... */
    uint64_t offset, length;     /* bytes, in the file */
    uint64_t checksum;           /* XXH3-64 of the payload */
} infer8_section_info;
void infer8_model_info_init(infer8_model_info *info);
infer8_status infer8_model_get_info(const infer8_model *model, infer8_model_info *info);
int infer8_model_num_classes(const infer8_model *model);
/* Label of class index (never NULL: "class_<i>" when the model has no labels). */
const char *infer8_model_label(const infer8_model *model, int index);

/* Human-readable (text) or JSON description of the graph: one entry per layer with name, op,
 * kernel, stride, padding, input and output shape, precision; totals. With the CUDA backend
 * built in, also the activation arena the CUDA executor plans for the model at its max_batch
 * (open option), computed on the host (no GPU needed): a "memory (CUDA executor, ...)" line, or
 * JSON "memory": {"cuda": {"max_batch", "activation_arena_bytes"}} ("error" instead when the
 * CUDA backend cannot run the graph). *out is malloc'ed. */
typedef enum infer8_describe_format { INFER8_DESCRIBE_TEXT = 0, INFER8_DESCRIBE_JSON = 1 } infer8_describe_format;
infer8_status infer8_model_describe(infer8_context *ctx, const infer8_model *model, infer8_describe_format format,
                                    char **out);
void infer8_free(void *p);

/* ---- output helpers for clients that write files and JSON ---------------------------------- */

/* Writes size bytes to path atomically: a temporary file next to it, flushed and fsync'ed,
 * then renamed over path, so a reader never sees a partial file. */
infer8_status infer8_write_file(infer8_context *ctx, const char *path, const void *data, size_t size);

/* How many leading bytes of s[0..n) are well-formed UTF-8 (n when all are). Paths and command
 * lines are bytes; a client writing them into JSON replaces each byte that is not (the byte at
 * the returned length) with U+FFFD, as infer8's own JSON outputs do. */
size_t infer8_utf8_valid_length(const char *s, size_t n);

/* ---- preprocessing and classification ------------------------------------------------------ */

/* Decodes an encoded image (JPEG, PNG, WebP) and applies the model's eval transform (timm:
 * resize shorter side to floor(size / crop_pct) with Pillow-exact resampling, center crop,
 * normalize). out: float32 [3][H][W] (CHW) of the model's input size. */
infer8_status infer8_preprocess_encoded(infer8_context *ctx, const infer8_model *model, const void *data,
                                        size_t size, float *out);
/* Same from 8-bit RGB pixels, row-major, 3 bytes per pixel, `stride` bytes per row. */
infer8_status infer8_preprocess_rgb8(infer8_context *ctx, const infer8_model *model, const uint8_t *pixels,
                                     int width, int height, size_t stride, float *out);

/* Decode, resize and center crop as infer8_preprocess_encoded, without the normalization:
 * out: uint8 RGB HWC [H][W][3] of the model's input size (3 * H * W bytes). */
infer8_status infer8_preprocess_encoded_u8(infer8_context *ctx, const infer8_model *model, const void *data,
                                           size_t size, uint8_t *out);

/* Logits for n encoded images; logits: n * num_classes floats. The images are decoded and cropped
 * on the model's CPU threads (open option threads), then go through infer8_classify_u8; an
 * error names the first image that failed. */
infer8_status infer8_classify_encoded(infer8_context *ctx, infer8_model *model, int n, const void *const *data,
                                      const size_t *sizes, float *logits);
/* Logits for n already-preprocessed images, float32 NCHW [n][3][H][W]. */
infer8_status infer8_classify_tensor(infer8_context *ctx, infer8_model *model, int n, const float *input_nchw,
                                     float *logits);
/* Logits for n crops of the model's input size, uint8 RGB HWC [n][H][W][3] (as
 * infer8_preprocess_encoded_u8 writes them). Normalized with the model's mean and std where the
 * model runs: the CUDA executor uploads the bytes (a quarter of the floats) and normalizes on the
 * GPU, bit for bit as the CPU's infer8_preprocess_encoded; the CPU executors normalize on the
 * CPU. UNSUPPORTED for a model whose input is not 3 channels. */
infer8_status infer8_classify_u8(infer8_context *ctx, infer8_model *model, int n, const uint8_t *crops_nhwc,
                                 float *logits);
/* Logits for n RGB8 images of one size (each preprocessed like an encoded image). */
infer8_status infer8_classify_rgb8(infer8_context *ctx, infer8_model *model, int n, const uint8_t *const *pixels,
                                   int width, int height, size_t stride, float *logits);

typedef struct infer8_class_score {
    int index;
    float logit;
    float probability;          /* softmax over all classes */
    const char *label;          /* owned by the model */
} infer8_class_score;
/* The k highest-scoring classes of one image's logits, best first (ties: lower index first). */
infer8_status infer8_topk(const infer8_model *model, const float *logits, int k, infer8_class_score *out);

/* ---- bundles ------------------------------------------------------------------------------- */

typedef enum infer8_precision { INFER8_PRECISION_FP32 = 0, INFER8_PRECISION_FP16 = 1, INFER8_PRECISION_FP8 = 2 } infer8_precision;

typedef struct infer8_build_options {
    uint32_t struct_size;
    infer8_precision precision;  /* weights stored as fp32 (default) or fp16; fp8: the model must have been
                                  * opened with precision fp8 (FP8 convs stored as e4m3 codes + scales,
                                  * other kernels fp16); an fp32 model gives UNSUPPORTED */
    int max_batch;               /* recorded in the header; CUDA tuning runs batch 1 and this (default 32) */
    infer8_device device;        /* INFER8_DEVICE_CUDA: tune on this machine's GPU and store the tactics */
    const char *fp8_recipe;      /* for precision fp8 (reserved) */
    const char *fp8_scales_path; /* for precision fp8 (reserved) */
    int opt_level;               /* appended in 0.1: device CUDA: tuning effort 0..3 (default 2), as
                                  * infer8_open_options.opt_level */
} infer8_build_options;
void infer8_build_options_init(infer8_build_options *options);

/* Writes `model` (an opened checkpoint or bundle) as one bundle file at out_path: header with
 * family, task, precision, provenance (source path and its SHA-256), the optimized graph, the
 * weights in the build precision, preprocessing config, labels, activation scales, tactic
 * records. Written to a temporary file, fsynced and renamed: an interrupted build never leaves
 * a partial file under out_path. Format: docs/bundle-format.md. */
infer8_status infer8_build(infer8_context *ctx, const infer8_model *model, const infer8_build_options *options,
                           const char *out_path);
/* The size in bytes of the bundle infer8_build would write for these options, without writing
 * it: no CUDA tuning (the size excludes tactic records, whatever options->device says), the
 * rest byte for byte (how `infer8 build --precision fp8` reports the fp16 bundle it replaces). */
infer8_status infer8_build_size(infer8_context *ctx, const infer8_model *model, const infer8_build_options *options,
                                uint64_t *bytes);

/* ---- tools: synthetic checkpoints ------------------------------------------------------------ */

/* Progress callback for long work: done of total units, a short phase name; total 0 while the
 * total is not known (calibration over tar shards without a count: the last call gives it). */
typedef void (*infer8_progress_fn)(void *user, const char *phase, uint64_t done, uint64_t total);

typedef struct infer8_synth_options {
    uint32_t struct_size;
    const char *arch;            /* required */
    uint64_t seed;               /* default 0 */
    int calibration_images;      /* images that set batch-norm statistics and the classifier (default 32) */
    int threads;                 /* 0 = all available */
    infer8_progress_fn progress;
    void *progress_user;
} infer8_synth_options;
void infer8_synth_options_init(infer8_synth_options *options);
/* Writes a timm-compatible snapshot (config.json + model.safetensors) into out_dir (created
 * if missing). Deterministic: the same seed gives the same bytes on every machine. */
infer8_status infer8_synth(infer8_context *ctx, const infer8_synth_options *options, const char *out_dir);

/* Writes a deterministic "natural-looking" test image (smooth gradients, shapes, texture) as
 * PNG, width x height, from a seed. Used for demos, tests and synth calibration. */
infer8_status infer8_generate_image_png(infer8_context *ctx, uint64_t seed, int width, int height,
                                        const char *out_path);

/* ---- benchmarking -------------------------------------------------------------------------- */

/* Describes the executor's device and libraries ("NVIDIA H200, driver ..., CUDA ..., cuDNN ...",
 * or the CPU model and threads), preparing the executor if needed. */
infer8_status infer8_device_info(infer8_context *ctx, infer8_model *model, char *buf, size_t size);
/* One timing round: `iters` back-to-back forwards of batch n on deterministic input, mean
 * milliseconds per forward in *ms. CUDA: replays of the captured CUDA graph between two events
 * (the first call for a batch size tunes, captures and warms up); CPU: wall clock. Interleave
 * rounds of several models to compare them (infer8 bench does). */
infer8_status infer8_time_forward(infer8_context *ctx, infer8_model *model, int n, int iters, double *ms);
/* Per-layer profile: each layer timed separately (CUDA: replays of a graph of ten launches of
 * that layer alone, so the GPU's time without the launch's host cost), mean milliseconds per
 * forward added into ms[num_layers] (caller zeroes it). Fails with INFER8_E_UNSUPPORTED when the
 * executor cannot profile. */
infer8_status infer8_profile(infer8_context *ctx, infer8_model *model, int n, int iters, double *ms);
/* How the executor prepared batch n (after a forward, infer8_time_forward or infer8_profile of
 * that batch size): CUDA's tuning of its convolutions. A speed comparison is only as fair as
 * the tuning of both sides: convolutions for which the cuDNN budget (--opt-level) ran out after
 * cuDNN's first configuration keep it, untimed, and may be slower than tuned ones. INFER8_E_UNSUPPORTED
 * on the CPU executors (nothing is tuned there); INFER8_E_INVALID_ARGUMENT when batch n has not
 * been prepared. */
typedef struct infer8_tuning {
    uint32_t struct_size;       /* set by infer8_tuning_init */
    int conv_problems;          /* distinct convolution problems (shape, precision) tuned */
    int untuned_problems;       /* of those, fp16 ones for which the cuDNN budget ran out after cuDNN's
                                 * first configuration: not timed against the others */
    int restored_tactics;       /* convolutions run on a tactic stored in the bundle, not timed here */
    double tune_seconds;        /* spent tuning this batch size */
    double cudnn_budget_s;      /* seconds of cuDNN plan building allowed per batch size (< 0: none) */
    int partly_tuned_problems;  /* appended in 0.1: fp16 ones for which it ran out after two or more of
                                 * cuDNN's configurations, with more untried (they are tried in
                                 * their heuristic's rank order, best first) */
} infer8_tuning;
void infer8_tuning_init(infer8_tuning *tuning);
infer8_status infer8_get_tuning(infer8_context *ctx, infer8_model *model, int n, infer8_tuning *out);
/* The tuning as one JSON object ({"conv_problems": 39, "untuned_problems": 0, ...}: every field but
 * struct_size, by its name), the form bench's and study's JSON rows carry: written into buf,
 * NUL-terminated and cut to cap - 1 bytes; returns its whole length, as snprintf does (buf may be
 * NULL when cap is 0), or -1 when tuning is NULL. Non-finite seconds are written as null. */
int infer8_tuning_json(const infer8_tuning *tuning, char *buf, size_t cap);
/* Layer i of the optimized graph: name and a type key for profiles ("conv3x3", "conv1x1+residual",
 * "maxpool", "concat", ...; FP8 layers get an "fp8 " prefix). NULL when i is out of range. */
const char *infer8_layer_name(const infer8_model *model, int i);
const char *infer8_layer_type(const infer8_model *model, int i, char *buf, size_t size);
/* A profile summed by layer type: one entry per infer8_layer_type key, in order of first
 * appearance, with the milliseconds of ms[0..layers) and the number of layers; at most `cap`
 * types (later ones are left out). Returns the number of entries, or -1 on a bad argument. */
typedef struct infer8_type_time {
    char type[64];
    double ms;
    int count;
} infer8_type_time;
int infer8_profile_by_type(const infer8_model *model, const double *ms, int layers, infer8_type_time *out, int cap);
/* Roofline bound of the model's precisions over fp16 for its convolutions at batch n on a GPU
 * ("H200", "H100", "H100 PCIe"; a device description such as infer8_device_info's names it
 * too): the least time all of them could take on that GPU, max(FLOPs / dense tensor-core peak,
 * bytes / memory bandwidth) per convolution, with every conv in fp16 (*fp16_ms) and in the
 * model's own precisions (*model_ms); the ratio is the most FP8 can gain there (docs/
 * performance.md, "Session 11"). *gpu_name (may be NULL) gets the table's name.
 * INFER8_E_UNSUPPORTED for a GPU not in the table. */
infer8_status infer8_roofline(infer8_context *ctx, const infer8_model *model, const char *gpu, int n, double *fp16_ms,
                              double *model_ms, const char **gpu_name);

/* ---- FP8: recipes and calibration (docs/fp8.md) ---------------------------------------------- */

/* Lists which convolutions of `model` a recipe makes FP8 ("default", "none", "residual-fp8",
 * "residual-fp8:FIRST-LAST" or a recipe .json file): a summary line with the exact count and the
 * layers kept out, then one line per convolution (json != 0: one JSON object). *out malloc'ed
 * (infer8_free). *fp8_count (may be NULL) receives the number of FP8 convolutions. */
infer8_status infer8_fp8_recipe_describe(infer8_context *ctx, const infer8_model *model, const char *recipe, int json,
                                         char **out, int *fp8_count);

typedef enum infer8_calib_method {
    INFER8_CALIB_MAX = 0,        /* largest |x| (the study's recipe, ModelOpt FP8_DEFAULT_CFG) */
    INFER8_CALIB_PERCENTILE = 1,
    INFER8_CALIB_ENTROPY = 2,
    INFER8_CALIB_MSE = 3
} infer8_calib_method;

typedef struct infer8_calibrate_report {
    uint32_t struct_size;
    int images_used;
    int images_skipped;          /* unreadable or corrupt (each logged as a warning) */
    int tensors;                 /* entries written to scales.json */
    uint64_t nonfinite_values;   /* NaN/Inf activations seen (not calibrated) */
    char executor[32];           /* where activations were collected: "cpu-reference" or "cuda" */
} infer8_calibrate_report;

typedef struct infer8_calibrate_options {
    uint32_t struct_size;
    /* images in any layout study reads (src/eval/dataset.h), in its order: a folder (its
     * .jpg/.jpeg/.png/.webp files, names in byte order, hidden ones skipped; or, holding no
     * images, one sub-folder per class, sorted), a text file listing "path [label]" lines in
     * list order (relative paths from the list's folder; empty lines and lines starting with '#'
     * skipped), or webdataset tar shards ("val-{000000..000146}.tar", comma lists); unreadable
     * or corrupt images are warnings, skipped and counted */
    const char *images;
    int count;                   /* use the first N images (default 500; 0 = all) */
    infer8_calib_method method;  /* default INFER8_CALIB_MAX */
    double percentile;           /* INFER8_CALIB_PERCENTILE: in (0, 100] (default 99.99) */
    int batch;                   /* images per forward (default 8; part of the deterministic result) */
    infer8_progress_fn progress;
    void *progress_user;
    infer8_calibrate_report *report; /* optional, filled on success */
} infer8_calibrate_options;
void infer8_calibrate_options_init(infer8_calibrate_options *options);
void infer8_calibrate_report_init(infer8_calibrate_report *report);

/* Runs `model` (an fp32 checkpoint) over the images and writes scales.json to out_path
 * (atomically): one entry per tensor read by any convolution (and per residual input of fused
 * residual convolutions), named after the node producing it, with the chosen method's amax and
 * scale = amax / 448. One pass; deterministic (see docs/fp8.md). A model opened with
 * INFER8_DEVICE_CUDA collects on the GPU (fp16 activations, histograms binned on the device:
 * the fast path); any other device on the reference executor (fp32 activations). */
infer8_status infer8_calibrate(infer8_context *ctx, infer8_model *model, const infer8_calibrate_options *options,
                               const char *out_path);

/* The image files an image source names, in the order infer8_calibrate_options.images reads
 * them: a folder's ("folder/name", or "folder/class/name" for one sub-folder per class) or a
 * list file's. Tar shards hold members, not files: INFER8_E_INVALID_ARGUMENT. A source without
 * images (empty class folders, a list of comments) is INFER8_E_FORMAT, naming it; so on success
 * *count >= 1. *paths (an array of *count malloc'ed strings) is freed
 * with infer8_free_paths. */
infer8_status infer8_list_images(infer8_context *ctx, const char *src, char ***paths, size_t *count);
void infer8_free_paths(char **paths, size_t count);

/* ---- the FP8 study (docs/study.md) -------------------------------------------------------- */

/* What infer8_study decided (filled on success when options->summary is set). */
typedef struct infer8_study_summary {
    uint32_t struct_size;
    int decision;                /* 1 ship, 0 do not ship, -1 undecided (speed not measured) */
    char best_variant[128];      /* the variant shipped, or the best by quality; "" if none */
    char reason[1024];           /* one paragraph: which threshold each variant met or missed */
    int speed_measured;          /* 1 when latency was measured (device CUDA) */
    uint64_t held_out_images, calib_images, stress_images;
    uint64_t skipped_items;      /* corrupt or unusable dataset items (reported, not used) */
    double wall_s;               /* seconds the study took */
} infer8_study_summary;
void infer8_study_summary_init(infer8_study_summary *summary);

typedef struct infer8_study_options {
    uint32_t struct_size;
    /* dataset (src/eval/dataset.h): an image folder (class sub-folders or flat + labels.txt), a
     * list file ("path [label]" lines), or webdataset tar shards ("shard-{000..146}.tar", commas
     * between names; KEY.jpg + KEY.cls members). Required. */
    const char *images;
    uint64_t take;               /* samples used (default 2000; 0 = all) */
    uint64_t every;              /* every K-th sample position (default 25) */
    uint64_t calib;              /* the first N of those calibrate, the rest are held out (default 500) */
    const char *calib_methods;   /* comma list of max, percentile, entropy, mse (default "max") */
    /* comma list (default "fp16,fp8,residual-fp8:10-39,residual-fp8"): fp16; fp8 (recipe
     * "default"); residual-fp8[:A-B]; fp8:SPEC for any recipe spec (a recipe .json). Residual
     * variants on a family without residual blocks are reported as not applicable. */
    const char *variants;
    const char *batches;         /* comma list of batch sizes timed (default "1,32") */
    infer8_device device;        /* CPU_REFERENCE (default) or CPU: quality only, every variant scored
                                  * on that executor (CPU: oneDNN where built); CUDA: also speed */
    double max_kl;               /* decision thresholds: held-out KL mean <= (default 0.02), */
    double min_agreement;        /* top-1 agreement >= (default 0.99), */
    double min_speedup;          /* fp16 time / variant time >= at every batch size (default 1.1) */
    int threads;                 /* CPU threads (0 = all) */
    int rounds;                  /* timed rounds per variant and batch (default 7) */
    int iters;                   /* forwards per round (default 200) */
    int batch;                   /* images per forward for calibration and quality (default 8) */
    int stress;                  /* stress inputs used: -1 = all (default), 0 = none, N = the first N */
    const char *command;         /* the command line recorded in the report (may be NULL) */
    infer8_progress_fn progress;
    void *progress_user;
    infer8_study_summary *summary; /* optional, filled on success */
    int opt_level;               /* appended in 0.1: CUDA tuning effort 0..3 of the timed models
                                  * (default 2), as infer8_open_options.opt_level */
    const char *roofline_gpu;    /* appended in 0.2: the GPU ("H200", "H100", "H100 PCIe") whose
                                  * roofline bound of each FP8 variant over fp16 the report gives
                                  * (infer8_roofline); NULL: the timing GPU's when it is known */
} infer8_study_options;
void infer8_study_options_init(infer8_study_options *options);

/* Runs the whole FP8 study of the checkpoint at model_path (snapshot folder or .safetensors with
 * the family in config.json) and writes its report into out_dir (created if missing): README.md
 * (summary and decision, recipe layer lists, method, result tables, why there is or is not a
 * gain, what was not tried, when to revisit), study.json (every raw figure), SVG plots,
 * scales/<method>.json, recipes/<recipe>.txt and bundles/<variant>.bundle. Steps: one
 * calibration pass over the calibration split (fp32 reference executor, one histogram per tensor;
 * every method's scales from the same histograms), one bundle per variant, quality of every
 * variant against the fp32 reference (held-out, calibration and stress inputs separately),
 * latency on CUDA (interleaved rounds, median/min/max, per-layer-type profile; variants the
 * device cannot run are reported as not measured), and the decision from the thresholds.
 * Corrupt dataset items are skipped and counted. Every file is written atomically. */
infer8_status infer8_study(infer8_context *ctx, const char *model_path, const infer8_study_options *options,
                           const char *out_dir);

/* Writes a float32 array as a NumPy .npy file (C order), atomically. */
infer8_status infer8_save_npy(infer8_context *ctx, const char *path, const float *data, int ndim,
                              const int64_t *shape);

#ifdef __cplusplus
}
#endif
#endif
