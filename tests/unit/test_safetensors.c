/* Unit tests of the safetensors reader/writer: round trips over dtypes and shapes, exact header
 * bytes, every malformed-header case built here (each with its status code and the key or
 * offset in the message), sharded index, F16/BF16/F64 conversion against hand-computed values,
 * and an independent check of the written header with Python's json + struct. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "formats/safetensors.h"
#include "test_work.h"

static int setup_work(void **state) {
    (void)state;
    return i8_test_work_init("test_safetensors");
}

static void write_bytes(const char *path, const void *data, size_t n) {
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    if (n) assert_int_equal(fwrite(data, 1, n, f), n);
    fclose(f);
}

static uint8_t *read_bytes(const char *path, size_t *n) {
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    fseek(f, 0, SEEK_END);
    long size = ftell(f);
    fseek(f, 0, SEEK_SET);
    uint8_t *p = malloc((size_t)size + 1);
    assert_int_equal(fread(p, 1, (size_t)size, f), (size_t)size);
    fclose(f);
    *n = (size_t)size;
    return p;
}

/* File = 8-byte LE header_len (the given value, or the header's true length if UINT64_MAX),
 * header text, data_len bytes 0, 1, 2, ... */
static void write_raw(const char *path, uint64_t header_len, const char *header, size_t data_len) {
    size_t hn = strlen(header);
    size_t total = 8 + hn + data_len;
    uint8_t *b = malloc(total);
    uint64_t n = header_len == UINT64_MAX ? hn : header_len;
    for (int i = 0; i < 8; i++) b[i] = (uint8_t)(n >> (8 * i));
    memcpy(b + 8, header, hn);
    for (size_t i = 0; i < data_len; i++) b[8 + hn + i] = (uint8_t)i;
    write_bytes(path, b, total);
    free(b);
}

static void expect_fail_limits(const char *header, uint64_t header_len, size_t data_len, const i8_limits *limits,
                               infer8_status code, const char *needle1, const char *needle2) {
    const char *path = i8_test_work_path("bad.safetensors");
    write_raw(path, header_len, header, data_len);
    i8_safetensors st;
    memset(&st, 0, sizeof st);
    i8_err err = {0};
    infer8_status s = i8_st_open(&st, path, limits, &err);
    if (s != code || !strstr(err.msg, path) || (needle1 && !strstr(err.msg, needle1)) ||
        (needle2 && !strstr(err.msg, needle2)))
        print_error("header %s\n  got status %d, message: %s\n", header, s, err.msg);
    assert_int_equal(s, code);
    assert_non_null(strstr(err.msg, path));
    if (needle1) assert_non_null(strstr(err.msg, needle1));
    if (needle2) assert_non_null(strstr(err.msg, needle2));
    /* out-parameter untouched on failure */
    assert_int_equal(st.n_tensors, 0);
    assert_null(st.tensors);
    assert_null(st.files);
}

static void expect_fail(const char *header, size_t data_len, infer8_status code, const char *n1, const char *n2) {
    expect_fail_limits(header, UINT64_MAX, data_len, NULL, code, n1, n2);
}

/* ---- writer/reader round trip ---- */

