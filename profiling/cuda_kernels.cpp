// SPDX-License-Identifier: Apache-2.0
#include "cuda_kernels.h"

#include "cuda_check.h"
#include "cuda_kernel_source.h"

#include <algorithm>
#include <iterator>
#include <nvrtc.h>
#include <stdexcept>
#include <string>
#include <vector>

namespace ios::profiling {

namespace {

using cuda::check;
void check(nvrtcResult r, const char* what) {
    if (r != NVRTC_SUCCESS)
        throw std::runtime_error(std::string(what) + ": " + nvrtcGetErrorString(r));
}

// The target for a device of compute capability `cc` (major·10 + minor): its own SASS when
// NVRTC supports it, else PTX for the newest architecture NVRTC supports below it, which the
// driver compiles on load.
std::string targetFor(int cc, bool& cubin) {
    int count = 0;
    check(nvrtcGetNumSupportedArchs(&count), "nvrtcGetNumSupportedArchs");
    std::vector<int> archs(static_cast<size_t>(count));
    check(nvrtcGetSupportedArchs(archs.data()), "nvrtcGetSupportedArchs");
    cubin = std::find(archs.begin(), archs.end(), cc) != archs.end();
    if (cubin)
        return "--gpu-architecture=sm_" + std::to_string(cc);
    int best = 0;
    for (int a : archs)
        best = a <= cc ? std::max(best, a) : best;
    if (best == 0)
        throw std::runtime_error("the GPU's compute capability " + std::to_string(cc / 10) + "." +
                                 std::to_string(cc % 10) +
                                 " is older than this CUDA's runtime compiler (NVRTC) supports");
    return "--gpu-architecture=compute_" + std::to_string(best);
}

std::vector<char> compile(int cc) {
    nvrtcProgram program = nullptr;
    check(nvrtcCreateProgram(&program, kCudaKernelSource, "ios_kernels.cu", 0, nullptr, nullptr),
          "nvrtcCreateProgram");
    bool cubin = false;
    std::vector<char> image;
    try {
        const std::string target = targetFor(cc, cubin);
        const char* options[] = {target.c_str(), "--std=c++17"};
        if (nvrtcCompileProgram(program, 2, options) != NVRTC_SUCCESS) {
            size_t size = 0;
            nvrtcGetProgramLogSize(program, &size);
            std::string log(size, '\0');
            nvrtcGetProgramLog(program, log.data());
            throw std::runtime_error("NVRTC could not compile the executor's kernels: " + log);
        }
        size_t size = 0;
        if (cubin) {
            check(nvrtcGetCUBINSize(program, &size), "nvrtcGetCUBINSize");
            image.resize(size);
            check(nvrtcGetCUBIN(program, image.data()), "nvrtcGetCUBIN");
        } else {
            check(nvrtcGetPTXSize(program, &size), "nvrtcGetPTXSize");
            image.resize(size);
            check(nvrtcGetPTX(program, image.data()), "nvrtcGetPTX");
        }
    } catch (...) {
        nvrtcDestroyProgram(&program);
        throw;
    }
    nvrtcDestroyProgram(&program);
    return image;
}

} // namespace

CudaKernels::CudaKernels(int device) {
    int major = 0, minor = 0;
    check(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device),
          "cudaDeviceGetAttribute");
    check(cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, device),
          "cudaDeviceGetAttribute");
    check(cudaDeviceGetAttribute(&smCount_, cudaDevAttrMultiProcessorCount, device),
          "cudaDeviceGetAttribute");
    const std::vector<char> image = compile(major * 10 + minor);
    check(cudaLibraryLoadData(&library_, image.data(), nullptr, nullptr, 0, nullptr, nullptr, 0),
          "cudaLibraryLoadData");
    cudaKernel_t* kernels[] = {&gelu_, &layerNorm_, &tokens_}; // kCudaKernelNames' order
    for (size_t i = 0; i < std::size(kernels); ++i)
        check(cudaLibraryGetKernel(kernels[i], library_, kCudaKernelNames[i]),
              "cudaLibraryGetKernel");
}

CudaKernels::~CudaKernels() {
    if (library_ != nullptr)
        cudaLibraryUnload(library_);
}

// 256 threads a block, at most 32 blocks per SM (the loops stride over the rest).
void CudaKernels::launch(cudaKernel_t kernel, int64_t threads, void** args,
                         cudaStream_t stream) const {
    constexpr int64_t kBlock = 256;
    const int64_t blocks =
        std::clamp<int64_t>((threads + kBlock - 1) / kBlock, 1, int64_t{32} * smCount_);
    check(cudaLaunchKernel(reinterpret_cast<const void*>(kernel),
                           dim3(static_cast<unsigned>(blocks)), dim3(kBlock), args, 0, stream),
          "cudaLaunchKernel");
}

void CudaKernels::gelu(cudaStream_t stream, const float* in, float* out, int64_t count) const {
    long long n = count;
    void* args[] = {&in, &out, &n};
    launch(gelu_, count, args, stream);
}

void CudaKernels::layerNorm(cudaStream_t stream, const float* in, float* out, int64_t batch,
                            int64_t groups, int64_t width, int64_t positions, float epsilon) const {
    long long rows = batch * groups * positions, g = groups, w = width, p = positions;
    void* args[] = {&in, &out, &rows, &g, &w, &p, &epsilon};
    launch(layerNorm_, rows, args, stream);
}

void CudaKernels::tokens(cudaStream_t stream, const Tokens& t) const {
    const float *in = t.in, *index = t.index, *learned = t.learned, *table = t.table;
    float* out = t.out;
    long long count = t.batch * t.channels * t.outPositions, c = t.channels, ip = t.inPositions,
              op = t.outPositions, tc = t.tableChannels, tp = t.tablePositions;
    void* args[] = {&in, &out, &index, &learned, &table, &count, &c, &ip, &op, &tc, &tp};
    launch(tokens_, count, args, stream);
}

} // namespace ios::profiling
