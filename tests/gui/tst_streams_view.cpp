// SPDX-License-Identifier: Apache-2.0
// The Streams view: the layout of a hand-made program (lanes, arrows, dividers, both axes), and
// the view over real Optimize jobs (EngineJobs): RAF ASAP's own program on squeezenet (one lane
// per stream, one arrow per wait, linked selection, both axes) and IOS-Both's lowered program
// on inception_v3 (syncs and barriers).
#include "engine_jobs.h"
#include "schedule/stream_program.h"
#include "stream_layout.h"
#include "streams_view.h"

#include <QApplication>
#include <QComboBox>
#include <QImage>
#include <QPainter>
#include <QSignalSpy>
#include <QTest>
#include <QWheelEvent>
#include <algorithm>
#include <cmath>

using namespace ios;
using gui::RunResult;
using schedule::Instruction;
using views::StreamAxis;

namespace {

// One Optimize job of `strategy` on a bundled model, as the main window runs it.
RunResult optimize(const views::LoadedModelPtr& model, const QString& strategy) {
    gui::JobSettings settings;
    settings.model = model;
    settings.strategy = strategy;
    settings.recordStateSpace = false;
    gui::JobControl control;
    gui::SearchResult result = gui::optimizeJob(settings).run(control);
    return std::move(result.runs.front());
}

views::LoadedModelPtr squeezenet() {
    static const views::LoadedModelPtr model = views::loadModel(QStringLiteral("squeezenet"));
    return model;
}

// The view after a paint at a fixed size, so launchRect and tooltips answer.
void paint(views::StreamsView& view) {
    QImage image(1200, 600, QImage::Format_ARGB32);
    QPainter painter(&image);
    view.render(painter, image.rect());
}

} // namespace

class TestStreamsView : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void layoutOfAHandMadeProgram() {
        const ir::BlockDag& dag = squeezenet()->dags()[1];
        QVERIFY(dag.ops.size() >= 4);
        schedule::StreamProgram p;
        p.instructions = {Instruction::launch(0, 0), Instruction::record(7, 0),
                          Instruction::launch(1, 0), Instruction::wait(7, 3),
                          Instruction::launch(2, 3), Instruction::sync(),
                          Instruction::launch(3, 0), Instruction::barrier()};
        Instruction tuple;
        tuple.stream = 3;
        tuple.synthetic = "tuple:x";
        p.instructions.push_back(tuple);

        const views::StreamLayout issue = views::layoutStreams(dag, p, StreamAxis::IssueOrder);
        QCOMPARE(issue.axis, StreamAxis::IssueOrder);
        QCOMPARE(issue.laneStreams, (std::vector<int>{0, 3}));
        QCOMPARE(issue.launches.size(), size_t{5});
        // Launches take a full slot, the other instructions a narrow one.
        QCOMPARE(issue.slotStart.size(), p.instructions.size() + 1);
        QCOMPARE(issue.slotStart[1], 1.0);
        QCOMPARE(issue.slotStart[2], 1.0 + views::kIssueMarkSlot);
        QCOMPARE(issue.extent, 5 + 4 * views::kIssueMarkSlot);
        QCOMPARE(issue.launches[0].x0, views::kIssueSlotMargin);
        QCOMPARE(issue.launches[2].lane, 1);
        QVERIFY(issue.launches[4].synthetic);
        QCOMPARE(issue.launches[4].name, std::string("tuple:x"));
        QCOMPARE(issue.launchOfOperator(2), 2);
        QCOMPARE(issue.launchOfOperator(99), -1);
        QCOMPARE(issue.arrows.size(), size_t{1});
        const views::StreamArrow& a = issue.arrows[0];
        QCOMPARE(a.event, 7);
        QCOMPARE(a.record, 1);
        QCOMPARE(a.wait, 3);
        QCOMPARE(a.fromLane, 0);
        QCOMPARE(a.toLane, 1);
        QCOMPARE(a.fromLaunch, 0); // the record captured op 0, not op 1 issued after it
        QCOMPARE(a.toLaunch, 2);
        QCOMPARE(a.x0, 1 + views::kIssueMarkSlot / 2);
        QCOMPARE(a.x1, 2 + views::kIssueMarkSlot * 1.5);
        QCOMPARE(issue.launches[2].waitArrows, std::vector<int>{0});
        QCOMPARE(issue.launches[0].recordArrows, std::vector<int>{0});
        QCOMPARE(issue.marks.size(), size_t{2});
        QCOMPARE(issue.dividers.size(), size_t{2});
        QVERIFY(issue.dividers[0].sync);
        QVERIFY(!issue.dividers[1].sync);

