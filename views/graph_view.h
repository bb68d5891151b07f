// SPDX-License-Identifier: Apache-2.0
// The computation graph: Graphviz positions (computed off the UI thread, cached per model),
// QGraphicsScene items labelled as Netron does and coloured by operator kind or by schedule
// stage, block and part outlines, a legend beside the graph, zoom / pan / fit, search by
// name, and linked selection with distinct "selected" and "in highlighted stage" styles.
#pragma once

#include "graph_layout.h"
#include "loaded_model.h"
#include "model_graph.h"
#include "result_view.h"
#include "schedule_index.h"

#include <QFutureWatcher>
#include <QGraphicsView>
#include <QWidget>
#include <functional>
#include <memory>
#include <utility>
#include <vector>

class QComboBox;
class QToolButton;
class QGraphicsScene;
class QLabel;
class QLineEdit;

namespace ios::views {

class GraphLegend;
class OperatorItem;

// Wheel zooms around the cursor, drag pans.
class ZoomableGraphicsView : public QGraphicsView {
    Q_OBJECT
public:
    explicit ZoomableGraphicsView(QWidget* parent = nullptr);
    void fit();
    void fitWidth();
    void zoomBy(double factor);

Q_SIGNALS:
    void zoomChanged(double scale);

protected:
    void wheelEvent(QWheelEvent* event) override;
    void keyPressEvent(QKeyEvent* event) override;
};

class GraphView : public QWidget, public ResultView {
    Q_OBJECT
public:
    // views::ResultView: the whole graph (its scene), not only what is on screen.
    QWidget* widget() override { return this; }
    void renderPicture(QPainter& painter, const QRect& area) override;
    QSize pictureSize() override;
    ShortcutTable shortcuts() const override { return shortcutHelp(); }
    QWidget* keyTarget() override;

    enum class ColorMode { Kind, Stage };

    explicit GraphView(QWidget* parent = nullptr);
    ~GraphView() override;

    void setModel(LoadedModelPtr model);
    void setSchedule(const ScheduleIndex& index); // empty = no schedule
    void setColorMode(ColorMode mode);
    // Fills that take the place of the kind/stage colours, one per flat index (an invalid
    // colour keeps the mode's), and legend lines shown above the kind legend: for views that
    // colour by another relation (the MetaFlow diff: removed, new, rewired). Empty restores.
    void setCustomColors(std::vector<QColor> fills, std::vector<std::pair<QColor, QString>> legend);
    // Draws `selected` operators (flat indices) in the "selected" style and `stageContext`
    // (e.g. the rest of the selected stage) in the "in highlighted stage" style, and scrolls
    // to them when `center`; both empty clears.
    void setSelection(const std::vector<int>& selected, const std::vector<int>& stageContext,
                      bool center = true);
    // setSelection(flatIndices, {}, center), for callers that link a plain selection.
    void highlightOperators(const std::vector<int>& flatIndices, bool center = true);
    // Selects and centres the first operator the find query `text` matches (operator_query.h:
    // name, type, kernel…); the same text again selects the next match. False if none.
    bool findOperator(const QString& text);
    // The toolbar's note: the counts, a find's "Match 2 of 7" or "No operator matches …".
    QString infoText() const;
    QLineEdit* findBox() const { return search_; }

    // The operator's rich-text tooltip (built on demand: hundreds of them are never shown).
    QString operatorToolTip(int flatIndex) const;
    // The keys this view answers, (key, action), for the Help dialog.
    static std::vector<std::pair<QString, QString>> shortcutHelp();

    bool isLayoutReady() const { return layoutReady_; }
    const std::vector<OperatorItem*>& operatorItems() const { return items_; }
    GraphLegend* legend() const { return legend_; }
    void setLegendVisible(bool visible);
    // For two graphs side by side (the MetaFlow diff): no colour-mode box or operator count in
    // the toolbar, a search box that may shrink, the legend hidden until toggled (L).
    void setCompact(bool compact);
    QGraphicsScene* scene() const { return scene_; }
    ZoomableGraphicsView* view() const { return view_; }

Q_SIGNALS:
    void layoutReady();
    void operatorSelected(int flatIndex);

protected:
    void resizeEvent(QResizeEvent* event) override;
    void showEvent(QShowEvent* event) override;
    bool eventFilter(QObject* watched, QEvent* event) override;

private:
    void startLayout();
    void fitIfPending();
    void updateLegend();
    void buildScene(const std::shared_ptr<const GraphLayout>& layout);
    void applyColors();

    LoadedModelPtr model_;
    ModelGraph graph_;                           // structure of model_, built once per model
    std::shared_ptr<const ir::NodeIndex> names_; // producers' shapes, for tooltips
    ScheduleIndex schedule_;
    ColorMode mode_ = ColorMode::Stage;
    std::vector<QColor> customFills_;
    std::vector<std::pair<QColor, QString>> customLegend_;
    QGraphicsScene* scene_;
    ZoomableGraphicsView* view_;
    QLineEdit* search_;
    QComboBox* colorBox_;
    QLabel* info_;
    GraphLegend* legend_;
    QToolButton* legendButton_;
    std::vector<OperatorItem*> items_;
    QString countsText_;        // what info_ says when no find message is due
    QString findQuery_;         // the query findHits_ are of (empty: none yet)
    std::vector<int> findHits_; // flat indices
    size_t findNext_ = 0;
    QFutureWatcher<std::shared_ptr<const GraphLayout>> watcher_;
    quint64 layoutJob_ = 0; // latest layout request; older results are dropped
    bool layoutReady_ = false;
    // Fit once the view has its real size: a layout finishing while the tab is hidden would
    // otherwise be fitted to a stale viewport and open off-centre.
    bool pendingFit_ = false;
};

} // namespace ios::views
