// SPDX-License-Identifier: Apache-2.0
// The CUDA backend module (ios-cuda-backend.so, cuda_plugin_abi.h): the only code that calls
// CUDA, cuDNN, cuBLAS and CUPTI. The programs load it at run time (cuda_backend_loader.cpp) and
// never link those libraries.
#include "cuda_backend.h"

#include "cuda_check.h"
#include "cuda_kernels.h"
#include "cuda_plugin_abi.h"
#include "cupti_collectors.h"

#include <cstdio>
#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <cudnn.h>
#include <map>
#include <memory>
#include <stdexcept>
#include <tuple>
#include <vector>

namespace ios::profiling {

namespace {

using cuda::check;
void check(cudnnStatus_t s, const char* what) {
    if (s != CUDNN_STATUS_SUCCESS)
        throw std::runtime_error(std::string(what) + ": " + cudnnGetErrorString(s));
}
void check(cublasStatus_t s, const char* what) {
    if (s != CUBLAS_STATUS_SUCCESS)
        throw std::runtime_error(std::string(what) + ": cuBLAS status " + std::to_string(s));
}
#define IOS_CUDA(call) check((call), #call)

template <class... F> struct Overload : F... { using F::operator()...; };
template <class... F> Overload(F...) -> Overload<F...>;

cudnnActivationMode_t activationMode(ir::ActType act) {
    switch (act) {
    case ir::ActType::Relu:
        return CUDNN_ACTIVATION_RELU;
    case ir::ActType::Tanh:
        return CUDNN_ACTIVATION_TANH;
    case ir::ActType::Sigmoid:
        return CUDNN_ACTIVATION_SIGMOID;
    case ir::ActType::Gelu: // cudnnActivationForward has no GELU mode: CudaKernels::gelu
    case ir::ActType::Identity:
        break;
    }
    return CUDNN_ACTIVATION_IDENTITY;
}

// "13.0" from CUDA's 13000: major.minor of a version spelled major * 1000 + minor * 10
// (cudaRuntimeGetVersion, cudaDriverGetVersion).
std::string cudaVersionText(int v) {
    return std::to_string(v / 1000) + "." + std::to_string((v % 1000) / 10);
}

int attribute(cudaDeviceAttr attr, int device) {
    int value = 0;
    IOS_CUDA(cudaDeviceGetAttribute(&value, attr, device));
    return value;
}

// The device setup (cost/device_identity.h). CUDA 13 moved the clock rates out of
// cudaDeviceProp: they are device attributes (kHz). Without NVML the driver is the numeric
// CUDA version the driver supports (cudaDriverGetVersion), e.g. "13.0".
cost::DeviceIdentity readIdentity(const cudaDeviceProp& prop, const CudaBackendOptions& options) {
    cost::DeviceIdentity d;
    d.name = prop.name;
    d.computeCapability = std::to_string(prop.major) + "." + std::to_string(prop.minor);
    d.smCount = prop.multiProcessorCount;
    d.smClockMHz = attribute(cudaDevAttrClockRate, options.device) / 1000;
    d.memoryClockMHz = attribute(cudaDevAttrMemoryClockRate, options.device) / 1000;
    d.memoryBytes = static_cast<int64_t>(prop.totalGlobalMem);
    int driver = 0, runtime = 0;
    IOS_CUDA(cudaDriverGetVersion(&driver));
    IOS_CUDA(cudaRuntimeGetVersion(&runtime));
    d.driver = "cuda-driver " + cudaVersionText(driver);
    d.cuda = cudaVersionText(runtime);
    const size_t cudnn = cudnnGetVersion(); // 9.10.2 is 91002
    d.cudnn = std::to_string(cudnn / 10000) + "." + std::to_string((cudnn % 10000) / 100) + "." +
              std::to_string(cudnn % 100);
    d.mathMode = options.allowTf32 ? "tf32" : "fp32";
    return d;
}

class CudaBackend final : public GpuBackend {
public:
    explicit CudaBackend(const CudaBackendOptions& options) : options_(options) {
        IOS_CUDA(cudaSetDevice(options.device));
        cudaDeviceProp prop{};
        IOS_CUDA(cudaGetDeviceProperties(&prop, options.device));
        name_ = prop.name;
        identity_ = readIdentity(prop, options);
        IOS_CUDA(cudnnCreateOpTensorDescriptor(&mulOp_));
        IOS_CUDA(cudnnSetOpTensorDescriptor(mulOp_, CUDNN_OP_TENSOR_MUL, CUDNN_DATA_FLOAT,
                                            CUDNN_NOT_PROPAGATE_NAN));
        // Models without GELU, LayerNorm or token gathers run even where NVRTC cannot compile.
        try {
            kernels_ = std::make_unique<CudaKernels>(options.device);
        } catch (const std::exception& e) {
            kernelsError_ = e.what();
        }
    }

