// SPDX-License-Identifier: Apache-2.0
// The Memory view (docs/memory.md): a block's live activation memory per step, stacked by
// tensor, for the file order, Serenity's memory-optimal order or the current stage schedule;
// TFLite's arena against it; the soft budget's DP runs; the distribution of peaks over every
// order of a small window; and the latency–memory trade-off of the budgeted IOS search with a
// draggable budget. It takes a MemoryReport and a ParetoFront computed on the worker thread
// (app/gui/memory_jobs.cpp) and walks only the current schedule's block itself.
#pragma once

#include "loaded_model.h"
#include "memory_report.h"
#include "result_view.h"
#include "schedule/schedule.h"
#include "schedulers/pareto.h"

#include <QList>
#include <QWidget>
#include <array>
#include <memory>
#include <optional>

class QComboBox;
class QLabel;
class QProgressBar;
class QPushButton;
class QSplitter;
class QStackedWidget;
class QTabWidget;

namespace ios::views {

class MemoryStepChart;
class ParetoChart;
class PeakDistributionChart;
class TauTraceChart;

class MemoryView : public QWidget, public ResultView {
    Q_OBJECT
public:
    // views::ResultView
    QWidget* widget() override { return this; }
    void renderPicture(QPainter& painter, const QRect& area) override { render(painter, area); }
    ShortcutTable shortcuts() const override;
    QWidget* keyTarget() override;

    enum class Order { File, Serenity, Schedule };

    explicit MemoryView(QWidget* parent = nullptr);

    // A report of `model` (null: none, the charts show the placeholder).
    void setReport(LoadedModelPtr model, std::shared_ptr<const MemoryReport> report);
    // The current result: its schedule (walked per shown block), peak, latency and budget.
    void setSchedule(LoadedModelPtr model, schedule::Schedule schedule, const QString& label,
                     int64_t peakBytes, double latencyMs, int64_t budget);
    void setPareto(std::shared_ptr<const schedulers::ParetoFront> front, const QString& strategy);
    // Text on the charts instead of data ("Computing…", an error); the Pareto chart has its own.
    void setPlaceholder(const QString& text);
    void setParetoPlaceholder(const QString& text);
    void setRunning(bool running);
    // `text`: what the bar reads ("42 % · ETA 8 s"); empty: no text.
    void setProgress(double fraction, const QString& text = {});
    void clear();

    const MemoryReport* report() const { return report_.get(); }
    // Expansions per run of the report's Serenity DP (the limit box).
    uint64_t dpLimit() const;
    int block() const { return block_; }
    void setBlock(int block);
    // The order shown: the one chosen, except Serenity's while the schedule chosen has no
    // result of the shown model.
    Order order() const;
    void setOrder(Order order);
    bool hasSchedule() const { return scheduleSeries_.has_value(); }
    // The series the step chart shows, or nullptr.
    const MemorySeries* shownSeries() const;
    // The selected step (-1: none) and the operators producing its live tensors (the peak
    // step's when none is selected), as flat indices.
    int selectedStep() const;
    void selectStep(int step);
    std::vector<int> liveOperators() const;
    // Shows the block of a flat operator and selects the step running it (no signal).
    bool selectOperator(int flatIndex);

    MemoryStepChart* stepChart() const { return stepChart_; }
    TauTraceChart* tauChart() const { return tauChart_; }
    PeakDistributionChart* distributionChart() const { return distributionChart_; }
    ParetoChart* paretoChart() const { return paretoChart_; }
    QComboBox* blockBox() const { return blockBox_; }
    QComboBox* orderBox() const { return orderBox_; }
    QComboBox* limitBox() const { return limitBox_; }
    QComboBox* windowBox() const { return windowBox_; }
    QLabel* summaryLabel() const { return summary_; }

    // The small charts sit side by side, or as tabs when the view is narrower than this.
    static constexpr int kTabbedBelow = 1000;
    bool panelsTabbed() const { return tabbed_; }
    void showPanel(int index); // 0: soft budget, 1: distribution, 2: trade-off (as tabs)

    // Paints the summary and every chart where they sit, scaled into `area` (export).
    void render(QPainter& painter, const QRect& area) const;

Q_SIGNALS:
    // A step was selected: the operators producing its live tensors, and those it runs.
    void stepSelected(const QList<int>& liveProducers, const QList<int>& stepOperators);
    void budgetChosen(qint64 bytes);
    void computeRequested(); // Recompute: the report and the trade-off
    void dpLimitChanged();   // the report again, with dpLimit()
    void cancelRequested();

protected:
    void resizeEvent(QResizeEvent* event) override;

private:
    void arrangePanels(bool tabbed);
    void fillBlockBox();
    void fillWindowBox();
    void updateOrderBox();
    void showBlock();
    void showWindow();
    void updateSummary();
    void onStepSelected(int step);
    QString stepLabel(const std::vector<int>& ops) const;

    LoadedModelPtr model_;
    std::shared_ptr<const MemoryReport> report_;
    LoadedModelPtr scheduleModel_;
    schedule::Schedule schedule_;
    QString scheduleLabel_;
    int64_t schedulePeak_ = 0;
    int64_t budget_ = 0;                         // the current result's memory budget (0: none)
    std::optional<MemorySeries> scheduleSeries_; // the shown block's stages
    int block_ = 0;
    Order order_ = Order::Schedule; // chosen

    QComboBox* blockBox_;
    QComboBox* orderBox_;
    QComboBox* limitBox_;
    QComboBox* windowBox_;
    QProgressBar* progress_;
    QPushButton* cancel_;
    QPushButton* recompute_;
    QPushButton* clearBudget_;
    QLabel* summary_;
    QSplitter* split_;
    std::array<QWidget*, 3> panels_{};
    QSplitter* bottomSplit_;
    QTabWidget* bottomTabs_;
    QStackedWidget* bottom_;
    bool arranged_ = false;
    bool tabbed_ = false;
    MemoryStepChart* stepChart_;
    TauTraceChart* tauChart_;
    PeakDistributionChart* distributionChart_;
    ParetoChart* paretoChart_;
};

} // namespace ios::views
