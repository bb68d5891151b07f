// SPDX-License-Identifier: Apache-2.0
// The search settings (strategy, pruning r/s, max part size, batch, device, endings, cost
// model, memory budget) with Run / Cancel and the progress bar. Values persist in QSettings.
#pragma once

#include "job.h"

#include <QWidget>
#include <optional>

class QCheckBox;
class QComboBox;
class QDoubleSpinBox;
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
    // fraction 0..1; done of total in the search's units (states), 0 of 0 when unknown, and
    // the seconds since the job started: the bar reads "42 % · 12,300 states/s · ETA 8 s".
    // `left`: the time left (JobController::secondsLeft), `over`: past the estimate.
    void setProgress(double fraction, quint64 done = 0, quint64 total = 0, double elapsed = 0,
                     std::optional<double> left = std::nullopt, bool over = false);
    QString progressText() const;
    void setResultText(const QString& text);
    QString resultText() const;
    // Under Run: what the search will cost ("≈ 1.2 s · 1,206 states"); empty hides it.
    void setEstimateText(const QString& text);
    QString estimateText() const;
    // Above the result: how the shown result differs from these settings ("showing batch 1 —
    // batch 1 → 16: press F5 to run"); empty hides it.
    void setStaleNote(const QString& text);
    // The open model has `explicitBlocks` of `blocks` blocks with explicit parts, which Max
    // part size does not cut: its tooltip says so, and it is off when all have them.
    void setExplicitParts(int explicitBlocks, int blocks);
    QString staleNote() const;
    // Settings edits start a search only when its estimate is below this (seconds; 0 = never).
    // Not a search setting: persisted with the others, changing it starts nothing.
    static constexpr double kDefaultAutoRunSeconds = 2.0;
    double autoRunSeconds() const;
    QDoubleSpinBox* autoRunBox() const { return autoRun_; }
    QSpinBox* maxPartBox() const { return maxPart_; }
    QSpinBox* threadsBox() const { return threads_; }

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
    QString maxPartTip() const; // its range, and whether the open model's parts are explicit
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
    QCheckBox* storeFallback_;
    QLineEdit* budget_;
    QWidget* budgetProblem_; // the note and its button, hidden when all is well
    QLabel* budgetNote_;
    QPushButton* useSuggested_;
    int64_t budgetBytes_ = 0;
    int64_t suggestedBudget_ = 0;
    QPushButton* run_;
    QPushButton* cancel_;
    QDoubleSpinBox* autoRun_;
    QProgressBar* progress_;
    QLabel* estimate_;
    QLabel* staleNote_;
    QLabel* result_;
    bool blockChanged_ = false;
    int explicitBlocks_ = 0; // of the open model's blocks, those with explicit parts
    int blockCount_ = 0;
};

} // namespace ios::gui
