// SPDX-License-Identifier: Apache-2.0
// The DP's branch and bound (docs/search-speed.md "Fifth pass"): the simulated GPU's stage
// lower bound is never above the simulated latency (random kernels on every bundled device,
// and real stages of the bundled models at several batch sizes), and searches with and
// without the bound give the same schedules, latencies (bit for bit) and counts while
// pricing fewer stages.
#include "build_flavour.h"
#include "bundled_models.h"
#include "cost/device_profile.h"
#include "cost/simulated_gpu_cost_model.h"
#include "cost/stage_simulator.h"
#include "ir/block_dag.h"
#include "random_kernels.h"
#include "schedulers/ios_dp.h"
#include "schedulers/scheduler.h"
#include "search_results.h"

#include <QTest>
#include <cstring>
#include <deque>
#include <random>

using namespace ios;
using namespace ios::cost;

namespace {

using ios::testing::compareSearchResults;

std::vector<const char*> models() {
    if (kFullModels)
        return {"inception_v3", "squeezenet", "nasnet_large", "randwire_large"};
    return {"inception_v3", "squeezenet"};
}

const char* const kDevices[] = {"V100", "A100", "H100", "K80", "RTX2080Ti"};

// The simulated GPU's stage latencies without its bound (and without its memo): every
// candidate is priced.
class Unbounded final : public CostModel {
public:
    explicit Unbounded(const CostModel& inner) : inner_(inner) {}
    double stageLatencyMs(const ir::BlockDag& dag, const schedule::Stage& stage) const override {
        return inner_.stageLatencyMs(dag, stage);
    }
    std::string describe() const override { return inner_.describe() + " (no bound)"; }

private:
    const CostModel& inner_;
};

} // namespace

class TestStageBound : public QObject {
    Q_OBJECT

private slots:
    // Random stages of random kernels (one wave or many, every occupancy limit, shared
    // kernels, groups without kernels), on every device and on devices with no launch
    // overhead or a long kernel gap: 0 <= bound <= latency, and the bound says something.
    void boundNeverAboveLatency_data() {
        QTest::addColumn<QString>("deviceName");
        QTest::addColumn<qlonglong>("maxCtas");
        QTest::addColumn<int>("variant"); // 0 as bundled, 1 no launch overhead, 2 long gap
        for (const char* d : {"V100", "A100", "H100", "K80", "RTX2080Ti"})
            for (qlonglong ctas : {200, 20000})
                for (int v : {0, 1, 2})
                    QTest::newRow(qPrintable(QStringLiteral("%1 %2 %3").arg(d).arg(ctas).arg(v)))
                        << QString(d) << ctas << v;
    }
    void boundNeverAboveLatency() {
        QFETCH(QString, deviceName);
        QFETCH(qlonglong, maxCtas);
        QFETCH(int, variant);
        DeviceProfile d = *findBundledDevice(deviceName.toStdString());
        if (variant == 1)
            d.launchOverheadUs = 0;
        if (variant == 2)
            d.sm.kernelGapUs = 25;
        std::mt19937 rng(static_cast<unsigned>(7 + maxCtas + variant));
        std::deque<KernelDesc> pool;
        for (int i = 0; i < 24; ++i)
            pool.push_back(ios::test::randomKernel(rng, maxCtas));
        PrefixStageSimulator prefix(d);
        double ratio = 0;
        int multi = 0;
        const int trials = kFullModels ? 600 : 150;
        for (int trial = 0; trial < trials; ++trial) {
            const size_t groups = 1 + rng() % 6;
            std::vector<StageKernel> stage;
            for (size_t g = 0; g < groups; ++g)
                for (size_t i = 0, n = rng() % 5; i < n; ++i)
                    stage.push_back({&pool[rng() % pool.size()], static_cast<int>(g)});
            const double latency = stageLatencyUs(stage, groups, d);
            const double bound = prefix.lowerBoundUs(stage, groups);
            QVERIFY2(bound >= 0 && bound <= latency,
                     qPrintable(QStringLiteral("trial %1: bound %2 µs, latency %3 µs")
                                    .arg(trial)
                                    .arg(bound, 0, 'g', 17)
                                    .arg(latency, 0, 'g', 17)));
            if (groups > 1 && latency > 0) {
                ratio += bound / latency;
                ++multi;
            }
        }
        QVERIFY(multi > 0);
        QVERIFY2(ratio / multi > 0.3, qPrintable(QString::number(ratio / multi)));
    }

