// SPDX-License-Identifier: Apache-2.0
// What the profiling backend of this build can do.
#pragma once

#include <string>

namespace ios::profiling {

// True when the build found CUDA Toolkit + cuDNN + CUPTI (IOS_WITH_CUDA) and made the CUDA
// backend module (whether it is installed here: cuda_backend_loader.h).
bool cudaCompiledIn();

// One line for `--version` and the GUI's about box.
std::string backendSummary();

} // namespace ios::profiling
