#include "cost/stage_simulator.h"

#include <algorithm>
#include <cassert>
#include <cmath>
#include <limits>
#include <stdexcept>

namespace ios::cost {

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kEps = 1e-9;

struct KernelState {
    const KernelDesc* desc = nullptr;
    int group = 0;
    const OpKernels* op = nullptr;
    Occupancy occ;
    double issue = 0;
    double arrival = 0; // reaches the GPU
    int64_t pending = 0;
    int64_t resident = 0;
    bool admitted = false; // launched on the GPU: its CTAs may take free SM slots
    double start = -1;
    double end = -1;
};

struct Cohort {
    int kernel = 0; // index into kernels
    int64_t count = 0;
    double progress = 0; // fraction of the CTAs' work done
};

class Simulation {
public:
    Simulation(const std::vector<GroupKernels>& groups, const DeviceProfile& device)
        : device_(device), model_(device.sm) {
        run_.synchronized = groups.size() > 1;
        // The host issues group after group, one kernel every launchOverheadUs.
        const double latency = run_.synchronized ? device.launchLatencyUs : 0.0;
        int issued = 0;
        for (size_t g = 0; g < groups.size(); ++g) {
            streams_.emplace_back();
            for (const OpKernels& op : groups[g]) {
                for (const KernelDesc& k : op.kernels) {
                    KernelState s;
                    s.desc = &k;
                    s.group = static_cast<int>(g);
                    s.op = &op;
                    s.occ = occupancy(k, device);
                    s.issue = issued * device.launchOverheadUs;
                    s.arrival = s.issue + latency;
                    s.pending = std::max<int64_t>(1, k.ctas);
                    streams_.back().push_back(static_cast<int>(kernels_.size()));
                    kernels_.push_back(s);
                    ++issued;
                }
            }
        }
        issueEnd_ = issued * device.launchOverheadUs;
        head_.assign(streams_.size(), 0);
        ready_.assign(streams_.size(), 0.0);
    }

    StageRun run() {
        double t = 0;
        // Every iteration retires a cohort (at least one CTA) or admits a kernel, so the CTAs
        // and kernels bound the loop; exceeding it means a bug, not a slow stage.
        size_t guard = 16;
        for (const KernelState& k : kernels_)
            guard += 2 + 2 * static_cast<size_t>(k.pending);
        while (true) {
            if (guard-- == 0)
                throw std::logic_error("stage simulation did not converge");
            dispatch(t);
            const double next = nextArrival(t);
            if (cohorts_.empty() && next == kInf)
                break;
            std::vector<double> rates = currentRates();
            sample(t, rates);
            double dt = next - t;
            for (size_t i = 0; i < cohorts_.size(); ++i)
                dt = std::min(dt, (1.0 - cohorts_[i].progress) / rates[i]);
            assert(dt >= 0 && dt < kInf);
            t += dt;
            for (size_t i = 0; i < cohorts_.size(); ++i)
                cohorts_[i].progress += rates[i] * dt;
            retire(t);
        }
        double end = std::max(t, issueEnd_);
        if (run_.synchronized)
            end += device_.syncOverheadUs;
        run_.latencyUs = end;
        run_.samples.push_back({t, 0, 0, 0});
        summarise();
        return std::move(run_);
    }

private:
    // Admits the ready head kernel of each stream, then fills free SM slots with pending
    // CTAs in launch order (the hardware CTA scheduler favours the earlier kernel).
    void dispatch(double t) {
        for (size_t s = 0; s < streams_.size(); ++s) {
            if (head_[s] >= streams_[s].size())
                continue;
            KernelState& k = kernels_[static_cast<size_t>(streams_[s][head_[s]])];
            if (!k.admitted && std::max(k.arrival, ready_[s]) <= t + kEps)
                k.admitted = true;
        }
        std::vector<int> order;
        for (size_t i = 0; i < kernels_.size(); ++i)
            if (kernels_[i].admitted && kernels_[i].pending > 0)
                order.push_back(static_cast<int>(i));
        std::sort(order.begin(), order.end(), [&](int a, int b) {
            return kernels_[static_cast<size_t>(a)].arrival <
                       kernels_[static_cast<size_t>(b)].arrival ||
                   (kernels_[static_cast<size_t>(a)].arrival ==
                        kernels_[static_cast<size_t>(b)].arrival &&
                    a < b);
        });
        for (int i : order) {
            KernelState& k = kernels_[static_cast<size_t>(i)];
            const double free = device_.smCount - usedSms_;
            const auto fit = static_cast<int64_t>(std::floor(free * k.occ.ctasPerSm + kEps));
            const int64_t n = std::min(k.pending, fit);
            if (n <= 0)
                continue;
            if (k.start < 0)
                k.start = t;
            k.pending -= n;
            k.resident += n;
            usedSms_ += static_cast<double>(n) / k.occ.ctasPerSm;
            cohorts_.push_back({i, n, 0.0});
        }
    }

