// SPDX-License-Identifier: Apache-2.0
#include "exports.h"

#include "eval/timeline_curves.h"
#include "io/model_file.h"
#include "io/schedule_document.h"
#include "io/trace_export.h"
#include "result_view.h"
#include "schedule/ios_stages.h"
#include "util/error.h"
#include "util/output_file.h"
#include "util/version.h"

#include <QBuffer>
#include <QImage>
#include <QPainter>
#include <QSvgGenerator>
#include <QWidget>

namespace ios::gui {

QString modelFileFilter() {
    // Every readable format of the registry (io/model_format.h), each also on its own.
    QStringList all;
    QStringList each;
    for (const io::ModelFormatEntry& f : io::modelFormats()) {
        if (!f.read)
            continue;
        const QString pattern = QStringLiteral("*") + QString::fromStdString(f.suffix);
        all << pattern;
        each << QStringLiteral("%1 (%2)").arg(QString::fromStdString(f.label), pattern);
    }
    return QObject::tr("Models (%1);;%2;;All files (*)")
        .arg(all.join(QLatin1Char(' ')), each.join(QStringLiteral(";;")));
}

QStringList filterSuffixes(const QString& filter) {
    QStringList out;
    const qsizetype open = filter.indexOf(QLatin1Char('('));
    const qsizetype close = filter.lastIndexOf(QLatin1Char(')'));
    if (open < 0 || close <= open)
        return out;
    for (const QString& pattern :
         filter.mid(open + 1, close - open - 1).split(QLatin1Char(' '), Qt::SkipEmptyParts))
        if (pattern.startsWith(QLatin1String("*.")))
            out << pattern.mid(1);
    return out;
}

QString withFilterSuffix(const QString& path, const QString& selectedFilter,
                         const QString& allFilters) {
    const QStringList suffixes = filterSuffixes(selectedFilter);
    if (path.isEmpty() || suffixes.isEmpty())
        return path;
    QStringList kept = suffixes; // the typed suffix of any offered format wins
    for (const QString& filter : allFilters.split(QStringLiteral(";;"), Qt::SkipEmptyParts))
        kept << filterSuffixes(filter);
    for (const QString& suffix : kept)
        if (path.endsWith(suffix, Qt::CaseInsensitive))
            return path;
    return path + suffixes.front();
}

namespace {

const RunResult& firstRun(const SearchResult& result) {
    if (result.runs.empty() || !result.settings.model)
        throw UserError("no schedule to export: run a search first");
    return result.runs.front();
}

// Renders `view` through its views::ResultView (every tab is one), else as on screen.
void paintView(QWidget* view, QPainter& painter, const QRect& area) {
    if (views::ResultView* result = views::asResultView(view))
        result->renderPicture(painter, area);
    else
        view->render(&painter);
}

QSize exportSize(QWidget* view) {
    if (views::ResultView* result = views::asResultView(view))
        return result->pictureSize();
    return view->size().expandedTo(QSize(800, 500));
}

} // namespace

io::Provenance exportProvenance(const JobSettings& settings, const QString& action,
                                const ir::Graph& graph) {
    const cost::DeviceProfile device = cost::loadDevice(settings.device.toStdString());
    QString costModel = settings.costModel;
    if (!settings.cacheFile.isEmpty())
        costModel += QLatin1Char(':') + settings.cacheFile;
    io::Provenance p = io::provenanceFor("ios-explorer: " + action.toStdString(), &graph, &device,
                                         settings.batch, costModel.toStdString());
    p.settings = {{"strategy", settings.strategy.toStdString()},
                  {"max-group-size", settings.r},
                  {"max-num-groups", settings.s},
                  {"max-part-size", settings.maxPartSize},
                  {"endings", std::string(schedulers::toString(settings.endings))},
                  {"memory-budget", settings.memoryBudget}};
    return p;
}

void exportSchedule(const SearchResult& result, const QString& path, QStringList* warnings) {
    const RunResult& run = firstRun(result);
    if (run.rewritten)
        throw UserError("this result schedules a rewritten graph (MetaFlow), not the open model: "
                        "write it with `ios-sched optimize MODEL --strategy metaflow -o FILE`");
    const views::LoadedModel& model = *result.settings.model;
    if (run.ownProgram && warnings) // RAF's policies: the file holds stages, not the program
        warnings->append(
            QObject::tr(
                "%1's result is a stream program: the file holds its stages (its launches in issue "
                "order where it has no stage form), which reopen at their own latency; `ios-sched "
                "streams MODEL --policy %2 -o FILE` writes the program itself")
                .arg(strategyLabel(run.strategy), run.strategy));
    const std::filesystem::path target = path.toStdString();
    const bool ios = path.endsWith(QLatin1String(".ios.json"), Qt::CaseInsensitive);
    if (!ios) { // native JSON with merge_stages: File ▸ Open Schedule gives exactly it back
        const io::Provenance provenance =
            exportProvenance(result.settings, QStringLiteral("export schedule"), model.graph());
        util::checkOutputPath(target);
        util::writeFileAtomically(target, io::writeNativeSchedule(model.graph(), model.dags(),
                                                                  run.schedule, &provenance));
        return;
    }
    const ir::Graph graph = schedule::optimizedGraph(model.graph(), model.dags(), run.schedule);
    std::vector<std::string> dropped;
    const io::Provenance provenance =
        exportProvenance(result.settings, QStringLiteral("export schedule"), graph);
    io::saveModelFile(graph, target, &dropped, &provenance);
    if (warnings)
        for (const std::string& w : dropped)
            warnings->append(QString::fromStdString(w));
}

void exportTrace(const SearchResult& result, const QString& path) {
    const RunResult& run = firstRun(result);
    if (!run.timeline)
        throw UserError(run.rewritten ? "this result schedules a rewritten graph (MetaFlow): "
                                        "write its trace with `ios-sched trace MODEL --strategy "
                                        "metaflow -o FILE`"
                                      : "this result has no timeline");
    // With the dependency arrows the timeline view draws (as `ios-sched trace` writes them).
    const std::vector<io::TraceFlow> flows =
        io::traceFlows(eval::kernelFlows(*run.timeline, result.settings.model->dags()));
    const io::Provenance provenance = exportProvenance(
        result.settings, QStringLiteral("export trace"), result.settings.model->graph());
    io::TraceInfo info{result.settings.model->graph().name, run.strategy.toStdString()};
    info.provenance = &provenance;
    io::writeTimeline(path.toStdString(), *run.timeline, info, flows);
}

void exportPicture(QWidget* view, const QString& path) {
    if (!view)
        throw UserError("no view to export");
    // Checked before drawing; written like every other output (util/output_file.h: staged
    // beside the target, mode kept, FIFOs, directories and read-only files refused).
    const std::filesystem::path target = path.toStdString();
    util::checkOutputPath(target);
    const QSize size = exportSize(view);
    QByteArray bytes;
    QBuffer buffer(&bytes);
    buffer.open(QIODevice::WriteOnly);
    bool ok = true;
    if (path.endsWith(QLatin1String(".svg"), Qt::CaseInsensitive)) {
        QSvgGenerator svg;
        svg.setOutputDevice(&buffer);
        svg.setSize(size);
        svg.setViewBox(QRect(QPoint(0, 0), size));
        svg.setTitle(QStringLiteral("IOS Explorer"));
        svg.setDescription(
            QStringLiteral("Made by %1").arg(QString::fromStdString(util::toolNameAndVersion())));
        QPainter painter(&svg);
        paintView(view, painter, QRect(QPoint(0, 0), size));
        ok = painter.end();
    } else {
        QImage image(size, QImage::Format_ARGB32_Premultiplied);
        image.fill(Qt::white);
        QPainter painter(&image);
        painter.setRenderHint(QPainter::Antialiasing);
        paintView(view, painter, image.rect());
        painter.end();
        image.setText(QStringLiteral("Software"),
                      QString::fromStdString(util::toolNameAndVersion()));
        ok = image.save(&buffer, "PNG");
    }
    if (!ok)
        throw UserError("could not draw the picture", path.toStdString());
    util::writeFileAtomically(target, std::string_view(bytes.constData(), bytes.size()));
}

} // namespace ios::gui
