// A GpuBackend on the CPU: kernels compute their values with plain loops (a reference for the
// numeric checks) and advance a virtual clock per stream; events carry stream clocks, so
// concurrency between streams shows up in elapsed times and in synthetic kernel records the
// same way CUPTI would report it. Deterministic, for tests without a GPU.
#pragma once

#include "gpu_backend.h"

#include <functional>
#include <string>
#include <vector>

namespace ios::profiling {

struct MockOptions {
    std::string deviceName = "Mock GPU";
    bool compute = true;       // false: only advance clocks (large models in tests)
    double launchUs = 2;       // per kernel
    double gflopsPerUs = 0.01; // 10 TFLOP/s
    double bytesPerUs = 1.0e6; // 1 TB/s for copies
    // elapsedMs() of the k-th call (0-based) is multiplied by jitter(k): lets tests give
    // repeated timings a known spread. Empty = 1.
    std::function<double(int)> jitter;
    // Active-warp sampling: empty = samples of the stream occupancy; otherwise begin()
    // refuses with this reason (as CUPTI does without counter permission).
    std::string refuseWarpSampling;

    // Clocks and records only, no values: large models without host memory or CPU time.
    static MockOptions timingOnly(std::string name) {
        MockOptions o;
        o.deviceName = std::move(name);
        o.compute = false;
        return o;
    }
};

class MockBackend final : public GpuBackend {
public:
    explicit MockBackend(MockOptions options = {});

    std::string deviceName() const override { return options_.deviceName; }
    BufferId allocate(int64_t floats) override;
    void upload(BufferId buffer, const std::vector<float>& values) override;
    std::vector<float> download(BufferId buffer) override;
    StreamId createStream() override;
    void enqueue(StreamId stream, const Kernel& kernel) override;
    EventId createEvent() override;
    void record(EventId event, StreamId stream) override;
    void wait(StreamId stream, EventId event) override;
    void synchronize() override;
    double elapsedMs(EventId from, EventId to) override;
    void beginCapture(StreamId stream) override;
    GraphId endCapture(StreamId stream) override;
    void launchGraph(GraphId graph, StreamId stream) override;
    uint64_t traceStreamId(StreamId stream) const override;
    void setTraceTag(uint64_t tag) override { tag_ = tag; }
    std::unique_ptr<KernelRecorder> kernelRecorder() override;
    std::unique_ptr<WarpSampler> warpSampler() override;

    // Test hooks.
    int kernelsRun() const { return kernelsRun_; }
    int graphsLaunched() const { return graphsLaunched_; }
    int64_t floatsAllocated() const;

private:
    friend class MockRecorder;
    friend class MockSampler;
    void run(StreamId stream, const Kernel& kernel);
    void execute(const Kernel& kernel);
    double durationUs(const Kernel& kernel) const;
    std::vector<float>& buf(BufferId id);

    MockOptions options_;
    std::vector<std::vector<float>> buffers_;
    std::vector<double> streamClockUs_;
    std::vector<double> eventClockUs_;
    int elapsedCalls_ = 0;
    bool capturing_ = false;
    std::vector<std::function<void()>> captured_;
    std::vector<std::vector<std::function<void()>>> graphs_;
    uint64_t tag_ = 0;
    int kernelsRun_ = 0;
    int graphsLaunched_ = 0;
    bool recording_ = false;
    std::vector<KernelRecord> records_;
    uint32_t nextCorrelation_ = 1;
};

} // namespace ios::profiling
