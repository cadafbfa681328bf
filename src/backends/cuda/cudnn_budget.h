/* How the CUDA tuner spends its cuDNN plan-building budget (seconds per batch size): the rule
 * dnn_tune applies, host C without CUDA types so that tests/unit/test_cudnn_budget.c can run it
 * on the CPU against a model of a batch's problems.
 *
 * By default the budget is spent first come, first served: each conv problem tries cuDNN's
 * configurations in their heuristic's rank order while any of the budget is left, and an fp16
 * problem tries the first one always. At a budget too small for the graph the first problems try
 * every configuration and the rest keep the first one, untimed: 24-30 of inception_resnet_v2's
 * 39 fp16 problems at opt level 1's 10 s (session 46).
 * Shared (INFER8_CUDA_CUDNN_SHARE=1; not yet measured on a GPU, so not the default): an fp16
 * problem gets an equal share of what is left among the fp16 problems not yet tuned (itself
 * included), and tries another configuration only when it would end within that share.
 * An FP8 problem may use all that is left and tries nothing once it is spent: its own kernels
 * compete, and its e4m3 configurations come last (the problems that take the most time first). */
#ifndef I8_CUDNN_BUDGET_H
#define I8_CUDNN_BUDGET_H

/* Seconds this problem may spend on cuDNN configurations: budget_s - spent_s (what is left),
 * divided among fp16_left problems for an fp16 problem when shared (fp16_left < 1 counts as 1).
 * Negative once the budget is spent. */
static inline double i8_cudnn_share_s(double budget_s, double spent_s, int fp16_left, int fp8, int shared) {
    const double left_s = budget_s - spent_s;
    return fp8 || !shared ? left_s : left_s / (fp16_left > 1 ? fp16_left : 1);
}

/* Whether a problem that has spent elapsed_s of share_s and tried `tried` configurations may
 * try the next one. An fp16 problem always tries one. Shared, it tries another only when that
 * would end within the share at the average cost so far: allowed to start while time was left,
 * each problem overran its share by up to a configuration, and the last problems of a batch
 * found the budget spent (tests/unit/test_cudnn_budget.c). Otherwise it tries while time is left. */
static inline int i8_cudnn_may_try(double elapsed_s, double share_s, int tried, int fp8, int shared) {
    if (tried == 0 && !fp8) return 1;
    if (fp8 || !shared) return elapsed_s <= share_s;
    return elapsed_s + elapsed_s / tried <= share_s;
}

#endif
