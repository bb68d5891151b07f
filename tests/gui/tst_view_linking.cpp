// SPDX-License-Identifier: Apache-2.0
// Linking between every pair of views (issue 17 "Done when"): on the real main window with a
// bundled model, something is selected in each source view (stage tree, operator table,
// timeline kernel and stage lane, Streams launch, state-space state and ending, Memory step,
// graph) and every other view is checked to show it: the stage tree's current or selected
// rows, the table's selected rows, the timeline's highlighted kernels, the Streams view's
// selected launches, the state space's marked states, the Memory view's selected step and the
// graph's highlighted items.
#include "graph_view.h"
#include "main_window_test_support.h"
#include "memory_report.h"
#include "memory_step_chart.h"
#include "memory_view.h"
#include "operator_item.h"
#include "stage_tree_model.h"
#include "state_space_view.h"
#include "streams_view.h"
#include "timeline_canvas.h"
#include "timeline_view.h"

#include <QGraphicsItem>
#include <QGraphicsScene>
#include <QItemSelectionModel>
#include <QSortFilterProxyModel>
#include <QTableView>
#include <QTreeView>
#include <algorithm>
#include <functional>
#include <set>

using namespace ios;
using namespace ios::gui;
using namespace ios::gui::test;
using Source = Selection::Source;

namespace {

using OpSet = std::set<int>;

OpSet toSet(const std::vector<int>& v) {
    return {v.begin(), v.end()};
}

std::vector<int> operatorsOf(const QModelIndex& index) {
    const auto ops = index.data(views::StageTreeModel::OperatorsRole).value<QList<int>>();
    return {ops.begin(), ops.end()};
}

// What each view shows as selected, as operators (flat indices).
OpSet stageTreeShows(MainWindow& w) {
    OpSet out;
    for (const QModelIndex& row : w.stageTree()->selectionModel()->selectedRows())
        for (int op : operatorsOf(row))
            out.insert(op);
    if (out.empty())
        return toSet(operatorsOf(w.stageTree()->currentIndex()));
    return out;
}

OpSet tableShows(MainWindow& w) {
    auto* proxy = static_cast<QSortFilterProxyModel*>(w.operatorTable()->model());
    OpSet out;
    for (const QModelIndex& row : w.operatorTable()->selectionModel()->selectedRows())
        out.insert(proxy->mapToSource(row).row());
    return out;
}

// Operators of the highlighted kernels; every other linked kernel must be dimmed.
OpSet timelineShows(MainWindow& w, bool* othersDimmed) {
    const views::TimelineCanvas* canvas = w.timelineView()->canvas();
    const auto& kernels = canvas->timeline()->kernels;
    OpSet out;
    *othersDimmed = true;
    for (size_t k = 0; k < kernels.size(); ++k) {
        const int flat = w.model()->flatIndex({kernels[k].block, kernels[k].op});
        const auto style = canvas->kernelStyle(static_cast<int>(k));
        if (style == views::TimelineCanvas::KernelStyle::Highlighted)
            out.insert(flat);
        else if (style != views::TimelineCanvas::KernelStyle::Dimmed)
            *othersDimmed = false;
    }
    return out;
}

OpSet streamsShows(MainWindow& w) {
    const views::StreamsView* streams = w.streamsView();
    OpSet out;
    for (int launch : streams->selectedLaunches())
        for (int op : streams->layout().launches[static_cast<size_t>(launch)].ops)
            out.insert(w.model()->flatIndex({streams->block(), op}));
    return out;
}

// The operators run by the Memory view's selected step.
OpSet memoryShows(MainWindow& w) {
    const views::MemoryView* memory = w.memoryView();
    const int step = memory->selectedStep();
    const views::MemorySeries* series = memory->shownSeries();
    if (step < 0 || series == nullptr)
        return {};
    const auto& problem = memory->report()->blocks[static_cast<size_t>(memory->block())].problem;
    return toSet(views::stepOperators(*w.model(), memory->block(), problem,
                                      series->steps[static_cast<size_t>(step)]));
}

bool intersects(const OpSet& a, const std::vector<int>& b) {
    return std::any_of(b.begin(), b.end(), [&](int op) { return a.count(op) != 0; });
}

// The operators whose kernels show `want`: a merge stage's one kernel carries one of its
// operators and stands for all of them.
OpSet kernelOperators(MainWindow& w, const OpSet& want) {
    OpSet wanted = want;
    const schedule::Schedule& sched = w.lastResult()->runs.front().schedule;
    for (size_t b = 0; b < sched.blocks.size(); ++b)
        for (const schedule::Stage& stage : sched.blocks[b].stages) {
            if (stage.kind != schedule::StageKind::Merge)
                continue;
            std::vector<int> flat;
            for (int op : stage.groups.front())
                flat.push_back(w.model()->flatIndex({static_cast<int>(b), op}));
            if (intersects(want, flat))
                wanted.insert(flat.begin(), flat.end());
        }
    OpSet out;
    for (const auto& k : w.timelineView()->canvas()->timeline()->kernels) {
        const int flat = w.model()->flatIndex({k.block, k.op});
        if (wanted.count(flat) != 0)
            out.insert(flat);
    }
    return out;
}

// The graph's highlighted operators, or its selected items.
// The graph's operators in the scene's own selection (selected = true), or drawn with the
// given emphasis ("selected" or "in highlighted stage").
OpSet graphShows(MainWindow& w, bool selected = false,
                 views::OperatorItem::Emphasis emphasis = views::OperatorItem::Emphasis::Selected) {
    OpSet out;
    for (QGraphicsItem* item : w.graphView()->scene()->items())
        if (item->type() == views::OperatorItem::Type &&
            (selected ? item->isSelected()
                      : static_cast<views::OperatorItem*>(item)->emphasis() == emphasis))
            out.insert(static_cast<views::OperatorItem*>(item)->flatIndex());
    return out;
}

} // namespace

