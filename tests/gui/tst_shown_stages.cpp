// SPDX-License-Identifier: Apache-2.0
// One source of truth for what a result shows (issue 32 item 4): the stage tree, the
// timeline's stage lane and header, the status bar and the Properties dock read the same
// outcome. A scheduler's own stream program (RAF ASAP) shows its segments with their
// simulated latencies — never the issue-order stage list it was derived from (NasNet-A showed
// "Block 0 (374 stages)" at 19.281 ms beside a one-segment 11.553 ms timeline); a stage
// schedule shows its stages. On the real window, offscreen.
#include "main_window_test_support.h"
#include "properties_dock.h"
#include "session.h"
#include "shown_stages.h"
#include "stage_tree_model.h"
#include "timeline_canvas.h"
#include "timeline_view.h"
#include "units.h"

#include <QStatusBar>
#include <QTreeView>
#include <cmath>

using namespace ios;
using namespace ios::gui;
using namespace ios::gui::test;
using Tree = views::StageTreeModel;

namespace {

// The stage tree's rows: per block, per stage row, its latency (ms) and operator count.
struct TreeStage {
    double ms = 0;
    int operators = 0;
};
std::vector<std::vector<TreeStage>> treeStages(const MainWindow& w, QString* blockName) {
    const QAbstractItemModel* m = w.stageTree()->model();
    std::vector<std::vector<TreeStage>> out;
    for (int b = 0; b < m->rowCount(); ++b) {
        const QModelIndex block = m->index(b, 0);
        if (b == 0 && blockName != nullptr)
            *blockName = block.data().toString();
        out.emplace_back();
        for (int s = 0; s < m->rowCount(block); ++s) {
            const QModelIndex stage = m->index(s, 0, block);
            out.back().push_back(
                {stage.data(Tree::SortRole).toDouble(),
                 static_cast<int>(stage.data(Tree::OperatorsRole).value<QList<int>>().size())});
        }
    }
    return out;
}

bool runStrategy(MainWindow& w, const char* strategy) {
    w.settingsPanel()->strategyBox()->setCurrentIndex(strategyIndex(w, strategy));
    w.runOptimize();
    return waitFor([&] {
        return !w.jobs()->isRunning() && w.lastResult() &&
               w.lastResult()->runs.front().strategy == QLatin1String(strategy);
    });
}

} // namespace

