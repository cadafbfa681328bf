/* libFuzzer target: sharded-checkpoint index (i8_st_open_index: model.safetensors.index.json)
 * over a fixed folder of small shards made once per process: "a.safetensors" (x F32 [2],
 * y F16 [1]), "b.safetensors" (z BF16 [2,1]) and "bad.safetensors" (truncated). The fuzzed
 * bytes are the index; the weight_map may name any shard, a missing one, a path ("../a", "/x"),
 * a key in the wrong shard or in two. An accepted index must find every mapped key in the
 * shard it names and convert it; a refusal must carry a message. */
#include "fuzz_util.h"
#include "formats/safetensors.h"

#include <cjson/cJSON.h>

static char index_dir[200];

static void remove_index_dir(void) {
    static const char *const names[] = {"a.safetensors", "b.safetensors", "bad.safetensors",
                                        "model.safetensors.index.json"};
    char path[300];
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        snprintf(path, sizeof path, "%s/%s", index_dir, names[i]);
        unlink(path);
    }
    rmdir(index_dir);
}

/* A .safetensors file: 8-byte little-endian header length, the header padded with spaces to
 * a multiple of 8, then the data. */
static int write_shard(const char *name, const char *header, const void *payload, size_t payload_size) {
    char path[300], buf[512];
    size_t hlen = strlen(header), padded = (hlen + 7) / 8 * 8;
    if (8 + padded + payload_size > sizeof buf) return 0;
    uint64_t n = padded;
    for (int i = 0; i < 8; i++) buf[i] = (char)(n >> (8 * i));
    memcpy(buf + 8, header, hlen);
    memset(buf + 8 + hlen, ' ', padded - hlen);
    memcpy(buf + 8 + padded, payload, payload_size);
    snprintf(path, sizeof path, "%s/%s", index_dir, name);
    return fuzz_write_file(path, buf, 8 + padded + payload_size);
}

static int make_shards(void) {
    if (index_dir[0]) return 1;
    snprintf(index_dir, sizeof index_dir, "%s/infer8-fuzz-index-XXXXXX", fuzz_scratch_base());
    if (!mkdtemp(index_dir)) return 0;
    atexit(remove_index_dir);
    const float xa[2] = {1.5f, -2.0f};
    uint8_t a[10];
    memcpy(a, xa, 8);
    a[8] = 0x00, a[9] = 0x3c; /* fp16 1.0 */
    const uint8_t b[4] = {0x80, 0x3f, 0x00, 0xc0}; /* bf16 1.0, -2.0 */
    return write_shard("a.safetensors",
                       "{\"x\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[0,8]},"
                       "\"y\":{\"dtype\":\"F16\",\"shape\":[1],\"data_offsets\":[8,10]}}",
                       a, sizeof a) &&
           write_shard("b.safetensors", "{\"z\":{\"dtype\":\"BF16\",\"shape\":[2,1],\"data_offsets\":[0,4]}}", b,
                       sizeof b) &&
           write_shard("bad.safetensors", "{\"w\":{\"dtype\":\"F32\",\"shape\":[4],\"data_offsets\":[0,16]}}", xa,
                       8); /* 8 of its 16 data bytes: refused */
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (!make_shards()) return 0;
    char path[300];
    snprintf(path, sizeof path, "%s/model.safetensors.index.json", index_dir);
    if (!fuzz_write_file(path, data, size)) return 0;
    const i8_limits limits = fuzz_checkpoint_limits();
    i8_safetensors st;
    memset(&st, 0, sizeof st);
    i8_err err = {0};
    if (i8_st_open_index(&st, path, &limits, &err) != INFER8_OK) {
        if (!err.msg[0]) abort();
        return 0;
    }
    /* accepted: every weight_map key is in the shard it names and converts */
    cJSON *root = cJSON_ParseWithLength((const char *)data, size);
    const cJSON *wm = cJSON_GetObjectItemCaseSensitive(root, "weight_map");
    if (!cJSON_IsObject(wm)) abort();
    for (const cJSON *c = wm->child; c; c = c->next) {
        const i8_st_tensor *t = i8_st_find(&st, c->string);
        if (!t || t->file_index < 0 || t->file_index >= st.n_files) abort();
        float *v = NULL;
        if (i8_st_to_f32(t, &v, &err) != INFER8_OK) abort(); /* every shard tensor here is a float */
        free(v);
    }
    for (int i = 0; i < st.n_tensors; i++)
        if (i8_st_find(&st, st.tensors[i].name) != &st.tensors[i]) abort();
    cJSON_Delete(root);
    i8_st_close(&st);
    return 0;
}
