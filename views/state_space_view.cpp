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
#include <bit>
#include <map>

namespace ios::views {

int stateLayer(const schedulers::StateSpace::State& state, int partSize) {
    return partSize - std::popcount(state.remaining[0]) - std::popcount(state.remaining[1]);
}

// The drawing surface: positions are recomputed on resize from the layer structure.
class StateSpaceCanvas : public QWidget {
public:
    explicit StateSpaceCanvas(QWidget* parent) : QWidget(parent) { setMouseTracking(true); }

    LoadedModelPtr model;
    std::shared_ptr<const schedulers::StateSpace> space;
    int block = -1, part = -1;
    std::vector<uint32_t> states;      // indices into space->states, this part only
    std::vector<uint32_t> transitions; // indices into space->transitions, this part only
    std::vector<int> layer;            // per entry of `states`
    std::vector<int> rank;             // position within the layer (by cost)
    std::vector<int> layerSize;
    std::map<uint32_t, size_t> local; // state index → entry of `states`
    std::vector<bool> onPath;         // per entry of `transitions`
    int partSize = 0;
    int selected = -1; // entry of `states`
    std::function<void(int)> onSelect;

    void load(int b, int p) {
        block = b;
        part = p;
        states.clear();
        transitions.clear();
        local.clear();
        selected = -1;
        partSize =
            static_cast<int>(space->partOps[static_cast<size_t>(b)][static_cast<size_t>(p)].size());
        for (uint32_t i = 0; i < space->states.size(); ++i)
            if (space->states[i].block == b && space->states[i].part == p) {
                local[i] = states.size();
                states.push_back(i);
            }
        std::vector<bool> chosen(space->transitions.size(), false);
        for (uint32_t t : space->chosen)
            if (t < chosen.size())
                chosen[t] = true;
        onPath.clear();
        for (uint32_t t = 0; t < space->transitions.size(); ++t)
            if (local.count(space->transitions[t].from)) {
                transitions.push_back(t);
                onPath.push_back(chosen[t]);
            }
        layer.assign(states.size(), 0);
        layerSize.assign(static_cast<size_t>(partSize + 1), 0);
        std::vector<std::vector<size_t>> byLayer(static_cast<size_t>(partSize + 1));
        for (size_t i = 0; i < states.size(); ++i) {
            layer[i] = std::clamp(stateLayer(space->states[states[i]], partSize), 0, partSize);
            byLayer[static_cast<size_t>(layer[i])].push_back(i);
        }
        rank.assign(states.size(), 0);
        for (auto& l : byLayer) {
            std::sort(l.begin(), l.end(), [this](size_t a, size_t c) {
                return space->states[states[a]].costMs < space->states[states[c]].costMs;
            });
            for (size_t r = 0; r < l.size(); ++r)
                rank[l[r]] = static_cast<int>(r);
            if (!l.empty())
                layerSize[static_cast<size_t>(layer[l.front()])] = static_cast<int>(l.size());
        }
        update();
    }

    QRectF plot(const QRect& area) const { return QRectF(area).adjusted(60, 56, -20, -64); }

    QPointF position(size_t i, const QRectF& r) const {
        const double x = r.left() + r.width() * layer[i] / std::max(partSize, 1);
        const int n = layerSize[static_cast<size_t>(layer[i])];
        const double y = r.top() + r.height() * (rank[i] + 0.5) / std::max(n, 1);
        return {x, y};
    }

