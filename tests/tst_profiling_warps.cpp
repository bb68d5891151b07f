// SPDX-License-Identifier: Apache-2.0
// `ios-sched warps` (issue 16 item 4, the paper's Figure 8): three measured traces (mock
// CUDA-graph replays of sequential, greedy and IOS-both) → an SVG that parses as XML, with
// three curves and each run's busy-time and whole-run means as gpu_trace.h computes them;
// a figure that is not .svg and a trace without samples are clear errors.
#include "gpu_trace.h"
#include "io/trace_import.h"
#include "mock_sched.h"

#include <QFile>
#include <QProcess>
#include <QTemporaryDir>
#include <QXmlStreamReader>
#include <QtTest>

using namespace ios;
using ios::testing::runSched;

namespace {} // namespace

class TestProfilingWarps : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void figureOfThreeTraces() {
        QTemporaryDir dir;
        QProcess measure;
        runSched(measure, {"measure", "inception_v3", "--strategy", "sequential,greedy,both",
                           "--repeat", "1", "--warmup", "0", "--no-check", "--cuda-graph",
                           "--trace-prefix", dir.filePath("t")});
        QVERIFY2(measure.exitCode() == 0, measure.readAllStandardError().constData());
        const QStringList traces = {dir.filePath("t-sequential.json"),
                                    dir.filePath("t-greedy.json"), dir.filePath("t-ios-both.json")};
        const QString svg = dir.filePath("figure.svg");
        QProcess warps;
        runSched(warps, QStringList{"warps"} + traces + QStringList{"-o", svg});
        QVERIFY2(warps.exitCode() == 0, warps.readAllStandardError().constData());
        const QString table = warps.readAllStandardOutput();

        QFile f(svg);
        QVERIFY(f.open(QIODevice::ReadOnly));
        QXmlStreamReader xml(&f);
        int polylines = 0;
        QStringList texts;
        while (!xml.atEnd()) {
            xml.readNext();
            if (xml.isStartElement() && xml.name() == QLatin1String("polyline"))
                ++polylines;
            if (xml.isStartElement() && xml.name() == QLatin1String("text"))
                texts << xml.readElementText();
        }
        QVERIFY2(!xml.hasError(), qPrintable(xml.errorString()));
        QCOMPARE(polylines, 3);
        const QString legend = texts.join(QLatin1Char('\n'));
        for (const QString& t : traces) {
            io::TraceInfo info;
            const eval::Timeline tl = io::readChromeTrace(t.toStdString(), &info);
            const double busy = 100 * profiling::busyWarpOccupancy(tl);
            const double run = 100 * profiling::meanWarpOccupancy(tl, 0, tl.latencyUs);
            QVERIFY(busy > 0 && run > 0 && busy >= run - 1e-9);
            const QString line =
                QStringLiteral("%1 (cuda-graph): busy-time mean %2 %, run mean %3 %")
                    .arg(QString::fromStdString(info.strategy))
                    .arg(busy, 0, 'f', 2)
                    .arg(run, 0, 'f', 2);
            QVERIFY2(legend.contains(line), qPrintable(line + QLatin1Char('\n') + legend));
            QVERIFY(table.contains(QString::number(busy, 'f', 2)));
        }
        QVERIFY(legend.contains(QLatin1String("inception_v3 on Mock GPU")));
    }

    void errors() {
        QTemporaryDir dir;
        QProcess png;
        runSched(png, {"warps",
                       QStringLiteral(IOS_SOURCE_DIR "/sample_models/measured/"
                                                     "h100_trace_inception_v3-both.json"),
                       "-o", dir.filePath("f.png")});
        QVERIFY(png.exitCode() != 0);
        QVERIFY(QString(png.readAllStandardError()).contains(QLatin1String(".svg")));
        QVERIFY(!QFile::exists(dir.filePath("f.png")));

        const QString bare = dir.filePath("bare.json");
        QFile f(bare);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write(R"({"traceEvents": [{"ph": "X", "cat": "kernel", "ts": 0, "dur": 5, "pid": 0,
            "tid": 1, "name": "k", "args": {"op": "a", "kernel": "k", "ctas": 1, "block": 0,
            "stage": 0}}]})");
        f.close();
        QProcess none;
        runSched(none, {"warps", bare, "-o", dir.filePath("f.svg")});
        QVERIFY(none.exitCode() != 0);
        const QString err = none.readAllStandardError();
        QVERIFY2(err.contains(QLatin1String("bare.json")) &&
                     err.contains(QLatin1String("no active-warp samples")),
                 qPrintable(err));
        QVERIFY(!QFile::exists(dir.filePath("f.svg")));
    }
};

QTEST_GUILESS_MAIN(TestProfilingWarps)
#include "tst_profiling_warps.moc"
