// SPDX-License-Identifier: Apache-2.0
// The device a schedule runs on, behind one interface (docs/architecture.md "Layers"): the
// executor lowers a schedule to the kernels below and issues them on streams; the CUDA/cuDNN
// backend runs them on a GPU, the mock backend on the CPU with virtual stream clocks, so the
// executor, the measured cost model and the trace conversion are tested without a GPU.
#pragma once

#include "cost/device_identity.h"
#include "ir/graph.h"
#include "kernel_records.h"

#include <cstdint>
#include <memory>
#include <string>
#include <variant>
#include <vector>

namespace ios::profiling {

using BufferId = int;
using StreamId = int;
using EventId = int;
using GraphId = int;

// A [batch, channels, h, w] fp32 tensor, NCHW, densely packed.
struct TensorDims {
    int64_t n = 1;
    int64_t c = 0;
    int64_t h = 0;
    int64_t w = 0;
    int64_t elements() const { return n * c * h * w; }
    friend bool operator==(const TensorDims&, const TensorDims&) = default;
};

// Channels [begin, begin + count) of a buffer holding a tensor of `dims`.
struct ChannelSlice {
    BufferId buffer = -1;
    TensorDims dims;
    int64_t begin = 0;
};

// dst slice = src slice (cudaMemcpy2DAsync: one row per batch item).
struct CopyKernel {
    ChannelSlice src, dst;
    int64_t channels = 0;
};

// dst slice = dst slice (+ or ×) src slice (cudnnAddTensor / cudnnOpTensor).
struct AccumulateKernel {
    ChannelSlice src, dst;
    int64_t channels = 0;
    ir::ElementOp op = ir::ElementOp::Add;
};

// out = act(conv(in, weights) + bias); weights [out.c, in.c / groups, kh, kw].
struct ConvKernel {
    BufferId in = -1, out = -1, weights = -1, bias = -1;
    TensorDims inDims, outDims;
    ir::Hw kernel, stride, padding;
    int64_t groups = 1;
    ir::ActType act = ir::ActType::Identity;
};

// Average pooling counts the padding (count_include_pad, PyTorch's default).
struct PoolKernel {
    BufferId in = -1, out = -1;
    TensorDims inDims, outDims;
    ir::PoolType type = ir::PoolType::Max;
    ir::Hw kernel, stride, padding; // global pools: kernel = input H×W, stride 1, padding 0
};

struct ActivationKernel {
    BufferId in = -1, out = -1;
    TensorDims dims;
    ir::ActType act = ir::ActType::Relu;
};

// At every position of every batch item, each of `groups` equal consecutive channel groups is
// normalized on its own (ir::NormType, ref::normalize): a LayerNorm's scale 1 and shift 0.
struct NormKernel {
    BufferId in = -1, out = -1;
    TensorDims dims;
    ir::NormType type = ir::NormType::LayerNorm;
    int64_t groups = 1;
    double epsilon = 1e-5; // LayerNorm
};

// The product of two activations per head and window of every batch item (ir::MatmulAttrs,
// ref::matmul): cuBLAS strided-batched GEMMs over batch × heads, one per window.
struct MatmulKernel {
    BufferId a = -1, b = -1, out = -1;
    TensorDims aDims, bDims, outDims;
    int64_t heads = 1;
    bool transposeB = true;
    double alpha = 1.0;
    int64_t windows = 1;
};

// Output position i of every batch item copies input position index[i], or learned token k for
// index[i] = −1 − k (learned: k-major, channels minor), then adds table[c mod tableChannels,
// i mod tablePositions] when there is a table (ir::TokenAttrs, ref::gatherTokens). The index
// is a buffer of floats holding small integers (exact below 2^24; LoweredModel checks).
struct TokensKernel {
    BufferId in = -1, out = -1, index = -1, learned = -1, table = -1; // learned, table: -1 = none
    TensorDims inDims, outDims;
    int64_t tableChannels = 0, tablePositions = 0;
};

using Kernel = std::variant<CopyKernel, AccumulateKernel, ConvKernel, PoolKernel, ActivationKernel,
                            NormKernel, MatmulKernel, TokensKernel>;

// One line per kernel kind for logs and the mock's record names ("conv", "pool", ...).
std::string kernelKindName(const Kernel& kernel);
// Multiply-adds × 2 of a kernel, a norm's operations (the mock's virtual clock uses it).
double kernelFlops(const Kernel& kernel);

// Collects the kernels the device ran between begin() and end() (CUPTI Activity API on a GPU).
class KernelRecorder {
public:
    virtual ~KernelRecorder() = default;
    virtual void begin() = 0;
    virtual std::vector<KernelRecord> end() = 0;
};

// Samples the fraction of active warps while it runs (CUPTI PM sampling on a GPU).
class WarpSampler {
public:
    virtual ~WarpSampler() = default;
    // Empty when sampling runs; otherwise why it cannot (e.g. counter access refused).
    virtual std::string begin(uint64_t intervalNs) = 0;
    virtual WarpSamples end() = 0;
};

class GpuBackend {
public:
    virtual ~GpuBackend() = default;

    virtual std::string deviceName() const = 0;
    // Everything about the device setup that changes a kernel's time (name, compute
    // capability, SM count, clocks, memory, driver, CUDA, cuDNN, math mode): what the
    // measurement store keys measurements by (cost/device_identity.h).
    virtual cost::DeviceIdentity identity() const = 0;

    // Memory: allocated once, freed with the backend.
    virtual BufferId allocate(int64_t floats) = 0;
    virtual void upload(BufferId buffer, const std::vector<float>& values) = 0;
    virtual std::vector<float> download(BufferId buffer) = 0;

    // A stream with its own library handle and workspace (docs/performance.md, "Execution").
    virtual StreamId createStream() = 0;
    virtual void enqueue(StreamId stream, const Kernel& kernel) = 0;

    virtual EventId createEvent() = 0;
    virtual void record(EventId event, StreamId stream) = 0;
    virtual void wait(StreamId stream, EventId event) = 0; // stream waits for the event
    virtual void synchronize() = 0;
    // Milliseconds between two recorded events (synchronizes first).
    virtual double elapsedMs(EventId from, EventId to) = 0;

    // CUDA graphs: capture what is issued on `stream` (and streams that join it) until
    // endCapture, then replay it with launchGraph.
    virtual void beginCapture(StreamId stream) = 0;
    virtual GraphId endCapture(StreamId stream) = 0;
    virtual void launchGraph(GraphId graph, StreamId stream) = 0;
    // Frees a graph that will not be launched again (stage profiling captures thousands).
    virtual void destroyGraph(GraphId graph) = 0;
    // An event whose time is read back after each replay of the graph being captured (the
    // batched stage timing, stage_profiler.h). record() under capture makes the event a
    // dependency inside the graph only, which nothing outside can time; CUDA needs
    // cudaEventRecordExternal for an event node that sets the event on every replay. Outside a
    // capture it is record().
    virtual void recordTiming(EventId event, StreamId stream) = 0;

    // The id kernel records carry for one of this backend's streams.
    virtual uint64_t traceStreamId(StreamId stream) const = 0;
    // Kernels issued from now on carry `tag` in their records (0 = none).
    virtual void setTraceTag(uint64_t tag) = 0;
    virtual std::unique_ptr<KernelRecorder> kernelRecorder() = 0;
    virtual std::unique_ptr<WarpSampler> warpSampler() = 0;
};

} // namespace ios::profiling
