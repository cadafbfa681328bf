/* cuBLASLt, opened when a CUDA context is made instead of linked into libinfer8: the library's
 * static initializers took about 0.35 s at every process start (an empty program linked with
 * libcublasLt.so.13 starts in 0.36 s on the CI machine, 0.01 s linked with cudart, cuDNN and
 * oneDNN alone), which every CPU run, CLI call and test paid without touching a GPU.
 * Each entry point keeps the header's exact prototype (__typeof__), so a call through the table
 * is checked as a direct call would be. */
#ifndef I8_CUDA_CUBLASLT_H
#define I8_CUDA_CUBLASLT_H

#include <cublasLt.h>

#include "core/i8.h"

typedef struct i8_cublaslt {
    void *lib; /* dlopen handle; NULL when not open */
    __typeof__(cublasLtCreate) *create;
    __typeof__(cublasLtDestroy) *destroy;
    __typeof__(cublasLtGetVersion) *get_version;
    __typeof__(cublasLtMatmul) *matmul;
    __typeof__(cublasLtMatmulAlgoConfigGetAttribute) *algo_config_get_attribute;
    __typeof__(cublasLtMatmulAlgoGetHeuristic) *algo_get_heuristic;
    __typeof__(cublasLtMatmulDescCreate) *desc_create;
    __typeof__(cublasLtMatmulDescDestroy) *desc_destroy;
    __typeof__(cublasLtMatmulDescSetAttribute) *desc_set_attribute;
    __typeof__(cublasLtMatmulPreferenceCreate) *preference_create;
    __typeof__(cublasLtMatmulPreferenceDestroy) *preference_destroy;
    __typeof__(cublasLtMatmulPreferenceSetAttribute) *preference_set_attribute;
    __typeof__(cublasLtMatrixLayoutCreate) *layout_create;
    __typeof__(cublasLtMatrixLayoutDestroy) *layout_destroy;
} i8_cublaslt;

/* The library this build's headers are for: "libcublasLt.so.<CUBLAS_VER_MAJOR>". */
const char *i8_cublaslt_soname(void);

/* Opens soname (NULL: i8_cublaslt_soname()) where the dynamic loader finds libraries
 * (LD_LIBRARY_PATH, the runpath, ld.so.cache) and resolves every entry point into *lt. On failure
 * *lt is closed and INFER8_E_DEVICE names the library or the entry point missing. */
infer8_status i8_cublaslt_open(i8_cublaslt *lt, const char *soname, i8_err *err);
/* Drops this handle's reference; the library itself stays mapped until the process exits
 * (RTLD_NODELETE: CUDA libraries are not made to be unloaded). Closing a closed table is a no-op. */
void i8_cublaslt_close(i8_cublaslt *lt);

#endif
