// SPDX-License-Identifier: Apache-2.0
// The MetaFlow tab (docs/gui.md "MetaFlow"): rewrite the open model with MetaFlow's relaxed
// graph substitutions, then compare schedulers on the original G0 and the rewritten G*. Its
// own settings (preset, α, budget, split threshold, one switch per rule, objective, the
// scheduler run on G*) persist in QSettings; the model, batch, device, cost model, r and s are
// the main settings'. The search runs as a job with its own Run and Cancel; its progress feeds
// a live chart. The result: the substitution log (a row selects its operators in both
// graphs), G0 | G* side by side with what changed coloured, the before/after metrics, and the
// comparison rows Sequential(G0), IOS-Both(G0), Sequential(G*), IOS-Both(G*).
#pragma once

#include "job.h"
#include "result_view.h"

#include <QWidget>
#include <optional>
#include <vector>

class QCheckBox;
class QComboBox;
class QDoubleSpinBox;
class QLabel;
class QProgressBar;
class QPushButton;
class QSpinBox;
class QTableWidget;
class QTabWidget;

namespace ios::views {
class ComparisonChart;
class GraphDiffView;
class MetaflowSearchChart;
} // namespace ios::views

namespace ios::gui {

class JobController;
class StaleOverlay;

class MetaflowPanel : public QWidget, public views::ResultView {
    Q_OBJECT
public:
    // views::ResultView
    QWidget* widget() override { return this; }
    QString description() const override;
    // `jobs` runs the searches (owned by the caller, which must outlive the engine it holds).
    explicit MetaflowPanel(QWidget* parent = nullptr); // owns its job controller

    MetaflowSettings settings() const;
    void setSettings(const MetaflowSettings& settings); // and persists them
    // Starts the search with `main` (model, batch, device, cost model, r, s) and this tab's
    // settings; a search still running is superseded.
    void run(JobSettings main);
    void cancel();
    bool isRunning() const;
    // The open model and the main settings changed: the shown result says whether it is theirs.
    void updateStaleness(const views::LoadedModelPtr& model, JobSettings current);
    // A new model was opened: nothing of the old one's result stays.
    void clear();

    const std::shared_ptr<const MetaflowJobResult>& result() const { return result_; }
    QString staleMessage() const;
    QString progressText() const;
    JobController* jobs() const { return jobs_; }
    QTableWidget* substitutions() const { return substitutions_; }
    QTableWidget* metrics() const { return metrics_; }
    views::GraphDiffView* diffView() const { return diff_; }
    views::MetaflowSearchChart* searchChart() const { return searchChart_; }
    views::ComparisonChart* comparisonChart() const { return comparison_; }
    QPushButton* runButton() const { return run_; }
    QPushButton* cancelButton() const { return cancel_; }
    QDoubleSpinBox* alphaBox() const { return alpha_; }
    QComboBox* presetBox() const { return preset_; }
    QSpinBox* budgetBox() const { return budget_; }
    QComboBox* objectiveBox() const { return objective_; }
    QComboBox* thenBox() const { return then_; }
    const std::vector<QCheckBox*>& ruleBoxes() const { return rules_; }

Q_SIGNALS:
    void runRequested(); // Run pressed: the main window answers with run(its settings)
    void resultShown();
    void cancelled();
    void failed(const QString& message);

private:
    QWidget* createControls();
    QWidget* createResults();
    void load();
    void save() const;
    void edited(); // a control changed: persist, and say whether the result is still current
    void applyPreset(const QString& name);
    void showProgress(double fraction, double elapsed);
    void showResult(const std::shared_ptr<const MetaflowJobResult>& result);
    void showStep(int row);
    void setRunning(bool running);

    JobController* jobs_;
    std::shared_ptr<const MetaflowJobResult> result_;
    QComboBox* preset_;
    QDoubleSpinBox* alpha_;
    QSpinBox* budget_;
    QSpinBox* split_;
    std::vector<QCheckBox*> rules_; // in rewrite::kAllRules order
    QComboBox* objective_;
    QComboBox* then_;
    QPushButton* run_;
    QPushButton* cancel_;
    QProgressBar* progress_;
    QLabel* status_;
    QLabel* summary_;
    views::MetaflowSearchChart* searchChart_;
    views::ComparisonChart* comparison_;
    QTableWidget* metrics_;
    QTabWidget* side_; // metrics | live search chart
    QTableWidget* substitutions_;
    views::GraphDiffView* diff_;
    StaleOverlay* numbersOverlay_;
    StaleOverlay* graphsOverlay_;
    std::optional<JobSettings> main_; // the main settings last seen, with the open model
    bool loading_ = false;            // setSettings from load(): no save, no preset reset
};

} // namespace ios::gui
