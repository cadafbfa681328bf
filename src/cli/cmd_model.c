/* Subcommands that work on a model: inspect, classify, preprocess. */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli/cli.h"

/* Reads a whole image file for classify / preprocess ("-": standard input), at most
 * max_bytes + 1 bytes (0 = the library's default max_image_bytes, 256 MiB, see infer8.h): the
 * library then refuses an oversized image with its limit message, and nothing larger is ever
 * buffered. Streams are allowed (a pipe, /dev/stdin). On failure why holds the reason. */
static int read_all(const char *path, uint64_t max_bytes, unsigned char **data, size_t *size, char *why,
                    size_t why_size) {
    if (!max_bytes) max_bytes = (uint64_t)256 << 20;
    const int from_stdin = strcmp(path, "-") == 0;
    FILE *f = from_stdin ? stdin : fopen(path, "rb");
    if (!f) {
        snprintf(why, why_size, "cannot open: %s", strerror(errno));
        return 0;
    }
    struct stat st;
    if (fstat(fileno(f), &st) == 0 && S_ISDIR(st.st_mode)) {
        if (!from_stdin) fclose(f);
        snprintf(why, why_size, "is a folder, not an image file");
        return 0;
    }
    size_t cap = 1 << 16, len = 0;
    unsigned char *buf = malloc(cap);
    while (buf) {
        size_t got = fread(buf + len, 1, cap - len, f);
        len += got;
        if (len < cap || (max_bytes && len > max_bytes)) break;
        if (cap > ((size_t)1 << 31)) { /* 2 GiB: far above any image limit */
            free(buf);
            buf = NULL;
            break;
        }
        unsigned char *grown = realloc(buf, cap * 2);
        if (!grown) {
            free(buf);
            buf = NULL;
            break;
        }
        buf = grown;
        cap *= 2;
    }
    const int read_error = ferror(f);
    const int read_errno = errno;
    if (!from_stdin) fclose(f);
    if (!buf || read_error) {
        free(buf);
        snprintf(why, why_size, "%s", !buf ? "out of memory" : strerror(read_errno));
        return 0;
    }
    *data = buf;
    *size = len;
    return 1;
}

static const char *const inspect_help =
    "usage: infer8 inspect MODEL [--json] [--roofline GPU [--batch 1,32]] [options]\n"
    "\n"
    "Prints the optimized graph of MODEL (a snapshot folder with config.json and model.safetensors,\n"
    "or a bare .safetensors file with --arch): one line per layer with name, op, kernel, stride,\n"
    "padding, input and output shapes, fused activation / residual and precision, then totals\n"
    "(layers per op, convolutions, parameters, MACs per image) and, when infer8 has the CUDA\n"
    "backend, the activation arena the CUDA executor plans at --max-batch (no GPU needed).\n"
    "\n"
    "  --json             one JSON document instead of text\n"
    "  --roofline GPU     instead of the graph: the roofline bound of the model's precisions over\n"
    "                     fp16 for its convolutions on GPU (H200, H100, H100 PCIe), i.e. the least\n"
    "                     time they could take, max(FLOPs / peak, bytes / bandwidth) per conv, in\n"
    "                     fp16 and as the model is (an FP8 bundle, or --precision fp8 ...)\n"
    "  --batch LIST       batch sizes for --roofline (default 1,32)\n" CLI_MODEL_OPTIONS_HELP;

static infer8_status describe_graph(infer8_context *ctx, infer8_model *model, void *user, char **text) {
    return infer8_model_describe(ctx, model, *(const int *)user ? INFER8_DESCRIBE_JSON : INFER8_DESCRIBE_TEXT, text);
}

#define MAX_ROOFLINE_BATCHES 16
typedef struct roofline_request {
    const char *gpu;
    long batches[MAX_ROOFLINE_BATCHES];
    int n_batches, json;
} roofline_request;

