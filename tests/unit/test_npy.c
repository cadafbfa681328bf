/* Unit tests of the float32 .npy reader/writer: round trips over ranks 0..4, byte-identical
 * output to numpy's np.save, numpy reading our files, us reading numpy's (versions 1.0 and
 * 2.0), and malformed files with their status codes and offsets. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "formats/config.h"
#include "test_work.h"

static int g_have_numpy;

static int setup_work(void **state) {
    (void)state;
    if (i8_test_work_init("test_npy")) return -1;
    g_have_numpy = system("/usr/bin/python3 -c 'import numpy' 2>/dev/null") == 0;
    if (!g_have_numpy) printf("NOTICE: /usr/bin/python3 lacks numpy; numpy cross-checks skipped\n");
    return 0;
}

static int python(const char *code) {
    char cmd[4096];
    snprintf(cmd, sizeof cmd, "cd '%s' && /usr/bin/python3 -c \"import numpy as np; %s\"", i8_test_work_dir(), code);
    return system(cmd);
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

static void test_roundtrip(void **state) {
    static const int64_t shapes[][4] = {{0}, {5}, {2, 3}, {2, 3, 4}, {1, 2, 3, 5}, {0, 3}};
    static const int ranks[] = {0, 1, 2, 3, 4, 2};
    for (int c = 0; c < 6; c++) {
        size_t n = 1;
        for (int i = 0; i < ranks[c]; i++) n *= (size_t)shapes[c][i];
        float *v = malloc(sizeof(float) * (n ? n : 1));
        for (size_t i = 0; i < n; i++) v[i] = (float)i * 0.25f - 3.0f;
        const char *path = i8_test_work_path("rt.npy");
        i8_err err = {0};
        assert_int_equal(i8_npy_write_f32(path, v, ranks[c], shapes[c], &err), INFER8_OK);
        /* data starts at a multiple of 64 */
        size_t size;
        uint8_t *b = read_bytes(path, &size);
        assert_int_equal((size - n * 4) % 64, 0);
        assert_int_equal(b[size - n * 4 - 1], '\n');
        free(b);
        float *back = NULL;
        int nd = -1;
        int64_t shp[8];
        assert_int_equal(i8_npy_read_f32(path, &back, &nd, shp, &err), INFER8_OK);
        assert_int_equal(nd, ranks[c]);
        for (int i = 0; i < nd; i++) assert_int_equal(shp[i], shapes[c][i]);
        if (n) assert_memory_equal(back, v, n * 4);
        free(back);
        free(v);
    }
}

/* numpy reads what we write, and np.save writes exactly our bytes. */
static void test_numpy_reads_ours(void **state) {
    if (!g_have_numpy) {
        printf("NOTICE: numpy check skipped\n");
        return;
    }
    float v[24];
    for (int i = 0; i < 24; i++) v[i] = (float)i * 0.5f - 1.0f;
    int64_t s234[] = {2, 3, 4}, s24[] = {24};
    i8_err err = {0};
    assert_int_equal(i8_npy_write_f32(i8_test_work_path("ours3.npy"), v, 3, s234, &err), INFER8_OK);
    assert_int_equal(i8_npy_write_f32(i8_test_work_path("ours1.npy"), v, 1, s24, &err), INFER8_OK);
    assert_int_equal(i8_npy_write_f32(i8_test_work_path("ours0.npy"), v + 5, 0, NULL, &err), INFER8_OK);
    assert_int_equal(python("a = np.load('ours3.npy'); assert a.dtype == np.float32 and a.shape == (2, 3, 4);"
                            "assert (a == np.arange(24, dtype=np.float32).reshape(2, 3, 4) * 0.5 - 1).all();"
                            "b = np.load('ours1.npy'); assert b.shape == (24,) and b[23] == 10.5;"
                            "c = np.load('ours0.npy'); assert c.shape == () and c == 1.5;"
                            "x = np.arange(24, dtype=np.float32) * 0.5 - 1;"
                            "np.save('np3.npy', x.reshape(2, 3, 4)); np.save('np1.npy', x); np.save('np0.npy', x[5]);"
                            "print('numpy reads ours')"),
                     0);
    const char *pairs[][2] = {{"ours3.npy", "np3.npy"}, {"ours1.npy", "np1.npy"}, {"ours0.npy", "np0.npy"}};
    for (int i = 0; i < 3; i++) {
        size_t n1, n2;
        uint8_t *a = read_bytes(i8_test_work_path(pairs[i][0]), &n1);
        uint8_t *b = read_bytes(i8_test_work_path(pairs[i][1]), &n2);
        assert_int_equal(n1, n2);
        assert_memory_equal(a, b, n1);
        free(a);
        free(b);
    }
}

