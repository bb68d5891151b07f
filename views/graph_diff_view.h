// SPDX-License-Identifier: Apache-2.0
// Before | after of a graph rewrite (docs/gui.md "MetaFlow"): the original graph G0 with the
// operators the rewrite replaced in red and those it re-wired in amber, the rewritten graph G*
// with its new operators in green and re-wired ones in amber, side by side, each in a GraphView
// (the same layout, labels and legend as the Graph tab). A step of the substitution log is
// shown by selecting its sources in G0 and what it created in G*.
#pragma once

#include "graph_diff.h"
#include "loaded_model.h"
#include "rewrite/rules.h"

#include <QColor>
#include <QWidget>
#include <vector>

class QLabel;

namespace ios::views {

class GraphView;

class GraphDiffView : public QWidget {
    Q_OBJECT
public:
    explicit GraphDiffView(QWidget* parent = nullptr);

    static QColor replacedColor() { return {0xe5, 0x73, 0x73}; }
    static QColor createdColor() { return {0x81, 0xc7, 0x84}; }
    static QColor rewiredColor() { return {0xff, 0xca, 0x28}; }

    // Shows the two graphs and colours what `steps` changed; null models clear the view.
    void setDiff(LoadedModelPtr before, LoadedModelPtr after,
                 std::vector<rewrite::Provenance> steps);
    // Selects step `step`'s operators in both graphs (centred); -1 clears the selection.
    void showStep(int step);
    const GraphDiff& diff() const { return diff_; }
    // What showStep(step) selects.
    StepOperators stepOperators(int step) const;
    GraphView* before() const { return before_; }
    GraphView* after() const { return after_; }

private:
    void colour();

    LoadedModelPtr beforeModel_, afterModel_;
    std::vector<rewrite::Provenance> steps_;
    GraphDiff diff_;
    QLabel* beforeTitle_;
    QLabel* afterTitle_;
    GraphView* before_;
    GraphView* after_;
};

} // namespace ios::views
