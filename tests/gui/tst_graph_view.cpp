// SPDX-License-Identifier: Apache-2.0
// The graph view: Netron-like labels and tooltips, left elision, the legend beside the graph,
// selection styles, stage colours on a many-stage schedule, and the DenseNet-121 layout
// (dense concat fan-in: ~60 s with dot's defaults) finishing and opening centred.
#include "graph_labels.h"
#include "graph_layout.h"
#include "graph_legend.h"
#include "graph_view.h"
#include "model_graph.h"
#include "operator_item.h"
#include "palette.h"
#include "units.h"

#include <QApplication>
#include <QGraphicsScene>
#include <QSignalSpy>
#include <QTest>

using namespace ios;
using namespace ios::views;

namespace {

const QString kDenseNet = QStringLiteral(IOS_SOURCE_DIR "/sample_models/onnx/densenet121.onnx");

// A shown view of `model`, laid out. The layout runs on a worker; generous timeout for a
// loaded machine (the bench shows the real figure).
bool laidOut(GraphView& view, const LoadedModelPtr& model, QSize size = {1280, 800}) {
    view.resize(size);
    view.show();
    QSignalSpy ready(&view, &GraphView::layoutReady);
    view.setModel(model);
    return view.isLayoutReady() || ready.wait(120000);
}

OperatorItem* itemNamed(GraphView& view, const QString& name) {
    for (OperatorItem* item : view.operatorItems())
        if (item->name() == name)
            return item;
    return nullptr;
}

// The rectangle of `item` in `view`'s coordinates, clipped to the viewport (what a user sees).
QRect visibleRect(GraphView& view, const OperatorItem* item) {
    QGraphicsView* gv = view.view();
    const QRect inViewport =
        gv->mapFromScene(item->sceneBoundingRect()).boundingRect() & gv->viewport()->rect();
    if (inViewport.isEmpty())
        return {};
    return QRect(gv->viewport()->mapTo(&view, inViewport.topLeft()), inViewport.size());
}

} // namespace

