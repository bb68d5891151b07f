// SPDX-License-Identifier: Apache-2.0
// The analysis tabs: strategy comparison, pruning sweep, specialization, each starting its own
// typed job (engine_jobs.h) and drawing its result; their factories wire them to the Session.
#include "analysis_tab.h"
#include "charts.h"
#include "diff_tab.h"
#include "engine_jobs.h"
#include "eval/timeline_stats.h"
#include "job_controller.h"
#include "main_window.h"
#include "session.h"
#include "settings_panel.h"
#include "units.h"
#include "view_registry.h"

#include <QComboBox>
#include <QSignalBlocker>
#include <QTabWidget>

namespace ios::gui {

ComparisonTab::ComparisonTab(QWidget* parent)
    : AnalysisTab(new views::ComparisonChart,
                  tr("Every registered scheduler under the current cost model (ios-sched "
                     "strategies)."),
                  parent) {}

void ComparisonTab::startJob(const JobSettings& settings) {
    jobs()->start(compareJob(settings), [this](const SearchResultPtr& result) {
        if (!accept(result->settings))
            return;
        std::vector<views::ComparisonEntry> entries;
        for (const RunResult& run : result->runs) {
            int stages = 0;
            for (const schedule::BlockSchedule& block : run.schedule.blocks)
                stages += static_cast<int>(block.stages.size());
            const double concurrency =
                run.timeline
                    ? eval::timeBreakdown(*run.timeline, {}, 0, eval::timelineEndUs(*run.timeline))
                          .meanKernelsInFlight
                    : 0.0;
            entries.push_back({strategyLabel(run.strategy), run.latencyMs, run.searchSeconds,
                               run.stats ? static_cast<double>(run.stats->states) : 0.0,
                               run.stats ? static_cast<double>(run.stats->transitions) : 0.0,
                               static_cast<double>(run.peakBytes), run.notApplicable, run.strategy,
                               stages, concurrency, run.rewritten});
        }
        fastest_.clear();
        const RunResult* best = nullptr;
        for (const RunResult& run : result->runs)
            if (run.notApplicable.isEmpty() && run.latencyMs > 0 &&
                (best == nullptr || run.latencyMs < best->latencyMs))
                best = &run;
        if (best != nullptr && result->sequentialLatencyMs > 0)
            fastest_ = tr("fastest: %1, %2× over Sequential")
                           .arg(strategyLabel(best->strategy))
                           .arg(result->sequentialLatencyMs / best->latencyMs, 0, 'f', 2);
        const JobSettings& s = result->settings;
        const int64_t budget = s.memoryBudget;
        static_cast<views::ComparisonChart*>(chart())->setData(
            tr("Strategies on %1 (r = %2, s = %3%4)")
                .arg(where(s))
                .arg(s.r)
                .arg(s.s)
                .arg(budget > 0 ? tr(", memory budget %1")
                                      .arg(views::formatBytes(static_cast<double>(budget)))
                                : QString()),
            std::move(entries), result->sequentialLatencyMs, static_cast<double>(budget));
        markShown();
    });
}

SweepTab::SweepTab(QWidget* parent)
    : AnalysisTab(new views::SweepChart,
                  tr("Pruning sweep: latency and the DP's transitions (its deterministic search "
                     "cost) for r = 1…4 and s = 1…8 (IOS paper Figure 9); hover a point for the "
                     "wall-clock search time."),
                  parent) {}

void SweepTab::startJob(const JobSettings& settings) {
    jobs()->start(sweepJob(settings), [this](const std::shared_ptr<const SweepResult>& result) {
        if (!accept(result->search.settings))
            return;
        // The DP's transitions are the search cost the paper plots: deterministic, unlike the
        // wall clock (which goes in the tooltip).
        std::vector<double> latency, transitions, seconds;
        for (const RunResult& run : result->search.runs) {
            latency.push_back(run.latencyMs);
            transitions.push_back(run.stats ? static_cast<double>(run.stats->transitions) : 0.0);
            seconds.push_back(run.searchSeconds);
        }
        const auto& runs = result->search.runs;
        const QString s = runs.empty() ? kDefaultStrategy : runs.front().strategy;
        static_cast<views::SweepChart*>(chart())->setData(
            tr("Pruning sweep, %1 on %2").arg(strategyLabel(s), where(result->search.settings)),
            result->r, result->s, std::move(latency), std::move(transitions), std::move(seconds));
        markShown();
    });
}

SpecializeTab::SpecializeTab(QWidget* parent)
    : AnalysisTab(new views::HeatMapChart,
                  tr("Specialization: a schedule optimised for one batch size / device, run on "
                     "the others (IOS paper Table 3; one block: Figure 10)."),
                  parent),
      block_(new QComboBox(this)) {
    block_->setObjectName(QStringLiteral("specializeBlock"));
    block_->setToolTip(tr("Specialise the whole model or one block of it alone, numbered as "
                          "ios-sched info lists them"));
    block_->addItem(tr("Whole model"), -1);
    block_->setSizeAdjustPolicy(QComboBox::AdjustToContents);
    addControl(block_);
    connect(block_, &QComboBox::activated, this, &AnalysisTab::computeRequested);
}

void SpecializeTab::setModel(const views::LoadedModelPtr& model) {
    AnalysisTab::setModel(model);
    const int blocks = model ? static_cast<int>(model->graph().blocks.size()) : 0;
    if (block_->count() == blocks + 1)
        return; // the same blocks: the choice stays
    const QSignalBlocker quiet(block_);
    block_->clear();
    block_->addItem(tr("Whole model"), -1);
    for (int b = 0; b < blocks; ++b)
        block_->addItem(tr("Block %1").arg(b), b);
}

int SpecializeTab::block() const {
    return block_->currentData().toInt();
}

QString SpecializeTab::ownChoices() const {
    return block() < 0 ? QString() : QStringLiteral("|block %1").arg(block());
}

void SpecializeTab::startJob(const JobSettings& settings) {
    jobs()->start(specializeJob(settings, block()),
                  [this](const std::shared_ptr<const SpecializeResult>& result) {
                      if (!accept(result->settings))
                          return;
                      std::vector<views::HeatMatrix> matrices;
                      for (const SpecializeMatrix& m : result->matrices)
                          matrices.push_back({m.title, m.labels, m.latencyMs});
                      static_cast<views::HeatMapChart*>(chart())->setData(std::move(matrices));
                      markShown();
                  });
}

namespace {

// Shown, or a search started while shown: computed when the settings or model changed since.
template <class Tab> views::ResultView* makeAnalysisTab(MainWindow& window, QWidget* parent) {
    auto* tab = new Tab(parent);
    Session* session = window.session();
    auto compute = [tab, session](bool force) {
        if (!session->model())
            return;
        JobSettings settings = session->currentSettings();
        settings.recordStateSpace = false;
        tab->setModel(session->model());
        tab->compute(settings, tab->keyFor(session->settingsKey(settings)), force);
    };
    auto computeWhenShown = [tab, &window, compute] {
        if (window.tabs()->currentWidget() == tab)
            compute(false);
    };
    QObject::connect(tab, &AnalysisTab::computeRequested, tab, [compute] { compute(true); });
    QObject::connect(window.tabs(), &QTabWidget::currentChanged, tab, computeWhenShown);
    QObject::connect(session, &Session::searchStarted, tab, computeWhenShown);
    QObject::connect(session, &Session::modelChanged, tab,
                     [tab, session] { tab->setModel(session->model()); });
    QObject::connect(tab, &AnalysisTab::shown, &window, &MainWindow::analysisShown);
    QObject::connect(tab, &AnalysisTab::shown, &window, &MainWindow::updateTitle);
    tab->setCurrentCheck([tab, session] {
        return tab->shownKey() ==
               tab->keyFor(session->settingsKey(session->settingsPanel()->settings()));
    });
    return tab;
}

} // namespace

// A bar's click shows that scheduler's schedule (the main search with it, on the Timeline
// tab); with Ctrl, the Diff tab compares it with the fastest (the sequential one with itself).
static void openBar(MainWindow& window, const views::ComparisonChart& chart, int row,
                    Qt::KeyboardModifiers modifiers) {
    const QString key = chart.entries()[static_cast<size_t>(row)].key;
    if (modifiers & (Qt::ControlModifier | Qt::MetaModifier)) {
        auto* diff = window.findChild<DiffTab*>();
        const int fastest = chart.fastestRow();
        if (diff == nullptr || fastest < 0)
            return;
        QString a = key, b = chart.entries()[static_cast<size_t>(fastest)].key;
        if (a == b)
            a = QStringLiteral("sequential");
        window.tabs()->setCurrentWidget(diff);
        diff->compare({DiffSource::Kind::Scheduler, a}, {DiffSource::Kind::Scheduler, b});
        return;
    }
    QComboBox* strategy = window.settingsPanel()->strategyBox();
    const int index = strategy->findData(key);
    if (index < 0)
        return;
    strategy->setCurrentIndex(index);
    for (int i = 0; i < window.tabs()->count(); ++i)
        if (window.tabs()->widget(i)->objectName() == QLatin1String("timelineView"))
            window.tabs()->setCurrentIndex(i);
    window.session()->runOptimize();
}

static views::ResultView* makeComparisonTab(MainWindow& window, QWidget* parent) {
    auto* view = makeAnalysisTab<ComparisonTab>(window, parent);
    auto* tab = static_cast<ComparisonTab*>(view);
    auto* chart = static_cast<views::ComparisonChart*>(tab->chart());
    QObject::connect(chart, &views::ComparisonChart::barClicked, tab,
                     [&window, chart](int row, Qt::KeyboardModifiers modifiers) {
                         openBar(window, *chart, row, modifiers);
                     });
    return view;
}

static views::ResultView* makeSweepTab(MainWindow& window, QWidget* parent) {
    return makeAnalysisTab<SweepTab>(window, parent);
}

static views::ResultView* makeSpecializeTab(MainWindow& window, QWidget* parent) {
    return makeAnalysisTab<SpecializeTab>(window, parent);
}

IOS_REGISTER_VIEW(comparison,
                  ViewRegistration{"comparisonTab", IOS_TAB_TITLE("Comparison"),
                                   ViewRegistration::Overlay::None, 70, &makeComparisonTab});
IOS_REGISTER_VIEW(sweep, ViewRegistration{"sweepTab", IOS_TAB_TITLE("Sweep"),
                                          ViewRegistration::Overlay::None, 80, &makeSweepTab});
IOS_REGISTER_VIEW(specialize,
                  ViewRegistration{"specializeTab", IOS_TAB_TITLE("Specialize"),
                                   ViewRegistration::Overlay::None, 90, &makeSpecializeTab});

} // namespace ios::gui
