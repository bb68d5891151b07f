// SPDX-License-Identifier: Apache-2.0
// Time ↔ pixel mapping for the timeline (hotspot's pattern: the math is a small tested class,
// not buried in paintEvent). Times are in µs; the visible window is [start, end).
#pragma once

#include <QString>
#include <vector>

namespace ios::views {

class TimeAxis {
public:
    TimeAxis() = default;
    // `total` µs of data drawn across `pixels` pixels starting at x = `left`.
    TimeAxis(double totalUs, double left, double pixels);

    double toPixel(double us) const;
    double toTime(double pixel) const;
    double visibleStart() const { return start_; }
    double visibleEnd() const { return end_; }
    double visibleDuration() const { return end_ - start_; }
    double totalUs() const { return total_; }
    double usPerPixel() const { return (end_ - start_) / pixels_; }

    void setPixelRange(double left, double pixels);
    // Zoom by `factor` (> 1 = in) keeping the time under `pixel` fixed; clamped to the data
    // and to a window of at least kMinWindowUs.
    void zoomAt(double pixel, double factor);
    void panPixels(double dx); // positive = later times
    void setVisible(double startUs, double endUs);
    void reset() { setVisible(0, total_); }

    struct Tick {
        double us;
        double pixel;
        QString label;
    };
    // "Nice" ticks (1, 2, 5 × 10^k µs) at least `minSpacing` pixels apart.
    std::vector<Tick> ticks(double minSpacing = 80) const;
    static double niceStep(double rawStep);
    static QString formatTime(double us, double step);

    static constexpr double kMinWindowUs = 0.5;

private:
    double total_ = 1;
    double left_ = 0;
    double pixels_ = 1;
    double start_ = 0;
    double end_ = 1;
};

// Greedy interval partitioning: each interval goes to the lowest lane that is free at its
// start (optimal: uses as many lanes as the maximum overlap). Returns one lane per interval.
struct Interval {
    double start = 0;
    double end = 0;
};
std::vector<int> packLanes(const std::vector<Interval>& intervals, int* laneCount = nullptr);

} // namespace ios::views
