// SPDX-License-Identifier: Apache-2.0
// The explorer fits a 1280×800 screen (issue 32 item 6): the main window's minimum width is at
// most 1000 px on every tab, and at 1280×800 every dock, the tabs and the status bar lie inside
// the window with room for their contents.
#include "main_window_test_support.h"

#include <QApplication>
#include <QDockWidget>
#include <QLayout>
#include <QStatusBar>
#include <QTabWidget>

using namespace ios::gui;
using namespace ios::gui::test;

namespace {

constexpr int kMaxMinimumWidth = 1000;

// The widgets under `root` whose own minimum width passes `limit`, deepest first, so a failure
// names what to make narrower (a row of buttons, a long label, a fixed-width field).
QStringList tooWide(QWidget* root, int limit) {
    QStringList out;
    for (QWidget* w : root->findChildren<QWidget*>()) {
        if (!w->isVisibleTo(root))
            continue;
        const int min = qMax(w->minimumWidth(), w->minimumSizeHint().width());
        if (min <= limit)
            continue;
        bool childTooWide = false;
        for (QWidget* c : w->findChildren<QWidget*>(Qt::FindDirectChildrenOnly))
            childTooWide |= c->isVisibleTo(root) &&
                            qMax(c->minimumWidth(), c->minimumSizeHint().width()) > limit;
        if (!childTooWide)
            out << QStringLiteral("%1 '%2' (%3 px)")
                       .arg(QString::fromLatin1(w->metaObject()->className()), w->objectName())
                       .arg(min);
    }
    return out;
}

bool inside(const QRect& outer, const QRect& inner) {
    return inner.isValid() && outer.contains(inner);
}

} // namespace

class TestWindowFits : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void init() { useTestSettings("tst_window_fits"); }

    void minimumWidthOnEveryTab_data() {
        QTest::addColumn<QString>("model");
        QTest::newRow("inception_v3") << QStringLiteral("inception_v3");
        QTest::newRow("nasnet_large") << QStringLiteral("nasnet_large");
    }
    void minimumWidthOnEveryTab() {
        QFETCH(QString, model);
        MainWindow w;
        w.setDialogsEnabled(false);
        w.settingsPanel()->strategyBox()->setCurrentIndex(strategyIndex(w, "greedy"));
        QVERIFY(w.openModel(model));
        QVERIFY(waitForResult(w));
        w.show();
        QTabWidget* tabs = w.tabs();
        for (int i = 0; i < tabs->count(); ++i) {
            tabs->setCurrentIndex(i);
            QCoreApplication::processEvents();
            const int min = qMax(w.minimumSizeHint().width(), w.minimumWidth());
            qInfo("tab '%s': minimum window width %d px", qPrintable(tabs->tabText(i)), min);
            if (min > kMaxMinimumWidth)
                qWarning("too wide: %s",
                         qPrintable(tooWide(&w, kMaxMinimumWidth / 3).join(QLatin1String("; "))));
            QVERIFY2(min <= kMaxMinimumWidth,
                     qPrintable(QStringLiteral("tab '%1': the window cannot be narrower than %2 px")
                                    .arg(tabs->tabText(i))
                                    .arg(min)));
        }
    }

    void everythingOnScreenAt1280x800() {
        MainWindow w;
        w.setDialogsEnabled(false);
        w.settingsPanel()->strategyBox()->setCurrentIndex(strategyIndex(w, "greedy"));
        QVERIFY(w.openModel(QStringLiteral("inception_v3")));
        QVERIFY(waitForResult(w));
        w.resize(1280, 800);
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        QCOMPARE(w.size(), QSize(1280, 800));
        const QRect window = w.rect();
        for (QDockWidget* dock : w.findChildren<QDockWidget*>()) {
            if (dock->isHidden())
                continue;
            if (!w.tabifiedDockWidgets(dock).isEmpty()) { // tabbed (Operators | Properties)
                dock->raise();
                QTest::qWait(50);
            }
            const QRect r(dock->mapTo(&w, QPoint(0, 0)), dock->size());
            QVERIFY2(inside(window, r), qPrintable(dock->windowTitle()));
            QVERIFY2(dock->width() >= dock->minimumSizeHint().width(),
                     qPrintable(dock->windowTitle()));
        }
        const QRect tabs(w.tabs()->mapTo(&w, QPoint(0, 0)), w.tabs()->size());
        QVERIFY(inside(window, tabs));
        QVERIFY(w.tabs()->width() >= 400);
        QVERIFY(!w.statusBar()->isHidden());
        const QRect status(w.statusBar()->mapTo(&w, QPoint(0, 0)), w.statusBar()->size());
        QVERIFY(inside(window, status));
    }
};

QTEST_MAIN(TestWindowFits)
#include "tst_window_fits.moc"