    ~CudaBackend() override {
        cudaDeviceSynchronize();
        for (auto& [key, plan] : convPlans_)
            cudnnDestroyConvolutionDescriptor(plan.conv), cudnnDestroyFilterDescriptor(plan.filter);
        for (auto& [key, d] : poolDescs_)
            cudnnDestroyPoolingDescriptor(d);
        for (auto& [key, d] : actDescs_)
            cudnnDestroyActivationDescriptor(d);
        for (auto& [key, d] : tensorDescs_)
            cudnnDestroyTensorDescriptor(d);
        cudnnDestroyOpTensorDescriptor(mulOp_);
        for (auto& g : graphs_)
            if (g != nullptr)
                cudaGraphExecDestroy(g);
        for (auto& s : streams_) {
            cudnnDestroy(s.handle);
            cublasDestroy(s.blas);
            cudaFree(s.blasWorkspace);
            cudaFree(s.workspace);
            cudaStreamDestroy(s.stream);
        }
        for (cudaEvent_t e : events_)
            cudaEventDestroy(e);
        for (float* p : buffers_)
            cudaFree(p);
    }

    std::string deviceName() const override { return name_; }
    cost::DeviceIdentity identity() const override { return identity_; }

    BufferId allocate(int64_t floats) override {
        float* p = nullptr;
        IOS_CUDA(cudaMalloc(&p, static_cast<size_t>(std::max<int64_t>(floats, 1)) * sizeof(float)));
        buffers_.push_back(p);
        sizes_.push_back(floats);
        return static_cast<BufferId>(buffers_.size() - 1);
    }
    void upload(BufferId b, const std::vector<float>& values) override {
        if (static_cast<int64_t>(values.size()) != sizes_.at(static_cast<size_t>(b)))
            throw std::logic_error("cuda backend: upload size mismatch");
        IOS_CUDA(cudaDeviceSynchronize());
        IOS_CUDA(cudaMemcpy(ptr(b), values.data(), values.size() * sizeof(float),
                            cudaMemcpyHostToDevice));
    }
    std::vector<float> download(BufferId b) override {
        std::vector<float> v(static_cast<size_t>(sizes_.at(static_cast<size_t>(b))));
        IOS_CUDA(cudaDeviceSynchronize());
        IOS_CUDA(cudaMemcpy(v.data(), ptr(b), v.size() * sizeof(float), cudaMemcpyDeviceToHost));
        return v;
    }

    StreamId createStream() override {
        Stream s;
        IOS_CUDA(cudaStreamCreateWithFlags(&s.stream, cudaStreamNonBlocking));
        IOS_CUDA(cudnnCreate(&s.handle));
        IOS_CUDA(cudnnSetStream(s.handle, s.stream));
        IOS_CUDA(cublasCreate(&s.blas));
        IOS_CUDA(cublasSetStream(s.blas, s.stream));
        IOS_CUDA(cublasSetMathMode(s.blas, CUBLAS_PEDANTIC_MATH)); // strict fp32, as the mock
        constexpr size_t kBlasWorkspace = size_t{4} << 20;
        IOS_CUDA(cudaMalloc(&s.blasWorkspace, kBlasWorkspace));
        IOS_CUDA(cublasSetWorkspace(s.blas, s.blasWorkspace, kBlasWorkspace));
        streams_.push_back(s);
        return static_cast<StreamId>(streams_.size() - 1);
    }

    void enqueue(StreamId stream, const Kernel& kernel) override {
        Stream& s = streams_.at(static_cast<size_t>(stream));
        std::visit(Overload{[&](const CopyKernel& k) { copy(s, k); },
                            [&](const AccumulateKernel& k) { accumulate(s, k); },
                            [&](const ConvKernel& k) { conv(s, k); },
                            [&](const PoolKernel& k) { pool(s, k); },
                            [&](const ActivationKernel& k) { activation(s, k); },
                            [&](const NormKernel& k) { norm(s, k); },
                            [&](const MatmulKernel& k) { matmul(s, k); },
                            [&](const TokensKernel& k) { tokens(s, k); }},
                   kernel);
    }

