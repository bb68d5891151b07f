// SPDX-License-Identifier: Apache-2.0
#include "graph_view.h"

#include "graph_labels.h"
#include "graph_legend.h"
#include "operator_item.h"
#include "operator_query.h"
#include "palette.h"
#include "units.h"

#include <QComboBox>
#include <QGraphicsRectItem>
#include <QGraphicsScene>
#include <QGraphicsSimpleTextItem>
#include <QHBoxLayout>
#include <QHelpEvent>
#include <QKeyEvent>
#include <QLabel>
#include <QLineEdit>
#include <QMap>
#include <QPushButton>
#include <QScrollBar>
#include <QShortcut>
#include <QToolButton>
#include <QToolTip>
#include <QVBoxLayout>
#include <QWheelEvent>
#include <QtConcurrent/QtConcurrentRun>
#include <algorithm>
#include <cmath>

namespace ios::views {

namespace {

// Layouts are pure functions of the model's structure: keep them for the session, so
// switching models back and forth is instant.
QMap<QString, std::shared_ptr<const GraphLayout>>& layoutCache() {
    static QMap<QString, std::shared_ptr<const GraphLayout>> cache;
    return cache;
}

QString cacheKey(const LoadedModel& m) {
    return QStringLiteral("%1#%2#%3").arg(m.source()).arg(m.maxPartSize()).arg(m.operatorCount());
}

} // namespace

ZoomableGraphicsView::ZoomableGraphicsView(QWidget* parent) : QGraphicsView(parent) {
    setDragMode(ScrollHandDrag);
    setTransformationAnchor(AnchorUnderMouse);
    setRenderHints(QPainter::Antialiasing | QPainter::TextAntialiasing);
    setViewportUpdateMode(SmartViewportUpdate);
    setBackgroundBrush(QColor(0xfa, 0xfa, 0xfa));
}

void ZoomableGraphicsView::fit() {
    if (scene())
        fitInView(scene()->itemsBoundingRect().adjusted(-20, -20, 20, 20), Qt::KeepAspectRatio);
    Q_EMIT zoomChanged(transform().m11());
}

void ZoomableGraphicsView::fitWidth() {
    if (!scene())
        return;
    // Tall graphs (a chain of blocks) become unreadable when fitted whole: fill the width,
    // at most 1:1, and start at the top.
    const QRectF all = scene()->itemsBoundingRect().adjusted(-20, -20, 20, 20);
    const double byWidth = viewport()->width() / all.width();
    const double byHeight = viewport()->height() / all.height();
    if (byHeight >= 0.45 * byWidth) {
        fit();
        return;
    }
    const double s = std::min(byWidth, 1.0);
    setTransform(QTransform::fromScale(s, s));
    centerOn(all.center().x(), all.top() + viewport()->height() / (2 * s));
    Q_EMIT zoomChanged(s);
}

void ZoomableGraphicsView::zoomBy(double factor) {
    const double next = transform().m11() * factor;
    if (next < 0.01 || next > 8.0)
        return;
    scale(factor, factor);
    Q_EMIT zoomChanged(next);
}

void ZoomableGraphicsView::wheelEvent(QWheelEvent* event) {
    zoomBy(std::pow(1.0015, event->angleDelta().y()));
    event->accept();
}

void ZoomableGraphicsView::keyPressEvent(QKeyEvent* event) {
    switch (event->key()) {
    case Qt::Key_Plus:
    case Qt::Key_Equal:
        zoomBy(1.25);
        return;
    case Qt::Key_Minus:
        zoomBy(0.8);
        return;
    case Qt::Key_0:
    case Qt::Key_F:
        fit();
        return;
    default:
        QGraphicsView::keyPressEvent(event);
    }
}

GraphView::GraphView(QWidget* parent) : QWidget(parent) {
    scene_ = new QGraphicsScene(this);
    view_ = new ZoomableGraphicsView(this);
    view_->setObjectName(QStringLiteral("graphView"));
    view_->setScene(scene_);
    view_->viewport()->installEventFilter(this);
    legend_ = new GraphLegend(this);

    search_ = new QLineEdit(this);
    search_->setPlaceholderText(tr("Find: name, type:conv kernel:3x3… (Ctrl+F)"));
    search_->setToolTip(
        tr("Find operators (Enter: next match). Words match the name, the type on the node or "
           "the kind; fields narrow it: type:concat, name:mixed_5b, kernel:3x3 (or k:3), "
           "stride:2, shape:17x17, block:3, stage:2. All terms must match."));
    search_->setClearButtonEnabled(true);
    search_->setMinimumWidth(140);
    search_->setMaximumWidth(300);
    colorBox_ = new QComboBox(this);
    colorBox_->addItem(tr("Colour by stage"));
    colorBox_->addItem(tr("Colour by kind"));
    colorBox_->setToolTip(tr("Fill operators by schedule stage or by operator kind"));
    auto* fit = new QPushButton(tr("Fit"), this);
    fit->setToolTip(tr("Fit the whole graph (F); wheel zooms, drag pans"));
    legendButton_ = new QToolButton(this);
    legendButton_->setText(tr("Legend"));
    legendButton_->setCheckable(true);
    legendButton_->setChecked(true);
    legendButton_->setToolTip(tr("Show or hide the legend beside the graph (L)"));
    info_ = new QLabel(this);
    info_->setMinimumWidth(1); // the counts are cut, never the controls, in a narrow window

    auto* bar = new QHBoxLayout;
    bar->setContentsMargins(4, 2, 4, 2);
    bar->addWidget(search_);
    bar->addWidget(colorBox_);
    bar->addWidget(fit);
    bar->addWidget(legendButton_);
    bar->addStretch(1);
    bar->addWidget(info_);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->setSpacing(0);
    layout->addLayout(bar);
    // The legend is a strip beside the view, outside the scene area: it can never hide a node.
    auto* body = new QHBoxLayout;
    body->setContentsMargins(0, 0, 0, 0);
    body->setSpacing(0);
    body->addWidget(view_, 1);
    body->addWidget(legend_);
    layout->addLayout(body, 1);

    auto* find = new QShortcut(QKeySequence::Find, this);
    find->setContext(Qt::WidgetWithChildrenShortcut);
    connect(find, &QShortcut::activated, this, [this] {
        search_->setFocus();
        search_->selectAll();
    });
    auto* toggleLegend = new QShortcut(QKeySequence(Qt::Key_L), view_);
    toggleLegend->setContext(Qt::WidgetShortcut);
    connect(toggleLegend, &QShortcut::activated, legendButton_, &QToolButton::toggle);
    connect(legendButton_, &QToolButton::toggled, this, &GraphView::setLegendVisible);
    auto* clear = new QShortcut(QKeySequence(Qt::Key_Escape), view_);
    clear->setContext(Qt::WidgetShortcut);
    connect(clear, &QShortcut::activated, this, [this] {
        scene_->clearSelection();
        setSelection({}, {}, false);
    });
    connect(view_, &ZoomableGraphicsView::zoomChanged, this, [this] { pendingFit_ = false; });

    connect(search_, &QLineEdit::returnPressed, this, [this] { findOperator(search_->text()); });
    // An edited query starts over, and an old "no match" goes.
    connect(search_, &QLineEdit::textEdited, this, [this] {
        findQuery_.clear();
        info_->setText(countsText_);
    });
    connect(colorBox_, &QComboBox::currentIndexChanged, this,
            [this](int i) { setColorMode(i == 0 ? ColorMode::Stage : ColorMode::Kind); });
    connect(fit, &QPushButton::clicked, view_, &ZoomableGraphicsView::fit);
    connect(scene_, &QGraphicsScene::selectionChanged, this, [this] {
        const auto selected = scene_->selectedItems();
        if (selected.size() == 1 && selected.first()->type() == OperatorItem::Type)
            Q_EMIT operatorSelected(static_cast<OperatorItem*>(selected.first())->flatIndex());
    });
    connect(&watcher_, &QFutureWatcher<std::shared_ptr<const GraphLayout>>::finished, this, [this] {
        const quint64 job = watcher_.property("job").toULongLong();
        if (job != layoutJob_)
            return; // a newer model replaced this one
        std::shared_ptr<const GraphLayout> computed;
        try {
            computed = watcher_.result();
        } catch (const std::exception& e) {
            info_->setText(tr("Layout failed: %1").arg(QString::fromUtf8(e.what())));
            return;
        }
        if (model_)
            layoutCache().insert(cacheKey(*model_), computed);
        buildScene(computed);
    });
}

GraphView::~GraphView() {
    watcher_.waitForFinished();
}

void GraphView::setModel(LoadedModelPtr model) {
    model_ = std::move(model);
    schedule_ = {};
    graph_ = model_ ? buildModelGraph(*model_) : ModelGraph{};
    names_ = model_ ? std::make_shared<const ir::NodeIndex>(model_->graph()) : nullptr;
    startLayout();
}

void GraphView::startLayout() {
    ++layoutJob_;
    layoutReady_ = false;
    items_.clear();
    scene_->clear();
    if (!model_)
        return;
    if (auto cached = layoutCache().value(cacheKey(*model_))) {
        buildScene(cached);
        return;
    }
    info_->setText(tr("Laying out %1 operators…").arg(model_->operatorCount()));
    LayoutRequest request = graph_.layout;
    watcher_.setProperty("job", layoutJob_);
    watcher_.setFuture(QtConcurrent::run([request = std::move(request)] {
        return std::make_shared<const GraphLayout>(computeLayout(request));
    }));
}

void GraphView::buildScene(const std::shared_ptr<const GraphLayout>& layout) {
    scene_->clear();
    items_.clear();
    const ModelGraph& mg = graph_;
    // Block / part outlines first, behind everything.
    for (size_t c = 0; c < layout->clusterRects.size(); ++c) {
        const bool isPart = mg.layout.clusterParent[c] >= 0;
        auto* rect =
            scene_->addRect(layout->clusterRects[c],
                            QPen(isPart ? QColor(0x9a, 0x9a, 0xc8) : QColor(0x80, 0x80, 0x80),
                                 isPart ? 1.0 : 1.5, isPart ? Qt::DotLine : Qt::DashLine),
                            isPart ? QColor(0xf0, 0xf0, 0xfa) : QColor(0xff, 0xff, 0xff));
        rect->setZValue(isPart ? -9 : -10);
        auto* label = scene_->addSimpleText(mg.layout.clusterLabels[c]);
        QFont f = label->font();
        f.setPixelSize(12);
        label->setFont(f);
        label->setBrush(QColor(0x60, 0x60, 0x60));
        label->setPos(layout->clusterRects[c].topLeft() + QPointF(4, -16));
        label->setZValue(-8);
    }
    QPen edgePen(QColor(0x70, 0x70, 0x70), 1.2);
    for (const QPolygonF& spline : layout->edgeSplines) {
        if (spline.size() < 2)
            continue;
        QPainterPath path(spline.front());
        for (qsizetype k = 1; k + 2 < spline.size(); k += 3)
            path.cubicTo(spline[k], spline[k + 1], spline[k + 2]);
        auto* item = scene_->addPath(path, edgePen);
        item->setZValue(-1);
        // Arrow head at the target end.
        const QPointF tip = spline.back(), from = spline[spline.size() - 2];
        const QLineF dir(tip, from);
        QLineF a = dir, b = dir;
        a.setLength(8);
        b.setLength(8);
        a.setAngle(dir.angle() + 25);
        b.setAngle(dir.angle() - 25);
        scene_->addPolygon(QPolygonF({tip, a.p2(), b.p2()}), Qt::NoPen, QColor(0x70, 0x70, 0x70))
            ->setZValue(-1);
    }
    for (int i = 0; i < model_->operatorCount(); ++i) {
        const ir::Node& node = model_->node(model_->operators()[static_cast<size_t>(i)]);
        const auto& m = model_->metrics(i);
        QString detail = formatShape(node.outputShape);
        if (const QString params = operatorParams(node); !params.isEmpty())
            detail += QStringLiteral(" · ") + params;
        if (m.flops > 0)
            detail += QStringLiteral(" · ") + formatFlops(static_cast<double>(m.flops));
        auto* item =
            new OperatorItem(i, {operatorTitle(node), detail, QString::fromStdString(node.name)},
                             kindColor(node.kind), {kNodeWidth, kNodeHeight});
        item->setPos(layout->centers[static_cast<size_t>(i)]);
        scene_->addItem(item);
        items_.push_back(item);
    }
    scene_->setSceneRect(layout->bounds.adjusted(-40, -40, 40, 40));
    applyColors();
    layoutReady_ = true;
    countsText_ = tr("%1 operators, %2 edges").arg(items_.size()).arg(layout->edgeSplines.size());
    info_->setText(countsText_);
    findQuery_.clear();
    pendingFit_ = true;
    fitIfPending();
    Q_EMIT layoutReady();
}

void GraphView::setSchedule(const ScheduleIndex& index) {
    schedule_ = index;
    applyColors();
}

void GraphView::setColorMode(ColorMode mode) {
    mode_ = mode;
    colorBox_->setCurrentIndex(mode == ColorMode::Stage ? 0 : 1);
    applyColors();
}

void GraphView::setCustomColors(std::vector<QColor> fills,
                                std::vector<std::pair<QColor, QString>> legend) {
    customFills_ = std::move(fills);
    customLegend_ = std::move(legend);
    applyColors();
}

void GraphView::applyColors() {
    const bool byStage = mode_ == ColorMode::Stage && !schedule_.isEmpty();
    for (OperatorItem* item : items_) {
        const ir::Node& node =
            model_->node(model_->operators()[static_cast<size_t>(item->flatIndex())]);
        const auto flat = static_cast<size_t>(item->flatIndex());
        if (flat < customFills_.size() && customFills_[flat].isValid()) {
            item->setFill(customFills_[flat], {});
            continue;
        }
        if (!byStage) {
            item->setFill(kindColor(node.kind), {});
            continue;
        }
        const OperatorPlacement& p = schedule_.at(item->flatIndex());
        const QString badge = p.stage < 0
                                  ? QString()
                                  : (p.kind == schedule::StageKind::Merge ? QStringLiteral("S%1 M")
                                                                          : QStringLiteral("S%1"))
                                        .arg(p.stage);
        item->setFill(p.stage < 0 ? QColor(Qt::lightGray) : stageColor(p.stage), badge);
    }
    updateLegend();
    view_->viewport()->update();
}

void GraphView::setSelection(const std::vector<int>& selected, const std::vector<int>& stageContext,
                             bool center) {
    for (OperatorItem* item : items_)
        item->setEmphasis(OperatorItem::Emphasis::None);
    QRectF area;
    auto mark = [&](const std::vector<int>& indices, OperatorItem::Emphasis emphasis) {
        for (int i : indices) {
            if (i < 0 || i >= static_cast<int>(items_.size()))
                continue;
            OperatorItem* item = items_[static_cast<size_t>(i)];
            if (item->emphasis() == OperatorItem::Emphasis::Selected)
                continue; // selected wins over stage context
            item->setEmphasis(emphasis);
            area |= item->sceneBoundingRect();
        }
    };
    mark(selected, OperatorItem::Emphasis::Selected);
    mark(stageContext, OperatorItem::Emphasis::StageContext);
    if (center && !area.isEmpty()) {
        pendingFit_ = false;
        view_->centerOn(area.center());
    }
}

void GraphView::highlightOperators(const std::vector<int>& flatIndices, bool center) {
    setSelection(flatIndices, {}, center);
}

QString GraphView::operatorToolTip(int flatIndex) const {
    if (!model_ || !names_ || flatIndex < 0 || flatIndex >= model_->operatorCount())
        return {};
    const OperatorRef ref = model_->operators()[static_cast<size_t>(flatIndex)];
    OperatorContext context;
    context.block = ref.block;
    context.part = graph_.nodePart[static_cast<size_t>(flatIndex)];
    if (!schedule_.isEmpty())
        context.placement = &schedule_.at(flatIndex);
    return operatorTooltip(model_->node(ref), model_->metrics(flatIndex), *names_, context);
}

std::vector<std::pair<QString, QString>> GraphView::shortcutHelp() {
    return {{tr("F or 0"), tr("Fit the whole graph")},
            {tr("+ / −"), tr("Zoom in / out")},
            {tr("Wheel"), tr("Zoom around the cursor")},
            {tr("Drag"), tr("Pan")},
            {tr("Ctrl+F"), tr("Find operators by name, type or attribute, e.g. type:conv "
                              "kernel:3x3 (Enter: next match)")},
            {tr("L"), tr("Show or hide the legend")},
            {tr("Esc"), tr("Clear the selection")},
            {tr("Click"), tr("Select an operator in every view")}};
}

void GraphView::setCompact(bool compact) {
    colorBox_->setVisible(!compact);
    info_->setVisible(!compact);
    search_->setMinimumWidth(compact ? 40 : 140);
    search_->setSizePolicy(compact ? QSizePolicy::Ignored : QSizePolicy::Expanding,
                           QSizePolicy::Fixed);
    setLegendVisible(!compact);
}

void GraphView::setLegendVisible(bool visible) {
    legend_->setVisible(visible);
    if (legendButton_->isChecked() != visible)
        legendButton_->setChecked(visible);
}

void GraphView::fitIfPending() {
    // Only with a real viewport: fitting a hidden or not-yet-sized view centres on nothing.
    if (!pendingFit_ || !layoutReady_ || !view_->isVisible() || view_->viewport()->width() < 50)
        return;
    view_->fitWidth();
    pendingFit_ = true; // zoomChanged cleared it; keep fitting until the user moves the view
}

void GraphView::resizeEvent(QResizeEvent* event) {
    QWidget::resizeEvent(event);
    fitIfPending();
}

void GraphView::showEvent(QShowEvent* event) {
    QWidget::showEvent(event);
    fitIfPending();
}

bool GraphView::eventFilter(QObject* watched, QEvent* event) {
    if (watched == view_->viewport() && event->type() == QEvent::ToolTip) {
        auto* help = static_cast<QHelpEvent*>(event);
        for (QGraphicsItem* item : view_->items(help->pos()))
            if (item->type() == OperatorItem::Type) {
                QToolTip::showText(help->globalPos(),
                                   operatorToolTip(static_cast<OperatorItem*>(item)->flatIndex()),
                                   view_);
                return true;
            }
        QToolTip::hideText();
        return true;
    }
    return QWidget::eventFilter(watched, event);
}

bool GraphView::findOperator(const QString& text) {
    const QString query = text.trimmed();
    if (query.isEmpty() || !model_ || items_.empty())
        return false;
    // The same query again (Enter): the next match.
    if (query != findQuery_) {
        const OperatorQuery parsed(query);
        if (!parsed.error().isEmpty()) {
            info_->setText(parsed.error());
            return false;
        }
        findQuery_ = query;
        findHits_ = findOperators(*model_, schedule_, parsed, query);
        findNext_ = 0;
    }
    if (findHits_.empty()) {
        info_->setText(tr("No operator matches '%1'").arg(query));
        return false;
    }
    const int flat = findHits_[findNext_ % findHits_.size()];
    info_->setText(tr("Match %1 of %2 (Enter: next)")
                       .arg(findNext_ % findHits_.size() + 1)
                       .arg(findHits_.size()));
    ++findNext_;
    OperatorItem* hit = nullptr;
    for (OperatorItem* item : items_)
        if (item->flatIndex() == flat)
            hit = item;
    if (hit == nullptr)
        return false;
    scene_->clearSelection();
    hit->setSelected(true); // selects it in every view (operatorSelected)
    pendingFit_ = false;
    if (view_->transform().m11() < 0.6)
        view_->setTransform(QTransform::fromScale(1.0, 1.0));
    view_->centerOn(hit);
    return true;
}

void GraphView::updateLegend() {
    std::vector<GraphLegend::Entry> entries = customLegend_;
    if (!entries.empty())
        entries.push_back({Qt::transparent, QString()});
    if (mode_ == ColorMode::Stage && !schedule_.isEmpty()) {
        // Short lines: the strip takes width from the graph (160 px at 1280×800). Every
        // colour used, up to the ten strong ones; past those the palette's lighter variants
        // and then repeats, which the node's badge tells apart.
        const std::vector<int>& first = schedule_.blockFirstStage();
        int stages = 0;
        for (size_t b = 0; b < first.size(); ++b)
            stages = std::max(
                stages, (b + 1 < first.size() ? first[b + 1] : schedule_.stageCount()) - first[b]);
        for (int k = 0; k < std::min(stages, 10); ++k)
            entries.push_back({stageColor(k), tr("stage S%1 in block").arg(k)});
        if (stages > 10)
            entries.push_back({Qt::transparent, tr("S10–S19 lighter, then")});
        if (stages > 10)
            entries.push_back({Qt::transparent, tr("repeating (see badge)")});
        entries.push_back({Qt::transparent, tr("M = merged")});
        entries.push_back({Qt::transparent, tr("left strip: kind")});
    }
    for (ir::NodeKind k :
         {ir::NodeKind::Conv, ir::NodeKind::Pool, ir::NodeKind::Identity, ir::NodeKind::Relu,
          ir::NodeKind::Activation, ir::NodeKind::Element, ir::NodeKind::Norm, ir::NodeKind::Matmul,
          ir::NodeKind::Tokens, ir::NodeKind::Sequential})
        entries.push_back({kindColor(k), kindLabel(k)});
    entries.push_back({Qt::transparent, QString()});
    entries.push_back({selectionColor(), tr("selected (outline)")});
    entries.push_back({stageContextColor(), tr("rest of its stage")});
    legend_->setEntries(std::move(entries));
}

void GraphView::renderPicture(QPainter& painter, const QRect& area) {
    scene_->render(&painter, QRectF(area), scene_->itemsBoundingRect());
}

QSize GraphView::pictureSize() {
    const QSizeF s = scene_->itemsBoundingRect().size();
    return s.isEmpty() ? ResultView::pictureSize() : s.toSize();
}

QWidget* GraphView::keyTarget() {
    return view_;
}

QString GraphView::infoText() const {
    return info_->text();
}

} // namespace ios::views
