/* libFuzzer target: scales.json parser (i8_scales_parse); accepted names must be unique. */
#include "fuzz_util.h"
#include "quant/scales.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    i8_scales s;
    memset(&s, 0, sizeof s);
    i8_err err = {0};
    i8_limits limits;
    i8_limits_default(&limits);
    limits.max_tensors = 10000;
    if (i8_scales_parse((const char *)data, size, "scales.json", &limits, &s, &err) != INFER8_OK) {
        if (!err.msg[0]) abort();
        return 0;
    }
    for (size_t i = 0; i < s.count; i++)
        if (i8_scales_find(&s, s.tensors[i].name) != &s.tensors[i]) abort();
    i8_scales_free(&s);
    return 0;
}
