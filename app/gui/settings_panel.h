// The search settings (strategy, pruning r/s, max part size, batch, device, endings, cost
// model, memory budget) with Run / Cancel and the progress bar. Values persist in QSettings.
#pragma once

#include "job.h"

#include <QWidget>

class QComboBox;
class QLabel;
class QLineEdit;
class QToolButton;
class QProgressBar;
class QPushButton;
class QSpinBox;

namespace ios::gui {

class SettingsPanel : public QWidget {
    Q_OBJECT
public:
    explicit SettingsPanel(QWidget* parent = nullptr);

    // Everything but the model.
    JobSettings settings() const;
    void setSettings(const JobSettings& settings); // emits settingsChanged once

    void setRunning(bool running);
    void setProgress(double fraction);
    void setResultText(const QString& text);

    void load(); // from QSettings
    void save() const;

    QComboBox* strategyBox() const { return strategy_; }
    QSpinBox* rBox() const { return r_; }
    QSpinBox* sBox() const { return s_; }
    QSpinBox* batchBox() const { return batch_; }
    QComboBox* deviceBox() const { return device_; }
    QComboBox* costModelBox() const { return costModel_; }
    QLineEdit* cacheFileEdit() const { return cacheFile_; }
    QLineEdit* budgetEdit() const { return budget_; }
    QLabel* budgetNote() const { return budgetNote_; }
    QPushButton* useSuggestedBudget() const { return useSuggested_; }

    // The memory budget field (bytes, 0 = none), whether or not the strategy reads it.
    int64_t memoryBudgetField() const { return budgetBytes_; }
    // Sets the budget and, when given and registered, the strategy; one settingsChanged.
    void chooseBudget(int64_t bytes, const QString& strategy = {});
    // A search found no schedule within `budget`: says so under the field and offers
    // `smallestPeak`, the least peak any schedule reaches.
    void showBudgetTooSmall(int64_t budget, int64_t smallestPeak);
    void clearBudgetNote();
    QPushButton* runButton() const { return run_; }
    QPushButton* cancelButton() const { return cancel_; }

Q_SIGNALS:
    void settingsChanged();
    void runRequested();
    void cancelRequested();

private:
    void updateEnabled();
    void applyBudgetText();
    void showBudgetNote(const QString& text, int64_t suggestion);

    QComboBox* strategy_;
    QSpinBox* r_;
    QSpinBox* s_;
    QSpinBox* maxPart_;
    QSpinBox* batch_;
    QSpinBox* threads_; // not a search setting: changing it starts nothing
    QComboBox* device_;
    QComboBox* endings_;
    QComboBox* costModel_;
    QLineEdit* cacheFile_;
    QToolButton* browseCache_;
    QLineEdit* budget_;
    QWidget* budgetProblem_; // the note and its button, hidden when all is well
    QLabel* budgetNote_;
    QPushButton* useSuggested_;
    int64_t budgetBytes_ = 0;
    int64_t suggestedBudget_ = 0;
    QPushButton* run_;
    QPushButton* cancel_;
    QProgressBar* progress_;
    QLabel* result_;
    bool blockChanged_ = false;
};

} // namespace ios::gui
