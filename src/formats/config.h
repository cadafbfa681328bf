/* Hugging Face timm config.json: architecture, classes, pretrained_cfg (preprocessing) and
 * optional label_names. Parsed with cJSON; every field is type-checked and errors name the
 * file and key ("config.json: pretrained_cfg.crop_pct: expected a number in (0, 1], found string"). */
#ifndef I8_CONFIG_H
#define I8_CONFIG_H

#include "core/i8.h"

typedef enum i8_interp { I8_INTERP_BICUBIC = 0, I8_INTERP_BILINEAR = 1 } i8_interp;

typedef struct i8_preproc {
    int input_size[3];         /* C, H, W */
    float crop_pct;
    i8_interp interpolation;
    float mean[3], std[3];
} i8_preproc;

typedef struct i8_model_config {
    char architecture[64];
    char tag[64];              /* pretrained_cfg.tag, "" if absent */
    int num_classes;
    int num_features;          /* 0 if absent */
    i8_preproc pre;
    int n_labels;              /* 0 if no label_names */
    char **labels;             /* n_labels strings, owned */
} i8_model_config;

/* Parses config.json text (size bytes, not necessarily NUL-terminated); `name` is used in
 * messages. Missing optional fields take the family defaults the caller passes in *cfg
 * (memset 0 + defaults). num_classes: top level, else pretrained_cfg.num_classes, else the
 * pre-filled value; 1..100000. input_size [3, 75..4096, 75..4096]; crop_pct in (0, 1]; mean/std
 * 3 finite numbers (std > 0); label_names exactly num_classes UTF-8 strings <= 1024 bytes.
 * Unknown keys are ignored. On success labels from label_names replace (and free) those *cfg
 * held; on failure *cfg is untouched. Errors: INFER8_E_FORMAT (bad JSON with its byte offset,
 * wrong type or range, naming the dotted key), INFER8_E_MISSING_KEY (no architecture),
 * INFER8_E_UNSUPPORTED (interpolation other than bicubic/bilinear, crop_mode other than center). */
infer8_status i8_config_parse(i8_model_config *cfg, const char *text, size_t size, const char *name, i8_err *err);
/* Reads path (at most limits->max_json_bytes; limits NULL = defaults) and parses it, messages
 * naming path. */
infer8_status i8_config_load(i8_model_config *cfg, const char *path, const i8_limits *limits, i8_err *err);
/* Frees the labels and sets n_labels 0; the rest of *cfg stays valid. */
void i8_config_free(i8_model_config *cfg);
/* Writes config.json as timm's push_to_hub does (architecture, num_classes, num_features if
 * > 0, pretrained_cfg with tag if set, first_conv/classifier if not NULL, label_names if
 * n_labels > 0), laid out as Python's json.dumps(indent=2) (ensure_ascii escaping, floats as
 * their shortest float32 repr: 0.8975). *out is malloc'ed; caller frees. */
infer8_status i8_config_to_json(const i8_model_config *cfg, const char *first_conv, const char *classifier,
                                char **out, i8_err *err);

/* .npy (version 1.0, '<f4', C order) writer, atomic; byte-identical to numpy's np.save
 * (data starts at a multiple of 64). ndim 0..8. */
infer8_status i8_npy_write_f32(const char *path, const float *data, int ndim, const int64_t *shape, i8_err *err);
/* .npy reader for '<f4' C-order arrays, versions 1.0 and 2.0 (bounds-checked; data size must
 * equal the file's remainder); *data malloc'ed (caller frees), shape[0..*ndim). Other
 * dtypes, Fortran order, version 3: INFER8_E_UNSUPPORTED; malformed: INFER8_E_FORMAT. */
infer8_status i8_npy_read_f32(const char *path, float **data, int *ndim, int64_t shape[8], i8_err *err);

#endif