static infer8_status describe_roofline(infer8_context *ctx, infer8_model *model, void *user, char **text) {
    const roofline_request *q = user;
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    if (!f) return INFER8_E_NOMEM;
    infer8_status s = INFER8_OK;
    const char *gpu = NULL;
    if (q->json) fprintf(f, "{\"roofline\": [");
    for (int i = 0; i < q->n_batches && !s; i++) {
        double f16 = 0, mine = 0;
        s = infer8_roofline(ctx, model, q->gpu, (int)q->batches[i], &f16, &mine, &gpu);
        if (s) break;
        if (q->json)
            fprintf(f, "%s{\"gpu\": \"%s\", \"batch\": %ld, \"fp16_ms\": %.9g, \"model_ms\": %.9g, \"bound_x\": %.9g}",
                    i ? ", " : "", gpu, q->batches[i], f16, mine, f16 / mine);
        else
            fprintf(f, "%s, batch %ld: convolutions at their roofline %.4f ms in fp16, %.4f ms as this model is: at most x %.3f\n",
                    gpu, q->batches[i], f16, mine, f16 / mine);
    }
    if (q->json) fprintf(f, "]}\n");
    fclose(f);
    if (s) {
        free(buf);
        return s;
    }
    *text = buf;
    return INFER8_OK;
}

int cmd_inspect(int argc, char **argv) {
    cli_args a = {argc, argv, 1, "inspect"};
    cli_model_opts mo = {0};
    const char *model_path = NULL, *v = NULL;
    roofline_request q = {NULL, {1, 32}, 2, 0};
    int error = 0;
    while (a.i < argc && !error) {
        const char *arg = argv[a.i];
        if (!strcmp(arg, "--help") || !strcmp(arg, "-h")) {
            fputs(inspect_help, stdout);
            return 0;
        }
        int r = cli_model_option(&a, &mo);
        if (r < 0) return EXIT_USAGE;
        if (r > 0) continue;
        if (cli_opt_flag(&a, "--json")) q.json = 1;
        else if (cli_opt_value(&a, "--roofline", &q.gpu, &error)) {
        } else if (cli_opt_value(&a, "--batch", &v, &error)) {
            if (!error && !cli_parse_batches("inspect", "--batch", v, q.batches, MAX_ROOFLINE_BATCHES, &q.n_batches)) error = 1;
        } else if (arg[0] == '-') return cli_usage_error("inspect", "unknown option %s", arg);
        else if (!model_path) model_path = argv[a.i++];
        else return cli_usage_error("inspect", "unexpected argument %s", arg);
    }
    if (error) return EXIT_USAGE;
    if (!model_path) return cli_usage_error("inspect", "MODEL is required");
    if (v && !q.gpu) return cli_usage_error("inspect", "--batch applies to --roofline");
    if (q.gpu) return cli_print_model_text("inspect", model_path, &mo, describe_roofline, &q);
    return cli_print_model_text("inspect", model_path, &mo, describe_graph, &q.json);
}

static const char *const classify_help =
    "usage: infer8 classify MODEL --image FILE [--image FILE ...] [--topk K] [--json] [options]\n"
    "\n"
    "Classifies JPEG, PNG or WebP images with timm's eval preprocessing (resize, center crop,\n"
    "normalize, from the model's pretrained_cfg). Prints the top-k classes with probabilities.\n"
    "\n"
    "  --image FILE       an image (repeatable; - reads standard input); further bare arguments\n"
    "                     are images too; a folder stands for its images, read as calibrate\n"
    "                     reads one (its .jpg/.jpeg/.png/.webp files by name, or one sub-folder\n"
    "                     per class)\n"
    "  --topk K           classes to print per image (default 5)\n"
    "  --json             one JSON object per line and image: file, top-k and all logits\n"
    "  --batch N          images per forward pass (default: all given, up to --max-batch)\n" CLI_MODEL_OPTIONS_HELP;

/* The path arrays of folders named as images (infer8_list_images), owned until classify ends. */
typedef struct folder_list {
    char **paths;
    size_t count;
} folder_list;
typedef struct folder_lists {
    folder_list *v;
    size_t n;
} folder_lists;

static int folder_lists_take(folder_lists *f, char **paths, size_t count) {
    folder_list *v = realloc(f->v, (f->n + 1) * sizeof *v);
    if (!v) {
        fprintf(stderr, "infer8 classify: out of memory\n");
        return 1;
    }
    f->v = v;
    f->v[f->n++] = (folder_list){paths, count};
    return 0;
}

