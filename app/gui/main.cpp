// SPDX-License-Identifier: Apache-2.0
// ios-explorer: the Qt Widgets front end over the engine (docs/architecture.md).
#include "gpu_runs.h"
#include "main_window.h"
#include "remembered_state.h"
#include "screenshot_mode.h"
#include "util/version.h"

#include <QApplication>
#include <QCommandLineParser>
#include <QElapsedTimer>
#include <QSettings>
#include <QTemporaryDir>
#include <QTimer>
#include <cstdio>
#include <cstring>

namespace {

// --help, --help-all and --version only print: they must answer without a display too.
bool onlyPrints(int argc, char** argv) {
    for (int i = 1; i < argc; ++i)
        for (const char* flag : {"-h", "--help", "--help-all", "-v", "--version", "-?"})
            if (std::strcmp(argv[i], flag) == 0)
                return true;
    return false;
}

} // namespace

int main(int argc, char** argv) {
    if (onlyPrints(argc, argv) && qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM"))
        qputenv("QT_QPA_PLATFORM", "offscreen");
    QApplication app(argc, argv);
    ios::profiling::installMeasuredCostModel(); // offered in the settings when a GPU is present
    QApplication::setOrganizationName(QStringLiteral("ios-explorer"));
    QApplication::setApplicationName(QStringLiteral("ios-explorer"));
    QApplication::setApplicationVersion(QString::fromStdString(ios::util::toolVersion()));

    QCommandLineParser parser;
    parser.setApplicationDescription(
        QStringLiteral("See, compare and explain inter-operator schedules of neural networks "
                       "(IOS, MLSys 2021): open a bundled model, an IOS JSON or native JSON "
                       "file or an ONNX model, search schedules, compare schedulers and export "
                       "traces. The command-line twin is ios-sched(1)."));
    parser.addHelpOption();
    parser.addVersionOption();
    parser.addPositionalArgument(
        QStringLiteral("MODEL"),
        QStringLiteral("Model file or bundled name (default: the last one opened, "
                       "else inception_v3)"));
    const QCommandLineOption screenshots(
        QStringLiteral("screenshots"),
        QStringLiteral("Save PNGs of every view at 1920x1080 and 1280x800 into DIR, then quit "
                       "(default settings: the saved ones are neither read nor changed)"),
        QStringLiteral("DIR"));
    const QCommandLineOption measure(
        QStringLiteral("measure-startup"),
        QStringLiteral("Print the time from window shown to schedule displayed, then quit"));
    const QCommandLineOption schedule(
        QStringLiteral("schedule"),
        QStringLiteral("Show this saved schedule of MODEL exactly instead of searching (IOS JSON "
                       "or native model with stages, schedule file, stream program)"),
        QStringLiteral("FILE"));
    parser.addOption(schedule);
    parser.addOption(screenshots);
    parser.addOption(measure);
    parser.process(app);
    const QStringList args = parser.positionalArguments();
    const bool batch = parser.isSet(screenshots) || parser.isSet(measure);
    // Batch runs start from the default settings and leave the saved ones alone: a persisted
    // strategy or budget would change what they show (and RAF strategies ignore the budget the
    // Memory shot waits for).
    QTemporaryDir ephemeral;
    if (batch)
        QSettings::setPath(QSettings::NativeFormat, QSettings::UserScope, ephemeral.path());
    // Without MODEL: the last model on the last tab (remembered_state.h), except in batch modes.
    const QString fallback = QStringLiteral("inception_v3");
    const QString model = !args.isEmpty() ? args.first()
                          : batch         ? fallback
                                          : ios::gui::rememberedModel(fallback);

    ios::gui::MainWindow window;
    if (!batch)
        ios::gui::rememberTabs(window.tabs());
    window.setDialogsEnabled(!batch);
    if (batch)
        ios::gui::exitOnError(window); // one line on stderr, exit status 1
    QElapsedTimer sinceShown;
    window.show();
    sinceShown.start();
    // Load after the window is up so a bad file reports in a message box over the window.
    QTimer::singleShot(0, &window, [&] {
        if (!window.openModel(model) && batch)
            return; // exitOnError has said why
        if (parser.isSet(schedule)) {
            if (!window.openSchedule(parser.value(schedule)) && batch)
                return;
        } else if (batch) {
            window.runOptimize(); // F5 at once: the run must not wait for the estimate
        }
        if (parser.isSet(measure))
            ios::gui::whenResultShown(window, [&sinceShown] {
                std::printf("window shown -> schedule displayed: %lld ms\n",
                            static_cast<long long>(sinceShown.elapsed()));
                QApplication::quit();
            });
        if (parser.isSet(screenshots))
            ios::gui::whenResultShown(window, [&window, dir = parser.value(screenshots)] {
                ios::gui::takeScreenshots(window, dir, {QSize(1920, 1080), QSize(1280, 800)});
            });
    });
    return QApplication::exec();
}
