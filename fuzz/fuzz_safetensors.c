/* libFuzzer target: safetensors reader (i8_st_open) on arbitrary bytes, then lookup and
 * float conversion of every small floating tensor it accepted. */
#include "fuzz_util.h"
#include "formats/safetensors.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    const char *path = fuzz_scratch_file(data, size, ".safetensors");
    if (!path) return 0;
    const i8_limits limits = fuzz_checkpoint_limits();
    i8_safetensors st;
    memset(&st, 0, sizeof st);
    i8_err err = {0};
    if (i8_st_open(&st, path, &limits, &err) == INFER8_OK) {
        for (int i = 0; i < st.n_tensors; i++) {
            const i8_st_tensor *t = &st.tensors[i];
            if (i8_st_find(&st, t->name) != t) abort(); /* names are unique: lookup must find this one */
            if (i8_st_nelems(t) > (1u << 20)) continue;
            float *f = NULL;
            if (i8_st_to_f32(t, &f, &err) == INFER8_OK) free(f);
        }
        i8_st_close(&st);
    } else if (!err.msg[0]) {
        abort(); /* every failure carries a message */
    }
    return 0;
}
