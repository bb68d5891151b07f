// SPDX-License-Identifier: Apache-2.0
// The Properties dock (Netron's side panel): everything about the selected operator — type,
// name, every attribute, inputs and output with shapes and bytes, FLOPs, weights, memory
// traffic, block and part — and where the shown result runs it: its stage (a program's
// segment) with that stage's latency, and its group (a program's stream). It follows the one
// selection (selection.h), whichever view set it.
#pragma once

#include <QDockWidget>
#include <functional>

class QTextBrowser;

namespace ios::gui {

class Session;

class PropertiesDock : public QDockWidget {
    Q_OBJECT
public:
    // `describe(flat)`: the operator's rich text (the graph's tooltip, views::operatorTooltip).
    PropertiesDock(Session* session, std::function<QString(int)> describe, QWidget* parent);

    QTextBrowser* browser() const { return browser_; }
    // What the dock shows, as plain text (tests).
    QString text() const;

private:
    void showSelection();
    // "Stage 3 of block 1 · 0.081 ms · group 2 of 3" in the shown result, empty without one.
    QString placement(int flat) const;

    Session* session_;
    std::function<QString(int)> describe_;
    QTextBrowser* browser_;
};

} // namespace ios::gui
