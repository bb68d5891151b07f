// SPDX-License-Identifier: Apache-2.0
// PrefixStageSimulator (stage_simulator.h): stages resumed from the paused run of their
// group prefix take exactly the latency of a whole simulation, bit for bit, whatever order
// the stages come in, on every bundled device; and the search's order (a stage, then its
// extensions by one group) does resume from kept prefixes.
#include "cost/device_profile.h"
#include "cost/kernel_model.h"
#include "cost/stage_simulator.h"
#include "random_kernels.h"

#include <QTest>
#include <algorithm>
#include <bit>
#include <cstdint>
#include <deque>
#include <functional>
#include <random>

using namespace ios;
using namespace ios::cost;

namespace {

using ios::test::randomKernel;

// Candidate groups: 0-3 kernels each (a group may launch nothing), kernels shared between
// groups now and then, as equal operators share their cached kernels.
struct Pool {
    std::deque<KernelDesc> kernels; // stable addresses
    std::vector<std::vector<const KernelDesc*>> groups;
};

Pool randomPool(std::mt19937& rng, size_t groups, int64_t maxCtas) {
    Pool p;
    for (size_t g = 0; g < groups; ++g) {
        std::vector<const KernelDesc*> group;
        for (size_t i = 0, n = rng() % 4; i < n; ++i) {
            if (!p.kernels.empty() && rng() % 4 == 0) {
                group.push_back(&p.kernels[rng() % p.kernels.size()]);
            } else {
                p.kernels.push_back(randomKernel(rng, maxCtas));
                group.push_back(&p.kernels.back());
            }
        }
        if (group.empty() && rng() % 3 != 0) // mostly non-empty, as operators' groups are
            group.push_back(&p.kernels.emplace_back(randomKernel(rng, maxCtas)));
        p.groups.push_back(std::move(group));
    }
    return p;
}

std::vector<StageKernel> stageOf(const Pool& p, const std::vector<size_t>& groups) {
    std::vector<StageKernel> stage;
    for (size_t g = 0; g < groups.size(); ++g)
        for (const KernelDesc* k : p.groups[groups[g]])
            stage.push_back({k, static_cast<int>(g)});
    return stage;
}

bool sameBits(double a, double b) {
    return std::bit_cast<uint64_t>(a) == std::bit_cast<uint64_t>(b);
}

const DeviceProfile& device(const QString& name) {
    return *findBundledDevice(name.toStdString());
}

} // namespace

class TestPrefixStageSimulator : public QObject {
    Q_OBJECT

private slots:
    void matchesWholeSimulation_data() {
        QTest::addColumn<QString>("deviceName");
        QTest::addColumn<qlonglong>("maxCtas");
        for (const char* d : {"V100", "A100", "H100", "K80", "RTX2080Ti"}) {
            QTest::addRow("%s small", d) << d << qlonglong{200};
            QTest::addRow("%s waves", d) << d << qlonglong{20000};
        }
    }
    // The DP's order: heads in increasing order, every chosen set a stage, extended by one
    // more head (depth first, at most 5 groups), so most stages resume a kept prefix.
    void matchesWholeSimulation() {
        QFETCH(QString, deviceName);
        QFETCH(qlonglong, maxCtas);
        const DeviceProfile& d = device(deviceName);
        std::mt19937 rng(18);
        PrefixStageSimulator prefix(d);
        size_t stages = 0;
        for (int trial = 0; trial < 6; ++trial) {
            const Pool pool = randomPool(rng, 7, maxCtas);
            prefix.reset(); // a new pool: its kernels may sit where the last one's were
            std::vector<size_t> chosen;
            std::function<void(size_t)> visit = [&](size_t from) {
                for (size_t i = from; i < pool.groups.size(); ++i) {
                    chosen.push_back(i);
                    const std::vector<StageKernel> stage = stageOf(pool, chosen);
                    const double whole = stageLatencyUs(stage, chosen.size(), d);
                    const double resumed = prefix.latencyUs(stage, chosen.size());
                    ++stages;
                    QVERIFY2(sameBits(whole, resumed),
                             qPrintable(QStringLiteral("trial %1, %2 groups: %3 µs, whole %4 µs")
                                            .arg(trial)
                                            .arg(chosen.size())
                                            .arg(resumed, 0, 'g', 17)
                                            .arg(whole, 0, 'g', 17)));
                    if (chosen.size() < 5)
                        visit(i + 1);
                    chosen.pop_back();
                }
            };
            visit(0);
        }
        QVERIFY(stages > 500);
        QVERIFY(prefix.resumed() > stages / 3); // the sharing happens, it is not all fallback
    }

