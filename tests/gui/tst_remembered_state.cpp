// SPDX-License-Identifier: Apache-2.0
// What the explorer remembers and how it names what it writes (issue 32 item 6), with a
// throw-away settings location: the last model and tab come back at the next start, the
// export folder is remembered, a typed suffix of any offered format wins over the chosen
// filter's ("x.png" under SVG is not "x.png.svg"), and default export names say which model
// and view.
#include "export_dialog.h"
#include "exports.h"
#include "main_window_test_support.h"
#include "remembered_state.h"
#include "timeline_view.h"

#include <QDir>
#include <QTabWidget>
#include <QTemporaryDir>

using namespace ios;
using namespace ios::gui;
using namespace ios::gui::test;

class TestRememberedState : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void init() { useTestSettings("tst_remembered_state"); }

    void lastModelAndTabComeBack() {
        QCOMPARE(rememberedModel(QStringLiteral("inception_v3")), QStringLiteral("inception_v3"));
        {
            MainWindow w;
            w.setDialogsEnabled(false);
            rememberTabs(w.tabs());
            QVERIFY(w.openModel(QStringLiteral("squeezenet")));
            w.tabs()->setCurrentWidget(w.timelineView());
        }
        QCOMPARE(rememberedModel(QStringLiteral("inception_v3")), QStringLiteral("squeezenet"));
        MainWindow next;
        QVERIFY(next.tabs()->currentWidget() != next.timelineView()); // not before asked
        rememberTabs(next.tabs());
        QCOMPARE(next.tabs()->currentWidget(), static_cast<QWidget*>(next.timelineView()));
    }

    void aFileThatHasGoneIsNotReopened() {
        {
            QTemporaryDir dir;
            QVERIFY(
                QFile::copy(QStringLiteral(IOS_SOURCE_DIR "/sample_models/onnx/squeezenet1_1.onnx"),
                            dir.filePath(QStringLiteral("m.onnx"))));
            rememberModel(dir.filePath(QStringLiteral("m.onnx")));
            QCOMPARE(rememberedModel(QStringLiteral("inception_v3")),
                     QFileInfo(dir.filePath(QStringLiteral("m.onnx"))).absoluteFilePath());
        }
        QCOMPARE(rememberedModel(QStringLiteral("inception_v3")), QStringLiteral("inception_v3"));
    }

    void exportFolderIsRemembered() {
        QTemporaryDir dir;
        QCOMPARE(exportDirectory(), QDir::homePath());
        setExportDirectory(dir.path());
        QCOMPARE(exportDirectory(), dir.path());
        useTestSettings("tst_remembered_state"); // cleared: home again
        QCOMPARE(exportDirectory(), QDir::homePath());
    }

    void typedSuffixWins() {
        const QString pictures = QStringLiteral("SVG (*.svg);;PNG (*.png)");
        const QString svg = QStringLiteral("SVG (*.svg)");
        QCOMPARE(withFilterSuffix(QStringLiteral("/tmp/x.png"), svg, pictures),
                 QStringLiteral("/tmp/x.png"));
        QCOMPARE(withFilterSuffix(QStringLiteral("/tmp/x"), svg, pictures),
                 QStringLiteral("/tmp/x.svg"));
        QCOMPARE(withFilterSuffix(QStringLiteral("/tmp/x.PNG"), svg, pictures),
                 QStringLiteral("/tmp/x.PNG"));
        // A suffix no filter offers still gets the chosen one.
        QCOMPARE(withFilterSuffix(QStringLiteral("/tmp/x.jpg"), svg, pictures),
                 QStringLiteral("/tmp/x.jpg.svg"));
        const QString schedules = QStringLiteral("IOS JSON (*.ios.json);;Native JSON (*.json)");
        QCOMPARE(withFilterSuffix(QStringLiteral("/tmp/s.json"),
                                  QStringLiteral("IOS JSON (*.ios.json)"), schedules),
                 QStringLiteral("/tmp/s.json"));
    }

    void exportNamesSayModelAndView() {
        MainWindow w;
        w.setDialogsEnabled(false);
        QCOMPARE(exportBaseName(w, QStringLiteral("kernels")), QStringLiteral("kernels"));
        QVERIFY(w.openModel(QStringLiteral("inception_v3")));
        const QString model = QString::fromStdString(w.model()->graph().name).toLower();
        w.tabs()->setCurrentWidget(w.timelineView());
        QCOMPARE(exportBaseName(w, {}), model + QStringLiteral("-timeline"));
        for (int i = 0; i < w.tabs()->count(); ++i) { // every tab a different name
            w.tabs()->setCurrentIndex(i);
            const QString name = exportBaseName(w, {});
            QVERIFY2(name.startsWith(model + QLatin1Char('-')) && !name.contains(QLatin1Char(' ')),
                     qPrintable(name));
            for (int j = 0; j < i; ++j) {
                w.tabs()->setCurrentIndex(j);
                QVERIFY(exportBaseName(w, {}) != name);
            }
        }
        QCOMPARE(exportBaseName(w, QStringLiteral("ios-both")),
                 model + QStringLiteral("-ios-both"));
    }
};

QTEST_MAIN(TestRememberedState)
#include "tst_remembered_state.moc"
