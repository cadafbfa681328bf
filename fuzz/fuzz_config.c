/* libFuzzer target: config.json parser (i8_config_parse) on arbitrary text. */
#include "fuzz_util.h"
#include "formats/config.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    i8_model_config cfg;
    memset(&cfg, 0, sizeof cfg);
    cfg.num_classes = 1000;
    i8_err err = {0};
    if (i8_config_parse(&cfg, (const char *)data, size, "config.json", &err) == INFER8_OK) {
        char *json = NULL;
        if (i8_config_to_json(&cfg, NULL, NULL, &json, &err) == INFER8_OK) free(json);
        i8_config_free(&cfg);
    } else if (!err.msg[0]) {
        abort();
    }
    return 0;
}