static void folder_lists_free(folder_lists *f) {
    for (size_t i = 0; i < f->n; i++) infer8_free_paths(f->v[i].paths, f->v[i].count);
    free(f->v);
}

/* images with entry `at` replaced by the n paths (realloc'ed; NULL, images untouched, when out
 * of memory). */
static const char **splice_paths(const char **images, int n_images, int at, const char *const *paths, int n) {
    const char **grown = realloc((void *)images, ((size_t)n_images + (size_t)n) * sizeof *grown);
    if (!grown) {
        fprintf(stderr, "infer8 classify: out of memory\n");
        return NULL;
    }
    memmove(grown + at + n, grown + at + 1, (size_t)(n_images - at - 1) * sizeof *grown);
    memcpy(grown + at, paths, (size_t)n * sizeof *grown);
    return grown;
}

int cmd_classify(int argc, char **argv) {
    cli_args a = {argc, argv, 1, "classify"};
    cli_model_opts mo = {0};
    const char *model_path = NULL;
    const char **images = calloc((size_t)argc + 1, sizeof *images);
    folder_lists folders = {0};
    int n_images = 0, json = 0, error = 0;
    long topk = 5, batch = 0;
    const char *v = NULL;
    if (!images) return EXIT_RUNTIME;
    while (a.i < argc) {
        if (!strcmp(argv[a.i], "--help") || !strcmp(argv[a.i], "-h")) {
            fputs(classify_help, stdout);
            free(images);
            return 0;
        }
        int r = cli_model_option(&a, &mo);
        if (r < 0) error = 1;
        if (r) {
            if (error) break;
            continue;
        }
        if (cli_opt_value(&a, "--image", &v, &error)) {
            if (!error) images[n_images++] = v;
        } else if (cli_opt_value(&a, "--topk", &v, &error)) {
            if (!error && !cli_parse_int("classify", "--topk", v, 1, 100000, &topk)) error = 1;
        } else if (cli_opt_value(&a, "--batch", &v, &error)) {
            if (!error && !cli_parse_int("classify", "--batch", v, 1, 4096, &batch)) error = 1;
        } else if (cli_opt_flag(&a, "--json")) {
            json = 1;
        } else if (argv[a.i][0] == '-' && strcmp(argv[a.i], "-") != 0) { /* a lone "-" is an image: stdin */
            cli_usage_error("classify", "unknown option %s", argv[a.i]);
            error = 1;
        } else if (!model_path) {
            model_path = argv[a.i++];
        } else {
            images[n_images++] = argv[a.i++];
        }
        if (error) break;
    }
    if (!error && !model_path) error = cli_usage_error("classify", "MODEL is required");
    if (!error && n_images == 0) error = cli_usage_error("classify", "give at least one --image");
    int from_stdin = 0;
    for (int i = 0; !error && i < n_images; i++) from_stdin += !strcmp(images[i], "-");
    if (!error && from_stdin > 1) error = cli_usage_error("classify", "standard input (-) can be given as one image only");
    if (error) {
        free(images);
        return EXIT_USAGE;
    }
    infer8_context *ctx = infer8_context_new();
    infer8_model *model = NULL;
    int rc = 0;
    if (!ctx) {
        free(images);
        return EXIT_RUNTIME;
    }
    /* a folder given as an image: its images, in its place */
    for (int i = 0; i < n_images; i++) {
        struct stat st;
        if (strcmp(images[i], "-") == 0 || stat(images[i], &st) != 0 || !S_ISDIR(st.st_mode)) continue;
        char **found = NULL;
        size_t n_found = 0;
        if (infer8_list_images(ctx, images[i], &found, &n_found)) {
            rc = cli_fail(ctx, "classify");
            goto out;
        }
        /* a folder without images was refused (infer8_list_images: INFER8_E_FORMAT), so n_found >= 1 */
        if (n_found > (size_t)(INT_MAX / 2 - n_images)) {
            fprintf(stderr, "infer8 classify: error (limit exceeded): %s: %zu images, more than one run takes\n",
                    images[i], n_found);
            infer8_free_paths(found, n_found);
            rc = EXIT_INPUT;
            goto out;
        }
        if (folder_lists_take(&folders, found, n_found)) {
            infer8_free_paths(found, n_found);
            rc = EXIT_RUNTIME;
            goto out;
        }
        const char **spliced = splice_paths(images, n_images, i, (const char *const *)found, (int)n_found);
        if (!spliced) {
            rc = EXIT_RUNTIME;
            goto out;
        }
        images = spliced;
        n_images += (int)n_found - 1;
        i += (int)n_found - 1;
    }
    if (cli_open_model(ctx, model_path, &mo, &model)) {
        rc = cli_fail(ctx, "classify");
        goto out;
    }
    int classes = infer8_model_num_classes(model);
    if (topk > classes) topk = classes;
    /* images per forward: --batch, else all given up to the model's max batch */
    int max_batch = mo.max_batch > 0 ? (int)mo.max_batch : 32;
    if (batch <= 0) batch = n_images < max_batch ? n_images : max_batch;
    if (batch > max_batch) batch = max_batch;
    float *logits = malloc(sizeof(float) * (size_t)classes * (size_t)batch);
    infer8_class_score *top = malloc(sizeof *top * (size_t)topk);
    unsigned char **data = calloc((size_t)batch, sizeof *data);
    size_t *sizes = calloc((size_t)batch, sizeof *sizes);
    int *ok = calloc((size_t)batch, sizeof *ok);
    if (!logits || !top || !data || !sizes || !ok) {
        free(logits), free(top), free(data), free(sizes), free(ok);
        rc = EXIT_RUNTIME;
        goto out;
    }
    for (int first = 0; first < n_images; first += (int)batch) {
        int n = n_images - first < batch ? n_images - first : (int)batch;
        for (int i = 0; i < n; i++) {
            char why[256];
            ok[i] = read_all(images[first + i], mo.limits.max_image_bytes, &data[i], &sizes[i], why, sizeof why);
            if (!ok[i]) {
                fprintf(stderr, "infer8 classify: error (i/o error): %s: %s\n", images[first + i], why);
                rc = EXIT_INPUT;
            }
        }
        /* the readable images of this batch in one forward; when that fails, one at a time so
         * a bad file names itself and the rest still run */
        const void *ptrs[4096];
        size_t szs[4096];
        int idx[4096], m = 0;
        for (int i = 0; i < n; i++)
            if (ok[i]) ptrs[m] = data[i], szs[m] = sizes[i], idx[m++] = i;
        infer8_status s = m ? infer8_classify_encoded(ctx, model, m, ptrs, szs, logits) : INFER8_OK;
        for (int j = 0; j < m; j++) ok[idx[j]] = 2 + j; /* row j of logits */
        if (s && m > 1) {
            for (int j = 0; j < m; j++) {
                infer8_status s1 = infer8_classify_encoded(ctx, model, 1, &ptrs[j], &szs[j], logits + (size_t)j * classes);
                if (s1) {
                    fprintf(stderr, "infer8 classify: error (%s): %s: %s\n", infer8_status_string(s1),
                            images[first + idx[j]], infer8_errmsg(ctx));
                    rc = cli_exit_code(s1);
                    ok[idx[j]] = 0;
                }
            }
        } else if (s) {
            fprintf(stderr, "infer8 classify: error (%s): %s: %s\n", infer8_status_string(s), images[first + idx[0]],
                    infer8_errmsg(ctx));
            rc = cli_exit_code(s);
            ok[idx[0]] = 0;
        }
        for (int i = 0; i < n; i++) {
            free(data[i]);
            data[i] = NULL;
            if (ok[i] < 2) continue;
            const char *name = images[first + i];
            const float *row = logits + (size_t)(ok[i] - 2) * classes;
            infer8_topk(model, row, (int)topk, top);
            if (json) {
                printf("{\"image\": ");
                cli_json_string(stdout, name);
                printf(", \"top\": [");
                for (int k = 0; k < topk; k++) {
                    printf("%s{\"index\": %d, \"label\": ", k ? ", " : "", top[k].index);
                    cli_json_string(stdout, top[k].label);
                    printf(", \"probability\": %.9g, \"logit\": %.9g}", top[k].probability, top[k].logit);
                }
                printf("], \"logits\": [");
                for (int c = 0; c < classes; c++) printf("%s%.9g", c ? ", " : "", row[c]);
                printf("]}\n");
            } else {
                printf("%s\n", name);
                for (int k = 0; k < topk; k++)
                    printf("  %2d. %6.2f%%  %4d  %s\n", k + 1, 100.0 * top[k].probability, top[k].index, top[k].label);
            }
        }
    }
    free(data), free(sizes), free(ok);
    free(logits);
    free(top);
out:
    infer8_model_close(model);
    infer8_context_free(ctx);
    free(images);
    folder_lists_free(&folders);
    return rc;
}

