// SPDX-License-Identifier: Apache-2.0
#include "mock_backend.h"

#include "cost/stage_signature.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

namespace ios::profiling {

namespace {

template <class... F> struct Overload : F... { using F::operator()...; };
template <class... F> Overload(F...) -> Overload<F...>;

void joinInto(std::vector<uint64_t>& into, const std::vector<uint64_t>& from) {
    if (into.size() < from.size())
        into.resize(from.size(), 0);
    for (size_t i = 0; i < from.size(); ++i)
        into[i] = std::max(into[i], from[i]);
}

// The buffers a kernel reads (up to four) and the one it writes.
struct KernelBuffers {
    BufferId reads[4] = {-1, -1, -1, -1};
    BufferId write = -1;
};
KernelBuffers buffersOf(const Kernel& kernel) {
    return std::visit(Overload{[](const CopyKernel& k) {
                                   return KernelBuffers{{k.src.buffer}, k.dst.buffer};
                               },
                               [](const AccumulateKernel& k) {
                                   return KernelBuffers{{k.src.buffer, k.dst.buffer}, k.dst.buffer};
                               },
                               [](const ConvKernel& k) {
                                   return KernelBuffers{{k.in, k.weights, k.bias}, k.out};
                               },
                               [](const PoolKernel& k) {
                                   return KernelBuffers{{k.in}, k.out};
                               },
                               [](const ActivationKernel& k) {
                                   return KernelBuffers{{k.in}, k.out};
                               },
                               [](const NormKernel& k) {
                                   return KernelBuffers{{k.in}, k.out};
                               },
                               [](const MatmulKernel& k) {
                                   return KernelBuffers{{k.a, k.b}, k.out};
                               },
                               [](const TokensKernel& k) {
                                   return KernelBuffers{{k.in, k.index, k.learned, k.table}, k.out};
                               }},
                      kernel);
}

template <class T> T& grow(std::vector<T>& v, size_t i, const T& fill = T{}) {
    if (v.size() <= i)
        v.resize(i + 1, fill);
    return v[i];
}

} // namespace

uint64_t MockBackend::Clocks::kernel(StreamId s) {
    std::vector<uint64_t>& c = stream(s);
    return ++grow(c, static_cast<size_t>(s));
}

// A stream first used after a host synchronization starts from the synchronized clock: every
// earlier kernel was done before its work was issued.
std::vector<uint64_t>& MockBackend::Clocks::stream(StreamId s) {
    const auto i = static_cast<size_t>(s);
    while (streams.size() <= i)
        streams.push_back(synced);
    return streams[i];
}

void MockBackend::Clocks::record(EventId e, StreamId s) {
    grow(events, static_cast<size_t>(e)) = stream(s);
}

// A wait on an event never recorded returns at once (cudaStreamWaitEvent).
void MockBackend::Clocks::wait(StreamId s, EventId e) {
    if (static_cast<size_t>(e) < events.size())
        joinInto(stream(s), events[static_cast<size_t>(e)]);
}

void MockBackend::Clocks::joinAll() {
    for (const std::vector<uint64_t>& c : streams)
        joinInto(synced, c);
    for (std::vector<uint64_t>& c : streams)
        c = synced;
}

bool MockBackend::Clocks::ordered(StreamId from, uint64_t epoch, StreamId to) {
    if (from < 0 || from == to)
        return true;
    const std::vector<uint64_t>& c = stream(to);
    return static_cast<size_t>(from) < c.size() && c[static_cast<size_t>(from)] >= epoch;
}

class MockRecorder final : public KernelRecorder {
public:
    explicit MockRecorder(MockBackend& b) : b_(b) {}
    void begin() override {
        b_.records_.clear();
        b_.recording_ = true;
    }
    std::vector<KernelRecord> end() override {
        b_.recording_ = false;
        return std::move(b_.records_);
    }

private:
    MockBackend& b_;
};

// Samples the number of busy mock streams every interval, as a percentage of all streams.
class MockSampler final : public WarpSampler {
public:
    explicit MockSampler(MockBackend& b) : b_(b) {}
    std::string begin(uint64_t intervalNs) override {
        if (!b_.options_.refuseWarpSampling.empty())
            return b_.options_.refuseWarpSampling;
        interval_ = std::max<uint64_t>(intervalNs, 1);
        startRecord_ = b_.records_.size();
        return {};
    }
    WarpSamples end() override {
        WarpSamples out;
        out.metric = "mock.busy_streams.pct";
        if (!b_.options_.refuseWarpSampling.empty()) {
            out.unavailable = b_.options_.refuseWarpSampling;
            return out;
        }
        const std::vector<KernelRecord>& recs = b_.records_;
        if (recs.size() <= startRecord_)
            return out;
        uint64_t lo = std::numeric_limits<uint64_t>::max(), hi = 0;
        for (size_t i = startRecord_; i < recs.size(); ++i) {
            lo = std::min(lo, recs[i].startNs);
            hi = std::max(hi, recs[i].endNs);
        }
        const double streams = std::max<size_t>(b_.streamClockUs_.size(), 1);
        for (uint64_t t = lo; t < hi; t += interval_) {
            double busy = 0;
            for (size_t i = startRecord_; i < recs.size(); ++i) {
                const uint64_t s = std::max(recs[i].startNs, t);
                const uint64_t e = std::min(recs[i].endNs, t + interval_);
                if (e > s)
                    busy += static_cast<double>(e - s) / static_cast<double>(interval_);
            }
            out.samples.push_back({t, t + interval_, 100 * busy / streams});
        }
        return out;
    }

private:
    MockBackend& b_;
    uint64_t interval_ = 1000;
    size_t startRecord_ = 0;
};

MockOptions MockOptions::variant(const std::string& variant) {
    if (variant == "1")
        return timingOnly("Mock GPU (IOS_PROFILING_MOCK)");
    MockOptions o = timingOnly("Mock GPU (IOS_PROFILING_MOCK=" + variant + ")");
    const uint64_t h = cost::stableHash64(variant);
    // A speed 0.5× to 0.8× or 1.2× to 1.5× the default's: never close to device "1".
    const double step = static_cast<double>(h % 31) / 100;
    const double speed = (h >> 8) % 2 == 0 ? 0.5 + step : 1.2 + step;
    o.gflopsPerUs *= speed;
    o.bytesPerUs *= speed;
    o.launchUs /= speed;
    o.smCount = 20 + static_cast<int>((h >> 16) % 100);
    if (o.smCount == MockOptions{}.smCount)
        ++o.smCount;
    return o;
}

MockBackend::MockBackend(MockOptions options) : options_(std::move(options)) {}

cost::DeviceIdentity MockBackend::identity() const {
    cost::DeviceIdentity d;
    d.name = options_.deviceName;
    d.computeCapability = "mock";
    d.smCount = options_.smCount;
    d.smClockMHz = options_.smClockMHz;
    d.memoryClockMHz = options_.memoryClockMHz;
    d.memoryBytes = options_.memoryBytes;
    d.mathMode = options_.mathMode;
    return d;
}

std::vector<float>& MockBackend::buf(BufferId id) {
    if (id < 0 || static_cast<size_t>(id) >= buffers_.size())
        throw std::logic_error("mock backend: unknown buffer " + std::to_string(id));
    return buffers_[static_cast<size_t>(id)];
}

BufferId MockBackend::allocate(int64_t floats) {
    // Without compute, buffers stay empty: large models cost no host memory.
    buffers_.emplace_back(options_.compute ? static_cast<size_t>(floats) : 0, 0.f);
    uses_.emplace_back();
    return static_cast<BufferId>(buffers_.size() - 1);
}

int64_t MockBackend::floatsAllocated() const {
    int64_t n = 0;
    for (const auto& b : buffers_)
        n += static_cast<int64_t>(b.size());
    return n;
}

// Host copies synchronize the device first, as the CUDA backend's do.
void MockBackend::hostSync(const char* what) {
    if (capturing_)
        throw std::runtime_error(std::string("mock backend: ") + what +
                                 " while a stream is being captured (CUDA refuses it: "
                                 "cudaErrorStreamCaptureUnsupported, and the capture is lost)");
    order_.joinAll();
}

void MockBackend::upload(BufferId buffer, const std::vector<float>& values) {
    hostSync("upload");
    if (!options_.compute)
        return;
    std::vector<float>& b = buf(buffer);
    if (values.size() != b.size())
        throw std::logic_error("mock backend: upload size mismatch");
    b = values;
}

std::vector<float> MockBackend::download(BufferId buffer) {
    hostSync("download");
    return buf(buffer);
}

StreamId MockBackend::createStream() {
    streamClockUs_.push_back(0);
    return static_cast<StreamId>(streamClockUs_.size() - 1);
}

EventId MockBackend::createEvent() {
    eventClockUs_.push_back(0);
    return static_cast<EventId>(eventClockUs_.size() - 1);
}

double MockBackend::durationUs(const Kernel& kernel) const {
    double bytes = 0;
    if (const auto* c = std::get_if<CopyKernel>(&kernel))
        bytes =
            8.0 * static_cast<double>(c->dst.dims.n * c->channels * c->dst.dims.h * c->dst.dims.w);
    return options_.launchUs + kernelFlops(kernel) / (options_.gflopsPerUs * 1e9) +
           bytes / options_.bytesPerUs;
}

void MockBackend::hostIssue() {
    if (!capturing_)
        hostClockUs_ += options_.hostLaunchUs;
}
double& MockBackend::issuedClock(StreamId stream) {
    double& clock = streamClockUs_.at(static_cast<size_t>(stream));
    if (options_.hostLaunchUs > 0) // without a host cost the clocks stay as they always were
        clock = std::max(clock, hostClockUs_);
    return clock;
}
void MockBackend::run(StreamId stream, const Kernel& kernel) {
    checkOrder(stream, kernel);
    double& clock = issuedClock(stream);
    const double start = clock;
    clock += durationUs(kernel);
    ++kernelsRun_;
    if (recording_) {
        KernelRecord r;
        r.name = kernelKindName(kernel);
        r.streamId = traceStreamId(stream);
        r.startNs = static_cast<uint64_t>(std::llround(start * 1000));
        r.endNs = static_cast<uint64_t>(std::llround(clock * 1000));
        r.grid = {1, 1, 1};
        r.block = {128, 1, 1};
        r.correlationId = nextCorrelation_++;
        r.tag = tag_;
        records_.push_back(r);
    }
    if (options_.compute)
        execute(kernel);
}

// Read after write, write after write and write after read must each be ordered (the same
// stream, or an event / synchronize chain between the streams).
void MockBackend::checkOrder(StreamId stream, const Kernel& kernel) {
    const uint64_t epoch = order_.kernel(stream);
    const KernelBuffers b = buffersOf(kernel);
    auto who = [&] { return kernelKindName(kernel) + " on stream " + std::to_string(stream); };
    auto unordered = [&](const Access& a) { return !order_.ordered(a.stream, a.epoch, stream); };
    for (BufferId r : b.reads) {
        if (r < 0)
            continue;
        BufferUse& use = uses_.at(static_cast<size_t>(r));
        if (unordered(use.write))
            hazard(who() + " reads buffer " + std::to_string(r) + " before the write of stream " +
                   std::to_string(use.write.stream) + " is ordered before it");
        auto it = std::find_if(use.reads.begin(), use.reads.end(),
                               [&](const Access& a) { return a.stream == stream; });
        if (it == use.reads.end())
            use.reads.push_back({stream, epoch});
        else
            it->epoch = epoch;
    }
    BufferUse& use = uses_.at(static_cast<size_t>(b.write));
    if (unordered(use.write))
        hazard(who() + " writes buffer " + std::to_string(b.write) +
               " not ordered after the write of stream " + std::to_string(use.write.stream));
    for (const Access& a : use.reads)
        if (unordered(a))
            hazard(who() + " writes buffer " + std::to_string(b.write) +
                   " not ordered after a read on stream " + std::to_string(a.stream));
    use.write = {stream, epoch};
    use.reads.clear();
}

void MockBackend::hazard(const std::string& text) {
    if (hazards_.size() < 100)
        hazards_.push_back(text);
    ++hazardCount_;
}

void MockBackend::log(MockCall call) {
    if (options_.logCalls)
        calls_.push_back(std::move(call));
}

void MockBackend::requireCaptured(StreamId stream, const char* what) const {
    const auto s = static_cast<size_t>(stream);
    if (s >= inCapture_.size() || !inCapture_[s])
        throw std::runtime_error(
            "mock backend: stream " + std::to_string(stream) + " " + what +
            " while another stream is captured, but it never joined the capture (waited on an "
            "event recorded in it): the work would run outside the graph");
}

void MockBackend::enqueue(StreamId stream, const Kernel& kernel) {
    log({MockCall::Kind::Enqueue, stream, -1, tag_, kernelKindName(kernel)});
    hostIssue();
    if (capturing_) {
        requireCaptured(stream, "launches a kernel");
        captureOrder_.kernel(stream);
        captured_.push_back([this, stream, kernel] { run(stream, kernel); });
    } else {
        run(stream, kernel);
    }
}

void MockBackend::record(EventId event, StreamId stream) {
    log({MockCall::Kind::Record, stream, event, 0, {}});
    hostIssue();
    if (capturing_) {
        requireCaptured(stream, "records an event");
        captureOrder_.record(event, stream);
        grow(eventCaptured_, static_cast<size_t>(event)) = 1;
    }
    auto f = [this, event, stream] {
        eventClockUs_.at(static_cast<size_t>(event)) = issuedClock(stream);
        order_.record(event, stream);
    };
    capturing_ ? captured_.push_back(f) : f();
}

void MockBackend::wait(StreamId stream, EventId event) {
    log({MockCall::Kind::Wait, stream, event, 0, {}});
    hostIssue();
    if (capturing_) {
        const auto e = static_cast<size_t>(event);
        if (e >= eventCaptured_.size() || !eventCaptured_[e])
            throw std::runtime_error("mock backend: stream " + std::to_string(stream) +
                                     " waits during a capture on event " + std::to_string(event) +
                                     ", which was not recorded in the capture "
                                     "(cudaErrorStreamCaptureIsolation)");
        grow(inCapture_, static_cast<size_t>(stream)) = 1;
        captureOrder_.wait(stream, event);
    }
    auto f = [this, event, stream] {
        double& c = issuedClock(stream);
        c = std::max(c, eventClockUs_.at(static_cast<size_t>(event)));
        order_.wait(stream, event);
    };
    capturing_ ? captured_.push_back(f) : f();
}

void MockBackend::synchronize() {
    log({MockCall::Kind::Synchronize, -1, -1, 0, {}});
    hostSync("synchronize");
    const double now = streamClockUs_.empty()
                           ? 0
                           : *std::max_element(streamClockUs_.begin(), streamClockUs_.end());
    std::fill(streamClockUs_.begin(), streamClockUs_.end(), now);
    hostClockUs_ = std::max(hostClockUs_, now); // the host waited for the device
}

double MockBackend::elapsedMs(EventId from, EventId to) {
    // The clocks are doubles whose last bits depend on how much ran before (absolute time):
    // on a 1e-6 µs grid, a stage's span is the same wherever it sits in a run, so runs that
    // batch stages differently (shards, resumed runs) store equal medians.
    const double us = std::round((eventClockUs_.at(static_cast<size_t>(to)) -
                                  eventClockUs_.at(static_cast<size_t>(from))) *
                                 1e6) /
                      1e6;
    const double factor = options_.jitter ? options_.jitter(elapsedCalls_) : 1.0;
    ++elapsedCalls_;
    return us / 1000 * factor;
}

void MockBackend::beginCapture(StreamId stream) {
    log({MockCall::Kind::BeginCapture, stream, -1, 0, {}});
    if (capturing_)
        throw std::logic_error("mock backend: nested capture");
    capturing_ = true;
    captured_.clear();
    captureOrigin_ = stream;
    captureOrder_ = Clocks{};
    inCapture_.assign(streamClockUs_.size(), 0);
    grow(inCapture_, static_cast<size_t>(stream)) = 1;
    eventCaptured_.assign(eventClockUs_.size(), 0);
}

// CUDA ends a capture only when every stream that joined it has joined back into the origin
// stream (cudaErrorStreamCaptureUnjoined otherwise); streams that launched nothing are let be.
GraphId MockBackend::endCapture(StreamId stream) {
    log({MockCall::Kind::EndCapture, stream, -1, 0, {}});
    capturing_ = false;
    std::vector<std::function<void()>> work = std::move(captured_);
    captured_.clear();
    if (stream != captureOrigin_)
        throw std::runtime_error("mock backend: capture ended on stream " + std::to_string(stream) +
                                 ", begun on stream " + std::to_string(captureOrigin_));
    for (size_t s = 0; s < inCapture_.size(); ++s) {
        const auto id = static_cast<StreamId>(s);
        if (!inCapture_[s] || id == stream)
            continue;
        const std::vector<uint64_t>& clock = captureOrder_.stream(id);
        const uint64_t last = s < clock.size() ? clock[s] : 0;
        if (last > 0 && !captureOrder_.ordered(id, last, stream))
            throw std::runtime_error("mock backend: capture ended with stream " +
                                     std::to_string(s) +
                                     " not joined back into the origin stream "
                                     "(cudaErrorStreamCaptureUnjoined)");
    }
    graphs_.push_back(std::move(work));
    return static_cast<GraphId>(graphs_.size() - 1);
}

void MockBackend::launchGraph(GraphId graph, StreamId stream) {
    log({MockCall::Kind::LaunchGraph, stream, graph, 0, {}});
    if (destroyed_.count(graph) != 0)
        throw std::runtime_error("mock backend: graph " + std::to_string(graph) +
                                 " launched after it was destroyed");
    ++graphsLaunched_;
    hostIssue(); // one launch for the whole graph
    for (const auto& f : graphs_.at(static_cast<size_t>(graph)))
        f();
}

void MockBackend::destroyGraph(GraphId graph) {
    auto& work = graphs_.at(static_cast<size_t>(graph));
    if (!destroyed_.insert(graph).second)
        throw std::logic_error("mock backend: graph " + std::to_string(graph) + " destroyed twice");
    std::vector<std::function<void()>>().swap(work);
}

int MockBackend::graphsLive() const {
    return static_cast<int>(graphs_.size() - destroyed_.size());
}

uint64_t MockBackend::traceStreamId(StreamId stream) const {
    return 1000 + static_cast<uint64_t>(stream);
}

std::unique_ptr<KernelRecorder> MockBackend::kernelRecorder() {
    return std::make_unique<MockRecorder>(*this);
}

std::unique_ptr<WarpSampler> MockBackend::warpSampler() {
    return std::make_unique<MockSampler>(*this);
}

} // namespace ios::profiling
