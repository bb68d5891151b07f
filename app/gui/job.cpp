#include "job.h"

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

QString costModelKey(CostModelChoice c) {
    switch (c) {
    case CostModelChoice::Simulated:
        return QStringLiteral("simulated");
    case CostModelChoice::Analytic:
        return QStringLiteral("analytic");
    case CostModelChoice::Cache:
        return QStringLiteral("cache");
    case CostModelChoice::Measured:
        return QStringLiteral("measured");
    }
    return QStringLiteral("simulated");
}

std::optional<CostModelChoice> costModelFromKey(const QString& key) {
    for (CostModelChoice c : {CostModelChoice::Simulated, CostModelChoice::Analytic,
                              CostModelChoice::Cache, CostModelChoice::Measured})
        if (costModelKey(c) == key)
            return c;
    return std::nullopt;
}

void ProgressSlice::install() const {
    control.search.progress = [slice = *this](uint64_t done, uint64_t total) {
        const double f = total ? static_cast<double>(done) / static_cast<double>(total) : 1.0;
        slice.control.progress = slice.begin + (slice.end - slice.begin) * f;
    };
}

} // namespace ios::gui