static const char *const preprocess_help =
    "usage: infer8 preprocess MODEL --image FILE -o OUT.npy [options]\n"
    "\n"
    "Applies the model's eval transform (timm: shorter side to floor(size / crop_pct) with\n"
    "Pillow-exact resampling, center crop, normalize) and writes the float32 tensor [1,3,H,W]\n"
    "(NCHW) as a NumPy .npy file.\n"
    "\n"
    "  --image FILE       the image (JPEG, PNG, WebP; - reads standard input)\n"
    "  -o, --output FILE  the .npy file to write (atomically)\n" CLI_MODEL_OPTIONS_HELP;

int cmd_preprocess(int argc, char **argv) {
    cli_args a = {argc, argv, 1, "preprocess"};
    cli_model_opts mo = {0};
    const char *model_path = NULL, *image = NULL, *out = NULL;
    int error = 0;
    while (a.i < argc && !error) {
        if (!strcmp(argv[a.i], "--help") || !strcmp(argv[a.i], "-h")) {
            fputs(preprocess_help, stdout);
            return 0;
        }
        int r = cli_model_option(&a, &mo);
        if (r < 0) return EXIT_USAGE;
        if (r > 0) continue;
        if (cli_opt_value(&a, "--image", &image, &error)) continue;
        if (cli_opt_value(&a, "-o", &out, &error) || cli_opt_value(&a, "--output", &out, &error)) continue;
        if (argv[a.i][0] == '-') return cli_usage_error("preprocess", "unknown option %s", argv[a.i]);
        if (model_path) return cli_usage_error("preprocess", "unexpected argument %s", argv[a.i]);
        model_path = argv[a.i++];
    }
    if (error) return EXIT_USAGE;
    if (!model_path || !image || !out) return cli_usage_error("preprocess", "MODEL, --image and -o are required");
    infer8_context *ctx = infer8_context_new();
    if (!ctx) return EXIT_RUNTIME;
    infer8_model *model = NULL;
    int rc = 0;
    unsigned char *data = NULL;
    size_t size = 0;
    float *tensor = NULL;
    if (cli_open_model(ctx, model_path, &mo, &model)) {
        rc = cli_fail(ctx, "preprocess");
        goto done;
    }
    infer8_model_info info;
    infer8_model_info_init(&info);
    infer8_model_get_info(model, &info);
    char why[256];
    if (!read_all(image, mo.limits.max_image_bytes, &data, &size, why, sizeof why)) {
        fprintf(stderr, "infer8 preprocess: error (i/o error): %s: %s\n", image, why);
        rc = EXIT_INPUT;
        goto done;
    }
    tensor = malloc(sizeof(float) * 3 * (size_t)info.input_height * (size_t)info.input_width);
    if (!tensor) {
        rc = EXIT_RUNTIME;
        goto done;
    }
    int64_t shape[4] = {1, 3, info.input_height, info.input_width};
    if (infer8_preprocess_encoded(ctx, model, data, size, tensor) || infer8_save_npy(ctx, out, tensor, 4, shape))
        rc = cli_fail(ctx, "preprocess");
done:
    free(data);
    free(tensor);
    infer8_model_close(model);
    infer8_context_free(ctx);
    return rc;
}
