// SPDX-License-Identifier: Apache-2.0
#include "analysis_tab.h"

#include "charts.h"
#include "estimate_text.h"
#include "job_controller.h"
#include "settings_panel.h"

#include <QHBoxLayout>
#include <QLabel>
#include <QPainter>
#include <QProgressBar>
#include <QPushButton>
#include <QVBoxLayout>

namespace ios::gui {

AnalysisTab::AnalysisTab(views::ChartWidget* chart, const QString& description, QWidget* parent)
    : QWidget(parent), chart_(chart), jobs_(new JobController(this)), description_(description) {
    compute_ = new QPushButton(tr("Compute"), this);
    compute_->setToolTip(tr("Recompute with the current settings"));
    cancel_ = new QPushButton(tr("Cancel"), this);
    cancel_->setObjectName(QStringLiteral("analysisCancel"));
    cancel_->setToolTip(tr("Stop this computation (the main search is not affected)"));
    cancel_->setEnabled(false);
    progress_ = new QProgressBar(this);
    progress_->setRange(0, 1000);
    // Wide enough for "42 % · ETA 2 min 30 s" beside the description, which wraps instead.
    progress_->setMinimumWidth(
        fontMetrics().horizontalAdvance(QStringLiteral("100 % · ETA 59.9 min")) + 24);
    progress_->setMaximumWidth(progress_->minimumWidth() + 60);
    progress_->hide();
    info_ = new QLabel(description, this);
    info_->setWordWrap(true);
    bar_ = new QHBoxLayout;
    bar_->setContentsMargins(6, 4, 6, 4);
    bar_->addWidget(compute_);
    bar_->addWidget(cancel_);
    bar_->addWidget(progress_);
    bar_->addWidget(info_, 1);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->setSpacing(0);
    layout->addLayout(bar_);
    chart_->setParent(this);
    layout->addWidget(chart_, 1);
    chart_->setPlaceholder(tr("Not computed yet."));
    connect(compute_, &QPushButton::clicked, this, &AnalysisTab::computeRequested);
    connect(cancel_, &QPushButton::clicked, jobs_, &JobController::cancel);
    connect(jobs_, &JobController::progressDetail, this,
            [this](quint64, double f, quint64, quint64, double elapsed) {
                setProgress(f, elapsed, jobs_->secondsLeft(), jobs_->overEstimate());
            });
    connect(jobs_, &JobController::estimated, this, [this](quint64, double low, double high) {
        chart_->setPlaceholder(tr("Computing… estimated %1 (Cancel stops it)")
                                   .arg(estimate_text::formatEstimate(low, high)));
    });
    connect(jobs_, &JobController::cancelled, this, [this] { showCancelled(tr("Cancelled.")); });
    connect(jobs_, &JobController::failed, this, [this](quint64, const QString& message) {
        setRunning(false);
        chart_->setPlaceholder(message);
        shownKey_ = runningKey_; // the error is this settings' result
    });
}

void AnalysisTab::compute(const JobSettings& settings, const QString& key, bool force) {
    if (!force && (shownKey_ == key || (jobs_->isRunning() && runningKey_ == key)))
        return;
    runningKey_ = key;
    setRunning(true);
    startJob(settings);
}

void AnalysisTab::addControl(QWidget* control) {
    bar_->insertWidget(bar_->indexOf(info_), control);
}

bool AnalysisTab::accept(const JobSettings& settings) {
    setRunning(false);
    return settings.model && settings.model == model_;
}

void AnalysisTab::markShown() {
    shownKey_ = runningKey_;
    Q_EMIT shown();
}

void AnalysisTab::renderPicture(QPainter& painter, const QRect& area) {
    painter.fillRect(area, Qt::white);
    chart_->render(painter, area.adjusted(16, 12, -16, -12));
}

QString AnalysisTab::where(const JobSettings& settings) {
    return tr("%1, batch %2, simulated %3")
        .arg(QString::fromStdString(settings.model->graph().name))
        .arg(settings.batch)
        .arg(settings.device);
}

void AnalysisTab::setRunning(bool running) {
    running_ = running;
    progress_->setVisible(running);
    progress_->setValue(0);
    progress_->setFormat(running ? estimate_text::formatProgress(0, 0, 0, 0) : QString());
    cancel_->setEnabled(running);
    if (running)
        chart_->setPlaceholder(tr("Computing… (Cancel stops it)"));
}

void AnalysisTab::showCancelled(const QString& why) {
    setRunning(false);
    shownKey_.clear();
    chart_->setPlaceholder(tr("%1 Press Compute to run it again.").arg(why));
}

void AnalysisTab::setProgress(double fraction, double elapsedSeconds, std::optional<double> left,
                              bool over) {
    progress_->setValue(static_cast<int>(fraction * 1000));
    progress_->setFormat(estimate_text::formatProgress(fraction, 0, 0, elapsedSeconds, left, over));
}

QString AnalysisTab::progressText() const {
    return progress_->format();
}

void AnalysisTab::setInfo(const QString& text) {
    info_->setText(text);
}

} // namespace ios::gui
