// SPDX-License-Identifier: Apache-2.0
// The Graph tab: the open model's operators, coloured by the shown schedule's stages; a click
// selects an operator, the selection is highlighted with the rest of its stage.
#include "graph_view.h"
#include "main_window.h"
#include "schedule_index.h"
#include "session.h"
#include "view_registry.h"

namespace ios::gui {

static views::ResultView* makeGraphTab(MainWindow& window, QWidget* parent) {
    auto* graph = new views::GraphView(parent);
    Session* session = window.session();
    auto setModel = [graph, session] { graph->setModel(session->model()); };
    QObject::connect(session, &Session::modelChanged, graph, setModel);
    QObject::connect(session, &Session::modelRebuilt, graph, setModel);
    QObject::connect(session, &Session::resultChanged, graph, [graph, session] {
        const RunResult* run = session->shownRun();
        graph->setSchedule(run ? views::ScheduleIndex(*session->model(), run->shownStages())
                               : views::ScheduleIndex());
    });
    QObject::connect(graph, &views::GraphView::operatorSelected, session, [session](int flat) {
        session->selectOperator(flat, Selection::Source::Graph);
    });
    // Selected operators in one style, the rest of their stage in another; the graph's own
    // click is not scrolled to (it is under the pointer).
    QObject::connect(session->selection(), &Selection::changed, graph, [&window, session] {
        const Selection& s = *session->selection();
        window.highlightInGraph(s.operators(), s.stageContext(),
                                !(s.source() == Selection::Source::Graph));
    });
    return graph;
}

IOS_REGISTER_VIEW(graph, ViewRegistration{"graphView", IOS_TAB_TITLE("Graph"),
                                          ViewRegistration::Overlay::Banner, 10, &makeGraphTab});

} // namespace ios::gui
