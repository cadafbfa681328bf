/* The e4m3 conversions every CUDA kernel uses (the FP8 conv epilogues and loaders in
 * cuda_fp8.cu, the pools' e4m3 twins in cuda_kernels.cu): one rounding, cvt.rn.satfinite,
 * bit-exact with quant/fp8.c i8_fp8_from_f32 (tools/gpu-check fp8_table compares the two over
 * every fp16 value and a random fp32 sample). */
#ifndef I8_CUDA_E4M3_CUH
#define I8_CUDA_E4M3_CUH

#include <cuda_fp16.h>
#include <cuda_fp8.h>

/* float -> e4m3 code, cvt.rn.satfinite (bit-exact with quant/fp8.c i8_fp8_from_f32) */
__device__ __forceinline__ unsigned q_e4m3(float v) {
    return (unsigned)__nv_cvt_float_to_fp8(v, __NV_SATFINITE, __NV_E4M3);
}
/* two floats -> two e4m3 codes in the low 16 bits (byte e = value e), same rounding */
__device__ __forceinline__ unsigned q_e4m3x2(float v0, float v1) {
    return (unsigned)__nv_cvt_float2_to_fp8x2(make_float2(v0, v1), __NV_SATFINITE, __NV_E4M3);
}
/* relu as the CPU reference's (ref_ops.c) and torch.relu: NaN stays NaN (fmaxf(NaN, 0) is 0) */
__device__ __forceinline__ float relu_f32(float v) { return v < 0.0f ? 0.0f : v; }
/* relu then two e4m3 codes, in the conversion (cvt .relu, sm_89): a negative value gives 0 and
 * NaN stays NaN, as the CPU reference's relu (ref_ops.c); for a positive s, relu(v * s) is
 * relu(v) * s, so the scaled value may be converted */
__device__ __forceinline__ unsigned q_e4m3x2_relu(float v0, float v1) {
    unsigned short d;
    asm("cvt.rn.satfinite.relu.e4m3x2.f32 %0, %1, %2;\n" : "=h"(d) : "f"(v1), "f"(v0));
    return d;
}
/* relu then two fp16 in one word (low half = v0), the same way */
__device__ __forceinline__ unsigned h2_relu(float v0, float v1) {
    unsigned d;
    asm("cvt.rn.relu.f16x2.f32 %0, %1, %2;\n" : "=r"(d) : "f"(v1), "f"(v0));
    return d;
}
/* four floats -> four e4m3 codes in one word (byte e = value e), same rounding */
__device__ __forceinline__ unsigned q_e4m3x4(float v0, float v1, float v2, float v3) {
    return q_e4m3x2(v0, v1) | (q_e4m3x2(v2, v3) << 16);
}
/* e4m3 code -> float (exact) */
__device__ __forceinline__ float dq_e4m3(unsigned q) {
    __half_raw h = __nv_cvt_fp8_to_halfraw((__nv_fp8_storage_t)q, __NV_E4M3);
    return __half2float(__half(h));
}

#endif
