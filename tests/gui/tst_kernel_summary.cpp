// SPDX-License-Identifier: Apache-2.0
// The Kernels tab (issue 30: a tab added through the view seam): the summary's arithmetic on a
// timeline made by hand, its item model and proxy under QAbstractItemModelTester, and the tab in
// the main window: filled from the shown result's timeline, filtered, linked to the one
// selection both ways, exported as CSV (atomically) and as a picture, its keys in the help.
#include "engine_jobs.h"
#include "exports.h"
#include "kernel_summary_model.h"
#include "kernels_tab.h"
#include "main_window_test_support.h"
#include "palette.h"
#include "util/error.h"

#include <QAbstractItemModelTester>
#include <QApplication>
#include <QFile>
#include <QFileInfo>
#include <QLineEdit>
#include <QSortFilterProxyModel>
#include <QTableView>
#include <QTemporaryDir>
#include <numeric>

using namespace ios;
using namespace ios::gui;
using namespace ios::gui::test;
using views::KernelGrouping;
using views::KernelSummaryModel;
using views::KernelSummaryRow;

namespace {

eval::TimelineKernel kernel(const char* name, int op, double start, double end) {
    eval::TimelineKernel k;
    k.block = 0;
    k.op = op;
    k.kernel = name;
    k.opName = name;
    k.startUs = start;
    k.endUs = end;
    return k;
}

// Two "conv" kernels of 10 and 30 µs (ops 0, 1), one "pool" of 20 µs (op 2), overlapping.
eval::Timeline handMade() {
    eval::Timeline t;
    t.kernels = {kernel("conv", 0, 0, 10), kernel("pool", 2, 5, 25), kernel("conv", 1, 10, 40)};
    t.latencyUs = 40;
    return t;
}

const KernelSummaryRow* rowNamed(const std::vector<KernelSummaryRow>& rows, const QString& name) {
    for (const KernelSummaryRow& r : rows)
        if (r.name == name)
            return &r;
    return nullptr;
}

KernelsTab* kernelsTab(MainWindow& w) {
    return w.tabs()->findChild<KernelsTab*>(QStringLiteral("kernelsTab"));
}

} // namespace

