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
    int accumulate_fp64;       /* reference executor: accumulate in double */
    int threads;               /* CPU threads; 0 = all available */
    int max_batch;             /* largest batch per classify call (default 32) */
} infer8_open_options;
void infer8_open_options_init(infer8_open_options *options);

/* Opens a Hugging Face snapshot directory (config.json + model.safetensors or a sharded
 * model.safetensors.index.json), a bare .safetensors file (options->arch required), or a
 * bundle written by infer8_build. The model owns everything it needs; close it with
 * infer8_model_close. */
infer8_status infer8_model_open(infer8_context *ctx, const char *path, const infer8_open_options *options,
                                infer8_model **out);
void infer8_model_close(infer8_model *model);

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
} infer8_model_info;
void infer8_model_info_init(infer8_model_info *info);
infer8_status infer8_model_get_info(const infer8_model *model, infer8_model_info *info);
int infer8_model_num_classes(const infer8_model *model);
/* Label of class index (never NULL: "class_<i>" when the model has no labels). */
const char *infer8_model_label(const infer8_model *model, int index);

/* Human-readable (text) or JSON description of the graph: one entry per layer with name, op,
 * kernel, stride, padding, input and output shape, precision; totals. *out is malloc'ed. */
typedef enum infer8_describe_format { INFER8_DESCRIBE_TEXT = 0, INFER8_DESCRIBE_JSON = 1 } infer8_describe_format;
infer8_status infer8_model_describe(infer8_context *ctx, const infer8_model *model, infer8_describe_format format,
                                    char **out);
void infer8_free(void *p);

/* ---- preprocessing and classification ------------------------------------------------------ */

/* Decodes an encoded image (JPEG, PNG, WebP) and applies the model's eval transform (timm:
 * resize shorter side to floor(size / crop_pct) with Pillow-exact resampling, center crop,
 * normalize). out: float32 [3][H][W] (CHW) of the model's input size. */
infer8_status infer8_preprocess_encoded(infer8_context *ctx, const infer8_model *model, const void *data,
                                        size_t size, float *out);
/* Same from 8-bit RGB pixels, row-major, 3 bytes per pixel, `stride` bytes per row. */
infer8_status infer8_preprocess_rgb8(infer8_context *ctx, const infer8_model *model, const uint8_t *pixels,
                                     int width, int height, size_t stride, float *out);

/* Logits for n encoded images; logits: n * num_classes floats. */
infer8_status infer8_classify_encoded(infer8_context *ctx, infer8_model *model, int n, const void *const *data,
                                      const size_t *sizes, float *logits);
/* Logits for n already-preprocessed images, float32 NCHW [n][3][H][W]. */
infer8_status infer8_classify_tensor(infer8_context *ctx, infer8_model *model, int n, const float *input_nchw,
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

/* ---- tools: synthetic checkpoints ------------------------------------------------------------ */

/* Progress callback for long work: done of total units, a short phase name. */
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

/* Writes a float32 array as a NumPy .npy file (C order), atomically. */
infer8_status infer8_save_npy(infer8_context *ctx, const char *path, const float *data, int ndim,
                              const int64_t *shape);

#ifdef __cplusplus
}
#endif
#endif
