// The computation graph: Graphviz positions (computed off the UI thread, cached per model),
// QGraphicsScene items coloured by operator kind or by schedule stage, block and part
// outlines, zoom / pan / fit, search by name, and linked selection.
#pragma once

#include "graph_layout.h"
#include "loaded_model.h"
#include "schedule_index.h"

#include <QFutureWatcher>
#include <QGraphicsView>
#include <QWidget>
#include <memory>

class QComboBox;
class QGraphicsScene;
class QLabel;
class QLineEdit;

namespace ios::views {

class OperatorItem;

// Wheel zooms around the cursor, drag pans; the legend is painted over the viewport.
class ZoomableGraphicsView : public QGraphicsView {
    Q_OBJECT
public:
    explicit ZoomableGraphicsView(QWidget* parent = nullptr);
    void fit();
    void fitWidth();
    void zoomBy(double factor);
    std::function<void(QPainter*, const QRect&)> overlay; // viewport coordinates

Q_SIGNALS:
    void zoomChanged(double scale);

protected:
    void wheelEvent(QWheelEvent* event) override;
    void keyPressEvent(QKeyEvent* event) override;
    void drawForeground(QPainter* painter, const QRectF& rect) override;
};

class GraphView : public QWidget {
    Q_OBJECT
public:
    enum class ColorMode { Kind, Stage };

    explicit GraphView(QWidget* parent = nullptr);
    ~GraphView() override;

    void setModel(LoadedModelPtr model);
    void setSchedule(const ScheduleIndex& index); // empty = no schedule
    void setColorMode(ColorMode mode);
    // Highlights (and scrolls to) these operators (flat indices); empty clears.
    void highlightOperators(const std::vector<int>& flatIndices, bool center = true);
    // Selects and centres the first operator whose name contains `text`; false if none.
    bool findOperator(const QString& text);

    bool isLayoutReady() const { return layoutReady_; }
    QGraphicsScene* scene() const { return scene_; }
    ZoomableGraphicsView* view() const { return view_; }

Q_SIGNALS:
    void layoutReady();
    void operatorSelected(int flatIndex);

private:
    void startLayout();
    void buildScene(const std::shared_ptr<const GraphLayout>& layout);
    void applyColors();
    void paintLegend(QPainter* painter, const QRect& viewport) const;

    LoadedModelPtr model_;
    ScheduleIndex schedule_;
    ColorMode mode_ = ColorMode::Stage;
    QGraphicsScene* scene_;
    ZoomableGraphicsView* view_;
    QLineEdit* search_;
    QComboBox* colorBox_;
    QLabel* info_;
    std::vector<OperatorItem*> items_;
    QFutureWatcher<std::shared_ptr<const GraphLayout>> watcher_;
    quint64 layoutJob_ = 0; // latest layout request; older results are dropped
    bool layoutReady_ = false;
};

} // namespace ios::views
