// SPDX-License-Identifier: Apache-2.0
// Axis math of the Memory view's charts (hotspot's pattern: the math is a small tested class,
// not buried in paintEvent): byte axes in one binary unit with nice ticks, and the budget a
// drag on the trade-off chart picks.
#pragma once

#include <QString>
#include <cstdint>
#include <vector>

namespace ios::views {

// A linear axis over [lo, hi] widened to whole ticks at 1, 2 or 5 × 10^k.
struct NiceRange {
    double lo = 0;
    double hi = 1;
    double step = 1;

    // About `targetTicks` ticks; a single value gets one step around it.
    static NiceRange of(double lo, double hi, int targetTicks = 5);
    std::vector<double> ticks() const;
    // Linear: lo → p0, hi → p1 (p1 < p0 for a y axis).
    double toPixel(double value, double p0, double p1) const;
    double fromPixel(double pixel, double p0, double p1) const;
};

// A bytes axis in one binary unit (B, KiB, MiB, GiB): ticks at 1, 2 or 5 × 10^k of the unit.
struct BytesScale : NiceRange {
    double unit = 1; // bytes per unit
    QString unitName = QStringLiteral("B");

    static BytesScale forRange(double lo, double hi, int targetTicks = 5);
    // "12 MiB", "2.5 MiB": as many decimals as the step needs.
    QString label(double bytes) const;
};

// A budget picked on a continuous axis: rounded to 0.01 MiB (it then reads back exactly from
// "x.yz MiB", units.h exactBytes), then clamped to [lo, hi].
int64_t snapBudget(double bytes, int64_t lo, int64_t hi);

} // namespace ios::views
