// SPDX-License-Identifier: Apache-2.0
// The CUDA C++ source of the executor's own kernels (cuda_kernels.h), compiled at run time by
// NVRTC. A header of its own so that a suite can compile it without a GPU
// (tst_profiling_cuda_module::theExecutorsOwnKernelsCompile).
#pragma once

namespace ios::profiling {

// The entry points, extern "C" so that their names are not mangled.
inline constexpr const char* kCudaKernelNames[] = {"ios_gelu", "ios_layernorm", "ios_tokens"};

// Sizes are 64-bit; every kernel walks its elements with a grid-stride loop. LayerNorm: one
// thread per row, so the threads of a warp read consecutive positions of one channel (NCHW);
// two passes in float (mean, then the centred variance), in place allowed.
inline constexpr const char* kCudaKernelSource = R"(
typedef long long i64;
extern "C" __global__ void ios_gelu(const float* in, float* out, i64 count) {
    for (i64 i = blockIdx.x * (i64)blockDim.x + threadIdx.x; i < count;
         i += (i64)gridDim.x * blockDim.x) {
        const float v = in[i];
        out[i] = 0.5f * v * (1.0f + erff(v * 0.70710678118654752f));
    }
}
extern "C" __global__ void ios_layernorm(const float* in, float* out, i64 rows, i64 groups,
                                         i64 width, i64 positions, float epsilon) {
    for (i64 r = blockIdx.x * (i64)blockDim.x + threadIdx.x; r < rows;
         r += (i64)gridDim.x * blockDim.x) {
        const i64 p = r % positions, group = r / positions;
        const i64 base = group * width * positions + p;
        float mean = 0.0f;
        for (i64 c = 0; c < width; ++c)
            mean += in[base + c * positions];
        mean /= (float)width;
        float var = 0.0f;
        for (i64 c = 0; c < width; ++c) {
            const float d = in[base + c * positions] - mean;
            var += d * d;
        }
        const float scale = rsqrtf(var / (float)width + epsilon);
        for (i64 c = 0; c < width; ++c)
            out[base + c * positions] = (in[base + c * positions] - mean) * scale;
    }
}
extern "C" __global__ void ios_tokens(const float* in, float* out, const float* index,
                                      const float* learned, const float* table, i64 count,
                                      i64 channels, i64 inPositions, i64 outPositions,
                                      i64 tableChannels, i64 tablePositions) {
    for (i64 o = blockIdx.x * (i64)blockDim.x + threadIdx.x; o < count;
         o += (i64)gridDim.x * blockDim.x) {
        const i64 i = o % outPositions, plane = o / outPositions, ch = plane % channels;
        const i64 from = (i64)index[i];
        float v = from >= 0 ? in[(plane * inPositions) + from] : learned[(-1 - from) * channels + ch];
        if (table)
            v += table[(ch % tableChannels) * tablePositions + i % tablePositions];
        out[o] = v;
    }
}
)";

} // namespace ios::profiling
