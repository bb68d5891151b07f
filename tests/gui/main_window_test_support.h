// SPDX-License-Identifier: Apache-2.0
// What the main-window suites share: a settings-free start, the strategy combobox row of a
// registered scheduler, and waiting for a result.
#pragma once

#include "job_controller.h"
#include "main_window.h"
#include "settings_panel.h"

#include <QComboBox>
#include <QCoreApplication>
#include <QDoubleSpinBox>
#include <QElapsedTimer>
#include <QSettings>
#include <QSignalSpy>
#include <QSpinBox>
#include <QStandardPaths>
#include <QTest>
#include <functional>

namespace ios::gui::test {

// QSettings go to a throw-away location named after the suite.
inline void useTestSettings(const char* suite) {
    QStandardPaths::setTestModeEnabled(true);
    QCoreApplication::setOrganizationName(QStringLiteral("ios-explorer-test"));
    QCoreApplication::setApplicationName(QString::fromLatin1(suite));
    QSettings().clear();
}

inline int strategyIndex(MainWindow& w, const QString& key) {
    return w.settingsPanel()->strategyBox()->findData(key);
}
inline int strategyIndex(MainWindow& w, const char* key) {
    return strategyIndex(w, QString::fromLatin1(key));
}

// Until `done` holds (true) or the time is up (false), serving events meanwhile.
inline bool waitFor(const std::function<bool()>& done, int timeoutMs = 120000) {
    QElapsedTimer clock;
    clock.start();
    while (!done() && clock.elapsed() < timeoutMs)
        QTest::qWait(10);
    return done();
}

// Until a result is shown (true) or a search fails or the time is up (false).
inline bool waitForResult(MainWindow& w, int timeoutMs = 120000) {
    QSignalSpy shown(&w, &MainWindow::resultShown);
    QSignalSpy failed(&w, &MainWindow::errorOccurred);
    if (!w.jobs()->isRunning() && w.lastResult() && w.isResultCurrent())
        return true;
    QElapsedTimer clock;
    clock.start();
    while (shown.isEmpty() && failed.isEmpty() && clock.elapsed() < timeoutMs)
        QTest::qWait(10);
    if (!failed.isEmpty())
        qWarning("search failed: %s", qPrintable(failed.front().front().toString()));
    return !shown.isEmpty();
}

// NasNet-A large shown with greedy, then the settings of a long search (unpruned IOS-Parallel,
// minutes) entered but not started (auto-run off): the next Run click starts it.
inline bool prepareLongNasnetSearch(MainWindow& w) {
    w.setDialogsEnabled(false);
    w.settingsPanel()->strategyBox()->setCurrentIndex(strategyIndex(w, "greedy"));
    if (!w.openModel(QStringLiteral("nasnet_large")) || !waitForResult(w))
        return false;
    SettingsPanel* panel = w.settingsPanel();
    panel->autoRunBox()->setValue(0);
    panel->strategyBox()->setCurrentIndex(strategyIndex(w, "ios-parallel"));
    panel->rBox()->setValue(100);
    panel->sBox()->setValue(100);
    return true;
}

// Until the estimate of the current settings is shown in the panel.
inline bool waitForEstimate(MainWindow& w, int timeoutMs = 60000) {
    QElapsedTimer clock;
    clock.start();
    while (clock.elapsed() < timeoutMs) {
        QTest::qWait(10);
        if (!w.estimateJobs()->isRunning() &&
            !w.settingsPanel()->estimateText().startsWith(QStringLiteral("Estimating")))
            return true;
    }
    return false;
}

} // namespace ios::gui::test
