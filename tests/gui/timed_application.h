// SPDX-License-Identifier: Apache-2.0
// A QApplication that times every top-level event dispatch on the UI thread (Qt 6 calls
// notify() for main-thread objects only): the longest dispatch is how long our code held the UI
// thread in one go. Used by tst_main_window's responsiveness probe and bench_graph_layout.
#pragma once

#include <QApplication>
#include <QElapsedTimer>
#include <algorithm>

namespace ios::gui::test {

class TimedApplication : public QApplication {
public:
    using QApplication::QApplication;
    bool notify(QObject* receiver, QEvent* event) override {
        if (depth_++ == 0)
            dispatch_.start();
        const bool handled = QApplication::notify(receiver, event);
        if (--depth_ == 0 && measuring)
            longestDispatchMs = std::max(longestDispatchMs, dispatch_.elapsed());
        return handled;
    }
    bool measuring = true;
    qint64 longestDispatchMs = 0;

private:
    int depth_ = 0;
    QElapsedTimer dispatch_;
};

} // namespace ios::gui::test
