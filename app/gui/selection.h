// SPDX-License-Identifier: Apache-2.0
// The one selection of the main window (issue 17 item 3): the selected operators (flat
// indices), the operators of the stage they are seen in, and which view set them. Every view
// shows it and sets it through the main window; none talks to another directly.
#pragma once

#include <QObject>
#include <string_view>
#include <vector>

namespace ios::gui {

class Selection : public QObject {
    Q_OBJECT
public:
    // Who set the selection: that view already shows it and is not updated again. A view's
    // key (its tab's object name, or its dock's); a new view names its own, Selection is not
    // edited for it.
    class Source {
    public:
        constexpr Source() = default;
        constexpr explicit Source(const char* key) : key_(key) {}
        constexpr const char* key() const { return key_; }
        friend bool operator==(Source a, Source b) { return std::string_view(a.key_) == b.key_; }

        // The built-in views'.
        static const Source None, Graph, StageTree, OperatorTable, Timeline, Streams, Memory,
            StateSpace;

    private:
        const char* key_ = "";
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

inline constexpr Selection::Source Selection::Source::None{""};
inline constexpr Selection::Source Selection::Source::Graph{"graph"};
inline constexpr Selection::Source Selection::Source::StageTree{"stageTree"};
inline constexpr Selection::Source Selection::Source::OperatorTable{"operatorTable"};
inline constexpr Selection::Source Selection::Source::Timeline{"timelineView"};
inline constexpr Selection::Source Selection::Source::Streams{"streamsView"};
inline constexpr Selection::Source Selection::Source::Memory{"memoryView"};
inline constexpr Selection::Source Selection::Source::StateSpace{"stateSpaceView"};

} // namespace ios::gui
