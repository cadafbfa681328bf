/* The infer8 bundle container (docs/bundle-format.md): one file holding an optimized graph,
 * its weights in the build precision, preprocessing config, labels, activation scales and
 * per-GPU tactic records. This module is the byte level: the container (fixed header, section
 * table, 64-byte aligned payloads, XXH3-64 checksums), the graph and tactic section codecs,
 * and SHA-256 of source files for provenance. The API layer (src/api/bundle_api.c) decides
 * what goes in. Every reader bounds-checks before use; messages name the section and check. */
#ifndef I8_FORMATS_BUNDLE_H
#define I8_FORMATS_BUNDLE_H

#include <stddef.h>
#include <stdint.h>

#include "core/i8.h"
#include "graph/graph.h"

#define I8_BUNDLE_MAGIC "\x89I8BNDL\n" /* 8 bytes */
#define I8_BUNDLE_VERSION 1u
#define I8_BUNDLE_HEADER_BYTES 64u
#define I8_BUNDLE_ENTRY_BYTES 64u
#define I8_BUNDLE_ALIGN 64u
#define I8_BUNDLE_MAX_SECTIONS 32
#define I8_BUNDLE_NAME_MAX 24   /* section name, NUL included */

/* Weight storage types in the graph section. */
enum { I8_BUNDLE_F32 = 0, I8_BUNDLE_F16 = 1, I8_BUNDLE_E4M3 = 2 };

typedef struct i8_bundle_section {
    char name[I8_BUNDLE_NAME_MAX];
    uint64_t offset, length, checksum;
    const uint8_t *data;          /* into the parsed buffer (reader) or the payload (writer) */
} i8_bundle_section;

/* A parsed, fully verified container (views into caller-owned bytes). */
typedef struct i8_bundle {
    uint32_t version;
    uint64_t file_size;
    int n_sections;
    i8_bundle_section sections[I8_BUNDLE_MAX_SECTIONS];
} i8_bundle;

/* 1 if data starts with the bundle magic (size >= 8). */
int i8_bundle_has_magic(const void *data, size_t size);
/* 1 if the file at path starts with the bundle magic (regular file, readable). */
int i8_bundle_path_has_magic(const char *path);

/* Verifies the container: magic, version, header checksum, declared file size against size
 * (truncation), section table bounds and checksum, each section's name, alignment, bounds,
 * ordering (no overlap), zero padding and XXH3-64 payload checksum. `name` (file name) prefixes
 * messages. Errors: INFER8_E_FORMAT (bad magic, layout), INFER8_E_UNSUPPORTED (unknown
 * version), INFER8_E_INTEGRITY (checksum, truncation, padding). On success *b views data. */
infer8_status i8_bundle_parse(i8_bundle *b, const uint8_t *data, size_t size, const char *name, i8_err *err);
/* The section named `name`, or NULL. */
const i8_bundle_section *i8_bundle_find(const i8_bundle *b, const char *name);

/* Writer: sections are added in order (payloads borrowed, must outlive the write), then the
 * whole file is written atomically (temporary file, fsync, rename). */
typedef struct i8_bundle_writer {
    int n_sections;
    i8_bundle_section sections[I8_BUNDLE_MAX_SECTIONS];
} i8_bundle_writer;
infer8_status i8_bundle_writer_add(i8_bundle_writer *w, const char *name, const void *data, size_t length,
                                   i8_err *err);
/* Computes offsets and checksums (stored back into w->sections) and writes path. */
infer8_status i8_bundle_writer_write(i8_bundle_writer *w, const char *path, i8_err *err);
/* The size of the file i8_bundle_writer_write would write (offsets stored back, as it does). */
uint64_t i8_bundle_writer_layout(i8_bundle_writer *w);

/* XXH3-64 of data (seed 0). */
uint64_t i8_xxh3_64(const void *data, size_t size);

/* SHA-256 of a whole file as 64 lowercase hex digits + NUL. Errors: INFER8_E_IO. */
infer8_status i8_sha256_file(const char *path, char hex[65], i8_err *err);

/* ---- graph section ("graph") + weights section ("weights") ----
 * Per weight the storage type: F32, F16 (values rounded to binary16), or E4M3 (codes of the
 * node's per-output-channel scales; only lossless ones are chosen by the encoder). */
typedef struct i8_graph_blob {
    uint8_t *graph;               /* malloc'ed "graph" section payload */
    size_t graph_size;
    uint8_t *weights;             /* malloc'ed "weights" section payload */
    size_t weights_size;
} i8_graph_blob;

/* Encodes g. fp16: conv / linear nodes that are FP32 are marked FP16 and every weight except
 * FP8 weight-scale tensors is stored as binary16 (a tensor that would overflow stays F32).
 * Weights of FP8 convs are stored as e4m3 codes + their scales tensor when that reproduces the
 * graph's (dequantized) values bit for bit, else as F32. */
