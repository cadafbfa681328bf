/* safetensors reader (read-only, memory-mapped), single file or sharded snapshot.
 *
 * Every header field is checked before use: the 8-byte little-endian header length against
 * the file size and the JSON limit, the header is strict JSON (cJSON) whose entries each have
 * "dtype" (F32, F16, BF16, I64, ... known names), "shape" (non-negative integers, rank <= 8,
 * element count without overflow) and "data_offsets" [begin, end] with begin <= end, end
 * within the data area, end - begin == elements * dtype size, and no two tensors overlapping.
 * "__metadata__" is ignored. Duplicate keys are refused. Errors name the file and the key or
 * byte offset at fault. */
#ifndef I8_SAFETENSORS_H
#define I8_SAFETENSORS_H

#include "core/i8.h"

typedef enum i8_dtype {
    I8_DTYPE_F32 = 0, I8_DTYPE_F16, I8_DTYPE_BF16, I8_DTYPE_F64,
    I8_DTYPE_I64, I8_DTYPE_I32, I8_DTYPE_I16, I8_DTYPE_I8, I8_DTYPE_U8, I8_DTYPE_BOOL,
    I8_DTYPE_F8_E4M3, I8_DTYPE_F8_E5M2,
    I8_DTYPE_COUNT
} i8_dtype;

const char *i8_dtype_name(i8_dtype d);   /* safetensors spelling: "F32" ... */
size_t i8_dtype_size(i8_dtype d);
/* "F32" -> I8_DTYPE_F32 etc.; returns 1 if known, 0 otherwise (*out untouched). */
int i8_dtype_from_name(const char *name, i8_dtype *out);

#define I8_ST_MAX_RANK 8

typedef struct i8_st_tensor {
    char *name;
    i8_dtype dtype;
    int ndim;
    int64_t shape[I8_ST_MAX_RANK];
    uint64_t nbytes;
    const uint8_t *data;       /* into the mapping */
    uint64_t file_offset;      /* absolute byte offset of data in its file */
    int file_index;            /* which shard */
} i8_st_tensor;

typedef struct i8_safetensors {
    int n_files;
    i8_mapped_file *files;
    int n_tensors;
    i8_st_tensor *tensors;     /* sorted by name for lookup */
} i8_safetensors;

/* Opens one .safetensors file (limits NULL = i8_limits_default). On success *st owns the
 * mapping and the tensor table (close with i8_st_close); on failure *st is untouched.
 * Errors: INFER8_E_IO (open/map), INFER8_E_LIMIT (header above max_json_bytes, more than
 * max_tensors tensors), INFER8_E_UNSUPPORTED (unknown dtype, rank > 8), INFER8_E_FORMAT
 * (everything else). Shape and offset numbers must be exact integers below 2^53. Gaps in the
 * data area are allowed; empty tensors may share an offset; "__metadata__" is not checked. */
infer8_status i8_st_open(i8_safetensors *st, const char *path, const i8_limits *limits, i8_err *err);
/* Opens a sharded checkpoint from model.safetensors.index.json ("weight_map": key -> shard
 * file, shards resolved next to the index; every mapped key must be in its shard). Shard names
 * must be plain file names (no '/', '\\', ".."); each distinct shard is mapped once
 * (st->files[i], tensors' file_index) and the tables are merged: the result holds every tensor
 * of every shard. Errors as i8_st_open, plus INFER8_E_MISSING_KEY (a mapped key absent from
 * its shard) and INFER8_E_FORMAT (a key in two shards, bad index JSON). */
infer8_status i8_st_open_index(i8_safetensors *st, const char *index_path, const i8_limits *limits, i8_err *err);
void i8_st_close(i8_safetensors *st);

/* Element count (product of shape; 1 for rank 0), already overflow-checked by the reader. */
uint64_t i8_st_nelems(const i8_st_tensor *t);

/* NULL if absent. */
const i8_st_tensor *i8_st_find(const i8_safetensors *st, const char *name);

/* Converts a floating tensor (F32, F16, BF16, F64) to a new float32 array of i8_st_nelems(t)
 * elements (malloc'ed, caller frees); other dtypes: INFER8_E_SHAPE "dtype X not a float type".
 * Handles unaligned data. */
infer8_status i8_st_to_f32(const i8_st_tensor *t, float **out, i8_err *err);

/* Writer: tensors given in order; header entries sorted by name (byte order) in the compact
 * JSON the Python library writes ({"dtype":..,"shape":..,"data_offsets":..}); metadata_json
 * (NULL or a JSON object of strings) becomes "__metadata__", first, keys sorted; header padded
 * with spaces to a multiple of 8; data areas in the given order; written atomically (nothing
 * left behind on failure). Same input, same bytes. Errors: INFER8_E_INVALID_ARGUMENT (empty,
 * duplicate or non-UTF-8 name, bad dtype/rank/shape, bad metadata), INFER8_E_IO. */
typedef struct i8_st_write_entry {
    const char *name;
    i8_dtype dtype;
    int ndim;
    const int64_t *shape;
    const void *data;          /* nbytes = prod(shape) * dtype size */
} i8_st_write_entry;
infer8_status i8_st_write(const char *path, const i8_st_write_entry *entries, int n, const char *metadata_json,
                          i8_err *err);

#endif