static void test_roundtrip(void **state) {
    float w[6] = {1, 2, 3, 4, 5, 6};
    uint16_t h[4] = {0x3c00, 0xc000, 0x3800, 0x7bff}; /* 1, -2, 0.5, 65504 */
    uint16_t bf[4] = {0x3f80, 0xc0a0, 0x4049, 0x0000};
    int64_t nbt = 7;
    double dd[3] = {1.0 / 3.0, -2.5, 1e300};
    int32_t r8 = 42;
    uint8_t none = 0;
    int64_t s23[] = {2, 3}, s4[] = {4}, s22[] = {2, 2}, s3[] = {3}, s8[] = {1, 1, 1, 1, 1, 1, 1, 1}, s0[] = {0, 5};
    /* given order z..., data laid out in this order; header sorted by name */
    i8_st_write_entry e[] = {
        {"z.weight", I8_DTYPE_F32, 2, s23, w},        {"bn.num_batches_tracked", I8_DTYPE_I64, 0, NULL, &nbt},
        {"half", I8_DTYPE_F16, 1, s4, h},             {"brain", I8_DTYPE_BF16, 2, s22, bf},
        {"double", I8_DTYPE_F64, 1, s3, dd},          {"rank8", I8_DTYPE_I32, 8, s8, &r8},
        {"empty", I8_DTYPE_U8, 2, s0, &none},
    };
    int n = (int)I8_ARRAY_LEN(e);
    const char *path = i8_test_work_path("rt.safetensors");
    i8_err err = {0};
    assert_int_equal(i8_st_write(path, e, n, "{\"format\":\"pt\"}", &err), INFER8_OK);

    i8_safetensors st;
    assert_int_equal(i8_st_open(&st, path, NULL, &err), INFER8_OK);
    assert_int_equal(st.n_tensors, n);
    assert_int_equal(st.n_files, 1);
    for (int i = 1; i < st.n_tensors; i++) assert_true(strcmp(st.tensors[i - 1].name, st.tensors[i].name) < 0);
    uint64_t expect_off = 0;
    for (int i = 0; i < n; i++) {
        const i8_st_tensor *t = i8_st_find(&st, e[i].name);
        assert_non_null(t);
        assert_string_equal(t->name, e[i].name);
        assert_int_equal(t->dtype, e[i].dtype);
        assert_int_equal(t->ndim, e[i].ndim);
        uint64_t cnt = 1;
        for (int d = 0; d < e[i].ndim; d++) {
            assert_int_equal(t->shape[d], e[i].shape[d]);
            cnt *= (uint64_t)e[i].shape[d];
        }
        assert_int_equal(i8_st_nelems(t), cnt);
        assert_int_equal(t->nbytes, cnt * i8_dtype_size(e[i].dtype));
        if (t->nbytes) assert_memory_equal(t->data, e[i].data, t->nbytes);
        /* data in the given order, right after the header */
        assert_int_equal(t->file_offset - (st.files[0].size - (6 * 4 + 8 + 8 + 8 + 24 + 4)), expect_off);
        expect_off += t->nbytes;
    }
    assert_null(i8_st_find(&st, "missing"));
    assert_null(i8_st_find(&st, "a"));
    assert_null(i8_st_find(&st, "zz"));

    float *f = NULL;
    assert_int_equal(i8_st_to_f32(i8_st_find(&st, "z.weight"), &f, &err), INFER8_OK);
    assert_memory_equal(f, w, sizeof w);
    free(f);
    assert_int_equal(i8_st_to_f32(i8_st_find(&st, "rank8"), &f, &err), INFER8_E_SHAPE);
    assert_non_null(strstr(err.msg, "dtype I32 not a float type"));
    assert_non_null(strstr(err.msg, "rank8"));
    i8_st_close(&st);

    /* deterministic bytes */
    size_t n1, n2;
    uint8_t *b1 = read_bytes(path, &n1);
    const char *path2 = i8_test_work_path("rt2.safetensors");
    assert_int_equal(i8_st_write(path2, e, n, "{\"format\":\"pt\"}", &err), INFER8_OK);
    uint8_t *b2 = read_bytes(path2, &n2);
    assert_int_equal(n1, n2);
    assert_memory_equal(b1, b2, n1);
    free(b1);
    free(b2);
}