    double nextArrival(double t) const {
        double next = kInf;
        for (size_t s = 0; s < streams_.size(); ++s) {
            if (head_[s] >= streams_[s].size())
                continue;
            const KernelState& k = kernels_[static_cast<size_t>(streams_[s][head_[s]])];
            if (!k.admitted)
                next = std::min(next, std::max({k.arrival, ready_[s], t}));
        }
        return next;
    }

    std::vector<double> currentRates() const {
        std::vector<ResidentCtas> resident;
        resident.reserve(cohorts_.size());
        for (const Cohort& c : cohorts_)
            resident.push_back({kernels_[static_cast<size_t>(c.kernel)].desc, c.count});
        return ctaRates(resident, device_);
    }

    void sample(double t, const std::vector<double>& rates) {
        int64_t ctas = 0;
        double warps = 0;
        double flopsPerUs = 0;
        for (size_t i = 0; i < cohorts_.size(); ++i) {
            const KernelDesc& k = *kernels_[static_cast<size_t>(cohorts_[i].kernel)].desc;
            ctas += cohorts_[i].count;
            warps += static_cast<double>(cohorts_[i].count) * k.warpsPerCta();
            flopsPerUs += static_cast<double>(cohorts_[i].count) * rates[i] * k.flops /
                          static_cast<double>(std::max<int64_t>(1, k.ctas));
        }
        UtilisationSample s;
        s.timeUs = t;
        s.activeSms = static_cast<int>(std::min<int64_t>(device_.smCount, ctas));
        s.warpOccupancy = std::min(1.0, warps / (device_.smCount * device_.maxWarpsPerSm()));
        s.flopUtilisation = std::min(1.0, flopsPerUs / (device_.fp32PeakTflops * 1e6));
        if (!run_.samples.empty() && run_.samples.back().timeUs == t)
            run_.samples.back() = s;
        else
            run_.samples.push_back(s);
    }

    void retire(double t) {
        for (size_t i = 0; i < cohorts_.size();) {
            if (cohorts_[i].progress < 1.0 - kEps) {
                ++i;
                continue;
            }
            KernelState& k = kernels_[static_cast<size_t>(cohorts_[i].kernel)];
            k.resident -= cohorts_[i].count;
            usedSms_ -= static_cast<double>(cohorts_[i].count) / k.occ.ctasPerSm;
            cohorts_.erase(cohorts_.begin() + static_cast<long>(i));
            if (k.pending == 0 && k.resident == 0) {
                k.end = t;
                const auto s = static_cast<size_t>(k.group);
                ++head_[s];
                ready_[s] = t + model_.kernelGapUs;
            }
        }
        if (cohorts_.empty())
            usedSms_ = 0; // drop accumulated rounding
    }

    void summarise() {
        for (const KernelState& k : kernels_)
            run_.kernels.push_back({k.group, k.op->op, k.op->label, k.desc->name,
                                    std::max<int64_t>(1, k.desc->ctas), k.issue, k.start, k.end});
        const double total = run_.latencyUs;
        if (total <= 0)
            return;
        const auto& s = run_.samples;
        for (size_t i = 0; i + 1 < s.size(); ++i) {
            const double dt = s[i + 1].timeUs - s[i].timeUs;
            run_.meanActiveSmFraction += dt * s[i].activeSms / device_.smCount;
            run_.meanWarpOccupancy += dt * s[i].warpOccupancy;
            run_.meanFlopUtilisation += dt * s[i].flopUtilisation;
        }
        run_.meanActiveSmFraction /= total;
        run_.meanWarpOccupancy /= total;
        run_.meanFlopUtilisation /= total;
    }

    const DeviceProfile& device_;
    const SmModel& model_;
    std::vector<KernelState> kernels_;
    std::vector<std::vector<int>> streams_;
    std::vector<size_t> head_;
    std::vector<double> ready_; // earliest start of the stream's next kernel
    std::vector<Cohort> cohorts_;
    double usedSms_ = 0;
    double issueEnd_ = 0;
    StageRun run_;
};

} // namespace

StageRun simulateStage(const std::vector<GroupKernels>& groups, const DeviceProfile& device) {
    return Simulation(groups, device).run();
}

} // namespace ios::cost
