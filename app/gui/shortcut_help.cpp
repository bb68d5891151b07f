// SPDX-License-Identifier: Apache-2.0
#include "shortcut_help.h"

#include "result_view.h"

#include <QAbstractButton>
#include <QAction>
#include <QDialog>
#include <QDialogButtonBox>
#include <QHeaderView>
#include <QMenu>
#include <QMenuBar>
#include <QTabWidget>
#include <QTreeWidget>
#include <QVBoxLayout>
#include <algorithm>
#include <memory>

namespace ios::gui {

namespace {

// Keys declared at run time (addShortcutHelp); the tabs' own come from views::ResultView.
std::vector<ShortcutHelp>& registry() {
    static std::vector<ShortcutHelp> entries;
    return entries;
}

QString plain(QString text) {
    text.remove(QLatin1Char('&'));
    text.remove(QStringLiteral("…"));
    return text.trimmed();
}

void addMenu(const QMenu* menu, const QString& section, std::vector<ShortcutHelp>& out) {
    for (QAction* a : menu->actions()) {
        if (a->menu() != nullptr) {
            addMenu(a->menu(), section + QStringLiteral(" ▸ ") + plain(a->menu()->title()), out);
            continue;
        }
        for (const QKeySequence& key : a->shortcuts())
            if (!key.isEmpty())
                out.push_back({section, key.toString(QKeySequence::NativeText), plain(a->text())});
    }
}

} // namespace

void addShortcutHelp(const QString& section, const QString& keys, const QString& description) {
    auto& entries = registry();
    const bool known = std::any_of(entries.begin(), entries.end(), [&](const ShortcutHelp& e) {
        return e.section == section && e.keys == keys;
    });
    if (!known)
        entries.push_back({section, keys, description});
}

const std::vector<ShortcutHelp>& viewShortcutHelp() {
    return registry();
}

std::vector<ShortcutHelp> collectShortcuts(const QWidget* window) {
    std::vector<ShortcutHelp> out;
    if (const auto* bar = window->findChild<QMenuBar*>())
        for (QAction* top : bar->actions())
            if (top->menu() != nullptr)
                addMenu(top->menu(), plain(top->menu()->title()), out);
    for (const QAbstractButton* b : window->findChildren<QAbstractButton*>())
        if (!b->shortcut().isEmpty())
            out.push_back({QObject::tr("Search"), b->shortcut().toString(QKeySequence::NativeText),
                           b->toolTip().isEmpty() ? plain(b->text()) : b->toolTip()});
    // Each tab's own keys (views::ResultView::shortcuts), under the tab's title.
    for (const QTabWidget* tabs : window->findChildren<QTabWidget*>())
        for (int i = 0; i < tabs->count(); ++i)
            if (const views::ResultView* view = views::asResultView(tabs->widget(i)))
                for (const auto& [keys, what] : view->shortcuts())
                    out.push_back({plain(tabs->tabText(i)), keys, what});
    const auto& declared = viewShortcutHelp();
    out.insert(out.end(), declared.begin(), declared.end());
    return out;
}

QDialog* createShortcutDialog(QWidget* parent, const std::vector<ShortcutHelp>& entries) {
    auto* dialog = new QDialog(parent);
    dialog->setWindowTitle(QObject::tr("Keyboard Shortcuts"));
    auto* tree = new QTreeWidget(dialog);
    tree->setObjectName(QStringLiteral("shortcutList"));
    tree->setColumnCount(2);
    tree->setHeaderLabels({QObject::tr("Key"), QObject::tr("Action")});
    tree->setRootIsDecorated(false);
    tree->setAlternatingRowColors(true);
    // Sections in order of first appearance, each entry under its own.
    std::vector<ShortcutHelp> sorted = entries;
    std::vector<QString> order;
    for (const ShortcutHelp& e : entries)
        if (std::find(order.begin(), order.end(), e.section) == order.end())
            order.push_back(e.section);
    std::stable_sort(sorted.begin(), sorted.end(),
                     [&](const ShortcutHelp& a, const ShortcutHelp& b) {
                         return std::find(order.begin(), order.end(), a.section) <
                                std::find(order.begin(), order.end(), b.section);
                     });
    QString section;
    for (const ShortcutHelp& e : sorted) {
        if (e.section != section) {
            section = e.section;
            auto* head = new QTreeWidgetItem(tree, {section});
            QFont bold = head->font(0);
            bold.setBold(true);
            head->setFont(0, bold);
            head->setFirstColumnSpanned(true);
        }
        new QTreeWidgetItem(tree, {e.keys, e.description});
    }
    tree->header()->setSectionResizeMode(0, QHeaderView::ResizeToContents);
    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Close, dialog);
    QObject::connect(buttons, &QDialogButtonBox::rejected, dialog, &QDialog::reject);
    auto* layout = new QVBoxLayout(dialog);
    layout->addWidget(tree);
    layout->addWidget(buttons);
    dialog->resize(560, 560);
    return dialog;
}

void showShortcutDialog(QWidget* parent, const std::vector<ShortcutHelp>& entries) {
    std::unique_ptr<QDialog> dialog(createShortcutDialog(parent, entries));
    dialog->exec();
}

} // namespace ios::gui
