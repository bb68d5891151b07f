// SPDX-License-Identifier: Apache-2.0
// TFLite's simple arena replayed step by step (ir::arenaSteps, Serenity Fig. 12): one op per
// step gives arenaFootprint's replay (its last element), the mark never falls and never
// drops below the live bytes of a step's sample, a step places all its outputs before it
// releases inputs, and the bundled models' blocks agree with arenaFootprint.
#include "bundled_models.h"
#include "eval/memory_eval.h"
#include "ir/block_dag.h"
#include "ir/memory.h"
#include "memory_fixtures.h"
#include "memory_test_support.h"

#include <QTest>
#include <algorithm>
#include <numeric>
#include <random>

using namespace ios;

namespace {

// A random topological order: ready ops picked at random.
std::vector<int> randomOrder(const ir::MemoryProblem& p, std::mt19937& rng) {
    std::vector<int> missing(p.ops.size());
    std::vector<int> ready, order;
    for (size_t i = 0; i < p.ops.size(); ++i)
        if ((missing[i] = static_cast<int>(p.preds[i].size())) == 0)
            ready.push_back(static_cast<int>(i));
    while (!ready.empty()) {
        const size_t k = std::uniform_int_distribution<size_t>(0, ready.size() - 1)(rng);
        const int u = ready[k];
        ready.erase(ready.begin() + static_cast<std::ptrdiff_t>(k));
        order.push_back(u);
        for (int s : p.succs[static_cast<size_t>(u)])
            if (--missing[static_cast<size_t>(s)] == 0)
                ready.push_back(s);
    }
    return order;
}

} // namespace

class TestArenaSteps : public QObject {
    Q_OBJECT
private Q_SLOTS:
    // Step by step: 12 (in, a), 16 (b on top; a freed), 24 (c does not fit a's hole).
    void fragmentationStepByStep() {
        const ir::MemoryProblem p = testing::fragmentingArenaProblem();
        const std::vector<int64_t> expected{12, 16, 24};
        QCOMPARE(ir::arenaSteps(p, ir::orderSteps({0, 1, 2})), expected);
        QCOMPARE(ir::arenaFootprint(p, {0, 1, 2}), int64_t{24});
    }

    // A stage places every output before it releases anything: a chain run as one step
    // needs all three tensors side by side, one op per step reuses the freed input.
    void stagePlacesOutputsFirst() {
        const ir::MemoryProblem p = testing::chainArenaProblem();
        QCOMPARE(ir::arenaSteps(p, ir::orderSteps({0, 1})), (std::vector<int64_t>{16, 16}));
        QCOMPARE(ir::arenaSteps(p, {{0, 1}}), (std::vector<int64_t>{24}));
        QCOMPARE(ir::walkMemory(p, {{0, 1}}).peak, int64_t{24});
        const std::vector<int64_t> mixed =
            ir::arenaSteps(testing::fragmentingArenaProblem(), {{0}, {1, 2}});
        QCOMPARE(mixed, (std::vector<int64_t>{12, 24}));
    }

    void constantAndEmpty() {
        ir::MemoryProblem p = testing::chainArenaProblem();
        QVERIFY(ir::arenaSteps(p, {}).empty());
        p.constantBytes = 100;
        QCOMPARE(ir::arenaSteps(p, ir::orderSteps({0, 1})), (std::vector<int64_t>{116, 116}));
        QCOMPARE(ir::arenaFootprint(p, {0, 1}), int64_t{116});
        QCOMPARE(ir::arenaFootprint(p, {}), int64_t{108}); // the input alone
    }

    // Random problems and orders: the last step is arenaFootprint, the mark never falls, and
    // it holds at least every tensor live at a step's sample (they occupy disjoint ranges).
    void randomOrders_data() {
        QTest::addColumn<int>("seed");
        QTest::addColumn<int>("ops");
        for (int seed = 1; seed <= 12; ++seed)
            QTest::addRow("seed %d", seed) << seed << 4 + 3 * seed;
    }
    void randomOrders() {
        QFETCH(int, seed);
        QFETCH(int, ops);
        std::mt19937 rng(static_cast<unsigned>(seed));
        const ir::MemoryProblem p = testing::randomMemoryProblem(rng, ops);
        std::vector<int> file(p.ops.size());
        std::iota(file.begin(), file.end(), 0);
        for (const std::vector<int>& order : {file, ir::kahnOrder(p), randomOrder(p, rng)}) {
            const ir::MemorySteps steps = ir::orderSteps(order);
            const std::vector<int64_t> marks = ir::arenaSteps(p, steps);
            const ir::MemoryWalk walk = ir::walkMemory(p, steps);
            QCOMPARE(marks.size(), order.size());
            QCOMPARE(marks.back(), ir::arenaFootprint(p, order));
            QVERIFY(std::is_sorted(marks.begin(), marks.end()));
            for (size_t i = 0; i < marks.size(); ++i)
                QVERIFY2(marks[i] >= walk.stepPeak[i], qPrintable(QString::number(i)));
        }
    }

    // Every block of the bundled models in file order, and the stages of a one-stage-per-op
    // schedule through eval::stageSteps, agree with arenaFootprint.
    void bundledBlocks_data() {
        QTest::addColumn<QString>("model");
        QTest::newRow("squeezenet") << "squeezenet";
        QTest::newRow("inception_v3") << "inception_v3";
    }
    void bundledBlocks() {
        QFETCH(QString, model);
        const ir::Graph g = samples::loadModel(model.toStdString());
        const std::vector<ir::BlockDag> dags = ir::buildDags(g);
        const auto problems = ir::modelMemoryProblems(g, dags, ir::MemoryOptions{});
        for (size_t b = 0; b < problems.size(); ++b) {
            const ir::MemoryProblem& p = problems[b];
            std::vector<int> file(p.ops.size());
            std::iota(file.begin(), file.end(), 0);
            schedule::BlockSchedule bs;
            for (size_t op = 0; op < dags[b].ops.size(); ++op)
                bs.stages.push_back({schedule::StageKind::Parallel, {{static_cast<int>(op)}}});
            const std::vector<int64_t> marks = ir::arenaSteps(p, eval::stageSteps(p, bs));
            QCOMPARE(marks.back(), ir::arenaFootprint(p, file));
            QVERIFY(marks.back() >= ir::orderPeak(p, file));
        }
    }
};

QTEST_GUILESS_MAIN(TestArenaSteps)
#include "tst_arena_steps.moc"
