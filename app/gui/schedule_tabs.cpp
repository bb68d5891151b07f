// SPDX-License-Identifier: Apache-2.0
// The Streams and State space tabs (the shown schedule as a stream program, the IOS DP's
// recorded state space) and the MetaFlow tab, each wired to the window's Session.
#include "main_window.h"
#include "metaflow_panel.h"
#include "session.h"
#include "settings_panel.h"
#include "state_space_view.h"
#include "streams_view.h"
#include "view_registry.h"

namespace ios::gui {

static views::ResultView* makeStreamsTab(MainWindow& window, QWidget* parent) {
    auto* streams = new views::StreamsView(parent);
    Session* session = window.session();
    QObject::connect(session, &Session::resultChanged, streams, [streams, session] {
        const RunResult* run = session->shownRun();
        if (run == nullptr) {
            streams->clear();
            return;
        }
        const views::LoadedModelPtr& model = session->model();
        streams->setProgram(
            model, run->program, run->programRuns,
            QObject::tr("%1 · %2 — %3")
                    .arg(QString::fromStdString(model->graph().name), strategyLabel(run->strategy),
                         run->ownProgram
                             ? QObject::tr("its own stream program")
                             : QObject::tr("its stage schedule lowered to a stream program")) +
                (run->programRuns.empty()
                     ? QString()
                     : QObject::tr(" · %1").arg(session->lastResult()->costModel)),
            run->programNote);
    });
    QObject::connect(streams, &views::StreamsView::operatorSelected, session, [session](int flat) {
        if (session->lastResult() && session->lastResult()->settings.model == session->model())
            session->selectOperator(flat, Selection::Source::Streams);
    });
    QObject::connect(session->selection(), &Selection::changed, streams, [streams, session] {
        if (!(session->selection()->source() == Selection::Source::Streams))
            streams->selectOperators(session->selection()->operators());
    });
    return streams;
}

static views::ResultView* makeStateSpaceTab(MainWindow& window, QWidget* parent) {
    auto* space = new views::StateSpaceView(parent);
    Session* session = window.session();
    QObject::connect(session, &Session::resultChanged, space, [space, session] {
        const RunResult* run = session->shownRun();
        space->setStateSpace(session->model(),
                             run ? run->stateSpace
                                 : std::shared_ptr<const schedulers::StateSpaceIndex>());
    });
    // A state or an ending clicked: its operators (the overlay swallows clicks while the state
    // space is out of date).
    QObject::connect(
        space, &views::StateSpaceView::operatorsSelected, session, [session](std::vector<int> ops) {
            if (session->model())
                session->selection()->select(std::move(ops), {}, Selection::Source::StateSpace);
        });
    QObject::connect(session->selection(), &Selection::changed, space, [space, session] {
        if (!(session->selection()->source() == Selection::Source::StateSpace))
            space->selectOperators(session->selection()->operators());
    });
    return space;
}

static views::ResultView* makeMetaflowTab(MainWindow& window, QWidget* parent) {
    auto* panel = new MetaflowPanel(parent);
    Session* session = window.session();
    SettingsPanel* settings = session->settingsPanel();
    QObject::connect(panel, &MetaflowPanel::runRequested, session,
                     [panel, session] { panel->run(session->currentSettings()); });
    QObject::connect(settings, &SettingsPanel::settingsChanged, panel, [panel, session, settings] {
        panel->updateStaleness(session->model(), settings->settings());
    });
    QObject::connect(session, &Session::modelChanged, panel, [panel, session, settings] {
        panel->clear(); // its graphs and rows are the old model's
        panel->updateStaleness(session->model(), settings->settings());
    });
    return panel;
}

IOS_REGISTER_VIEW(streams, ViewRegistration{"streamsView", IOS_TAB_TITLE("Streams"),
                                            ViewRegistration::Overlay::Cover, 30, &makeStreamsTab});
IOS_REGISTER_VIEW(stateSpace,
                  ViewRegistration{"stateSpaceView", IOS_TAB_TITLE("State space"),
                                   ViewRegistration::Overlay::Cover, 40, &makeStateSpaceTab});
IOS_REGISTER_VIEW(metaflow,
                  ViewRegistration{"metaflowTab", IOS_TAB_TITLE("MetaFlow"),
                                   ViewRegistration::Overlay::None, 100, &makeMetaflowTab});

} // namespace ios::gui
