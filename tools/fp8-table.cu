/* fp8-table: writes the CUDA ground truth for FP8 e4m3 conversion, computed on the GPU, as the
 * fixtures tests/unit/test_fp8.c compares the C reference (src/quant/fp8.c) with:
 *
 *   fp8_from_f16.bin  65536 bytes: byte h = __nv_cvt_halfraw_to_fp8(half bits h, __NV_SATFINITE, __NV_E4M3)
 *   fp8_from_f32.bin  2^20 bytes:  byte k = __nv_cvt_float_to_fp8(x_k, __NV_SATFINITE, __NV_E4M3), where
 *                     x_k = i8_fp8_vec_bits(I8_FP8_VEC_SEED, k) (src/quant/fp8_vectors.h; the test
 *                     regenerates the same inputs)
 *   fp8_to_f32.bin    256 little-endian float32: code c -> __nv_cvt_fp8_to_halfraw(c, __NV_E4M3) -> float
 *
 * All three conversions run in kernels, so on sm_89+ they use the hardware cvt instructions
 * (cvt.rn.satfinite.e4m3x2.{f16x2,f32}, cvt.rn.f16x2.e4m3x2), which is what the CUDA backend
 * executes. It also prints where the hardware differs from the header's host (software) path.
 * A standalone tool, not built by CMake:
 *
 *   nvcc -arch=sm_90 tools/fp8-table.cu -o fp8-table && ./fp8-table OUT_DIR
 *
 * Exit status 0 on success, 1 on any CUDA or file error. */
#include <cuda_fp16.h>
#include <cuda_fp8.h>
#include <cuda_runtime.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../src/quant/fp8_vectors.h"

#define CHECK(call)                                                                               \
    do {                                                                                          \
        cudaError_t e_ = (call);                                                                  \
        if (e_ != cudaSuccess) {                                                                  \
            fprintf(stderr, "fp8-table: %s failed: %s\n", #call, cudaGetErrorString(e_));         \
            exit(1);                                                                              \
        }                                                                                         \
    } while (0)

__global__ void from_f16_kernel(uint8_t *out) {
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= 65536u) return;
    __half_raw h;
    h.x = (unsigned short)i;
    out[i] = __nv_cvt_halfraw_to_fp8(h, __NV_SATFINITE, __NV_E4M3);
}

__global__ void from_f32_kernel(const uint32_t *in, uint8_t *out, unsigned n) {
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    out[i] = __nv_cvt_float_to_fp8(__uint_as_float(in[i]), __NV_SATFINITE, __NV_E4M3);
}

__global__ void to_f32_kernel(float *out) {
    unsigned i = threadIdx.x;
    if (i >= 256u) return;
    __half_raw h = __nv_cvt_fp8_to_halfraw((__nv_fp8_storage_t)i, __NV_E4M3);
    out[i] = __half2float(__half(h));
}

static void write_file(const char *dir, const char *name, const void *data, size_t size) {
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "wb");
    if (!f || fwrite(data, 1, size, f) != size || fclose(f) != 0) {
        fprintf(stderr, "fp8-table: cannot write %s\n", path);
        exit(1);
    }
    printf("wrote %s (%zu bytes)\n", path, size);
}

int main(int argc, char **argv) {
    const char *dir = argc > 1 ? argv[1] : ".";
    const unsigned n = I8_FP8_VEC_COUNT;
    int dev = 0;
    cudaDeviceProp prop;
    CHECK(cudaGetDevice(&dev));
    CHECK(cudaGetDeviceProperties(&prop, dev));
    printf("device %s, compute capability %d.%d\n", prop.name, prop.major, prop.minor);
    if (prop.major * 10 + prop.minor < 89) {
        fprintf(stderr, "fp8-table: needs compute capability 8.9+ for hardware FP8 conversion\n");
        return 1;
    }

    uint8_t *h16 = (uint8_t *)malloc(65536), *h32 = (uint8_t *)malloc(n);
    uint32_t *in = (uint32_t *)malloc(sizeof(uint32_t) * n);
    float to32[256];
    if (!h16 || !h32 || !in) {
        fprintf(stderr, "fp8-table: out of memory\n");
        return 1;
    }
    for (unsigned k = 0; k < n; k++) in[k] = i8_fp8_vec_bits(I8_FP8_VEC_SEED, k);

    uint8_t *d16, *d32;
    uint32_t *din;
    float *dto;
    CHECK(cudaMalloc(&d16, 65536));
    CHECK(cudaMalloc(&d32, n));
    CHECK(cudaMalloc(&din, sizeof(uint32_t) * n));
    CHECK(cudaMalloc(&dto, sizeof(float) * 256));
    CHECK(cudaMemcpy(din, in, sizeof(uint32_t) * n, cudaMemcpyHostToDevice));
    from_f16_kernel<<<65536 / 256, 256>>>(d16);
    CHECK(cudaGetLastError());
    from_f32_kernel<<<(n + 255) / 256, 256>>>(din, d32, n);
    CHECK(cudaGetLastError());
    to_f32_kernel<<<1, 256>>>(dto);
    CHECK(cudaGetLastError());
    CHECK(cudaDeviceSynchronize());
    CHECK(cudaMemcpy(h16, d16, 65536, cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(h32, d32, n, cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(to32, dto, sizeof to32, cudaMemcpyDeviceToHost));

    /* Diagnostics: hardware vs the header's host path (software emulation). */
    unsigned diff16 = 0, diff32 = 0, diffto = 0;
    for (unsigned i = 0; i < 65536u; i++) {
        __half_raw h;
        h.x = (unsigned short)i;
        uint8_t sw = __nv_cvt_halfraw_to_fp8(h, __NV_SATFINITE, __NV_E4M3);
        if (sw != h16[i] && diff16++ < 8) printf("f16 0x%04x: device 0x%02x, host 0x%02x\n", i, h16[i], sw);
    }
    for (unsigned k = 0; k < n; k++) {
        float x;
        memcpy(&x, &in[k], 4);
        uint8_t sw = __nv_cvt_float_to_fp8(x, __NV_SATFINITE, __NV_E4M3);
        if (sw != h32[k] && diff32++ < 8) printf("f32 0x%08x: device 0x%02x, host 0x%02x\n", in[k], h32[k], sw);
    }
    for (unsigned c = 0; c < 256u; c++) {
        __half_raw h = __nv_cvt_fp8_to_halfraw((__nv_fp8_storage_t)c, __NV_E4M3);
        float sw = __half2float(__half(h));
        if (memcmp(&sw, &to32[c], 4) && diffto++ < 8) printf("code 0x%02x: device %a, host %a\n", c, to32[c], sw);
    }
    uint32_t nan_bits;
    memcpy(&nan_bits, &to32[0x7F], 4);
    printf("device vs host path differences: f16 %u, f32 %u, to_f32 %u\n", diff16, diff32, diffto);
    printf("NaN: f16 0xFE00 -> 0x%02x, f16 0x7E00 -> 0x%02x, e4m3 0x7F -> float bits 0x%08x\n", h16[0xFE00],
           h16[0x7E00], nan_bits);

    write_file(dir, "fp8_from_f16.bin", h16, 65536);
    write_file(dir, "fp8_from_f32.bin", h32, n);
    write_file(dir, "fp8_to_f32.bin", to32, sizeof to32);
    cudaFree(d16);
    cudaFree(d32);
    cudaFree(din);
    cudaFree(dto);
    free(h16);
    free(h32);
    free(in);
    return 0;
}
