// SPDX-License-Identifier: Apache-2.0
#include "properties_dock.h"

#include "session.h"
#include "units.h"

#include <QTextBrowser>
#include <algorithm>

namespace ios::gui {

PropertiesDock::PropertiesDock(Session* session, std::function<QString(int)> describe,
                               QWidget* parent)
    : QDockWidget(tr("Properties"), parent), session_(session), describe_(std::move(describe)),
      browser_(new QTextBrowser(this)) {
    setObjectName(QStringLiteral("propertiesDock"));
    browser_->setObjectName(QStringLiteral("properties"));
    browser_->setOpenLinks(false);
    setWidget(browser_);
    connect(session_->selection(), &Selection::changed, this, &PropertiesDock::showSelection);
    for (auto signal : {&Session::modelChanged, &Session::resultChanged})
        connect(session_, signal, this, &PropertiesDock::showSelection);
    showSelection();
}

QString PropertiesDock::text() const {
    return browser_->toPlainText();
}

void PropertiesDock::showSelection() {
    const std::vector<int>& ops = session_->selection()->operators();
    const views::LoadedModelPtr& model = session_->model();
    if (!model || ops.empty()) {
        browser_->setHtml(tr("<i>Select an operator in any view (graph, stage tree, operator "
                             "table, timeline…) to see its properties here.</i>"));
        return;
    }
    const int flat = ops.front();
    if (flat < 0 || flat >= model->operatorCount())
        return;
    QString html;
    if (ops.size() > 1) {
        int64_t flops = 0;
        for (int f : ops)
            if (f >= 0 && f < model->operatorCount())
                flops += model->metrics(f).flops;
        html += tr("<p><b>%1 operators selected</b> · %2 in all; the first:</p>")
                    .arg(ops.size())
                    .arg(views::formatFlops(static_cast<double>(flops)));
    }
    html += describe_(flat);
    if (const QString where = placement(flat); !where.isEmpty())
        html += QStringLiteral("<p>%1</p>").arg(where.toHtmlEscaped());
    browser_->setHtml(html);
}

QString PropertiesDock::placement(int flat) const {
    const RunResult* run = session_->shownRun();
    if (run == nullptr)
        return {};
    const views::OperatorRef ref = session_->model()->operators()[static_cast<size_t>(flat)];
    const schedule::Schedule& shown = run->shownStages(); // as the stage tree lists them
    if (ref.block < 0 || static_cast<size_t>(ref.block) >= shown.blocks.size())
        return {};
    const auto& stages = shown.blocks[static_cast<size_t>(ref.block)].stages;
    for (size_t s = 0; s < stages.size(); ++s)
        for (size_t g = 0; g < stages[s].groups.size(); ++g) {
            const auto& group = stages[s].groups[g];
            if (std::find(group.begin(), group.end(), ref.op) == group.end())
                continue;
            const auto& ms = run->stageLatencyMs;
            const QString latency =
                static_cast<size_t>(ref.block) < ms.size() && s < ms[ref.block].size()
                    ? views::formatMs(ms[ref.block][s])
                    : tr("latency unknown");
            return (run->ownProgram ? tr("%1: segment %2 of block %3 · %4 · stream group %5 of %6")
                                    : tr("%1: stage %2 of block %3 · %4 · group %5 of %6"))
                .arg(strategyLabel(run->strategy))
                .arg(s)
                .arg(ref.block)
                .arg(latency)
                .arg(g)
                .arg(stages[s].groups.size());
        }
    return tr("%1 does not schedule it").arg(strategyLabel(run->strategy));
}

} // namespace ios::gui
