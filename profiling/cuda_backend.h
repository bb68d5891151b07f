// SPDX-License-Identifier: Apache-2.0
// The CUDA/cuDNN GpuBackend (docs/performance.md "GPU executor and profiling"): cudaMalloc'd
// NCHW fp32 tensors, one stream + cuDNN handle + workspace per stream, cuDNN's legacy API for
// convolutions (bias and ReLU fused), pooling, activations, softmax and tensor add/multiply,
// cudaMemcpy2DAsync for channel slices, CUDA graphs, CUPTI for kernel records and PM sampling
// of active warps.
#pragma once

#include "gpu_backend.h"

#include <memory>
#include <string>

namespace ios::profiling {

struct CudaBackendOptions {
    int device = 0;
    // cuDNN may use TF32 tensor cores for fp32 convolutions (faster, ~1e-3 relative error).
    // Off by default: strict fp32 as in the IOS paper (V100, no TF32).
    bool allowTf32 = false;
};

struct CudaOpenResult {
    std::unique_ptr<GpuBackend> backend; // null when no device can be used
    std::string error;                   // then: the reason CUDA gave
};

// The backend comes from the CUDA backend module, loaded on the first call
// (cuda_backend_loader.h). Never throws for a missing module, library, driver or GPU: the
// error then says which is missing and how to install it.
CudaOpenResult openCudaBackend(const CudaBackendOptions& options = {});

// True when the module loads and its cudaGetDeviceCount finds a device (no context).
bool cudaDevicePresent();

// openCudaBackend or ios::UserError("no CUDA device available: <reason>", Hint::CudaBackend).
// With the
// environment variable IOS_PROFILING_MOCK=1: a timing-only MockBackend (dry runs of scripts);
// IOS_PROFILING_MOCK=NAME (any value but "", "0" and "1"): another mock device, of its own
// identity and speed (MockOptions::variant), for tests that need two devices.
std::unique_ptr<GpuBackend> requireCudaBackend(const CudaBackendOptions& options = {});

} // namespace ios::profiling
