#include "profiling_info.h"

namespace ios::profiling {

bool cudaCompiledIn() {
#ifdef IOS_HAVE_CUDA
    return true;
#else
    return false;
#endif
}

std::string backendSummary() {
    return cudaCompiledIn()
               ? "CUDA profiling backend: compiled in (cuDNN executor, CUPTI traces, PM sampling)"
               : "CUDA profiling backend: not compiled in (simulated devices and measurement "
                 "caches only)";
}

} // namespace ios::profiling