/* The exact bytes the Python library writes for {"b": F32 [2], "a": I64 []}, data order b, a. */
static void test_exact_header_bytes(void **state) {
    float b[2] = {1.5f, -2};
    int64_t a = 3;
    int64_t s2[] = {2};
    i8_st_write_entry e[] = {{"b", I8_DTYPE_F32, 1, s2, b}, {"a", I8_DTYPE_I64, 0, NULL, &a}};
    const char *path = i8_test_work_path("exact.safetensors");
    i8_err err = {0};
    assert_int_equal(i8_st_write(path, e, 2, "{\"z\":\"1\",\"format\":\"pt\"}", &err), INFER8_OK);
    const char *hdr = "{\"__metadata__\":{\"format\":\"pt\",\"z\":\"1\"},"
                      "\"a\":{\"dtype\":\"I64\",\"shape\":[],\"data_offsets\":[8,16]},"
                      "\"b\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[0,8]}}";
    size_t hl = strlen(hdr), padded = (hl + 7) / 8 * 8;
    size_t n;
    uint8_t *bytes = read_bytes(path, &n);
    assert_int_equal(n, 8 + padded + 16);
    uint64_t len = 0;
    for (int i = 7; i >= 0; i--) len = (len << 8) | bytes[i];
    assert_int_equal(len, padded);
    assert_memory_equal(bytes + 8, hdr, hl);
    for (size_t i = hl; i < padded; i++) assert_int_equal(bytes[8 + i], ' ');
    assert_memory_equal(bytes + 8 + padded, b, 8);
    assert_memory_equal(bytes + 8 + padded + 8, &a, 8);
    free(bytes);

    /* writer refuses bad input */
    i8_st_write_entry dup[] = {{"a", I8_DTYPE_F32, 1, s2, b}, {"a", I8_DTYPE_F32, 1, s2, b}};
    assert_int_equal(i8_st_write(i8_test_work_path("dup.safetensors"), dup, 2, NULL, &err), INFER8_E_INVALID_ARGUMENT);
    assert_non_null(strstr(err.msg, "'a'"));
    assert_int_equal(i8_st_write(i8_test_work_path("meta.safetensors"), e, 2, "{\"k\": 1}", &err), INFER8_E_INVALID_ARGUMENT);
    assert_int_equal(access(i8_test_work_path("meta.safetensors"), F_OK), -1); /* nothing left behind */
}

/* Independent check with Python (json + struct + numpy): header is valid JSON, 8-byte
 * padded, __metadata__ first then keys sorted, and the data reads back as written. */
static void test_python_reads_header(void **state) {
    if (system("/usr/bin/python3 -c 'import numpy' 2>/dev/null") != 0) {
        printf("NOTICE: /usr/bin/python3 with numpy not available; Python header check skipped\n");
        return;
    }
    float w[6] = {1, 2, 3, 4, 5, 6};
    uint16_t h[4] = {0x3c00, 0xc000, 0x3800, 0x7bff};
    int64_t nbt = 7;
    int64_t s23[] = {2, 3}, s4[] = {4};
    i8_st_write_entry e[] = {
        {"b.weight", I8_DTYPE_F32, 2, s23, w},
        {"a.bias", I8_DTYPE_F16, 1, s4, h},
        {"bn.num_batches_tracked", I8_DTYPE_I64, 0, NULL, &nbt},
        {"caf\xc3\xa9 \"q\"", I8_DTYPE_F32, 1, s4, w},
    };
    const char *path = i8_test_work_path("py.safetensors");
    i8_err err = {0};
    assert_int_equal(i8_st_write(path, e, 4, "{\"format\":\"pt\"}", &err), INFER8_OK);
    const char *script = i8_test_work_path("check_st.py");
    FILE *f = fopen(script, "w");
    assert_non_null(f);
    fputs("import json, struct, sys\n"
          "import numpy as np\n"
          "raw = open(sys.argv[1], 'rb').read()\n"
          "(n,) = struct.unpack('<Q', raw[:8])\n"
          "assert n % 8 == 0 and 8 + n <= len(raw), n\n"
          "text = raw[8:8 + n].decode('utf-8')\n"
          "assert text.rstrip(' ') == text.rstrip(), 'padding must be spaces'\n"
          "pairs = json.loads(text, object_pairs_hook=lambda p: p)\n"
          "keys = [k for k, _ in pairs]\n"
          "assert keys[0] == '__metadata__', keys\n"
          "assert keys[1:] == sorted(keys[1:]), keys\n"
          "hdr = dict(pairs)\n"
          "assert dict(hdr['__metadata__']) == {'format': 'pt'}\n"
          "data = raw[8 + n:]\n"
          "dt = {'F32': '<f4', 'F16': '<f2', 'I64': '<i8'}\n"
          "def get(k):\n"
          "    e = dict(hdr[k]); b, en = e['data_offsets']\n"
          "    return np.frombuffer(data[b:en], dtype=dt[e['dtype']]).reshape(e['shape'])\n"
          "assert get('b.weight').tolist() == [[1, 2, 3], [4, 5, 6]]\n"
          "assert get('a.bias').astype(float).tolist() == [1.0, -2.0, 0.5, 65504.0]\n"
          "assert get('bn.num_batches_tracked').shape == () and int(get('bn.num_batches_tracked')) == 7\n"
          "assert get('caf\\u00e9 \"q\"').tolist() == [1, 2, 3, 4]\n"
          "assert dict(hdr['b.weight'])['data_offsets'] == [0, 24]\n"
          "assert len(data) == 24 + 8 + 8 + 16\n"
          "print('python check ok')\n",
          f);
    fclose(f);
    char cmd[2048];
    snprintf(cmd, sizeof cmd, "/usr/bin/python3 '%s' '%s'", script, path);
    assert_int_equal(system(cmd), 0);
}