    void render(QPainter& p, const QRect& area) const {
        p.fillRect(area, QColor(0xfc, 0xfc, 0xfc));
        QFont f = p.font();
        f.setPixelSize(12);
        p.setFont(f);
        if (!space || states.empty()) {
            p.setPen(Qt::darkGray);
            p.drawText(area, Qt::AlignCenter,
                       QObject::tr("Run an IOS strategy to record its state space."));
            return;
        }
        p.setRenderHint(QPainter::Antialiasing, true);
        const QRectF r = plot(area);
        double maxCost = 0;
        for (uint32_t s : states)
            maxCost = std::max(maxCost, space->states[s].costMs);
        // Layer axis.
        p.setPen(QColor(0x50, 0x50, 0x50));
        for (int l = 0; l <= partSize; ++l) {
            const double x = r.left() + r.width() * l / std::max(partSize, 1);
            p.setPen(QColor(0xe6, 0xe6, 0xe6));
            p.drawLine(QPointF(x, r.top()), QPointF(x, r.bottom()));
            if (partSize <= 40 || l % 5 == 0) {
                p.setPen(QColor(0x50, 0x50, 0x50));
                p.drawText(QRectF(x - 20, r.bottom() + 4, 40, 16), Qt::AlignHCenter,
                           QString::number(l));
            }
        }
        const bool aggregate = transitions.size() > StateSpaceView::kMaxDrawnEdges;
        p.drawText(QRectF(r.left() - 50, r.bottom() + 22, r.width() + 60, 36),
                   Qt::AlignHCenter | Qt::TextWordWrap,
                   aggregate ? QObject::tr("operators scheduled (layer) →; each band: the "
                                           "transitions between two layers (stages of k ops), "
                                           "with their count; colour = cost(S)")
                             : QObject::tr("operators scheduled (layer) →; states sorted by "
                                           "remaining cost within a layer, colour = cost(S)"));
        if (aggregate) {
            // One band per pair of layers, labelled with its transition count.
            std::map<std::pair<int, int>, int> bands;
            for (uint32_t t : transitions) {
                const auto& edge = space->transitions[t];
                auto to = local.find(edge.to);
                if (to == local.end())
                    continue;
                ++bands[{layer[local.at(edge.from)], layer[to->second]}];
            }
            int maxCount = 1;
            std::map<int, double> rowY; // stage size → y of its bands
            for (const auto& [k, c] : bands)
                maxCount = std::max(maxCount, c);
            for (const auto& [k, c] : bands)
                rowY[k.second - k.first] =
                    r.top() +
                    r.height() * (0.1 + 0.8 * (k.second - k.first - 1) / std::max(partSize - 1, 1));
            p.setPen(QColor(0x30, 0x30, 0x30));
            for (const auto& [ops, y] : rowY)
                p.drawText(QRectF(area.left() + 2, y - 8, 56, 16), Qt::AlignLeft | Qt::AlignVCenter,
                           QObject::tr("%1-op").arg(ops));
            for (const auto& [k, c] : bands) {
                const double x0 = r.left() + r.width() * k.first / std::max(partSize, 1);
                const double x1 = r.left() + r.width() * k.second / std::max(partSize, 1);
                const double y = r.top() + r.height() * (0.1 + 0.8 * (k.second - k.first - 1) /
                                                                   std::max(partSize - 1, 1));
                p.setPen(QPen(QColor(0x1f, 0x77, 0xb4, 60), 1 + 8.0 * c / maxCount));
                p.drawLine(QPointF(x0, y), QPointF(x1, y));
                if (x1 - x0 > 40) {
                    p.setPen(QColor(0x30, 0x30, 0x30));
                    p.drawText(QPointF((x0 + x1) / 2 - 14, y - 4), formatCount(c));
                }
            }
        } else {
            p.setPen(QPen(QColor(0x80, 0x80, 0x80, 50), 1));
            for (size_t k = 0; k < transitions.size(); ++k) {
                const auto& tr = space->transitions[transitions[k]];
                auto to = local.find(tr.to);
                if (to != local.end())
                    p.drawLine(position(local.at(tr.from), r), position(to->second, r));
            }
        }
        // The optimal schedule's path, drawn over everything.
        p.setPen(QPen(QColor(0xd6, 0x27, 0x28), 3));
        for (size_t k = 0; k < transitions.size(); ++k) {
            if (!onPath[k])
                continue;
            const auto& tr = space->transitions[transitions[k]];
            auto to = local.find(tr.to);
            if (to != local.end())
                p.drawLine(position(local.at(tr.from), r), position(to->second, r));
        }
        const double radius = states.size() > 3000 ? 1.5 : states.size() > 500 ? 2.5 : 4.5;
        p.setPen(Qt::NoPen);
        for (size_t i = 0; i < states.size(); ++i) {
            p.setBrush(heatColor(maxCost > 0 ? space->states[states[i]].costMs / maxCost : 0));
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
                       .arg(block)
                       .arg(part)
                       .arg(partSize)
                       .arg(formatCount(static_cast<double>(states.size())),
                            formatCount(static_cast<double>(transitions.size())),
                            aggregate ? QObject::tr(" (aggregated between layers)") : QString()));
    }

