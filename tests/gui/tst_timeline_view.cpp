// SPDX-License-Identifier: Apache-2.0
// The Timeline tab (views/timeline_view.h, timeline_canvas.h) on greedy schedules of the
// bundled InceptionV3 and NasNet-A simulated on the V100: the gap list (largest first, a click
// zooms to the gap), range selection by mouse drag, W/A/S/D/F/Esc, Ctrl+wheel, the hover
// readout of the curves, selectOperators' highlight and dimming, kernel and stage clicks, flow
// arrows, labels that neither leave the view nor overlap at 1280×800 and 1920×1080, and
// NasNet's curve decimated to at most two points per pixel. Set IOS_TIMELINE_SHOTS to a folder
// to keep the PNGs.
#include "cost/device_profile.h"
#include "cost/simulated_gpu_cost_model.h"
#include "eval/timeline_stats.h"
#include "io/trace_import.h"
#include "palette.h"
#include "schedulers/baselines.h"
#include "timeline_view.h"
#include "units.h"

#include <QApplication>
#include <QCheckBox>
#include <QDir>
#include <QDoubleSpinBox>
#include <QLabel>
#include <QSignalSpy>
#include <QTest>
#include <QTreeWidget>
#include <QWheelEvent>
#include <cmath>

using namespace ios;
using views::TimelineCanvas;
using views::TimelineView;

namespace {

struct Loaded {
    views::LoadedModelPtr model;
    std::shared_ptr<const eval::Timeline> timeline;
};

// The greedy schedule's timeline on the bundled V100 at batch 1 (several streams per stage).
Loaded greedyTimeline(const QString& name) {
    Loaded out;
    out.model = views::loadModel(name);
    const cost::SimulatedGpuCostModel cost(out.model->graph(), *cost::findBundledDevice("V100"), 1);
    out.timeline = std::make_shared<const eval::Timeline>(
        eval::buildTimeline(out.model->dags(), schedulers::greedy(out.model->dags()), cost));
    return out;
}

const Loaded& inception() {
    static const Loaded loaded = greedyTimeline(QStringLiteral("inception_v3"));
    return loaded;
}

// A shown view at `size` holding InceptionV3's timeline, painted once.
void show(TimelineView& view, QSize size, const Loaded& loaded = inception()) {
    view.resize(size);
    view.setTimeline(loaded.model, loaded.timeline, QStringLiteral("simulated: test · greedy"));
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    view.canvas()->grab();
}

void sendMouse(QWidget* w, QEvent::Type type, QPointF pos, Qt::MouseButtons buttons,
               Qt::KeyboardModifiers mods = Qt::NoModifier) {
    const Qt::MouseButton button = type == QEvent::MouseMove ? Qt::NoButton : Qt::LeftButton;
    QMouseEvent e(type, pos, w->mapToGlobal(pos), button, buttons, mods);
    QApplication::sendEvent(w, &e);
}

void drag(QWidget* w, QPointF from, QPointF to, Qt::KeyboardModifiers mods = Qt::NoModifier) {
    sendMouse(w, QEvent::MouseButtonPress, from, Qt::LeftButton, mods);
    sendMouse(w, QEvent::MouseMove, (from + to) / 2, Qt::LeftButton, mods);
    sendMouse(w, QEvent::MouseMove, to, Qt::LeftButton, mods);
    sendMouse(w, QEvent::MouseButtonRelease, to, Qt::NoButton, mods);
}

void wheel(QWidget* w, QPointF pos, int dy, Qt::KeyboardModifiers mods) {
    QWheelEvent e(pos, w->mapToGlobal(pos), QPoint(), QPoint(0, dy), Qt::NoButton, mods,
                  Qt::NoScrollPhase, false);
    QApplication::sendEvent(w, &e);
}

void saveShot(QWidget& w, const QString& name) {
    const QString dir = qEnvironmentVariable("IOS_TIMELINE_SHOTS");
    if (!dir.isEmpty()) {
        QDir().mkpath(dir);
        QVERIFY(w.grab().save(dir + QLatin1Char('/') + name));
    }
}

} // namespace

