// SPDX-License-Identifier: Apache-2.0
#include "time_axis.h"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace ios::views {

TimeAxis::TimeAxis(double totalUs, double left, double pixels)
    : total_(std::max(totalUs, kMinWindowUs)), left_(left), pixels_(std::max(pixels, 1.0)),
      start_(0), end_(total_) {}

double TimeAxis::toPixel(double us) const {
    return left_ + (us - start_) / (end_ - start_) * pixels_;
}

double TimeAxis::toTime(double pixel) const {
    return start_ + (pixel - left_) / pixels_ * (end_ - start_);
}

void TimeAxis::setPixelRange(double left, double pixels) {
    left_ = left;
    pixels_ = std::max(pixels, 1.0);
}

void TimeAxis::setVisible(double startUs, double endUs) {
    double width = std::clamp(endUs - startUs, std::min(kMinWindowUs, total_), total_);
    start_ = std::clamp(startUs, 0.0, total_ - width);
    end_ = start_ + width;
}

void TimeAxis::zoomAt(double pixel, double factor) {
    if (!(factor > 0))
        return;
    const double anchor = toTime(pixel);
    const double width = (end_ - start_) / factor;
    const double fraction = (pixel - left_) / pixels_;
    setVisible(anchor - fraction * width, anchor - fraction * width + width);
}

void TimeAxis::panPixels(double dx) {
    const double dt = dx * usPerPixel();
    setVisible(start_ + dt, end_ + dt);
}

double TimeAxis::niceStep(double rawStep) {
    if (!(rawStep > 0))
        return 1;
    const double magnitude = std::pow(10.0, std::floor(std::log10(rawStep)));
    for (double m : {1.0, 2.0, 5.0})
        if (m * magnitude >= rawStep * (1 - 1e-9))
            return m * magnitude;
    return 10 * magnitude;
}

QString TimeAxis::formatTime(double us, double step) {
    // Enough decimals to tell neighbouring ticks apart.
    if (step >= 1000.0) {
        const int decimals = std::max(0, -static_cast<int>(std::floor(std::log10(step / 1000.0))));
        return QStringLiteral("%1 ms").arg(us / 1000.0, 0, 'f', decimals);
    }
    const int decimals = std::max(0, -static_cast<int>(std::floor(std::log10(step))));
    return QStringLiteral("%1 µs").arg(us, 0, 'f', decimals);
}

std::vector<TimeAxis::Tick> TimeAxis::ticks(double minSpacing) const {
    std::vector<Tick> out;
    const double step = niceStep(minSpacing * usPerPixel());
    for (double t = std::ceil(start_ / step) * step; t <= end_ + step * 1e-9; t += step)
        out.push_back({t, toPixel(t), formatTime(t, step)});
    return out;
}

std::vector<int> packLanes(const std::vector<Interval>& intervals, int* laneCount) {
    std::vector<size_t> order(intervals.size());
    std::iota(order.begin(), order.end(), size_t{0});
    std::stable_sort(order.begin(), order.end(),
                     [&](size_t a, size_t b) { return intervals[a].start < intervals[b].start; });
    std::vector<int> lanes(intervals.size(), 0);
    std::vector<double> laneEnd; // when each lane becomes free
    for (size_t i : order) {
        int lane = 0;
        while (lane < static_cast<int>(laneEnd.size()) &&
               laneEnd[static_cast<size_t>(lane)] > intervals[i].start)
            ++lane;
        if (lane == static_cast<int>(laneEnd.size()))
            laneEnd.push_back(0);
        laneEnd[static_cast<size_t>(lane)] = intervals[i].end;
        lanes[i] = lane;
    }
    if (laneCount)
        *laneCount = static_cast<int>(laneEnd.size());
    return lanes;
}

} // namespace ios::views
