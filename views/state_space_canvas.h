// SPDX-License-Identifier: Apache-2.0
// The state-space view's drawing surface (state_space_view.h; used by it alone): states in
// layers, transitions one by one or aggregated into bands, the optimal path, the marks of the
// selected operators; positions are recomputed from the layer structure on every paint.
#pragma once

#include "palette.h"
#include "schedulers/state_space_index.h"
#include "state_space_view.h"
#include "units.h"

#include <QHelpEvent>
#include <QMouseEvent>
#include <QPainter>
#include <QToolTip>
#include <QWidget>
#include <algorithm>
#include <array>
#include <cmath>
#include <functional>
#include <memory>
#include <unordered_set>
#include <vector>

namespace ios::views {

inline const QColor kStatePath(0xd6, 0x27, 0x28);
inline const QColor kStateMarked(0x8e, 0x24, 0xaa); // states containing the selected operators

// Bit `bit` of a state's operator set (StateSpace::State::remaining).
inline bool hasBit(const std::array<uint64_t, 2>& bits, int bit) {
    return (bits[static_cast<size_t>(bit / 64)] >> (bit % 64)) & 1U;
}

// The drawing surface: positions are recomputed on resize from the layer structure.
class StateSpaceCanvas : public QWidget {
public:
    explicit StateSpaceCanvas(QWidget* parent) : QWidget(parent) { setMouseTracking(true); }

    std::shared_ptr<const schedulers::StateSpaceIndex> index;
    const schedulers::PartStateSpace* shown = nullptr; // a part of `index`
    int selected = -1;                                 // entry of shown->states
    std::vector<bool> marked;                          // per entry of shown->states
    std::function<void(int)> onSelect;

    void load(const schedulers::PartStateSpace* part) {
        shown = part;
        selected = -1;
        marked.assign(part ? part->states.size() : 0, false);
        update();
    }

    QRectF plot(const QRect& area) const { return QRectF(area).adjusted(60, 56, -20, -64); }

    bool aggregated() const {
        return shown && shown->transitions.size() > StateSpaceView::kMaxDrawnEdges;
    }

    double layerX(int l, const QRectF& r) const {
        return r.left() + r.width() * l / std::max(shown->partSize, 1);
    }

    QPointF position(size_t i, const QRectF& r) const {
        const int l = shown->layer[i];
        const int n = shown->layerSize[static_cast<size_t>(l)];
        return {layerX(l, r), r.top() + r.height() * (shown->rank[i] + 0.5) / std::max(n, 1)};
    }

    // Aggregated mode: the height at which the bands of k-operator stages run.
    double bandY(int ops, const QRectF& r) const {
        return r.top() + r.height() * (0.1 + 0.8 * (ops - 1) / std::max(shown->partSize - 1, 1));
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
        const int partSize = shown->partSize;
        p.setRenderHint(QPainter::Antialiasing, true);
        const QRectF r = plot(area);
        renderLayers(p, r);
        const bool aggregate = aggregated();
        p.setPen(QColor(0x50, 0x50, 0x50));
        p.drawText(QRectF(r.left() - 50, r.bottom() + 22, r.width() + 60, 36),
                   Qt::AlignHCenter | Qt::TextWordWrap,
                   aggregate ? QObject::tr("operators scheduled (layer) →; each band: the "
                                           "transitions between two layers (stages of k ops; "
                                           "hover for the count); colour = cost(S)")
                             : QObject::tr("operators scheduled (layer) →; states sorted by "
                                           "remaining cost within a layer, colour = cost(S)"));
        if (aggregate)
            renderBands(p, area, r);
        else {
            // Fainter the more there are, so thousands of edges read as density, not a tangle.
            const int alpha = std::clamp(
                static_cast<int>(25000 / std::max<size_t>(shown->transitions.size(), 1)), 8, 60);
            p.setPen(QPen(QColor(0x80, 0x80, 0x80, alpha), 1));
            for (size_t k = 0; k < shown->transitions.size(); ++k)
                if (shown->to[k] >= 0)
                    edge(p, k, r);
        }
        // The selected state's endings stand out (the list beside names them).
        if (selected >= 0) {
            p.setPen(QPen(QColor(0x1f, 0x3a, 0x6e, 170), 1.5));
            for (size_t k = 0; k < shown->transitions.size(); ++k)
                if (shown->from[k] == selected && shown->to[k] >= 0)
                    edge(p, k, r);
        }
        // The optimal schedule's path, drawn over everything.
        p.setPen(QPen(kStatePath, 3));
        for (uint32_t k : shown->path)
            if (shown->to[k] >= 0)
                edge(p, k, r);
        renderStates(p, r);
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
                       .arg(formatCount(static_cast<double>(shown->states.size())),
                            formatCount(static_cast<double>(shown->transitions.size())),
                            aggregate ? QObject::tr(" (aggregated between layers)") : QString()));
    }

    void edge(QPainter& p, size_t k, const QRectF& r) const {
        p.drawLine(position(static_cast<size_t>(shown->from[k]), r),
                   position(static_cast<size_t>(shown->to[k]), r));
    }

