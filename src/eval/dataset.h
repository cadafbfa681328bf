/* Evaluation datasets for the FP8 study: image folders (ImageFolder layout, or flat with an
 * optional labels.txt), list files, and webdataset tar shards read in place through libarchive
 * (never unpacked). Iteration is streaming and deterministic: a sample's `index` is its position
 * in the dataset order, the subset is "take N every K" over those positions, and the first
 * `calib` samples of the subset form the calibration split (the rest are held out).
 * Corrupt data (unreadable file, truncated tar, oversized member, bad .cls, undecodable image)
 * is reported, counted and skipped; it never ends the iteration with an error.
 * Tar shards follow the webdataset convention: the members of one sample are consecutive.
 * Not here: preprocessing (image/image.h) and inference. */
#ifndef I8_EVAL_DATASET_H
#define I8_EVAL_DATASET_H

#include <stddef.h>
#include <stdint.h>

#include "core/i8.h"
#include "image/image.h"

#define I8_DATASET_DEFAULT_MAX_MEMBER (64ull << 20)  /* bytes of one image file or tar member */
#define I8_DATASET_MAX_PATH 4096                     /* bytes of a path, member name or key */
#define I8_DATASET_MAX_LABEL 1000000                 /* labels must be < this when num_classes = 0 */
#define I8_DATASET_MAX_SHARDS 100000                 /* shards after brace expansion */
#define I8_DATASET_MAX_ENTRIES 50000000              /* images of a folder or list layout */
#define I8_DATASET_MAX_KEPT_ISSUES 256               /* issue messages kept on the handle */

typedef enum i8_dataset_layout {
    I8_DATASET_AUTO = 0,        /* folder: FLAT if it holds image files, else IMAGEFOLDER;
                                 * file: TAR if the name ends in .tar (or has '{' or ','), else LIST */
    I8_DATASET_IMAGEFOLDER,     /* one sub-folder per class; sorted folder names = label 0, 1, ... */
    I8_DATASET_FLAT,            /* images in one folder; labels.txt lines "file label" (optional) */
    I8_DATASET_LIST,            /* text file, lines "path [label]"; relative paths from its folder */
    I8_DATASET_TAR              /* webdataset shards: members KEY.jpg|jpeg|png|webp and KEY.cls */
} i8_dataset_layout;

/* Called once per issue (corrupt or skipped data) with a message naming the file, member or
 * line at fault. */
typedef void (*i8_dataset_issue_fn)(void *user, const char *message);

/* Zero-initialise, then set what differs from the defaults (all zero = every sample, labels
 * < I8_DATASET_MAX_LABEL, members up to 64 MiB, no decoding, issues only kept on the handle). */
typedef struct i8_dataset_options {
    i8_dataset_layout layout;   /* AUTO (0) detects it */
    uint64_t take;              /* at most this many samples (0 = all) */
    uint64_t every;             /* sample positions 0, K, 2K, ... (0 or 1 = all) */
    uint64_t calib;             /* the first `calib` samples of the subset are calibration */
    uint64_t max_member_bytes;  /* 0 = I8_DATASET_DEFAULT_MAX_MEMBER; checked before reading */
    int num_classes;            /* > 0: labels must be in [0, num_classes) */
    int decode;                 /* 1: decode each image (i8_image_decode); failures skip it */
    const i8_limits *limits;    /* image decode limits (NULL = defaults) */
    i8_dataset_issue_fn on_issue;
    void *user;
} i8_dataset_options;

/* One yielded sample. Every pointer is owned by the dataset and valid until the next call to
 * i8_dataset_next / rewind / close. */
typedef struct i8_sample {
    const char *key;            /* folders/lists: relative path without extension;
                                 * tar: member path up to the first dot of its file name */
    const char *source;         /* the file (or tar shard) it came from */
    const uint8_t *data;        /* encoded image bytes */
    size_t size;
    int label;                  /* -1 when the layout gives none */
    char format;                /* from the magic bytes: 'j' JPEG, 'p' PNG, 'w' WebP, '?' other */
    uint64_t index;             /* position in the whole dataset order */
    uint64_t subset_index;      /* position in the take/every subset */
    int calib;                  /* 1: subset_index < options.calib */
    const i8_image *image;      /* decoded pixels when options.decode, else NULL */
} i8_sample;