infer8_status i8_bundle_encode_graph(const i8_graph *g, int fp16, i8_graph_blob *out, i8_err *err);
void i8_graph_blob_free(i8_graph_blob *b);

/* Decodes the graph and weights sections into *g (weights converted to float32 in fresh
 * buffers: nothing points into the input bytes). Every count, index, offset and shape is
 * checked, then i8_graph_validate. Errors: INFER8_E_FORMAT naming the section, record and field. */
infer8_status i8_bundle_decode_graph(const uint8_t *graph, size_t graph_size, const uint8_t *weights,
                                     size_t weights_size, i8_graph *g, i8_err *err);

/* ---- tactic records ("tactics.cuda") ----
 * Mirrors i8_cuda_tactic (backends/cuda/cuda_backend.h) without depending on CUDA. */
typedef struct i8_bundle_tactic {
    int32_t kind, variant;
    int64_t engine;
    uint64_t algo[8];
    float ms;
    uint32_t flags;               /* I8_BUNDLE_TACTIC_FLAG_* */
    uint64_t workspace;
} i8_bundle_tactic;
/* Record flags, the same bits as I8_CUDA_TACTIC_FLAG_*: the batch's graph choice was recorded
 * (every record of the set), this node runs on a high-priority stream, the batch's own FP8
 * kernels use programmatic dependent launch, and its sibling 1x1 groups run merged (on the BN
 * 128 kernel with MERGE_WIDE), and its pairs (a 1x1 and its one consumer) run as one kernel
 * (PAIR; session 54), a pair's 1x1 holding its pair variant + 1 in (flags / PAIR_V0) & 15 (1-8;
 * 0: run as two kernels); CHOSEN, PDL, MERGE and PAIR on every record or none.
 * Bundles written before the flags hold 0 there (the choice is then timed again on load). */
#define I8_BUNDLE_TACTIC_FLAG_CHOSEN 1u
#define I8_BUNDLE_TACTIC_FLAG_PRIORITY 2u
#define I8_BUNDLE_TACTIC_FLAG_PDL 4u
#define I8_BUNDLE_TACTIC_FLAG_MERGE 8u
#define I8_BUNDLE_TACTIC_FLAG_MERGE_WIDE 16u
#define I8_BUNDLE_TACTIC_FLAG_PAIR 32u
#define I8_BUNDLE_TACTIC_FLAG_PAIR_V0 64u /* four bits: the pair variant + 1, 0-8 (9-15 are refused) */
#define I8_BUNDLE_PAIR_VARIANTS 8
#define I8_BUNDLE_TACTIC_FLAGS_KNOWN                                                                          \
    (I8_BUNDLE_TACTIC_FLAG_CHOSEN | I8_BUNDLE_TACTIC_FLAG_PRIORITY | I8_BUNDLE_TACTIC_FLAG_PDL |                \
     I8_BUNDLE_TACTIC_FLAG_MERGE | I8_BUNDLE_TACTIC_FLAG_MERGE_WIDE | I8_BUNDLE_TACTIC_FLAG_PAIR |               \
     I8_BUNDLE_TACTIC_FLAG_PAIR_V0 * 15u)

typedef struct i8_bundle_tactic_set {
    char gpu[128];                /* GPU name it was tuned on ("NVIDIA H200") */
    int batch;
    int n_nodes;
    i8_bundle_tactic *tactics;    /* n_nodes, malloc'ed */
} i8_bundle_tactic_set;

infer8_status i8_bundle_encode_tactics(const i8_bundle_tactic_set *sets, int n_sets, uint8_t **out, size_t *size,
                                       i8_err *err);
/* Kinds of i8_cuda_tactic_kind a record may hold: 0 (not a conv) .. I8_BUNDLE_TACTIC_KIND_MAX
 * (I8_CUDA_TACTIC_FP8_DNN); FP8 bundles built with --device cuda store the FP8 kinds 4..6. */
#define I8_BUNDLE_TACTIC_KIND_MAX 6
/* Decodes and checks (n_nodes must equal expect_nodes, kinds 0..I8_BUNDLE_TACTIC_KIND_MAX,
 * batch >= 1). *sets malloc'ed. */
infer8_status i8_bundle_decode_tactics(const uint8_t *data, size_t size, int expect_nodes, i8_bundle_tactic_set **sets,
                                       int *n_sets, i8_err *err);
void i8_bundle_tactics_free(i8_bundle_tactic_set *sets, int n_sets);

/* ---- labels ("labels"): u32 count, then count NUL-terminated UTF-8 strings ---- */
infer8_status i8_bundle_encode_labels(const char *const *labels, int n, uint8_t **out, size_t *size, i8_err *err);
/* Exactly consumes the section; each label <= 1024 bytes. *labels malloc'ed (array + strings). */
infer8_status i8_bundle_decode_labels(const uint8_t *data, size_t size, char ***labels, int *n, i8_err *err);

#endif