    int stateAt(const QPointF& pos) const {
        const QRectF r = plot(rect());
        int best = -1;
        double bestD = 64;
        for (size_t i = 0; i < states.size(); ++i) {
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
                const auto& st = space->states[states[static_cast<size_t>(i)]];
                QToolTip::showText(
                    help->globalPos(),
                    QObject::tr("%1 operators left, cost(S) = %2\nclick: its endings")
                        .arg(partSize - layer[static_cast<size_t>(i)])
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
    canvas_->onSelect = [this](int i) {
        if (i < 0 || !model_)
            return;
        const uint32_t s = canvas_->states[static_cast<size_t>(i)];
        const auto& ops =
            space_
                ->partOps[static_cast<size_t>(canvas_->block)][static_cast<size_t>(canvas_->part)];
        QString text = tr("<b>State</b>: %1 operators left, cost %2<br><b>Endings</b>:")
                           .arg(canvas_->partSize - canvas_->layer[static_cast<size_t>(i)])
                           .arg(formatMs(space_->states[s].costMs));
        int shown = 0;
        for (uint32_t t : canvas_->transitions) {
            const auto& edge = space_->transitions[t];
            if (edge.from != s)
                continue;
            if (++shown > 40) {
                text += tr("<br>…");
                break;
            }
            QStringList names;
            for (int bit = 0; bit < static_cast<int>(ops.size()); ++bit) {
                const auto word = static_cast<size_t>(bit / 64);
                const uint64_t mask = uint64_t{1} << (bit % 64);
                const bool before = space_->states[edge.from].remaining[word] & mask;
                const bool after = space_->states[edge.to].remaining[word] & mask;
                if (before && !after)
                    names << QString::fromStdString(
                        model_->node({canvas_->block, ops[static_cast<size_t>(bit)]}).name);
            }
            text += QStringLiteral("<br>%1 {%2} %3")
                        .arg(edge.kind == schedule::StageKind::Merge ? tr("merge") : tr("parallel"),
                             names.join(QStringLiteral(", ")), formatMs(edge.latencyMs));
        }
        details_->setText(text);
    };
}

void StateSpaceView::setStateSpace(LoadedModelPtr model,
                                   std::shared_ptr<const schedulers::StateSpace> space) {
    model_ = std::move(model);
    space_ = std::move(space);
    canvas_->model = model_;
    canvas_->space = space_;
    canvas_->states.clear();
    fillPartBox();
    canvas_->update();
}

void StateSpaceView::fillPartBox() {
    const QSignalBlocker block(partBox_);
    partBox_->clear();
    if (!space_)
        return;
    // Default: the part with the most recorded transitions (the "Table 1" part).
    std::map<std::pair<int, int>, size_t> counts;
    for (const auto& t : space_->transitions) {
        const auto& st = space_->states[t.from];
        ++counts[{st.block, st.part}];
    }
    int best = 0;
    size_t bestCount = 0;
    for (size_t b = 0; b < space_->partOps.size(); ++b)
        for (size_t p = 0; p < space_->partOps[b].size(); ++p) {
            const size_t c = counts[{static_cast<int>(b), static_cast<int>(p)}];
            if (c > bestCount) {
                bestCount = c;
                best = partBox_->count();
            }
            partBox_->addItem(tr("block %1, part %2 (%3 ops, %4 transitions)")
                                  .arg(b)
                                  .arg(p)
                                  .arg(space_->partOps[b][p].size())
                                  .arg(c),
                              QPoint(static_cast<int>(b), static_cast<int>(p)));
        }
    partBox_->setCurrentIndex(best);
    if (partBox_->count() > 0) {
        const QPoint bp = partBox_->itemData(best).toPoint();
        showPart(bp.x(), bp.y());
    }
}

bool StateSpaceView::showPart(int block, int part) {
    if (!space_ || block < 0 || part < 0 || block >= static_cast<int>(space_->partOps.size()) ||
        part >= static_cast<int>(space_->partOps[static_cast<size_t>(block)].size()))
        return false;
    canvas_->load(block, part);
    details_->setText(tr("Click a state to list its candidate stages (endings).%1")
                          .arg(space_->truncated ? tr("<br><i>Recording truncated: the "
                                                      "search had more transitions.</i>")
                                                 : QString()));
    return true;
}

void StateSpaceView::render(QPainter& painter, const QRect& area) const {
    canvas_->render(painter, area);
}

} // namespace ios::views