/* ---- malformed headers ---- */

#define ENTRY(dtype, shape, b, e) "{\"dtype\":\"" dtype "\",\"shape\":" shape ",\"data_offsets\":[" b "," e "]}"

static void test_bad_length_field(void **state) {
    /* header length beyond the file */
    expect_fail_limits("{}", 1000, 16, NULL, INFER8_E_FORMAT, "header length 1000", "offset 0");
    /* header length huge: above the JSON limit */
    expect_fail_limits("{}", 1ull << 60, 0, NULL, INFER8_E_LIMIT, "1152921504606846976", "offset 0");
    i8_limits lim;
    i8_limits_default(&lim);
    lim.max_json_bytes = 8;
    expect_fail_limits("{\"a\":" ENTRY("F32", "[1]", "0", "4") "}", UINT64_MAX, 4, &lim, INFER8_E_LIMIT, "limit", NULL);
    /* shorter than the length field */
    const char *path = i8_test_work_path("tiny.safetensors");
    write_bytes(path, "\x02\0\0", 3);
    i8_safetensors st;
    i8_err err = {0};
    assert_int_equal(i8_st_open(&st, path, NULL, &err), INFER8_E_FORMAT);
    assert_non_null(strstr(err.msg, "offset 0"));
    /* absent file */
    assert_int_equal(i8_st_open(&st, i8_test_work_path("does-not-exist.safetensors"), NULL, &err), INFER8_E_IO);
    assert_non_null(strstr(err.msg, "does-not-exist"));
}

static void test_bad_json(void **state) {
    expect_fail("{\"a\":", 0, INFER8_E_FORMAT, "file offset", NULL);
    expect_fail("{\"a\":1} x", 0, INFER8_E_FORMAT, "file offset 16", NULL);
    expect_fail("[1, 2]", 0, INFER8_E_FORMAT, "not a JSON object", NULL);
    expect_fail("{\"k\": 5}", 0, INFER8_E_FORMAT, "'k'", "not a JSON object");
    expect_fail("{\"k\":{\"shape\":[1],\"data_offsets\":[0,4]}}", 4, INFER8_E_FORMAT, "'k'", "dtype");
    expect_fail("{\"k\":{\"dtype\":\"F32\",\"data_offsets\":[0,4]}}", 4, INFER8_E_FORMAT, "'k'", "shape");
    expect_fail("{\"k\":{\"dtype\":\"F32\",\"shape\":[1]}}", 4, INFER8_E_FORMAT, "'k'", "data_offsets");
    expect_fail("{\"k\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[0,4,8]}}", 8, INFER8_E_FORMAT, "'k'",
                "data_offsets");
}

