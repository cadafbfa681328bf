/* cuBLASLt opened at run time (src/backends/cuda/cuda_cublaslt.h), without a GPU: the build's
 * library opens and every entry point resolves; its version is the headers' major; host-only
 * calls go through the table; a missing library or entry point is INFER8_E_DEVICE naming it and
 * leaves the table closed. A build without the CUDA backend has nothing to test (77). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "gpu_test.h"

#ifdef INFER8_HAVE_CUDA
#include "backends/cuda/cuda_cublaslt.h"

static void opens_and_resolves(void **state) {
    (void)state;
    i8_cublaslt lt;
    i8_err err;
    i8_err_clear(&err);
    char want[64];
    snprintf(want, sizeof want, "libcublasLt.so.%d", CUBLAS_VER_MAJOR);
    assert_string_equal(i8_cublaslt_soname(), want);
    assert_int_equal(i8_cublaslt_open(&lt, NULL, &err), INFER8_OK);
    assert_non_null(lt.lib);
    const void *entries[] = {
        (const void *)lt.create, (const void *)lt.destroy, (const void *)lt.get_version,
        (const void *)lt.matmul, (const void *)lt.algo_config_get_attribute, (const void *)lt.algo_get_heuristic,
        (const void *)lt.desc_create, (const void *)lt.desc_destroy, (const void *)lt.desc_set_attribute,
        (const void *)lt.preference_create, (const void *)lt.preference_destroy,
        (const void *)lt.preference_set_attribute, (const void *)lt.layout_create, (const void *)lt.layout_destroy,
    };
    for (size_t i = 0; i < sizeof entries / sizeof entries[0]; i++) assert_non_null(entries[i]);
    /* the library the loader found is the one the headers describe: version MAJOR * 10000 + ... */
    assert_int_equal(lt.get_version() / 10000, CUBLAS_VER_MAJOR);
    /* host-only calls through the table: a matrix layout and a preference, made, set, freed */
    cublasLtMatrixLayout_t layout = NULL;
    assert_int_equal(lt.layout_create(&layout, CUDA_R_16F, 64, 32, 64), CUBLAS_STATUS_SUCCESS);
    assert_non_null(layout);
    assert_int_equal(lt.layout_destroy(layout), CUBLAS_STATUS_SUCCESS);
    cublasLtMatmulPreference_t pref = NULL;
    uint64_t ws = 1 << 20;
    assert_int_equal(lt.preference_create(&pref), CUBLAS_STATUS_SUCCESS);
    assert_int_equal(lt.preference_set_attribute(pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &ws, sizeof ws),
                     CUBLAS_STATUS_SUCCESS);
    assert_int_equal(lt.preference_destroy(pref), CUBLAS_STATUS_SUCCESS);
    /* two tables at once (two contexts), each closed on its own */
    i8_cublaslt second;
    assert_int_equal(i8_cublaslt_open(&second, NULL, &err), INFER8_OK);
    i8_cublaslt_close(&lt);
    assert_null(lt.lib);
    assert_null(lt.matmul);
    assert_int_equal(second.get_version() / 10000, CUBLAS_VER_MAJOR); /* still mapped */
    i8_cublaslt_close(&second);
    i8_cublaslt_close(&second); /* closing a closed table does nothing */
    assert_null(second.lib);
}

static void missing_library_or_entry(void **state) {
    (void)state;
    i8_cublaslt lt;
    i8_err err;
    i8_err_clear(&err);
    assert_int_equal(i8_cublaslt_open(&lt, "libinfer8-no-such-cublasLt.so.13", &err), INFER8_E_DEVICE);
    assert_non_null(strstr(err.msg, "cannot load libinfer8-no-such-cublasLt.so.13"));
    assert_null(lt.lib);
    assert_null(lt.create);
    /* a library that exists but is not cuBLASLt: the first entry point missing is named */
    i8_err_clear(&err);
    assert_int_equal(i8_cublaslt_open(&lt, "libm.so.6", &err), INFER8_E_DEVICE);
    assert_non_null(strstr(err.msg, "libm.so.6 has no entry point cublasLtCreate"));
    assert_null(lt.lib);
    assert_null(lt.create);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(opens_and_resolves),
        cmocka_unit_test(missing_library_or_entry),
    };
    return cmocka_run_group_tests_name("test_cublaslt_open", tests, NULL, NULL);
}

#else

int main(void) {
    puts("test_cublaslt_open: skipped: built without the CUDA backend");
    return I8_TEST_SKIPPED;
}

#endif
