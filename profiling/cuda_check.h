// SPDX-License-Identifier: Apache-2.0
// The CUDA runtime's error check shared by the CUDA module's sources (cuda_backend.cpp,
// cuda_kernels.cpp). Part of the CUDA module (ios-cuda-backend.so) only.
#pragma once

#include <cuda_runtime.h>
#include <stdexcept>
#include <string>

namespace ios::profiling::cuda {

// Throws std::runtime_error naming the call and CUDA's error unless `e` is cudaSuccess.
inline void check(cudaError_t e, const char* what) {
    if (e != cudaSuccess)
        throw std::runtime_error(std::string(what) + ": " + cudaGetErrorName(e) + " (" +
                                 cudaGetErrorString(e) + ")");
}

} // namespace ios::profiling::cuda