static void test_bad_offsets(void **state) {
    /* truncated data: the header claims 16 bytes, the data area holds 8 */
    expect_fail("{\"t\":" ENTRY("F32", "[4]", "0", "16") "}", 8, INFER8_E_FORMAT, "'t'", "data area of 8 bytes");
    /* negative offset */
    expect_fail("{\"neg\":" ENTRY("F32", "[4]", "-1", "15") "}", 16, INFER8_E_FORMAT, "'neg'", "data_offsets[0]");
    /* begin > end */
    expect_fail("{\"rev\":" ENTRY("F32", "[1]", "8", "4") "}", 16, INFER8_E_FORMAT, "'rev'", "[8, 4]");
    /* offsets past the end */
    expect_fail("{\"far\":" ENTRY("F32", "[1]", "100", "104") "}", 8, INFER8_E_FORMAT, "'far'", "[100, 104]");
    /* non-integer offset */
    expect_fail("{\"fr\":" ENTRY("F32", "[1]", "0.5", "4.5") "}", 8, INFER8_E_FORMAT, "'fr'", "data_offsets[0]");
    expect_fail("{\"s\":" ENTRY("F32", "[1]", "\"0\"", "4") "}", 8, INFER8_E_FORMAT, "'s'", "data_offsets[0]");
    /* overlapping tensors */
    expect_fail("{\"a\":" ENTRY("F32", "[2]", "0", "8") ",\"b\":" ENTRY("F32", "[2]", "4", "12") "}", 12,
                INFER8_E_FORMAT, "overlap", "[4, 12]");
    /* dtype/shape byte count mismatch: the exact message */
    expect_fail("{\"conv.weight\":" ENTRY("F32", "[10, 4]", "0", "400") "}", 400, INFER8_E_FORMAT,
                "tensor 'conv.weight': data_offsets [0, 400] give 400 bytes but F32 [10, 4] needs 160", NULL);
}

static void test_bad_entries(void **state) {
    /* duplicated keys */
    expect_fail("{\"a\":" ENTRY("F32", "[1]", "0", "4") ",\"a\":" ENTRY("F32", "[1]", "4", "8") "}", 8, INFER8_E_FORMAT,
                "'a'", "twice");
    /* non-UTF-8 key: refused before cJSON reads the header, at its offset in the file (8 + 3) */
    expect_fail("{\"w\xff\xfe\":" ENTRY("F32", "[1]", "0", "4") "}", 4, INFER8_E_FORMAT,
                "not JSON text: invalid UTF-8 (byte 0xff) at byte offset 11", NULL);
    /* overlong encoding of '/' is not UTF-8 either */
    expect_fail("{\"a\xc0\xaf\":" ENTRY("F32", "[1]", "0", "4") "}", 4, INFER8_E_FORMAT,
                "invalid UTF-8 (byte 0xc0) at byte offset 11", NULL);
    /* a raw control byte inside a key: JSON requires it escaped */
    expect_fail("{\"a\x1b[2J\":" ENTRY("F32", "[1]", "0", "4") "}", 4, INFER8_E_FORMAT,
                "not JSON text: control byte 0x1b at byte offset 11", NULL);
    /* the same, escaped: valid JSON, refused as a name infer8 would print */
    expect_fail("{\"a\\u001b[2J\":" ENTRY("F32", "[1]", "0", "4") "}", 4, INFER8_E_FORMAT, "\\x1b", "UTF-8");
    /* empty key */
    expect_fail("{\"\":" ENTRY("F32", "[1]", "0", "4") "}", 4, INFER8_E_FORMAT, "empty tensor name", NULL);
    /* unknown dtype */
    expect_fail("{\"odd\":" ENTRY("F128", "[1]", "0", "16") "}", 16, INFER8_E_UNSUPPORTED, "'odd'", "'F128'");
    /* rank > 8 */
    expect_fail("{\"r9\":" ENTRY("F32", "[1,1,1,1,1,1,1,1,1]", "0", "4") "}", 4, INFER8_E_UNSUPPORTED, "'r9'",
                "rank 9");
    /* negative and fractional dimensions */
    expect_fail("{\"n\":" ENTRY("F32", "[-1]", "0", "0") "}", 0, INFER8_E_FORMAT, "'n'", "shape[0]");
    expect_fail("{\"f\":" ENTRY("F32", "[2, 1.5]", "0", "12") "}", 12, INFER8_E_FORMAT, "'f'", "shape[1]");
    /* above 2^53 - 1: not exactly representable, refused */
    expect_fail("{\"big\":" ENTRY("U8", "[9007199254740993]", "0", "0") "}", 0, INFER8_E_FORMAT, "'big'", "shape[0]");
    /* element count overflow (2^32 * 2^32 wraps to 0 in 64 bits) */
    expect_fail("{\"ov\":" ENTRY("U8", "[4294967296, 4294967296]", "0", "0") "}", 0, INFER8_E_FORMAT, "'ov'",
                "overflows");
    expect_fail("{\"ov4\":" ENTRY("F32", "[4611686018427387, 1024]", "0", "0") "}", 0, INFER8_E_FORMAT, "'ov4'",
                "overflows");
    /* too many tensors */
    i8_limits lim;
    i8_limits_default(&lim);
    lim.max_tensors = 1;
    expect_fail_limits("{\"a\":" ENTRY("F32", "[1]", "0", "4") ",\"b\":" ENTRY("F32", "[1]", "4", "8") "}", UINT64_MAX,
                       8, &lim, INFER8_E_LIMIT, "2 tensors", NULL);
}

