/* Roofline bound of FP8 over fp16 for a graph's convolutions (docs/performance.md, "Session
 * 11"): the least time a GPU could need for each convolution, max(FLOPs / tensor-core peak,
 * bytes / memory bandwidth), summed over the graph once with every conv in fp16 and once in the
 * graph's own precisions. Bytes: input, weights and output in fp16 (2 bytes), a fused residual
 * read in fp16; an FP8 conv reads e4m3 input and weights (1 byte) and writes its e4m3 copy
 * (1 byte), and a residual one also reads the fp16 residual (its e4m3 copy for residual_fp8)
 * and writes the fp16 output beside the copy where a later layer reads it as fp16 (the exact
 * residual stream). Every other byte an FP8 graph may move in addition (an fp16 input quantized
 * while loading, dual outputs of non-residual convs) is left out, so the ratio of the two sums
 * is an upper bound of what FP8 can gain on these convolutions if every kernel ran at its
 * roofline. bench/fp8_roofline.py applies the same model to fp8_bench's measured per-conv
 * tables (there every residual conv writes fp16, as in the default recipe). */
#ifndef I8_EVAL_ROOFLINE_H
#define I8_EVAL_ROOFLINE_H

#include "graph/graph.h"

typedef struct i8_peaks {
    const char *gpu;         /* the name it is known by */
    double bytes_per_s;      /* memory bandwidth */
    double fp16_flops;       /* dense fp16 tensor-core FLOP/s */
    double fp8_flops;        /* dense FP8 tensor-core FLOP/s */
} i8_peaks;

/* The datasheet peaks of the GPU a device description names ("NVIDIA H200, driver ..."), or
 * NULL when it is not in the table (H200, H100 SXM, H100 PCIe). */
const i8_peaks *i8_peaks_find(const char *device_desc);

typedef struct i8_roofline {
    double fp16_s;           /* every conv in fp16 */
    double fp8_s;            /* the graph's precisions */
    int convs, fp8_convs;
} i8_roofline;

/* The roofline times of g's convolutions at batch n (n >= 1). */
void i8_roofline_convs(const i8_graph *g, int n, const i8_peaks *pk, i8_roofline *out);

#endif
