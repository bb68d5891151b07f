// SPDX-License-Identifier: Apache-2.0
#include "kernels_tab.h"

#include "export_dialog.h"
#include "exports.h"
#include "main_window.h"
#include "session.h"
#include "units.h"
#include "util/error.h"
#include "util/output_file.h"
#include "view_registry.h"

#include <QComboBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QItemSelectionModel>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QSortFilterProxyModel>
#include <QTableView>
#include <QVBoxLayout>
#include <algorithm>

namespace ios::gui {

namespace {
constexpr Selection::Source kSource{"kernelsTab"};
}

KernelsTab::KernelsTab(QWidget* parent)
    : QWidget(parent), model_(new views::KernelSummaryModel(this)),
      proxy_(new QSortFilterProxyModel(this)), table_(new QTableView(this)),
      filter_(new QLineEdit(this)), grouping_(new QComboBox(this)), header_(new QLabel(this)) {
    grouping_->setObjectName(QStringLiteral("kernelGrouping"));
    grouping_->addItem(tr("Per kernel"));
    grouping_->addItem(tr("Per operator type"));
    grouping_->setToolTip(tr("Summarise per kernel name or per operator type"));
    filter_->setObjectName(QStringLiteral("kernelFilter"));
    filter_->setPlaceholderText(tr("Filter by name…"));
    filter_->setClearButtonEnabled(true);
    auto* csv = new QPushButton(tr("Export CSV…"), this);
    csv->setToolTip(tr("Write the table as CSV"));
    proxy_->setSourceModel(model_);
    proxy_->setSortRole(views::KernelSummaryModel::SortRole);
    proxy_->setFilterRole(views::KernelSummaryModel::FilterRole);
    proxy_->setFilterCaseSensitivity(Qt::CaseInsensitive);
    table_->setObjectName(QStringLiteral("kernelTable"));
    table_->setModel(proxy_);
    table_->setSortingEnabled(true);
    table_->sortByColumn(views::KernelSummaryModel::Total, Qt::DescendingOrder);
    table_->setSelectionBehavior(QAbstractItemView::SelectRows);
    table_->setSelectionMode(QAbstractItemView::SingleSelection);
    table_->setAlternatingRowColors(true);
    table_->verticalHeader()->hide();
    table_->horizontalHeader()->setStretchLastSection(true);
    header_->setWordWrap(true);
    auto* bar = new QHBoxLayout;
    bar->setContentsMargins(6, 4, 6, 4);
    bar->addWidget(grouping_);
    bar->addWidget(filter_, 1);
    bar->addWidget(csv);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addLayout(bar);
    layout->addWidget(header_);
    layout->addWidget(table_, 1);
    connect(filter_, &QLineEdit::textChanged, proxy_, &QSortFilterProxyModel::setFilterFixedString);
    connect(grouping_, &QComboBox::currentIndexChanged, this, &KernelsTab::refresh);
    connect(csv, &QPushButton::clicked, this, &KernelsTab::chooseCsvFile);
    connect(table_->selectionModel(), &QItemSelectionModel::currentRowChanged, this,
            [this](const QModelIndex& current) {
                if (!current.isValid())
                    return;
                const auto ops =
                    current.data(views::KernelSummaryModel::OperatorsRole).value<QList<int>>();
                if (!ops.isEmpty())
                    Q_EMIT operatorsSelected(std::vector<int>(ops.begin(), ops.end()));
            });
    refresh();
}

views::ResultView* KernelsTab::create(MainWindow& window, QWidget* parent) {
    auto* tab = new KernelsTab(parent);
    Session* session = window.session();
    connect(session, &Session::resultChanged, tab,
            [tab, session] { tab->setResult(session->lastResult()); });
    connect(tab, &KernelsTab::operatorsSelected, session, [session](std::vector<int> ops) {
        if (session->shownRun() != nullptr)
            session->selection()->select(std::move(ops), {}, kSource);
    });
    connect(session->selection(), &Selection::changed, tab, [tab, session] {
        if (!(session->selection()->source() == kSource))
            tab->selectOperators(session->selection()->operators());
    });
    return tab;
}

void KernelsTab::setResult(const SearchResultPtr& result) {
    result_ = result;
    refresh();
}

void KernelsTab::setGrouping(views::KernelGrouping grouping) {
    grouping_->setCurrentIndex(grouping == views::KernelGrouping::Kernel ? 0 : 1);
}

views::KernelGrouping KernelsTab::grouping() const {
    return grouping_->currentIndex() == 0 ? views::KernelGrouping::Kernel
                                          : views::KernelGrouping::OperatorType;
}

void KernelsTab::refresh() {
    const RunResult* run = result_ && !result_->runs.empty() ? &result_->runs.front() : nullptr;
    if (run == nullptr || !run->timeline) {
        model_->clear();
        header_->setText(run == nullptr ? tr("No result yet: run a search (F5).")
                                        : tr("No kernel timeline: %1 knows stage latencies "
                                             "only (choose the simulated or analytic cost model)")
                                              .arg(result_->costModel));
        return;
    }
    const views::LoadedModel* model = result_->settings.model.get();
    model_->setRows(views::summarizeKernels(*run->timeline, model, grouping()));
    table_->resizeColumnsToContents();
    header_->setText(
        tr("%1 · %2 — %3 kernels, latency %4 · %5")
            .arg(QString::fromStdString(model->graph().name), strategyLabel(run->strategy))
            .arg(run->timeline->kernels.size())
            .arg(views::formatMs(run->timeline->latencyUs / 1000.0), result_->costModel));
}

QString KernelsTab::header() const {
    return header_->text();
}

void KernelsTab::selectOperators(const std::vector<int>& operators) {
    const QSignalBlocker block(table_->selectionModel());
    table_->clearSelection();
    for (int row = 0; row < proxy_->rowCount(); ++row) {
        const QModelIndex index = proxy_->index(row, 0);
        const auto ops = index.data(views::KernelSummaryModel::OperatorsRole).value<QList<int>>();
        const bool hit = std::any_of(operators.begin(), operators.end(),
                                     [&](int op) { return ops.contains(op); });
        if (hit)
            table_->selectionModel()->select(index, QItemSelectionModel::Select |
                                                        QItemSelectionModel::Rows);
    }
}

void KernelsTab::exportCsv(const QString& path) const {
    if (model_->rows().empty())
        throw UserError("no kernel summary to export: run a search with a cost model that "
                        "gives a timeline");
    const std::filesystem::path target = path.toStdString();
    util::checkOutputPath(target);
    std::string header; // the provenance as "# key: value" lines before the CSV header
    if (result_ && result_->settings.model)
        header = io::provenanceComment(exportProvenance(result_->settings,
                                                        QStringLiteral("export kernel summary"),
                                                        result_->settings.model->graph()));
    util::writeFileAtomically(target, header + model_->toCsv().toStdString());
}

void KernelsTab::chooseCsvFile() {
    const QString model =
        result_ ? QString::fromStdString(result_->settings.model->graph().name) : QString();
    const QString path = chooseExportPath(this, tr("Export Kernel Summary"),
                                          model.isEmpty() ? QStringLiteral("kernels")
                                                          : model + QStringLiteral("-kernels"),
                                          tr("CSV (*.csv)"));
    if (path.isEmpty())
        return;
    try {
        exportCsv(path);
        header_->setText(tr("Exported %1").arg(path));
    } catch (const std::exception& e) {
        header_->setText(tr("Export failed: %1").arg(QString::fromUtf8(e.what())));
    }
}

QString KernelsTab::description() const {
    return tr("Kernel summary of the shown result: per kernel or operator type, count, total "
              "and mean time, share of all kernel time");
}

views::ShortcutTable KernelsTab::shortcuts() const {
    return {{tr("Click a row"), tr("Select its operators in every view")},
            {tr("Click a column header"), tr("Sort by that column")}};
}

IOS_REGISTER_VIEW(kernels,
                  ViewRegistration{"kernelsTab", IOS_TAB_TITLE("Kernels"),
                                   ViewRegistration::Overlay::Cover, 60, &KernelsTab::create});

} // namespace ios::gui
