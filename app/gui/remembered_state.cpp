// SPDX-License-Identifier: Apache-2.0
#include "remembered_state.h"

#include <QDir>
#include <QFileInfo>
#include <QSettings>
#include <QTabWidget>

namespace ios::gui {

namespace {
constexpr auto kModelKey = "session/lastModel";
constexpr auto kTabKey = "session/lastTab";
} // namespace

void rememberModel(const QString& pathOrName) {
    const QFileInfo file(pathOrName);
    QSettings().setValue(QLatin1String(kModelKey),
                         file.exists() ? file.absoluteFilePath() : pathOrName);
}

QString rememberedModel(const QString& fallback) {
    const QString last = QSettings().value(QLatin1String(kModelKey)).toString();
    if (last.isEmpty())
        return fallback;
    // A path that has gone is not reopened (an error box at start helps no one); a name
    // without a separator is a bundled model's.
    const bool path = last.contains(QLatin1Char('/')) || last.contains(QDir::separator());
    return path && !QFileInfo::exists(last) ? fallback : last;
}

void rememberTabs(QTabWidget* tabs) {
    const QString last = QSettings().value(QLatin1String(kTabKey)).toString();
    for (int i = 0; i < tabs->count() && !last.isEmpty(); ++i)
        if (tabs->widget(i)->objectName() == last)
            tabs->setCurrentIndex(i);
    QObject::connect(tabs, &QTabWidget::currentChanged, tabs, [tabs](int index) {
        if (index >= 0)
            QSettings().setValue(QLatin1String(kTabKey), tabs->widget(index)->objectName());
    });
}

} // namespace ios::gui