    EventId createEvent() override {
        cudaEvent_t e = nullptr;
        IOS_CUDA(cudaEventCreate(&e));
        events_.push_back(e);
        return static_cast<EventId>(events_.size() - 1);
    }
    void record(EventId e, StreamId s) override {
        IOS_CUDA(cudaEventRecord(events_.at(static_cast<size_t>(e)), stream(s)));
    }
    void wait(StreamId s, EventId e) override {
        IOS_CUDA(cudaStreamWaitEvent(stream(s), events_.at(static_cast<size_t>(e)), 0));
    }
    void synchronize() override { IOS_CUDA(cudaDeviceSynchronize()); }
    double elapsedMs(EventId from, EventId to) override {
        IOS_CUDA(cudaEventSynchronize(events_.at(static_cast<size_t>(to))));
        float ms = 0;
        IOS_CUDA(cudaEventElapsedTime(&ms, events_.at(static_cast<size_t>(from)),
                                      events_.at(static_cast<size_t>(to))));
        return ms;
    }

    void beginCapture(StreamId s) override {
        IOS_CUDA(cudaStreamBeginCapture(stream(s), cudaStreamCaptureModeThreadLocal));
        capturing_ = true;
    }
    GraphId endCapture(StreamId s) override {
        capturing_ = false;
        cudaGraph_t graph = nullptr;
        IOS_CUDA(cudaStreamEndCapture(stream(s), &graph));
        cudaGraphExec_t exec = nullptr;
        IOS_CUDA(cudaGraphInstantiate(&exec, graph, 0));
        IOS_CUDA(cudaGraphDestroy(graph));
        graphs_.push_back(exec);
        return static_cast<GraphId>(graphs_.size() - 1);
    }
    void launchGraph(GraphId g, StreamId s) override {
        IOS_CUDA(cudaGraphLaunch(graphs_.at(static_cast<size_t>(g)), stream(s)));
    }
    void destroyGraph(GraphId g) override {
        cudaGraphExec_t& exec = graphs_.at(static_cast<size_t>(g));
        if (exec != nullptr)
            IOS_CUDA(cudaGraphExecDestroy(exec));
        exec = nullptr;
    }
    // cudaEventRecordExternal is refused outside a capture (CUDA runtime API,
    // cudaEventRecordWithFlags), so eager issue records plainly.
    void recordTiming(EventId e, StreamId s) override {
        if (!capturing_) {
            record(e, s);
            return;
        }
        IOS_CUDA(cudaEventRecordWithFlags(events_.at(static_cast<size_t>(e)), stream(s),
                                          cudaEventRecordExternal));
    }

    uint64_t traceStreamId(StreamId s) const override {
        return cuptiStreamId(streams_.at(static_cast<size_t>(s)).stream);
    }
    void setTraceTag(uint64_t tag) override { setCuptiTraceTag(tag); }
    std::unique_ptr<KernelRecorder> kernelRecorder() override { return makeCuptiKernelRecorder(); }
    std::unique_ptr<WarpSampler> warpSampler() override {
        return makePmWarpSampler(options_.device);
    }

private:
    struct Stream {
        cudaStream_t stream = nullptr;
        cudnnHandle_t handle = nullptr;
        cublasHandle_t blas = nullptr; // matmuls of two activations
        void* blasWorkspace = nullptr; // set up front: no allocation inside a graph capture
        void* workspace = nullptr;
        size_t workspaceBytes = 0;
    };
    struct ConvPlan {
        cudnnFilterDescriptor_t filter = nullptr;
        cudnnConvolutionDescriptor_t conv = nullptr;
        cudnnConvolutionFwdAlgo_t algo = CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_GEMM;
        size_t workspaceBytes = 0;
    };
    static constexpr size_t kMaxWorkspace = size_t{256} << 20;

    float* ptr(BufferId b) const { return buffers_.at(static_cast<size_t>(b)); }
    cudaStream_t stream(StreamId s) const { return streams_.at(static_cast<size_t>(s)).stream; }

