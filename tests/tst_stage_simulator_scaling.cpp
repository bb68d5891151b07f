// SPDX-License-Identifier: Apache-2.0
// The stage simulator at scale (issue 19, defects 10 and 11): a stage of tens of thousands of
// groups (greedy on a wide graph) and kernels of millions of CTAs (huge batches) simulate in
// time linear in the kernels, with the latencies of the plain event loop to the bit: a naive
// reference (every stream scanned per event, one event per wave) below is the oracle.
#include "build_flavour.h"
#include "cost/device_profile.h"
#include "cost/kernel_model.h"
#include "cost/simulated_gpu_cost_model.h"
#include "cost/stage_simulator.h"
#include "eval/evaluate.h"
#include "ir/block_dag.h"
#include "ir/validate.h"
#include "ir_builders.h"
#include "random_kernels.h"
#include "schedulers/baselines.h"

#include <QTest>
#include <algorithm>
#include <cmath>
#include <limits>
#include <random>

using namespace ios;
using namespace ios::cost;

namespace {

using ios::test::randomKernel;

const DeviceProfile& device(const char* name) {
    return *findBundledDevice(name);
}

// The simulation as docs/cost-model.md states it, one step per event, no shortcuts.
double naiveLatencyUs(const std::vector<StageKernel>& kernels, size_t groups,
                      const DeviceProfile& d) {
    constexpr double eps = 1e-9;
    constexpr double inf = std::numeric_limits<double>::infinity();
    struct K {
        const KernelDesc* desc;
        size_t stream;
        int cps;
        double arrival;
        int64_t pending, resident = 0;
        bool admitted = false;
        // The integral of its rate since it last had no resident CTAs: a cohort's progress
        // is the clock less the clock at its dispatch.
        double clock = 0;
    };
    struct Cohort {
        size_t kernel;
        int64_t count;
        double start;
    };
    const bool sync = groups > 1;
    std::vector<K> ks;
    std::vector<std::vector<size_t>> streams(groups);
    for (size_t i = 0; i < kernels.size(); ++i) {
        const KernelDesc& k = *kernels[i].kernel;
        const auto s = static_cast<size_t>(kernels[i].group);
        ks.push_back({&k, s, occupancy(k, d).ctasPerSm,
                      static_cast<double>(i) * d.launchOverheadUs + (sync ? d.launchLatencyUs : 0),
                      std::max<int64_t>(1, k.ctas)});
        streams[s].push_back(i);
    }
    std::vector<size_t> pos(groups, 0);
    std::vector<double> ready(groups, 0);
    std::vector<Cohort> cohorts;
    double used = 0, t = 0;
    while (true) {
        std::vector<size_t> order;
        double next = inf;
        for (size_t s = 0; s < groups; ++s) {
            if (pos[s] == streams[s].size())
                continue;
            K& h = ks[streams[s][pos[s]]];
            if (!h.admitted && std::max(h.arrival, ready[s]) <= t + eps)
                h.admitted = true;
            if (h.admitted && h.pending > 0)
                order.push_back(streams[s][pos[s]]);
        }
        std::sort(order.begin(), order.end(), [&](size_t a, size_t b) {
            return ks[a].arrival < ks[b].arrival || (ks[a].arrival == ks[b].arrival && a < b);
        });
        for (size_t i : order) {
            K& k = ks[i];
            const auto fit = static_cast<int64_t>(std::floor((d.smCount - used) * k.cps + eps));
            const int64_t n = std::min(k.pending, fit);
            if (n <= 0)
                continue;
            k.pending -= n;
            k.resident += n;
            used += static_cast<double>(n) / k.cps;
            cohorts.push_back({i, n, k.clock});
        }
        for (size_t s = 0; s < groups; ++s)
            if (pos[s] < streams[s].size() && !ks[streams[s][pos[s]]].admitted) {
                const K& h = ks[streams[s][pos[s]]];
                next = std::min(next, std::max({h.arrival, ready[s], t}));
            }
        if (cohorts.empty() && next == inf)
            break;
        // ctaRates over the resident kernels, each once with all its resident CTAs, in
        // (arrival, index) order; a cohort runs at its kernel's rate.
        std::vector<size_t> residentKernels;
        for (size_t i = 0; i < ks.size(); ++i)
            if (ks[i].resident > 0)
                residentKernels.push_back(i);
        std::sort(residentKernels.begin(), residentKernels.end(), [&](size_t a, size_t b) {
            return ks[a].arrival < ks[b].arrival || (ks[a].arrival == ks[b].arrival && a < b);
        });
        std::vector<ResidentCtas> resident;
        std::vector<double> rateOf(ks.size(), 0.0);
        for (size_t i : residentKernels)
            resident.push_back({ks[i].desc, ks[i].resident});
        const std::vector<double> kernelRates = ctaRates(resident, d);
        for (size_t j = 0; j < residentKernels.size(); ++j)
            rateOf[residentKernels[j]] = kernelRates[j];
        double dt = next - t;
        for (const Cohort& c : cohorts)
            dt = std::min(dt, (1.0 - (ks[c.kernel].clock - c.start)) / rateOf[c.kernel]);
        t += dt;
        for (size_t i : residentKernels)
            ks[i].clock += rateOf[i] * dt;
        // Retirements kernel by kernel in that order, each kernel's in dispatch order.
        std::vector<bool> retired(cohorts.size(), false);
        for (size_t i : residentKernels) {
            K& k = ks[i];
            for (size_t c = 0; c < cohorts.size(); ++c) {
                if (cohorts[c].kernel != i || k.clock - cohorts[c].start < 1.0 - eps)
                    continue;
                retired[c] = true;
                k.resident -= cohorts[c].count;
                used -= static_cast<double>(cohorts[c].count) / k.cps;
                if (k.pending == 0 && k.resident == 0) {
                    ++pos[k.stream];
                    ready[k.stream] = t + d.sm.kernelGapUs;
                }
            }
            if (k.resident == 0)
                k.clock = 0;
        }
        std::vector<Cohort> kept;
        for (size_t c = 0; c < cohorts.size(); ++c)
            if (!retired[c])
                kept.push_back(cohorts[c]);
        cohorts = std::move(kept);
        if (cohorts.empty())
            used = 0;
    }
    const double end = std::max(t, static_cast<double>(kernels.size()) * d.launchOverheadUs);
    return sync ? end + d.syncOverheadUs : end;
}

struct RandomStage {
    std::vector<KernelDesc> kernels; // stable: reserved
    std::vector<StageKernel> stage;
    size_t groups = 0;
};

RandomStage randomStage(std::mt19937& rng, int64_t maxCtas) {
    RandomStage r;
    r.groups = 1 + rng() % 6;
    r.kernels.reserve(r.groups * 4);
    for (size_t g = 0; g < r.groups; ++g)
        for (size_t i = 0, n = rng() % 5; i < n; ++i) { // a group may launch nothing
            r.kernels.push_back(randomKernel(rng, maxCtas));
            r.stage.push_back({&r.kernels.back(), static_cast<int>(g)});
        }
    return r;
}

// N independent 1×1 convolutions of one input, concatenated: greedy's one stage of N groups.
ir::Graph wideGraph(int n) {
    using namespace ios::testing;
    const ir::Node input = placeholder("in", {8, 8, 8});
    std::vector<ir::Node> convs;
    std::vector<ir::ValueRef> outputs;
    for (int i = 0; i < n; ++i) {
        const std::string name = "c" + std::to_string(i);
        convs.push_back(conv(name, concat({val("in", 0, 8)}), 4, {1, 1}));
        outputs.push_back(val(name, 0, 4));
    }
    ir::Graph g;
    g.name = "wide";
    g.input = input;
    g.blocks.push_back(block(input, std::move(convs),
                             node(ir::NodeKind::Identity, "out", concat(std::move(outputs)))));
    ir::validateAndInferShapes(g);
    return g;
}

} // namespace

