// SPDX-License-Identifier: Apache-2.0
#include "metaflow_panel.h"

#include "charts.h"
#include "engine_jobs.h"
#include "estimate_text.h"
#include "graph_diff_view.h"
#include "job_controller.h"
#include "metaflow_search_chart.h"
#include "settings_panel.h"
#include "shortcut_help.h"
#include "stale_overlay.h"
#include "units.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QGridLayout>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QProgressBar>
#include <QPushButton>
#include <QSettings>
#include <QSpinBox>
#include <QSplitter>
#include <QTabWidget>
#include <QTableWidget>
#include <QVBoxLayout>
#include <limits>

namespace ios::gui {

namespace {

const QString kGroup = QStringLiteral("metaflow");

QString fromView(std::string_view s) {
    return QString::fromUtf8(s.data(), static_cast<qsizetype>(s.size()));
}

QString names(const std::vector<std::string>& list) {
    QStringList out;
    for (const std::string& n : list)
        out << QString::fromStdString(n);
    return out.join(QStringLiteral(", "));
}

QString metricText(const MetaflowMetric& m, std::optional<double> v) {
    if (!v)
        return QStringLiteral("—");
    if (m.milliseconds)
        return views::formatMs(*v);
    return m.name == QObject::tr("FLOPs") ? views::formatFlops(*v) : views::formatCount(*v);
}

QTableWidgetItem* cell(const QString& text, Qt::Alignment align = Qt::AlignLeft) {
    auto* item = new QTableWidgetItem(text);
    item->setFlags(Qt::ItemIsSelectable | Qt::ItemIsEnabled);
    item->setTextAlignment(align | Qt::AlignVCenter);
    return item;
}

QTableWidget* table(const QStringList& headers, QWidget* parent, const QString& name) {
    auto* t = new QTableWidget(0, static_cast<int>(headers.size()), parent);
    t->setObjectName(name);
    t->setHorizontalHeaderLabels(headers);
    t->verticalHeader()->hide();
    t->setSelectionBehavior(QAbstractItemView::SelectRows);
    t->setSelectionMode(QAbstractItemView::SingleSelection);
    t->setEditTriggers(QAbstractItemView::NoEditTriggers);
    t->setAlternatingRowColors(true);
    t->horizontalHeader()->setStretchLastSection(true);
    return t;
}

} // namespace

MetaflowPanel::MetaflowPanel(QWidget* parent) : QWidget(parent), jobs_(new JobController(this)) {
    // The controls in a bar above the results: at 1280×800 the charts need the width.
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->setSpacing(0);
    layout->addWidget(createControls());
    layout->addWidget(createResults(), 1);
    load();
    addShortcutHelp(tr("MetaFlow"), tr("↑ / ↓ in the substitution list"),
                    tr("Previous / next substitution, its operators selected in both graphs"));

    connect(
        jobs_, &JobController::progressDetail, this,
        [this](quint64, double f, quint64, quint64, double elapsed) { showProgress(f, elapsed); });
    connect(jobs_, &JobController::cancelled, this, [this] {
        setRunning(false);
        status_->setText(tr("Cancelled. Run starts the search again."));
        Q_EMIT cancelled();
    });
    connect(jobs_, &JobController::failed, this, [this](quint64, const QString& message) {
        setRunning(false);
        status_->setText(message);
        Q_EMIT failed(message);
    });
}

QWidget* MetaflowPanel::createControls() {
    auto* box = new QWidget(this);
    preset_ = new QComboBox(box);
    preset_->setObjectName(QStringLiteral("mfPreset"));
    preset_->addItem(tr("paper"), kMetaflowPaper);
    preset_->addItem(tr("artifact"), kMetaflowArtifact);
    preset_->setToolTip(tr("paper: MetaFlow §6.1 (α 1.05, the graph cut by min-cut into subgraphs "
                           "of at most 30 operators, budget per subgraph). artifact: the authors' "
                           "code (α 1.01, budget 300, one search over the whole graph). Sets the "
                           "fields below."));
    alpha_ = new QDoubleSpinBox(box);
    alpha_->setObjectName(QStringLiteral("mfAlpha"));
    alpha_->setRange(1.0, 1.2);
    alpha_->setSingleStep(0.01);
    alpha_->setDecimals(2);
    alpha_->setKeyboardTracking(false);
    alpha_->setToolTip(tr("Relaxation α: a rewritten graph is kept while it costs less than α × "
                          "the best so far (1.00 = greedy; larger passes through worse graphs)"));
    budget_ = new QSpinBox(box);
    budget_->setObjectName(QStringLiteral("mfBudget"));
    budget_->setRange(0, std::numeric_limits<int>::max());
    budget_->setKeyboardTracking(false);
    budget_->setToolTip(tr("Graphs expanded per searched region (block or part) after the first; "
                           "0 expands only the input"));
    split_ = new QSpinBox(box);
    split_->setObjectName(QStringLiteral("mfSplit"));
    split_->setRange(0, 100000);
    split_->setKeyboardTracking(false);
    split_->setToolTip(tr("A graph with more operators is cut by minimum vertex cuts into "
                          "subgraphs of at most this many, each searched on its own (MetaFlow "
                          "§4.3); α relaxes against a subgraph's cost. 0 never splits"));
    objective_ = new QComboBox(box);
    objective_->setObjectName(QStringLiteral("mfObjective"));
    objective_->addItem(tr("seq: Σ operators"), kObjectiveSeq);
    objective_->addItem(tr("ios: IOS-Both per block"), kObjectiveIos);
    objective_->setToolTip(tr("What the search minimises: MetaFlow's sum of single-operator "
                              "latencies, or IOS-Both's latency of each block"));
    then_ = new QComboBox(box);
    then_->setObjectName(QStringLiteral("mfThen"));
    for (const schedulers::Scheduler* s : schedulers::registeredSchedulers()) {
        if (!canFollowMetaflow(fromView(s->key())))
            continue; // a scheduler that rewrites the graph itself
        then_->addItem(strategyLabel(fromView(s->key())), fromView(s->key()));
        then_->setItemData(then_->count() - 1, fromView(s->description()), Qt::ToolTipRole);
    }
    then_->setToolTip(tr("The scheduler run on the rewritten graph G* (a row of the comparison "
                         "when it is neither Sequential nor IOS-Both)"));
    auto* rules = new QHBoxLayout;
    rules->setSpacing(8);
    for (rewrite::RuleId rule : rewrite::kAllRules) {
        // Names only: the descriptions are the tooltips (they would not fit the bar).
        auto* check = new QCheckBox(fromView(rewrite::ruleName(rule)), box);
        check->setObjectName(QStringLiteral("mfRule") + fromView(rewrite::ruleName(rule)));
        check->setToolTip(fromView(rewrite::ruleDescription(rule)));
        rules->addWidget(check);
        rules_.push_back(check);
        connect(check, &QCheckBox::toggled, this, &MetaflowPanel::edited);
    }
    rules->addStretch(1);
    run_ = new QPushButton(tr("Run MetaFlow"), box);
    run_->setObjectName(QStringLiteral("mfRun"));
    run_->setToolTip(tr("Rewrite the open model with these settings, then compare schedulers on "
                        "the original and the rewritten graph (main settings: batch, device, "
                        "cost model, r, s)"));
    cancel_ = new QPushButton(tr("Cancel"), box);
    cancel_->setObjectName(QStringLiteral("mfCancel"));
    cancel_->setToolTip(tr("Stop the MetaFlow search (within 100 ms; the main search is not "
                           "affected)"));
    cancel_->setEnabled(false);
    progress_ = new QProgressBar(box);
    progress_->setRange(0, 1000);
    progress_->setTextVisible(false);
    progress_->hide();
    status_ = new QLabel(tr("Not run yet."), box);
    status_->setObjectName(QStringLiteral("mfStatus"));
    status_->setWordWrap(true);
    auto* grid = new QGridLayout(box);
    grid->setContentsMargins(6, 4, 6, 2);
    grid->setVerticalSpacing(3);
    auto label = [box](const QString& text, QWidget* buddy) {
        auto* l = new QLabel(text, box);
        l->setBuddy(buddy);
        l->setToolTip(buddy->toolTip());
        return l;
    };
    // Three label-field pairs a row, so the tab fits beside the docks at 1280×800.
    grid->addWidget(label(tr("Preset"), preset_), 0, 0);
    grid->addWidget(preset_, 0, 1);
    grid->addWidget(label(tr("α"), alpha_), 0, 2);
    grid->addWidget(alpha_, 0, 3);
    grid->addWidget(label(tr("Budget"), budget_), 0, 4);
    grid->addWidget(budget_, 0, 5);
    grid->addWidget(run_, 0, 6);
    grid->addWidget(label(tr("Objective"), objective_), 1, 0);
    grid->addWidget(objective_, 1, 1);
    grid->addWidget(label(tr("Then"), then_), 1, 2);
    grid->addWidget(then_, 1, 3);
    grid->addWidget(label(tr("Split above"), split_), 1, 4);
    grid->addWidget(split_, 1, 5);
    grid->addWidget(cancel_, 1, 6);
    auto* rulesLabel = new QLabel(tr("Rules"), box);
    rulesLabel->setToolTip(tr("The substitutions the search may apply (docs/metaflow.md "
                              "\"Rules\"); hover a rule for what it does"));
    grid->addWidget(rulesLabel, 2, 0);
    grid->addLayout(rules, 2, 1, 1, 5);
    grid->addWidget(progress_, 2, 6);
    grid->addWidget(status_, 3, 0, 1, 7);
    grid->setColumnStretch(7, 1);
    for (QComboBox* combo : {preset_, objective_, then_}) { // long names elide, not widen
        combo->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
        combo->setMinimumContentsLength(12);
    }

    connect(preset_, &QComboBox::currentIndexChanged, this, [this] {
        if (!loading_)
            applyPreset(preset_->currentData().toString());
    });
    for (QComboBox* combo : {objective_, then_})
        connect(combo, &QComboBox::currentIndexChanged, this, &MetaflowPanel::edited);
    connect(alpha_, &QDoubleSpinBox::valueChanged, this, &MetaflowPanel::edited);
    for (QSpinBox* spin : {budget_, split_})
        connect(spin, &QSpinBox::valueChanged, this, &MetaflowPanel::edited);
    connect(run_, &QPushButton::clicked, this, &MetaflowPanel::runRequested);
    connect(cancel_, &QPushButton::clicked, this, &MetaflowPanel::cancel);
    return box;
}

QWidget* MetaflowPanel::createResults() {
    auto* results = new QWidget(this);
    summary_ = new QLabel(results);
    summary_->setObjectName(QStringLiteral("mfSummary"));
    summary_->setWordWrap(true);
    summary_->setTextFormat(Qt::RichText);
    searchChart_ = new views::MetaflowSearchChart(results);
    comparison_ = new views::ComparisonChart(results);
    comparison_->setPlaceholder(tr("Sequential and IOS-Both on G0 and G* appear here."));
    comparison_->setToolTip(tr("Every row priced under the main settings' cost model; speed-up "
                               "over Sequential on the original graph"));
    metrics_ = table({tr("Metric"), tr("Before (G0)"), tr("After (G*)"), tr("Change"), tr("Ratio")},
                     results, QStringLiteral("mfMetrics"));
    metrics_->setToolTip(tr("The original and the rewritten graph under the same cost model"));
    substitutions_ = table({tr("Step"), tr("Rule"), tr("Sources → created"), tr("Cost after")},
                           results, QStringLiteral("mfSubstitutions"));
    substitutions_->setToolTip(tr("The substitutions that turned G0 into G*, in order; select one "
                                  "(arrow keys move) to see its operators in both graphs"));
    diff_ = new views::GraphDiffView(results);

    auto* numbers = new QSplitter(Qt::Horizontal, results);
    numbers->addWidget(comparison_);
    // The live chart while the search runs, the metrics once it is done (setRunning switches).
    side_ = new QTabWidget(numbers);
    side_->setObjectName(QStringLiteral("mfSide"));
    side_->addTab(metrics_, tr("Before / after"));
    side_->addTab(searchChart_, tr("Search"));
    numbers->addWidget(side_);
    numbers->setStretchFactor(0, 3);
    numbers->setStretchFactor(1, 2);
    auto* graphs = new QSplitter(Qt::Horizontal, results);
    graphs->addWidget(substitutions_);
    graphs->addWidget(diff_);
    graphs->setStretchFactor(1, 3);
    auto* vertical = new QSplitter(Qt::Vertical, results);
    vertical->addWidget(numbers);
    vertical->addWidget(graphs);
    vertical->setStretchFactor(0, 1);
    vertical->setStretchFactor(1, 1);
    // Half each from the start (the charts' size hints would otherwise squeeze the graphs);
    // before the first show, the sizes are taken as proportions.
    vertical->setSizes({1000, 1000});
    auto* layout = new QVBoxLayout(results);
    layout->setContentsMargins(4, 4, 4, 0);
    layout->addWidget(summary_);
    layout->addWidget(vertical, 1);
    // The numbers are this result's settings' only; the graphs and the log are the result's own
    // models (G0 and G*), still true, so they keep their clicks under a banner.
    numbersOverlay_ = new StaleOverlay(numbers, StaleOverlay::Mode::Cover);
    graphsOverlay_ = new StaleOverlay(graphs, StaleOverlay::Mode::Banner);
    connect(substitutions_, &QTableWidget::currentCellChanged, this,
            [this](int row) { showStep(row); });
    return results;
}

MetaflowSettings MetaflowPanel::settings() const {
    MetaflowSettings s;
    s.preset = preset_->currentData().toString();
    s.alpha = alpha_->value();
    s.budget = static_cast<quint64>(budget_->value());
    s.splitThreshold = split_->value();
    for (size_t i = 0; i < rules_.size(); ++i)
        s.rules.set(rewrite::kAllRules[i], rules_[i]->isChecked());
    s.objective = objective_->currentData().toString();
    s.then = then_->currentData().toString();
    return s;
}

void MetaflowPanel::setSettings(const MetaflowSettings& s) {
    const bool wasLoading = loading_;
    loading_ = true;
    preset_->setCurrentIndex(std::max(0, preset_->findData(s.preset)));
    alpha_->setValue(s.alpha);
    budget_->setValue(static_cast<int>(
        std::min<quint64>(s.budget, static_cast<quint64>(std::numeric_limits<int>::max()))));
    split_->setValue(s.splitThreshold);
    for (size_t i = 0; i < rules_.size(); ++i)
        rules_[i]->setChecked(s.rules.on(rewrite::kAllRules[i]));
    objective_->setCurrentIndex(std::max(0, objective_->findData(s.objective)));
    const int then = then_->findData(s.then);
    then_->setCurrentIndex(then >= 0 ? then : std::max(0, then_->findData(kDefaultStrategy)));
    loading_ = wasLoading;
    edited();
}

void MetaflowPanel::applyPreset(const QString& name) {
    MetaflowSettings s = MetaflowSettings::fromPreset(name);
    s.objective = objective_->currentData().toString(); // not part of a preset
    s.then = then_->currentData().toString();
    setSettings(s);
}

void MetaflowPanel::load() {
    QSettings q;
    q.beginGroup(kGroup);
    MetaflowSettings s =
        MetaflowSettings::fromPreset(q.value(QStringLiteral("preset"), kMetaflowPaper).toString());
    s.alpha = std::clamp(q.value(QStringLiteral("alpha"), s.alpha).toDouble(), 1.0, 1.2);
    s.budget = q.value(QStringLiteral("budget"), s.budget).toULongLong();
    s.splitThreshold = q.value(QStringLiteral("splitThreshold"), s.splitThreshold).toInt();
    if (q.contains(QStringLiteral("rules"))) {
        const QStringList on = q.value(QStringLiteral("rules")).toStringList();
        for (rewrite::RuleId rule : rewrite::kAllRules)
            s.rules.set(rule, on.contains(fromView(rewrite::ruleName(rule))));
    }
    s.objective = q.value(QStringLiteral("objective"), s.objective).toString();
    s.then = q.value(QStringLiteral("then"), s.then).toString();
    loading_ = true;
    setSettings(s);
    loading_ = false;
}

void MetaflowPanel::save() const {
    if (loading_)
        return;
    const MetaflowSettings s = settings();
    QSettings q;
    q.beginGroup(kGroup);
    q.setValue(QStringLiteral("preset"), s.preset);
    q.setValue(QStringLiteral("alpha"), s.alpha);
    q.setValue(QStringLiteral("budget"), static_cast<qulonglong>(s.budget));
    q.setValue(QStringLiteral("splitThreshold"), s.splitThreshold);
    QStringList on;
    for (rewrite::RuleId rule : rewrite::kAllRules)
        if (s.rules.on(rule))
            on << fromView(rewrite::ruleName(rule));
    q.setValue(QStringLiteral("rules"), on);
    q.setValue(QStringLiteral("objective"), s.objective);
    q.setValue(QStringLiteral("then"), s.then);
}

void MetaflowPanel::run(JobSettings main) {
    if (!main.model)
        return;
    main.metaflow = settings();
    main.recordStateSpace = false;
    setRunning(true);
    searchChart_->setData(tr("Search progress"), {});
    status_->setText(tr("Searching…"));
    jobs_->start(metaflowJob(main), [this](const auto& result) { showResult(result); });
}

void MetaflowPanel::cancel() {
    if (jobs_->isRunning())
        jobs_->cancel(); // emits cancelled at once; the worker stops within 100 ms
}

bool MetaflowPanel::isRunning() const {
    return jobs_->isRunning();
}

void MetaflowPanel::setRunning(bool running) {
    run_->setEnabled(true);
    cancel_->setEnabled(running);
    progress_->setVisible(running);
    progress_->setRange(0, running ? 0 : 1000); // busy while searching: no honest ETA
    if (running)
        side_->setCurrentWidget(searchChart_);
}

void MetaflowPanel::showProgress(double fraction, double elapsed) {
    const std::shared_ptr<const JobControl> control = jobs_->currentControl();
    if (!control)
        return;
    std::vector<MetaflowPoint> trace = control->metaflowTrace->snapshot();
    std::vector<views::SearchTracePoint> points;
    for (const MetaflowPoint& p : trace)
        points.push_back(
            {static_cast<double>(p.expanded), static_cast<double>(p.queued), p.bestMs, p.poppedMs});
    if (!points.empty())
        searchChart_->setData(tr("Search progress"), std::move(points));
    // The job's estimate and the time left (the search's own progress has no total).
    QString eta;
    if (jobs_->estimateHigh() > 0)
        eta = tr(" · estimated %1")
                  .arg(estimate_text::formatEstimate(jobs_->estimateLow(), jobs_->estimateHigh()));
    if (const QString left = estimate_text::formatLeft(jobs_->secondsLeft(), jobs_->overEstimate());
        !left.isEmpty())
        eta += QStringLiteral(" · ") + left;
    if (fraction >= 0.5) {
        progress_->setRange(0, 1000);
        progress_->setValue(static_cast<int>(fraction * 1000));
        status_->setText(tr("Comparing schedulers on G0 and G*… (%1)%2")
                             .arg(views::formatSeconds(elapsed), eta));
    } else if (!trace.empty()) {
        const MetaflowPoint& p = trace.back();
        status_->setText(tr("expanded %1 · queue %2 · best %3%4")
                             .arg(views::formatCount(static_cast<double>(p.expanded)),
                                  views::formatCount(static_cast<double>(p.queued)),
                                  views::formatMs(p.bestMs), eta));
    }
}

QString MetaflowPanel::progressText() const {
    return status_->text();
}

void MetaflowPanel::showResult(const std::shared_ptr<const MetaflowJobResult>& result) {
    setRunning(false);
    if (!result || !result->metaflow)
        return;
    result_ = result;
    const MetaflowResult& mf = *result->metaflow;
    const rewrite::SearchResult& search = mf.search;

    std::vector<views::SearchTracePoint> points;
    for (const MetaflowPoint& p : mf.trace)
        points.push_back(
            {static_cast<double>(p.expanded), static_cast<double>(p.queued), p.bestMs, p.poppedMs});
    searchChart_->setData(tr("Search: %1 expanded, %2 generated, %3 deduplicated, %4 pruned, %5")
                              .arg(search.stats.expanded)
                              .arg(search.stats.generated)
                              .arg(search.stats.deduplicated)
                              .arg(search.stats.pruned)
                              .arg(views::formatSeconds(search.stats.seconds)),
                          std::move(points));

    std::vector<views::ComparisonEntry> entries;
    for (const MetaflowRow& row : mf.rows)
        entries.push_back({row.label, row.latencyMs, row.searchSeconds, 0, row.transitions,
                           static_cast<double>(row.peakBytes)});
    const double base = mf.rows.empty() ? 0 : mf.rows.front().latencyMs;
    comparison_->setData(
        tr("Rewrite then schedule: %1, %2")
            .arg(QString::fromStdString(mf.original->graph().name), result->costModel),
        std::move(entries), base);

    metrics_->setRowCount(static_cast<int>(mf.metrics.size()));
    for (int r = 0; r < metrics_->rowCount(); ++r) {
        const MetaflowMetric& m = mf.metrics[static_cast<size_t>(r)];
        metrics_->setItem(r, 0, cell(m.name));
        metrics_->setItem(r, 1, cell(metricText(m, m.before), Qt::AlignRight));
        metrics_->setItem(r, 2, cell(metricText(m, m.after), Qt::AlignRight));
        const bool both = m.before && m.after;
        const double delta = both ? *m.after - *m.before : 0;
        QString change = both ? metricText(m, std::abs(delta)) : QStringLiteral("—");
        if (both)
            change.prepend(delta < 0 ? QStringLiteral("−") : QStringLiteral("+"));
        metrics_->setItem(r, 3, cell(change, Qt::AlignRight));
        metrics_->setItem(r, 4,
                          cell(both && *m.before != 0
                                   ? QStringLiteral("×%1").arg(*m.after / *m.before, 0, 'f', 3)
                                   : QStringLiteral("—"),
                               Qt::AlignRight));
    }
    metrics_->resizeColumnsToContents();

    substitutions_->setRowCount(static_cast<int>(search.history.size()));
    std::vector<rewrite::Provenance> steps;
    for (size_t i = 0; i < search.history.size(); ++i) {
        const rewrite::Substitution& sub = search.history[i];
        const int r = static_cast<int>(i);
        const QString rule = fromView(rewrite::ruleName(sub.provenance.match.rule));
        substitutions_->setItem(r, 0, cell(QString::number(i + 1), Qt::AlignRight));
        QTableWidgetItem* ruleItem = cell(rule);
        ruleItem->setToolTip(fromView(rewrite::ruleDescription(sub.provenance.match.rule)));
        substitutions_->setItem(r, 1, ruleItem);
        QTableWidgetItem* what = cell(QStringLiteral("%1 → %2").arg(names(sub.provenance.sources),
                                                                    names(sub.provenance.created)));
        what->setToolTip(what->text());
        substitutions_->setItem(r, 2, what);
        substitutions_->setItem(r, 3, cell(views::formatMs(sub.costAfterMs), Qt::AlignRight));
        steps.push_back(sub.provenance);
    }
    substitutions_->resizeColumnsToContents();
    diff_->setDiff(mf.original, mf.rewritten, std::move(steps));

    // The headline: which graph is faster under each scheduler, and what changed.
    auto gain = [](const MetaflowRow& before, const MetaflowRow& after) {
        const double speedup = after.latencyMs > 0 ? before.latencyMs / after.latencyMs : 0;
        return tr("%1 → %2 (×%3 %4)")
            .arg(views::formatMs(before.latencyMs), views::formatMs(after.latencyMs))
            .arg(speedup >= 1 || speedup == 0 ? speedup : 1 / speedup, 0, 'f', 3)
            .arg(speedup >= 1 ? tr("faster") : tr("slower"));
    };
    if (mf.rows.size() >= 4 && mf.metrics.size() > 3)
        summary_->setText(tr("<b>On G*: IOS-Both %1 · Sequential %2</b> · %3 substitutions · "
                             "MetaFlow kernels %4 → %5 · search %6")
                              .arg(gain(mf.rows[1], mf.rows[3]), gain(mf.rows[0], mf.rows[2]))
                              .arg(search.history.size())
                              .arg(metricText(mf.metrics[3], mf.metrics[3].before),
                                   metricText(mf.metrics[3], mf.metrics[3].after),
                                   views::formatSeconds(search.stats.seconds)));
    status_->setText(tr("Done: %1 substitutions.").arg(search.history.size()));
    side_->setCurrentWidget(metrics_);
    numbersOverlay_->setMessage({});
    graphsOverlay_->setMessage({});
    Q_EMIT resultShown();
}

void MetaflowPanel::showStep(int row) {
    diff_->showStep(row);
}

QString MetaflowPanel::staleMessage() const {
    return numbersOverlay_->message();
}

void MetaflowPanel::edited() {
    if (loading_)
        return;
    save();
    if (main_)
        updateStaleness(main_->model, *main_);
}

void MetaflowPanel::updateStaleness(const views::LoadedModelPtr& model, JobSettings current) {
    current.model = model;
    main_ = current;
    if (!result_)
        return;
    current.model = model;
    current.metaflow = settings();
    const QString why = metaflowStaleness(result_->settings, current);
    const QString text =
        why.isEmpty() ? QString() : tr("Out of date — Run MetaFlow again (%1)").arg(why);
    numbersOverlay_->setMessage(text);
    graphsOverlay_->setMessage(text);
}

void MetaflowPanel::clear() {
    if (jobs_->isRunning())
        jobs_->cancel();
    result_.reset();
    summary_->clear();
    searchChart_->setPlaceholder(tr("Run the search to see its progress."));
    comparison_->setPlaceholder(tr("Sequential and IOS-Both on G0 and G* appear here."));
    metrics_->setRowCount(0);
    substitutions_->setRowCount(0);
    diff_->setDiff(nullptr, nullptr, {});
    numbersOverlay_->setMessage({});
    graphsOverlay_->setMessage({});
    status_->setText(tr("Not run yet."));
}

QString MetaflowPanel::description() const {
    return tr("MetaFlow: rewrite the graph (relaxed substitutions), then compare Sequential and "
              "IOS-Both on the original and the rewritten graph");
}

} // namespace ios::gui
