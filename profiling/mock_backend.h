// SPDX-License-Identifier: Apache-2.0
// A GpuBackend on the CPU: kernels compute their values with plain loops (a reference for the
// numeric checks) and advance a virtual clock per stream; events carry stream clocks, so
// concurrency between streams shows up in elapsed times and in synthetic kernel records the
// same way CUPTI would report it. Deterministic, for tests without a GPU.
//
// Work runs in issue order, so a missing wait never changes the mock's values. Instead the mock
// checks the ordering CUDA would guarantee: vector clocks per stream and event (a record copies
// the stream's clock, a wait joins it, a synchronize or a host copy joins every stream) tell
// whether a kernel's access to a buffer is ordered after the last kernel that wrote it (and a
// write after the kernels that read it); unordered accesses are kept as hazards(). Stream
// capture is checked as CUDA checks it: work on a stream that did not join the capture (by
// waiting on an event recorded in it), a synchronize while capturing, a wait on an event
// recorded outside the capture, and a capture that ends with a stream whose kernels were not
// joined back into the origin stream are errors (std::runtime_error, as the CUDA backend
// reports CUDA's errors).
#pragma once

#include "gpu_backend.h"

#include <functional>
#include <set>
#include <string>
#include <vector>

namespace ios::profiling {

// One backend call, as issued (MockOptions::logCalls); graph replays log only LaunchGraph.
struct MockCall {
    enum class Kind : uint8_t {
        Enqueue,
        Record,
        Wait,
        Synchronize,
        BeginCapture,
        EndCapture,
        LaunchGraph
    };
    Kind kind = Kind::Enqueue;
    int stream = -1;    // all but Synchronize
    int event = -1;     // Record, Wait; LaunchGraph: the graph
    uint64_t tag = 0;   // Enqueue: the trace tag it was issued with
    std::string kernel; // Enqueue: kernelKindName
};

struct MockOptions {
    std::string deviceName = "Mock GPU";
    // The rest of the identity() the mock reports (no driver, CUDA or cuDNN: empty).
    int smCount = 80;
    int smClockMHz = 1000;
    int memoryClockMHz = 1000;
    int64_t memoryBytes = int64_t{16} << 30;
    std::string mathMode = "fp32";
    bool compute = true;       // false: only advance clocks (large models in tests)
    double launchUs = 2;       // per kernel
    double gflopsPerUs = 0.01; // 10 TFLOP/s
    double bytesPerUs = 1.0e6; // 1 TB/s for copies
    // Host time per API call that issues work (kernel launch, event record, stream wait,
    // graph launch), on a host clock: work starts no earlier than the host issued it, so
    // eager runs of many small kernels become host-bound while a graph replay pays once.
    double hostLaunchUs = 0;
    // elapsedMs() of the k-th call (0-based) is multiplied by jitter(k): lets tests give
    // repeated timings a known spread. Empty = 1.
    std::function<double(int)> jitter;
    // Active-warp sampling: empty = samples of the stream occupancy; otherwise begin()
    // refuses with this reason (as CUPTI does without counter permission).
    std::string refuseWarpSampling;
    bool logCalls = false; // keep calls() (tests of what the executor issues)

    // Clocks and records only, no values: large models without host memory or CPU time.
    static MockOptions timingOnly(std::string name) {
        MockOptions o;
        o.deviceName = std::move(name);
        o.compute = false;
        return o;
    }
    // The mock device IOS_PROFILING_MOCK=`variant` selects (timing only): "1" is the mock
    // every dry run has used ("Mock GPU (IOS_PROFILING_MOCK)"); any other value names another
    // mock device, with the variant in its name, its own SM count and its own speed (both
    // derived from cost::stableHash64 of the name, the same on every machine; always at least
    // 20 % faster or slower than "1"), so tests with two mock devices see a mix-up.
    static MockOptions variant(const std::string& variant);
};

class MockBackend final : public GpuBackend {
public:
    explicit MockBackend(MockOptions options = {});