static void test_accepted_edge_cases(void **state) {
    /* zero-sized tensors may share an offset; a huge dim times 0 is fine; metadata of any
     * shape is ignored; the data area may have gaps */
    const char *hdr = "{\"__metadata__\":{\"x\":[1]},"
                      "\"e1\":" ENTRY("F32", "[0]", "4", "4") ",\"e2\":" ENTRY("F32", "[4294967296, 4294967296, 0]", "4", "4")
                      ",\"u\":" ENTRY("U8", "[1]", "0", "1") ",\"f\":" ENTRY("F32", "[2]", "1", "9") "}";
    /* pad so the data starts on a multiple of 8: F32 data at file offset +1 is unaligned */
    char padded[512];
    size_t n = strlen(hdr);
    snprintf(padded, sizeof padded, "%s%*s", hdr, (int)((8 - n % 8) % 8), "");
    const char *path = i8_test_work_path("edge.safetensors");
    size_t hn = strlen(padded);
    uint8_t file[600];
    for (int i = 0; i < 8; i++) file[i] = (uint8_t)((uint64_t)hn >> (8 * i));
    memcpy(file + 8, padded, hn);
    float vals[2] = {3.25f, -0.125f};
    file[8 + hn] = 0xab;
    memcpy(file + 8 + hn + 1, vals, 8);
    memset(file + 8 + hn + 9, 0, 7); /* trailing unused bytes */
    write_bytes(path, file, 8 + hn + 16);
    i8_safetensors st;
    i8_err err = {0};
    assert_int_equal(i8_st_open(&st, path, NULL, &err), INFER8_OK);
    assert_int_equal(st.n_tensors, 4);
    const i8_st_tensor *t = i8_st_find(&st, "f");
    assert_non_null(t);
    assert_int_equal(t->file_offset, 8 + hn + 1);
    assert_int_equal(((uintptr_t)t->data) % 4, 1);
    float *f = NULL;
    assert_int_equal(i8_st_to_f32(t, &f, &err), INFER8_OK);
    assert_true(f[0] == 3.25f && f[1] == -0.125f);
    free(f);
    assert_int_equal(i8_st_find(&st, "e2")->nbytes, 0);
    assert_int_equal(i8_st_find(&st, "u")->data[0], 0xab);
    i8_st_close(&st);
    assert_int_equal(st.n_tensors, 0);
}

/* ---- conversion against hand-computed values ---- */

