// SPDX-License-Identifier: Apache-2.0
#include "export_dialog.h"

#include "exports.h"
#include "main_window.h"
#include "session.h"

#include <QDir>
#include <QFileDialog>
#include <QFileInfo>
#include <QRegularExpression>
#include <QSettings>
#include <QTabWidget>

namespace ios::gui {

namespace {
constexpr auto kExportDirKey = "export/lastDir";

QString fileSafe(QString text) {
    static const QRegularExpression unsafe(QStringLiteral("[^A-Za-z0-9._+-]+"));
    text = text.trimmed().toLower().replace(unsafe, QStringLiteral("-"));
    while (text.startsWith(QLatin1Char('-')))
        text.remove(0, 1);
    while (text.endsWith(QLatin1Char('-')))
        text.chop(1);
    return text;
}
} // namespace

QString exportBaseName(const MainWindow& window, const QString& what) {
    QString part = what;
    if (part.isEmpty() && window.tabs()->currentIndex() >= 0)
        part = window.tabs()->tabText(window.tabs()->currentIndex()).remove(QLatin1Char('&'));
    part = fileSafe(part);
    const QString model =
        window.model() ? fileSafe(QString::fromStdString(window.model()->graph().name)) : QString();
    if (model.isEmpty())
        return part.isEmpty() ? QStringLiteral("export") : part;
    return part.isEmpty() ? model : model + QLatin1Char('-') + part;
}

QString exportDirectory() {
    const QString dir = QSettings().value(QLatin1String(kExportDirKey)).toString();
    return !dir.isEmpty() && QFileInfo(dir).isDir() ? dir : QDir::homePath();
}

void setExportDirectory(const QString& dir) {
    QSettings().setValue(QLatin1String(kExportDirKey), dir);
}

QString chooseExportPath(QWidget* parent, const QString& title, const QString& baseName,
                         const QString& filters) {
    QString selected = filters.section(QStringLiteral(";;"), 0, 0);
    const QString suggested =
        QDir(exportDirectory()).filePath(baseName + filterSuffixes(selected).value(0));
    const QString path =
        withFilterSuffix(QFileDialog::getSaveFileName(parent, title, suggested, filters, &selected),
                         selected, filters);
    if (!path.isEmpty())
        setExportDirectory(QFileInfo(path).absolutePath());
    return path;
}

} // namespace ios::gui