        // Simulated time: launches from start to end, the rest when they took effect.
        cost::ProgramRun run;
        run.instructionUs = {10, 10, 25, 10, 40, 40, 55, 55, 55};
        run.startUs = {0, 10, 10, 10, 12, 40, 41, 55, 55};
        run.latencyUs = 55;
        const views::StreamLayout timed =
            views::layoutStreams(dag, p, StreamAxis::SimulatedTime, &run);
        QCOMPARE(timed.axis, StreamAxis::SimulatedTime);
        QCOMPARE(timed.launches[2].x0, 12.0);
        QCOMPARE(timed.launches[2].x1, 40.0);
        QCOMPARE(timed.arrows.size(), issue.arrows.size());
        QCOMPARE(timed.arrows[0].x0, 10.0);
        QCOMPARE(timed.dividers[0].x, 40.0);
        QCOMPARE(timed.extent, 55.0);
        // No times for this program: issue order.
        cost::ProgramRun wrong;
        QCOMPARE(views::layoutStreams(dag, p, StreamAxis::SimulatedTime, &wrong).axis,
                 StreamAxis::IssueOrder);
    }

    void rafAsapShowsLanesAndArrows() {
        const RunResult run = optimize(squeezenet(), QStringLiteral("raf-asap"));
        QVERIFY(run.ownProgram);
        QCOMPARE(run.program.size(), squeezenet()->dags().size());
        QCOMPARE(run.programRuns.size(), run.program.size());
        views::StreamsView view;
        view.setProgram(squeezenet(), run.program, run.programRuns, QStringLiteral("raf-asap"));
        QCOMPARE(view.blockCount(), static_cast<int>(run.program.size()));
        QVERIFY(view.blockBox()->count() == view.blockCount());
        bool sawEvents = false;
        for (int b = 0; b < view.blockCount(); ++b) {
            view.setBlock(b);
            const schedule::ProgramCounts c = schedule::counts(run.program[static_cast<size_t>(b)]);
            QCOMPARE(static_cast<int>(view.layout().laneStreams.size()), c.streams);
            QCOMPARE(static_cast<int>(view.layout().arrows.size()), c.waits);
            QCOMPARE(static_cast<int>(view.layout().launches.size()), c.launches);
            sawEvents = sawEvents || (c.streams > 1 && c.waits > 0);
            paint(view);
        }
        QVERIFY(sawEvents);
    }

    void selectingAnOperatorHighlightsItsLaunch() {
        const RunResult run = optimize(squeezenet(), QStringLiteral("raf-asap"));
        views::StreamsView view;
        view.setProgram(squeezenet(), run.program, run.programRuns, QStringLiteral("raf-asap"));
        // The last launch of the program that waits on an event.
        int block = -1, launch = -1;
        views::StreamLaunch target;
        for (int b = 0; b < view.blockCount(); ++b) {
            view.setBlock(b);
            for (size_t i = 0; i < view.layout().launches.size(); ++i)
                if (!view.layout().launches[i].waitArrows.empty() &&
                    !view.layout().launches[i].synthetic) {
                    block = b;
                    launch = static_cast<int>(i);
                    target = view.layout().launches[i];
                }
        }
        QVERIFY(launch >= 0);
        view.setBlock(block == 0 ? 1 : 0); // selecting switches the block
        const int flat = squeezenet()->flatIndex({block, target.ops.front()});
        QVERIFY(view.selectOperator(flat));
        QCOMPARE(view.block(), block);
        QCOMPARE(view.selectedLaunches(), std::vector<int>{launch});
        std::vector<int> waits = target.waitArrows;
        std::sort(waits.begin(), waits.end());
        QCOMPARE(view.highlightedArrows(), waits);
        for (int a : waits)
            QCOMPARE(view.layout().arrows[static_cast<size_t>(a)].toLaunch, launch);
        paint(view);
        const QRectF box = view.launchRect(launch);
        QVERIFY(!box.isEmpty());
        QVERIFY2(view.tooltipAt(box.center()).contains(QLatin1String("waits on e")),
                 qPrintable(view.tooltipAt(box.center())));

        // A click on another launch selects it and its operator.
        view.resize(1200, 640);
        view.show();
        QVERIFY(QTest::qWaitForWindowExposed(&view));
        view.canvas()->repaint();
        int other = -1;
        for (size_t i = 0; i < view.layout().launches.size() && other < 0; ++i)
            if (static_cast<int>(i) != launch && !view.layout().launches[i].synthetic &&
                view.launchRect(static_cast<int>(i)).width() >= 4)
                other = static_cast<int>(i);
        QVERIFY(other >= 0);
        QSignalSpy selected(&view, &views::StreamsView::operatorSelected);
        QTest::mouseClick(view.canvas(), Qt::LeftButton, {},
                          view.launchRect(other).center().toPoint());
        QCOMPARE(selected.size(), 1);
        QCOMPARE(selected.front().front().toInt(),
                 squeezenet()->flatIndex(
                     {block, view.layout().launches[static_cast<size_t>(other)].ops.front()}));
        QCOMPARE(view.selectedLaunches(), std::vector<int>{other});
    }

    void switchingAxesKeepsTheArrows() {
        const RunResult run = optimize(squeezenet(), QStringLiteral("raf-asap"));
        views::StreamsView view;
        view.setProgram(squeezenet(), run.program, run.programRuns, QStringLiteral("raf-asap"));
        QVERIFY(view.canShowTime());
        for (int b = 0; b < view.blockCount(); ++b) {
            view.setBlock(b);
            view.setAxis(StreamAxis::IssueOrder);
            const size_t arrows = view.layout().arrows.size();
            const size_t launches = view.layout().launches.size();
            view.setAxis(StreamAxis::SimulatedTime);
            QCOMPARE(view.axis(), StreamAxis::SimulatedTime);
            QCOMPARE(view.layout().arrows.size(), arrows);
            QCOMPARE(view.layout().launches.size(), launches);
            const double latency = run.programRuns[static_cast<size_t>(b)].latencyUs;
            QVERIFY(std::abs(view.layout().extent - latency) <= 1e-9 * latency + 1e-3);
            for (const views::StreamLaunch& l : view.layout().launches)
                QVERIFY(0 <= l.x0 && l.x0 <= l.x1 && l.x1 <= view.layout().extent + 1e-9);
            for (const views::StreamArrow& a : view.layout().arrows)
                QVERIFY(a.x1 >= a.x0 - 1e-9); // released no earlier than recorded
            paint(view);
            view.setAxis(StreamAxis::IssueOrder);
            QCOMPARE(view.layout().arrows.size(), arrows);
        }
        // Without simulated times the view stays in issue order.
        view.setProgram(squeezenet(), run.program, {}, QStringLiteral("raf-asap"),
                        QStringLiteral("not priced"));
        QVERIFY(!view.canShowTime());
        view.setAxis(StreamAxis::SimulatedTime);
        QCOMPARE(view.axis(), StreamAxis::IssueOrder);
    }

    void zoomPanAndFit() {
        const RunResult run = optimize(squeezenet(), QStringLiteral("raf-asap"));
        views::StreamsView view;
        view.setProgram(squeezenet(), run.program, run.programRuns, QStringLiteral("raf-asap"));
        view.resize(1000, 500);
        view.show();
        QVERIFY(QTest::qWaitForWindowExposed(&view));
        const double extent = view.layout().extent;
        QCOMPARE(view.xAxis().visibleStart(), 0.0); // fitted on open
        QCOMPARE(view.xAxis().visibleEnd(), extent);
        QWidget* canvas = view.canvas();
        const QPointF at(canvas->width() / 2.0, canvas->height() / 2.0);
        QWheelEvent zoom(at, canvas->mapToGlobal(at), {}, {0, 480}, Qt::NoButton,
                         Qt::ControlModifier, Qt::NoScrollPhase, false);
        QApplication::sendEvent(canvas, &zoom);
        QVERIFY(view.xAxis().visibleDuration() < extent / 2);
        const double start = view.xAxis().visibleStart();
        QTest::mousePress(canvas, Qt::LeftButton, {}, at.toPoint());
        QMouseEvent drag(QEvent::MouseMove, at - QPointF(80, 0), canvas->mapToGlobal(at),
                         Qt::NoButton, Qt::LeftButton, Qt::NoModifier);
        QApplication::sendEvent(canvas, &drag);
        QTest::mouseRelease(canvas, Qt::LeftButton, {}, (at - QPointF(80, 0)).toPoint());
        QVERIFY(view.xAxis().visibleStart() > start); // dragged left: later instructions
        QTest::keyClick(canvas, Qt::Key_F);
        QCOMPARE(view.xAxis().visibleStart(), 0.0);
        QCOMPARE(view.xAxis().visibleEnd(), extent);
    }

    void stageStrategyShowsItsLoweredProgram() {
        const views::LoadedModelPtr model = views::loadModel(QStringLiteral("inception_v3"));
        const RunResult run = optimize(model, QStringLiteral("ios-both"));
        QVERIFY(!run.ownProgram);
        QVERIFY(run.program == schedule::lower(run.schedule));
        views::StreamsView view;
        view.setProgram(model, run.program, run.programRuns, QStringLiteral("ios-both"));
        int syncs = 0, barriers = 0;
        for (int b = 0; b < view.blockCount(); ++b) {
            view.setBlock(b);
            const schedule::ProgramCounts c = view.blockCounts();
            syncs += c.syncs;
            barriers += c.barriers;
            QCOMPARE(static_cast<int>(view.layout().laneStreams.size()), c.streams);
            QVERIFY(view.layout().arrows.empty()); // stages order by barriers, not events
            const auto& dividers = view.layout().dividers;
            QCOMPARE(static_cast<int>(dividers.size()), c.syncs + c.barriers);
            QCOMPARE(static_cast<int>(std::count_if(dividers.begin(), dividers.end(),
                                                    [](const auto& d) { return d.sync; })),
                     c.syncs);
            view.setAxis(StreamAxis::SimulatedTime);
            QCOMPARE(static_cast<int>(view.layout().dividers.size()), c.syncs + c.barriers);
            paint(view);
            view.setAxis(StreamAxis::IssueOrder);
        }
        QVERIFY(syncs > 0);
        QVERIFY(barriers > 0);
        // A new view opens on a block with several streams.
        views::StreamsView fresh;
        fresh.setProgram(model, run.program, run.programRuns, QStringLiteral("ios-both"));
        QVERIFY(fresh.blockCounts().streams > 1);
    }
};

QTEST_MAIN(TestStreamsView)
#include "tst_streams_view.moc"