class TestStageSimulatorScaling : public QObject {
    Q_OBJECT

private slots:
    // The indexed event loop and the wave shortcut give the naive loop's latency to the bit,
    // on small and on huge grids (the shortcut takes over from a few thousand CTAs).
    void equalsNaiveReference_data() {
        QTest::addColumn<QString>("deviceName");
        QTest::addColumn<qlonglong>("maxCtas");
        for (const char* d : {"V100", "K80", "H100"}) {
            QTest::addRow("%s small", d) << d << qlonglong{300};
            QTest::addRow("%s waves", d) << d << qlonglong{kFullModels ? 200000 : 20000};
        }
    }
    void equalsNaiveReference() {
        QFETCH(QString, deviceName);
        QFETCH(qlonglong, maxCtas);
        const DeviceProfile& d = device(deviceName.toStdString().c_str());
        std::mt19937 rng(19);
        for (int trial = 0; trial < (kFullModels ? 300 : 40); ++trial) {
            const RandomStage s = randomStage(rng, maxCtas);
            const double exact = stageLatencyUs(s.stage, s.groups, d, SimulationMode::Exact);
            const double naive = naiveLatencyUs(s.stage, s.groups, d);
            QVERIFY2(exact == naive, qPrintable(QStringLiteral("trial %1: %2 µs, naive %3 µs")
                                                    .arg(trial)
                                                    .arg(exact, 0, 'g', 17)
                                                    .arg(naive, 0, 'g', 17)));
            // The fast path (steady stretches in one step) to 1e-6 relative.
            const double fast = stageLatencyUs(s.stage, s.groups, d);
            QVERIFY2(std::abs(fast - naive) <= 1e-6 * naive,
                     qPrintable(QStringLiteral("trial %1: fast %2 µs, naive %3 µs")
                                    .arg(trial)
                                    .arg(fast, 0, 'g', 17)
                                    .arg(naive, 0, 'g', 17)));
        }
    }

