// SPDX-License-Identifier: Apache-2.0
// Qt's item-model contract (QAbstractItemModelTester, failures reported as test failures) over
// every item model of the main window as the window drives them: the stage tree, the operator
// table and its sorting, filtering proxy (the Kernels tab's model and proxy:
// tst_kernel_summary). Model loads, results, a rebuilt model (another max part size), a model
// switch, filtering and sorting all go through the testers.
#include "main_window_test_support.h"
#include "operator_table_model.h"
#include "stage_tree_model.h"

#include <QAbstractItemModelTester>
#include <QApplication>
#include <QSortFilterProxyModel>
#include <QTableView>
#include <QTreeView>
#include <memory>

using namespace ios;
using namespace ios::gui;
using namespace ios::gui::test;

namespace {

std::unique_ptr<QAbstractItemModelTester> tester(QAbstractItemModel* model) {
    return std::make_unique<QAbstractItemModelTester>(
        model, QAbstractItemModelTester::FailureReportingMode::QtTest);
}

} // namespace

class TestItemModels : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void init() { useTestSettings("tst_item_models"); }

    void windowModelsKeepTheContract() {
        MainWindow w;
        w.setDialogsEnabled(false);
        auto* stages = qobject_cast<views::StageTreeModel*>(w.stageTree()->model());
        auto* proxy = qobject_cast<QSortFilterProxyModel*>(w.operatorTable()->model());
        QVERIFY(stages);
        QVERIFY(proxy);
        auto* operators = qobject_cast<views::OperatorTableModel*>(proxy->sourceModel());
        QVERIFY(operators);
        const auto t1 = tester(stages);
        const auto t2 = tester(operators);
        const auto t3 = tester(proxy);

        QVERIFY(w.openModel(QStringLiteral("squeezenet")));
        QVERIFY(waitForResult(w));
        QVERIFY(stages->rowCount() > 0);
        QCOMPARE(operators->rowCount(), w.model()->operatorCount());
        w.stageTree()->expandAll(); // the tester walks what the view fetches
        QCoreApplication::processEvents();

        // Sorting and filtering the table.
        w.operatorTable()->sortByColumn(views::OperatorTableModel::Flops, Qt::DescendingOrder);
        // The last operator's full name: few rows, that one among them.
        const QString name =
            operators->index(operators->rowCount() - 1, views::OperatorTableModel::Name)
                .data()
                .toString();
        proxy->setFilterFixedString(name);
        QVERIFY(proxy->rowCount() > 0);
        QVERIFY(proxy->rowCount() < operators->rowCount());
        proxy->setFilterFixedString(QString());
        QCOMPARE(proxy->rowCount(), operators->rowCount());

        // Another max part size rebuilds the model (the table resets), and a new result the
        // tree.
        w.settingsPanel()->autoRunBox()->setValue(0);
        w.settingsPanel()->maxPartBox()->setValue(w.settingsPanel()->maxPartBox()->value() - 1);
        w.runOptimize();
        QVERIFY(waitForResult(w));
        QVERIFY(stages->rowCount() > 0);

        // Another model: everything resets.
        QVERIFY(w.openModel(QStringLiteral("demo_inception_module")));
        QCOMPARE(stages->rowCount(), 0);
        QCOMPARE(operators->rowCount(), w.model()->operatorCount());
        w.runOptimize();
        QVERIFY(waitForResult(w));
        QVERIFY(stages->rowCount() > 0);
    }

    // The stage tree model on its own: set, replaced, cleared.
    void stageTreeAlone() {
        views::StageTreeModel model;
        const auto t = tester(&model);
        MainWindow w;
        w.setDialogsEnabled(false);
        QVERIFY(w.openModel(QStringLiteral("demo_inception_module")));
        w.runOptimize();
        QVERIFY(waitForResult(w));
        const RunResult& run = w.lastResult()->runs.front();
        model.setSchedule(w.model(), run.schedule, {});
        QVERIFY(model.rowCount() > 0);
        model.setSchedule(w.model(), run.schedule, {});
        model.clear();
        QCOMPARE(model.rowCount(), 0);
    }
};

int main(int argc, char** argv) {
    QApplication app(argc, argv);
    TestItemModels test;
    return QTest::qExec(&test, argc, argv);
}
#include "tst_item_models.moc"
