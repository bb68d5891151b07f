// SPDX-License-Identifier: Apache-2.0
// The CUDA backend's own kernels, for what cuDNN and cuBLAS do not offer: GELU, LayerNorm over
// each position's channels, and the token gather (class token, positional embedding, window
// partition, bias tables). Compiled once per backend with NVRTC for the device's architecture
// and loaded with cudaLibraryLoadData, so the module needs no CUDA compiler at build time and
// no -lcuda. Part of the CUDA module (ios-cuda-backend.so) only.
#pragma once

#include <cstdint>
#include <cuda_runtime.h>

namespace ios::profiling {

class CudaKernels {
public:
    // Compiles and loads the kernels for `device` (throws std::runtime_error with NVRTC's log).
    explicit CudaKernels(int device);
    ~CudaKernels();
    CudaKernels(const CudaKernels&) = delete;
    CudaKernels& operator=(const CudaKernels&) = delete;

    // out[i] = x·Φ(x) for `count` elements (exact erf GELU, ONNX Gelu / torch's default).
    void gelu(cudaStream_t stream, const float* in, float* out, int64_t count) const;
    // Each of rows = batch · groups · positions rows (`width` channels strided by `positions`
    // in NCHW) normalized to mean 0 and variance 1 (+ epsilon). May run in place.
    void layerNorm(cudaStream_t stream, const float* in, float* out, int64_t batch, int64_t groups,
                   int64_t width, int64_t positions, float epsilon) const;

    struct Tokens {
        const float* in = nullptr;
        float* out = nullptr;
        const float* index = nullptr;   // per output position: input position or −1 − k
        const float* learned = nullptr; // k-major, channels minor; null when none
        const float* table = nullptr;   // tableChannels × tablePositions; null when none
        int64_t batch = 1, channels = 0, inPositions = 0, outPositions = 0;
        int64_t tableChannels = 1, tablePositions = 1;
    };
    void tokens(cudaStream_t stream, const Tokens& t) const;

private:
    void launch(cudaKernel_t kernel, int64_t threads, void** args, cudaStream_t stream) const;

    cudaLibrary_t library_ = nullptr;
    cudaKernel_t gelu_ = nullptr, layerNorm_ = nullptr, tokens_ = nullptr;
    int smCount_ = 1;
};

} // namespace ios::profiling
