// The one selection of the main window (issue 17 item 3): the selected operators (flat
// indices), the operators of the stage they are seen in, and which view set them. Every view
// shows it and sets it through the main window; none talks to another directly.
#pragma once

#include <QObject>
#include <vector>

namespace ios::gui {

class Selection : public QObject {
    Q_OBJECT
public:
    // Who set the selection: that view already shows it and is not updated again.
    enum class Source {
        None,
        Graph,
        StageTree,
        OperatorTable,
        Timeline,
        Streams,
        Memory,
        StateSpace
    };

    explicit Selection(QObject* parent = nullptr) : QObject(parent) {}

    // Sets the selection and emits `changed` when anything differs.
    void select(std::vector<int> operators, std::vector<int> stageContext, Source source);
    void clear(); // source None; emits `changed` when something was selected

    const std::vector<int>& operators() const { return operators_; }
    // The operators of the stage the selection is seen in ("in highlighted stage"); may be
    // empty, and includes the selected operators when not.
    const std::vector<int>& stageContext() const { return stageContext_; }
    Source source() const { return source_; }
    bool isEmpty() const { return operators_.empty(); }

Q_SIGNALS:
    void changed();

private:
    std::vector<int> operators_;
    std::vector<int> stageContext_;
    Source source_ = Source::None;
};

} // namespace ios::gui
