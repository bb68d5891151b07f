#include "job.h"

#include <QCoreApplication>

namespace ios::gui {

QString strategyLabel(StrategyChoice s) {
    switch (s) {
    case StrategyChoice::Sequential:
        return QCoreApplication::translate("ios", "Sequential");
    case StrategyChoice::Greedy:
        return QCoreApplication::translate("ios", "Greedy");
    case StrategyChoice::Merge:
        return QCoreApplication::translate("ios", "IOS-Merge");
    case StrategyChoice::Parallel:
        return QCoreApplication::translate("ios", "IOS-Parallel");
    case StrategyChoice::Both:
        return QCoreApplication::translate("ios", "IOS-Both");
    }
    return {};
}

QString strategyKey(StrategyChoice s) {
    switch (s) {
    case StrategyChoice::Sequential:
        return QStringLiteral("sequential");
    case StrategyChoice::Greedy:
        return QStringLiteral("greedy");
    case StrategyChoice::Merge:
        return QStringLiteral("merge");
    case StrategyChoice::Parallel:
        return QStringLiteral("parallel");
    case StrategyChoice::Both:
        return QStringLiteral("both");
    }
    return {};
}

std::optional<StrategyChoice> strategyFromKey(const QString& key) {
    for (int i = 0; i < kStrategyCount; ++i) {
        const auto s = static_cast<StrategyChoice>(i);
        if (strategyKey(s) == key)
            return s;
    }
    return std::nullopt;
}

bool isDpStrategy(StrategyChoice s) {
    return s == StrategyChoice::Merge || s == StrategyChoice::Parallel || s == StrategyChoice::Both;
}

} // namespace ios::gui
