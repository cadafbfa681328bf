/* Graph capture and replay timing (cuda_graph_timing.h). */
#include "backends/cuda/cuda_graph_timing.h"

#include <stdlib.h>

/* The kernel nodes of graph and of its child graphs; -1 when a node could not be read. The count
 * tells how many kernels the forward launches (a library may launch several for one conv). */
static int kernel_nodes_of(cudaGraph_t graph, int depth) {
    size_t count = 0;
    if (depth > 4 || cudaGraphGetNodes(graph, NULL, &count) != cudaSuccess) return -1;
    if (count == 0) return 0;
    cudaGraphNode_t *nodes = malloc(sizeof *nodes * count);
    if (!nodes || cudaGraphGetNodes(graph, nodes, &count) != cudaSuccess) {
        free(nodes);
        return -1;
    }
    int kernels = 0;
    for (size_t i = 0; i < count && kernels >= 0; i++) {
        enum cudaGraphNodeType type;
        if (cudaGraphNodeGetType(nodes[i], &type) != cudaSuccess) kernels = -1;
        else if (type == cudaGraphNodeTypeKernel) kernels++;
        else if (type == cudaGraphNodeTypeGraph) {
            cudaGraph_t child = NULL;
            const int in_child = cudaGraphChildGraphNodeGetGraph(nodes[i], &child) == cudaSuccess
                                     ? kernel_nodes_of(child, depth + 1) : -1;
            kernels = in_child < 0 ? -1 : kernels + in_child;
        }
    }
    free(nodes);
    return kernels;
}

cudaGraphExec_t i8_cuda_capture(cudaStream_t s, int (*launch)(void *arg), void *arg, int *launch_rc,
                                cudaError_t *capture_err, int *kernel_nodes) {
    cudaGraphExec_t exec = NULL;
    cudaGraph_t graph = NULL;
    int rc = -1;
    if (kernel_nodes) *kernel_nodes = 0;
    cudaError_t e = cudaStreamBeginCapture(s, cudaStreamCaptureModeRelaxed);
    if (e == cudaSuccess) {
        rc = launch(arg);
        e = cudaStreamEndCapture(s, &graph);
        if (rc == 0 && e == cudaSuccess && graph && kernel_nodes) *kernel_nodes = kernel_nodes_of(graph, 0);
        /* kernel nodes keep the priority of the stream they were captured on (launch_all) */
        if (rc == 0 && e == cudaSuccess && graph &&
            cudaGraphInstantiate(&exec, graph, cudaGraphInstantiateFlagUseNodePriority) != cudaSuccess)
            exec = NULL;
        if (graph) cudaGraphDestroy(graph);
    }
    if (launch_rc) *launch_rc = rc;
    if (capture_err) *capture_err = e;
    cudaGetLastError();
    return exec;
}

float i8_cuda_replays_ms(cudaEvent_t t0, cudaEvent_t t1, cudaStream_t s, cudaGraphExec_t exec, int replays) {
    float ms = 0.0f;
    if (cudaEventRecord(t0, s) != cudaSuccess) return -1.0f;
    for (int i = 0; i < replays; i++)
        if (cudaGraphLaunch(exec, s) != cudaSuccess) return -1.0f;
    if (cudaEventRecord(t1, s) != cudaSuccess || cudaEventSynchronize(t1) != cudaSuccess ||
        cudaEventElapsedTime(&ms, t0, t1) != cudaSuccess)
        return -1.0f;
    return ms;
}
