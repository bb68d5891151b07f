// SPDX-License-Identifier: Apache-2.0
// The boundary between the programs and the CUDA backend module (ios-cuda-backend.so,
// docs/gpu.md "The CUDA backend module"): two C-linkage functions the loader finds with dlsym.
// The object that crosses it is a C++ GpuBackend*, so the module must be built by the same
// compiler and standard library from the same sources as the program that loads it (one
// project, one build). The loader checks that before it calls anything else:
// ios_cuda_backend_abi() returns the interface version below and a tag naming the compiler and
// the hash of the interface headers (IOS_CUDA_PLUGIN_TAG, set by profiling/CMakeLists.txt),
// and the loader refuses a module whose version or tag differs from its own.
#pragma once

#include "gpu_backend.h"

#include <cstddef>

// Bumped whenever the functions or structs below change meaning.
#define IOS_CUDA_PLUGIN_ABI_VERSION 1

extern "C" {

// Why a module cannot open a device (the loader words each one, cuda_plugin.cpp).
enum IosCudaStatus : int {
    IOS_CUDA_OK = 0,
    IOS_CUDA_NO_DRIVER = 1, // no libcuda.so.1, or a driver older than the CUDA runtime
    IOS_CUDA_NO_DEVICE = 2, // the driver sees no GPU (or fewer than the device asked for)
    IOS_CUDA_FAILED = 3,    // anything else CUDA or cuDNN reported
};

struct IosCudaRequest {
    int device;
    int allowTf32;
    int probeOnly; // 1: only check that the device exists (no context, no backend)
};

struct IosCudaReply {
    int status;                          // IosCudaStatus
    ios::profiling::GpuBackend* backend; // when IOS_CUDA_OK and not probeOnly; the caller owns it
    char error[512];                     // NUL-terminated, when status != IOS_CUDA_OK
};

// Sets *version to IOS_CUDA_PLUGIN_ABI_VERSION and returns the module's tag.
using IosCudaAbiFn = const char* (*)(int* version);
// Never throws.
using IosCudaOpenFn = void (*)(const IosCudaRequest* request, IosCudaReply* reply);

} // extern "C"

#define IOS_CUDA_PLUGIN_ABI_SYMBOL "ios_cuda_backend_abi"
#define IOS_CUDA_PLUGIN_OPEN_SYMBOL "ios_cuda_backend_open"
