/* i8_dataset_tool: command-line access to src/eval for the shell tests (tests/cli/test_dataset.sh).
 *   list SRC [--take N] [--every K] [--calib C] [--max-member BYTES] [--num-classes N]
 *            [--layout auto|imagefolder|flat|list|tar] [--no-decode] [--source] [--passes P]
 *        one line per sample: "index subset calib|held key label bytes format WxH" (WxH "-" with
 *        --no-decode; --source adds the file name of its source), issues on stderr as
 *        "issue: ...", then a summary line on stdout:
 *        "# layout L seen S selected X yielded Y calib C skipped K bad_shards B issues I",
 *        "# class I NAME" lines and "# kept MESSAGE" lines (the kept issue messages). --passes P
 *        reads the dataset P times (rewinding between) and prints the last pass.
 *   expand PATTERN          shard names after brace expansion, one a line
 *   stress OUTDIR           every stress input as OUTDIR/NAME.png; prints "name WxH hash"
 *   stress-doc              docs/stress-inputs.md on stdout
 *   svg OUTDIR              latency.svg, kl_speedup.svg, layer_time.svg from fixed sample data with
 *                           hostile labels (XML specials, UTF-8, an invalid byte, a control character)
 * Exits 1 with the library's message on failure, 2 on bad usage. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "eval/dataset.h"
#include "eval/stress.h"
#include "eval/svg.h"

static int usage(void) {
    fprintf(stderr, "usage: i8_dataset_tool list SRC [--take N] [--every K] [--calib C] [--max-member BYTES]\n"
                    "                             [--num-classes N] [--layout L] [--no-decode]\n"
                    "       i8_dataset_tool expand PATTERN\n"
                    "       i8_dataset_tool stress OUTDIR\n"
                    "       i8_dataset_tool stress-doc\n"
                    "       i8_dataset_tool svg OUTDIR\n");
    return 2;
}

static int fail(const i8_err *err) {
    fprintf(stderr, "i8_dataset_tool: %s\n", err->msg);
    return 1;
}

static void on_issue(void *user, const char *msg) {
    (void)user;
    fprintf(stderr, "issue: %s\n", msg);
}

static int parse_u64(const char *s, uint64_t *out) {
    char *end;
    if (!s || !*s || *s == '-') return 0;
    unsigned long long v = strtoull(s, &end, 10);
    if (*end) return 0;
    *out = v;
    return 1;
}

static const char *LAYOUTS[] = {"auto", "imagefolder", "flat", "list", "tar"};

static int cmd_list(int argc, char **argv) {
    i8_dataset_options opt;
    memset(&opt, 0, sizeof opt);
    opt.decode = 1;
    opt.on_issue = on_issue;
    int show_source = 0;
    uint64_t passes = 1;
    for (int i = 3; i < argc; i++) {
        uint64_t v = 0;
        const char *a = argv[i], *val = i + 1 < argc ? argv[i + 1] : NULL;
        if (strcmp(a, "--no-decode") == 0) {
            opt.decode = 0;
            continue;
        }
        if (strcmp(a, "--source") == 0) {
            show_source = 1;
            continue;
        }
        if (strcmp(a, "--passes") == 0 && parse_u64(val, &passes) && passes >= 1 && passes <= 10) {
            i++;
            continue;
        }
        if (strcmp(a, "--layout") == 0 && val) {
            int found = 0;
            for (int k = 0; k < 5; k++)
                if (strcmp(val, LAYOUTS[k]) == 0) opt.layout = (i8_dataset_layout)k, found = 1;
            if (!found) return usage();
            i++;
            continue;
        }
        if (!parse_u64(val, &v)) return usage();
        if (strcmp(a, "--take") == 0) opt.take = v;
        else if (strcmp(a, "--every") == 0) opt.every = v;
        else if (strcmp(a, "--calib") == 0) opt.calib = v;
        else if (strcmp(a, "--max-member") == 0) opt.max_member_bytes = v;
        else if (strcmp(a, "--num-classes") == 0 && v <= I8_DATASET_MAX_LABEL) opt.num_classes = (int)v;
        else return usage();
        i++;
    }
    i8_err err;
    i8_err_clear(&err);
    i8_dataset *ds = NULL;
    if (i8_dataset_open(&ds, argv[2], &opt, &err) != INFER8_OK) return fail(&err);
    for (uint64_t pass = 0; pass < passes; pass++) {
        if (pass > 0 && i8_dataset_rewind(ds, &err) != INFER8_OK) {
            i8_dataset_close(ds);
            return fail(&err);
        }
        for (;;) {
            i8_sample s;
            int has = 0;
            if (i8_dataset_next(ds, &s, &has, &err) != INFER8_OK) {
                i8_dataset_close(ds);
                return fail(&err);
            }
            if (!has) break;
            if (pass + 1 < passes) continue; /* only the last pass is printed */
            printf("%llu %llu %s %s %d %zu %c ", (unsigned long long)s.index, (unsigned long long)s.subset_index,
                   s.calib ? "calib" : "held", s.key, s.label, s.size, s.format);
            if (s.image) printf("%dx%d", s.image->width, s.image->height);
            else printf("-");
            if (show_source) {
                const char *slash = strrchr(s.source, '/');
                printf(" %s", slash ? slash + 1 : s.source);
            }
            printf("\n");
        }
    }
    const i8_dataset_stats *st = i8_dataset_get_stats(ds);
    printf("# layout %s seen %llu selected %llu yielded %llu calib %llu skipped %llu bad_shards %llu issues %llu\n",
           LAYOUTS[i8_dataset_get_layout(ds)], (unsigned long long)st->seen, (unsigned long long)st->selected,
           (unsigned long long)st->yielded, (unsigned long long)st->yielded_calib, (unsigned long long)st->skipped,
           (unsigned long long)st->bad_shards, (unsigned long long)st->issues);
    for (int c = 0; c < i8_dataset_class_count(ds); c++) printf("# class %d %s\n", c, i8_dataset_class_name(ds, c));
    for (size_t i = 0; i8_dataset_issue(ds, i); i++) printf("# kept %s\n", i8_dataset_issue(ds, i));
    i8_dataset_close(ds);
    return 0;
}

