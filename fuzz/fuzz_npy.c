/* libFuzzer target: .npy reader (i8_npy_read_f32) on arbitrary bytes. */
#include "fuzz_util.h"
#include "formats/config.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    const char *path = fuzz_scratch_file(data, size, ".npy");
    if (!path) return 0;
    float *arr = NULL;
    int ndim = 0;
    int64_t shape[8];
    i8_err err = {0};
    if (i8_npy_read_f32(path, &arr, &ndim, shape, &err) == INFER8_OK) {
        size_t n = 1;
        for (int i = 0; i < ndim; i++) {
            if (shape[i] < 0) abort();
            n *= (size_t)shape[i];
        }
        /* the data size must equal the remainder of the file: touch every element */
        volatile float sink = 0;
        for (size_t i = 0; i < n; i++) sink += arr[i];
        (void)sink;
        free(arr);
    } else if (!err.msg[0]) {
        abort();
    }
    return 0;
}