static void test_half_conversion(void **state) {
    uint16_t h[] = {0x3c00, 0xc000, 0x3555, 0x7bff, 0x0001, 0xfc00, 0x8000, 0x0400};
    float he[] = {1.0f, -2.0f, 0.333251953125f, 65504.0f, 5.9604644775390625e-08f, -INFINITY, -0.0f,
                  6.103515625e-05f};
    uint16_t b[] = {0x3f80, 0xc0a0, 0x3eab, 0x7f80, 0x4049, 0x0001};
    float be[] = {1.0f, -5.0f, 0.333984375f, INFINITY, 3.140625f, 9.183549615799121e-41f};
    double d[] = {1.0 / 3.0, -1e-3, 3e38};
    int64_t sh[] = {8}, sb[] = {6}, sd[] = {3};
    i8_st_write_entry e[] = {{"h", I8_DTYPE_F16, 1, sh, h}, {"b", I8_DTYPE_BF16, 1, sb, b}, {"d", I8_DTYPE_F64, 1, sd, d}};
    const char *path = i8_test_work_path("half.safetensors");
    i8_err err = {0};
    assert_int_equal(i8_st_write(path, e, 3, NULL, &err), INFER8_OK);
    i8_safetensors st;
    assert_int_equal(i8_st_open(&st, path, NULL, &err), INFER8_OK);
    float *f = NULL;
    assert_int_equal(i8_st_to_f32(i8_st_find(&st, "h"), &f, &err), INFER8_OK);
    for (int i = 0; i < 8; i++) {
        assert_memory_equal(&f[i], &he[i], 4); /* bit-exact, sign of zero included */
    }
    free(f);
    assert_int_equal(i8_st_to_f32(i8_st_find(&st, "b"), &f, &err), INFER8_OK);
    for (int i = 0; i < 6; i++) assert_memory_equal(&f[i], &be[i], 4);
    free(f);
    assert_int_equal(i8_st_to_f32(i8_st_find(&st, "d"), &f, &err), INFER8_OK);
    assert_true(f[0] == 0.3333333432674408f); /* nearest float to 1/3 */
    assert_true(f[1] == -0.001f);
    assert_true(f[2] == 3e38f);
    free(f);
    i8_st_close(&st);
}

/* ---- sharded ---- */

static void write_text(const char *path, const char *text) { write_bytes(path, text, strlen(text)); }