    // Layer grid and labels: as many labels as fit 28 px apart.
    void renderLayers(QPainter& p, const QRectF& r) const {
        const int partSize = shown->partSize;
        const int every = std::max(1, static_cast<int>(std::ceil(28.0 * partSize / r.width())));
        for (int l = 0; l <= partSize; ++l) {
            const double x = layerX(l, r);
            p.setPen(QColor(0xe6, 0xe6, 0xe6));
            p.drawLine(QPointF(x, r.top()), QPointF(x, r.bottom()));
            if (l % every == 0) {
                p.setPen(QColor(0x50, 0x50, 0x50));
                p.drawText(QRectF(x - 20, r.bottom() + 4, 40, 16), Qt::AlignHCenter,
                           QString::number(l));
            }
        }
    }

    // One band per pair of layers (precomputed off the UI thread); its width says its count.
    void renderBands(QPainter& p, const QRect& area, const QRectF& r) const {
        uint64_t maxCount = 1;
        for (const auto& band : shown->bands)
            maxCount = std::max(maxCount, band.count);
        std::vector<bool> labelled(static_cast<size_t>(shown->partSize) + 1, false);
        const double rowGap = r.height() * 0.8 / std::max(shown->partSize - 1, 1);
        for (const auto& band : shown->bands) {
            const int ops = band.toLayer - band.fromLayer;
            const double y = bandY(ops, r);
            if (ops >= 0 && !labelled[static_cast<size_t>(ops)] && rowGap >= 14) {
                labelled[static_cast<size_t>(ops)] = true;
                p.setPen(QColor(0x30, 0x30, 0x30));
                p.drawText(QRectF(area.left() + 2, y - 8, 56, 16), Qt::AlignLeft | Qt::AlignVCenter,
                           QObject::tr("%1-op").arg(ops));
            }
            p.setPen(QPen(QColor(0x1f, 0x77, 0xb4, 45), 1 + 8.0 * static_cast<double>(band.count) /
                                                                static_cast<double>(maxCount)));
            p.drawLine(QPointF(layerX(band.fromLayer, r), y), QPointF(layerX(band.toLayer, r), y));
        }
    }

    // The states: a dot coloured by cost(S); dots landing on a pixel already drawn are skipped
    // (thousands of states per layer), marked states ringed, the selected one ringed black.
    void renderStates(QPainter& p, const QRectF& r) const {
        const schedulers::StateSpace& space = *index->space;
        const size_t n = shown->states.size();
        const double radius = n > 3000 ? 1.5 : n > 500 ? 2.5 : 4.5;
        const double maxCost = shown->maxCostMs;
        // One dot (and one ring) per pixel: the first state drawn there stands for the rest.
        auto firstAt = [&r, this](std::unordered_set<int64_t>& drawn, size_t i) {
            const QPointF c = position(i, r);
            return drawn.insert((static_cast<int64_t>(c.x()) << 32) | static_cast<int64_t>(c.y()))
                .second;
        };
        std::unordered_set<int64_t> dots, rings;
        p.setPen(Qt::NoPen);
        for (size_t i = 0; i < n; ++i) {
            if (!firstAt(dots, i))
                continue;
            const double cost = space.states[shown->states[i]].costMs;
            p.setBrush(heatColor(maxCost > 0 ? cost / maxCost : 0));
            p.drawEllipse(position(i, r), radius, radius);
        }
        p.setBrush(Qt::NoBrush);
        p.setPen(QPen(kStateMarked, n > 500 ? 1.0 : 1.5));
        for (size_t i = 0; i < n && i < marked.size(); ++i)
            if (marked[i] && firstAt(rings, i))
                p.drawEllipse(position(i, r), radius + 1.5, radius + 1.5);
        if (selected >= 0) {
            p.setPen(QPen(Qt::black, 2));
            p.drawEllipse(position(static_cast<size_t>(selected), r), radius + 4, radius + 4);
        }
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

    // Aggregated mode: the band under pos (its count goes in the tooltip), or nullptr.
    const schedulers::PartStateSpace::Band* bandAt(const QPointF& pos) const {
        if (!aggregated())
            return nullptr;
        const QRectF r = plot(rect());
        for (const auto& band : shown->bands)
            if (std::abs(bandY(band.toLayer - band.fromLayer, r) - pos.y()) <= 5 &&
                pos.x() >= layerX(band.fromLayer, r) && pos.x() <= layerX(band.toLayer, r))
                return &band;
        return nullptr;
    }

protected:
    void paintEvent(QPaintEvent*) override {
        QPainter p(this);
        render(p, rect());
    }
    void mousePressEvent(QMouseEvent* e) override {
        if (onSelect)
            onSelect(stateAt(e->position()));
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
            } else if (const auto* band = bandAt(help->pos())) {
                QToolTip::showText(help->globalPos(),
                                   QObject::tr("%1 transitions from layer %2 to %3 (stages of "
                                               "%4 operators)")
                                       .arg(formatCount(static_cast<double>(band->count)))
                                       .arg(band->fromLayer)
                                       .arg(band->toLayer)
                                       .arg(band->toLayer - band->fromLayer),
                                   this);
            } else {
                QToolTip::hideText();
            }
            return true;
        }
        return QWidget::event(e);
    }
};

} // namespace ios::views