class TestKernelSummary : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void init() { useTestSettings("tst_kernel_summary"); }

    // Count, total, mean and share per kernel name, largest total first; no model: no
    // operators.
    void summarisesPerKernel() {
        const auto rows = views::summarizeKernels(handMade(), nullptr, KernelGrouping::Kernel);
        QCOMPARE(rows.size(), size_t(2));
        QCOMPARE(rows[0].name, QStringLiteral("conv"));
        QCOMPARE(rows[0].count, 2);
        QCOMPARE(rows[0].totalUs, 40.0);
        QCOMPARE(rows[0].meanUs, 20.0);
        QCOMPARE(rows[0].share, 40.0 / 60.0); // of all kernel time, not of the 40 µs latency
        QCOMPARE(rows[1].name, QStringLiteral("pool"));
        QCOMPARE(rows[1].share, 20.0 / 60.0);
        QVERIFY(rows[0].operators.empty());
    }

    // Per operator type on a real model's timeline: every kernel counted once, the shares add
    // up to one, each row's operators are of its type.
    void summarisesPerOperatorType() {
        JobSettings settings;
        settings.model = views::loadModel(QStringLiteral("squeezenet"));
        settings.recordStateSpace = false;
        JobControl control;
        const SearchResult result = optimizeJob(settings).run(control);
        const eval::Timeline& timeline = *result.runs.front().timeline;
        const views::LoadedModel& model = *settings.model;
        for (KernelGrouping g : {KernelGrouping::Kernel, KernelGrouping::OperatorType}) {
            const auto rows = views::summarizeKernels(timeline, &model, g);
            QVERIFY(!rows.empty());
            int count = 0;
            double share = 0, total = 0;
            for (const KernelSummaryRow& r : rows) {
                count += r.count;
                share += r.share;
                total += r.totalUs;
                QVERIFY(r.meanUs > 0);
            }
            QCOMPARE(static_cast<size_t>(count), timeline.kernels.size());
            QVERIFY(qAbs(share - 1.0) < 1e-9);
            double kernelTime = 0;
            for (const auto& k : timeline.kernels)
                kernelTime += k.endUs - k.startUs;
            QVERIFY(qAbs(total - kernelTime) < 1e-6 * kernelTime);
            for (size_t i = 1; i < rows.size(); ++i)
                QVERIFY(rows[i - 1].totalUs >= rows[i].totalUs);
        }
        const auto byType = views::summarizeKernels(timeline, &model, KernelGrouping::OperatorType);
        const KernelSummaryRow* conv = rowNamed(byType, views::kindLabel(ir::NodeKind::Conv));
        QVERIFY(conv);
        for (int flat : conv->operators)
            QVERIFY(model.node(model.operators()[static_cast<size_t>(flat)]).kind ==
                    ir::NodeKind::Conv);
    }

    // The model and its sorting, filtering proxy keep Qt's item-model contract through resets,
    // sorting and filtering.
    void modelAndProxyPassTheTester() {
        KernelSummaryModel model;
        QAbstractItemModelTester modelTester(
            &model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        QSortFilterProxyModel proxy;
        proxy.setSourceModel(&model);
        proxy.setSortRole(KernelSummaryModel::SortRole);
        proxy.setFilterRole(KernelSummaryModel::FilterRole);
        QAbstractItemModelTester proxyTester(
            &proxy, QAbstractItemModelTester::FailureReportingMode::QtTest);
        model.setRows(views::summarizeKernels(handMade(), nullptr, KernelGrouping::Kernel));
        QCOMPARE(model.rowCount(), 2);
        proxy.sort(KernelSummaryModel::Total, Qt::AscendingOrder);
        QCOMPARE(proxy.index(0, KernelSummaryModel::Name).data().toString(),
                 QStringLiteral("pool"));
        proxy.setFilterFixedString(QStringLiteral("con"));
        QCOMPARE(proxy.rowCount(), 1);
        model.clear();
        QCOMPARE(proxy.rowCount(), 0);
        model.setRows(views::summarizeKernels(handMade(), nullptr, KernelGrouping::Kernel));
        QCOMPARE(proxy.rowCount(), 1);
    }

    // CSV: a header, one line per row, names with commas quoted.
    void csvText() {
        KernelSummaryModel model;
        eval::Timeline t = handMade();
        t.kernels[1].kernel = "pool, max";
        model.setRows(views::summarizeKernels(t, nullptr, KernelGrouping::Kernel));
        const QStringList lines = model.toCsv().split(QLatin1Char('\n'), Qt::SkipEmptyParts);
        QCOMPARE(lines.size(), 3);
        QCOMPARE(lines[0], QStringLiteral("name,count,total_ms,mean_us,share_percent"));
        QCOMPARE(lines[1], QStringLiteral("conv,2,0.040000,20.000,66.667"));
        QCOMPARE(lines[2], QStringLiteral("\"pool, max\",1,0.020000,20.000,33.333"));
    }

    // In the window: filled from the shown result, linked to the selection both ways, filtered,
    // exported, listed in the help; emptied when another model opens.
    void tabInTheWindow() {
        MainWindow w;
        w.setDialogsEnabled(false);
        KernelsTab* tab = kernelsTab(w);
        QVERIFY(tab);
        QVERIFY(w.tabs()->indexOf(tab) >= 0);
        QCOMPARE(tab->summary()->rowCount(), 0);
        QVERIFY(w.openModel(QStringLiteral("squeezenet")));
        QVERIFY(waitForResult(w));
        const auto& timeline = *w.lastResult()->runs.front().timeline;
        QVERIFY(tab->summary()->rowCount() > 0);
        int count = 0;
        for (const KernelSummaryRow& r : tab->summary()->rows())
            count += r.count;
        QCOMPARE(static_cast<size_t>(count), timeline.kernels.size());
        QVERIFY(tab->header().contains(QStringLiteral("squeezenet")));

        // A row selects its operators everywhere.
        w.tabs()->setCurrentWidget(tab);
        const QModelIndex first = tab->proxy()->index(0, 0);
        const auto ops = first.data(KernelSummaryModel::OperatorsRole).value<QList<int>>();
        QVERIFY(!ops.isEmpty());
        tab->table()->setCurrentIndex(first);
        QCOMPARE(w.selection()->operators(), std::vector<int>(ops.begin(), ops.end()));
        QCOMPARE(QString::fromLatin1(w.selection()->source().key()), QStringLiteral("kernelsTab"));
        // Another view's selection selects the rows of its operator (not the first row's).
        const QModelIndex last = tab->proxy()->index(tab->proxy()->rowCount() - 1, 0);
        const auto lastOps = last.data(KernelSummaryModel::OperatorsRole).value<QList<int>>();
        QVERIFY(!lastOps.isEmpty());
        const int other = lastOps.back();
        QVERIFY(!ops.contains(other));
        w.selection()->select({other}, {}, Selection::Source::Graph);
        const QModelIndexList rows = tab->table()->selectionModel()->selectedRows();
        QVERIFY(!rows.isEmpty());
        QVERIFY(!tab->table()->selectionModel()->isRowSelected(0, {}));
        for (const QModelIndex& r : rows)
            QVERIFY(r.data(KernelSummaryModel::OperatorsRole).value<QList<int>>().contains(other));

        // The filter narrows the rows.
        const int all = tab->proxy()->rowCount();
        tab->filter()->setText(tab->summary()->rows().front().name);
        QVERIFY(tab->proxy()->rowCount() >= 1);
        QVERIFY(tab->proxy()->rowCount() <= all);
        tab->filter()->setText(QStringLiteral("no kernel is called this"));
        QCOMPARE(tab->proxy()->rowCount(), 0);
        tab->filter()->clear();
        QCOMPARE(tab->proxy()->rowCount(), all);

        // Per operator type: the same kernels.
        tab->setGrouping(KernelGrouping::OperatorType);
        int typed = 0;
        for (const KernelSummaryRow& r : tab->summary()->rows())
            typed += r.count;
        QCOMPARE(typed, count);

        // CSV, atomically: a refused target leaves nothing behind.
        QTemporaryDir dir;
        const QString csv = dir.filePath(QStringLiteral("kernels.csv"));
        tab->exportCsv(csv);
        QFile file(csv);
        QVERIFY(file.open(QIODevice::ReadOnly));
        QList<QByteArray> lines = file.readAll().split('\n');
        // The provenance first, as comment lines (docs/formats.md "Provenance").
        QCOMPARE(lines.front(), QByteArray("# tool: ios-explorer"));
        QVERIFY(lines.contains("# command: ios-explorer: export kernel summary"));
        while (lines.front().startsWith("# "))
            lines.removeFirst();
        QCOMPARE(lines.front(), QByteArray("name,count,total_ms,mean_us,share_percent"));
        QCOMPARE(lines.size(), tab->summary()->rowCount() + 2); // header, rows, final newline
        QVERIFY_THROWS_EXCEPTION(UserError, tab->exportCsv(dir.path()));
        QVERIFY(QFileInfo(dir.path()).isDir());
        // A picture like every tab's.
        for (const char* ext : {"svg", "png"}) {
            const QString path = dir.filePath(QStringLiteral("k.") + QLatin1String(ext));
            exportPicture(tab, path);
            QVERIFY(QFileInfo(path).size() > 0);
        }
        // Its keys under its title.
        const auto help = w.shortcuts();
        QVERIFY(std::any_of(help.begin(), help.end(), [](const ShortcutHelp& e) {
            return e.section == QLatin1String("Kernels");
        }));

        // Another model: the old rows go.
        QVERIFY(w.openModel(QStringLiteral("demo_inception_module")));
        QCOMPARE(tab->summary()->rowCount(), 0);
    }
};

int main(int argc, char** argv) {
    QApplication app(argc, argv);
    TestKernelSummary test;
    return QTest::qExec(&test, argc, argv);
}
#include "tst_kernel_summary.moc"
