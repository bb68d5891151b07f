// SPDX-License-Identifier: Apache-2.0
// Finding and loading the CUDA backend module at run time (docs/gpu.md "The CUDA backend
// module"). The programs never link CUDA, cuDNN or CUPTI: openCudaBackend (cuda_backend.h)
// loads ios-cuda-backend.so with dlopen the first time a command needs a GPU, so a program
// built with CUDA starts, and runs everything else, on a machine without them.
#pragma once

#include <string>
#include <vector>

namespace ios::profiling {

inline constexpr const char* kCudaBackendModuleName = "ios-cuda-backend.so";
// The environment variable that names the module's file, replacing the search.
inline constexpr const char* kCudaBackendModuleEnv = "IOS_CUDA_BACKEND";

// The files tried, in order: $IOS_CUDA_BACKEND alone when it is set; otherwise the module next
// to the executable, then in the install's library folder relative to it
// (<exe dir>/../lib/ios-explorer with the default install dirs; the build tree has the
// same layout).
std::vector<std::string> cudaBackendModuleCandidates();

// The first candidate that exists; empty when none does.
std::string findCudaBackendModule();

// One clause saying why the module at `module` could not be loaded, from dlerror()'s text:
// for a missing library its name, what it belongs to and how to install it.
std::string describeModuleLoadFailure(const std::string& module, const std::string& dlError);

} // namespace ios::profiling
