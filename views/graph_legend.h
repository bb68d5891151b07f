// SPDX-License-Identifier: Apache-2.0
// The graph's legend: a strip beside the graph, never over it (issue 17 item 6), hidden with
// the toolbar's Legend toggle (L) when the room is wanted for the graph.
#pragma once

#include <QColor>
#include <QString>
#include <QWidget>
#include <utility>
#include <vector>

namespace ios::views {

class GraphLegend : public QWidget {
    Q_OBJECT
public:
    // A swatch colour (transparent: a text-only line) and its label.
    using Entry = std::pair<QColor, QString>;

    explicit GraphLegend(QWidget* parent = nullptr);
    void setEntries(std::vector<Entry> entries);
    const std::vector<Entry>& entries() const { return entries_; }
    QSize sizeHint() const override;
    QSize minimumSizeHint() const override { return sizeHint(); }

protected:
    void paintEvent(QPaintEvent* event) override;

private:
    std::vector<Entry> entries_;
};

} // namespace ios::views
