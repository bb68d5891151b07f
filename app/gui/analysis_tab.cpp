#include "analysis_tab.h"

#include "charts.h"

#include <QHBoxLayout>
#include <QLabel>
#include <QProgressBar>
#include <QPushButton>
#include <QVBoxLayout>

namespace ios::gui {

AnalysisTab::AnalysisTab(JobKind kind, views::ChartWidget* chart, const QString& description,
                         QWidget* parent)
    : QWidget(parent), kind_(kind), chart_(chart) {
    compute_ = new QPushButton(tr("Compute"), this);
    compute_->setToolTip(tr("Recompute with the current settings"));
    cancel_ = new QPushButton(tr("Cancel"), this);
    cancel_->setObjectName(QStringLiteral("analysisCancel"));
    cancel_->setToolTip(tr("Stop this computation (the main search is not affected)"));
    cancel_->setEnabled(false);
    progress_ = new QProgressBar(this);
    progress_->setRange(0, 1000);
    progress_->setMaximumWidth(240);
    progress_->setTextVisible(false);
    progress_->hide();
    info_ = new QLabel(description, this);
    info_->setWordWrap(true);
    auto* bar = new QHBoxLayout;
    bar->setContentsMargins(6, 4, 6, 4);
    bar->addWidget(compute_);
    bar->addWidget(cancel_);
    bar->addWidget(progress_);
    bar->addWidget(info_, 1);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->setSpacing(0);
    layout->addLayout(bar);
    chart_->setParent(this);
    layout->addWidget(chart_, 1);
    connect(compute_, &QPushButton::clicked, this, &AnalysisTab::computeRequested);
    connect(cancel_, &QPushButton::clicked, this, &AnalysisTab::cancelRequested);
    chart_->setPlaceholder(tr("Not computed yet."));
}

void AnalysisTab::setRunning(bool running) {
    running_ = running;
    progress_->setVisible(running);
    progress_->setValue(0);
    cancel_->setEnabled(running);
    if (running)
        chart_->setPlaceholder(tr("Computing… (Cancel stops it)"));
}

void AnalysisTab::showCancelled(const QString& why) {
    setRunning(false);
    shownKey_.clear();
    chart_->setPlaceholder(tr("%1 Press Compute to run it again.").arg(why));
}

void AnalysisTab::setProgress(double fraction) {
    progress_->setValue(static_cast<int>(fraction * 1000));
}

void AnalysisTab::setInfo(const QString& text) {
    info_->setText(text);
}

} // namespace ios::gui
