// SPDX-License-Identifier: Apache-2.0
#include "state_space_view.h"

#include "state_space_canvas.h"
#include "units.h"

#include <QComboBox>
#include <QHBoxLayout>
#include <QKeyEvent>
#include <QLabel>
#include <QVBoxLayout>
#include <algorithm>
#include <unordered_set>

namespace ios::views {

StateSpaceView::StateSpaceView(QWidget* parent) : QWidget(parent) {
    setFocusPolicy(Qt::StrongFocus);
    partBox_ = new QComboBox(this);
    partBox_->setToolTip(tr("The DP part whose state space is shown (PgUp / PgDn)"));
    partBox_->setMinimumContentsLength(30);
    details_ = new QLabel(tr("Click a state to list its candidate stages (endings)."), this);
    details_->setWordWrap(true);
    details_->setTextInteractionFlags(Qt::TextBrowserInteraction);
    details_->setMinimumWidth(200);
    details_->setMaximumWidth(320);
    details_->setAlignment(Qt::AlignTop | Qt::AlignLeft);
    canvas_ = new StateSpaceCanvas(this);
    canvas_->setFocusProxy(this);
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
    connect(details_, &QLabel::linkActivated, this, &StateSpaceView::activateEnding);
    canvas_->onSelect = [this](int i) {
        setFocus();
        selectState(i);
    };
}

std::vector<std::pair<QString, QString>> StateSpaceView::shortcutHelp() {
    return {{tr("Click a state"), tr("List its endings; select its operators in the graph")},
            {tr("Click an ending"), tr("Select the operators of that stage")},
            {tr("← / →"), tr("Previous / next state along the optimal schedule")},
            {tr("PgUp / PgDn"), tr("Previous / next recorded part")},
            {tr("Esc"), tr("Clear the selected state and the marks")}};
}

std::vector<int> StateSpaceView::flatOperators(int block, int part,
                                               const std::array<uint64_t, 2>& bits) const {
    std::vector<int> out;
    if (!model_ || !index_)
        return out;
    const auto& ops = index_->space->partOps[static_cast<size_t>(block)][static_cast<size_t>(part)];
    for (int bit = 0; bit < static_cast<int>(ops.size()); ++bit)
        if (hasBit(bits, bit))
            out.push_back(model_->flatIndex({block, ops[static_cast<size_t>(bit)]}));
    std::sort(out.begin(), out.end());
    return out;
}

std::vector<int> StateSpaceView::stateOperators(int entry) const {
    const schedulers::PartStateSpace* part = canvas_->shown;
    if (!part || entry < 0 || entry >= static_cast<int>(part->states.size()))
        return {};
    const auto& state = index_->space->states[part->states[static_cast<size_t>(entry)]];
    return flatOperators(part->block, part->part, state.remaining);
}

std::vector<int> StateSpaceView::stageOperators(int t) const {
    const schedulers::PartStateSpace* part = canvas_->shown;
    if (!part || t < 0 || t >= static_cast<int>(part->transitions.size()))
        return {};
    const schedulers::StateSpace& space = *index_->space;
    const auto& edge = space.transitions[part->transitions[static_cast<size_t>(t)]];
    if (edge.from >= space.states.size() || edge.to >= space.states.size())
        return {}; // a truncated recording
    const auto& before = space.states[edge.from].remaining;
    const auto& after = space.states[edge.to].remaining;
    return flatOperators(part->block, part->part, {before[0] & ~after[0], before[1] & ~after[1]});
}

void StateSpaceView::selectState(int entry) {
    const schedulers::PartStateSpace* part = canvas_->shown;
    if (!part || entry >= static_cast<int>(part->states.size()))
        entry = -1;
    canvas_->selected = entry;
    canvas_->update();
    if (entry < 0)
        return;
    showEndings(entry);
    Q_EMIT operatorsSelected(stateOperators(entry));
}

void StateSpaceView::showEndings(int entry) {
    const schedulers::PartStateSpace* part = canvas_->shown;
    if (entry < 0 || !part)
        return;
    const schedulers::StateSpace& space = *index_->space;
    const auto k = static_cast<size_t>(entry);
    QString text = tr("<b>State</b>: %1 operators left, cost %2<br><b>Endings</b> (click one to "
                      "select its operators):")
                       .arg(part->partSize - part->layer[k])
                       .arg(formatMs(space.states[part->states[k]].costMs));
    const std::unordered_set<uint32_t> onPath(part->path.begin(), part->path.end());
    // The chosen ending (on the optimal path) first, then the others in recorded order.
    std::vector<size_t> endings;
    for (size_t t = 0; t < part->transitions.size(); ++t)
        if (part->from[t] == entry)
            endings.push_back(t);
    std::stable_partition(endings.begin(), endings.end(),
                          [&](size_t t) { return onPath.count(static_cast<uint32_t>(t)) > 0; });
    int listed = 0;
    for (size_t t : endings) {
        if (++listed > 40) {
            text += tr("<br>…");
            break;
        }
        const auto& edge = space.transitions[part->transitions[t]];
        QStringList names;
        for (int op : stageOperators(static_cast<int>(t)))
            names << QString::fromStdString(
                         model_->node(model_->operators()[static_cast<size_t>(op)]).name)
                         .toHtmlEscaped();
        const QString line =
            QStringLiteral("<a href=\"t:%1\">%2 {%3}</a> %4")
                .arg(t)
                .arg(edge.kind == schedule::StageKind::Merge ? tr("merge") : tr("parallel"),
                     names.join(QStringLiteral(", ")), formatMs(edge.latencyMs));
        text += onPath.count(static_cast<uint32_t>(t))
                    ? QStringLiteral("<br><b>%1 ◀ chosen</b>").arg(line)
                    : QStringLiteral("<br>%1").arg(line);
    }
    details_->setText(text);
}

void StateSpaceView::activateEnding(const QString& link) {
    if (!link.startsWith(QLatin1String("t:")))
        return;
    Q_EMIT operatorsSelected(stageOperators(link.mid(2).toInt()));
}

std::array<uint64_t, 2> StateSpaceView::selectedBits(const schedulers::PartStateSpace& part) const {
    std::array<uint64_t, 2> bits{};
    if (!model_ || !index_)
        return bits;
    const auto& ops =
        index_->space->partOps[static_cast<size_t>(part.block)][static_cast<size_t>(part.part)];
    for (int bit = 0; bit < static_cast<int>(ops.size()); ++bit) {
        const int flat = model_->flatIndex({part.block, ops[static_cast<size_t>(bit)]});
        if (std::find(selectedOps_.begin(), selectedOps_.end(), flat) != selectedOps_.end())
            bits[static_cast<size_t>(bit / 64)] |= uint64_t{1} << (bit % 64);
    }
    return bits;
}

void StateSpaceView::markSelected() {
    const schedulers::PartStateSpace* part = canvas_->shown;
    if (!part)
        return;
    const std::array<uint64_t, 2> bits = selectedBits(*part);
    for (size_t i = 0; i < part->states.size(); ++i) {
        const auto& remaining = index_->space->states[part->states[i]].remaining;
        canvas_->marked[i] = ((remaining[0] & bits[0]) | (remaining[1] & bits[1])) != 0;
    }
    canvas_->update();
}

void StateSpaceView::selectOperators(const std::vector<int>& flatIndices) {
    selectedOps_ = flatIndices;
    if (!index_)
        return;
    auto any = [](const std::array<uint64_t, 2>& b) { return (b[0] | b[1]) != 0; };
    if (!canvas_->shown || !any(selectedBits(*canvas_->shown)))
        for (const schedulers::PartStateSpace& part : index_->parts)
            if (any(selectedBits(part))) {
                showPart(part.block, part.part);
                break;
            }
    markSelected();
}

std::pair<int, int> StateSpaceView::shownPart() const {
    return canvas_->shown ? std::pair{canvas_->shown->block, canvas_->shown->part}
                          : std::pair{-1, -1};
}

int StateSpaceView::selectedState() const {
    return canvas_->selected;
}

std::vector<int> StateSpaceView::markedStates() const {
    std::vector<int> out;
    for (size_t i = 0; i < canvas_->marked.size(); ++i)
        if (canvas_->marked[i])
            out.push_back(static_cast<int>(i));
    return out;
}

QString StateSpaceView::endingsText() const {
    return details_->text();
}

QWidget* StateSpaceView::canvas() const {
    return canvas_;
}

QPointF StateSpaceView::statePosition(int entry) const {
    if (!canvas_->shown || entry < 0)
        return {};
    return canvas_->position(static_cast<size_t>(entry), canvas_->plot(canvas_->rect()));
}

void StateSpaceView::keyPressEvent(QKeyEvent* event) {
    const schedulers::PartStateSpace* part = canvas_->shown;
    switch (event->key()) {
    case Qt::Key_PageUp:
    case Qt::Key_PageDown: {
        const int step = event->key() == Qt::Key_PageUp ? -1 : 1;
        const int i = std::clamp(partBox_->currentIndex() + step, 0, partBox_->count() - 1);
        partBox_->setCurrentIndex(i);
        return;
    }
    case Qt::Key_Left:
    case Qt::Key_Right: {
        if (!part)
            return;
        // Along the optimal path: → follows the chosen ending, ← goes back to where it came from.
        const bool next = event->key() == Qt::Key_Right;
        int target = -1;
        if (canvas_->selected < 0 && next && !part->path.empty())
            target = part->from[part->path.front()];
        for (uint32_t t : part->path)
            if (next ? part->from[t] == canvas_->selected : part->to[t] == canvas_->selected)
                target = next ? part->to[t] : part->from[t];
        if (target >= 0)
            selectState(target);
        return;
    }
    case Qt::Key_Escape:
        canvas_->selected = -1;
        canvas_->marked.assign(canvas_->marked.size(), false);
        selectedOps_.clear();
        canvas_->update();
        return;
    default:
        QWidget::keyPressEvent(event);
    }
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
    if (partBox_->currentIndex() != entry) {
        const QSignalBlocker blocker(partBox_);
        partBox_->setCurrentIndex(entry);
    }
    details_->setText(tr("Click a state to list its candidate stages (endings).%1")
                          .arg(index_->space->truncated ? tr("<br><i>Recording truncated: the "
                                                             "search had more transitions.</i>")
                                                        : QString()));
    markSelected(); // the selected operators stay marked on the new part
    return true;
}

void StateSpaceView::render(QPainter& painter, const QRect& area) const {
    canvas_->render(painter, area);
}

} // namespace ios::views
