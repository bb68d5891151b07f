// The search settings (strategy, pruning r/s, max part size, batch, device, endings, cost
// model) with
// Run / Cancel and the progress bar. Values persist in QSettings.
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
    QPushButton* runButton() const { return run_; }
    QPushButton* cancelButton() const { return cancel_; }

Q_SIGNALS:
    void settingsChanged();
    void runRequested();
    void cancelRequested();

private:
    void updateEnabled();

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
    QPushButton* run_;
    QPushButton* cancel_;
    QProgressBar* progress_;
    QLabel* result_;
    bool blockChanged_ = false;
};

} // namespace ios::gui