    std::string deviceName() const override { return options_.deviceName; }
    cost::DeviceIdentity identity() const override;
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
    void destroyGraph(GraphId graph) override;
    // An event recorded under capture is replayed with the graph already (record()).
    void recordTiming(EventId event, StreamId stream) override { record(event, stream); }
    uint64_t traceStreamId(StreamId stream) const override;
    void setTraceTag(uint64_t tag) override { tag_ = tag; }
    std::unique_ptr<KernelRecorder> kernelRecorder() override;
    std::unique_ptr<WarpSampler> warpSampler() override;

    // Test hooks.
    int kernelsRun() const { return kernelsRun_; }
    int graphsLaunched() const { return graphsLaunched_; }
    int graphsLive() const; // captured and not destroyed
    int64_t floatsAllocated() const;
    const std::vector<MockCall>& calls() const { return calls_; }
    void clearCalls() { calls_.clear(); }
    // Unordered buffer accesses (the first 100 described; hazardCount() counts all).
    const std::vector<std::string>& hazards() const { return hazards_; }
    int hazardCount() const { return hazardCount_; }
    void clearHazards() {
        hazards_.clear();
        hazardCount_ = 0;
    }

private:
    friend class MockRecorder;
    friend class MockSampler;
    // Happens-before by vector clocks: entry s of a stream's clock = how many kernels of
    // stream s are ordered before its next work.
    struct Clocks {
        std::vector<std::vector<uint64_t>> streams, events;
        std::vector<uint64_t> synced; // at the last joinAll
        std::vector<uint64_t>& stream(StreamId s);
        uint64_t kernel(StreamId s); // the kernel's epoch on its stream
        void record(EventId e, StreamId s);
        void wait(StreamId s, EventId e);
        void joinAll();
        // Whether the kernel of `epoch` on `from` is ordered before the next work on `to`.
        bool ordered(StreamId from, uint64_t epoch, StreamId to);
    };
    struct Access {
        StreamId stream = -1;
        uint64_t epoch = 0;
    };
    struct BufferUse {
        Access write;
        std::vector<Access> reads; // the latest per stream since the write
    };
    void run(StreamId stream, const Kernel& kernel);
    void checkOrder(StreamId stream, const Kernel& kernel);
    void hazard(const std::string& text);
    void hostSync(const char* what);
    void log(MockCall call);
    void hostIssue(); // one host API call: advances the host clock when not capturing
    double& issuedClock(StreamId stream); // the stream's clock, not before the host issued
    void requireCaptured(StreamId stream, const char* what) const;
    void execute(const Kernel& kernel);
    double durationUs(const Kernel& kernel) const;
    std::vector<float>& buf(BufferId id);

    MockOptions options_;
    std::vector<std::vector<float>> buffers_;
    std::vector<double> streamClockUs_;
    double hostClockUs_ = 0; // when the host issues its next call (MockOptions::hostLaunchUs)
    std::vector<double> eventClockUs_;
    int elapsedCalls_ = 0;
    bool capturing_ = false;
    std::vector<std::function<void()>> captured_;
    std::vector<std::vector<std::function<void()>>> graphs_;
    std::set<GraphId> destroyed_;
    uint64_t tag_ = 0;
    int kernelsRun_ = 0;
    int graphsLaunched_ = 0;
    bool recording_ = false;
    std::vector<KernelRecord> records_;
    uint32_t nextCorrelation_ = 1;
    std::vector<MockCall> calls_;
    Clocks order_;                // the device's ordering (eager work and graph replays)
    std::vector<BufferUse> uses_; // per buffer
    std::vector<std::string> hazards_;
    int hazardCount_ = 0;
    Clocks captureOrder_; // the ordering of what is being captured
    StreamId captureOrigin_ = -1;
    std::vector<char> inCapture_;     // per stream: joined the capture
    std::vector<char> eventCaptured_; // per event: recorded during this capture
};

} // namespace ios::profiling
