// SPDX-License-Identifier: Apache-2.0
#include "diff_tab.h"

#include "engine_jobs.h"
#include "job_controller.h"
#include "main_window.h"
#include "session.h"
#include "settings_panel.h"
#include "timeline_canvas.h"
#include "units.h"
#include "view_registry.h"

#include <QComboBox>
#include <QEvent>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QProgressBar>
#include <QPushButton>
#include <QSplitter>
#include <QTabWidget>
#include <QTableWidget>
#include <QVBoxLayout>
#include <algorithm>

namespace ios::gui {

namespace {

// At most this many sentences on top (the largest gains); the Blocks table has every block.
constexpr int kShownSentences = 6;

QString chooseHint() {
    return DiffTab::tr("Choose A and B and press Compare (or Ctrl+click a bar in the "
                       "Comparison tab).");
}

QTableWidget* makeTable(const QString& name, const QStringList& headers, QWidget* parent) {
    auto* t = new QTableWidget(parent);
    t->setObjectName(name);
    t->setColumnCount(static_cast<int>(headers.size()));
    t->setHorizontalHeaderLabels(headers);
    t->setEditTriggers(QAbstractItemView::NoEditTriggers);
    t->setSelectionBehavior(QAbstractItemView::SelectRows);
    t->setAlternatingRowColors(true);
    t->verticalHeader()->hide();
    t->verticalHeader()->setDefaultSectionSize(t->fontMetrics().height() + 6);
    t->horizontalHeader()->setStretchLastSection(true);
    return t;
}

void setRow(QTableWidget* t, int row, const QStringList& cells) {
    for (int c = 0; c < cells.size(); ++c) {
        auto* item = new QTableWidgetItem(cells[c]);
        if (c > 0)
            item->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
        t->setItem(row, c, item);
    }
}

QString us(double v) {
    return views::formatMs(v / 1000.0);
}

QString signedUs(double v) {
    return (v > 0 ? QStringLiteral("+") : QString()) + us(v);
}

QString share(double part, double whole) {
    return whole > 0 ? QStringLiteral("%1 %").arg(100.0 * part / whole, 0, 'f', 1)
                     : QStringLiteral("–");
}

void fillDeltas(QTableWidget* t, const std::vector<eval::LatencyDelta>& deltas, bool stages) {
    t->setRowCount(static_cast<int>(deltas.size()));
    for (size_t i = 0; i < deltas.size(); ++i) {
        const eval::LatencyDelta& d = deltas[i];
        QStringList cells{QString::number(d.block)};
        if (stages)
            cells << QString::number(d.stage);
        cells << us(d.aUs) << us(d.bUs) << signedUs(d.gainUs())
              << (d.bUs > 0 ? QStringLiteral("×%1").arg(d.aUs / d.bUs, 0, 'f', 2)
                            : QStringLiteral("–"));
        setRow(t, static_cast<int>(i), cells);
    }
    t->resizeColumnsToContents();
}

} // namespace

DiffTab::DiffTab(QWidget* parent)
    : QWidget(parent), jobs_(new JobController(this)), a_(new QComboBox(this)),
      b_(new QComboBox(this)), compare_(new QPushButton(tr("Compare"), this)),
      cancel_(new QPushButton(tr("Cancel"), this)), progress_(new QProgressBar(this)),
      sentences_(new QLabel(this)), aView_(new views::TimelineCanvas(this)),
      bView_(new views::TimelineCanvas(this)), tables_(new QTabWidget(this)) {
    a_->setObjectName(QStringLiteral("diffA"));
    b_->setObjectName(QStringLiteral("diffB"));
    a_->setToolTip(tr("Schedule A: the baseline"));
    b_->setToolTip(tr("Schedule B: compared against A"));
    compare_->setObjectName(QStringLiteral("diffCompare"));
    compare_->setToolTip(tr("Run A and B under the current settings and compare them"));
    cancel_->setObjectName(QStringLiteral("diffCancel"));
    cancel_->setEnabled(false);
    progress_->setRange(0, 1000);
    progress_->setMaximumWidth(180);
    progress_->hide();
    sentences_->setObjectName(QStringLiteral("diffSentences"));
    sentences_->setWordWrap(true);
    sentences_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    sentences_->setText(chooseHint());
    fillSources();
    blocks_ = makeTable(QStringLiteral("diffBlocks"),
                        {tr("Block"), tr("A"), tr("B"), tr("Gain"), tr("Speed-up")}, this);
    stages_ =
        makeTable(QStringLiteral("diffStages"),
                  {tr("Block"), tr("Stage"), tr("A"), tr("B"), tr("Gain"), tr("Speed-up")}, this);
    moved_ = makeTable(QStringLiteral("diffMoved"),
                       {tr("Operator"), tr("Block"), tr("Stage A → B"), tr("Stream A → B"),
                        tr("Start in block A → B")},
                       this);
    breakdown_ =
        makeTable(QStringLiteral("diffBreakdown"), {tr("Where time goes"), tr("A"), tr("B")}, this);
    tables_->addTab(blocks_, tr("Blocks by gain"));
    tables_->addTab(stages_, tr("Stages by gain"));
    tables_->addTab(moved_, tr("Kernels that moved"));
    tables_->addTab(breakdown_, tr("Where time goes"));
    auto* bar = new QHBoxLayout;
    bar->setContentsMargins(6, 4, 6, 0);
    bar->addWidget(new QLabel(tr("A:"), this));
    bar->addWidget(a_);
    bar->addWidget(new QLabel(tr("B:"), this));
    bar->addWidget(b_);
    bar->addWidget(compare_);
    bar->addWidget(cancel_);
    bar->addWidget(progress_);
    bar->addStretch(1);
    auto* timelines = new QSplitter(Qt::Vertical, this);
    timelines->addWidget(aView_);
    timelines->addWidget(bView_);
    auto* split = new QSplitter(Qt::Vertical, this);
    split->addWidget(timelines);
    split->addWidget(tables_);
    // Room for the tables too at 1280×800: the canvases scroll their lanes.
    for (views::TimelineCanvas* canvas : {aView_, bView_}) {
        canvas->setMinimumHeight(120);
        canvas->installEventFilter(this); // one time axis: zoom and pan follow each other
    }
    split->setStretchFactor(0, 3);
    split->setStretchFactor(1, 2);
    split->setSizes({360, 240});
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addLayout(bar);
    layout->addWidget(sentences_);
    layout->addWidget(split, 1);
    sentences_->setContentsMargins(8, 2, 8, 2);
    connect(compare_, &QPushButton::clicked, this, &DiffTab::compareChosen);
    connect(cancel_, &QPushButton::clicked, jobs_, &JobController::cancel);
    connect(jobs_, &JobController::progressChanged, this, [this](quint64, double fraction) {
        progress_->setValue(static_cast<int>(fraction * 1000));
    });
    connect(jobs_, &JobController::cancelled, this, [this] {
        setRunning(false);
        sentences_->setText(tr("Cancelled. Press Compare to run it again."));
    });
    connect(jobs_, &JobController::failed, this, [this](quint64, const QString& message) {
        setRunning(false);
        sentences_->setText(tr("The comparison failed: %1").arg(message));
    });
}

bool DiffTab::eventFilter(QObject* watched, QEvent* event) {
    // A canvas about to paint another window than the one both last showed was zoomed or
    // panned: the other follows.
    if (event->type() == QEvent::Paint && result_ && (watched == aView_ || watched == bView_)) {
        const views::TimeAxis& axis = (watched == aView_ ? aView_ : bView_)->axis();
        if (axis.visibleStart() != shownUs_.first || axis.visibleEnd() != shownUs_.second) {
            shownUs_ = {axis.visibleStart(), axis.visibleEnd()};
            (watched == aView_ ? bView_ : aView_)->setVisibleRange(shownUs_.first, shownUs_.second);
        }
    }
    return QWidget::eventFilter(watched, event);
}

void DiffTab::fillSources() {
    for (QComboBox* box : {a_, b_})
        for (const schedulers::Scheduler* s : schedulers::registeredSchedulers()) {
            const QString key =
                QString::fromUtf8(s->key().data(), static_cast<qsizetype>(s->key().size()));
            box->addItem(strategyLabel(key), key);
        }
    a_->setCurrentIndex(std::max(0, a_->findData(QStringLiteral("sequential"))));
    b_->setCurrentIndex(std::max(0, b_->findData(kDefaultStrategy)));
}

DiffSource DiffTab::source(int side) const {
    const QComboBox* box = side == 0 ? a_ : b_;
    return {DiffSource::Kind::Scheduler, box->currentData().toString()};
}

void DiffTab::setSettings(const JobSettings& settings) {
    settings_ = settings;
    settings_.recordStateSpace = false;
}

void DiffTab::compare(const DiffSource& a, const DiffSource& b) {
    for (auto [box, s] : {std::pair{a_, &a}, std::pair{b_, &b}}) {
        const int index = box->findData(s->key);
        if (index >= 0)
            box->setCurrentIndex(index);
    }
    compareChosen();
}

void DiffTab::compareChosen() {
    if (settingsSource_)
        setSettings(settingsSource_());
    if (!settings_.model) {
        sentences_->setText(tr("Open a model first."));
        return;
    }
    setRunning(true);
    sentences_->setText(tr("Comparing %1 and %2…").arg(source(0).label(), source(1).label()));
    jobs_->start(diffJob(settings_, source(0), source(1)),
                 [this](const std::shared_ptr<const DiffJobResult>& result) {
                     setRunning(false);
                     showResult(result);
                 });
}

void DiffTab::clear() {
    jobs_->cancel();
    result_.reset();
    aView_->clear();
    bView_->clear();
    for (QTableWidget* t : {blocks_, stages_, moved_, breakdown_})
        t->setRowCount(0);
    sentences_->setText(chooseHint());
}

void DiffTab::setRunning(bool running) {
    progress_->setVisible(running);
    progress_->setValue(0);
    cancel_->setEnabled(running);
}

void DiffTab::showResult(const std::shared_ptr<const DiffJobResult>& result) {
    result_ = result;
    const eval::ScheduleDiff& d = *result->diff;
    const QString a = result->aSource.label(), b = result->bSource.label();
    aView_->setTimeline(result->settings.model, result->a.timeline, tr("A: %1").arg(a));
    bView_->setTimeline(result->settings.model, result->b.timeline, tr("B: %1").arg(b));
    // One time axis: both from 0 to the slower one's end.
    const double end = std::max(d.aLatencyUs, d.bLatencyUs);
    aView_->setAxisSpanUs(end);
    bView_->setAxisSpanUs(end);
    shownUs_ = {aView_->axis().visibleStart(), aView_->axis().visibleEnd()};
    fillTables(d);
    fillBreakdown(d);
    sentences_->setText(sentences());
    Q_EMIT shown();
}

QString DiffTab::titleNote() const {
    if (!result_)
        return {};
    // The summary's first clause: "A is 1.65× faster than B: 3.510 ms vs 5.776 ms."
    return QString::fromStdString(result_->diff->summary).section(QLatin1Char(':'), 0, 0);
}

QString DiffTab::sentences() const {
    if (!result_)
        return {};
    const eval::ScheduleDiff& d = *result_->diff;
    QStringList lines{
        QStringLiteral("<b>%1</b>").arg(QString::fromStdString(d.summary).toHtmlEscaped())};
    const int n = static_cast<int>(d.explanations.size());
    for (int i = 0; i < std::min(n, kShownSentences); ++i)
        lines << QStringLiteral("• %1.").arg(
            QString::fromStdString(d.explanations[static_cast<size_t>(i)].sentence)
                .toHtmlEscaped());
    if (n > kShownSentences)
        lines << tr("… and %1 more blocks (the Blocks table lists every block).")
                     .arg(n - kShownSentences);
    if (n == 0)
        lines << tr("No block differs by 1 µs or more.");
    return lines.join(QStringLiteral("<br>"));
}

void DiffTab::fillTables(const eval::ScheduleDiff& d) {
    fillDeltas(blocks_, d.blocks, false);
    fillDeltas(stages_, d.stages, true);
    moved_->setRowCount(static_cast<int>(d.moved.size()));
    for (size_t i = 0; i < d.moved.size(); ++i) {
        const eval::MovedKernel& m = d.moved[i];
        setRow(moved_, static_cast<int>(i),
               {QString::fromStdString(m.opName), QString::number(m.block),
                QStringLiteral("%1 → %2").arg(m.aStage).arg(m.bStage),
                QStringLiteral("%1 → %2").arg(m.aStream).arg(m.bStream),
                QStringLiteral("%1 → %2").arg(us(m.aStartUs), us(m.bStartUs))});
    }
    moved_->resizeColumnsToContents();
}

void DiffTab::fillBreakdown(const eval::ScheduleDiff& d) {
    const auto row = [&](const QString& what, auto&& of) {
        const int r = breakdown_->rowCount();
        breakdown_->setRowCount(r + 1);
        setRow(breakdown_, r, {what, of(d.a), of(d.b)});
    };
    const auto part = [](double eval::TimeBreakdown::*field) {
        return [field](const eval::TimeBreakdown& t) {
            return QStringLiteral("%1 (%2)").arg(us(t.*field), share(t.*field, t.spanUs));
        };
    };
    breakdown_->setRowCount(0);
    breakdown_->setHorizontalHeaderLabels({tr("Where time goes"),
                                           tr("A: %1").arg(QString::fromStdString(d.aLabel)),
                                           tr("B: %1").arg(QString::fromStdString(d.bLabel))});
    row(tr("Latency"), [](const eval::TimeBreakdown& t) { return us(t.spanUs); });
    row(tr("Compute-bound kernels"), part(&eval::TimeBreakdown::computeUs));
    row(tr("Memory-bound kernels"), part(&eval::TimeBreakdown::memoryUs));
    row(tr("Launch / sync overhead"), part(&eval::TimeBreakdown::overheadUs));
    row(tr("Idle"), part(&eval::TimeBreakdown::idleUs));
    row(tr("Mean kernels in flight"), [](const eval::TimeBreakdown& t) {
        return QString::number(t.meanKernelsInFlight, 'f', 2);
    });
    row(tr("Mean active SMs"),
        [](const eval::TimeBreakdown& t) { return share(t.meanActiveSmFraction, 1.0); });
    row(tr("Mean warp occupancy"),
        [](const eval::TimeBreakdown& t) { return share(t.meanWarpOccupancy, 1.0); });
    row(tr("Kernels (launches)"),
        [](const eval::TimeBreakdown& t) { return QString::number(t.kernels); });
    row(tr("Stages (syncs)"),
        [](const eval::TimeBreakdown& t) { return QString::number(t.stages); });
    row(tr("Merged stages"),
        [](const eval::TimeBreakdown& t) { return QString::number(t.mergeStages); });
    row(tr("Most concurrent branches"),
        [](const eval::TimeBreakdown& t) { return QString::number(t.maxGroups); });
    breakdown_->resizeColumnsToContents();
}

views::ResultView* DiffTab::create(MainWindow& window, QWidget* parent) {
    auto* tab = new DiffTab(parent);
    Session* session = window.session();
    // The window's current model and settings whenever a comparison starts.
    tab->setSettingsSource([session] { return session->currentSettings(); });
    // The window's title carries the answer while the tab is visible.
    connect(tab, &DiffTab::shown, &window, &MainWindow::updateTitle);
    // Out of date once the settings that decide a search differ from the comparison's.
    tab->setCurrentCheck([tab, session] {
        return !tab->result_ ||
               (tab->result_->settings.model == session->model() &&
                sameSearch(tab->result_->settings, session->settingsPanel()->settings()));
    });
    // Another model: the comparison shown (or running) is of the one before.
    connect(session, &Session::modelChanged, tab, [tab, session] {
        if (tab->result_ && tab->result_->settings.model != session->model())
            tab->clear();
    });
    return tab;
}

QString DiffTab::description() const {
    return tr("Two schedules compared: which is faster and why, per block, with both timelines "
              "on one time axis");
}

views::ShortcutTable DiffTab::shortcuts() const {
    return {
        {tr("Compare"), tr("Run A and B under the current settings and compare them")},
        {tr("Ctrl+click a bar (Comparison tab)"), tr("Compare that scheduler with the fastest")}};
}

IOS_REGISTER_VIEW(diff, ViewRegistration{"diffTab", IOS_TAB_TITLE("Diff"),
                                         ViewRegistration::Overlay::None, 75, &DiffTab::create});

} // namespace ios::gui