class TestTimelineView : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void gapListLargestFirstAndClickZooms() {
        TimelineView view;
        show(view, {1280, 800});
        const TimelineCanvas* canvas = view.canvas();
        const std::vector<eval::IdleGap> gaps = canvas->gaps();
        QVERIFY2(!gaps.empty(), "InceptionV3's greedy timeline idles between stages");
        QCOMPARE(view.gapList()->topLevelItemCount(), static_cast<int>(gaps.size()));
        for (size_t i = 0; i < gaps.size(); ++i) {
            QVERIFY(gaps[i].durationUs() >= TimelineCanvas::kDefaultGapThresholdUs);
            if (i > 0)
                QVERIFY(gaps[i - 1].durationUs() >= gaps[i].durationUs());
        }
        QCOMPARE(view.gapList()->topLevelItem(0)->text(0),
                 views::formatMs(gaps[0].durationUs() / 1000.0));

        // Clicking the second gap zooms so it fills the middle half, and measures it.
        const eval::IdleGap gap = gaps[1];
        const QRect row = view.gapList()->visualItemRect(view.gapList()->topLevelItem(1));
        QTest::mouseClick(view.gapList()->viewport(), Qt::LeftButton, {}, row.center());
        QVERIFY(std::abs(canvas->axis().visibleStart() - (gap.startUs - gap.durationUs() / 2)) <
                1e-6);
        QVERIFY(std::abs(canvas->axis().visibleDuration() - 2 * gap.durationUs()) < 1e-6);
        QVERIFY(canvas->range());
        QCOMPARE(canvas->range()->startUs, gap.startUs);
        QCOMPARE(canvas->range()->busy.busyUs, 0.0);
        saveShot(view, QStringLiteral("timeline_gap_zoom_1280x800.png"));