    // Real stages of the bundled models (groups of consecutive operators, as the DP's groups
    // are), batch 1 and 32, on every device: the cost model's bound is below its latency; a
    // merge of several convolutions has the trivial bound 0.
    void modelStagesBounded_data() {
        QTest::addColumn<QString>("model");
        QTest::addColumn<int>("batch");
        for (const char* m : models())
            for (int batch : {1, 32})
                QTest::addRow("%s batch %d", m, batch) << m << batch;
    }
    void modelStagesBounded() {
        QFETCH(QString, model);
        QFETCH(int, batch);
        const ir::Graph g = samples::loadBundledModel(model.toStdString());
        const auto dags = ir::buildDags(g);
        std::mt19937 rng(31);
        for (const char* name : kDevices) {
            const SimulatedGpuCostModel sim(g, loadDevice(name), batch);
            for (int trial = 0; trial < (kFullModels ? 200 : 40); ++trial) {
                const ir::BlockDag& dag = dags[rng() % dags.size()];
                if (dag.ops.empty())
                    continue;
                schedule::Stage stage{schedule::StageKind::Parallel, {}};
                for (size_t groups = 1 + rng() % 5; stage.groups.size() < groups;) {
                    const size_t first = rng() % dag.ops.size();
                    schedule::Group group;
                    for (size_t i = first; i < std::min(dag.ops.size(), first + 1 + rng() % 3); ++i)
                        group.push_back(static_cast<int>(i));
                    stage.groups.push_back(group);
                }
                const double latency = sim.stageLatencyMs(dag, stage);
                const double bound = sim.stageLowerBoundMs(dag, stage);
                QVERIFY2(bound >= 0 && bound <= latency,
                         qPrintable(QStringLiteral("%1 %2: bound %3 ms, latency %4 ms")
                                        .arg(name)
                                        .arg(trial)
                                        .arg(bound, 0, 'g', 17)
                                        .arg(latency, 0, 'g', 17)));
            }
        }
        const SimulatedGpuCostModel sim(g, loadDevice("V100"), batch);
        const schedule::Stage merge{schedule::StageKind::Merge, {{0, 1}}};
        QCOMPARE(sim.stageLowerBoundMs(dags.front(), merge), 0.0);
    }

    // With the bound and without it: the same schedules, latencies and counts, for every
    // strategy, both ending rules, pruning settings, devices and batch sizes, on two threads.
    void sameSearchWithAndWithoutBound_data() {
        QTest::addColumn<QString>("model");
        QTest::addColumn<QString>("device");
        QTest::addColumn<int>("batch");
        for (const char* m : models())
            for (const char* d : {"V100", "K80"})
                for (int batch : {1, 16})
                    if (std::strstr(m, "_large") == nullptr ||
                        (std::strcmp(d, "V100") == 0 && batch == 1))
                        QTest::addRow("%s %s batch %d", m, d, batch) << m << d << batch;
    }
    void sameSearchWithAndWithoutBound() {
        QFETCH(QString, model);
        QFETCH(QString, device);
        QFETCH(int, batch);
        const ir::Graph g = samples::loadBundledModel(model.toStdString());
        const ir::PreparedModel prepared(g);
        struct Setting {
            schedulers::Strategy strategy;
            int r, s;
            schedulers::Endings endings;
        };
        const bool large = model.endsWith("_large");
        std::vector<Setting> settings{
            {schedulers::Strategy::Both, 3, large ? 4 : 8, schedulers::Endings::Reference}};
        if (!large) // the large models' other settings take minutes twice over
            settings.insert(settings.end(),
                            {{schedulers::Strategy::Merge, 3, 8, schedulers::Endings::Reference},
                             {schedulers::Strategy::Parallel, 2, 3, schedulers::Endings::All}});
        for (const Setting& setting : settings) {
            schedulers::Options o;
            o.strategy = setting.strategy;
            o.r = setting.r;
            o.s = setting.s;
            o.endings = setting.endings;
            o.threads = 2;
            // Fresh models: each search prices its stages itself.
            const SimulatedGpuCostModel bounded(g, loadDevice(device.toStdString()), batch);
            const SimulatedGpuCostModel plain(g, loadDevice(device.toStdString()), batch);
            const schedulers::Result withBound = schedulers::optimize(prepared, o, bounded);
            o.boundStages = false;
            const schedulers::Result without = schedulers::optimize(prepared, o, plain);
            compareSearchResults(withBound, without);
            // (Stages priced: timing-dependent on 2 threads, see boundSkipsStages.)
        }
    }

    // RAF-IOS's DP prunes by the bound too: the same stages chosen as without it.
    void rafIosSameWithAndWithoutBound() {
        std::vector<const char*> names{"inception_v3", "squeezenet"};
        if (kFullModels)
            names.push_back("randwire_large");
        for (const char* m : names) {
            const ir::Graph g = samples::loadBundledModel(m);
            const ir::PreparedModel prepared(g);
            const SimulatedGpuCostModel sim(g, loadDevice("V100"));
            const Unbounded plain(sim);
            const schedulers::Scheduler& raf = schedulers::schedulerByName("raf-ios");
            const schedulers::Outcome a = raf.run(prepared, schedulers::Params{}, sim, nullptr);
            const schedulers::Outcome b = raf.run(prepared, schedulers::Params{}, plain, nullptr);
            QVERIFY2(a.schedule == b.schedule, m);
        }
    }

    // The bound skips stages: fewer priced than without it on a model with wide states (one
    // thread: with two, parts racing for a shared stage may both price it).
    void boundSkipsStages() {
        const ir::Graph g = samples::loadBundledModel("inception_v3");
        const ir::PreparedModel prepared(g);
        schedulers::Options o;
        const SimulatedGpuCostModel bounded(g, loadDevice("V100"), 16);
        const SimulatedGpuCostModel plain(g, loadDevice("V100"), 16);
        const schedulers::Result withBound = schedulers::optimize(prepared, o, bounded);
        o.boundStages = false;
        const schedulers::Result without = schedulers::optimize(prepared, o, plain);
        compareSearchResults(withBound, without);
        QVERIFY2(withBound.stats.stagesPriced < without.stats.stagesPriced,
                 qPrintable(QStringLiteral("%1 vs %2")
                                .arg(withBound.stats.stagesPriced)
                                .arg(without.stats.stagesPriced)));
    }
};

QTEST_GUILESS_MAIN(TestStageBound)
#include "tst_stage_bound.moc"
