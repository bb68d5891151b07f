// SPDX-License-Identifier: Apache-2.0
// Help ▸ Keyboard Shortcuts: generated from the shortcuts actually registered (the main
// window's menu actions and buttons) plus the keys the tabs handle themselves, which each tab
// publishes through views::ResultView::shortcuts (or, for a panel that is no tab, declares here
// once with addShortcutHelp), so the list cannot drift from the code.
#pragma once

#include <QString>
#include <vector>

class QDialog;
class QWidget;

namespace ios::gui {

struct ShortcutHelp {
    QString section;     // "File", "Search", "Timeline", …
    QString keys;        // native text: "Ctrl+O", "F5", "W / S"
    QString description; // what it does
};

// Declares a key a view handles itself (keyPressEvent, wheel): e.g.
// addShortcutHelp("Timeline", "W / S", "Zoom in / out around the cursor"). Adding the same
// section and keys twice keeps the first. Call at start-up (a view's constructor is fine).
void addShortcutHelp(const QString& section, const QString& keys, const QString& description);
const std::vector<ShortcutHelp>& viewShortcutHelp();

// Every QAction with a shortcut under `window` (its menu title as the section, the action's
// text without '&' and '…' as the description; a button: its tooltip), every button with one
// (section "Search"), every tab's ResultView::shortcuts (its title as the section), then
// viewShortcutHelp().
std::vector<ShortcutHelp> collectShortcuts(const QWidget* window);

// A dialog listing `entries` by section (object name "shortcutList" for its tree), owned by
// the caller; showShortcutDialog runs one modally.
QDialog* createShortcutDialog(QWidget* parent, const std::vector<ShortcutHelp>& entries);
void showShortcutDialog(QWidget* parent, const std::vector<ShortcutHelp>& entries);

} // namespace ios::gui
