/* libFuzzer target: the webdataset tar reader (src/eval/dataset.c, libarchive underneath):
 * open the input as a one-shard TAR dataset and iterate every sample (labels from .cls,
 * members capped at 64 KiB), then rewind and iterate again; data problems must be issues,
 * never errors or crashes. */
#include "fuzz_util.h"
#include "fuzz_dataset.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    const char *path = fuzz_scratch_file(data, size, ".tar");
    if (!path) return 0;
    i8_dataset_options o;
    memset(&o, 0, sizeof o);
    o.layout = I8_DATASET_TAR;
    o.max_member_bytes = 65536;
    o.num_classes = (size & 1) ? 10 : 0;
    o.every = (size & 2) ? 2 : 1;
    fuzz_dataset_iterate(path, &o);
    return 0;
}