class TestViewLinking : public QObject {
    Q_OBJECT
private:
    MainWindow* w_ = nullptr;

    // Every view but `source` shows `ops` (the selection's operators).
    void checkShown(Source source, const std::vector<int>& ops) {
        MainWindow& w = *w_;
        QVERIFY(!ops.empty());
        const OpSet want = toSet(ops);
        QCOMPARE(toSet(w.selection()->operators()), want);
        QCOMPARE(w.selection()->source(), source);
        if (source != Source::StageTree)
            QCOMPARE(stageTreeShows(w), want);
        if (source != Source::OperatorTable) {
            QCOMPARE(tableShows(w), want);
            // Brought into view: the row of the first selected operator is on screen.
            auto* proxy = static_cast<QSortFilterProxyModel*>(w.operatorTable()->model());
            const QModelIndex first =
                proxy->mapFromSource(proxy->sourceModel()->index(ops.front(), 0));
            QVERIFY(w.operatorTable()->viewport()->rect().intersects(
                w.operatorTable()->visualRect(first)));
        }
        // The timeline highlights them, its own click included, and dims the rest.
        bool dimmed = false;
        QCOMPARE(timelineShows(w, &dimmed), kernelOperators(w, want));
        QVERIFY(dimmed);
        // The Streams view selects the launches running them in the block it switched to (a
        // launch may run several operators).
        if (source != Source::Streams) {
            const views::StreamsView* streams = w.streamsView();
            QVERIFY(!streams->selectedLaunches().empty());
            OpSet inBlock;
            for (int op : want)
                if (w.model()->operators()[static_cast<size_t>(op)].block == streams->block())
                    inBlock.insert(op);
            const OpSet shown = streamsShows(w);
            QVERIFY(std::includes(shown.begin(), shown.end(), inBlock.begin(), inBlock.end()));
            for (int launch : streams->selectedLaunches()) {
                const auto& run = streams->layout().launches[static_cast<size_t>(launch)].ops;
                QVERIFY(std::any_of(run.begin(), run.end(), [&](int op) {
                    return want.count(w.model()->flatIndex({streams->block(), op})) != 0;
                }));
            }
        }
        // The state space marks the states containing them, when their part was recorded.
        if (source != Source::StateSpace) {
            const views::StateSpaceView* space = stateSpace();
            const std::vector<int> marked = space->markedStates();
            for (int e : marked)
                QVERIFY(intersects(want, space->stateOperators(e)));
        }
        // The Memory view selects the step running a single selected operator (a step runs a
        // whole stage of the schedule).
        if (source != Source::Memory && ops.size() == 1)
            QVERIFY(memoryShows(w).count(ops.front()) != 0);
        // The graph highlights them (a Memory step highlights its live tensors' producers).
        if (source == Source::Graph) {
            QCOMPARE(graphShows(w, true), want); // its own selection
        } else if (source != Source::Memory) {
            QCOMPARE(graphShows(w), want);
            QCOMPARE(toSet(w.graphHighlight()), want);
            // The rest of their stage in the second style.
            OpSet context = toSet(w.selection()->stageContext());
            for (int op : want)
                context.erase(op);
            QCOMPARE(graphShows(w, false, views::OperatorItem::Emphasis::StageContext), context);
        }
    }