class TestGraphView : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void nodeShowsTypeAndParameters() {
        GraphView view;
        QVERIFY(laidOut(view, loadModel(kDenseNet)));
        // conv0 7×7 stride 2 pad 3, BatchNorm and ReLU folded in.
        OperatorItem* conv = itemNamed(view, QStringLiteral("/features/conv0/Conv"));
        QVERIFY(conv);
        QVERIFY2(conv->label().title.startsWith(QStringLiteral("Conv 7×7/2")),
                 qPrintable(conv->label().title));
        QVERIFY(conv->label().detail.contains(QStringLiteral("64×112×112")));
        QVERIFY(conv->label().detail.contains(QLatin1String("pad 3")));
        OperatorItem* pool = itemNamed(view, QStringLiteral("/features/pool0/MaxPool"));
        QVERIFY(pool);
        QCOMPARE(pool->label().title, QStringLiteral("MaxPool 3×3/2"));
        OperatorItem* concat =
            itemNamed(view, QStringLiteral("/features/denseblock1/denselayer2/Concat"));
        QVERIFY(concat);
        QCOMPARE(concat->label().title, QStringLiteral("Concat"));
    }

    void sequentialTitleIsShort() {
        auto conv = [](int64_t k, int64_t stride, int64_t groups) {
            ir::Node n;
            n.kind = ir::NodeKind::Conv;
            n.conv.outChannels = 42;
            n.conv.kernel = {k, k};
            n.conv.stride = {stride, stride};
            n.conv.groups = groups;
            return n;
        };
        ir::Node relu;
        relu.kind = ir::NodeKind::Relu;
        ir::Node seq;
        seq.kind = ir::NodeKind::Sequential;
        seq.nodes = {relu, conv(5, 2, 42), conv(1, 1, 1), relu, conv(5, 1, 42), conv(1, 1, 1)};
        QCOMPARE(operatorTitle(seq), QStringLiteral("SepConv×2 5×5/2"));
        seq.nodes = {relu, conv(3, 1, 1)};
        QCOMPARE(operatorTitle(seq), QStringLiteral("Conv 3×3"));
        QVERIFY(operatorParams(seq).contains(QStringLiteral("3×3")));
    }

    void tooltipHasParametersAndTensorSizes() {
        GraphView view;
        QVERIFY(laidOut(view, loadModel(kDenseNet)));
        OperatorItem* conv = itemNamed(view, QStringLiteral("/features/conv0/Conv"));
        QVERIFY(conv);
        const QString tip = view.operatorToolTip(conv->flatIndex());
        for (const char* expected :
             {"/features/conv0/Conv", "kernel", "7×7", "stride", "2×2", "padding", "3×3", "groups",
              "out channels", "3×224×224", "588.0 KiB", // input: 3·224·224·4 bytes
              "64×112×112", "3.1 MiB", "FLOPs", "236.83 MFLOP", "block 0"})
            QVERIFY2(tip.contains(QString::fromUtf8(expected)), expected);
    }

    void namesElideFromTheLeft() {
        const QFont font;
        const QFontMetrics fm(font);
        const QString name = QStringLiteral("/features/denseblock1/denselayer1/conv1/Conv");
        const QString tail = QStringLiteral("…/conv1/Conv");
        QCOMPARE(elideLeft(name, fm, fm.horizontalAdvance(tail) + 2), tail);
        QCOMPARE(elideLeft(name, fm, fm.horizontalAdvance(name)), name);
        // Narrower than any whole segment: characters go, the tail stays.
        const QString narrow =
            elideLeft(name, fm, fm.horizontalAdvance(QStringLiteral("…Conv")) + 2);
        QVERIFY2(narrow.endsWith(QLatin1String("Conv")), qPrintable(narrow));
        QVERIFY(narrow.startsWith(QStringLiteral("…")));
    }

    void legendNeverCoversNodes_data() {
        QTest::addColumn<QSize>("size");
        QTest::newRow("1280x800") << QSize(1280, 800);
        QTest::newRow("1920x1080") << QSize(1920, 1080);
    }
    void legendNeverCoversNodes() {
        QFETCH(QSize, size);
        GraphView view;
        QVERIFY(laidOut(view, loadModel(QStringLiteral("inception_v3")), size));
        view.view()->fit();
        QVERIFY(view.legend()->isVisible());
        const QRect legend = view.legend()->geometry();
        QVERIFY(!legend.isEmpty());
        int visible = 0;
        for (const OperatorItem* item : view.operatorItems()) {
            const QRect r = visibleRect(view, item);
            visible += r.isEmpty() ? 0 : 1;
            QVERIFY2(!r.intersects(legend), qPrintable(item->name()));
        }
        QCOMPARE(visible, static_cast<int>(view.operatorItems().size())); // fit shows them all
        view.setLegendVisible(false);
        QVERIFY(!view.legend()->isVisible());
    }

    void selectedAndStageContextStylesDiffer() {
        GraphView view;
        QVERIFY(laidOut(view, loadModel(QStringLiteral("inception_v3"))));
        view.setSelection({3}, {3, 4, 5}, false);
        const auto& items = view.operatorItems();
        QCOMPARE(items[3]->emphasis(), OperatorItem::Emphasis::Selected); // selected wins
        QCOMPARE(items[4]->emphasis(), OperatorItem::Emphasis::StageContext);
        QCOMPARE(items[6]->emphasis(), OperatorItem::Emphasis::None);
        const QPen selected = items[3]->outlinePen(false), context = items[4]->outlinePen(false),
                   plain = items[6]->outlinePen(false);
        QVERIFY(selected.color() != context.color());
        QVERIFY(selected.style() != context.style() || selected.widthF() != context.widthF());
        QVERIFY(plain.color() != selected.color() && plain.color() != context.color());
        // A click selection draws as "selected" too.
        QCOMPARE(items[6]->outlinePen(true).color(), selected.color());
        // The old entry point is a selection without stage context.
        view.highlightOperators({7}, false);
        QCOMPARE(items[7]->emphasis(), OperatorItem::Emphasis::Selected);
        QCOMPARE(items[4]->emphasis(), OperatorItem::Emphasis::None);
        QSignalSpy clicked(&view, &GraphView::operatorSelected);
        items[9]->setSelected(true);
        QCOMPARE(clicked.size(), 1);
        QCOMPARE(clicked.front().front().toInt(), 9);
    }

    void manyStagesStayDistinct() {
        // One stage per operator on NasNet-A: 374 stages, far beyond any palette.
        const LoadedModelPtr model = loadModel(QStringLiteral("nasnet_large"));
        schedule::Schedule s;
        for (const ir::BlockDag& dag : model->dags()) {
            schedule::BlockSchedule& block = s.blocks.emplace_back();
            for (int op = 0; op < static_cast<int>(dag.ops.size()); ++op)
                block.stages.push_back({schedule::StageKind::Parallel, {{op}}});
        }
        const ScheduleIndex index(*model, s);
        QVERIFY(index.stageCount() >= 107);
        GraphView view;
        QVERIFY(laidOut(view, model));
        view.setSchedule(index);
        const auto& items = view.operatorItems();
        for (size_t i = 0; i + 1 < items.size(); ++i) {
            const OperatorPlacement& a = index.at(static_cast<int>(i));
            const OperatorPlacement& b = index.at(static_cast<int>(i + 1));
            if (model->operators()[i].block != model->operators()[i + 1].block)
                continue;
            QCOMPARE(b.stage, a.stage + 1);
            QVERIFY(items[i]->fill() != items[i + 1]->fill());
            QVERIFY(items[i]->badge() != items[i + 1]->badge()); // "S12" tells repeats apart
        }
        QCOMPARE(items[5]->badge(), QStringLiteral("S%1").arg(index.at(5).stage));
        // The legend lists the ten strong stage colours (not three) and says what follows.
        int stageLines = 0;
        bool repeats = false;
        for (const GraphLegend::Entry& e : view.legend()->entries()) {
            stageLines += e.second.startsWith(QLatin1String("stage S")) ? 1 : 0;
            repeats |= e.second.contains(QLatin1String("repeating"));
        }
        QCOMPARE(stageLines, 10);
        QVERIFY(repeats);
    }

    // The selection outlines share no colour with a stage fill or a kind (issue 32: "selected"
    // was the orange of stage S1), and the legend shows the colours drawn.
    void selectionColoursAreNoStageColour() {
        const QColor selected = selectionColor(), context = stageContextColor();
        for (int k = 0; k < 20; ++k) {
            QVERIFY2(stageColor(k) != selected && stageColor(k) != context,
                     qPrintable(QString::number(k)));
            // Not merely different: far apart (the old amber was 16 away from S1's orange).
            const auto distance = [](QColor a, QColor b) {
                return std::abs(a.red() - b.red()) + std::abs(a.green() - b.green()) +
                       std::abs(a.blue() - b.blue());
            };
            QVERIFY(distance(stageColor(k), selected) > 120);
            QVERIFY(distance(stageColor(k), context) > 120);
        }
        GraphView view;
        QVERIFY(laidOut(view, loadModel(QStringLiteral("inception_v3"))));
        view.setSelection({3}, {3, 4}, false);
        QCOMPARE(view.operatorItems()[3]->outlinePen(false).color(), selected);
        QCOMPARE(view.operatorItems()[4]->outlinePen(false).color(), context);
        bool selectedLine = false, contextLine = false;
        for (const GraphLegend::Entry& e : view.legend()->entries()) {
            selectedLine |= e.first == selected;
            contextLine |= e.first == context;
        }
        QVERIFY(selectedLine && contextLine);
    }

    void impliedEdgesAreTheShortcuts() {
        // 0 → 1 → 2 → 3 with shortcuts 0 → 2 and 0 → 3 (DenseNet's fan-in in miniature).
        LayoutRequest request;
        request.nodeSizes.assign(4, {kNodeWidth, kNodeHeight});
        request.edges = {{0, 1}, {1, 2}, {2, 3}, {0, 2}, {0, 3}};
        QCOMPARE(impliedEdges(request), (std::vector<bool>{false, false, false, true, true}));
        QCOMPARE(estimateVirtualNodes(request), 3LL); // 0 → 2 skips one rank, 0 → 3 two
        QVERIFY(!usesArcsForImpliedEdges(request));   // small: dot routes everything
    }

    void denseNetDrawsImpliedEdgesAsArcsBesideTheNodes() {
        const ModelGraph mg = buildModelGraph(*loadModel(kDenseNet));
        QVERIFY(usesArcsForImpliedEdges(mg.layout));
        const GraphLayout layout = computeLayout(mg.layout);
        const std::vector<bool> implied = impliedEdges(mg.layout);
        QCOMPARE(layout.edgeSplines.size(), mg.layout.edges.size());
        int arcs = 0;
        for (size_t e = 0; e < implied.size(); ++e) {
            const QPolygonF& spline = layout.edgeSplines[e];
            QVERIFY(spline.size() >= 2); // every edge is drawn
            if (!implied[e])
                continue;
            QCOMPARE(spline.size(), 4); // one cubic
            ++arcs;
            // The bows lie right of both ends' boxes: arcs never run through the column.
            const auto [from, to] = mg.layout.edges[e];
            const double right = std::max(layout.centers[static_cast<size_t>(from)].x(),
                                          layout.centers[static_cast<size_t>(to)].x()) +
                                 kNodeWidth / 2;
            QVERIFY(spline[1].x() > right && spline[2].x() > right);
            QVERIFY(layout.bounds.contains(spline[1]));
        }
        QVERIFY(arcs > 300); // the dense fan-in
    }

    void denseNetLaysOutAndOpensCentred() {
        const LoadedModelPtr model = loadModel(kDenseNet);
        QVERIFY(estimateVirtualNodes(buildModelGraph(*model).layout) > 4000); // the slow shape
        GraphView view;
        QVERIFY(laidOut(view, model));
        QCOMPARE(static_cast<int>(view.operatorItems().size()), model->operatorCount());
        QGraphicsView* gv = view.view();
        const QRectF graph = view.scene()->itemsBoundingRect();
        const QPointF centre = gv->mapToScene(gv->viewport()->rect().center());
        // Tall graph: fitted to the width, centred horizontally, starting at the top.
        QVERIFY2(std::abs(centre.x() - graph.center().x()) < 0.02 * graph.width(),
                 qPrintable(QStringLiteral("%1 vs %2").arg(centre.x()).arg(graph.center().x())));
        const QRectF shown = gv->mapToScene(gv->viewport()->rect()).boundingRect();
        QVERIFY(shown.left() <= graph.left() + 1 && shown.right() >= graph.right() - 1);
        QVERIFY(shown.top() <= graph.top() + 30);
    }

    void bigCountsNeverPrintInf() {
        BigUint huge(1);
        for (int i = 0; i < 40; ++i)
            huge *= BigUint(1000000000ULL); // 10^360: beyond a double
        QCOMPARE(formatBigCount(huge), QStringLiteral("1.00×10^360"));
        QCOMPARE(formatBigCount(BigUint(27742)), QStringLiteral("27,742"));
        QCOMPARE(formatCount(std::numeric_limits<double>::infinity()), QStringLiteral("> 1e308"));
    }

    void shortcutsAreListed() {
        const auto keys = GraphView::shortcutHelp();
        QVERIFY(keys.size() >= 5);
        bool find = false;
        for (const auto& [key, action] : keys)
            find |= key == QLatin1String("Ctrl+F");
        QVERIFY(find);
    }
};

QTEST_MAIN(TestGraphView)
#include "tst_graph_view.moc"