class TestShownStages : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void initTestCase() { useTestSettings("tst_shown_stages"); }

    // The segments of a program: one stage per segment, one group per stream, every launched
    // operator once (synthetic launches have none).
    void segmentsAsStagesCutsAtSyncs() {
        using schedule::Instruction;
        schedule::StreamProgram p;
        p.instructions = {Instruction::launch(0, 0),         Instruction::launch(1, 1),
                          Instruction::record(0, 0),         Instruction::wait(0, 1),
                          Instruction::launch(2, 1),         Instruction::sync(),
                          Instruction::launchAll({3, 4}, 2), Instruction::launchSynthetic("t", 0)};
        const schedule::Schedule s = segmentsAsStages({p});
        QCOMPARE(s.blocks.size(), size_t(1));
        const auto& stages = s.blocks.front().stages;
        QCOMPARE(stages.size(), size_t(2));
        QCOMPARE(stages[0].groups, (std::vector<schedule::Group>{{0}, {1, 2}}));
        QCOMPARE(stages[1].groups, (std::vector<schedule::Group>{{3, 4}}));
    }

    // RAF ASAP: tree = the timeline's segments, their latencies add up to the header's and the
    // status bar's latency; IOS-Both: tree = its stages, same sum.
    void treeTimelineHeaderAndStatusAgree_data() {
        QTest::addColumn<QString>("strategy");
        QTest::newRow("raf-asap (own program)") << QStringLiteral("raf-asap");
        QTest::newRow("ios-both (stages)") << QStringLiteral("ios-both");
        QTest::newRow("greedy (stages)") << QStringLiteral("greedy");
    }
    void treeTimelineHeaderAndStatusAgree() {
        QFETCH(QString, strategy);
        MainWindow w;
        w.setDialogsEnabled(false);
        QVERIFY(w.openModel(QStringLiteral("inception_v3")));
        QVERIFY(waitForResult(w));
        QVERIFY(runStrategy(w, qPrintable(strategy)));
        const RunResult& run = w.lastResult()->runs.front();
        QVERIFY(run.timeline);
        QCOMPARE(w.timelineView()->timeline(), run.timeline.get());

        QString blockName;
        const auto tree = treeStages(w, &blockName);
        QCOMPARE(tree.size(), w.model()->dags().size());
        // Stage rows = the stage lane's boxes, block by block, with the same latencies.
        size_t lane = 0;
        double treeMs = 0;
        int treeOps = 0;
        for (size_t b = 0; b < tree.size(); ++b)
            for (size_t s = 0; s < tree[b].size(); ++s, ++lane) {
                QVERIFY(lane < run.timeline->stages.size());
                const eval::TimelineStage& st = run.timeline->stages[lane];
                QCOMPARE(st.block, static_cast<int>(b));
                QCOMPARE(st.stage, static_cast<int>(s));
                const double laneMs = (st.endUs - st.startUs) / 1000.0;
                QVERIFY2(std::abs(tree[b][s].ms - laneMs) <= 1e-6 * std::max(1.0, laneMs),
                         qPrintable(QStringLiteral("block %1 stage %2: tree %3 ms, lane %4 ms")
                                        .arg(b)
                                        .arg(s)
                                        .arg(tree[b][s].ms)
                                        .arg(laneMs)));
                treeMs += tree[b][s].ms;
                treeOps += tree[b][s].operators;
            }
        QCOMPARE(lane, run.timeline->stages.size());
        QCOMPARE(treeOps, w.model()->operatorCount()); // every operator, once
        QVERIFY2(
            std::abs(treeMs - run.latencyMs) <= 1e-6 * run.latencyMs,
            qPrintable(QStringLiteral("tree %1 ms, result %2 ms").arg(treeMs).arg(run.latencyMs)));
        // The header and the status bar say the same latency.
        const QString latency = views::formatMs(run.latencyMs);
        QVERIFY2(w.timelineView()->canvas()->fullTitle().contains(latency),
                 qPrintable(w.timelineView()->canvas()->fullTitle()));
        const QString status = w.session()->resultSummary();
        QVERIFY2(status.contains(latency), qPrintable(status));
        // The tree names what its rows are.
        QVERIFY2(
            blockName.contains(run.ownProgram ? QLatin1String("segment") : QLatin1String("stage")),
            qPrintable(blockName));
        QCOMPARE(run.ownProgram, strategy == QLatin1String("raf-asap"));
    }

    // A click on a segment of the stage lane makes that segment's row current, and the
    // Properties dock places a selected operator in that segment.
    void laneClickAndPropertiesNameTheSegment() {
        MainWindow w;
        w.setDialogsEnabled(false);
        QVERIFY(w.openModel(QStringLiteral("inception_v3")));
        QVERIFY(waitForResult(w));
        QVERIFY(runStrategy(w, "raf-asap"));
        const RunResult& run = w.lastResult()->runs.front();
        const eval::TimelineStage& last = run.timeline->stages.back();
        w.selectStage(last.block, last.stage);
        const QModelIndex current = w.stageTree()->currentIndex();
        QCOMPARE(current.data(Tree::BlockRole).toInt(), last.block);
        QCOMPARE(current.data(Tree::StageRole).toInt(), last.stage);
        QCOMPARE(current.data().toString(), QStringLiteral("Segment %1").arg(last.stage));
        auto* properties = w.findChild<PropertiesDock*>();
        QVERIFY(properties);
        const auto ops = current.data(Tree::OperatorsRole).value<QList<int>>();
        QVERIFY(!ops.isEmpty());
        QVERIFY2(properties->text().contains(
                     QStringLiteral("segment %1 of block %2").arg(last.stage).arg(last.block)),
                 qPrintable(properties->text()));
    }
};

QTEST_MAIN(TestShownStages)
#include "tst_shown_stages.moc"