/* We read what numpy writes: version 1.0 and 2.0 headers, various shapes. */
static void test_we_read_numpy(void **state) {
    if (!g_have_numpy) {
        printf("NOTICE: numpy check skipped\n");
        return;
    }
    assert_int_equal(python("from numpy.lib import format as F;"
                            "a = (np.arange(30, dtype=np.float32) / 7).reshape(5, 6);"
                            "np.save('n_v1.npy', a);"
                            "F.write_array(open('n_v2.npy', 'wb'), a, version=(2, 0));"
                            "np.save('n_f.npy', np.asfortranarray(a));"
                            "np.save('n_f8.npy', a.astype(np.float64));"
                            "np.save('n_be.npy', a.astype('>f4'));"
                            "np.save('n_e.npy', np.zeros((0, 7), np.float32))"),
                     0);
    for (int v = 1; v <= 2; v++) {
        float *d = NULL;
        int nd = 0;
        int64_t shp[8];
        i8_err err = {0};
        assert_int_equal(i8_npy_read_f32(i8_test_work_path(v == 1 ? "n_v1.npy" : "n_v2.npy"), &d, &nd, shp, &err), INFER8_OK);
        assert_int_equal(nd, 2);
        assert_int_equal(shp[0], 5);
        assert_int_equal(shp[1], 6);
        for (int i = 0; i < 30; i++) assert_true(d[i] == (float)i / 7.0f);
        free(d);
    }
    float *d = NULL;
    int nd = 0;
    int64_t shp[8];
    i8_err err = {0};
    assert_int_equal(i8_npy_read_f32(i8_test_work_path("n_e.npy"), &d, &nd, shp, &err), INFER8_OK);
    assert_int_equal(nd, 2);
    assert_int_equal(shp[0], 0);
    assert_int_equal(shp[1], 7);
    free(d);
    assert_int_equal(i8_npy_read_f32(i8_test_work_path("n_f.npy"), &d, &nd, shp, &err), INFER8_E_UNSUPPORTED);
    assert_non_null(strstr(err.msg, "Fortran"));
    assert_int_equal(i8_npy_read_f32(i8_test_work_path("n_f8.npy"), &d, &nd, shp, &err), INFER8_E_UNSUPPORTED);
    assert_non_null(strstr(err.msg, "'<f8'"));
    assert_int_equal(i8_npy_read_f32(i8_test_work_path("n_be.npy"), &d, &nd, shp, &err), INFER8_E_UNSUPPORTED);
    assert_non_null(strstr(err.msg, "'>f4'"));
}

static void write_file(const char *path, const void *p, size_t n) {
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    fwrite(p, 1, n, f);
    fclose(f);
}

/* A v1.0 file with the given header text (padded to 64) and data_len bytes of data. */
static void write_npy(const char *path, const char *header, size_t data_len, uint16_t hlen_override) {
    uint8_t b[512] = {0x93, 'N', 'U', 'M', 'P', 'Y', 1, 0};
    size_t h = strlen(header);
    size_t total = (10 + h + 1 + 63) / 64 * 64;
    size_t hlen = total - 10;
    memset(b + 10, ' ', hlen);
    memcpy(b + 10, header, h);
    b[total - 1] = '\n';
    if (hlen_override) hlen = hlen_override;
    b[8] = (uint8_t)(hlen & 0xff);
    b[9] = (uint8_t)(hlen >> 8);
    write_file(path, b, total + data_len);
}