    // A descriptor of channels [.., .. + c) inside a tensor of totalC channels (strided view).
    cudnnTensorDescriptor_t tensorDesc(int64_t n, int64_t c, int64_t h, int64_t w, int64_t totalC) {
        const auto key = std::make_tuple(n, c, h, w, totalC);
        if (auto it = tensorDescs_.find(key); it != tensorDescs_.end())
            return it->second;
        cudnnTensorDescriptor_t d = nullptr;
        IOS_CUDA(cudnnCreateTensorDescriptor(&d));
        IOS_CUDA(cudnnSetTensor4dDescriptorEx(d, CUDNN_DATA_FLOAT, static_cast<int>(n),
                                              static_cast<int>(c), static_cast<int>(h),
                                              static_cast<int>(w), static_cast<int>(totalC * h * w),
                                              static_cast<int>(h * w), static_cast<int>(w), 1));
        tensorDescs_.emplace(key, d);
        return d;
    }
    cudnnTensorDescriptor_t tensorDesc(const TensorDims& d) {
        return tensorDesc(d.n, d.c, d.h, d.w, d.c);
    }
    float* slicePtr(const ChannelSlice& s) const {
        return ptr(s.buffer) + s.begin * s.dims.h * s.dims.w;
    }

    void ensureWorkspace(Stream& s, size_t bytes) {
        if (bytes <= s.workspaceBytes)
            return;
        IOS_CUDA(cudaStreamSynchronize(s.stream)); // the old workspace may still be in use
        IOS_CUDA(cudaFree(s.workspace));
        s.workspace = nullptr;
        IOS_CUDA(cudaMalloc(&s.workspace, bytes));
        s.workspaceBytes = bytes;
    }

    void copy(Stream& s, const CopyKernel& k) {
        const size_t hw = static_cast<size_t>(k.dst.dims.h * k.dst.dims.w) * sizeof(float);
        IOS_CUDA(cudaMemcpy2DAsync(
            slicePtr(k.dst), static_cast<size_t>(k.dst.dims.c) * hw, slicePtr(k.src),
            static_cast<size_t>(k.src.dims.c) * hw, static_cast<size_t>(k.channels) * hw,
            static_cast<size_t>(k.dst.dims.n), cudaMemcpyDeviceToDevice, s.stream));
    }

    void accumulate(Stream& s, const AccumulateKernel& k) {
        const float one = 1, zero = 0;
        const TensorDims& d = k.dst.dims;
        cudnnTensorDescriptor_t src = tensorDesc(d.n, k.channels, d.h, d.w, k.src.dims.c);
        cudnnTensorDescriptor_t dst = tensorDesc(d.n, k.channels, d.h, d.w, d.c);
        if (k.op == ir::ElementOp::Add)
            IOS_CUDA(
                cudnnAddTensor(s.handle, &one, src, slicePtr(k.src), &one, dst, slicePtr(k.dst)));
        else // C = A × B with C = A: cuDNN allows C to alias A with the same descriptor
            IOS_CUDA(cudnnOpTensor(s.handle, mulOp_, &one, dst, slicePtr(k.dst), &one, src,
                                   slicePtr(k.src), &zero, dst, slicePtr(k.dst)));
    }