static int cmd_stress(const char *dir) {
    mkdir(dir, 0777);  /* an existing folder is fine; a failure shows at the first write */
    i8_err err;
    i8_err_clear(&err);
    for (size_t i = 0; i < i8_stress_count(); i++) {
        const i8_stress_info *info = i8_stress_get(i);
        i8_image im = {0, 0, NULL};
        if (i8_stress_generate(i, &im, &err) != INFER8_OK) return fail(&err);
        char path[4096];
        snprintf(path, sizeof path, "%s/%s.png", dir, info->name);
        if (i8_image_save_png(&im, path, &err) != INFER8_OK) return fail(&err);
        printf("%s %dx%d %016llx\n", info->name, im.width, im.height, (unsigned long long)i8_stress_hash(&im));
        i8_image_free(&im);
    }
    return 0;
}

static int cmd_svg(const char *dir) {
    mkdir(dir, 0777);
    i8_err err;
    i8_err_clear(&err);
    char path[4096];
    const i8_svg_latency_item lat[] = {
        {"fp16", 0.905, 0.897, 0.921},
        {"fp8 recipe <&>\"'", 0.898, 0.890, 0.930},
        {"fp8 r\xc3\xa9sidual \xff bad\x01", 0.807, 0.800, 0.815},
        {"broken", NAN, NAN, NAN},
    };
    snprintf(path, sizeof path, "%s/latency.svg", dir);
    if (i8_svg_latency(path, "Latency, batch 1 <H200>", "ms", lat, 4, &err) != INFER8_OK) return fail(&err);
    const i8_svg_point pts[] = {
        {"fp16", 1.0, 0.0},
        {"fp8 recipe", 1.01, 0.008},
        {"fp8 residual 10-39 & more", 1.12, 0.016},
        {"fp8 residual all", 1.21, 0.033},
        {"nan variant", 1.3, INFINITY},
    };
    snprintf(path, sizeof path, "%s/kl_speedup.svg", dir);
    if (i8_svg_kl_speedup(path, "KL vs speed-up", pts, 5, &err) != INFER8_OK) return fail(&err);
    const double v0[] = {0.40, 0.37}, v1[] = {0.21, 0.22}, v2[] = {0.05, NAN}, v3[] = {0.0, 0.03};
    const i8_svg_group groups[] = {{"conv 3x3", v0}, {"conv 1x1 <biased>", v1}, {"pool", v2}, {"quantize", v3}};
    const char *const series[] = {"fp16", "fp8 & fused"};
    snprintf(path, sizeof path, "%s/layer_time.svg", dir);
    if (i8_svg_grouped_bars(path, "Time per layer type", "ms", series, 2, groups, 4, &err) != INFER8_OK)
        return fail(&err);
    return 0;
}

int main(int argc, char **argv) {
    i8_err err;
    i8_err_clear(&err);
    if (argc < 2) return usage();
    const char *cmd = argv[1];
    if (strcmp(cmd, "list") == 0 && argc >= 3) return cmd_list(argc, argv);
    if (strcmp(cmd, "expand") == 0 && argc == 3) {
        char **names = NULL;
        size_t n = 0;
        if (i8_dataset_expand(argv[2], 0, &names, &n, &err) != INFER8_OK) return fail(&err);
        for (size_t i = 0; i < n; i++) printf("%s\n", names[i]);
        i8_dataset_free_names(names, n);
        return 0;
    }
    if (strcmp(cmd, "stress") == 0 && argc == 3) return cmd_stress(argv[2]);
    if (strcmp(cmd, "stress-doc") == 0 && argc == 2) {
        char *md = NULL;
        if (i8_stress_markdown(&md, &err) != INFER8_OK) return fail(&err);
        fputs(md, stdout);
        free(md);
        return 0;
    }
    if (strcmp(cmd, "svg") == 0 && argc == 3) return cmd_svg(argv[2]);
    return usage();
}
