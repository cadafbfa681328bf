/* cuBLASLt opened at run time (cuda_cublaslt.h says why). */
#include "backends/cuda/cuda_cublaslt.h"

#include <dlfcn.h>
#include <string.h>

#define I8_STR2(x) #x
#define I8_STR(x) I8_STR2(x)

const char *i8_cublaslt_soname(void) { return "libcublasLt.so." I8_STR(CUBLAS_VER_MAJOR); }

infer8_status i8_cublaslt_open(i8_cublaslt *lt, const char *soname, i8_err *err) {
    memset(lt, 0, sizeof *lt);
    if (!soname) soname = i8_cublaslt_soname();
    lt->lib = dlopen(soname, RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE);
    if (!lt->lib) {
        const char *why = dlerror();
        return i8_fail(err, INFER8_E_DEVICE, "cuda: cannot load %s (cuBLASLt %d): %s", soname, CUBLAS_VER_MAJOR,
                       why ? why : "unknown error");
    }
    /* dlsym hands back an object pointer; POSIX guarantees it converts to a function pointer */
    struct {
        const char *name;
        void **slot;
    } const entries[] = {
        {"cublasLtCreate", (void **)&lt->create},
        {"cublasLtDestroy", (void **)&lt->destroy},
        {"cublasLtGetVersion", (void **)&lt->get_version},
        {"cublasLtMatmul", (void **)&lt->matmul},
        {"cublasLtMatmulAlgoConfigGetAttribute", (void **)&lt->algo_config_get_attribute},
        {"cublasLtMatmulAlgoGetHeuristic", (void **)&lt->algo_get_heuristic},
        {"cublasLtMatmulDescCreate", (void **)&lt->desc_create},
        {"cublasLtMatmulDescDestroy", (void **)&lt->desc_destroy},
        {"cublasLtMatmulDescSetAttribute", (void **)&lt->desc_set_attribute},
        {"cublasLtMatmulPreferenceCreate", (void **)&lt->preference_create},
        {"cublasLtMatmulPreferenceDestroy", (void **)&lt->preference_destroy},
        {"cublasLtMatmulPreferenceSetAttribute", (void **)&lt->preference_set_attribute},
        {"cublasLtMatrixLayoutCreate", (void **)&lt->layout_create},
        {"cublasLtMatrixLayoutDestroy", (void **)&lt->layout_destroy},
    };
    for (size_t i = 0; i < sizeof entries / sizeof entries[0]; i++) {
        void *sym = dlsym(lt->lib, entries[i].name);
        if (!sym) {
            i8_cublaslt_close(lt);
            return i8_fail(err, INFER8_E_DEVICE, "cuda: %s has no entry point %s", soname, entries[i].name);
        }
        memcpy(entries[i].slot, &sym, sizeof sym);
    }
    return INFER8_OK;
}

void i8_cublaslt_close(i8_cublaslt *lt) {
    if (lt->lib) dlclose(lt->lib);
    memset(lt, 0, sizeof *lt);
}
