#include "gpu_test.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "test_weights.h"

#ifdef INFER8_HAVE_CUDA
#include "backends/cuda/cuda_backend.h"
#endif

char *i8_test_env_set(const char *name, const char *value) {
    const char *was = getenv(name);
    char *previous = was ? strdup(was) : NULL;
    assert_true(!was || previous);
    assert_int_equal(value ? setenv(name, value, 1) : unsetenv(name), 0);
    return previous;
}

void i8_test_env_restore(const char *name, char *previous) {
    if (previous) setenv(name, previous, 1);
    else unsetenv(name);
    free(previous);
}

float *i8_gpu_test_inputs(int n, uint64_t seed0) {
    i8_err err = {0};
    float *in = i8_test_generated_inputs(n, seed0, &err);
    if (!in) fprintf(stderr, "generated inputs: %s\n", err.msg);
    assert_non_null(in);
    return in;
}

int i8_gpu_test_run(const char *group, const struct CMUnitTest *tests, size_t count, const char *bench_env,
                    int (*bench)(void)) {
#ifdef INFER8_HAVE_CUDA
    if (i8_cuda_device_count() < 1) {
        printf("SKIP: no CUDA device\n");
        return I8_TEST_SKIPPED;
    }
    if (bench && bench_env && getenv(bench_env)) return bench();
    /* INFER8_TEST_FILTER=PATTERN runs only the matching tests (cmocka's * and ? wildcards), so
     * that one device call can re-run one test without the whole group */
    if (getenv("INFER8_TEST_FILTER")) cmocka_set_test_filter(getenv("INFER8_TEST_FILTER"));
    return _cmocka_run_group_tests(group, tests, count, NULL, NULL);
#else
    (void)group, (void)tests, (void)count, (void)bench_env, (void)bench;
    printf("SKIP: built without CUDA\n");
    return I8_TEST_SKIPPED;
#endif
}
