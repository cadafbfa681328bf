/* main() of the GPU test programs (tests/unit/test_cuda_*.c). */
#ifndef INFER8_TESTS_GPU_TEST_H
#define INFER8_TESTS_GPU_TEST_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

/* Exit status of a test that could not run here; ctest reports it as skipped, not passed
 * (SKIP_RETURN_CODE in tests/CMakeLists.txt), and tools/gpu-check, where a GPU must be present,
 * counts it as a failure. */
#define I8_TEST_SKIPPED 77

/* Without a CUDA build or a visible device: prints why and returns I8_TEST_SKIPPED. Otherwise
 * runs bench() when the environment variable bench_env is set (the benchmark modes), else the
 * cmocka group of count tests. */
int i8_gpu_test_run(const char *group, const struct CMUnitTest *tests, size_t count, const char *bench_env,
                    int (*bench)(void));

/* n preprocessed generated images (seeds seed0..), float32 NCHW 3x299x299 each
 * (i8_test_generated_inputs); fails the running test when they cannot be made. */
float *i8_gpu_test_inputs(int n, uint64_t seed0);

/* The environment for one part of a test: i8_test_env_set sets name=value (unsets it for NULL)
 * and returns the previous value (malloc'ed; NULL when it was unset); i8_test_env_restore puts
 * that back, or unsets name, and frees it. */
char *i8_test_env_set(const char *name, const char *value);
void i8_test_env_restore(const char *name, char *previous);

#endif
