/* Capturing a stream's launches as one CUDA graph and timing its replays: shared by the backend
 * (the forward's capture, the tuner's and the profile's timing) and the kernel labs (dev/kernels),
 * which link this file alone rather than the whole backend. */
#ifndef I8_CUDA_GRAPH_TIMING_H
#define I8_CUDA_GRAPH_TIMING_H

#include <cuda_runtime_api.h>

#ifdef __cplusplus
extern "C" {
#endif

/* What launch(arg) puts on stream s, captured (relaxed mode) as one CUDA graph and instantiated
 * (kernel nodes keep the priority of the stream they were captured on); NULL when the capture,
 * the launches (*launch_rc: their status) or the instantiation fail (*capture_err: the capture's
 * status; either pointer may be NULL). The errors an attempt left are cleared. *kernel_nodes (may
 * be NULL: not counted): the graph's kernel nodes, child graphs included, -1 unread. */
cudaGraphExec_t i8_cuda_capture(cudaStream_t s, int (*launch)(void *arg), void *arg, int *launch_rc,
                                cudaError_t *capture_err, int *kernel_nodes);
/* Milliseconds of `replays` launches of exec back to back on s, between events t0 and t1;
 * < 0 on an error */
float i8_cuda_replays_ms(cudaEvent_t t0, cudaEvent_t t1, cudaStream_t s, cudaGraphExec_t exec, int replays);

#ifdef __cplusplus
}
#endif

#endif