    // Several many-wave kernels side by side (batch-128 stages): their cohorts cycle through
    // a few sets, whose rates the simulator keeps and reuses (Buffers::rated); the latency is
    // still the naive loop's to the bit. Stages follow each other on one thread, so rates
    // kept for one stage's kernel indices must not leak into the next.
    void concurrentWavesEqualNaive() {
        std::mt19937 rng(128);
        for (const char* name : {"V100", "K80", "A100"}) {
            const DeviceProfile& d = device(name);
            for (int trial = 0; trial < 12; ++trial) {
                const size_t groups = 2 + static_cast<size_t>(trial % 3);
                std::vector<KernelDesc> kernels;
                kernels.reserve(groups * 2);
                std::vector<StageKernel> stage;
                for (size_t g = 0; g < groups; ++g)
                    for (int i = 0; i < 1 + trial % 2; ++i) {
                        kernels.push_back(randomKernel(rng, 8000));
                        kernels.back().ctas += 2000; // many waves each
                        stage.push_back({&kernels.back(), static_cast<int>(g)});
                    }
                const double exact = stageLatencyUs(stage, groups, d, SimulationMode::Exact);
                const double naive = naiveLatencyUs(stage, groups, d);
                QVERIFY2(exact == naive,
                         qPrintable(QStringLiteral("%1 trial %2: %3 µs, naive %4 µs")
                                        .arg(QLatin1String(name))
                                        .arg(trial)
                                        .arg(exact, 0, 'g', 17)
                                        .arg(naive, 0, 'g', 17)));
                const double fast = stageLatencyUs(stage, groups, d);
                QVERIFY2(std::abs(fast - naive) <= 1e-6 * naive,
                         qPrintable(QStringLiteral("%1 trial %2: fast %3 µs, naive %4 µs")
                                        .arg(QLatin1String(name))
                                        .arg(trial)
                                        .arg(fast, 0, 'g', 17)
                                        .arg(naive, 0, 'g', 17)));
            }
        }
    }

    // The timeline simulation (every change of the device's state sampled) ends at the same
    // time as the latency-only one, in both modes.
    void timelineEqualsLatency() {
        const DeviceProfile& d = device("V100");
        std::mt19937 rng(7);
        for (int trial = 0; trial < (kFullModels ? 100 : 15); ++trial) {
            const RandomStage s = randomStage(rng, kFullModels ? 100000 : 20000);
            std::vector<GroupKernels> groups(s.groups);
            for (const StageKernel& k : s.stage)
                groups[static_cast<size_t>(k.group)].push_back({0, "op", {*k.kernel}});
            QCOMPARE(simulateStage(groups, d).latencyUs, stageLatencyUs(s.stage, s.groups, d));
            QCOMPARE(simulateStage(groups, d, SimulationMode::Exact).latencyUs,
                     stageLatencyUs(s.stage, s.groups, d, SimulationMode::Exact));
        }
    }

    // Defect 10: one kernel of 2^31 CTAs is about 3.4 million waves on a V100; each wave is
    // the same, so the simulation is as long as one wave's arithmetic per wave at most.
    void hugeGridIsOneRepeatedWave() {
        const DeviceProfile& d = device("V100");
        KernelDesc k;
        k.name = "huge";
        k.ctas = int64_t{1} << 31;
        k.threadsPerCta = 256;
        k.registersPerThread = 32;
        k.flops = static_cast<double>(k.ctas) * 1e4;
        k.efficiency = 0.5;
        k.dramBytes = static_cast<double>(k.ctas) * 4096;
        const double us = stageLatencyUs({{&k, 0}}, 1, d);
        const double solo = soloKernelUs(k, d);
        QVERIFY(std::isfinite(us));
        QVERIFY(std::abs(us - solo) <= 1e-6 * solo);
    }

    // Defect 11: greedy on 100 000 independent operators is one stage of 100 000 groups; the
    // simulator's cost per event no longer grows with the number of streams (ctest's timeout
    // is the bound: the old loop needed minutes).
    void wideGreedyStage() {
        constexpr int n = kFullModels ? 100000 : 20000; // sanitizer builds: a smaller proof
        const ir::Graph g = wideGraph(n);
        const std::vector<ir::BlockDag> dags = ir::buildDags(g);
        const schedule::Schedule s = schedulers::greedy(dags);
        QCOMPARE(s.blocks.size(), size_t{1});
        QCOMPARE(s.blocks[0].stages.size(), size_t{2});
        QCOMPARE(s.blocks[0].stages[0].groups.size(), size_t{n});
        const DeviceProfile& d = device("V100");
        const SimulatedGpuCostModel cost(g, d, 1);
        const double ms = eval::totalLatencyMs(dags, s, cost);
        QVERIFY(std::isfinite(ms));
        // The host issues every kernel one after the other: at least n launch overheads.
        QVERIFY(ms * 1000 >= n * d.launchOverheadUs);
        QCOMPARE(cost.stageLatencyMs(dags[0], s.blocks[0].stages[0]) * 1000,
                 cost.simulate(dags[0], s.blocks[0].stages[0]).latencyUs);
    }
};

QTEST_GUILESS_MAIN(TestStageSimulatorScaling)
#include "tst_stage_simulator_scaling.moc"
