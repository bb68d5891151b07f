// SPDX-License-Identifier: Apache-2.0
// CUPTI behind the KernelRecorder / WarpSampler interfaces (only in CUDA builds).
// Kernel records: the Activity API (CONCURRENT_KERNEL + EXTERNAL_CORRELATION for the
// executor's trace tags). Active warps: PM sampling (cupti_pmsampling.h with
// cupti_profiler_host.h); the old Event/Metric API is not supported on current GPUs (CUPTI
// documentation; docs/performance.md "GPU executor and profiling").
#pragma once

#include "gpu_backend.h"

#include <memory>

namespace ios::profiling {

std::unique_ptr<KernelRecorder> makeCuptiKernelRecorder();
// Records kernels launched from this thread with `tag` until the next call (0 = none).
void setCuptiTraceTag(uint64_t tag);
std::unique_ptr<WarpSampler> makePmWarpSampler(int device);
// CUPTI's id of a CUDA stream (the streamId of its kernel records).
uint64_t cuptiStreamId(void* stream);

} // namespace ios::profiling
