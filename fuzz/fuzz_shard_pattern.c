/* libFuzzer target: webdataset shard patterns (i8_dataset_expand: commas, {A..B} ranges,
 * {x,y} alternatives, several groups), at most 10000 names. The bytes up to the first NUL are
 * the pattern. An accepted pattern gives 1..10000 non-empty names with no brace left; a refusal
 * must carry a message. */
#include "fuzz_util.h"
#include "eval/dataset.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    char pattern[I8_DATASET_MAX_PATH + 2];
    size_t n = size < sizeof pattern - 1 ? size : sizeof pattern - 1;
    memcpy(pattern, data, n);
    pattern[n] = 0;
    char **names = NULL;
    size_t count = 0;
    i8_err err = {0};
    if (i8_dataset_expand(pattern, 10000, &names, &count, &err) != INFER8_OK) {
        if (!err.msg[0]) abort();
        return 0;
    }
    if (count < 1 || count > 10000) abort();
    for (size_t i = 0; i < count; i++)
        if (!names[i][0] || strchr(names[i], '{') || strchr(names[i], '}')) abort();
    i8_dataset_free_names(names, count);
    return 0;
}
