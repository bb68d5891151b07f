// SPDX-License-Identifier: Apache-2.0
#include "settings_panel.h"

#include "cost/cost_model_factory.h"
#include "cost/device_profile.h"
#include "cuda_backend.h"
#include "estimate_text.h"
#include "schedulers/bits.h"
#include "schedulers/parallel_jobs.h"
#include "units.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QFileDialog>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QProgressBar>
#include <QPushButton>
#include <QSettings>
#include <QSignalBlocker>
#include <QSpinBox>
#include <QToolButton>
#include <QVBoxLayout>
#include <algorithm>
#include <cmath>
#include <limits>

namespace ios::gui {

namespace {
QSpinBox* spin(QWidget* parent, int lo, int hi, const QString& tip, const QString& name) {
    auto* box = new QSpinBox(parent);
    box->setRange(lo, hi);
    box->setToolTip(tip);
    box->setObjectName(name);
    // Typed values apply on Enter or focus loss: typing "16" must not search batch 1 first.
    box->setKeyboardTracking(false);
    return box;
}
} // namespace

SettingsPanel::SettingsPanel(QWidget* parent) : QWidget(parent) {
    strategy_ = new QComboBox(this);
    strategy_->setObjectName(QStringLiteral("strategy"));
    for (const schedulers::Scheduler* sch : schedulers::registeredSchedulers()) {
        const QString key = QString::fromUtf8(sch->key().data(), sch->key().size());
        strategy_->addItem(strategyLabel(key), key);
        strategy_->setItemData(
            strategy_->count() - 1,
            QString::fromUtf8(sch->description().data(), sch->description().size()),
            Qt::ToolTipRole);
    }
    strategy_->setToolTip(tr("Scheduler: baselines, or the IOS dynamic program with merge "
                             "stages, parallel stages or both (IOS paper §4)"));
    r_ = spin(this, 1, 100, tr("r: max operators per group of a parallel stage (pruning)"),
              QStringLiteral("r"));
    s_ = spin(this, 1, 100, tr("s: max groups per parallel stage (pruning); 100 = unpruned"),
              QStringLiteral("s"));
    maxPart_ = spin(this, 1, schedulers::detail::kMaxPartOperators, maxPartTip(),
                    QStringLiteral("maxPart"));
    batch_ = spin(this, 1, 4096, tr("Batch size the cost model assumes"), QStringLiteral("batch"));
    threads_ = spin(this, 1, schedulers::kMaxThreads,
                    tr("Threads for DP parts and for the independent searches of comparisons, "
                       "sweeps and specializations; results are the same for every count "
                       "(this machine: %1 cores)")
                        .arg(schedulers::defaultThreadCount()),
                    QStringLiteral("threads"));
    device_ = new QComboBox(this);
    device_->setObjectName(QStringLiteral("device"));
    for (const cost::DeviceProfile& d : cost::bundledDevices())
        device_->addItem(QString::fromStdString(d.name), QString::fromStdString(d.name));
    device_->setToolTip(tr("Simulated GPU whose cost model prices the stages"));
    endings_ = new QComboBox(this);
    endings_->setObjectName(QStringLiteral("endings"));
    endings_->addItem(tr("Reference"), static_cast<int>(schedulers::Endings::Reference));
    endings_->addItem(tr("All endings"), static_cast<int>(schedulers::Endings::All));
    endings_->setToolTip(tr("Reference: the IOS authors' enumeration (one source per group); "
                            "All: every ending (docs/algorithms.md §2)"));
    costModel_ = new QComboBox(this);
    costModel_->setObjectName(QStringLiteral("costModel"));
    // The engine's registry, in its order; a model that measures needs a GPU here.
    for (const cost::CostModelEntry& e : cost::costModelEntries())
        if (e.isAvailable() && (!e.can.needsGpu || profiling::cudaDevicePresent()))
            costModel_->addItem(QString::fromStdString(e.label), costModelKey(e));
    costModel_->setToolTip(
        tr("What prices the stages: the simulated GPU (device profile), the analytic roofline "
           "(the device's peak figures), measurements replayed from a cache file taken on a "
           "GPU machine (ios-sched measure / --cost measured), or a measurement store shared by "
           "a team (a SQLite file or a postgresql:// server filled by ios-sched profile --store; "
           "docs/store.md)"));
    cacheFile_ = new QLineEdit(this);
    cacheFile_->setObjectName(QStringLiteral("cacheFile"));
    cacheFile_->setPlaceholderText(tr("cache (.json) or store (.db, postgresql://…)"));
    cacheFile_->setToolTip(
        tr("The measurement cache (a .json file) the cache cost model replays, or the "
           "measurement store the store cost model reads: a SQLite file or a postgresql:// URL, "
           "with @DEVICE to choose one of its devices (ios-sched store info lists them)"));
    storeFallback_ = new QCheckBox(tr("Simulate stages the store lacks"), this);
    storeFallback_->setObjectName(QStringLiteral("storeFallback"));
    storeFallback_->setToolTip(
        tr("Price the stages the measurement store has no measurement of with the simulated "
           "GPU (the result says how many) instead of refusing the search"));
    browseCache_ = new QToolButton(this);
    browseCache_->setObjectName(QStringLiteral("browseCache"));
    browseCache_->setText(QStringLiteral("…"));
    browseCache_->setToolTip(tr("Choose a measurement cache or store file"));
    auto* cacheRow = new QHBoxLayout;
    cacheRow->setContentsMargins(0, 0, 0, 0);
    cacheRow->addWidget(cacheFile_, 1);
    cacheRow->addWidget(browseCache_);

    budget_ = new QLineEdit(this);
    budget_->setObjectName(QStringLiteral("memoryBudget"));
    budget_->setPlaceholderText(tr("none (e.g. 24 MiB)"));
    budget_->setClearButtonEnabled(true);
    budget_->setToolTip(
        tr("Cap on peak activation memory for the IOS strategies: the fastest schedule whose "
           "peak stays within it (docs/memory.md). Units B, KiB, MiB, GiB (powers of 1024) or "
           "KB, MB, GB (powers of 1000); empty or 0: none. The Memory tab's trade-off chart "
           "sets it by dragging."));
    budgetProblem_ = new QWidget(this);
    budgetProblem_->setObjectName(QStringLiteral("budgetProblem"));
    budgetNote_ = new QLabel(budgetProblem_);
    budgetNote_->setObjectName(QStringLiteral("budgetNote"));
    budgetNote_->setWordWrap(true);
    budgetNote_->setStyleSheet(QStringLiteral("color: #b00020;"));
    budgetNote_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    useSuggested_ = new QPushButton(budgetProblem_);
    useSuggested_->setObjectName(QStringLiteral("useSuggestedBudget"));
    auto* problemRow = new QVBoxLayout(budgetProblem_);
    problemRow->setContentsMargins(0, 0, 0, 0);
    problemRow->addWidget(budgetNote_);
    problemRow->addWidget(useSuggested_, 0, Qt::AlignLeft);
    budgetProblem_->hide();

    auto* form = new QFormLayout;
    form->addRow(tr("Strategy"), strategy_);
    form->addRow(tr("Max group size r"), r_);
    form->addRow(tr("Max groups s"), s_);
    // The limit in the label: a typed 200 cannot become 20 unnoticed.
    form->addRow(tr("Max part size (≤ %1)").arg(schedulers::detail::kMaxPartOperators), maxPart_);
    form->addRow(tr("Batch size"), batch_);
    form->addRow(tr("Device"), device_);
    form->addRow(tr("Endings"), endings_);
    form->addRow(tr("Cost model"), costModel_);
    form->addRow(tr("Measurements"), cacheRow);
    form->addRow(QString(), storeFallback_);
    form->addRow(tr("Memory budget"), budget_);
    form->addRow(budgetProblem_);
    form->addRow(tr("Threads"), threads_);
    autoRun_ = new QDoubleSpinBox(this);
    autoRun_->setObjectName(QStringLiteral("autoRun"));
    autoRun_->setRange(0, 3600);
    autoRun_->setDecimals(1);
    autoRun_->setSingleStep(0.5);
    autoRun_->setSuffix(tr(" s"));
    autoRun_->setSpecialValueText(tr("never"));
    autoRun_->setKeyboardTracking(false);
    autoRun_->setValue(kDefaultAutoRunSeconds);
    autoRun_->setToolTip(
        tr("A settings change starts the search by itself only when its up-front estimate is "
           "below this; longer searches wait for Run (F5). 0: never start by itself."));
    form->addRow(tr("Auto-run under"), autoRun_);

    run_ = new QPushButton(tr("Run"), this);
    run_->setObjectName(QStringLiteral("run"));
    run_->setShortcut(Qt::Key_F5);
    run_->setToolTip(tr("Run the search with these settings (F5)"));
    cancel_ = new QPushButton(tr("Cancel"), this);
    cancel_->setObjectName(QStringLiteral("cancel"));
    cancel_->setShortcut(Qt::Key_Escape);
    cancel_->setToolTip(tr("Stop the running search (Esc)"));
    progress_ = new QProgressBar(this);
    progress_->setObjectName(QStringLiteral("progress"));
    progress_->setRange(0, 1000);
    progress_->setTextVisible(false);
    estimate_ = new QLabel(this);
    estimate_->setObjectName(QStringLiteral("estimate"));
    estimate_->setWordWrap(true);
    estimate_->setToolTip(
        tr("The search's up-front estimate: its states, transitions and distinct stages counted "
           "by the DP without pricing, plus the stages it will price times this cost model's "
           "time per stage, measured on a sample (docs/performance.md)"));
    estimate_->hide();
    staleNote_ = new QLabel(this);
    staleNote_->setObjectName(QStringLiteral("staleNote"));
    staleNote_->setWordWrap(true);
    staleNote_->setStyleSheet(QStringLiteral("color: #a15c00; font-weight: bold;"));
    staleNote_->hide();
    result_ = new QLabel(this);
    result_->setWordWrap(true);
    result_->setTextInteractionFlags(Qt::TextSelectableByMouse);

    auto* buttons = new QHBoxLayout;
    buttons->addWidget(run_);
    buttons->addWidget(cancel_);
    auto* layout = new QVBoxLayout(this);
    layout->addLayout(form);
    layout->addLayout(buttons);
    layout->addWidget(progress_);
    layout->addWidget(estimate_);
    layout->addWidget(staleNote_);
    layout->addWidget(result_);
    layout->addStretch(1);

    connect(run_, &QPushButton::clicked, this, &SettingsPanel::runRequested);
    connect(cancel_, &QPushButton::clicked, this, &SettingsPanel::cancelRequested);
    auto changed = [this] {
        updateEnabled();
        if (!blockChanged_)
            Q_EMIT settingsChanged();
    };
    for (QComboBox* c : {strategy_, device_, endings_, costModel_})
        connect(c, &QComboBox::currentIndexChanged, this, changed);
    connect(cacheFile_, &QLineEdit::editingFinished, this, changed);
    connect(storeFallback_, &QCheckBox::toggled, this, changed);
    connect(budget_, &QLineEdit::editingFinished, this, &SettingsPanel::applyBudgetText);
    connect(budget_, &QLineEdit::textChanged, this, [this](const QString& text) {
        if (text.isEmpty()) // the clear button: no budget at once
            applyBudgetText();
    });
    connect(useSuggested_, &QPushButton::clicked, this, [this] { chooseBudget(suggestedBudget_); });
    connect(browseCache_, &QToolButton::clicked, this, [this] {
        const QString file =
            QFileDialog::getOpenFileName(this, tr("Measurements"), cacheFile_->text(),
                                         tr("Measurement caches and stores (*.json *.db "
                                            "*.sqlite);;All files (*)"));
        if (file.isEmpty())
            return;
        cacheFile_->setText(file);
        // A JSON file is a cache; anything else a store (SQLite).
        const int cache = costModel_->findData(
            file.endsWith(QLatin1String(".json"), Qt::CaseInsensitive) ? QStringLiteral("cache")
                                                                       : QStringLiteral("store"));
        const QSignalBlocker block(costModel_);
        costModel_->setCurrentIndex(cache);
        updateEnabled();
        if (!blockChanged_)
            Q_EMIT settingsChanged();
    });
    for (QSpinBox* sb : {r_, s_, maxPart_, batch_})
        connect(sb, &QSpinBox::valueChanged, this, changed);
    setSettings(JobSettings{});
    setRunning(false);
}

JobSettings SettingsPanel::settings() const {
    JobSettings s;
    s.strategy = strategy_->currentData().toString();
    s.r = r_->value();
    s.s = s_->value();
    s.maxPartSize = maxPart_->value();
    s.batch = batch_->value();
    s.device = device_->currentData().toString();
    s.endings = static_cast<schedulers::Endings>(endings_->currentData().toInt());
    s.costModel = costModel_->currentData().toString();
    if (!costModelEntry(s.costModel))
        s.costModel = kDefaultCostModel;
    s.cacheFile = cacheFile_->text();
    s.storeFallback = storeFallback_->isChecked();
    s.threads = threads_->value();
    const schedulers::Scheduler* sch = schedulerFor(s.strategy);
    s.memoryBudget =
        sch != nullptr && sch->reads(schedulers::Knob::MemoryBudget) ? budgetBytes_ : 0;
    return s;
}

void SettingsPanel::setSettings(const JobSettings& s) {
    blockChanged_ = true;
    // Saved settings may hold an old name ("both") or a scheduler this build lacks.
    const schedulers::Scheduler* sch = schedulerFor(s.strategy);
    const QString key =
        sch ? QString::fromUtf8(sch->key().data(), sch->key().size()) : kDefaultStrategy;
    strategy_->setCurrentIndex(std::max(0, strategy_->findData(key)));
    r_->setValue(s.r);
    s_->setValue(s.s);
    maxPart_->setValue(s.maxPartSize);
    batch_->setValue(s.batch);
    const int dev = device_->findData(s.device, Qt::UserRole, Qt::MatchFixedString);
    device_->setCurrentIndex(dev >= 0 ? dev : 0);
    endings_->setCurrentIndex(endings_->findData(static_cast<int>(s.endings)));
    costModel_->setCurrentIndex(std::max(0, costModel_->findData(s.costModel)));
    cacheFile_->setText(s.cacheFile);
    storeFallback_->setChecked(s.storeFallback);
    threads_->setValue(s.threads);
    budgetBytes_ = std::max<int64_t>(0, s.memoryBudget);
    budget_->setText(budgetBytes_ > 0 ? views::exactBytes(budgetBytes_) : QString());
    budgetProblem_->hide();
    blockChanged_ = false;
    updateEnabled();
    Q_EMIT settingsChanged();
}

QString SettingsPanel::maxPartTip() const {
    QString tip = tr("Operators per DP part (1–%1, the dynamic program's limit), for blocks "
                     "without explicit parts")
                      .arg(schedulers::detail::kMaxPartOperators);
    if (explicitBlocks_ > 0 && explicitBlocks_ == blockCount_)
        tip += tr(". This model's blocks all have explicit parts: it does not apply here");
    else if (explicitBlocks_ > 0)
        tip += tr(". Applies to %1 of this model's %2 blocks (the others have explicit parts)")
                   .arg(blockCount_ - explicitBlocks_)
                   .arg(blockCount_);
    return tip;
}

void SettingsPanel::setExplicitParts(int explicitBlocks, int blocks) {
    explicitBlocks_ = explicitBlocks;
    blockCount_ = blocks;
    maxPart_->setToolTip(maxPartTip());
    updateEnabled();
}

void SettingsPanel::updateEnabled() {
    // A control is enabled when the chosen scheduler reads its knob (scheduler.h).
    const schedulers::Scheduler* sch = schedulerFor(strategy_->currentData().toString());
    auto reads = [sch](schedulers::Knob k) { return sch != nullptr && sch->reads(k); };
    r_->setEnabled(reads(schedulers::Knob::MaxGroupSize));
    s_->setEnabled(reads(schedulers::Knob::MaxNumGroups));
    endings_->setEnabled(reads(schedulers::Knob::Endings));
    // Blocks with explicit parts ignore it: off when every block has them (maxPartTip says).
    maxPart_->setEnabled(reads(schedulers::Knob::MaxPartSize) &&
                         (explicitBlocks_ == 0 || explicitBlocks_ < blockCount_));
    batch_->setEnabled(reads(schedulers::Knob::Batch));
    // The cost model's controls, as its registry entry says (cost_model_factory.h).
    const std::optional<cost::CostModelEntry> entry =
        costModelEntry(costModel_->currentData().toString());
    device_->setEnabled(entry && entry->can.usesDevice && reads(schedulers::Knob::Device));
    budget_->setEnabled(reads(schedulers::Knob::MemoryBudget));
    cacheFile_->setEnabled(entry && entry->takesArgument());
    storeFallback_->setEnabled(entry && entry->can.simulatedFallback);
    browseCache_->setEnabled(true);
}

void SettingsPanel::applyBudgetText() {
    const QString text = budget_->text().trimmed();
    const std::optional<int64_t> bytes =
        text.isEmpty() ? std::optional<int64_t>(0) : views::parseBytes(text);
    if (!bytes) {
        showBudgetNote(tr("Not a size: '%1'. Write e.g. 24 MiB, 512 KiB or 25165824 (bytes); "
                          "empty for none.")
                           .arg(text),
                       0);
        return;
    }
    clearBudgetNote();
    if (*bytes == budgetBytes_)
        return;
    budgetBytes_ = *bytes;
    if (!blockChanged_)
        Q_EMIT settingsChanged();
}

void SettingsPanel::chooseBudget(int64_t bytes, const QString& strategy) {
    blockChanged_ = true;
    if (const int row = strategy_->findData(strategy); !strategy.isEmpty() && row >= 0)
        strategy_->setCurrentIndex(row);
    budgetBytes_ = std::max<int64_t>(0, bytes);
    budget_->setText(budgetBytes_ > 0 ? views::exactBytes(budgetBytes_) : QString());
    clearBudgetNote();
    blockChanged_ = false;
    updateEnabled();
    Q_EMIT settingsChanged();
}

void SettingsPanel::showBudgetTooSmall(int64_t budget, int64_t smallestPeak) {
    showBudgetNote(tr("No schedule fits within %1: the least peak any schedule of this model "
                      "reaches is %2 (%3 bytes).")
                       .arg(views::formatBytes(static_cast<double>(budget)),
                            views::formatBytes(static_cast<double>(smallestPeak)))
                       .arg(smallestPeak),
                   smallestPeak);
}

void SettingsPanel::showBudgetNote(const QString& text, int64_t suggestion) {
    budgetNote_->setText(text);
    suggestedBudget_ = suggestion;
    useSuggested_->setVisible(suggestion > 0);
    useSuggested_->setText(tr("Use %1").arg(views::formatBytes(static_cast<double>(suggestion))));
    useSuggested_->setToolTip(
        tr("Set the budget to the least peak any schedule reaches and search again"));
    budgetProblem_->show();
}

void SettingsPanel::clearBudgetNote() {
    budgetProblem_->hide();
    suggestedBudget_ = 0;
}

void SettingsPanel::setRunning(bool running) {
    run_->setEnabled(true);
    cancel_->setEnabled(running);
    progress_->setTextVisible(running);
    if (!running) {
        progress_->setValue(0);
        progress_->setFormat(QString());
    }
}

void SettingsPanel::setProgress(double fraction, quint64 done, quint64 total, double elapsed,
                                std::optional<double> left, bool over) {
    fraction = std::clamp(fraction, 0.0, 1.0);
    progress_->setValue(static_cast<int>(fraction * 1000.0));
    progress_->setFormat(estimate_text::formatProgress(fraction, done, total, elapsed, left, over));
}

QString SettingsPanel::progressText() const {
    return progress_->format();
}

void SettingsPanel::setResultText(const QString& text) {
    result_->setText(text);
}

QString SettingsPanel::resultText() const {
    return result_->text();
}

void SettingsPanel::setEstimateText(const QString& text) {
    estimate_->setText(text);
    estimate_->setVisible(!text.isEmpty());
}

QString SettingsPanel::estimateText() const {
    return estimate_->text();
}

void SettingsPanel::setStaleNote(const QString& text) {
    staleNote_->setText(text);
    staleNote_->setVisible(!text.isEmpty());
}

QString SettingsPanel::staleNote() const {
    return staleNote_->text();
}

double SettingsPanel::autoRunSeconds() const {
    return autoRun_->value();
}

void SettingsPanel::load() {
    QSettings q;
    q.beginGroup(QStringLiteral("search"));
    JobSettings s;
    s.strategy = q.value(QStringLiteral("strategy"), s.strategy).toString(); // aliases ok
    // A saved number beyond int (edited by hand: 4294967297) keeps the default instead of
    // narrowing; the spin boxes then clamp what is left to their ranges.
    auto intSetting = [&q](const QString& key, int fallback) {
        bool ok = false;
        const qlonglong v = q.value(key, fallback).toLongLong(&ok);
        return ok && v >= std::numeric_limits<int>::min() && v <= std::numeric_limits<int>::max()
                   ? static_cast<int>(v)
                   : fallback;
    };
    s.r = intSetting(QStringLiteral("r"), s.r);
    s.s = intSetting(QStringLiteral("s"), s.s);
    s.maxPartSize = intSetting(QStringLiteral("maxPartSize"), s.maxPartSize);
    s.batch = intSetting(QStringLiteral("batch"), s.batch);
    s.device = q.value(QStringLiteral("device"), QString::fromUtf8(cost::kDefaultDeviceName.data(),
                                                                   cost::kDefaultDeviceName.size()))
                   .toString();
    s.endings = q.value(QStringLiteral("endings")).toString() == QLatin1String("all")
                    ? schedulers::Endings::All
                    : schedulers::Endings::Reference;
    s.costModel = q.value(QStringLiteral("costModel"), kDefaultCostModel).toString();
    if (!costModelEntry(s.costModel))
        s.costModel = kDefaultCostModel;
    s.cacheFile = q.value(QStringLiteral("cacheFile")).toString();
    s.storeFallback = q.value(QStringLiteral("storeFallback"), false).toBool();
    s.threads = intSetting(QStringLiteral("threads"), schedulers::defaultThreadCount());
    // Bytes; a hand-edited value out of [0, 2^50] means none.
    const qlonglong budget = q.value(QStringLiteral("memoryBudget"), 0).toLongLong();
    s.memoryBudget = budget >= 0 && budget <= (qlonglong{1} << 50) ? budget : 0;
    autoRun_->setValue(
        q.value(QStringLiteral("autoRunSeconds"), kDefaultAutoRunSeconds).toDouble());
    setSettings(s);
}

void SettingsPanel::save() const {
    const JobSettings s = settings();
    QSettings q;
    q.beginGroup(QStringLiteral("search"));
    q.setValue(QStringLiteral("strategy"), s.strategy);
    q.setValue(QStringLiteral("r"), s.r);
    q.setValue(QStringLiteral("s"), s.s);
    q.setValue(QStringLiteral("maxPartSize"), s.maxPartSize);
    q.setValue(QStringLiteral("batch"), s.batch);
    q.setValue(QStringLiteral("device"), s.device);
    q.setValue(QStringLiteral("endings"), s.endings == schedulers::Endings::All
                                              ? QStringLiteral("all")
                                              : QStringLiteral("reference"));
    q.setValue(QStringLiteral("costModel"), s.costModel);
    q.setValue(QStringLiteral("cacheFile"), s.cacheFile);
    q.setValue(QStringLiteral("storeFallback"), s.storeFallback);
    q.setValue(QStringLiteral("threads"), s.threads);
    q.setValue(QStringLiteral("memoryBudget"), static_cast<qlonglong>(budgetBytes_));
    q.setValue(QStringLiteral("autoRunSeconds"), autoRun_->value());
}

} // namespace ios::gui
