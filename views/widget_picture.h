// SPDX-License-Identifier: Apache-2.0
// A picture of a composite view for export: its child widgets painted where they sit in the
// view, scaled into the picture's area — a label's rich text, a chart through its render() (or
// its placeholder text). MemoryView's picture (summary and charts) is made with one.
#pragma once

#include <QRect>

class QLabel;
class QPainter;
class QWidget;

namespace ios::views {

class ChartWidget;

class WidgetPicture {
public:
    // `view`: the widget whose children are drawn; `area`: where the picture goes.
    WidgetPicture(const QWidget& view, const QRect& area);
    // Where `child` (a descendant of the view) lies in the picture.
    QRect place(const QWidget& child) const;
    // The label's rich text at its place, wrapped to the picture's width less 20 px.
    void paintLabel(QPainter& p, const QLabel& label) const;
    // The chart inset by 16 × 12 px at its place, or its placeholder text when it has one.
    void paintChart(QPainter& p, const ChartWidget& chart) const;

private:
    const QWidget& view_;
    QRect area_;
    double sx_, sy_;
};

} // namespace ios::views