static void test_sharded(void **state) {
    float a[2] = {1, 2}, b[3] = {3, 4, 5}, c[1] = {6};
    int64_t s2[] = {2}, s3[] = {3}, s1[] = {1};
    i8_st_write_entry e1[] = {{"a", I8_DTYPE_F32, 1, s2, a}, {"b", I8_DTYPE_F32, 1, s3, b}};
    i8_st_write_entry e2[] = {{"c", I8_DTYPE_F32, 1, s1, c}};
    i8_st_write_entry e3[] = {{"a", I8_DTYPE_F32, 1, s1, c}};
    i8_err err = {0};
    assert_int_equal(i8_st_write(i8_test_work_path("model-00001-of-00002.safetensors"), e1, 2, NULL, &err), INFER8_OK);
    assert_int_equal(i8_st_write(i8_test_work_path("model-00002-of-00002.safetensors"), e2, 1, NULL, &err), INFER8_OK);
    assert_int_equal(i8_st_write(i8_test_work_path("other.safetensors"), e3, 1, NULL, &err), INFER8_OK);
    const char *index = i8_test_work_path("model.safetensors.index.json");
    write_text(index, "{\"metadata\": {\"total_size\": 24}, \"weight_map\": {"
                      "\"c\": \"model-00002-of-00002.safetensors\", \"a\": \"model-00001-of-00002.safetensors\","
                      "\"b\": \"model-00001-of-00002.safetensors\"}}");
    i8_safetensors st;
    assert_int_equal(i8_st_open_index(&st, index, NULL, &err), INFER8_OK);
    assert_int_equal(st.n_files, 2);
    assert_int_equal(st.n_tensors, 3);
    const i8_st_tensor *t = i8_st_find(&st, "c");
    assert_non_null(t);
    assert_string_equal(st.files[t->file_index].path, i8_test_work_path("model-00002-of-00002.safetensors"));
    float v;
    memcpy(&v, t->data, 4);
    assert_true(v == 6.0f);
    t = i8_st_find(&st, "b");
    assert_string_equal(st.files[t->file_index].path, i8_test_work_path("model-00001-of-00002.safetensors"));
    memcpy(&v, t->data + 8, 4);
    assert_true(v == 5.0f);
    i8_st_close(&st);

    /* a mapped key absent from its shard */
    write_text(index, "{\"weight_map\": {\"a\": \"model-00001-of-00002.safetensors\","
                      "\"c\": \"model-00001-of-00002.safetensors\"}}");
    memset(&st, 0, sizeof st);
    assert_int_equal(i8_st_open_index(&st, index, NULL, &err), INFER8_E_MISSING_KEY);
    assert_non_null(strstr(err.msg, "'c'"));
    assert_non_null(strstr(err.msg, "model-00001-of-00002.safetensors"));
    assert_null(st.tensors);
    /* a shard name from the file is shown escaped in the message (an ESC byte here) */
    assert_int_equal(i8_st_write(i8_test_work_path("esc\x1b.safetensors"), e3, 1, NULL, &err), INFER8_OK);
    write_text(index, "{\"weight_map\": {\"c\": \"esc\\u001b.safetensors\"}}");
    assert_int_equal(i8_st_open_index(&st, index, NULL, &err), INFER8_E_MISSING_KEY);
    assert_non_null(strstr(err.msg, "tensor 'c' is not in its shard 'esc\\x1b.safetensors'"));
    assert_null(strchr(err.msg, '\x1b'));
    /* a key present in two shards */
    write_text(index, "{\"weight_map\": {\"a\": \"model-00001-of-00002.safetensors\", \"b\": "
                      "\"model-00001-of-00002.safetensors\", \"x\": \"other.safetensors\"}}");
    assert_int_equal(i8_st_open_index(&st, index, NULL, &err), INFER8_E_FORMAT);
    assert_non_null(strstr(err.msg, "'a'"));
    assert_non_null(strstr(err.msg, "two shards"));
    /* shard names must be plain file names */
    write_text(index, "{\"weight_map\": {\"a\": \"../model-00001-of-00002.safetensors\"}}");
    assert_int_equal(i8_st_open_index(&st, index, NULL, &err), INFER8_E_FORMAT);
    assert_non_null(strstr(err.msg, "not a plain file name"));
    write_text(index, "{\"weight_map\": {\"a\": \"sub/x.safetensors\"}}");
    assert_int_equal(i8_st_open_index(&st, index, NULL, &err), INFER8_E_FORMAT);
    /* missing shard file, non-string value, malformed JSON */
    write_text(index, "{\"weight_map\": {\"a\": \"nope.safetensors\"}}");
    assert_int_equal(i8_st_open_index(&st, index, NULL, &err), INFER8_E_IO);
    assert_non_null(strstr(err.msg, "nope.safetensors"));
    write_text(index, "{\"weight_map\": {\"a\": 3}}");
    assert_int_equal(i8_st_open_index(&st, index, NULL, &err), INFER8_E_FORMAT);
    assert_non_null(strstr(err.msg, "weight_map['a']"));
    write_text(index, "{\"weight_map\": {\"a\": ");
    assert_int_equal(i8_st_open_index(&st, index, NULL, &err), INFER8_E_FORMAT);
    assert_non_null(strstr(err.msg, "byte offset"));
    assert_null(st.tensors);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_roundtrip),          cmocka_unit_test(test_exact_header_bytes),
        cmocka_unit_test(test_python_reads_header), cmocka_unit_test(test_bad_length_field),
        cmocka_unit_test(test_bad_json),           cmocka_unit_test(test_bad_offsets),
        cmocka_unit_test(test_bad_entries),        cmocka_unit_test(test_accepted_edge_cases),
        cmocka_unit_test(test_half_conversion),    cmocka_unit_test(test_sharded),
    };
    return cmocka_run_group_tests(tests, setup_work, NULL);
}
