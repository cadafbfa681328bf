/* Lab experiments on the product's TMA kernel (src/backends/cuda/cuda_fp8_tma.cu, variants 48 on
 * of i8_cuda_conv_fp8, which fp8_lab.cu times and checks as product variants): the same kernel
 * template with one part left out, to see where its time goes (AB: epilogue, its global stores,
 * the wgmma, the TMA loads, since session 63 the channel scales' load and stage; timed, output not
 * checked), with one wgmma group in flight (W1:
 * "tma128x64s4w", "...rw"), and the ping-pong schedule with fp16 input ("tma128x64s3ph", slower
 * than the cooperative one everywhere in session 12, so not in the product). The lab numbers these
 * after the product's variants, from i8_cuda_conv_fp8_variants() on (FP8_LAB_VARIANT=63 ... 72 in
 * session 28, before the product's later variants; "abl-nochan" came last, in session 63; session
 * 64's direct epilogue, a lab variant at first, was product variants 78-79 for one session: it
 * lost in session 65's lab and was removed). Session 63's "tma128x64s4x" (the real kernel
 * skipping its epilogue's idle rows and channels) lost on 2080 -> 192 at batch 1 in session 64
 * and was removed.
 * History: sessions 11-12 built the kernel here; session 12 found it serialized by a printf
 * (tests/dev/wgmma_pipelined.sh) and session 13's ablations (abl-noepi 8.8 us, abl-nostore 36 us
 * on the batch-32 Block17 up-projection) showed the epilogue waiting on its channel scales, which
 * the kernel now loads before its mainloop (tma_chan_load); then it moved into the product.
 * Session 30 tried a fifth stage on the residual kernels here ("tma128x64s5pr", "...s5r"): no faster
 * than four once the producer loads the residual after the K slices (Block17 up-projection at
 * batch 32: 24.88 against 24.79 us), so not kept.
 * Session 42 added chained-stage kernels (template parameter PI: each stage's wgmma issued before
 * the one before was waited for, the sums promoted to fp32 every 2 or 4 stages, or once a tile);
 * session 43's call 1 timed them on five IRv2 batch-32 convs: none beat the product's kernel
 * (7x1 160->192: 14.48 us at best against 14.33; Block17 branch 1x1: 9.91 against 9.79; the
 * residual 1x1s: 25.23 against 22.30 and 25.02 against 24.83), and even one promotion a tile (an
 * ablation) took 14.72 us on the 7x1, so the per-stage wait costs little; ptxas also put back a
 * warpgroup.wait in each (C7517). Removed again (bench/results/fp8-layers-session43/call1).
 * It includes cuda_fp8.cu and cuda_fp8_tma.cu, so the lab links this file instead of them. */
#include "../../src/backends/cuda/cuda_fp8.cu"
#include "../../src/backends/cuda/cuda_fp8_tma.cu"

/* lab variant v (0-9, lab_tma_name) on args a; a cudaError_t. 7-9 (session 42): the ping-pong
 * kernels with six stages instead of four (Nsight Compute put a fifth of the 7x1 kernel's stall
 * samples on its consumers' waits for a full stage): pointwise, with the TMA residual, im2col; no
 * faster in session 42's call 3. */
enum { LAB_TMA_VARIANTS = 11 };
int lab_tma_variants(void) { return LAB_TMA_VARIANTS; }
const char *lab_tma_name(int v) {
    static const char *names[LAB_TMA_VARIANTS] = {"abl-noepi", "abl-nostore", "abl-nomma", "abl-noload",
                                                  "tma128x64s4w", "tma128x64s4rw", "tma128x64s3ph",
                                                  "tma128x64s6p", "tma128x64s6pr", "tma128x64s6pc", "abl-nochan"};
    return v >= 0 && v < LAB_TMA_VARIANTS ? names[v] : "?";
}
/* variants 0-3 and 10: tma128x64s4 without one of its parts (AB), to see where its time goes */
int lab_tma_ablation(int v) { return (v >= 0 && v <= 3) || v == 10; }
int lab_tma_fits(const i8_cuda_fp8_conv_args *a, int v) {
    return v >= 0 && v < LAB_TMA_VARIANTS && tma_fits(a, v == 6, v == 9);
}

template <int BN, int S, bool RT, bool XH, bool PP = false, int AB = AB_NONE, bool W1 = false>
static int lab_launch(const i8_cuda_fp8_conv_args *a, cudaStream_t s, bool im2col = false) {
    int rc = tma_set_smem<BN, S, RT, XH, PP, AB, W1>();
    return rc ? rc : launch_tma<BN, S, RT, XH, PP, AB, W1>(a, s, im2col);
}
int lab_tma_conv(const i8_cuda_fp8_conv_args *a, int v, cudaStream_t s) {
    if (!lab_tma_fits(a, v)) return (int)cudaErrorInvalidValue;
    switch (v) {
    case 0: return lab_launch<64, 4, false, false, false, AB_NO_EPILOGUE>(a, s);
    case 1: return lab_launch<64, 4, false, false, false, AB_NO_STORES>(a, s);
    case 2: return lab_launch<64, 4, false, false, false, AB_NO_MMA>(a, s);
    case 3: return lab_launch<64, 4, false, false, false, AB_NO_LOADS>(a, s);
    case 4: return lab_launch<64, 4, false, false, false, AB_NONE, true>(a, s);
    case 5: return lab_launch<64, 4, true, false, false, AB_NONE, true>(a, s);
    case 6: return lab_launch<64, 3, false, true, true>(a, s);
    case 7: return lab_launch<64, 6, false, false, true>(a, s);
    case 8: return lab_launch<64, 6, true, false, true>(a, s);
    case 9: return lab_launch<64, 6, false, false, true>(a, s, true);
    default: return lab_launch<64, 4, false, false, false, AB_NO_CHAN>(a, s);
    }
}
