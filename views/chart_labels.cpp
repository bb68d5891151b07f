// SPDX-License-Identifier: Apache-2.0
#include "chart_labels.h"

#include <QFontMetricsF>
#include <array>
#include <cmath>

namespace ios::views {

QString AxisUnit::title(const QString& quantity) const {
    return name.isEmpty() ? quantity : QStringLiteral("%1 (%2)").arg(quantity, name);
}

AxisUnit durationUnit(double maxSeconds) {
    if (maxSeconds < 1e-3)
        return {1e-6, QStringLiteral("µs")};
    if (maxSeconds < 1)
        return {1e-3, QStringLiteral("ms")};
    return {1, QStringLiteral("s")};
}

AxisUnit durationUnitMs(double maxMs) {
    const AxisUnit unit = durationUnit(maxMs / 1000);
    return {unit.per * 1000, unit.name};
}

AxisUnit countUnit(double maxCount) {
    static const std::array<const char*, 5> names{"×10³", "×10⁶", "×10⁹", "×10¹²", "×10¹⁵"};
    if (!(maxCount >= 1e4) || !std::isfinite(maxCount))
        return {};
    const int k = std::min(static_cast<int>(std::floor(std::log10(maxCount) / 3)),
                           static_cast<int>(names.size()));
    return {std::pow(1000.0, k), QString::fromUtf8(names[static_cast<size_t>(k - 1)])};
}

QString tickLabel(double value, double step) {
    int decimals = 0;
    if (step > 0 && std::isfinite(step))
        decimals = std::clamp(static_cast<int>(std::ceil(-std::log10(step) - 1e-9)), 0, 9);
    if (std::abs(value) < step * 1e-9)
        value = 0; // no "-0"
    return QString::number(value, 'f', decimals);
}

bool isNiceStep(double step) {
    if (!(step > 0) || !std::isfinite(step))
        return false;
    const double mantissa = step / std::pow(10.0, std::floor(std::log10(step) + 1e-12));
    for (double m : {1.0, 2.0, 5.0, 10.0})
        if (std::abs(mantissa - m) < 1e-6 * m)
            return true;
    return false;
}

void ChartLabels::reset(const QPainter& p, const QRectF& bounds) {
    bounds_ = p.transform().mapRect(bounds);
    labels_.clear();
    dropped_ = 0;
}

ChartLabels::Placed ChartLabels::place(const QPainter& p, const QRectF& box, int flags,
                                       const QString& text, Qt::TextElideMode elide) const {
    const QFontMetricsF fm(p.font(), p.device());
    QString shown = text;
    if (!(flags & Qt::TextWordWrap)) { // each line elided on its own
        QStringList lines = text.split(QLatin1Char('\n'));
        for (QString& line : lines)
            if (fm.horizontalAdvance(line) > box.width())
                line = elide == Qt::ElideNone ? QString() : fm.elidedText(line, elide, box.width());
        shown = lines.join(QLatin1Char('\n'));
        if (shown.trimmed().isEmpty())
            shown.clear();
    }
    QRectF local = fm.boundingRect(box, flags, shown);
    // Integer-rounded metrics may report a hair more than the box; that is not a clip.
    if (local.width() > box.width() && local.width() < box.width() + 1) {
        local.setLeft(std::max(local.left(), box.left()));
        local.setRight(std::min(local.right(), box.right()));
    }
    return {shown, local, p.transform().mapRect(local)};
}

bool ChartLabels::free(const QRectF& device) const {
    if (device.isEmpty() || !bounds_.adjusted(-0.5, -0.5, 0.5, 0.5).contains(device))
        return false;
    for (const ChartLabel& l : labels_)
        if (l.rect.intersected(device).width() > 0.5 && l.rect.intersected(device).height() > 0.5)
            return false;
    return true;
}

bool ChartLabels::fits(const QPainter& p, const QRectF& box, int flags, const QString& text,
                       Qt::TextElideMode elide) const {
    const Placed placed = place(p, box, flags, text, elide);
    return !placed.text.isEmpty() && free(placed.device);
}

bool ChartLabels::draw(QPainter& p, const QRectF& box, int flags, const QString& text,
                       Qt::TextElideMode elide) {
    if (text.isEmpty())
        return true;
    const Placed placed = place(p, box, flags, text, elide);
    if (placed.text.isEmpty() || !free(placed.device)) {
        ++dropped_;
        return false;
    }
    p.drawText(box, flags, placed.text);
    labels_.push_back({placed.device, placed.text});
    return true;
}

} // namespace ios::views
