// SPDX-License-Identifier: Apache-2.0
#include "memory_plot.h"

#include "time_axis.h"

#include <algorithm>
#include <cmath>

namespace ios::views {

namespace {
constexpr double kMiB = 1024.0 * 1024.0;
} // namespace

NiceRange NiceRange::of(double lo, double hi, int targetTicks) {
    NiceRange r;
    if (!std::isfinite(lo) || !std::isfinite(hi))
        return r;
    if (hi < lo)
        std::swap(lo, hi);
    const double span = hi > lo ? hi - lo : std::max(std::abs(hi), 1e-9);
    r.step = TimeAxis::niceStep(span / std::max(targetTicks, 1));
    r.lo = std::floor(lo / r.step + 1e-9) * r.step;
    r.hi = std::ceil(hi / r.step - 1e-9) * r.step;
    if (r.hi <= r.lo)
        r.hi = r.lo + r.step;
    return r;
}

std::vector<double> NiceRange::ticks() const {
    std::vector<double> out;
    for (double v = lo; v <= hi + step * 1e-6; v += step)
        out.push_back(std::abs(v) < step * 1e-9 ? 0.0 : v);
    return out;
}

double NiceRange::toPixel(double value, double p0, double p1) const {
    return p0 + (p1 - p0) * (value - lo) / (hi - lo);
}

double NiceRange::fromPixel(double pixel, double p0, double p1) const {
    return p1 == p0 ? lo : lo + (hi - lo) * (pixel - p0) / (p1 - p0);
}

BytesScale BytesScale::forRange(double lo, double hi, int targetTicks) {
    BytesScale s;
    if (!std::isfinite(lo) || !std::isfinite(hi))
        return s;
    static const char* const names[] = {"B", "KiB", "MiB", "GiB"};
    int u = 0;
    while (u < 3 && std::max(std::abs(lo), std::abs(hi)) >= std::ldexp(1.0, 10 * (u + 1)))
        ++u;
    s.unit = std::ldexp(1.0, 10 * u);
    s.unitName = QLatin1String(names[u]);
    const NiceRange r = NiceRange::of(lo / s.unit, hi / s.unit, targetTicks);
    const double step = u == 0 ? std::max(r.step, 1.0) : r.step; // no fractions of a byte
    s.step = step * s.unit;
    s.lo = std::floor(r.lo / step + 1e-9) * s.step;
    s.hi = std::ceil(r.hi / step - 1e-9) * s.step;
    if (s.hi <= s.lo)
        s.hi = s.lo + s.step;
    return s;
}

QString BytesScale::label(double bytes) const {
    const double inUnit = step / unit;
    const int decimals = inUnit >= 1 ? 0 : inUnit >= 0.1 ? 1 : inUnit >= 0.01 ? 2 : 3;
    return QStringLiteral("%1 %2").arg(bytes / unit, 0, 'f', decimals).arg(unitName);
}

int64_t snapBudget(double bytes, int64_t lo, int64_t hi) {
    const double hundredths = std::round(bytes / kMiB * 100.0);
    const auto snapped = static_cast<int64_t>(std::llround(hundredths / 100.0 * kMiB));
    return std::clamp(snapped, lo, std::max(lo, hi));
}

} // namespace ios::views