        // A higher threshold lists fewer gaps, all above it.
        const double shortest = gaps.back().durationUs(), longest = gaps.front().durationUs();
        view.gapThresholdBox()->setValue(shortest < longest - 0.2 ? (shortest + longest) / 2
                                                                  : longest + 0.2);
        QCOMPARE(canvas->gapThresholdUs(), view.gapThresholdBox()->value());
        QVERIFY(canvas->gaps().size() < gaps.size());
        QCOMPARE(view.gapList()->topLevelItemCount(), static_cast<int>(canvas->gaps().size()));
        for (const eval::IdleGap& g : canvas->gaps())
            QVERIFY(g.durationUs() >= view.gapThresholdBox()->value());
    }

    void busyPercentInTheLabels() {
        TimelineView view;
        show(view, {1280, 800});
        const eval::BusySummary& busy = view.canvas()->busy();
        QVERIFY(busy.overall.fraction > 0 && busy.overall.fraction < 1);
        QVERIFY(busy.streams.size() > 1);
        QVERIFY(view.gapList()->parentWidget()->findChildren<QLabel*>().size() > 0);
        // The gap summary and the lane labels are painted from the same figures.
        const QString overall = QStringLiteral("%1 %").arg(busy.overall.fraction * 100, 0, 'f', 1);
        bool found = false;
        for (QLabel* label : view.findChildren<QLabel*>())
            found = found || label->text().contains(overall);
        QVERIFY2(found, qPrintable(overall));
    }

    void rangeSelectionByDrag() {
        TimelineView view;
        show(view, {1280, 800});
        TimelineCanvas* canvas = view.canvas();
        const QRect ruler = canvas->rulerRect();
        const QPointF a(ruler.left() + 200, ruler.center().y());
        const QPointF b(ruler.left() + 500, ruler.center().y());
        QSignalSpy changed(canvas, &TimelineCanvas::rangeChanged);
        drag(canvas, a, b);
        QVERIFY(changed.count() > 0);
        QVERIFY(canvas->range());
        const double t0 = canvas->axis().toTime(a.x()), t1 = canvas->axis().toTime(b.x());
        const eval::RangeStats expected = eval::rangeStats(*canvas->timeline(), t0, t1);
        const eval::RangeStats& r = *canvas->range();
        QCOMPARE(r.durationUs, t1 - t0);
        QCOMPARE(r.kernels, expected.kernels);
        QVERIFY(r.kernels > 0);
        QCOMPARE(r.busy.fraction, expected.busy.fraction);
        QCOMPARE(r.meanActiveSmFraction, expected.meanActiveSmFraction);
        QVERIFY2(view.rangeLabel()->text().contains(views::formatMs(r.durationUs / 1000.0)),
                 qPrintable(view.rangeLabel()->text()));
        QVERIFY(view.rangeLabel()->text().contains(QString::number(r.kernels)));
        saveShot(view, QStringLiteral("timeline_range_1280x800.png"));

        // Esc clears; a Shift+drag over the lanes (right to left) measures as well.
        QTest::keyClick(canvas, Qt::Key_Escape);
        QVERIFY(!canvas->range());
        const QRect lanes = canvas->lanesRect();
        drag(canvas, QPointF(lanes.left() + 600, lanes.center().y()),
             QPointF(lanes.left() + 300, lanes.center().y()), Qt::ShiftModifier);
        QVERIFY(canvas->range());
        QCOMPARE(canvas->range()->startUs, canvas->axis().toTime(lanes.left() + 300));
        // A plain drag on the lanes pans instead.
        QTest::keyClick(canvas, Qt::Key_Escape);
        canvas->zoomAround(lanes.left() + 400, 4);
        const double start = canvas->axis().visibleStart();
        drag(canvas, QPointF(lanes.left() + 400, lanes.center().y()),
             QPointF(lanes.left() + 300, lanes.center().y()));
        QVERIFY(!canvas->range());
        QVERIFY(canvas->axis().visibleStart() > start);
    }

    void keyboardNavigation() {
        TimelineView view;
        show(view, {1280, 800});
        TimelineCanvas* canvas = view.canvas();
        const double total = canvas->axis().visibleDuration();
        QTest::keyClick(canvas, Qt::Key_W);
        QVERIFY(std::abs(canvas->axis().visibleDuration() - total / 1.5) < 1e-6 * total);
        // Zoomed around the middle of the plot (the pointer is elsewhere).
        const QRect plot = canvas->plotRect();
        QVERIFY(std::abs(canvas->axis().toTime(plot.left() + plot.width() / 2.0) - total / 2) <
                1e-6 * total);
        QTest::keyClick(canvas, Qt::Key_W);
        const double start = canvas->axis().visibleStart(),
                     width = canvas->axis().visibleDuration();
        QTest::keyClick(canvas, Qt::Key_D);
        QVERIFY(std::abs(canvas->axis().visibleStart() - (start + 0.2 * width)) < 1e-6 * total);
        QTest::keyClick(canvas, Qt::Key_A);
        QTest::keyClick(canvas, Qt::Key_A);
        QVERIFY(std::abs(canvas->axis().visibleStart() - (start - 0.2 * width)) < 1e-6 * total);
        QTest::keyClick(canvas, Qt::Key_S);
        QVERIFY(std::abs(canvas->axis().visibleDuration() - width * 1.5) < 1e-6 * total);
        QTest::keyClick(canvas, Qt::Key_F);
        QCOMPARE(canvas->axis().visibleDuration(), total);
        QVERIFY(!TimelineView::shortcutHelp().empty());
        QCOMPARE(TimelineView::shortcutHelp().front().first, QStringLiteral("W / S"));
    }

    void ctrlWheelZoomsPlainWheelDoesNot() {
        TimelineView view;
        show(view, {1280, 800});
        TimelineCanvas* canvas = view.canvas();
        const double total = canvas->axis().visibleDuration();
        const QPointF at(canvas->plotRect().left() + 100, canvas->lanesRect().center().y());
        const double anchor = canvas->axis().toTime(at.x());
        wheel(canvas, at, 120, Qt::NoModifier);
        QCOMPARE(canvas->axis().visibleDuration(), total); // lanes fit: nothing to scroll
        wheel(canvas, at, 120, Qt::ControlModifier);
        QVERIFY(std::abs(canvas->axis().visibleDuration() - total / std::pow(1.0015, 120)) <
                1e-9 * total);
        QVERIFY(std::abs(canvas->axis().toTime(at.x()) - anchor) < 1e-9 * total);
        wheel(canvas, at, -120, Qt::ControlModifier);
        QVERIFY(std::abs(canvas->axis().visibleDuration() - total) < 1e-9 * total);
    }

    void hoverReadout() {
        TimelineView view;
        show(view, {1280, 800});
        TimelineCanvas* canvas = view.canvas();
        const QRect plot = canvas->plotRect();
        const QPointF at(plot.left() + 300, plot.center().y());
        sendMouse(canvas, QEvent::MouseMove, at, Qt::NoButton);
        const QString readout = canvas->hoverReadout();
        QVERIFY(!readout.isEmpty());
        const eval::TimelineSample s =
            eval::sampleAt(*canvas->timeline(), canvas->axis().toTime(at.x()));
        QVERIFY2(
            readout.contains(QStringLiteral("active SMs %1 (%2 of %3)")
                                 .arg(QStringLiteral("%1 %").arg(
                                     100.0 * s.activeSms / canvas->timeline()->smCount, 0, 'f', 1))
                                 .arg(s.activeSms)
                                 .arg(canvas->timeline()->smCount)),
            qPrintable(readout));
        QCOMPARE(readout, canvas->readoutAt(at.x()));
        saveShot(*canvas, QStringLiteral("timeline_hover_1280x800.png"));
        // Outside the plot's columns there is no readout.
        sendMouse(canvas, QEvent::MouseMove, QPointF(20, plot.center().y()), Qt::NoButton);
        QVERIFY(canvas->hoverReadout().isEmpty());
    }

    void selectOperatorsDimsTheOthers() {
        TimelineView view;
        show(view, {1280, 800});
        TimelineCanvas* canvas = view.canvas();
        const Loaded& l = inception();
        // The last kernel's operator; zoomed to the start first, so it is off-screen.
        const eval::TimelineKernel& last = l.timeline->kernels.back();
        const int flat = l.model->flatIndex({last.block, last.op});
        canvas->setVisibleRange(0, l.timeline->latencyUs / 50);
        view.selectOperators({flat});
        int highlighted = 0;
        for (size_t k = 0; k < l.timeline->kernels.size(); ++k) {
            const auto& kern = l.timeline->kernels[k];
            const bool mine = l.model->flatIndex({kern.block, kern.op}) == flat;
            QCOMPARE(canvas->kernelStyle(static_cast<int>(k)),
                     mine ? TimelineCanvas::KernelStyle::Highlighted
                          : TimelineCanvas::KernelStyle::Dimmed);
            highlighted += mine;
        }
        QVERIFY(highlighted > 0);
        QVERIFY(canvas->axis().visibleEnd() >= last.startUs);
        QVERIFY(canvas->axis().visibleStart() <= last.endUs);
        // The painted pixels: the highlighted kernel keeps its colour, a dimmed one is paler.
        const int lastIndex = static_cast<int>(l.timeline->kernels.size()) - 1;
        const QImage image = canvas->grab().toImage();
        const QColor kind = views::kindColor(l.model->node({last.block, last.op}).kind);
        const QPoint centre = canvas->kernelRect(lastIndex).center().toPoint();
        QCOMPARE(image.pixelColor(centre), kind);
        // Shown whole, a wide kernel of another operator is painted paler than its kind.
        canvas->fit();
        const QImage whole = canvas->grab().toImage();
        int dimmedIndex = -1;
        for (int k = 0; k < lastIndex && dimmedIndex < 0; ++k)
            if (canvas->kernelRect(k).width() > 6 &&
                canvas->kernelStyle(k) == TimelineCanvas::KernelStyle::Dimmed)
                dimmedIndex = k;
        QVERIFY(dimmedIndex >= 0);
        const auto& other = l.timeline->kernels[static_cast<size_t>(dimmedIndex)];
        const QColor otherKind = views::kindColor(l.model->node({other.block, other.op}).kind);
        const QColor painted = image.pixelColor(canvas->kernelRect(dimmedIndex).center().toPoint());
        QVERIFY(painted != otherKind);
        QVERIFY(painted.lightnessF() > otherKind.lightnessF());
        saveShot(view, QStringLiteral("timeline_selection_1280x800.png"));
        view.selectOperators({});
        QCOMPARE(canvas->kernelStyle(0), TimelineCanvas::KernelStyle::Normal);
    }

    void clicksSelectOperatorsAndStages() {
        TimelineView view;
        show(view, {1280, 800});
        TimelineCanvas* canvas = view.canvas();
        const Loaded& l = inception();
        canvas->setVisibleRange(0, l.timeline->latencyUs / 40);
        int k = 0;
        while (canvas->kernelRect(k).width() < 6)
            ++k;
        QSignalSpy ops(&view, &TimelineView::operatorSelected);
        QTest::mouseClick(canvas, Qt::LeftButton, {}, canvas->kernelRect(k).center().toPoint());
        QCOMPARE(ops.count(), 1);
        const auto& kern = l.timeline->kernels[static_cast<size_t>(k)];
        QCOMPARE(ops.front().front().toInt(), l.model->flatIndex({kern.block, kern.op}));
        QSignalSpy stages(&view, &TimelineView::stageSelected);
        const eval::TimelineStage& st = l.timeline->stages.front();
        const QPoint stageAt(static_cast<int>(canvas->axis().toPixel((st.startUs + st.endUs) / 2)),
                             canvas->lanesRect().top() + 8);
        QTest::mouseClick(canvas, Qt::LeftButton, {}, stageAt);
        QCOMPARE(stages.count(), 1);
        QCOMPARE(stages.front().at(0).toInt(), st.block);
        QCOMPARE(stages.front().at(1).toInt(), st.stage);
        // Without a model (a trace of another model) a kernel click selects nothing.
        view.setTimeline(nullptr, l.timeline, QStringLiteral("trace"));
        canvas->setVisibleRange(0, l.timeline->latencyUs / 40);
        QTest::mouseClick(canvas, Qt::LeftButton, {}, canvas->kernelRect(k).center().toPoint());
        QCOMPARE(ops.count(), 1);
    }

    void flowArrowsToggle() {
        TimelineView view;
        show(view, {1280, 800});
        const auto& flows = view.canvas()->flows();
        QVERIFY(!flows.empty());
        for (const eval::KernelFlow& f : flows)
            QVERIFY(inception().timeline->kernels[static_cast<size_t>(f.from)].stream !=
                    inception().timeline->kernels[static_cast<size_t>(f.to)].stream);
        QCOMPARE(view.canvas()->showFlows(), flows.size() <= TimelineCanvas::kMaxDefaultFlows);
        QCOMPARE(view.flowsBox()->isChecked(), view.canvas()->showFlows());
        view.flowsBox()->setChecked(!view.flowsBox()->isChecked());
        QCOMPARE(view.canvas()->showFlows(), view.flowsBox()->isChecked());
    }

    void labelsStayInsideAndApart_data() {
        QTest::addColumn<QSize>("size");
        QTest::newRow("1280x800") << QSize(1280, 800);
        QTest::newRow("1920x1080") << QSize(1920, 1080);
        QTest::newRow("tab at 1280x800") << QSize(960, 560); // beside the settings dock
    }
    void labelsStayInsideAndApart() {
        QFETCH(QSize, size);
        TimelineView view;
        show(view, size);
        TimelineCanvas* canvas = view.canvas();
        const QRect ruler = canvas->rulerRect();
        drag(canvas, QPointF(ruler.left() + 100, ruler.center().y()),
             QPointF(ruler.left() + 260, ruler.center().y()));
        QVERIFY(canvas->range());
        canvas->grab();
        const auto& rects = canvas->labelRects();
        QVERIFY(rects.size() > 20);
        for (size_t i = 0; i < rects.size(); ++i) {
            QVERIFY2(canvas->rect().contains(rects[i]),
                     qPrintable(QStringLiteral("label %1 at %2,%3 %4×%5 leaves the view")
                                    .arg(i)
                                    .arg(rects[i].x())
                                    .arg(rects[i].y())
                                    .arg(rects[i].width())
                                    .arg(rects[i].height())));
            for (size_t j = i + 1; j < rects.size(); ++j)
                QVERIFY2(!rects[i].intersects(rects[j]),
                         qPrintable(QStringLiteral("labels %1 and %2 overlap").arg(i).arg(j)));
        }
        // The lanes and the plot fill the canvas: nothing but the legend below the plot.
        QVERIFY(canvas->height() - canvas->plotRect().bottom() < 70);
        saveShot(view, QStringLiteral("timeline_%1x%2.png").arg(size.width()).arg(size.height()));
    }

    // Thirty streams do not fit: the plain wheel scrolls the lanes, the plot keeps its height.
    void plainWheelScrollsOverflowingLanes() {
        auto tl = std::make_shared<eval::Timeline>();
        tl->smCount = 80;
        tl->streams = 30;
        tl->latencyUs = 100;
        for (int s = 0; s < 30; ++s) {
            eval::TimelineKernel k;
            k.stream = s;
            k.op = -1;
            k.opName = "k" + std::to_string(s);
            k.startUs = s;
            k.endUs = s + 50;
            tl->kernels.push_back(k);
        }
        TimelineView view;
        view.resize(1280, 800);
        view.setTimeline(nullptr, tl, QStringLiteral("thirty streams"));
        view.show();
        QVERIFY(QTest::qWaitForWindowExposed(&view));
        TimelineCanvas* canvas = view.canvas();
        QVERIFY(canvas->plotRect().height() >= TimelineCanvas::kMinPlotHeight - 20);
        const QRectF before = canvas->kernelRect(29);
        QVERIFY(before.top() > canvas->lanesRect().bottom()); // below the visible lanes
        const double width = canvas->axis().visibleDuration();
        wheel(canvas, canvas->lanesRect().center(), -240, Qt::NoModifier);
        QVERIFY(canvas->kernelRect(29).top() < before.top());
        QCOMPARE(canvas->axis().visibleDuration(), width);
        wheel(canvas, canvas->lanesRect().center(), 10000, Qt::NoModifier); // back to the top
        // Row 0 is the stage lane; stream 0's kernel sits 3 px into row 1 again.
        QCOMPARE(canvas->kernelRect(0).top(),
                 canvas->lanesRect().top() + TimelineCanvas::kMinRowHeight + 3.0);
        canvas->grab();
        for (const QRect& r : canvas->labelRects())
            QVERIFY(canvas->rect().contains(r));
    }

    // A measured trace (the committed H100 InceptionV3 IOS-both run): the chart shows its
    // active warps alone, with the legend given, on a scale fitted to the data (1 % labelled),
    // no SM entry; the header has the trace's device and batch; the readout has no SM figure.
    void measuredTraceChart() {
        io::TraceInfo info;
        const auto tl = std::make_shared<const eval::Timeline>(io::readChromeTrace(
            IOS_SOURCE_DIR "/sample_models/measured/h100_trace_inception_v3-both.json", &info));
        TimelineView view;
        view.resize(1400, 800);
        const QString legend = QStringLiteral("active warps, % of peak — PM sampling, eager run");
        view.setTimeline(nullptr, tl, QStringLiteral("measured: both · eager run"), legend);
        view.show();
        QVERIFY(QTest::qWaitForWindowExposed(&view));
        TimelineCanvas* canvas = view.canvas();
        canvas->grab();
        QVERIFY(canvas->measured());
        const QStringList entries = canvas->legendTexts();
        QCOMPARE(entries.front(), legend);
        for (const QString& e : entries)
            QVERIFY2(!e.contains(QLatin1String("SMs")) && !e.contains(QLatin1String("FP32")),
                     qPrintable(e));
        // 95 % of the run's samples are ≤ 1.8 %: the chart's top is 2 %, ticks every 0.5 %.
        QCOMPARE(canvas->curveScale(), 0.02);
        QVERIFY(canvas->curvePointCount() > 0);
        const QString header = canvas->fullTitle();
        QVERIFY2(header.contains(QLatin1String("NVIDIA H100 80GB HBM3, batch 1")) &&
                     header.contains(QLatin1String("eager run")),
                 qPrintable(header));
        const QRect plot = canvas->plotRect();
        const QPointF at(plot.left() + 300, plot.center().y());
        sendMouse(canvas, QEvent::MouseMove, at, Qt::NoButton);
        const QString readout = canvas->hoverReadout();
        QVERIFY2(readout.contains(QLatin1String("active warps")) &&
                     !readout.contains(QLatin1String("SMs")),
                 qPrintable(readout));
        saveShot(*canvas, QStringLiteral("timeline_measured_both_1400x800.png"));

        // The simulated view keeps its three curves on 0–100 %.
        show(view, {1280, 800});
        QVERIFY(!canvas->measured());
        QCOMPARE(canvas->curveScale(), 1.0);
        QVERIFY(canvas->legendTexts().front().startsWith(QLatin1String("active SMs")));
    }

    // The fitted scale on hand-made samples: 1-2-5 steps over 1.1 × the time-weighted 95th
    // percentile inside the run, at least 1 %; the peak is reported for the clipping note.
    void warpScaleFit() {
        eval::Timeline tl;
        eval::TimelineKernel k;
        k.endUs = 100;
        tl.kernels.push_back(k);
        tl.latencyUs = 100;
        auto samples = [&](std::vector<std::pair<double, double>> s) {
            tl.samples.clear();
            for (auto [t, v] : s) {
                eval::TimelineSample x;
                x.timeUs = t;
                x.warpOccupancy = v;
                tl.samples.push_back(x);
            }
            return views::fitWarpScale(tl);
        };
        // 97 µs at 0.9 %, a 3 µs spike to 30 %, a long zero sample before the run (ignored).
        views::WarpScale s = samples({{-1e6, 0.9}, {0, 0.009}, {97, 0.3}, {100, 0}});
        QCOMPARE(s.top, 0.01);
        QCOMPARE(s.peak, 0.3);
        s = samples({{0, 0.03}, {100, 0}});
        QCOMPARE(s.top, 0.05);
        s = samples({{0, 0.95}, {100, 0}});
        QCOMPARE(s.top, 1.0);
    }

    void nasnetCurveIsDecimated() {
        const Loaded nasnet = greedyTimeline(QStringLiteral("nasnet_large"));
        QVERIFY(nasnet.timeline->kernels.size() > 1500);
        TimelineView view;
        show(view, {1280, 800}, nasnet);
        TimelineCanvas* canvas = view.canvas();
        QVERIFY(nasnet.timeline->samples.size() > static_cast<size_t>(2 * canvas->plotWidth()));
        QVERIFY(canvas->curvePointCount() > 0);
        QVERIFY(canvas->curvePointCount() <= 2 * canvas->plotWidth() + 2);
        // Too many flows to draw by default: the toggle starts off.
        QVERIFY(canvas->flows().size() > TimelineCanvas::kMaxDefaultFlows);
        QVERIFY(!canvas->showFlows());
        saveShot(view, QStringLiteral("timeline_nasnet_1280x800.png"));
        // Painting the whole of NasNet (lanes, gaps, curves; bench figure, not an assertion).
        QBENCHMARK {
            canvas->grab();
        }
    }
};

QTEST_MAIN(TestTimelineView)
#include "tst_timeline_view.moc"