    ConvPlan& convPlan(Stream& s, const ConvKernel& k) {
        const auto key = std::make_tuple(k.in, k.out, k.weights);
        if (auto it = convPlans_.find(key); it != convPlans_.end())
            return it->second;
        ConvPlan p;
        IOS_CUDA(cudnnCreateFilterDescriptor(&p.filter));
        IOS_CUDA(cudnnSetFilter4dDescriptor(
            p.filter, CUDNN_DATA_FLOAT, CUDNN_TENSOR_NCHW, static_cast<int>(k.outDims.c),
            static_cast<int>(k.inDims.c / k.groups), static_cast<int>(k.kernel.h),
            static_cast<int>(k.kernel.w)));
        IOS_CUDA(cudnnCreateConvolutionDescriptor(&p.conv));
        IOS_CUDA(cudnnSetConvolution2dDescriptor(
            p.conv, static_cast<int>(k.padding.h), static_cast<int>(k.padding.w),
            static_cast<int>(k.stride.h), static_cast<int>(k.stride.w), 1, 1,
            CUDNN_CROSS_CORRELATION, CUDNN_DATA_FLOAT));
        IOS_CUDA(cudnnSetConvolutionGroupCount(p.conv, static_cast<int>(k.groups)));
        const cudnnMathType_t math = options_.allowTf32 ? CUDNN_DEFAULT_MATH : CUDNN_FMA_MATH;
        IOS_CUDA(cudnnSetConvolutionMathType(p.conv, math));
        cudnnConvolutionFwdAlgoPerf_t perf[CUDNN_CONVOLUTION_FWD_ALGO_COUNT];
        int found = 0;
        IOS_CUDA(cudnnGetConvolutionForwardAlgorithm_v7(
            s.handle, tensorDesc(k.inDims), p.filter, p.conv, tensorDesc(k.outDims),
            CUDNN_CONVOLUTION_FWD_ALGO_COUNT, &found, perf));
        bool chosen = false;
        for (int i = 0; i < found && !chosen; ++i) {
            // Heuristic order; the first usable algorithm whose math stays within `math`.
            if (perf[i].status != CUDNN_STATUS_SUCCESS || perf[i].memory > kMaxWorkspace)
                continue;
            if (!options_.allowTf32 && perf[i].mathType == CUDNN_TENSOR_OP_MATH)
                continue;
            p.algo = perf[i].algo;
            p.workspaceBytes = perf[i].memory;
            chosen = true;
        }
        if (!chosen)
            IOS_CUDA(cudnnGetConvolutionForwardWorkspaceSize(
                s.handle, tensorDesc(k.inDims), p.filter, p.conv, tensorDesc(k.outDims), p.algo,
                &p.workspaceBytes));
        return convPlans_.emplace(key, p).first->second;
    }

    void conv(Stream& s, const ConvKernel& k) {
        ConvPlan& p = convPlan(s, k);
        ensureWorkspace(s, p.workspaceBytes);
        const float one = 1, zero = 0;
        cudnnTensorDescriptor_t in = tensorDesc(k.inDims), out = tensorDesc(k.outDims);
        cudnnTensorDescriptor_t bias = tensorDesc(1, k.outDims.c, 1, 1, k.outDims.c);
        if (k.act == ir::ActType::Relu) { // one fused kernel: conv + bias + ReLU
            IOS_CUDA(cudnnConvolutionBiasActivationForward(
                s.handle, &one, in, ptr(k.in), p.filter, ptr(k.weights), p.conv, p.algo,
                s.workspace, p.workspaceBytes, &zero, out, ptr(k.out), bias, ptr(k.bias),
                activationDesc(k.act), out, ptr(k.out)));
            return;
        }
        IOS_CUDA(cudnnConvolutionForward(s.handle, &one, in, ptr(k.in), p.filter, ptr(k.weights),
                                         p.conv, p.algo, s.workspace, p.workspaceBytes, &zero, out,
                                         ptr(k.out)));
        IOS_CUDA(cudnnAddTensor(s.handle, &one, bias, ptr(k.bias), &one, out, ptr(k.out)));
        if (k.act != ir::ActType::Identity)
            activate(s, k.act, k.outDims, ptr(k.out), ptr(k.out));
    }

    // cuDNN's activations, GELU by the module's own kernel (in place allowed).
    void activate(Stream& s, ir::ActType act, const TensorDims& dims, const float* in, float* out) {
        if (act == ir::ActType::Gelu) {
            kernels().gelu(s.stream, in, out, dims.elements());
            return;
        }
        const float one = 1, zero = 0;
        cudnnTensorDescriptor_t d = tensorDesc(dims);
        IOS_CUDA(cudnnActivationForward(s.handle, activationDesc(act), &one, d, in, &zero, d, out));
    }

    const CudaKernels& kernels() const {
        if (!kernels_)
            throw std::runtime_error("the executor's own kernels (GELU, LayerNorm, token "
                                     "gathers) are not available: " +
                                     kernelsError_);
        return *kernels_;
    }

    cudnnActivationDescriptor_t activationDesc(ir::ActType act) {
        const int key = static_cast<int>(act);
        if (auto it = actDescs_.find(key); it != actDescs_.end())
            return it->second;
        cudnnActivationDescriptor_t d = nullptr;
        IOS_CUDA(cudnnCreateActivationDescriptor(&d));
        IOS_CUDA(cudnnSetActivationDescriptor(d, activationMode(act), CUDNN_NOT_PROPAGATE_NAN, 0));
        return actDescs_.emplace(key, d).first->second;
    }

