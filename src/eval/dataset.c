/* Evaluation datasets (dataset.h): folder and list layouts are listed at open (paths only, read
 * one at a time while iterating); webdataset tar shards are streamed through libarchive, one
 * sample (the consecutive members sharing a key) at a time, never unpacked to disk.
 * Every outside value (member size, name length, label, line length) is checked before use. */
#include "eval/dataset.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#include <archive.h>
#include <archive_entry.h>

#include "core/text.h"

#define MAX_LIST_BYTES (256ull << 20)  /* labels.txt or a list file */
#define MAX_CLS_BYTES 64               /* a .cls member: an ASCII integer and maybe a newline */

typedef struct entry {
    char *path;     /* file to read */
    char *key;      /* relative path without extension */
    int label;      /* -1 = none */
    int label_bad;  /* the layout gave a label that failed the checks (reported when selected) */
} entry;

struct i8_dataset {
    i8_dataset_layout layout;
    i8_dataset_options opt;
    i8_limits limits;
    char *src;
    i8_dataset_stats stats;
    char *kept[I8_DATASET_MAX_KEPT_ISSUES];
    size_t nkept;
    uint64_t told_issues;           /* issues passed to on_issue so far, over all passes */
    int ended;
    /* folder and list layouts */
    entry *entries;
    size_t nentries, pos;
    char **classes;
    int nclasses;
    /* tar layout */
    char **shards;
    size_t nshards, shard;
    struct archive *ar;
    int shard_dead;                 /* the open shard failed: finish the group, then move on */
    struct archive_entry *pending;  /* header read whose member starts the next group */
    int in_group;                   /* a group (cur_*) is being collected */
    char *cur_key;
    size_t cur_shard;               /* the shard the current group's members came from */
    uint64_t cur_index;
    int cur_selected, cur_bad, cur_has_cls, cur_label;
    /* the sample handed out last (freed at the next call) */
    uint8_t *data;
    size_t size;
    char *key;
    i8_image image;
};

/* ---- small helpers ---- */

