/* FP8 scales: per-output-channel weight scales (amax / 448 of each output channel of a conv
 * kernel [O][I][kh][kw]) and the scales.json file that stores calibrated activation scales:
 *
 *   {"format": "infer8-scales", "version": 1, "method": "max"|"percentile"|"entropy"|"mse",
 *    "percentile": 99.99 or null, "images": N,
 *    "tensors": {"<tensor name>": {"amax": x, "scale": s}, ...}}
 *
 * amax and scale are float32 values written with "%.9g" (which round-trips every float), so
 * reading back gives the same bits. */
#ifndef I8_QUANT_SCALES_H
#define I8_QUANT_SCALES_H

#include "core/i8.h"

/* For each output channel o < out_channels of a float32 weight laid out [O][per_channel]
 * (per_channel = I*kh*kw): amax[o] = max |w| over the channel and scales[o] =
 * i8_fp8_scale_from_amax(amax[o]) (amax / 448; 1.0f for an all-zero channel). amax may be NULL.
 * `name` (may be NULL) is used in messages. Errors: INFER8_E_FORMAT when a weight is NaN or
 * infinite (message names the tensor, channel and element), INFER8_E_INVALID_ARGUMENT for
 * per_channel == 0 or a size overflow. Outputs are written only on success. */
infer8_status i8_fp8_weight_scales(const float *w, size_t out_channels, size_t per_channel, const char *name,
                                   float *amax, float *scales, i8_err *err);

/* q[o][k] = i8_fp8_from_f32(w[o][k] * (1.0f / scales[o])) for the layout above.
 * Errors: INFER8_E_INVALID_ARGUMENT when a scale is not a positive normal finite float (names
 * the channel); q is then untouched. */
infer8_status i8_fp8_quantize_weights(const float *w, size_t out_channels, size_t per_channel,
                                      const float *scales, uint8_t *q, i8_err *err);

/* ---- scales.json ---- */

typedef struct i8_scale_entry {
    char *name;     /* owned */
    float amax;     /* >= 0, finite */
    float scale;    /* > 0, finite */
} i8_scale_entry;

typedef struct i8_scales {
    char method[16];      /* "max", "percentile", "entropy" or "mse" */
    double percentile;    /* meaningful when method is "percentile"; written as null otherwise */
    uint64_t images;      /* calibration images used */
    size_t count;
    i8_scale_entry *tensors;  /* count entries, owned; names unique */
} i8_scales;

/* Empties s (frees names and the array) and leaves it ready for reuse. */
void i8_scales_free(i8_scales *s);
/* Appends (a copy of) name with amax and scale. Errors: INFER8_E_INVALID_ARGUMENT for a NULL or
 * empty name, a duplicate name, amax not finite or negative, scale not finite and positive;
 * INFER8_E_NOMEM. s is unchanged on failure. */
infer8_status i8_scales_add(i8_scales *s, const char *name, float amax, float scale, i8_err *err);
/* The entry named `name`, or NULL. */
const i8_scale_entry *i8_scales_find(const i8_scales *s, const char *name);

/* Writes s as scales.json to path (atomically). Errors: INFER8_E_INVALID_ARGUMENT for an
 * unknown method, a percentile outside [0, 100] or a bad entry; INFER8_E_IO; INFER8_E_NOMEM. */
infer8_status i8_scales_write(const char *path, const i8_scales *s, i8_err *err);
/* Parses scales.json text (size bytes, need not be NUL-terminated); `name` is used in messages.
 * Every key is type- and range-checked; messages name the key ("scales.json: tensors.\"a.b\".scale:
 * expected a positive finite number"). On success *out (which must be empty or zeroed) owns the
 * result; on failure it is untouched. Errors: INFER8_E_FORMAT, INFER8_E_MISSING_KEY,
 * INFER8_E_UNSUPPORTED (other version), INFER8_E_LIMIT (more than limits->max_tensors entries),
 * INFER8_E_NOMEM. limits may be NULL (defaults). */
infer8_status i8_scales_parse(const char *text, size_t size, const char *name, const i8_limits *limits,
                              i8_scales *out, i8_err *err);
/* Reads and parses path (size capped by limits->max_json_bytes). */
infer8_status i8_scales_read(const char *path, const i8_limits *limits, i8_scales *out, i8_err *err);

#endif
