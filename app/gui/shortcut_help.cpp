#include "shortcut_help.h"

#include "graph_view.h"
#include "state_space_view.h"
#include "timeline_view.h"

#include <QAbstractButton>
#include <QAction>
#include <QDialog>
#include <QDialogButtonBox>
#include <QHeaderView>
#include <QMenu>
#include <QMenuBar>
#include <QTreeWidget>
#include <QVBoxLayout>
#include <algorithm>
#include <memory>

namespace ios::gui {

namespace {

// The keys the views handle in their own keyPressEvent / wheelEvent / mouse handlers. Views
// that publish their table (GraphView, TimelineView, StateSpaceView::shortcutHelp) are read from
// it; the others are listed here. addShortcutHelp adds more at run time.
struct ViewKey {
    const char* section;
    const char* keys;
    const char* description;
};
constexpr ViewKey kViewKeys[] = {
    {"Streams", "+ / −", "Zoom in / out"},
    {"Streams", "F, 0, double-click", "Fit the program"},
    {"Streams", "← / →", "Pan"},
    {"Streams", "Ctrl+wheel", "Zoom around the cursor"},
    {"Streams", "Wheel, Shift+wheel", "Scroll the lanes, pan in time"},
    {"Memory", "← / →", "Previous / next step of the walk"},
    {"Memory", "Home / End", "First / last step"},
    {"Memory", "P", "The peak step"},
};

std::vector<ShortcutHelp>& registry() {
    static std::vector<ShortcutHelp> entries = [] {
        std::vector<ShortcutHelp> out;
        for (const ViewKey& k : kViewKeys)
            out.push_back({QString::fromUtf8(k.section), QString::fromUtf8(k.keys),
                           QString::fromUtf8(k.description)});
        for (const auto& [keys, what] : views::GraphView::shortcutHelp())
            out.push_back({QStringLiteral("Graph"), keys, what});
        for (const auto& [keys, what] : views::TimelineView::shortcutHelp())
            out.push_back({QStringLiteral("Timeline"), keys, what});
        for (const auto& [keys, what] : views::StateSpaceView::shortcutHelp())
            out.push_back({QStringLiteral("State space"), keys, what});
        return out;
    }();
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
    const auto& views = viewShortcutHelp();
    out.insert(out.end(), views.begin(), views.end());
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