typedef struct i8_dataset_stats {
    uint64_t seen;              /* sample positions passed (selected or not) */
    uint64_t selected;          /* positions chosen by take/every */
    uint64_t yielded;           /* samples returned by i8_dataset_next */
    uint64_t yielded_calib;     /* of which in the calibration split */
    uint64_t skipped;           /* selected but unusable (corrupt, too large, bad label, no image) */
    uint64_t bad_shards;        /* tar shards that ended in an error (truncated, unreadable) */
    uint64_t issues;            /* messages reported (kept: the first I8_DATASET_MAX_KEPT_ISSUES) */
} i8_dataset_stats;

typedef struct i8_dataset i8_dataset;

/* Opens SRC (see i8_dataset_layout). Tar sources: comma-separated shard names, each with brace
 * groups expanded by i8_dataset_expand. Folder and list layouts are listed now (a bad
 * labels.txt or list line is an issue, not an error); every tar shard must exist. Errors:
 * INFER8_E_IO (SRC or a shard missing), INFER8_E_INVALID_ARGUMENT (bad options or pattern),
 * INFER8_E_LIMIT (too many shards or entries), INFER8_E_FORMAT (a folder with no images).
 * *out is set only on success; free it with i8_dataset_close. */
infer8_status i8_dataset_open(i8_dataset **out, const char *src, const i8_dataset_options *options, i8_err *err);
/* Fills *sample with the next selected, readable sample and sets *has = 1; *has = 0 at the end
 * (all samples passed, or `take` reached: the rest is never read). Errors only for allocation
 * failure (INFER8_E_NOMEM); data problems are issues. */
infer8_status i8_dataset_next(i8_dataset *ds, i8_sample *sample, int *has, i8_err *err);
/* Starts again from the first sample. Stats and kept issue messages are reset, so after a full
 * pass they describe that pass alone; on_issue is not called again for issues an earlier pass
 * already reported (the passes meet the same issues in the same order). */
infer8_status i8_dataset_rewind(i8_dataset *ds, i8_err *err);
void i8_dataset_close(i8_dataset *ds);

i8_dataset_layout i8_dataset_get_layout(const i8_dataset *ds);
const i8_dataset_stats *i8_dataset_get_stats(const i8_dataset *ds);
/* Issue message i (0 <= i < min(stats.issues, I8_DATASET_MAX_KEPT_ISSUES)), else NULL. */
const char *i8_dataset_issue(const i8_dataset *ds, size_t i);
/* IMAGEFOLDER: the class folder name of a label; NULL otherwise or when out of range. */
const char *i8_dataset_class_name(const i8_dataset *ds, int label);
int i8_dataset_class_count(const i8_dataset *ds);
/* Shards of a TAR dataset, in order (NULL when out of range). */
size_t i8_dataset_shard_count(const i8_dataset *ds);
const char *i8_dataset_shard(const i8_dataset *ds, size_t i);

/* Folder and list layouts: the image files listed at open, in dataset order (paths as opened:
 * "folder/name", "folder/class/name", or a list's path joined to its folder); 0 and NULL for TAR
 * and past the end. */
size_t i8_dataset_entry_count(const i8_dataset *ds);
const char *i8_dataset_entry_path(const i8_dataset *ds, size_t i);

/* Expands a shard pattern: commas outside braces separate names; "{A..B}" is a decimal range
 * (zero-padded to the width of A when A has a leading zero or A and B have equal widths;
 * A <= B), "{x,y}" alternatives; several groups multiply. *names (malloc'ed array of malloc'ed
 * strings, free with i8_dataset_free_names) and *count on success. Unbalanced braces, empty
 * names, A > B or non-numeric ranges -> INFER8_E_INVALID_ARGUMENT; more than max_names (0 =
 * I8_DATASET_MAX_SHARDS) -> INFER8_E_LIMIT. */
infer8_status i8_dataset_expand(const char *pattern, size_t max_names, char ***names, size_t *count, i8_err *err);
void i8_dataset_free_names(char **names, size_t count);

/* 'j', 'p', 'w' from the first bytes of an encoded image; '?' when none matches. */
char i8_image_format_of(const uint8_t *data, size_t size);

#endif
