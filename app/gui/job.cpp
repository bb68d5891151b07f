// SPDX-License-Identifier: Apache-2.0
#include "job.h"

#include <QObject>
#include <QStringList>

namespace ios::gui {

const schedulers::Scheduler* schedulerFor(const QString& keyOrAlias) {
    return schedulers::findScheduler(keyOrAlias.toStdString());
}

QString strategyLabel(const QString& key) {
    const schedulers::Scheduler* s = schedulerFor(key);
    if (s == nullptr)
        return key;
    const std::string_view label = s->label();
    return QString::fromUtf8(label.data(), static_cast<qsizetype>(label.size()));
}

QString costModelKey(const cost::CostModelEntry& entry) {
    const std::string& key = entry.key;
    return QString::fromStdString(entry.takesArgument() ? key.substr(0, key.size() - 1) : key);
}

std::optional<cost::CostModelEntry> costModelEntry(const QString& key) {
    for (cost::CostModelEntry& e : cost::costModelEntries())
        if (costModelKey(e) == key)
            return std::move(e);
    return std::nullopt;
}

void ProgressSlice::install() const {
    control.search.progress = [slice = *this](uint64_t done, uint64_t total) {
        const double f = total ? static_cast<double>(done) / static_cast<double>(total) : 1.0;
        slice.control.progress = slice.begin + (slice.end - slice.begin) * f;
        slice.control.done = done;
        slice.control.total = total;
    };
}

bool sameSearch(const JobSettings& a, const JobSettings& b) {
    return searchDifference(a, b).isEmpty();
}

QString searchDifference(const JobSettings& shown, const JobSettings& current) {
    QStringList out;
    auto differ = [&out](const QString& what, const QString& a, const QString& b) {
        if (a != b)
            out << QStringLiteral("%1 %2 → %3").arg(what, a, b);
    };
    auto number = [](auto v) { return QString::number(v); };
    differ(QObject::tr("strategy"), strategyLabel(shown.strategy), strategyLabel(current.strategy));
    differ(QStringLiteral("r"), number(shown.r), number(current.r));
    differ(QStringLiteral("s"), number(shown.s), number(current.s));
    differ(QObject::tr("max part"), number(shown.maxPartSize), number(current.maxPartSize));
    differ(QObject::tr("batch"), number(shown.batch), number(current.batch));
    differ(QObject::tr("device"), shown.device, current.device);
    differ(QObject::tr("endings"), QString::fromUtf8(schedulers::toString(shown.endings).data()),
           QString::fromUtf8(schedulers::toString(current.endings).data()));
    differ(QObject::tr("cost model"), shown.costModel, current.costModel);
    const std::optional<cost::CostModelEntry> a = costModelEntry(shown.costModel);
    const std::optional<cost::CostModelEntry> b = costModelEntry(current.costModel);
    if ((a && a->takesArgument()) || (b && b->takesArgument()))
        differ(QObject::tr("measurements"), shown.cacheFile, current.cacheFile);
    if ((a && a->can.simulatedFallback) || (b && b->can.simulatedFallback))
        differ(QObject::tr("missing stages"),
               shown.storeFallback ? QObject::tr("simulated") : QObject::tr("refused"),
               current.storeFallback ? QObject::tr("simulated") : QObject::tr("refused"));
    differ(QObject::tr("budget"), number(shown.memoryBudget), number(current.memoryBudget));
    return out.join(QStringLiteral(", "));
}

} // namespace ios::gui
