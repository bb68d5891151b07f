// SPDX-License-Identifier: Apache-2.0
// The fuzz targets' inputs as ordinary tests (docs/testing.md "Fuzzing every loader"): every
// finding saved under tests/fuzz/findings/ must be refused by its loader itself with a
// UserError that names the file, and every committed seed under tests/fuzz/seeds_*/ must still load
// and pass the checks its fuzz target makes (so the seeds follow the formats).
#include "analysis/measured_validation.h"
#include "bundled_models.h"
#include "cost/device_profile.h"
#include "cost/measurement_cache.h"
#include "cost/simulated_gpu_cost_model.h"
#include "eval/program_eval.h"
#include "io/program_json.h"
#include "io/schedule_file.h"
#include "io/trace_export.h"
#include "io/trace_import.h"
#include "ir/block_dag.h"
#include "user_error_text.h"
#include "util/file_util.h"
#include "util/json_text.h"

#include <QDir>
#include <QTest>
#include <cmath>
#include <filesystem>
#include <string>

using namespace ios;

namespace {

const QString kFuzzDir = QStringLiteral(IOS_SOURCE_DIR "/tests/fuzz/");

// Loads `text` with the loader its file name or folder names (the prefix before the first
// '_': chrome, cache, results, schedule, device, program); throws what the loader throws. With
// `checks`, what loads must also pass the checks of the kind's fuzz target.
void load(const QString& kind, const std::string& text, const std::string& source, bool checks) {
    if (kind == "chrome" || kind == "trace") {
        io::TraceInfo info;
        const eval::Timeline tl = io::parseChromeTrace(text, source, &info);
        if (!checks)
            return;
        // What fuzz_chrome_trace checks: the export loads again with the same events.
        const eval::Timeline back = io::parseChromeTrace(io::chromeTraceJson(tl, info), "export");
        QCOMPARE(back.stages.size(), tl.stages.size());
        QCOMPARE(back.kernels.size(), tl.kernels.size());
    } else if (kind == "cache") {
        const cost::MeasurementCache cache = cost::MeasurementCache::parse(text, source);
        if (!checks)
            return;
        QCOMPARE(cost::MeasurementCache::parse(cache.text(), "rewritten").text(), cache.text());
    } else if (kind == "results") {
        QVERIFY(!analysis::parseMeasuredResults(text, source).empty());
    } else if (kind == "schedule") {
        const ir::Graph graph = samples::loadBundledModel(
            util::parseJsonText(text, source).value("model", std::string("squeezenet")));
        const std::vector<ir::BlockDag> dags = ir::buildDags(graph);
        const schedule::Schedule s = io::parseScheduleFile(text, source, graph, dags);
        if (!checks)
            return;
        QVERIFY(io::parseScheduleFile(io::writeScheduleFile(graph, dags, s), "rewritten", graph,
                                      dags) == s);
    } else if (kind == "program") {
        const ir::Graph graph = samples::loadBundledModel(
            util::parseJsonText(text, source).value("model", std::string("squeezenet")));
        const std::vector<ir::BlockDag> dags = ir::buildDags(graph);
        const schedule::Program p = io::parseProgramFile(text, source, dags);
        if (!checks)
            return;
        // What fuzz_program_json checks: verified, finite on the V100, the same after a write.
        const cost::SimulatedGpuCostModel v100(graph, cost::loadDevice("V100"));
        const double ms = eval::programLatencyMs(dags, p, v100);
        QVERIFY(std::isfinite(ms) && ms >= 0);
        QVERIFY(io::parseProgramFile(io::programFileText(graph.name, "seed", ms, dags, p),
                                     "rewritten", dags) == p);
    } else if (kind == "device") {
        const cost::DeviceProfile p = cost::parseDeviceProfile(text, source);
        if (!checks)
            return;
        QCOMPARE(cost::writeDeviceProfile(
                     cost::parseDeviceProfile(cost::writeDeviceProfile(p), "rewritten")),
                 cost::writeDeviceProfile(p));
    } else {
        QFAIL(qPrintable("no loader for " + kind));
    }
}

} // namespace

class TestFuzzRegressions : public QObject {
    Q_OBJECT

private slots:
    void findingsAreRefused_data() {
        QTest::addColumn<QString>("file");
        const QDir dir(kFuzzDir + "findings");
        for (const QString& f : dir.entryList({"*.json"}, QDir::Files, QDir::Name))
            QTest::newRow(qPrintable(f)) << dir.filePath(f);
    }
    void findingsAreRefused() {
        QFETCH(QString, file);
        const std::string path = file.toStdString();
        const QString kind = QFileInfo(file).fileName().section('_', 0, 0);
        const QString error = testing::userErrorOf(
            [&] { load(kind, util::readTextFile(std::filesystem::path(path)), path, false); });
        QVERIFY2(!error.isEmpty(), "loads: a finding must be refused with a UserError");
        QVERIFY2(error.contains(file), qPrintable(error)); // names the file
    }

    void seedsLoad_data() {
        QTest::addColumn<QString>("file");
        QTest::addColumn<QString>("kind");
        for (const char* kind : {"cache", "results", "schedule", "trace", "program"}) {
            const QDir dir(kFuzzDir + "seeds_" + kind);
            for (const QString& f : dir.entryList({"*.json"}, QDir::Files, QDir::Name))
                QTest::newRow(qPrintable(QString(kind) + "/" + f))
                    << dir.filePath(f) << QString(kind);
        }
    }
    void seedsLoad() {
        QFETCH(QString, file);
        QFETCH(QString, kind);
        const std::string path = file.toStdString();
        const QString error = testing::userErrorOf(
            [&] { load(kind, util::readTextFile(std::filesystem::path(path)), path, true); });
        QVERIFY2(error.isEmpty(), qPrintable(error));
    }
};

QTEST_GUILESS_MAIN(TestFuzzRegressions)
#include "tst_fuzz_regressions.moc"
