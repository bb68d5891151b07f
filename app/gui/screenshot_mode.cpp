#include "screenshot_mode.h"

#include "graph_view.h"
#include "main_window.h"

#include <QApplication>
#include <QDir>
#include <QElapsedTimer>
#include <QTabWidget>
#include <QTimer>
#include <memory>

namespace ios::gui {

void whenResultShown(MainWindow& window, std::function<void()> then) {
    auto fired = std::make_shared<bool>(false);
    auto check = [&window, then, fired] {
        if (*fired || !window.lastResult() || !window.graphView()->isLayoutReady())
            return;
        *fired = true;
        then();
    };
    QObject::connect(&window, &MainWindow::resultShown, &window, check);
    QObject::connect(window.graphView(), &views::GraphView::layoutReady, &window, check);
    check();
}

namespace {

QString slug(QString text) {
    text = text.toLower();
    text.replace(QLatin1Char(' '), QLatin1Char('_'));
    text.remove(QLatin1Char('&'));
    return text;
}

void settle() {
    // Let pending layouts and paints run; the views draw synchronously from their models.
    for (int i = 0; i < 5; ++i)
        QApplication::processEvents();
}

} // namespace

void takeScreenshots(MainWindow& window, const QString& directory, const QList<QSize>& sizes) {
    QDir().mkpath(directory);
    for (const QSize& size : sizes) {
        window.resize(size);
        settle();
        QTabWidget* tabs = window.tabs();
        for (int i = 0; i < tabs->count(); ++i) {
            tabs->setCurrentIndex(i);
            settle();
            QElapsedTimer waited;
            waited.start();
            while (!window.isAnalysisCurrent(i) && waited.elapsed() < 300'000)
                QApplication::processEvents(QEventLoop::WaitForMoreEvents, 100);
            if (i == 0)
                window.graphView()->view()->fitWidth();
            settle();
            const QString name = QStringLiteral("%1/%2_%3x%4.png")
                                     .arg(directory, slug(tabs->tabText(i)))
                                     .arg(size.width())
                                     .arg(size.height());
            window.grab().save(name);
        }
        tabs->setCurrentIndex(0);
    }
    QTimer::singleShot(0, qApp, &QApplication::quit);
}

} // namespace ios::gui
