#include "state_space_view.h"

#include "palette.h"
#include "units.h"

#include <QComboBox>
#include <QHBoxLayout>
#include <QHelpEvent>
#include <QLabel>
#include <QMouseEvent>
#include <QPainter>
#include <QToolTip>
#include <QVBoxLayout>
#include <algorithm>
#include <functional>

namespace ios::views {

// The drawing surface: positions are recomputed on resize from the layer structure.
class StateSpaceCanvas : public QWidget {
public:
    explicit StateSpaceCanvas(QWidget* parent) : QWidget(parent) { setMouseTracking(true); }

    std::shared_ptr<const schedulers::StateSpaceIndex> index;
    const schedulers::PartStateSpace* shown = nullptr; // a part of `index`
    int selected = -1;                                 // entry of shown->states
    std::function<void(int)> onSelect;

    void load(const schedulers::PartStateSpace* part) {
        shown = part;
        selected = -1;
        update();
    }

    QRectF plot(const QRect& area) const { return QRectF(area).adjusted(60, 56, -20, -64); }

    double layerX(int l, const QRectF& r) const {
        return r.left() + r.width() * l / std::max(shown->partSize, 1);
    }

    QPointF position(size_t i, const QRectF& r) const {
        const int l = shown->layer[i];
        const int n = shown->layerSize[static_cast<size_t>(l)];
        return {layerX(l, r), r.top() + r.height() * (shown->rank[i] + 0.5) / std::max(n, 1)};
    }

    void render(QPainter& p, const QRect& area) const {
        p.fillRect(area, QColor(0xfc, 0xfc, 0xfc));
        QFont f = p.font();
        f.setPixelSize(12);
        p.setFont(f);
        if (!shown || shown->states.empty()) {
            p.setPen(Qt::darkGray);
            p.drawText(area, Qt::AlignCenter,
                       QObject::tr("Run an IOS strategy to record its state space."));
            return;
        }
        const schedulers::StateSpace& space = *index->space;
        const int partSize = shown->partSize;
        p.setRenderHint(QPainter::Antialiasing, true);
        const QRectF r = plot(area);
        // Layer axis.
        for (int l = 0; l <= partSize; ++l) {
            const double x = layerX(l, r);
            p.setPen(QColor(0xe6, 0xe6, 0xe6));
            p.drawLine(QPointF(x, r.top()), QPointF(x, r.bottom()));
            if (partSize <= 40 || l % 5 == 0) {
                p.setPen(QColor(0x50, 0x50, 0x50));
                p.drawText(QRectF(x - 20, r.bottom() + 4, 40, 16), Qt::AlignHCenter,
                           QString::number(l));
            }
        }
        const bool aggregate = shown->transitions.size() > StateSpaceView::kMaxDrawnEdges;
        p.drawText(QRectF(r.left() - 50, r.bottom() + 22, r.width() + 60, 36),
                   Qt::AlignHCenter | Qt::TextWordWrap,
                   aggregate ? QObject::tr("operators scheduled (layer) →; each band: the "
                                           "transitions between two layers (stages of k ops), "
                                           "with their count; colour = cost(S)")
                             : QObject::tr("operators scheduled (layer) →; states sorted by "
                                           "remaining cost within a layer, colour = cost(S)"));
        auto edge = [&](size_t k) {
            p.drawLine(position(static_cast<size_t>(shown->from[k]), r),
                       position(static_cast<size_t>(shown->to[k]), r));
        };
        if (aggregate) {
            // One band per pair of layers (precomputed off the UI thread), with its count.
            uint64_t maxCount = 1;
            for (const auto& band : shown->bands)
                maxCount = std::max(maxCount, band.count);
            auto bandY = [&](int ops) {
                return r.top() + r.height() * (0.1 + 0.8 * (ops - 1) / std::max(partSize - 1, 1));
            };
            std::vector<bool> labelled(static_cast<size_t>(partSize) + 1, false);
            for (const auto& band : shown->bands) {
                const int ops = band.toLayer - band.fromLayer;
                const double y = bandY(ops);
                if (ops >= 0 && !labelled[static_cast<size_t>(ops)]) {
                    labelled[static_cast<size_t>(ops)] = true;
                    p.setPen(QColor(0x30, 0x30, 0x30));
                    p.drawText(QRectF(area.left() + 2, y - 8, 56, 16),
                               Qt::AlignLeft | Qt::AlignVCenter, QObject::tr("%1-op").arg(ops));
                }
                const double x0 = layerX(band.fromLayer, r);
                const double x1 = layerX(band.toLayer, r);
                p.setPen(
                    QPen(QColor(0x1f, 0x77, 0xb4, 60), 1 + 8.0 * static_cast<double>(band.count) /
                                                               static_cast<double>(maxCount)));
                p.drawLine(QPointF(x0, y), QPointF(x1, y));
                if (x1 - x0 > 40) {
                    p.setPen(QColor(0x30, 0x30, 0x30));
                    p.drawText(QPointF((x0 + x1) / 2 - 14, y - 4),
                               formatCount(static_cast<double>(band.count)));
                }
            }
        } else {
            p.setPen(QPen(QColor(0x80, 0x80, 0x80, 50), 1));
            for (size_t k = 0; k < shown->transitions.size(); ++k)
                if (shown->to[k] >= 0)
                    edge(k);
        }
        // The optimal schedule's path, drawn over everything.
        p.setPen(QPen(QColor(0xd6, 0x27, 0x28), 3));
        for (uint32_t k : shown->path)
            if (shown->to[k] >= 0)
                edge(k);
        const size_t n = shown->states.size();
        const double radius = n > 3000 ? 1.5 : n > 500 ? 2.5 : 4.5;
        const double maxCost = shown->maxCostMs;
        p.setPen(Qt::NoPen);
        for (size_t i = 0; i < n; ++i) {
            const double cost = space.states[shown->states[i]].costMs;
            p.setBrush(heatColor(maxCost > 0 ? cost / maxCost : 0));
            p.drawEllipse(position(i, r), radius, radius);
        }
        if (selected >= 0) {
            p.setPen(QPen(Qt::black, 2));
            p.setBrush(Qt::NoBrush);
            p.drawEllipse(position(static_cast<size_t>(selected), r), radius + 4, radius + 4);
        }
        p.setPen(QColor(0x20, 0x20, 0x20));
        f.setBold(true);
        f.setPixelSize(14);
        p.setFont(f);
        p.drawText(QRectF(area.left() + 8, area.top() + 4, area.width() - 16, 44),
                   Qt::AlignLeft | Qt::TextWordWrap,
                   QObject::tr("Block %1, part %2: %3 operators, %4 states, %5 transitions%6 — "
                               "red: optimal schedule")
                       .arg(shown->block)
                       .arg(shown->part)
                       .arg(partSize)
                       .arg(formatCount(static_cast<double>(n)),
                            formatCount(static_cast<double>(shown->transitions.size())),
                            aggregate ? QObject::tr(" (aggregated between layers)") : QString()));
    }