    // Stages in random order, prefixes kept from unrelated stages and dropped; one group
    // (simulated whole) and groups without kernels among them.
    void anyOrderMatches() {
        const DeviceProfile& d = device("V100");
        std::mt19937 rng(1818);
        PrefixStageSimulator prefix(d);
        const Pool pool = randomPool(rng, 9, 3000);
        for (int trial = 0; trial < 400; ++trial) {
            std::vector<size_t> groups(1 + rng() % 6);
            for (size_t& g : groups)
                g = rng() % 4 == 0 ? 0 : rng() % pool.groups.size(); // group 0 recurs often
            const std::vector<StageKernel> stage = stageOf(pool, groups);
            const double whole = stageLatencyUs(stage, groups.size(), d);
            QVERIFY2(sameBits(whole, prefix.latencyUs(stage, groups.size())),
                     qPrintable(QStringLiteral("trial %1").arg(trial)));
            if (trial % 50 == 0)
                prefix.reset();
        }
    }

    // The same stage priced again (its prefix kept) and an empty stage.
    void repeatsAndEmpty() {
        const DeviceProfile& d = device("V100");
        std::mt19937 rng(5);
        const Pool pool = randomPool(rng, 4, 500);
        PrefixStageSimulator prefix(d);
        const std::vector<size_t> groups{0, 1, 2, 3};
        const std::vector<StageKernel> stage = stageOf(pool, groups);
        const double whole = stageLatencyUs(stage, groups.size(), d);
        for (int i = 0; i < 3; ++i)
            QVERIFY(sameBits(whole, prefix.latencyUs(stage, groups.size())));
        QCOMPARE(prefix.latencyUs({}, 0), 0.0);
    }

    // What the simulator keeps per kernel (its rate terms and occupancy, by address) is
    // dropped by reset(): a kernel changed in place is priced as it is now; without a reset
    // a stage of the same kernels is priced from what was kept (the same value as before).
    void resetDropsKeptKernels() {
        const DeviceProfile& d = device("V100");
        std::mt19937 rng(21);
        Pool pool = randomPool(rng, 3, 4000);
        for (std::vector<const KernelDesc*>& g : pool.groups)
            if (g.empty())
                g.push_back(&pool.kernels.emplace_back(randomKernel(rng, 4000)));
        const std::vector<size_t> groups{0, 1, 2};
        const std::vector<StageKernel> stage = stageOf(pool, groups);
        PrefixStageSimulator prefix(d);
        const double before = prefix.latencyUs(stage, groups.size());
        QVERIFY(sameBits(before, stageLatencyUs(stage, groups.size(), d)));
        for (KernelDesc& k : pool.kernels) { // ten times the work: another latency
            k.flops *= 10;
            k.dramBytes *= 10;
        }
        const double changed = stageLatencyUs(stage, groups.size(), d);
        QVERIFY(!sameBits(before, changed));
        QVERIFY(sameBits(before, prefix.latencyUs(stage, groups.size()))); // kept, not re-read
        prefix.reset();
        QVERIFY(sameBits(changed, prefix.latencyUs(stage, groups.size())));
    }

    // A stage wider than any search's (greedy on a wide graph) is simulated whole: no
    // prefix kept per group.
    void wideStageSimulatedWhole() {
        const DeviceProfile& d = device("V100");
        std::mt19937 rng(3);
        const Pool pool = randomPool(rng, 3, 100);
        std::vector<size_t> groups(PrefixStageSimulator::kMaxGroups + 1);
        for (size_t i = 0; i < groups.size(); ++i)
            groups[i] = i % pool.groups.size();
        const std::vector<StageKernel> stage = stageOf(pool, groups);
        PrefixStageSimulator prefix(d);
        for (int i = 0; i < 2; ++i)
            QVERIFY(sameBits(stageLatencyUs(stage, groups.size(), d),
                             prefix.latencyUs(stage, groups.size())));
        QCOMPARE(prefix.resumed(), uint64_t{0});
    }

    // A device that issues every kernel at once (no launch overhead): arrivals tie, the
    // pause still comes before the tied admission.
    void zeroLaunchOverhead() {
        DeviceProfile d = device("V100");
        d.launchOverheadUs = 0;
        std::mt19937 rng(9);
        const Pool pool = randomPool(rng, 6, 2000);
        PrefixStageSimulator prefix(d);
        std::vector<size_t> chosen;
        for (size_t i = 0; i < pool.groups.size(); ++i) {
            chosen.push_back(i);
            const std::vector<StageKernel> stage = stageOf(pool, chosen);
            QVERIFY(sameBits(stageLatencyUs(stage, chosen.size(), d),
                             prefix.latencyUs(stage, chosen.size())));
        }
    }
};

QTEST_APPLESS_MAIN(TestPrefixStageSimulator)
#include "tst_prefix_stage_simulator.moc"
