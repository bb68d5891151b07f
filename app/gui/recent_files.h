// SPDX-License-Identifier: Apache-2.0
// File ▸ Open Recent: the last opened model files (QSettings), newest first.
#pragma once

#include <QObject>
#include <QString>

class QMenu;

namespace ios::gui {

class RecentFiles : public QObject {
    Q_OBJECT
public:
    static constexpr int kMaxRecentFiles = 10;

    // Fills `menu` (owned by the caller) and keeps it up to date.
    RecentFiles(QMenu* menu, QObject* parent);
    void add(const QString& path);

Q_SIGNALS:
    void openRequested(const QString& path);

private:
    void update();

    QMenu* menu_;
};

} // namespace ios::gui