    int stateAt(const QPointF& pos) const {
        if (!shown)
            return -1;
        const QRectF r = plot(rect());
        int best = -1;
        double bestD = 64;
        for (size_t i = 0; i < shown->states.size(); ++i) {
            const QPointF d = position(i, r) - pos;
            const double dd = d.x() * d.x() + d.y() * d.y();
            if (dd < bestD) {
                bestD = dd;
                best = static_cast<int>(i);
            }
        }
        return best;
    }

protected:
    void paintEvent(QPaintEvent*) override {
        QPainter p(this);
        render(p, rect());
    }
    void mousePressEvent(QMouseEvent* e) override {
        selected = stateAt(e->position());
        if (onSelect)
            onSelect(selected);
        update();
    }
    bool event(QEvent* e) override {
        if (e->type() == QEvent::ToolTip) {
            auto* help = static_cast<QHelpEvent*>(e);
            const int i = stateAt(help->pos());
            if (i >= 0) {
                const auto k = static_cast<size_t>(i);
                const auto& st = index->space->states[shown->states[k]];
                QToolTip::showText(
                    help->globalPos(),
                    QObject::tr("%1 operators left, cost(S) = %2\nclick: its endings")
                        .arg(shown->partSize - shown->layer[k])
                        .arg(formatMs(st.costMs)),
                    this);
            } else {
                QToolTip::hideText();
            }
            return true;
        }
        return QWidget::event(e);
    }
};

StateSpaceView::StateSpaceView(QWidget* parent) : QWidget(parent) {
    partBox_ = new QComboBox(this);
    partBox_->setToolTip(tr("The DP part whose state space is shown"));
    partBox_->setMinimumContentsLength(30);
    details_ = new QLabel(tr("Click a state to list its candidate stages (endings)."), this);
    details_->setWordWrap(true);
    details_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    details_->setMinimumWidth(200);
    details_->setMaximumWidth(320);
    details_->setAlignment(Qt::AlignTop | Qt::AlignLeft);
    canvas_ = new StateSpaceCanvas(this);
    auto* bar = new QHBoxLayout;
    bar->setContentsMargins(6, 4, 6, 4);
    bar->addWidget(new QLabel(tr("Part:"), this));
    bar->addWidget(partBox_);
    bar->addStretch(1);
    auto* body = new QHBoxLayout;
    body->addWidget(canvas_, 1);
    body->addWidget(details_);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addLayout(bar);
    layout->addLayout(body, 1);
    connect(partBox_, &QComboBox::currentIndexChanged, this, [this](int i) {
        if (i < 0)
            return;
        const QPoint bp = partBox_->itemData(i).toPoint();
        showPart(bp.x(), bp.y());
    });
    canvas_->onSelect = [this](int i) { showEndings(i); };
}

void StateSpaceView::showEndings(int entry) {
    const schedulers::PartStateSpace* part = canvas_->shown;
    if (entry < 0 || !model_ || !part)
        return;
    const schedulers::StateSpace& space = *index_->space;
    const auto k = static_cast<size_t>(entry);
    const auto& ops =
        space.partOps[static_cast<size_t>(part->block)][static_cast<size_t>(part->part)];
    QString text = tr("<b>State</b>: %1 operators left, cost %2<br><b>Endings</b>:")
                       .arg(part->partSize - part->layer[k])
                       .arg(formatMs(space.states[part->states[k]].costMs));
    int shown = 0;
    for (size_t t = 0; t < part->transitions.size(); ++t) {
        if (part->from[t] != entry)
            continue;
        if (++shown > 40) {
            text += tr("<br>…");
            break;
        }
        const auto& edge = space.transitions[part->transitions[t]];
        QStringList names;
        for (int bit = 0; bit < static_cast<int>(ops.size()); ++bit) {
            const auto word = static_cast<size_t>(bit / 64);
            const uint64_t mask = uint64_t{1} << (bit % 64);
            const bool before = space.states[edge.from].remaining[word] & mask;
            const bool after = space.states[edge.to].remaining[word] & mask;
            if (before && !after)
                names << QString::fromStdString(
                    model_->node({part->block, ops[static_cast<size_t>(bit)]}).name);
        }
        text += QStringLiteral("<br>%1 {%2} %3")
                    .arg(edge.kind == schedule::StageKind::Merge ? tr("merge") : tr("parallel"),
                         names.join(QStringLiteral(", ")), formatMs(edge.latencyMs));
    }
    details_->setText(text);
}

void StateSpaceView::setStateSpace(LoadedModelPtr model,
                                   std::shared_ptr<const schedulers::StateSpace> space) {
    setStateSpace(std::move(model),
                  space ? schedulers::indexStateSpace(std::move(space)) : nullptr);
}

void StateSpaceView::setStateSpace(LoadedModelPtr model,
                                   std::shared_ptr<const schedulers::StateSpaceIndex> index) {
    model_ = std::move(model);
    index_ = index && index->space ? std::move(index) : nullptr;
    canvas_->index = index_;
    canvas_->load(nullptr);
    fillPartBox();
}

void StateSpaceView::fillPartBox() {
    const QSignalBlocker block(partBox_);
    partBox_->clear();
    if (!index_)
        return;
    // Default: the part with the most recorded transitions (the "Table 1" part).
    for (const schedulers::PartStateSpace& part : index_->parts)
        partBox_->addItem(tr("block %1, part %2 (%3 ops, %4 transitions)")
                              .arg(part.block)
                              .arg(part.part)
                              .arg(part.partSize)
                              .arg(part.transitions.size()),
                          QPoint(part.block, part.part));
    if (index_->parts.empty())
        return;
    const auto& busiest = index_->parts[index_->busiest];
    partBox_->setCurrentIndex(static_cast<int>(index_->busiest));
    showPart(busiest.block, busiest.part);
}

bool StateSpaceView::showPart(int block, int part) {
    const int entry = index_ ? index_->find(block, part) : -1;
    if (entry < 0)
        return false;
    canvas_->load(&index_->parts[static_cast<size_t>(entry)]);
    details_->setText(tr("Click a state to list its candidate stages (endings).%1")
                          .arg(index_->space->truncated ? tr("<br><i>Recording truncated: the "
                                                             "search had more transitions.</i>")
                                                        : QString()));
    return true;
}

void StateSpaceView::render(QPainter& painter, const QRect& area) const {
    canvas_->render(painter, area);
}

} // namespace ios::views
