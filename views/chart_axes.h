// SPDX-License-Identifier: Apache-2.0
// Value axes of the QPainter charts, on the one tick/label engine (chart_labels.h): nice ticks
// in the axis's unit, margins as wide as the widest tick label, grid lines and labels drawn
// through ChartLabels so they stay inside the chart and apart.
#pragma once

#include "chart_labels.h"
#include "memory_plot.h"

#include <QFont>
#include <functional>
#include <vector>

namespace ios::views {

// A linear axis over values in a base unit (seconds, ms, counts), ticked at nice values of the
// display unit: a 0.0123 s axis in ms ticks at 10, 12, 14 (not at 12.265).
struct ValueAxis {
    NiceRange range; // in display units
    AxisUnit unit;

    // About `targetTicks` ticks over [lo, hi] (base units); `unit` as chosen for the axis.
    static ValueAxis of(double lo, double hi, int targetTicks, AxisUnit unit = {});
    std::vector<double> ticks() const; // base units
    QString label(double value) const; // number in the display unit
    double toPixel(double value, double p0, double p1) const;
    double lo() const { return range.lo * unit.per; }
    double hi() const { return range.hi * unit.per; }
};

// Width of the widest of `labels` in `font` (for a y axis's margin).
int widestLabel(const QFont& font, const QStringList& labels);
// Width of the widest label a bytes axis over [lo, hi] can get with 2 to 6 ticks: a margin
// that fits before the plot's height (which picks the tick count) is known.
int widestBytesLabel(const QFont& font, double lo, double hi);

// Grid lines across `plot` at `ys` and their labels right-aligned left of it.
void drawYTicks(QPainter& p, ChartLabels& labels, const QRectF& plot, const std::vector<double>& ys,
                const QStringList& texts);
// Labels centred under `plot` at `xs` (shifted inward at the ends to stay in the chart; a label
// that would touch its neighbour is left out), `gap` pixels below it.
void drawXTicks(QPainter& p, ChartLabels& labels, const QRectF& plot, const std::vector<double>& xs,
                const QStringList& texts, double gap = 3);

} // namespace ios::views
