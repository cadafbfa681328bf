/* Minimal consumer of libinfer8 (include/infer8.h), built against an installed copy through
 * pkg-config:
 *
 *     cc classify.c $(pkg-config --cflags --libs infer8) -o classify
 *     ./classify model.bundle image.png [k]
 *
 * Opens a bundle (or a checkpoint folder), prints the model's family, precision and input size,
 * then the top-k classes of the image, one per line: rank, index, probability, label. */
#include <stdio.h>
#include <stdlib.h>

#include <infer8.h>

static unsigned char *read_all(const char *path, size_t *size) {
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    unsigned char *buf = NULL;
    if (fseek(f, 0, SEEK_END) == 0) {
        long n = ftell(f);
        if (n >= 0 && fseek(f, 0, SEEK_SET) == 0 && (buf = malloc((size_t)n + 1)) != NULL &&
            fread(buf, 1, (size_t)n, f) != (size_t)n) {
            free(buf);
            buf = NULL;
        }
        *size = (size_t)n;
    }
    fclose(f);
    return buf;
}

int main(int argc, char **argv) {
    if (argc < 3) {
        fprintf(stderr, "usage: %s MODEL IMAGE [K]\n", argv[0]);
        return 64;
    }
    int k = argc > 3 ? atoi(argv[3]) : 5;
    infer8_context *ctx = infer8_context_new();
    infer8_model *model = NULL;
    if (!ctx || infer8_model_open(ctx, argv[1], NULL, &model) != INFER8_OK) {
        fprintf(stderr, "open: %s\n", ctx ? infer8_errmsg(ctx) : "out of memory");
        return 2;
    }
    infer8_model_info info;
    infer8_model_info_init(&info);
    infer8_model_get_info(model, &info);
    printf("%s %s %dx%d\n", info.arch, info.precision, info.input_height, info.input_width);

    size_t size = 0;
    unsigned char *image = read_all(argv[2], &size);
    int classes = infer8_model_num_classes(model);
    float *logits = malloc(sizeof(float) * (size_t)classes);
    infer8_class_score *top = malloc(sizeof *top * (size_t)(k > 0 ? k : 1));
    const void *images[1] = {image};
    int rc = 0;
    if (!image || !logits || !top || k < 1) {
        fprintf(stderr, "cannot read %s (or bad K)\n", argv[2]);
        rc = 2;
    } else if (infer8_classify_encoded(ctx, model, 1, images, &size, logits) != INFER8_OK) {
        fprintf(stderr, "classify: %s\n", infer8_errmsg(ctx));
        rc = 2;
    } else {
        infer8_topk(model, logits, k, top);
        for (int i = 0; i < k && i < classes; i++)
            printf("%d %d %.6f %s\n", i + 1, top[i].index, top[i].probability, top[i].label);
    }
    free(image);
    free(logits);
    free(top);
    infer8_model_close(model);
    infer8_context_free(ctx);
    return rc;
}
