// SPDX-License-Identifier: Apache-2.0
#include "schedule_document.h"

#include "main_window.h"
#include "session.h"
#include "units.h"
#include "util/error.h"
#include "util/input_file.h"
#include "util/json_text.h"
#include "window_menus.h"

#include <QFileInfo>
#include <QLabel>
#include <QPushButton>
#include <QToolBar>

namespace ios::gui {

ScheduleDocumentUi::ScheduleDocumentUi(MainWindow* window)
    : QObject(window), window_(window), banner_(new QToolBar(tr("Saved schedule"), window)),
      label_(new QLabel(banner_)) {
    banner_->setObjectName(QStringLiteral("savedScheduleBanner"));
    banner_->setMovable(false);
    banner_->setFloatable(false);
    label_->setObjectName(QStringLiteral("savedScheduleLabel"));
    label_->setTextFormat(Qt::PlainText);
    label_->setMinimumWidth(200); // elided by the window's width, never hidden
    label_->setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Preferred);
    banner_->addWidget(label_);
    auto* again = new QPushButton(tr("Search again"), banner_);
    again->setObjectName(QStringLiteral("searchAgain"));
    again->setToolTip(tr("Close the saved schedule and search with the panel's settings"));
    banner_->addWidget(again);
    window->addToolBar(Qt::TopToolBarArea, banner_);
    banner_->hide();
    Session* session = window->session();
    connect(again, &QPushButton::clicked, session, [session] { session->setSavedSchedule({}); });
    connect(session, &Session::savedScheduleChanged, this, &ScheduleDocumentUi::update);
    connect(session, &Session::resultShown, this, &ScheduleDocumentUi::update);
    connect(session, &Session::stalenessChanged, this, &ScheduleDocumentUi::update);
}

bool ScheduleDocumentUi::open(const QString& path) {
    const views::LoadedModelPtr& model = window_->model();
    if (!model) {
        window_->showError(tr("Cannot open the schedule"),
                           tr("Open the schedule's model first: a schedule is read against it."));
        return false;
    }
    try {
        auto document = std::make_shared<const io::ScheduleDocument>(
            io::readScheduleDocument(path.toStdString(), model->prepared()));
        window_->session()->setSavedSchedule(std::move(document));
    } catch (const UserError& e) {
        window_->showError(tr("Cannot open the schedule"), QString::fromStdString(e.what()));
        return false;
    }
    return true;
}

void ScheduleDocumentUi::chooseAndOpen() {
    const QString path = chooseFile(window_, tr("Open Schedule"), "lastScheduleDir",
                                    tr("Schedules (*.json);;All files (*)"));
    if (!path.isEmpty())
        open(path);
}

bool ScheduleDocumentUi::isScheduleForOpenModel(const QString& path) const {
    const views::LoadedModelPtr& model = window_->model();
    if (!model || !path.endsWith(QLatin1String(".json"), Qt::CaseInsensitive))
        return false;
    try {
        const util::JsonDocument parsed = util::parseJsonDocument(
            util::readInputFile(path.toStdString(), util::InputKind::Schedule), "drop");
        const util::Json& doc = parsed.root();
        if (!doc.is_object())
            return false;
        const auto format = doc.find("format");
        if ((format != doc.end() && *format == util::Json("ios-explorer-schedule")) ||
            doc.contains("policy"))
            return true;
        // A model file: a schedule when it names the open model (else it is another model).
        const util::Json* m =
            doc.contains("model") && doc["model"].is_object() ? &doc["model"] : &doc;
        return m->contains("name") && (*m)["name"] == util::Json(model->graph().name);
    } catch (const UserError&) {
        return false; // not JSON we can read: the model loader says why
    }
}

QString ScheduleDocumentUi::bannerText() const {
    return banner_->isHidden() ? QString() : label_->text();
}

void ScheduleDocumentUi::update() {
    const auto& saved = window_->session()->savedSchedule();
    banner_->setVisible(saved != nullptr);
    if (!saved)
        return;
    QString text =
        tr("Saved schedule %1 (%2%3), shown exactly as saved — nothing is searched")
            .arg(QFileInfo(QString::fromStdString(saved->source)).fileName(),
                 QString::fromUtf8(io::toString(saved->kind).data(),
                                   static_cast<qsizetype>(io::toString(saved->kind).size())),
                 saved->origin.empty() || saved->origin.size() > 40
                     ? QString()
                     : QStringLiteral(" · ") + QString::fromStdString(saved->origin));
    const SearchResultPtr& result = window_->lastResult();
    if (result && result->scheduleFile == QString::fromStdString(saved->source) &&
        !result->runs.empty()) {
        const RunResult& run = result->runs.front();
        size_t stages = 0;
        for (const schedule::BlockSchedule& b : run.schedule.blocks)
            stages += b.stages.size();
        text += tr(": %1, %2 stages, priced on %3 · batch %4 (device and batch re-price it)")
                    .arg(views::formatMs(run.latencyMs))
                    .arg(stages)
                    .arg(result->settings.device)
                    .arg(result->settings.batch);
    }
    label_->setText(text);
    label_->setToolTip(QString::fromStdString(saved->source));
}

} // namespace ios::gui
