// SPDX-License-Identifier: Apache-2.0
#include "recent_files.h"

#include <QAction>
#include <QFileInfo>
#include <QMenu>
#include <QSettings>

namespace ios::gui {

namespace {
constexpr auto kRecentKey = "recentFiles";
}

RecentFiles::RecentFiles(QMenu* menu, QObject* parent) : QObject(parent), menu_(menu) {
    update();
}

void RecentFiles::add(const QString& path) {
    QSettings settings;
    QStringList files = settings.value(QLatin1String(kRecentKey)).toStringList();
    files.removeAll(path);
    files.prepend(path);
    while (files.size() > kMaxRecentFiles)
        files.removeLast();
    settings.setValue(QLatin1String(kRecentKey), files);
    update();
}

void RecentFiles::update() {
    menu_->clear();
    const QStringList files = QSettings().value(QLatin1String(kRecentKey)).toStringList();
    for (int i = 0; i < files.size(); ++i) {
        const QString path = files[i];
        QAction* a =
            menu_->addAction(QStringLiteral("&%1 %2").arg(i + 1).arg(QFileInfo(path).fileName()),
                             this, [this, path] { Q_EMIT openRequested(path); });
        a->setStatusTip(path);
    }
    menu_->addSeparator();
    QAction* clear = menu_->addAction(tr("Clear List"), this, [this] {
        QSettings().remove(QLatin1String(kRecentKey));
        update();
    });
    clear->setEnabled(!files.isEmpty());
}

} // namespace ios::gui
