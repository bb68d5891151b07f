// SPDX-License-Identifier: Apache-2.0
// The DP's explored state space for one part (IOS paper §4, docs/algorithms.md §2): states (the
// down-sets of operators not yet scheduled) in layers by how many operators are scheduled,
// transitions as edges — drawn one by one when few, aggregated between layers when many (their
// counts on hover, never over the dots; coinciding dots drawn once) — the optimal path
// highlighted, cost on hover, ending choices on click with the chosen one marked.
//
// Linking with the other views (issue 17 item 3), by flat operator index (LoadedModel):
//  - a state S *contains* operator o when o ∈ S, i.e. o is still to be scheduled in S;
//  - selectOperators(ops) marks the states of the shown part that contain any of `ops`,
//    first switching to the first recorded part that holds one of them when the shown part
//    holds none;
//  - clicking a state emits operatorsSelected(the operators it contains); clicking an ending
//    (a transition) in the endings list emits operatorsSelected(the operators of that stage).
#pragma once

#include "loaded_model.h"
#include "result_view.h"
#include "schedulers/state_space_index.h"

#include <QString>
#include <QWidget>
#include <array>
#include <memory>
#include <utility>
#include <vector>

class QComboBox;
class QLabel;

namespace ios::views {

class StateSpaceCanvas;

class StateSpaceView : public QWidget, public ResultView {
    Q_OBJECT
public:
    // views::ResultView
    QWidget* widget() override { return this; }
    void renderPicture(QPainter& painter, const QRect& area) override { render(painter, area); }
    ShortcutTable shortcuts() const override { return shortcutHelp(); }
    QWidget* keyTarget() override { return this; }

    explicit StateSpaceView(QWidget* parent = nullptr);

    // Takes an index built off the UI thread (schedulers::indexStateSpace): a pointer swap.
    void setStateSpace(LoadedModelPtr model,
                       std::shared_ptr<const schedulers::StateSpaceIndex> index);
    // Indexes `space` here, on the calling thread (small spaces, tests).
    void setStateSpace(LoadedModelPtr model, std::shared_ptr<const schedulers::StateSpace> space);
    // Shows part (block, part); returns false when it was not recorded.
    bool showPart(int block, int part);
    void render(QPainter& painter, const QRect& area) const;

    // Marks the states containing any of `flatIndices` (see the header comment); an empty list,
    // or operators of no recorded part, clears the marks. Emits nothing.
    void selectOperators(const std::vector<int>& flatIndices);
    // Selects state `entry` of the shown part (as a click does: lists its endings and emits
    // operatorsSelected); -1 clears.
    void selectState(int entry);

    // The shown part (block, part), or (-1, -1).
    std::pair<int, int> shownPart() const;
    int selectedState() const;             // entry of the shown part's states, or -1
    std::vector<int> markedStates() const; // entries of the shown part's states, ascending
    // The operators (flat indices) state `entry` of the shown part contains.
    std::vector<int> stateOperators(int entry) const;
    // The operators (flat indices) of the stage of transition `t` (an entry of the shown
    // part's transitions).
    std::vector<int> stageOperators(int t) const;
    // The endings list as shown (rich text), and the canvas (tests click on it).
    QString endingsText() const;
    QWidget* canvas() const;
    // Where state `entry` of the shown part is drawn, in canvas coordinates.
    QPointF statePosition(int entry) const;

    // The view's keys, for the Help dialog: (keys, what they do).
    static std::vector<std::pair<QString, QString>> shortcutHelp();

    static constexpr int kMaxDrawnEdges = 8000;

Q_SIGNALS:
    void operatorsSelected(std::vector<int> flatIndices);

protected:
    void keyPressEvent(QKeyEvent* event) override;

private:
    void fillPartBox();
    void showEndings(int entry); // entry of the shown part's states
    void activateEnding(const QString& link);
    std::vector<int> flatOperators(int block, int part, const std::array<uint64_t, 2>& bits) const;
    // The bits of the selected operators in `part`, and the shown part's states marked by them.
    std::array<uint64_t, 2> selectedBits(const schedulers::PartStateSpace& part) const;
    void markSelected();

    LoadedModelPtr model_;
    std::shared_ptr<const schedulers::StateSpaceIndex> index_;
    std::vector<int> selectedOps_; // the last selectOperators() list, kept across parts
    QComboBox* partBox_;
    QLabel* details_;
    StateSpaceCanvas* canvas_;
};

} // namespace ios::views
