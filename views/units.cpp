// SPDX-License-Identifier: Apache-2.0
#include "units.h"

#include "util/byte_size.h"

#include <QFontMetrics>
#include <QLocale>
#include <cmath>

namespace ios::views {

namespace {
QString scaled(double v, const char* const* units, int count, double base, int precision) {
    int i = 0;
    while (std::abs(v) >= base && i + 1 < count) {
        v /= base;
        ++i;
    }
    return QStringLiteral("%1 %2")
        .arg(v, 0, 'f', i == 0 ? 0 : precision)
        .arg(QLatin1String(units[i]));
}
} // namespace

QString formatFlops(double flops) {
    static const char* const units[] = {"FLOP", "kFLOP", "MFLOP", "GFLOP", "TFLOP"};
    return scaled(flops, units, 5, 1000.0, 2);
}

QString formatBytes(double bytes) {
    static const char* const units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
    return scaled(bytes, units, 5, 1024.0, 1);
}

QString formatMs(double ms) {
    if (!std::isfinite(ms))
        return QStringLiteral("—");
    if (std::abs(ms) < 1.0)
        return QStringLiteral("%1 µs").arg(ms * 1000.0, 0, 'f', 1);
    return QStringLiteral("%1 ms").arg(ms, 0, 'f', 3);
}

QString formatSeconds(double seconds) {
    if (!std::isfinite(seconds))
        return QStringLiteral("—");
    if (seconds < 1e-3)
        return QStringLiteral("%1 µs").arg(seconds * 1e6, 0, 'f', 0);
    if (seconds < 1.0)
        return QStringLiteral("%1 ms").arg(seconds * 1e3, 0, 'f', 1);
    return QStringLiteral("%1 s").arg(seconds, 0, 'f', 2);
}

QString formatCount(double count) {
    if (std::isinf(count))
        return QStringLiteral("> 1e308");
    if (std::abs(count) < 1e15)
        return QLocale(QLocale::English).toString(static_cast<qlonglong>(std::llround(count)));
    return QString::number(count, 'e', 2);
}

std::optional<int64_t> parseBytes(const QString& text) {
    const util::ByteSize size = util::parseByteSize(text.toStdString());
    if (size.status != util::ByteSize::Status::Ok)
        return std::nullopt;
    return size.bytes;
}

QString exactBytes(int64_t bytes) {
    static const char* const units[] = {"GiB", "MiB", "KiB"};
    for (int u = 0; u < 3; ++u) {
        const double unit = std::ldexp(1.0, 10 * (3 - u));
        if (static_cast<double>(bytes) < unit)
            continue;
        for (int decimals = 0; decimals <= (u < 2 ? 3 : 0); ++decimals) { // KiB: whole
            const QString text = QStringLiteral("%1 %2")
                                     .arg(static_cast<double>(bytes) / unit, 0, 'f', decimals)
                                     .arg(QLatin1String(units[u]));
            if (parseBytes(text) == bytes)
                return text;
        }
    }
    return QStringLiteral("%1 B").arg(bytes);
}

QString formatBigCount(const BigUint& count) {
    const std::string digits = count.toString();
    if (digits.size() <= 15)
        return formatCount(count.toDouble());
    // d.dd×10^N from the digits themselves: exact at any size (toDouble is inf past 1e308).
    const int exponent = static_cast<int>(digits.size()) - 1;
    const double mantissa = std::stod(digits.substr(0, 4)) / 1000.0;
    const long long hundredths = std::llround(mantissa * 100.0);
    const bool carry = hundredths >= 1000; // 9.996 rounds to 10.00
    return QStringLiteral("%1×10^%2")
        .arg(carry ? 1.0 : static_cast<double>(hundredths) / 100.0, 0, 'f', 2)
        .arg(exponent + (carry ? 1 : 0));
}

QString elideLeft(const QString& name, const QFontMetrics& metrics, int width) {
    if (metrics.horizontalAdvance(name) <= width)
        return name;
    const QString ellipsis = QStringLiteral("…");
    // Whole segments: "…/conv1/Conv" reads better than "…nv1/Conv".
    for (qsizetype from = name.indexOf(QLatin1Char('/'), 1); from > 0;
         from = name.indexOf(QLatin1Char('/'), from + 1)) {
        const QString tail = ellipsis + name.mid(from);
        if (metrics.horizontalAdvance(tail) <= width)
            return tail;
    }
    return metrics.elidedText(name, Qt::ElideLeft, width);
}

QString formatShape(const ir::TensorShape& s) {
    return QStringLiteral("%1×%2×%3").arg(s.c).arg(s.h).arg(s.w);
}

} // namespace ios::views
