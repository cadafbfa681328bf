/* libFuzzer target: the webdataset tar reader (src/eval/dataset.c, libarchive underneath):
 * open the input as a one-shard TAR dataset and iterate every sample (labels from .cls,
 * members capped at 64 KiB), then rewind and iterate again; data problems must be issues,
 * never errors or crashes. */
#include "fuzz_util.h"
#include "eval/dataset.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    const char *path = fuzz_scratch_file(data, size, ".tar");
    if (!path) return 0;
    i8_dataset_options o;
    memset(&o, 0, sizeof o);
    o.layout = I8_DATASET_TAR;
    o.max_member_bytes = 65536;
    o.num_classes = (size & 1) ? 10 : 0;
    o.every = (size & 2) ? 2 : 1;
    i8_dataset *ds = NULL;
    i8_err err = {0};
    if (i8_dataset_open(&ds, path, &o, &err) != INFER8_OK) {
        if (!err.msg[0]) abort();
        return 0;
    }
    for (int pass = 0; pass < 2; pass++) {
        int has = 1;
        while (has) {
            i8_sample s;
            if (i8_dataset_next(ds, &s, &has, &err) != INFER8_OK) abort(); /* only NOMEM may fail */
            if (has) {
                if (s.size > o.max_member_bytes || !s.key) abort();
                volatile uint8_t x = 0;
                for (size_t i = 0; i < s.size; i++) x ^= s.data[i];
                (void)x;
            }
        }
        if (pass == 0 && i8_dataset_rewind(ds, &err) != INFER8_OK) abort();
    }
    i8_dataset_close(ds);
    return 0;
}
