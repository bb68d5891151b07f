// SPDX-License-Identifier: Apache-2.0
#include "graph_diff_view.h"

#include "graph_view.h"

#include <QLabel>
#include <QSplitter>
#include <QVBoxLayout>

namespace ios::views {

namespace {

QWidget* titled(QLabel* title, GraphView* view, QWidget* parent) {
    auto* pane = new QWidget(parent);
    auto* layout = new QVBoxLayout(pane);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->setSpacing(2);
    title->setWordWrap(true);
    layout->addWidget(title);
    layout->addWidget(view, 1);
    return pane;
}

} // namespace

GraphDiffView::GraphDiffView(QWidget* parent)
    : QWidget(parent), beforeTitle_(new QLabel(this)), afterTitle_(new QLabel(this)),
      before_(new GraphView(this)), after_(new GraphView(this)) {
    before_->setObjectName(QStringLiteral("diffBefore"));
    after_->setObjectName(QStringLiteral("diffAfter"));
    for (GraphView* view : {before_, after_}) {
        view->setColorMode(GraphView::ColorMode::Kind);
        view->setCompact(true); // the titles name the colours; L shows the legend
    }
    auto* split = new QSplitter(Qt::Horizontal, this);
    split->addWidget(titled(beforeTitle_, before_, split));
    split->addWidget(titled(afterTitle_, after_, split));
    split->setChildrenCollapsible(false);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(split);
    // A graph laid out after setDiff (Graphviz runs off the UI thread) is coloured when ready.
    connect(before_, &GraphView::layoutReady, this, &GraphDiffView::colour);
    connect(after_, &GraphView::layoutReady, this, &GraphDiffView::colour);
}

void GraphDiffView::setDiff(LoadedModelPtr before, LoadedModelPtr after,
                            std::vector<rewrite::Provenance> steps) {
    beforeModel_ = std::move(before);
    afterModel_ = std::move(after);
    steps_ = std::move(steps);
    diff_ =
        beforeModel_ && afterModel_ ? graphDiff(*beforeModel_, *afterModel_, steps_) : GraphDiff{};
    before_->setModel(beforeModel_);
    after_->setModel(afterModel_);
    if (!beforeModel_ || !afterModel_) {
        beforeTitle_->clear();
        afterTitle_->clear();
        return;
    }
    beforeTitle_->setText(tr("<b>Original G0</b> — %1 operators; %2 replaced (red), %3 re-wired "
                             "(amber)")
                              .arg(beforeModel_->operatorCount())
                              .arg(diff_.replaced.size())
                              .arg(diff_.rewiredBefore.size()));
    afterTitle_->setText(tr("<b>Rewritten G*</b> — %1 operators; %2 new (green), %3 re-wired "
                            "(amber)")
                             .arg(afterModel_->operatorCount())
                             .arg(diff_.created.size())
                             .arg(diff_.rewiredAfter.size()));
    colour();
}

void GraphDiffView::colour() {
    auto fills = [](const LoadedModelPtr& m, const std::vector<int>& main, const QColor& c,
                    const std::vector<int>& rewired) {
        std::vector<QColor> out(m ? static_cast<size_t>(m->operatorCount()) : 0);
        for (int i : rewired)
            out[static_cast<size_t>(i)] = rewiredColor();
        for (int i : main)
            out[static_cast<size_t>(i)] = c;
        return out;
    };
    before_->setCustomColors(
        fills(beforeModel_, diff_.replaced, replacedColor(), diff_.rewiredBefore),
        {{replacedColor(), tr("replaced")},
         {rewiredColor(), tr("re-wired")},
         {Qt::transparent, tr("others: kind")}});
    after_->setCustomColors(fills(afterModel_, diff_.created, createdColor(), diff_.rewiredAfter),
                            {{createdColor(), tr("new")},
                             {rewiredColor(), tr("re-wired")},
                             {Qt::transparent, tr("others: kind")}});
}

StepOperators GraphDiffView::stepOperators(int step) const {
    if (step < 0 || !beforeModel_ || !afterModel_)
        return {};
    return views::stepOperators(*beforeModel_, *afterModel_, steps_, static_cast<size_t>(step));
}

void GraphDiffView::showStep(int step) {
    const StepOperators ops = stepOperators(step);
    before_->setSelection(ops.before, {}, true);
    after_->setSelection(ops.after, {}, true);
}

} // namespace ios::views