static void issue(i8_dataset *ds, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void issue(i8_dataset *ds, const char *fmt, ...) {
    char raw[1200], msg[1300];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(raw, sizeof raw, fmt, ap);
    va_end(ap);
    /* names from list files and tar headers are untrusted: control bytes shown escaped */
    i8_text_show(raw, msg, sizeof msg);
    /* after a rewind the same issues come again in the same order: told once, counted once */
    if (ds->opt.on_issue && ds->stats.issues >= ds->told_issues) ds->opt.on_issue(ds->opt.user, msg);
    ds->stats.issues++;
    if (ds->stats.issues > ds->told_issues) ds->told_issues = ds->stats.issues;
    if (ds->nkept < I8_DATASET_MAX_KEPT_ISSUES) {
        char *copy = strdup(msg);
        if (copy) ds->kept[ds->nkept++] = copy;  /* a lost copy only shortens the kept list */
    }
}

static int is_image_ext(const char *ext) {
    return strcasecmp(ext, "jpg") == 0 || strcasecmp(ext, "jpeg") == 0 || strcasecmp(ext, "png") == 0 ||
           strcasecmp(ext, "webp") == 0;
}

/* Extension of a file name (after its last dot), "" when none. */
static const char *last_ext(const char *name) {
    const char *slash = strrchr(name, '/');
    const char *base = slash ? slash + 1 : name;
    const char *dot = strrchr(base, '.');
    return (dot && dot != base) ? dot + 1 : "";
}

/* ASCII decimal label (surrounding whitespace allowed) below the bound; 1 if valid. */
static int parse_label(const char *s, size_t n, int bound, int *out) {
    size_t i = 0;
    while (i < n && isspace((unsigned char)s[i])) i++;
    size_t start = i;
    long long v = 0;
    while (i < n && s[i] >= '0' && s[i] <= '9') {
        v = v * 10 + (s[i] - '0');
        if (v >= bound) return 0;
        i++;
    }
    if (i == start) return 0;
    while (i < n && isspace((unsigned char)s[i])) i++;
    if (i != n) return 0;
    *out = (int)v;
    return 1;
}

static int label_bound(const i8_dataset *ds) {
    return ds->opt.num_classes > 0 ? ds->opt.num_classes : I8_DATASET_MAX_LABEL;
}

char i8_image_format_of(const uint8_t *d, size_t n) {
    if (n >= 3 && d[0] == 0xFF && d[1] == 0xD8 && d[2] == 0xFF) return 'j';
    if (n >= 8 && memcmp(d, "\x89PNG\r\n\x1a\n", 8) == 0) return 'p';
    if (n >= 12 && memcmp(d, "RIFF", 4) == 0 && memcmp(d + 8, "WEBP", 4) == 0) return 'w';
    return '?';
}

/* ---- brace expansion ---- */

typedef struct strlist {
    char **v;
    size_t n, cap, max;
} strlist;

static infer8_status strlist_push(strlist *l, char *s, i8_err *err) {
    if (!s) return err ? err->code : INFER8_E_NOMEM;
    if (l->n >= l->max) {
        free(s);
        return i8_fail(err, INFER8_E_LIMIT, "shard pattern expands to more than %zu names", l->max);
    }
    if (l->n == l->cap) {
        size_t cap = l->cap ? l->cap * 2 : 16;
        char **v = i8_realloc(l->v, cap * sizeof *v, err);
        if (!v) {
            free(s);
            return INFER8_E_NOMEM;
        }
        l->v = v;
        l->cap = cap;
    }
    l->v[l->n++] = s;
    return INFER8_OK;
}

static char *concat3(const char *a, size_t na, const char *b, size_t nb, const char *c, i8_err *err) {
    size_t nc = strlen(c), t1, t2;
    if (!i8_add_size(na, nb, &t1) || !i8_add_size(t1, nc + 1, &t2)) {
        i8_fail(err, INFER8_E_LIMIT, "shard name too long");
        return NULL;
    }
    char *s = i8_malloc(t2, err);
    if (!s) return NULL;
    memcpy(s, a, na);
    memcpy(s + na, b, nb);
    memcpy(s + na + nb, c, nc + 1);
    return s;
}

static int all_digits(const char *s, size_t n) {
    if (n == 0 || n > 18) return 0;
    for (size_t i = 0; i < n; i++)
        if (s[i] < '0' || s[i] > '9') return 0;
    return 1;
}

/* Expands the brace groups of one comma-free-at-top-level name into l. */
static infer8_status expand_name(const char *name, strlist *l, const char *whole, i8_err *err) {
    const char *open = strchr(name, '{');
    const char *stray = strchr(name, '}');
    if (!open) {
        if (stray) return i8_fail(err, INFER8_E_INVALID_ARGUMENT, "shard pattern '%s': unbalanced '}'", whole);
        if (!*name) return i8_fail(err, INFER8_E_INVALID_ARGUMENT, "shard pattern '%s': empty name", whole);
        return strlist_push(l, i8_strdup(name, err), err);
    }
    const char *close = strchr(open, '}');
    const char *inner_open = strchr(open + 1, '{');
    if (!close || (stray && stray < open) || (inner_open && inner_open < close))
        return i8_fail(err, INFER8_E_INVALID_ARGUMENT, "shard pattern '%s': unbalanced or nested braces", whole);
    const char *body = open + 1;
    size_t nbody = (size_t)(close - body);
    size_t nprefix = (size_t)(open - name);
    const char *dots = NULL;
    for (size_t i = 0; i + 1 < nbody; i++)
        if (body[i] == '.' && body[i + 1] == '.') {
            dots = body + i;
            break;
        }
    infer8_status st = INFER8_OK;
    if (dots) {
        size_t na = (size_t)(dots - body), nb = nbody - na - 2;
        const char *b = dots + 2;
        if (!all_digits(body, na) || !all_digits(b, nb))
            return i8_fail(err, INFER8_E_INVALID_ARGUMENT, "shard pattern '%s': range {%.*s} is not A..B with decimal A, B",
                           whole, (int)nbody, body);
        unsigned long long va = strtoull(body, NULL, 10), vb = strtoull(b, NULL, 10);
        if (va > vb)
            return i8_fail(err, INFER8_E_INVALID_ARGUMENT, "shard pattern '%s': range {%.*s} is decreasing", whole,
                           (int)nbody, body);
        if (vb - va >= l->max - l->n)
            return i8_fail(err, INFER8_E_LIMIT, "shard pattern '%s' expands to more than %zu names", whole, l->max);
        int pad = (body[0] == '0' && na > 1) || (b[0] == '0' && nb > 1);
        int width = pad ? (int)(na > nb ? na : nb) : 0;
        for (unsigned long long v = va; v <= vb && st == INFER8_OK; v++) {
            char num[32];
            int nn = snprintf(num, sizeof num, "%0*llu", width, v);
            char *sub = concat3(name, nprefix, num, (size_t)nn, close + 1, err);
            if (!sub) return err ? err->code : INFER8_E_NOMEM;
            st = expand_name(sub, l, whole, err);
            free(sub);
        }
        return st;
    }
    const char *p = body;
    for (;;) {
        const char *comma = memchr(p, ',', (size_t)(close - p));
        const char *end = comma ? comma : close;
        char *sub = concat3(name, nprefix, p, (size_t)(end - p), close + 1, err);
        if (!sub) return err ? err->code : INFER8_E_NOMEM;
        st = expand_name(sub, l, whole, err);
        free(sub);
        if (st != INFER8_OK || !comma) return st;
        p = comma + 1;
    }
}

void i8_dataset_free_names(char **names, size_t count) {
    if (!names) return;
    for (size_t i = 0; i < count; i++) free(names[i]);
    free(names);
}

infer8_status i8_dataset_expand(const char *pattern, size_t max_names, char ***names, size_t *count, i8_err *err) {
    if (!pattern || !*pattern) return i8_fail(err, INFER8_E_INVALID_ARGUMENT, "empty shard pattern");
    if (strlen(pattern) > I8_DATASET_MAX_PATH)
        return i8_fail(err, INFER8_E_LIMIT, "shard pattern longer than %d bytes", I8_DATASET_MAX_PATH);
    strlist l = {NULL, 0, 0, max_names ? max_names : I8_DATASET_MAX_SHARDS};
    char *copy = i8_strdup(pattern, err);
    if (!copy) return INFER8_E_NOMEM;
    infer8_status st = INFER8_OK;
    int depth = 0;
    char *start = copy;
    for (char *p = copy;; p++) {
        if (*p == '{') depth++;
        if (*p == '}') depth--;
        if ((*p == ',' && depth == 0) || *p == 0) {
            char c = *p;
            *p = 0;
            st = expand_name(start, &l, pattern, err);
            if (st != INFER8_OK || c == 0) break;
            start = p + 1;
        }
    }
    free(copy);
    if (st != INFER8_OK) {
        i8_dataset_free_names(l.v, l.n);
        return st;
    }
    *names = l.v;
    *count = l.n;
    return INFER8_OK;
}

/* ---- folder and list layouts ---- */

static int cmp_str(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }
static int cmp_entry_key(const void *a, const void *b) {
    return strcmp(((const entry *)a)->path, ((const entry *)b)->path);
}

static char *join_path(const char *a, const char *b, i8_err *err) {
    size_t n = strlen(a) + strlen(b) + 2;
    if (n > I8_DATASET_MAX_PATH) {
        i8_fail(err, INFER8_E_LIMIT, "%s/%s: path longer than %d bytes", a, b, I8_DATASET_MAX_PATH);
        return NULL;
    }
    char *s = i8_malloc(n, err);
    if (s) snprintf(s, n, "%s/%s", a, b);
    return s;
}

/* Sorted names in dir (hidden names skipped) that are folders (want_dirs) or image files. */
static infer8_status list_dir(const char *dir, int want_dirs, char ***out, size_t *count, i8_err *err) {
    DIR *d = opendir(dir);
    if (!d) return i8_fail(err, INFER8_E_IO, "%s: cannot open folder: %s", dir, strerror(errno));
    strlist l = {NULL, 0, 0, I8_DATASET_MAX_ENTRIES};
    infer8_status st = INFER8_OK;
    struct dirent *de;
    while (st == INFER8_OK && (de = readdir(d)) != NULL) {
        if (de->d_name[0] == '.') continue;
        char *full = join_path(dir, de->d_name, err);
        if (!full) {
            st = err ? err->code : INFER8_E_NOMEM;
            break;
        }
        struct stat sb;
        int ok = stat(full, &sb) == 0 &&
                 (want_dirs ? S_ISDIR(sb.st_mode) : (S_ISREG(sb.st_mode) && is_image_ext(last_ext(de->d_name))));
        free(full);
        if (ok) st = strlist_push(&l, i8_strdup(de->d_name, err), err);
    }
    closedir(d);
    if (st != INFER8_OK) {
        i8_dataset_free_names(l.v, l.n);
        return st;
    }
    if (l.n) qsort(l.v, l.n, sizeof *l.v, cmp_str);
    *out = l.v;
    *count = l.n;
    return INFER8_OK;
}

/* Key = relative path without the extension of its file name. */
static char *key_of(const char *rel, i8_err *err) {
    char *k = i8_strdup(rel, err);
    if (!k) return NULL;
    const char *ext = last_ext(k);
    if (*ext) k[ext - k - 1] = 0;
    return k;
}

static infer8_status add_entry(i8_dataset *ds, size_t *cap, char *path, const char *rel, int label, i8_err *err) {
    if (!path) return err ? err->code : INFER8_E_NOMEM;
    if (ds->nentries >= I8_DATASET_MAX_ENTRIES) {
        free(path);
        return i8_fail(err, INFER8_E_LIMIT, "%s: more than %d images", ds->src, I8_DATASET_MAX_ENTRIES);
    }
    if (ds->nentries == *cap) {
        size_t nc = *cap ? *cap * 2 : 64;
        entry *e = i8_realloc(ds->entries, nc * sizeof *e, err);
        if (!e) {
            free(path);
            return INFER8_E_NOMEM;
        }
        ds->entries = e;
        *cap = nc;
    }
    char *key = key_of(rel, err);
    if (!key) {
        free(path);
        return INFER8_E_NOMEM;
    }
    ds->entries[ds->nentries++] = (entry){path, key, label, 0};
    return INFER8_OK;
}

static infer8_status open_imagefolder(i8_dataset *ds, i8_err *err) {
    size_t ncls = 0, cap = 0;
    infer8_status st = list_dir(ds->src, 1, &ds->classes, &ncls, err);
    if (st != INFER8_OK) return st;
    ds->nclasses = (int)ncls;  /* <= I8_DATASET_MAX_ENTRIES */
    if (ncls == 0) return i8_fail(err, INFER8_E_FORMAT, "%s: no class folders and no images", ds->src);
    if (ncls > (size_t)label_bound(ds))
        return i8_fail(err, INFER8_E_LIMIT, "%s: %zu class folders, more than the %d classes allowed", ds->src, ncls,
                       label_bound(ds));
    for (size_t c = 0; c < ncls && st == INFER8_OK; c++) {
        char *dir = join_path(ds->src, ds->classes[c], err);
        if (!dir) return err ? err->code : INFER8_E_NOMEM;
        char **files = NULL;
        size_t nf = 0;
        st = list_dir(dir, 0, &files, &nf, err);
        if (st != INFER8_OK) {
            free(dir);
            return st;
        }
        if (nf == 0) issue(ds, "%s: class folder %d has no images", dir, (int)c);
        for (size_t f = 0; f < nf && st == INFER8_OK; f++) {
            char rel[2 * I8_DATASET_MAX_PATH + 2];
            snprintf(rel, sizeof rel, "%s/%s", ds->classes[c], files[f]);
            st = add_entry(ds, &cap, join_path(dir, files[f], err), rel, (int)c, err);
        }
        i8_dataset_free_names(files, nf);
        free(dir);
    }
    return st;
}

/* Splits a line "path [label]": the label is the last whitespace-separated token when it is a
 * decimal number. *label_state: 0 none, 1 valid, -1 number out of range. */
static void split_line(char *line, char **path, int *label, int *label_state, int bound) {
    size_t n = strlen(line);
    while (n && isspace((unsigned char)line[n - 1])) line[--n] = 0;
    while (isspace((unsigned char)*line)) line++, n--;
    *path = line;
    *label = -1;
    *label_state = 0;
    char *sp = NULL;
    for (char *p = line + n; p > line; p--)
        if (isspace((unsigned char)p[-1])) {
            sp = p;
            break;
        }
    if (!sp || !*sp) return;
    if (!all_digits(sp, strlen(sp)) && !(strlen(sp) > 18 && strspn(sp, "0123456789") == strlen(sp))) return;
    if (parse_label(sp, strlen(sp), bound, label)) *label_state = 1;
    else *label_state = -1;
    char *end = sp;
    while (end > line && isspace((unsigned char)end[-1])) end--;
    *end = 0;
}

/* Calls fn(ds, line, lineno) for each non-empty, non-comment line of a text file. */
static infer8_status for_lines(i8_dataset *ds, const char *path, void (*fn)(i8_dataset *, char *, size_t, void *),
                               void *ctx, i8_err *err) {
    uint8_t *text = NULL;
    size_t size = 0;
    infer8_status st = i8_read_file(path, MAX_LIST_BYTES, &text, &size, err);
    if (st != INFER8_OK) return st;
    size_t lineno = 0;
    char *p = (char *)text, *end = (char *)text + size;
    while (p < end) {
        char *nl = memchr(p, '\n', (size_t)(end - p));
        char *le = nl ? nl : end;
        *le = 0;
        lineno++;
        if (memchr(p, 0, (size_t)(le - p))) issue(ds, "%s:%zu: NUL byte in line, skipped", path, lineno);
        else if ((size_t)(le - p) > I8_DATASET_MAX_PATH + 32)
            issue(ds, "%s:%zu: line longer than %d bytes, skipped", path, lineno, I8_DATASET_MAX_PATH + 32);
        else {
            char *q = p;
            while (isspace((unsigned char)*q)) q++;
            if (*q && *q != '#') fn(ds, p, lineno, ctx);
        }
        p = le + 1;
    }
    free(text);
    return INFER8_OK;
}

typedef struct line_ctx {
    const char *file;
    size_t *cap;
    i8_err *err;
    infer8_status st;
} line_ctx;

static void labels_line(i8_dataset *ds, char *line, size_t lineno, void *vctx) {
    line_ctx *c = vctx;
    char *name;
    int label, state;
    split_line(line, &name, &label, &state, label_bound(ds));
    if (state == 0) {
        issue(ds, "%s:%zu: expected \"file label_index\", skipped", c->file, lineno);
        return;
    }
    /* entries are sorted by path here; match "dir/name" */
    char *full = join_path(ds->src, name, NULL);
    if (!full) {
        issue(ds, "%s:%zu: file name too long, skipped", c->file, lineno);
        return;
    }
    entry probe = {full, NULL, 0, 0};
    entry *e = bsearch(&probe, ds->entries, ds->nentries, sizeof *e, cmp_entry_key);
    free(full);
    if (!e) {
        issue(ds, "%s:%zu: no image '%s' in the folder, skipped", c->file, lineno, name);
        return;
    }
    if (e->label != -1 || e->label_bad) issue(ds, "%s:%zu: second label for '%s', the last one is used", c->file, lineno, name);
    e->label = state == 1 ? label : -1;
    e->label_bad = state == -1;
    if (state == -1) issue(ds, "%s:%zu: label of '%s' is not in [0, %d)", c->file, lineno, name, label_bound(ds));
}

static infer8_status open_flat(i8_dataset *ds, i8_err *err) {
    char **files = NULL;
    size_t nf = 0, cap = 0;
    infer8_status st = list_dir(ds->src, 0, &files, &nf, err);
    if (st != INFER8_OK) return st;
    for (size_t f = 0; f < nf && st == INFER8_OK; f++)
        st = add_entry(ds, &cap, join_path(ds->src, files[f], err), files[f], -1, err);
    i8_dataset_free_names(files, nf);
    if (st != INFER8_OK) return st;
    if (ds->nentries == 0) return i8_fail(err, INFER8_E_FORMAT, "%s: no .jpg, .jpeg, .png or .webp images", ds->src);
    char *lab = join_path(ds->src, "labels.txt", err);
    if (!lab) return err ? err->code : INFER8_E_NOMEM;
    struct stat sb;
    if (stat(lab, &sb) == 0) {
        line_ctx c = {lab, &cap, err, INFER8_OK};
        st = for_lines(ds, lab, labels_line, &c, err);
    }
    free(lab);
    return st;
}

static void list_line(i8_dataset *ds, char *line, size_t lineno, void *vctx) {
    line_ctx *c = vctx;
    if (c->st != INFER8_OK) return;
    char *path;
    int label, state;
    split_line(line, &path, &label, &state, label_bound(ds));
    char *full;
    if (path[0] == '/') full = i8_strdup(path, c->err);
    else {
        char dir[I8_DATASET_MAX_PATH + 1];
        snprintf(dir, sizeof dir, "%s", ds->src);
        char *slash = strrchr(dir, '/');
        if (slash) *slash = 0;
        else strcpy(dir, ".");
        full = join_path(dir, path, NULL);
        if (!full) {
            issue(ds, "%s:%zu: path too long, skipped", c->file, lineno);
            return;
        }
    }
    size_t before = ds->nentries;
    c->st = add_entry(ds, c->cap, full, path, state == 1 ? label : -1, c->err);
    if (c->st == INFER8_OK && state == -1) {
        ds->entries[before].label_bad = 1;
        issue(ds, "%s:%zu: label is not in [0, %d)", c->file, lineno, label_bound(ds));
    }
}

static infer8_status open_list(i8_dataset *ds, i8_err *err) {
    size_t cap = 0;
    line_ctx c = {ds->src, &cap, err, INFER8_OK};
    infer8_status st = for_lines(ds, ds->src, list_line, &c, err);
    if (st == INFER8_OK) st = c.st;
    if (st == INFER8_OK && ds->nentries == 0) return i8_fail(err, INFER8_E_FORMAT, "%s: no image paths", ds->src);
    return st;
}

/* ---- selection and emitting ---- */

/* Whether sample position `index` belongs to the subset (before counting it). */
static int selects(const i8_dataset *ds, uint64_t index) {
    if (ds->opt.every > 1 && index % ds->opt.every) return 0;
    return 1;
}

static int take_reached(const i8_dataset *ds) { return ds->opt.take && ds->stats.selected >= ds->opt.take; }

static void release_sample(i8_dataset *ds) {
    free(ds->data);
    ds->data = NULL;
    ds->size = 0;
    free(ds->key);
    ds->key = NULL;
    i8_image_free(&ds->image);
}

/* Checks format (and decodes) the bytes now owned in ds->data; fills *s. 1 = yielded. */
static int emit(i8_dataset *ds, const char *source, uint64_t index, int label, i8_sample *s) {
    uint64_t sub = ds->stats.selected - 1;
    char fmt = i8_image_format_of(ds->data, ds->size);
    if (fmt == '?') {
        issue(ds, "%s: sample '%s': not a JPEG, PNG or WebP image (%zu bytes), skipped", source, ds->key, ds->size);
        ds->stats.skipped++;
        return 0;
    }
    if (ds->opt.decode) {
        i8_err e;
        i8_err_clear(&e);
        if (i8_image_decode(&ds->image, ds->data, ds->size, ds->key, &ds->limits, &e) != INFER8_OK) {
            issue(ds, "%s: %s; sample skipped", source, e.msg);  /* e.msg names the key */
            ds->stats.skipped++;
            return 0;
        }
    }
    memset(s, 0, sizeof *s);
    s->key = ds->key;
    s->source = source;
    s->data = ds->data;
    s->size = ds->size;
    s->label = label;
    s->format = fmt;
    s->index = index;
    s->subset_index = sub;
    s->calib = sub < ds->opt.calib;
    s->image = ds->opt.decode ? &ds->image : NULL;
    ds->stats.yielded++;
    if (s->calib) ds->stats.yielded_calib++;
    return 1;
}

static infer8_status next_listed(i8_dataset *ds, i8_sample *s, int *has, i8_err *err) {
    while (ds->pos < ds->nentries && !take_reached(ds)) {
        entry *e = &ds->entries[ds->pos];
        uint64_t index = ds->pos++;
        ds->stats.seen++;
        if (!selects(ds, index)) continue;
        ds->stats.selected++;
        if (e->label_bad) {
            issue(ds, "%s: label out of range, skipped", e->path);
            ds->stats.skipped++;
            continue;
        }
        i8_err e2;
        i8_err_clear(&e2);
        infer8_status st = i8_read_file(e->path, ds->opt.max_member_bytes, &ds->data, &ds->size, &e2);
        if (st == INFER8_E_NOMEM) return i8_fail(err, st, "%s", e2.msg);
        if (st != INFER8_OK) {
            issue(ds, "%s; skipped", e2.msg);
            ds->stats.skipped++;
            continue;
        }
        ds->key = i8_strdup(e->key, err);
        if (!ds->key) return INFER8_E_NOMEM;
        if (emit(ds, e->path, index, e->label, s)) {
            *has = 1;
            return INFER8_OK;
        }
        release_sample(ds);
    }
    ds->ended = 1;
    return INFER8_OK;
}

/* ---- tar layout ---- */

static void close_shard(i8_dataset *ds) {
    if (ds->ar) archive_read_free(ds->ar);
    ds->ar = NULL;
    ds->pending = NULL;
    ds->shard_dead = 0;
    ds->shard++;
}

static void drop_group(i8_dataset *ds) {
    free(ds->cur_key);
    ds->cur_key = NULL;
    ds->in_group = 0;
    ds->cur_bad = ds->cur_has_cls = 0;
    ds->cur_label = -1;
}

/* Ends the current group: 1 if it was selected and usable (then *s is filled). */
static int finish_group(i8_dataset *ds, i8_sample *s) {
    int yielded = 0;
    /* not ds->shard: a shard's last group ends after close_shard moved on to the next one */
    const char *shard = ds->shards[ds->cur_shard < ds->nshards ? ds->cur_shard : ds->nshards - 1];
    if (ds->cur_selected) {
        if (ds->cur_bad) ds->stats.skipped++;  /* reported where it went wrong */
        else if (!ds->data) {
            issue(ds, "%s: sample '%s' has no .jpg, .jpeg, .png or .webp member, skipped", shard, ds->cur_key);
            ds->stats.skipped++;
        } else {
            ds->key = ds->cur_key;
            ds->cur_key = NULL;
            yielded = emit(ds, shard, ds->cur_index, ds->cur_label, s);
        }
        if (!yielded) release_sample(ds);
    }
    drop_group(ds);
    return yielded;
}

/* Reads the current member's data (size already checked) into a new buffer. */
static int read_member(i8_dataset *ds, const char *name, size_t size, uint8_t **out) {
    uint8_t *buf = malloc(size ? size : 1);
    if (!buf) {
        issue(ds, "%s: member '%s': cannot allocate %zu bytes", ds->shards[ds->shard], name, size);
        return 0;
    }
    size_t got = 0;
    while (got < size) {
        la_ssize_t r = archive_read_data(ds->ar, buf + got, size - got);
        if (r < 0 || r == 0) {
            issue(ds, "%s: member '%s': %s after %zu of %zu bytes", ds->shards[ds->shard], name,
                  r < 0 ? archive_error_string(ds->ar) : "unexpected end of data", got, size);
            ds->shard_dead = 1;  /* the stream position is lost: nothing after it can be trusted */
            free(buf);
            return 0;
        }
        got += (size_t)r;
    }
    *out = buf;
    return 1;
}

/* Handles one member of the current (selected) group. */
static void take_member(i8_dataset *ds, struct archive_entry *ae, const char *name, const char *ext) {
    const char *shard = ds->shards[ds->shard];
    int is_img = is_image_ext(ext), is_cls = strcasecmp(ext, "cls") == 0;
    if (!is_img && !is_cls) return;  /* other webdataset fields (.json, .txt) are not used */
    if (is_img && ds->data) return;  /* the first image of a sample is the sample's image */
    if (ds->cur_bad) return;
    uint64_t limit = is_cls ? MAX_CLS_BYTES : ds->opt.max_member_bytes;
    if (!archive_entry_size_is_set(ae) || archive_entry_size(ae) < 0) {
        issue(ds, "%s: member '%s' has no size, sample skipped", shard, name);
        ds->cur_bad = 1;
        return;
    }
    uint64_t size = (uint64_t)archive_entry_size(ae);
    if (size > limit) {
        issue(ds, "%s: member '%s' is %llu bytes, above the limit of %llu, sample skipped", shard, name,
              (unsigned long long)size, (unsigned long long)limit);
        ds->cur_bad = 1;
        return;
    }
    uint8_t *buf = NULL;
    if (!read_member(ds, name, (size_t)size, &buf)) {
        ds->cur_bad = 1;
        return;
    }
    if (is_img) {
        ds->data = buf;
        ds->size = (size_t)size;
        return;
    }
    int label;
    if (ds->cur_has_cls || !parse_label((const char *)buf, (size_t)size, label_bound(ds), &label)) {
        issue(ds, "%s: member '%s': %s, sample skipped", shard, name,
              ds->cur_has_cls ? "second .cls member" : "not an ASCII integer label in range");
        ds->cur_bad = 1;
    } else {
        ds->cur_label = label;
        ds->cur_has_cls = 1;
    }
    free(buf);
}

static int open_shard(i8_dataset *ds) {
    const char *path = ds->shards[ds->shard];
    ds->ar = archive_read_new();
    if (!ds->ar) {
        issue(ds, "%s: cannot create an archive reader", path);
        return 0;
    }
    archive_read_support_format_tar(ds->ar);
    archive_read_support_filter_all(ds->ar);
    if (archive_read_open_filename(ds->ar, path, 1 << 16) != ARCHIVE_OK) {
        issue(ds, "%s: cannot open tar: %s; shard skipped", path, archive_error_string(ds->ar));
        return 0;
    }
    return 1;
}

static infer8_status next_tar(i8_dataset *ds, i8_sample *s, int *has, i8_err *err) {
    for (;;) {
        if (!ds->ar) {
            if (ds->in_group && finish_group(ds, s)) goto yielded;  /* a group ends with its shard */
            if (ds->shard >= ds->nshards || take_reached(ds)) break;
            if (!open_shard(ds)) {
                ds->stats.bad_shards++;
                archive_read_free(ds->ar);
                ds->ar = NULL;
                ds->shard++;
            }
            continue;
        }
        if (ds->shard_dead) {
            ds->stats.bad_shards++;
            if (ds->in_group && ds->cur_selected && !ds->cur_bad) ds->cur_bad = 1;  /* members may be missing */
            close_shard(ds);
            continue;
        }
        struct archive_entry *ae = ds->pending;
        ds->pending = NULL;
        if (!ae) {
            int r = archive_read_next_header(ds->ar, &ae);
            if (r == ARCHIVE_EOF) {
                close_shard(ds);
                continue;
            }
            if (r == ARCHIVE_WARN) issue(ds, "%s: %s", ds->shards[ds->shard], archive_error_string(ds->ar));
            else if (r != ARCHIVE_OK) {
                issue(ds, "%s: %s after sample %llu; rest of the shard skipped", ds->shards[ds->shard],
                      archive_error_string(ds->ar), (unsigned long long)ds->stats.seen);
                if (ds->in_group && ds->cur_selected && !ds->cur_bad)
                    issue(ds, "%s: sample '%s' may be incomplete, skipped", ds->shards[ds->shard], ds->cur_key);
                ds->shard_dead = 1;
                continue;
            }
        }
        if (archive_entry_filetype(ae) != AE_IFREG) continue;
        const char *name = archive_entry_pathname(ae);
        if (!name) {
            issue(ds, "%s: member without a readable name, ignored", ds->shards[ds->shard]);
            continue;
        }
        while (name[0] == '.' && name[1] == '/') name += 2;
        size_t nlen = strlen(name);
        if (nlen > I8_DATASET_MAX_PATH) {
            issue(ds, "%s: member name longer than %d bytes, ignored", ds->shards[ds->shard], I8_DATASET_MAX_PATH);
            continue;
        }
        /* webdataset: key = path up to the first dot of the file name, extension = the rest */
        const char *slash = strrchr(name, '/');
        const char *base = slash ? slash + 1 : name;
        const char *dot = strchr(base, '.');
        if (!dot || dot == base) continue;  /* no key or no extension: not a sample member */
        size_t klen = (size_t)(dot - name);
        if (ds->in_group && (strlen(ds->cur_key) != klen || memcmp(ds->cur_key, name, klen) != 0)) {
            ds->pending = ae;
            if (finish_group(ds, s)) goto yielded;
            continue;
        }
        if (!ds->in_group) {
            if (take_reached(ds)) break;
            ds->cur_key = strndup(name, klen);
            if (!ds->cur_key) return i8_fail(err, INFER8_E_NOMEM, "out of memory for a sample key");
            ds->in_group = 1;
            ds->cur_shard = ds->shard;
            ds->cur_index = ds->stats.seen++;
            ds->cur_selected = selects(ds, ds->cur_index);
            ds->cur_bad = ds->cur_has_cls = 0;
            ds->cur_label = -1;
            if (ds->cur_selected) ds->stats.selected++;
        }
        if (ds->cur_selected) take_member(ds, ae, name, dot + 1);
    }
    if (ds->in_group) drop_group(ds);
    ds->ended = 1;
    return INFER8_OK;
yielded:
    *has = 1;
    return INFER8_OK;
}

/* ---- public ---- */

static int looks_like_tar(const char *src) {
    size_t n = strlen(src);
    return strchr(src, '{') || strchr(src, ',') || (n >= 4 && strcasecmp(src + n - 4, ".tar") == 0);
}

static infer8_status open_tar(i8_dataset *ds, i8_err *err) {
    infer8_status st = i8_dataset_expand(ds->src, 0, &ds->shards, &ds->nshards, err);
    if (st != INFER8_OK) return st;
    for (size_t i = 0; i < ds->nshards; i++) {
        struct stat sb;
        if (stat(ds->shards[i], &sb) != 0)
            return i8_fail(err, INFER8_E_IO, "%s: shard %zu of '%s': %s", ds->shards[i], i, ds->src, strerror(errno));
        if (!S_ISREG(sb.st_mode))
            return i8_fail(err, INFER8_E_IO, "%s: shard %zu of '%s' is not a regular file", ds->shards[i], i, ds->src);
    }
    return INFER8_OK;
}

infer8_status i8_dataset_open(i8_dataset **out, const char *src, const i8_dataset_options *options, i8_err *err) {
    if (!out || !src || !*src) return i8_fail(err, INFER8_E_INVALID_ARGUMENT, "dataset source is empty");
    i8_dataset_options opt;
    if (options) opt = *options;
    else memset(&opt, 0, sizeof opt);
    if (opt.layout < I8_DATASET_AUTO || opt.layout > I8_DATASET_TAR)
        return i8_fail(err, INFER8_E_INVALID_ARGUMENT, "dataset layout %d unknown", (int)opt.layout);
    if (opt.num_classes < 0 || opt.num_classes > I8_DATASET_MAX_LABEL)
        return i8_fail(err, INFER8_E_INVALID_ARGUMENT, "num_classes %d not in [0, %d]", opt.num_classes,
                       I8_DATASET_MAX_LABEL);
    if (opt.max_member_bytes == 0) opt.max_member_bytes = I8_DATASET_DEFAULT_MAX_MEMBER;
    if (opt.max_member_bytes > SIZE_MAX / 2)
        return i8_fail(err, INFER8_E_INVALID_ARGUMENT, "max_member_bytes %llu too large",
                       (unsigned long long)opt.max_member_bytes);
    if (strlen(src) > I8_DATASET_MAX_PATH)
        return i8_fail(err, INFER8_E_LIMIT, "dataset source longer than %d bytes", I8_DATASET_MAX_PATH);
    i8_dataset *ds = i8_calloc(1, sizeof *ds, err);
    if (!ds) return INFER8_E_NOMEM;
    ds->opt = opt;
    i8_limits_default(&ds->limits);
    if (opt.limits) {
        if (opt.limits->max_image_pixels) ds->limits.max_image_pixels = opt.limits->max_image_pixels;
        if (opt.limits->max_image_bytes) ds->limits.max_image_bytes = opt.limits->max_image_bytes;
    }
    ds->cur_label = -1;
    ds->src = i8_strdup(src, err);
    if (!ds->src) {
        free(ds);
        return INFER8_E_NOMEM;
    }
    size_t n = strlen(ds->src);
    while (n > 1 && ds->src[n - 1] == '/') ds->src[--n] = 0;
    i8_dataset_layout layout = opt.layout;
    if (layout == I8_DATASET_AUTO) {
        struct stat sb;
        if (looks_like_tar(src)) layout = I8_DATASET_TAR;
        else if (stat(ds->src, &sb) != 0) {
            i8_dataset_close(ds);
            return i8_fail(err, INFER8_E_IO, "%s: %s", src, strerror(errno));
        } else if (S_ISDIR(sb.st_mode)) {
            char **files = NULL;
            size_t nf = 0;
            infer8_status st = list_dir(ds->src, 0, &files, &nf, err);
            i8_dataset_free_names(files, nf);
            if (st != INFER8_OK) {
                i8_dataset_close(ds);
                return st;
            }
            layout = nf ? I8_DATASET_FLAT : I8_DATASET_IMAGEFOLDER;
        } else layout = I8_DATASET_LIST;
    }
    ds->layout = layout;
    infer8_status st;
    switch (layout) {
    case I8_DATASET_IMAGEFOLDER: st = open_imagefolder(ds, err); break;
    case I8_DATASET_FLAT: st = open_flat(ds, err); break;
    case I8_DATASET_LIST: st = open_list(ds, err); break;
    default: st = open_tar(ds, err); break;
    }
    if (st != INFER8_OK) {
        i8_dataset_close(ds);
        return st;
    }
    *out = ds;
    return INFER8_OK;
}

infer8_status i8_dataset_next(i8_dataset *ds, i8_sample *sample, int *has, i8_err *err) {
    *has = 0;
    release_sample(ds);
    if (ds->ended) return INFER8_OK;
    return ds->layout == I8_DATASET_TAR ? next_tar(ds, sample, has, err) : next_listed(ds, sample, has, err);
}

infer8_status i8_dataset_rewind(i8_dataset *ds, i8_err *err) {
    release_sample(ds);
    if (ds->ar) archive_read_free(ds->ar);
    ds->ar = NULL;
    ds->pending = NULL;
    ds->shard_dead = 0;
    ds->shard = 0;
    drop_group(ds);
    ds->pos = 0;
    ds->ended = 0;
    /* stats and the kept messages describe one pass: the next pass reports its issues again
     * (the same ones, deterministically; on_issue is not called again for those) */
    memset(&ds->stats, 0, sizeof ds->stats);
    for (size_t i = 0; i < ds->nkept; i++) free(ds->kept[i]);
    ds->nkept = 0;
    return INFER8_OK;
}

void i8_dataset_close(i8_dataset *ds) {
    if (!ds) return;
    release_sample(ds);
    if (ds->ar) archive_read_free(ds->ar);
    drop_group(ds);
    for (size_t i = 0; i < ds->nentries; i++) {
        free(ds->entries[i].path);
        free(ds->entries[i].key);
    }
    free(ds->entries);
    i8_dataset_free_names(ds->classes, (size_t)ds->nclasses);
    i8_dataset_free_names(ds->shards, ds->nshards);
    for (size_t i = 0; i < ds->nkept; i++) free(ds->kept[i]);
    free(ds->src);
    free(ds);
}

i8_dataset_layout i8_dataset_get_layout(const i8_dataset *ds) { return ds->layout; }
const i8_dataset_stats *i8_dataset_get_stats(const i8_dataset *ds) { return &ds->stats; }
const char *i8_dataset_issue(const i8_dataset *ds, size_t i) { return i < ds->nkept ? ds->kept[i] : NULL; }
const char *i8_dataset_class_name(const i8_dataset *ds, int label) {
    return (label >= 0 && label < ds->nclasses) ? ds->classes[label] : NULL;
}
int i8_dataset_class_count(const i8_dataset *ds) { return ds->nclasses; }
size_t i8_dataset_shard_count(const i8_dataset *ds) { return ds->nshards; }
const char *i8_dataset_shard(const i8_dataset *ds, size_t i) { return i < ds->nshards ? ds->shards[i] : NULL; }
size_t i8_dataset_entry_count(const i8_dataset *ds) { return ds->layout == I8_DATASET_TAR ? 0 : ds->nentries; }
const char *i8_dataset_entry_path(const i8_dataset *ds, size_t i) {
    return ds->layout != I8_DATASET_TAR && i < ds->nentries ? ds->entries[i].path : NULL;
}
