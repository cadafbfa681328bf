#include "eval/roofline.h"

#include <string.h>

/* Datasheet figures (dense, without sparsity). */
static const i8_peaks peaks[] = {
    {"H200", 4.8e12, 989.4e12, 1978.9e12},
    {"H100 PCIe", 2.0e12, 756.0e12, 1513.0e12},
    {"H100", 3.35e12, 989.4e12, 1978.9e12}, /* SXM; after "H100 PCIe" so that it matches last */
};

const i8_peaks *i8_peaks_find(const char *device_desc) {
    if (!device_desc) return NULL;
    for (size_t i = 0; i < sizeof peaks / sizeof peaks[0]; i++)
        if (strstr(device_desc, peaks[i].gpu)) return &peaks[i];
    return NULL;
}

static double max2(double a, double b) { return a > b ? a : b; }

void i8_roofline_convs(const i8_graph *g, int n, const i8_peaks *pk, i8_roofline *out) {
    memset(out, 0, sizeof *out);
    for (int i = 0; i < g->n_nodes; i++) {
        const i8_node *nd = &g->nodes[i];
        if (nd->op != I8_OP_CONV || nd->n_inputs < 1) continue;
        const i8_node *in = &g->nodes[nd->inputs[0]];
        const double in_px = (double)n * in->h * in->w, out_px = (double)n * nd->h * nd->w;
        const double k = (double)nd->kh * nd->kw * in->c, co = nd->c, res = nd->residual >= 0;
        const double flops = 2.0 * out_px * k * co;
        const double b16 = 2.0 * (in_px * in->c + co * k + out_px * co + res * out_px * co);
        const double t16 = max2(flops / pk->fp16_flops, b16 / pk->bytes_per_s);
        double t = t16;
        if (nd->precision == I8_PREC_FP8) {
            /* e4m3 input, weights and copy; a residual conv also reads x (fp16, or its copy) and
             * writes the fp16 stream where a later layer reads it as fp16 (or it is the output) */
            int read16 = i == g->output;
            for (int j = i + 1; j < g->n_nodes && res && !read16; j++)
                for (int s = 0; s < g->nodes[j].n_inputs; s++)
                    if (g->nodes[j].inputs[s] == i && !i8_node_reads_fp8_slot(&g->nodes[j], s)) read16 = 1;
            const double x_bytes = nd->residual_fp8 ? 1.0 : 2.0, f16_out = res && read16 ? 2.0 : 0.0;
            const double b8 = in_px * in->c + co * k + out_px * co * (1.0 + f16_out) + res * out_px * co * x_bytes;
            t = max2(flops / pk->fp8_flops, b8 / pk->bytes_per_s);
            out->fp8_convs++;
        }
        out->fp16_s += t16;
        out->fp8_s += t;
        out->convs++;
    }
}