    void pool(Stream& s, const PoolKernel& k) {
        const auto key = std::make_tuple(static_cast<int>(k.type), k.kernel.h, k.kernel.w,
                                         k.stride.h, k.stride.w, k.padding.h * 1000 + k.padding.w);
        cudnnPoolingDescriptor_t d = nullptr;
        if (auto it = poolDescs_.find(key); it != poolDescs_.end())
            d = it->second;
        else {
            const bool isMax = k.type == ir::PoolType::Max || k.type == ir::PoolType::GlobalMax;
            IOS_CUDA(cudnnCreatePoolingDescriptor(&d));
            IOS_CUDA(cudnnSetPooling2dDescriptor(
                d, isMax ? CUDNN_POOLING_MAX : CUDNN_POOLING_AVERAGE_COUNT_INCLUDE_PADDING,
                CUDNN_NOT_PROPAGATE_NAN, static_cast<int>(k.kernel.h), static_cast<int>(k.kernel.w),
                static_cast<int>(k.padding.h), static_cast<int>(k.padding.w),
                static_cast<int>(k.stride.h), static_cast<int>(k.stride.w)));
            poolDescs_.emplace(key, d);
        }
        const float one = 1, zero = 0;
        IOS_CUDA(cudnnPoolingForward(s.handle, d, &one, tensorDesc(k.inDims), ptr(k.in), &zero,
                                     tensorDesc(k.outDims), ptr(k.out)));
    }

    void activation(Stream& s, const ActivationKernel& k) {
        activate(s, k.act, k.dims, ptr(k.in), ptr(k.out));
    }

    // Softmax: cuDNN's channel softmax (max subtracted) over the tensor viewed as
    // [n · groups, c / groups, h, w], the same packed memory since a group's channels are
    // consecutive. LayerNorm: the module's kernel (cuDNN's legacy API normalizes over the
    // batch, or with given statistics, never over the channels of each position).
    void norm(Stream& s, const NormKernel& k) {
        const int64_t width = k.dims.c / k.groups;
        if (k.type == ir::NormType::LayerNorm) {
            kernels().layerNorm(s.stream, ptr(k.in), ptr(k.out), k.dims.n, k.groups, width,
                                k.dims.h * k.dims.w, static_cast<float>(k.epsilon));
            return;
        }
        const float one = 1, zero = 0;
        cudnnTensorDescriptor_t d =
            tensorDesc(k.dims.n * k.groups, width, k.dims.h, k.dims.w, width);
        IOS_CUDA(cudnnSoftmaxForward(s.handle, CUDNN_SOFTMAX_ACCURATE, CUDNN_SOFTMAX_MODE_CHANNEL,
                                     &one, d, ptr(k.in), &zero, d, ptr(k.out)));
    }

    // Strided-batched SGEMMs over batch × heads, one per window. Per head, an operand of c
    // channels × P positions (NCHW: channel-major) is a column-major P × c matrix with leading
    // dimension P, and a window is a block of its rows. Q·Kᵀ: out (M × N) = A (M × d) ·
    // B (N × d)ᵀ; A·V: out (M × d) = A (M × N) · B (N × d), with M and N A's and B's positions
    // per window. Heads and batch items are consecutive blocks of equal stride.
    void matmul(Stream& s, const MatmulKernel& k) {
        const int64_t heads = k.heads, pa = k.aDims.h * k.aDims.w, pb = k.bDims.h * k.bDims.w;
        const int64_t windows = std::max<int64_t>(1, k.windows);
        const int64_t m = pa / windows, keys = pb / windows, d = k.bDims.c / heads;
        const int64_t n = k.transposeB ? keys : d, depth = k.transposeB ? d : keys;
        const auto alpha = static_cast<float>(k.alpha);
        const float zero = 0;
        for (int64_t w = 0; w < windows; ++w)
            IOS_CUDA(cublasSgemmStridedBatched(
                s.blas, CUBLAS_OP_N, k.transposeB ? CUBLAS_OP_T : CUBLAS_OP_N, static_cast<int>(m),
                static_cast<int>(n), static_cast<int>(depth), &alpha, ptr(k.a) + w * m,
                static_cast<int>(pa), pa * (k.aDims.c / heads), ptr(k.b) + w * keys,
                static_cast<int>(pb), pb * d, &zero, ptr(k.out) + w * m, static_cast<int>(pa),
                pa * n, static_cast<int>(k.aDims.n * heads)));
    }