    views::StateSpaceView* stateSpace() const {
        return w_->findChild<views::StateSpaceView*>(QStringLiteral("stateSpaceView"));
    }

    // An operator whose stage has other operators too.
    int operatorInParallelStage() const {
        for (int flat = 0; flat < w_->model()->operatorCount(); ++flat) {
            QModelIndex op =
                static_cast<views::StageTreeModel*>(w_->stageTree()->model())->operatorIndex(flat);
            while (op.isValid() && static_cast<views::StageTreeModel::NodeType>(
                                       op.data(views::StageTreeModel::NodeTypeRole).toInt()) !=
                                       views::StageTreeModel::NodeType::Stage)
                op = op.parent();
            if (op.isValid() && operatorsOf(op).size() > 1)
                return flat;
        }
        return -1;
    }

private Q_SLOTS:
    void initTestCase() {
        useTestSettings("tst_view_linking");
        w_ = new MainWindow;
        w_->setDialogsEnabled(false);
        w_->resize(1700, 1000);
        w_->show();
        QVERIFY(QTest::qWaitForWindowExposed(w_));
        QVERIFY(w_->openModel(QStringLiteral("inception_v3")));
        if (!w_->jobs()->isRunning() && !w_->lastResult())
            w_->runOptimize();
        QVERIFY(waitForResult(*w_));
        // The Memory tab computes its report when shown.
        w_->tabs()->setCurrentWidget(w_->memoryView());
        QVERIFY(waitFor([&] {
            return w_->memoryView()->report() && !w_->memoryJobs()->isRunning() &&
                   w_->graphView()->isLayoutReady();
        }));
        QVERIFY(stateSpace()->shownPart().first >= 0);
    }
    void cleanupTestCase() { delete w_; }
    void init() { w_->selection()->clear(); }

    void fromStageTree() {
        const int flat = operatorInParallelStage();
        QVERIFY(flat >= 0);
        const auto* model = static_cast<views::StageTreeModel*>(w_->stageTree()->model());
        w_->stageTree()->setCurrentIndex(model->operatorIndex(flat));
        checkShown(Source::StageTree, {flat});
        // The selection moves elsewhere and back to the tree's current row with a click.
        Q_EMIT stateSpace()->operatorsSelected({flat, flat + 1});
        QCOMPARE(w_->selection()->operators().size(), size_t{2});
        w_->stageTree()->setCurrentIndex(model->operatorIndex(flat));
        checkShown(Source::StageTree, {flat});
    }

    void fromOperatorTable() {
        const int flat = operatorInParallelStage();
        auto* proxy = static_cast<QSortFilterProxyModel*>(w_->operatorTable()->model());
        w_->operatorTable()->setCurrentIndex(
            proxy->mapFromSource(proxy->sourceModel()->index(flat, 0)));
        checkShown(Source::OperatorTable, {flat});
    }

    void fromTimelineKernel() {
        w_->tabs()->setCurrentWidget(w_->timelineView());
        views::TimelineCanvas* canvas = w_->timelineView()->canvas();
        QVERIFY(QTest::qWaitForWindowExposed(canvas));
        const int kernel = static_cast<int>(canvas->timeline()->kernels.size() / 2);
        const auto& k = canvas->timeline()->kernels[static_cast<size_t>(kernel)];
        const int flat = w_->model()->flatIndex({k.block, k.op});
        QTest::mouseClick(canvas, Qt::LeftButton, {},
                          canvas->kernelRect(kernel).center().toPoint());
        checkShown(Source::Timeline, {flat});
    }

    // A merged convolution is one kernel carrying one of its operators: selecting another of
    // them highlights it too.
    void mergedKernelShowsEachOfItsOperators() {
        const schedule::Schedule& sched = w_->lastResult()->runs.front().schedule;
        const auto& kernels = w_->timelineView()->canvas()->timeline()->kernels;
        int other = -1, kernel = -1;
        for (size_t k = 0; k < kernels.size() && other < 0; ++k) {
            const schedule::Stage& stage = sched.blocks[static_cast<size_t>(kernels[k].block)]
                                               .stages[static_cast<size_t>(kernels[k].stage)];
            if (stage.kind != schedule::StageKind::Merge)
                continue;
            for (int op : stage.groups.front())
                if (op != kernels[k].op) {
                    other = w_->model()->flatIndex({kernels[k].block, op});
                    kernel = static_cast<int>(k);
                }
        }
        QVERIFY2(other >= 0, "the schedule has a merge stage");
        Q_EMIT w_->streamsView()->operatorSelected(other);
        QCOMPARE(w_->selection()->operators(), std::vector<int>{other});
        QCOMPARE(w_->timelineView()->canvas()->kernelStyle(kernel),
                 views::TimelineCanvas::KernelStyle::Highlighted);
    }

