// The DP's explored state space for one part (IOS paper §4, docs/algorithms.md §2): states (the
// down-sets of operators not yet scheduled) in layers by how many operators are scheduled,
// transitions as edges — drawn one by one when few, aggregated between layers with their
// count when many — the optimal path highlighted, cost on hover, ending choices on click.
#pragma once

#include "loaded_model.h"
#include "schedulers/state_space_index.h"

#include <QWidget>
#include <memory>

class QComboBox;
class QLabel;

namespace ios::views {

class StateSpaceCanvas;

class StateSpaceView : public QWidget {
    Q_OBJECT
public:
    explicit StateSpaceView(QWidget* parent = nullptr);

    // Takes an index built off the UI thread (schedulers::indexStateSpace): a pointer swap.
    void setStateSpace(LoadedModelPtr model,
                       std::shared_ptr<const schedulers::StateSpaceIndex> index);
    // Indexes `space` here, on the calling thread (small spaces, tests).
    void setStateSpace(LoadedModelPtr model, std::shared_ptr<const schedulers::StateSpace> space);
    // Shows part (block, part); returns false when it was not recorded.
    bool showPart(int block, int part);
    void render(QPainter& painter, const QRect& area) const;

    static constexpr int kMaxDrawnEdges = 8000;

private:
    void fillPartBox();
    void showEndings(int entry); // entry of the shown part's states

    LoadedModelPtr model_;
    std::shared_ptr<const schedulers::StateSpaceIndex> index_;
    QComboBox* partBox_;
    QLabel* details_;
    StateSpaceCanvas* canvas_;
};

} // namespace ios::views