    void tokens(Stream& s, const TokensKernel& k) {
        CudaKernels::Tokens t;
        t.in = ptr(k.in);
        t.out = ptr(k.out);
        t.index = ptr(k.index);
        t.learned = k.learned < 0 ? nullptr : ptr(k.learned);
        t.table = k.table < 0 ? nullptr : ptr(k.table);
        t.batch = k.outDims.n;
        t.channels = k.outDims.c;
        t.inPositions = k.inDims.h * k.inDims.w;
        t.outPositions = k.outDims.h * k.outDims.w;
        t.tableChannels = std::max<int64_t>(1, k.tableChannels);
        t.tablePositions = std::max<int64_t>(1, k.tablePositions);
        kernels().tokens(s.stream, t);
    }

    CudaBackendOptions options_;
    std::unique_ptr<CudaKernels> kernels_;
    std::string kernelsError_; // why kernels_ is null
    std::string name_;
    cost::DeviceIdentity identity_;
    std::vector<float*> buffers_;
    std::vector<int64_t> sizes_;
    std::vector<Stream> streams_;
    std::vector<cudaEvent_t> events_;
    std::vector<cudaGraphExec_t> graphs_; // null once destroyed
    bool capturing_ = false;
    std::map<std::tuple<int, int, int>, ConvPlan> convPlans_;
    std::map<std::tuple<int, int64_t, int64_t, int64_t, int64_t, int64_t>, cudnnPoolingDescriptor_t>
        poolDescs_;
    std::map<int, cudnnActivationDescriptor_t> actDescs_;
    std::map<std::tuple<int64_t, int64_t, int64_t, int64_t, int64_t>, cudnnTensorDescriptor_t>
        tensorDescs_;
    cudnnOpTensorDescriptor_t mulOp_ = nullptr;
};

// The status a failed cudaGetDeviceCount stands for.
IosCudaStatus statusOf(cudaError_t e) {
    switch (e) {
    case cudaErrorInsufficientDriver: // no libcuda.so.1, or one older than the runtime
    case cudaErrorStubLibrary:        // the toolkit's stub libcuda.so instead of a driver
    case cudaErrorSystemDriverMismatch:
        return IOS_CUDA_NO_DRIVER;
    case cudaErrorNoDevice:
    case cudaErrorDevicesUnavailable:
        return IOS_CUDA_NO_DEVICE;
    default:
        return IOS_CUDA_FAILED;
    }
}

void fail(IosCudaReply* reply, IosCudaStatus status, const std::string& text) {
    reply->status = status;
    std::snprintf(reply->error, sizeof reply->error, "%s", text.c_str());
}

void openDevice(const IosCudaRequest& request, IosCudaReply* reply) {
    int count = 0;
    const cudaError_t e = cudaGetDeviceCount(&count);
    if (e != cudaSuccess)
        return fail(reply, statusOf(e),
                    std::string(cudaGetErrorString(e)) + " (" + cudaGetErrorName(e) + ")");
    if (count <= request.device)
        return fail(reply, IOS_CUDA_NO_DEVICE,
                    "cudaGetDeviceCount found " + std::to_string(count) + " device(s), device " +
                        std::to_string(request.device) + " requested");
    if (request.probeOnly)
        return;
    CudaBackendOptions options;
    options.device = request.device;
    options.allowTf32 = request.allowTf32 != 0;
    reply->backend = new CudaBackend(options);
}

} // namespace

} // namespace ios::profiling

extern "C" __attribute__((visibility("default"))) const char* ios_cuda_backend_abi(int* version) {
    *version = IOS_CUDA_PLUGIN_ABI_VERSION;
    return IOS_CUDA_PLUGIN_TAG;
}

extern "C" __attribute__((visibility("default"))) void
ios_cuda_backend_open(const IosCudaRequest* request, IosCudaReply* reply) {
    reply->status = IOS_CUDA_OK;
    reply->backend = nullptr;
    reply->error[0] = '\0';
    try {
        ios::profiling::openDevice(*request, reply);
    } catch (const std::exception& ex) {
        ios::profiling::fail(reply, IOS_CUDA_FAILED, ex.what());
    } catch (...) {
        ios::profiling::fail(reply, IOS_CUDA_FAILED, "unknown exception");
    }
}
