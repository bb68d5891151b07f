// SPDX-License-Identifier: Apache-2.0
#include "profiling_info.h"

#include "cuda_backend_loader.h"

namespace ios::profiling {

bool cudaCompiledIn() {
    return std::string(IOS_CUDA_PLUGIN_CUDA_VERSION) != "";
}

std::string backendSummary() {
    const std::string module = findCudaBackendModule();
    if (!module.empty())
        return "CUDA profiling backend: module " + module +
               " (cuDNN executor, CUPTI traces, PM sampling; loaded when a command needs a GPU)";
    return cudaCompiledIn()
               ? "CUDA profiling backend: module " + std::string(kCudaBackendModuleName) +
                     " not found (simulated devices and measurement caches only)"
               : "CUDA profiling backend: not built (simulated devices and measurement caches "
                 "only)";
}

} // namespace ios::profiling