    void fromTimelineStageLane() {
        w_->tabs()->setCurrentWidget(w_->timelineView());
        views::TimelineCanvas* canvas = w_->timelineView()->canvas();
        const int flat = operatorInParallelStage();
        QSignalSpy lane(canvas, &views::TimelineCanvas::stageSelected);
        // The stage lane is the lanes' first row; click it over a kernel of `flat`'s stage.
        int kernel = -1;
        const auto& kernels = canvas->timeline()->kernels;
        for (size_t k = 0; k < kernels.size() && kernel < 0; ++k)
            if (w_->model()->flatIndex({kernels[k].block, kernels[k].op}) == flat)
                kernel = static_cast<int>(k);
        QVERIFY(kernel >= 0);
        const int x = static_cast<int>(canvas->kernelRect(kernel).center().x());
        const int y = canvas->lanesRect().top() + 4; // row 0: the stage lane
        QTest::mouseClick(canvas, Qt::LeftButton, {}, QPoint(x, y));
        QCOMPARE(lane.size(), 1);
        const std::vector<int> context = w_->selection()->stageContext();
        QVERIFY(std::find(context.begin(), context.end(), flat) != context.end());
        checkShown(Source::StageTree, context);
    }

    void fromStreamsLaunch() {
        const int flat = operatorInParallelStage();
        views::StreamsView* streams = w_->streamsView();
        w_->tabs()->setCurrentWidget(streams);
        // A launch click emits the launch's operator (clickAt): the signal is what the view emits.
        Q_EMIT streams->operatorSelected(flat);
        checkShown(Source::Streams, {flat});
    }

    void fromStateSpaceState() {
        views::StateSpaceView* space = stateSpace();
        w_->tabs()->setCurrentWidget(space);
        // A state holding one operator, then one holding several.
        int one = -1, several = -1;
        for (int e = 0; e < 64 && (one < 0 || several < 0); ++e) {
            const size_t n = space->stateOperators(e).size();
            if (n == 1 && one < 0)
                one = e;
            else if (n > 1 && several < 0)
                several = e;
        }
        QVERIFY(one >= 0 && several >= 0);
        QTest::mouseClick(space->canvas(), Qt::LeftButton, {}, space->statePosition(one).toPoint());
        checkShown(Source::StateSpace, space->stateOperators(one));
        space->selectState(several);
        checkShown(Source::StateSpace, space->stateOperators(several));
    }

    void fromMemoryStep() {
        views::MemoryView* memory = w_->memoryView();
        w_->tabs()->setCurrentWidget(memory);
        views::MemoryStepChart* chart = memory->stepChart();
        const int step = chart->stepCount() / 2;
        QTest::mouseClick(chart, Qt::LeftButton, {}, chart->stepCenter(step).toPoint());
        const OpSet ran = memoryShows(*w_);
        QVERIFY(!ran.empty());
        checkShown(Source::Memory, {*ran.begin()});
        // The graph shows the producers of the step's live tensors.
        QCOMPARE(graphShows(*w_), toSet(memory->liveOperators()));
    }

    void fromGraph() {
        const int flat = operatorInParallelStage();
        w_->tabs()->setCurrentWidget(w_->graphView());
        // A click on a node selects its item (and the graph emits operatorSelected).
        QGraphicsScene* scene = w_->graphView()->scene();
        scene->clearSelection();
        QGraphicsItem* node = nullptr;
        for (QGraphicsItem* item : scene->items())
            if (item->type() == views::OperatorItem::Type &&
                static_cast<views::OperatorItem*>(item)->flatIndex() == flat)
                node = item;
        QVERIFY(node != nullptr);
        QSignalSpy selected(w_->graphView(), &views::GraphView::operatorSelected);
        node->setSelected(true);
        QCOMPARE(selected.size(), 1);
        checkShown(Source::Graph, {flat});
    }
};

QTEST_MAIN(TestViewLinking)
#include "tst_view_linking.moc"
