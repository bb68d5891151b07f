// SPDX-License-Identifier: Apache-2.0
// serenity::countDownSets (the estimate's count of Serenity's work) against the DP itself: the
// unbudgeted memoryDp examines exactly the counted expansions and reaches the counted down-sets,
// on random problems, on segments with ops done before them, and on the bundled models' blocks.
#include "bundled_models.h"
#include "ir/block_dag.h"
#include "ir/memory.h"
#include "memory_test_support.h"
#include "schedulers/serenity/cuts.h"
#include "schedulers/serenity/downset_count.h"
#include "schedulers/serenity/memory_dp.h"

#include <QTest>
#include <random>

using namespace ios;
using namespace ios::schedulers::serenity;

class TestDownSetCount : public QObject {
    Q_OBJECT

    // Both state spaces: interchangeable ops in index order (the default) and in any order.
    static void compare(const ir::MemoryProblem& p, const Segment& segment, const char* what) {
        for (const bool breakSymmetry : {true, false}) {
            const DownSetCount count = countDownSets(p, segment, size_t{1} << 16, breakSymmetry);
            QVERIFY2(count.complete, what);
            DpLimits limits;
            limits.maxExpansions = 0;
            limits.breakSymmetry = breakSymmetry;
            const DpResult dp = memoryDp(p, segment, kNoBudget, limits);
            QVERIFY(dp.status == DpStatus::Solution);
            QCOMPARE(count.expansions, static_cast<double>(dp.expansions));
            QCOMPARE(count.downSets, static_cast<double>(dp.entries));
        }
    }

private Q_SLOTS:
    void randomProblems() {
        std::mt19937 rng(20261128);
        for (int trial = 0; trial < 200; ++trial) {
            const int n = 1 + trial % 24;
            const double density = 0.15 + 0.05 * (trial % 12);
            const ir::MemoryProblem p = testing::randomMemoryProblem(rng, n, density);
            compare(p, wholeSegment(p), "whole problem");
        }
    }

    // The segments between cut points: ops before a segment count as done.
    void segmentsBetweenCuts() {
        std::mt19937 rng(7);
        int segments = 0;
        for (int trial = 0; trial < 60; ++trial) {
            const ir::MemoryProblem p = testing::randomMemoryProblem(rng, 30, 0.3);
            for (const Segment& s : schedulers::serenity::cutSegments(p)) {
                compare(p, s, "segment");
                ++segments;
            }
        }
        QVERIFY(segments > 60); // cuts were found
    }

    // A wide problem has a wide frontier: the count says it does not know rather than guess.
    void wideFrontierStops() {
        const ir::MemoryProblem p = testing::wideMemoryProblem(70, 1);
        const DownSetCount count = countDownSets(p, wholeSegment(p));
        QVERIFY(!count.complete);
        QCOMPARE(count.expansions, 0.0);
        const ir::MemoryProblem narrow = testing::wideMemoryProblem(12, 2);
        compare(narrow, wholeSegment(narrow), "12 wide");
        // 4 097 states with its interchangeable ops in any order.
        QVERIFY(!countDownSets(narrow, wholeSegment(narrow), 100, false).complete);
    }

    void bundledBlocks_data() {
        QTest::addColumn<QString>("model");
        for (const char* m : {"squeezenet", "inception_v3", "randwire_large", "darts_v2_cells"})
            QTest::newRow(m) << m;
    }
    void bundledBlocks() {
        QFETCH(QString, model);
        const ir::Graph g = samples::loadModel(model.toStdString());
        const auto problems = ir::modelMemoryProblems(g, ir::buildDags(g), ir::MemoryOptions{});
        for (const ir::MemoryProblem& p : problems)
            for (const Segment& s : schedulers::serenity::cutSegments(p))
                compare(p, s, qPrintable(model));
    }
};

QTEST_APPLESS_MAIN(TestDownSetCount)
#include "tst_downset_count.moc"