static void expect_bad(const char *name, infer8_status code, const char *needle) {
    float *d = NULL;
    int nd = -1;
    int64_t shp[8];
    i8_err err = {0};
    infer8_status s = i8_npy_read_f32(i8_test_work_path(name), &d, &nd, shp, &err);
    if (s != code || !strstr(err.msg, needle)) print_error("%s: got %d: %s\n", name, s, err.msg);
    assert_int_equal(s, code);
    assert_non_null(strstr(err.msg, needle));
    assert_non_null(strstr(err.msg, name));
    assert_null(d);
    assert_int_equal(nd, -1);
}

static void test_malformed(void **state) {
    const char *ok = "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }";
    write_npy(i8_test_work_path("good.npy"), ok, 24, 0);
    float *d = NULL;
    int nd;
    int64_t shp[8];
    i8_err err = {0};
    assert_int_equal(i8_npy_read_f32(i8_test_work_path("good.npy"), &d, &nd, shp, &err), INFER8_OK);
    free(d);
    write_npy(i8_test_work_path("short.npy"), ok, 20, 0);
    expect_bad("short.npy", INFER8_E_FORMAT, "is 20 bytes, the shape needs 24");
    write_npy(i8_test_work_path("long.npy"), ok, 28, 0);
    expect_bad("long.npy", INFER8_E_FORMAT, "is 28 bytes");
    write_npy(i8_test_work_path("hlen.npy"), ok, 0, 60000);
    expect_bad("hlen.npy", INFER8_E_FORMAT, "offset 8");
    write_file(i8_test_work_path("magic.npy"), "\x93NUMPX\x01\x00\x00\x00", 10);
    expect_bad("magic.npy", INFER8_E_FORMAT, "offset 0");
    write_file(i8_test_work_path("tiny.npy"), "\x93NUM", 4);
    expect_bad("tiny.npy", INFER8_E_FORMAT, "offset 0");
    write_file(i8_test_work_path("v3.npy"), "\x93NUMPY\x03\x00\x00\x00", 10);
    expect_bad("v3.npy", INFER8_E_UNSUPPORTED, "version 3.0");
    static const char *bad_headers[] = {
        "{'descr': '<f4', 'fortran_order': False}",
        "{'descr': '<f4', 'fortran_order': False, 'shape': (5), }",
        "{'descr': '<f4', 'fortran_order': False, 'shape': (-5,), }",
        "{'descr': '<f4', 'fortran_order': Nope, 'shape': (5,), }",
        "{'descr': '<f4', 'fortran_order': False, 'shape': (5,), 'extra': 1}",
        "{'descr': '<f4', 'descr': '<f4', 'fortran_order': False, 'shape': (5,), }",
        "{'descr': '<f4', 'fortran_order': False, 'shape': (1,1,1,1,1,1,1,1,1), }",
        "{'descr': '<f4', 'fortran_order': False, 'shape': (99999999999999999999,), }",
        "['descr']",
        "{'descr': '<f4', 'fortran_order': False, 'shape': (5,), } x",
    };
    for (size_t i = 0; i < sizeof bad_headers / sizeof bad_headers[0]; i++) {
        write_npy(i8_test_work_path("hdr.npy"), bad_headers[i], 20, 0);
        expect_bad("hdr.npy", INFER8_E_FORMAT, "header dict is malformed near offset");
    }
    /* shape overflow */
    write_npy(i8_test_work_path("ovf.npy"), "{'descr': '<f4', 'fortran_order': False, 'shape': (4294967296, 4294967296), }", 0, 0);
    expect_bad("ovf.npy", INFER8_E_FORMAT, "overflows");
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_roundtrip),
        cmocka_unit_test(test_numpy_reads_ours),
        cmocka_unit_test(test_we_read_numpy),
        cmocka_unit_test(test_malformed),
    };
    return cmocka_run_group_tests(tests, setup_work, NULL);
}
