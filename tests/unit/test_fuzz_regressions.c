/* Replays every input in fuzz/regressions/<target>/ (crashers found by fuzzing, kept after the
 * fix), fuzz/seeds/<target>/ (hand-written seeds) and tests/malformed/ through the fuzz targets' own harness code (fuzz/fuzz_*.c, compiled
 * in here with renamed entry points), so `make test` and `make test-asan` catch a regression
 * without clang or libFuzzer. A harness aborts on any broken invariant; the sanitizer build
 * adds memory checks. */
#include <dirent.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#define LLVMFuzzerTestOneInput fuzz_safetensors_one
#include "../../fuzz/fuzz_safetensors.c"
#undef LLVMFuzzerTestOneInput
#define LLVMFuzzerTestOneInput fuzz_config_one
#include "../../fuzz/fuzz_config.c"
#undef LLVMFuzzerTestOneInput
#define LLVMFuzzerTestOneInput fuzz_image_one
#include "../../fuzz/fuzz_image.c"
#undef LLVMFuzzerTestOneInput
#define LLVMFuzzerTestOneInput fuzz_preprocess_one
#include "../../fuzz/fuzz_preprocess.c"
#undef LLVMFuzzerTestOneInput
#define LLVMFuzzerTestOneInput fuzz_npy_one
#include "../../fuzz/fuzz_npy.c"
#undef LLVMFuzzerTestOneInput
#define LLVMFuzzerTestOneInput fuzz_scales_one
#include "../../fuzz/fuzz_scales.c"
#undef LLVMFuzzerTestOneInput
#define LLVMFuzzerTestOneInput fuzz_bundle_one
#include "../../fuzz/fuzz_bundle.c"
#undef LLVMFuzzerTestOneInput
#define LLVMFuzzerTestOneInput fuzz_tar_one
#include "../../fuzz/fuzz_tar.c"
#undef LLVMFuzzerTestOneInput
#define LLVMFuzzerTestOneInput fuzz_st_index_one
#include "../../fuzz/fuzz_st_index.c"
#undef LLVMFuzzerTestOneInput
#define LLVMFuzzerTestOneInput fuzz_dataset_text_one
#include "../../fuzz/fuzz_dataset_text.c"
#undef LLVMFuzzerTestOneInput
#define LLVMFuzzerTestOneInput fuzz_shard_pattern_one
#include "../../fuzz/fuzz_shard_pattern.c"
#undef LLVMFuzzerTestOneInput
#define LLVMFuzzerTestOneInput fuzz_recipe_one
#include "../../fuzz/fuzz_recipe.c"
#undef LLVMFuzzerTestOneInput

typedef int (*fuzz_fn)(const uint8_t *, size_t);
static const struct {
    const char *name;
    fuzz_fn fn;
    const char *malformed_suffix;  /* tests/malformed files this harness also takes, or NULL */
} targets[] = {
    {"safetensors", fuzz_safetensors_one, ".safetensors"}, {"config", fuzz_config_one, NULL},
    {"image", fuzz_image_one, NULL},                      {"preprocess", fuzz_preprocess_one, NULL},
    {"npy", fuzz_npy_one, ".npy"},                        {"scales", fuzz_scales_one, NULL},
    {"bundle", fuzz_bundle_one, ".bundle"},               {"tar", fuzz_tar_one, ".tar"},
    {"st_index", fuzz_st_index_one, NULL},            {"recipe", fuzz_recipe_one, NULL},
    {"dataset_text", fuzz_dataset_text_one, NULL},    {"shard_pattern", fuzz_shard_pattern_one, NULL},
};

static size_t replay_dir(const char *dir, const char *suffix, fuzz_fn fn, const char *prefix) {
    DIR *d = opendir(dir);
    if (!d) return 0;
    size_t n = 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        size_t len = strlen(e->d_name);
        if (e->d_name[0] == '.') continue;
        if (prefix && strncmp(e->d_name, prefix, strlen(prefix)) != 0) continue;
        if (suffix && (len < strlen(suffix) || strcmp(e->d_name + len - strlen(suffix), suffix) != 0)) continue;
        char path[4096];
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        FILE *f = fopen(path, "rb");
        assert_non_null(f);
        static uint8_t buf[1 << 20];
        size_t size = fread(buf, 1, sizeof buf, f);
        fclose(f);
        uint8_t *copy = malloc(size ? size : 1); /* exact-size buffer so ASan sees overreads */
        assert_non_null(copy);
        memcpy(copy, buf, size);
        printf("replay %s\n", path);
        fn(copy, size);
        free(copy);
        n++;
    }
    closedir(d);
    return n;
}

static void test_replay(void **state) {
    (void)state;
    size_t total = 0;
    for (size_t i = 0; i < sizeof targets / sizeof targets[0]; i++) {
        char dir[4096];
        snprintf(dir, sizeof dir, "%s/fuzz/regressions/%s", INFER8_SOURCE_DIR, targets[i].name);
        total += replay_dir(dir, NULL, targets[i].fn, NULL);
        /* the hand-written seeds (the only inputs of the newer harnesses outside fuzzing) */
        snprintf(dir, sizeof dir, "%s/fuzz/seeds/%s", INFER8_SOURCE_DIR, targets[i].name);
        total += replay_dir(dir, NULL, targets[i].fn, NULL);
        snprintf(dir, sizeof dir, "%s/tests/malformed", INFER8_SOURCE_DIR);
        if (targets[i].malformed_suffix) total += replay_dir(dir, targets[i].malformed_suffix, targets[i].fn, NULL);
    }
    /* the image and config harnesses take the malformed images / config files too */
    char dir[4096];
    snprintf(dir, sizeof dir, "%s/tests/malformed", INFER8_SOURCE_DIR);
    total += replay_dir(dir, NULL, fuzz_image_one, "img_");
    total += replay_dir(dir, NULL, fuzz_config_one, "config_");
    total += replay_dir(dir, NULL, fuzz_scales_one, "scales_");
    total += replay_dir(dir, NULL, fuzz_recipe_one, "recipe_");
    printf("replayed %zu inputs\n", total);
    assert_true(total >= 85);
}

int main(void) {
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_replay)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
