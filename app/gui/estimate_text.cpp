// SPDX-License-Identifier: Apache-2.0
#include "estimate_text.h"

#include "units.h"

#include <QObject>
#include <algorithm>
#include <cmath>

namespace ios::gui::estimate_text {

QString formatProgress(double fraction, quint64 done, quint64 total, double elapsed,
                       std::optional<double> left, bool over) {
    fraction = std::clamp(fraction, 0.0, 1.0);
    QString text = QObject::tr("%1 %").arg(static_cast<int>(fraction * 100.0));
    if (total > 0 && elapsed > 0.2) // a rate over the first moments says nothing
        text += QObject::tr(" · %1 states/s")
                    .arg(views::formatCount(static_cast<double>(done) / elapsed));
    if (fraction < 1.0)
        if (const QString l = formatLeft(left, over); !l.isEmpty())
            text += QStringLiteral(" · ") + l;
    return text;
}

QString formatLeft(std::optional<double> left, bool over) {
    if (left) // whole seconds: a finer ETA only jitters
        return QObject::tr("ETA %1").arg(
            *left < 60 ? QObject::tr("%1 s").arg(std::max(1.0, std::ceil(*left)))
                       : formatDuration(*left));
    return over ? QObject::tr("over estimate") : QString();
}

QString formatEstimate(double low, double high) {
    if (high <= 0)
        return QObject::tr("> %1").arg(formatDuration(low));
    if (high > 2 * low)
        return QObject::tr("%1–%2").arg(formatDuration(low), formatDuration(high));
    return QObject::tr("≈ %1").arg(formatDuration(std::sqrt(low * high)));
}

QString formatDuration(double seconds) {
    if (seconds < 60)
        return views::formatSeconds(seconds);
    if (seconds < 3600)
        return QObject::tr("%1 min").arg(seconds / 60, 0, 'f', seconds < 600 ? 1 : 0);
    return QObject::tr("%1 h").arg(seconds / 3600, 0, 'f', 1);
}

QString describeEstimate(const schedulers::SearchEstimate& e) {
    const QString states = QObject::tr("%1 %2").arg(
        views::formatCount(static_cast<double>(e.states)),
        QString::fromUtf8(e.statesUnit.data(), static_cast<qsizetype>(e.statesUnit.size())));
    if (!e.complete)
        return QObject::tr("> %1 · %2 (too many %3 to count in %1)")
            .arg(formatDuration(e.seconds), states,
                 QString::fromUtf8(e.transitionsUnit.data(),
                                   static_cast<qsizetype>(e.transitionsUnit.size())));
    return QObject::tr("%1 · %2 · %3 %4 · %5 stages to price")
        .arg(e.high > 0 ? formatEstimate(e.low, e.high)
                        : QObject::tr("≈ %1").arg(formatDuration(e.seconds)),
             states, views::formatCount(static_cast<double>(e.transitions)),
             QString::fromUtf8(e.transitionsUnit.data(),
                               static_cast<qsizetype>(e.transitionsUnit.size())),
             views::formatCount(static_cast<double>(e.stagesPriced)));
}

bool runsUnder(const schedulers::SearchEstimate& e, double limit) {
    return e.complete && e.seconds < limit;
}

QString notRunNote(const schedulers::SearchEstimate* e, double limit) {
    if (limit <= 0)
        return QObject::tr(" — press F5 to run");
    if (e != nullptr && !e->complete)
        return QObject::tr(" — not known to be under the %1 auto-run limit: press F5 to run")
            .arg(formatDuration(limit));
    return QObject::tr(" — over the %1 auto-run limit: press F5 to run").arg(formatDuration(limit));
}

} // namespace ios::gui::estimate_text
