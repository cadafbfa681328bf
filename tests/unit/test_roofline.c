/* eval/roofline.c on a hand-made graph with hand-computed times (unit peaks: 1 byte/s, 1 fp16
 * FLOP/s, 2 FP8 FLOP/s), and the GPU table lookup. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "eval/roofline.h"

static int conv(i8_graph *g, int in, int c, int k, int hw, int residual, int prec, int residual_fp8) {
    i8_err err = {0};
    i8_node n = i8_node_blank(I8_OP_CONV, "c");
    n.n_inputs = residual >= 0 ? 2 : 1, n.inputs[0] = in, n.inputs[1] = residual >= 0 ? residual : 0;
    n.residual = residual, n.residual_fp8 = residual_fp8, n.precision = (i8_precision)prec;
    n.c = c, n.h = n.w = hw, n.kh = n.kw = k, n.sh = n.sw = 1, n.ph = n.pw = k / 2;
    int idx = -1;
    assert_int_equal(i8_graph_add_node(g, &n, &idx, &err), INFER8_OK);
    return idx;
}

static void test_hand_computed(void **state) {
    (void)state;
    i8_graph g;
    i8_err err = {0};
    assert_int_equal(i8_graph_init(&g, "inception_v3", 64, 4, 4, &err), INFER8_OK);
    /* batch 2 at 4x4: 32 pixels in and out */
    int a = conv(&g, 0, 64, 3, 4, -1, I8_PREC_FP8, 0);  /* 2*32*576*64 = 2359296 FLOPs: compute-bound; FP8 half */
    int b = conv(&g, a, 64, 1, 4, a, I8_PREC_FP16, 0);  /* 262144 FLOPs, fp16 in both graphs */
    int c = conv(&g, b, 64, 1, 4, b, I8_PREC_FP8, 0);   /* 262144 -> 131072 (its bytes far below) */
    int d = conv(&g, c, 64, 1, 4, c, I8_PREC_FP8, 1);   /* the same, residual from the copy */
    int e = conv(&g, d, 1, 1, 4, -1, I8_PREC_FP8, 0);   /* 64 -> 1: bytes 2*(2048+64+32) = 4288, FP8 2144 */
    /* 1 -> 1 + residual, memory-bound: fp16 2*(32+1+32+32) = 194 bytes; FP8 32+1+32 plus the x read
     * (2, or 1 from the copy) and the fp16 stream written only where a later layer reads it as fp16 */
    int f = conv(&g, e, 1, 1, 4, e, I8_PREC_FP8, 0);    /* g reads it as e4m3 only: 65 + 64 = 129 */
    int h = conv(&g, f, 1, 1, 4, f, I8_PREC_FP8, 1);    /* x from f's copy; i reads it as fp16: 65 + 32 + 64 = 161 */
    g.output = conv(&g, h, 1, 1, 4, h, I8_PREC_FP8, 0); /* the output: 65 + 64 + 64 = 193 */
    const i8_peaks unit = {"unit", 1.0, 1.0, 2.0};
    i8_roofline r;
    i8_roofline_convs(&g, 2, &unit, &r);
    assert_int_equal(r.convs, 8);
    assert_int_equal(r.fp8_convs, 7);
    assert_true(r.fp16_s == 2359296.0 + 3 * 262144.0 + 4288.0 + 3 * 194.0);
    assert_true(r.fp8_s == 1179648.0 + 262144.0 + 2 * 131072.0 + 2144.0 + 129.0 + 161.0 + 193.0);
    i8_graph_free(&g);
}

static void test_gpu_table(void **state) {
    (void)state;
    const i8_peaks *p = i8_peaks_find("NVIDIA H200, driver 580.159.04, CUDA 13.0, cuDNN 9.19.0");
    assert_non_null(p);
    assert_true(p->bytes_per_s == 4.8e12 && p->fp16_flops == 989.4e12 && p->fp8_flops == 1978.9e12);
    p = i8_peaks_find("NVIDIA H100 PCIe");
    assert_non_null(p);
    assert_true(p->bytes_per_s == 2.0e12);
    p = i8_peaks_find("NVIDIA H100 80GB HBM3");
    assert_non_null(p);
    assert_true(p->bytes_per_s == 3.35e12);
    assert_null(i8_peaks_find("NVIDIA A100-SXM4-80GB"));
    assert_null(i8_peaks_find("AMD EPYC 9654, 8 threads"));
    assert_null(i8_peaks_find(NULL));
}

int main(void) {
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_hand_computed), cmocka_unit_test(test_gpu_table)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
