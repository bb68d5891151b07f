// SPDX-License-Identifier: Apache-2.0
// Chrome trace import: round trip through the exporter (same kernels, streams, stages and
// utilisation at the exporter's 1 ns / 0.1 % resolution), the committed measured H100 traces,
// and malformed traces rejected with a UserError naming the file.
#include "baseline_timeline.h"
#include "bundled_models.h"
#include "eval/timeline.h"
#include "io/trace_export.h"
#include "io/trace_import.h"
#include "ir/block_dag.h"
#include "util/error.h"

#include <QDir>
#include <QTest>
#include <algorithm>
#include <tuple>

using namespace ios;

namespace {

using testing::figure2Timeline;

using KernelKey = std::tuple<int, int, int, std::string, std::string, int64_t>;
std::vector<KernelKey> kernelKeys(const eval::Timeline& tl) {
    std::vector<KernelKey> keys;
    for (const auto& k : tl.kernels)
        keys.emplace_back(k.block, k.stage, k.stream, k.opName, k.kernel, k.ctas);
    std::sort(keys.begin(), keys.end());
    return keys;
}

} // namespace

class TestTraceImport : public QObject {
    Q_OBJECT

private slots:
    void roundTrip_data() {
        QTest::addColumn<bool>("greedy");
        QTest::newRow("figure2 sequential") << false;
        QTest::newRow("figure2 greedy") << true;
    }
    void roundTrip() {
        QFETCH(bool, greedy);
        const eval::Timeline tl = figure2Timeline(greedy);
        io::TraceInfo info;
        const eval::Timeline back =
            io::parseChromeTrace(io::chromeTraceJson(tl, {"demo_figure2", "s"}), "rt", &info);
        QCOMPARE(info.model, std::string("demo_figure2"));
        QCOMPARE(info.source, std::string("simulated"));
        QCOMPARE(back.device, tl.device);
        QCOMPARE(back.streams, tl.streams);
        QCOMPARE(back.kernels.size(), tl.kernels.size());
        QVERIFY(kernelKeys(back) == kernelKeys(tl));
        // Same intervals per kernel (exported in ns steps); pair kernels by key, then time.
        auto byKey = [](eval::Timeline t) {
            std::sort(t.kernels.begin(), t.kernels.end(), [](const auto& a, const auto& b) {
                return std::tie(a.block, a.stage, a.stream, a.opName, a.kernel, a.startUs) <
                       std::tie(b.block, b.stage, b.stream, b.opName, b.kernel, b.startUs);
            });
            return t.kernels;
        };
        const auto want = byKey(tl);
        const auto got = byKey(back);
        for (size_t i = 0; i < want.size(); ++i) {
            QVERIFY2(std::abs(got[i].startUs - want[i].startUs) < 1e-3, want[i].opName.c_str());
            QVERIFY2(std::abs(got[i].endUs - want[i].endUs) < 2e-3, want[i].opName.c_str());
        }
        QCOMPARE(back.stages.size(), tl.stages.size());
        for (size_t i = 0; i < tl.stages.size(); ++i) {
            QCOMPARE(back.stages[i].kind, tl.stages[i].kind);
            QCOMPARE(back.stages[i].groups, tl.stages[i].groups);
            QVERIFY(std::abs(back.stages[i].endUs - tl.stages[i].endUs) < 2e-3);
            QVERIFY(std::abs(back.stages[i].meanWarpOccupancy - tl.stages[i].meanWarpOccupancy) <
                    1e-3);
        }
        // The device's SM count comes back (a V100 trace reads "80 = 100 %", not 1000).
        QVERIFY(tl.smCount > 0 && tl.smCount != 1000);
        QCOMPARE(back.smCount, tl.smCount);
        QCOMPARE(back.samples.size(), tl.samples.size());
        for (size_t i = 0; i < tl.samples.size(); ++i) {
            QCOMPARE(back.samples[i].activeSms, tl.samples[i].activeSms);
            const double sm = static_cast<double>(tl.samples[i].activeSms) / tl.smCount;
            const double smBack = static_cast<double>(back.samples[i].activeSms) / back.smCount;
            QVERIFY(std::abs(sm - smBack) < 1e-3);
        }
        QVERIFY(std::abs(back.latencyUs - tl.latencyUs) < 1e-3);
    }

    void measuredTraces() {
        const QDir dir(QStringLiteral(IOS_SOURCE_DIR "/sample_models/measured"));
        const QStringList files =
            dir.entryList({QStringLiteral("*inception*trace*.json")}, QDir::Files, QDir::Name) +
            dir.entryList({QStringLiteral("*trace*inception*.json")}, QDir::Files, QDir::Name);
        QVERIFY(!files.isEmpty());
        for (const QString& f : files) {
            io::TraceInfo info;
            const eval::Timeline tl = io::readChromeTrace(dir.filePath(f).toStdString(), &info);
            QVERIFY2(!tl.kernels.empty(), qPrintable(f));
            QCOMPARE(info.source, std::string("measured"));
            QCOMPARE(info.mode, std::string()); // written before traces recorded their mode
            QVERIFY(tl.latencyUs > 0);
            QVERIFY(!tl.samples.empty());
            for (const auto& k : tl.kernels)
                QVERIFY(k.stream >= 0 && k.stream < tl.streams && k.endUs >= k.startUs);
        }
    }

    // A measured trace's header facts survive export → import: device, batch, the run's mode
    // and the warp metric; the unit is written for readers of the JSON.
    void measuredMetadataRoundTrip() {
        eval::Timeline tl = figure2Timeline(true);
        tl.device = "NVIDIA H100 80GB HBM3";
        tl.batch = 8;
        for (eval::TimelineSample& s : tl.samples) {
            s.activeSms = 0;
            s.flopUtilisation = 0;
            s.warpOccupancy = 0.012;
        }
        const io::TraceInfo out{"inception_v3", "ios-both", "measured", "cuda-graph",
                                "sm__warps_active.avg.pct_of_peak_sustained_elapsed"};
        const std::string text = io::chromeTraceJson(tl, out);
        QVERIFY(text.find("\"warp_unit\": \"% of peak") != std::string::npos);
        io::TraceInfo info;
        const eval::Timeline back = io::parseChromeTrace(text, "rt", &info);
        QCOMPARE(info.source, std::string("measured"));
        QCOMPARE(info.mode, std::string("cuda-graph"));
        QCOMPARE(info.warpMetric, out.warpMetric);
        QCOMPARE(info.strategy, std::string("ios-both"));
        QCOMPARE(back.device, tl.device);
        QCOMPARE(back.batch, 8);
        QCOMPARE(back.samples.size(), tl.samples.size());
        QCOMPARE(back.samples.front().warpOccupancy, 0.012); // 1.2 % at 0.1 % resolution

        // Simulated traces have no mode; an eager measured run says so.
        io::parseChromeTrace(io::chromeTraceJson(tl, {"m", "s"}), "sim", &info);
        QCOMPARE(info.mode, std::string());
        io::parseChromeTrace(io::chromeTraceJson(tl, {"m", "s", "measured", "eager", "x"}), "e",
                             &info);
        QCOMPARE(info.mode, std::string("eager"));
    }

    // Traces written before the pid 1 layout (pid 0, the stages on tid 0) read as the current
    // ones do; per-stream counters are not samples.
    void readsBothLayouts() {
        const eval::Timeline old =
            io::readChromeTrace(IOS_TEST_DATA_DIR "/demo_figure2_greedy.pid0.trace.json");
        const eval::Timeline now =
            io::readChromeTrace(IOS_TEST_DATA_DIR "/demo_figure2_greedy.trace.json");
        QCOMPARE(now.kernels.size(), old.kernels.size());
        QCOMPARE(now.stages.size(), old.stages.size());
        QCOMPARE(now.samples.size(), old.samples.size());
        QCOMPARE(now.streams, old.streams);
        for (size_t k = 0; k < now.kernels.size(); ++k) {
            QCOMPARE(now.kernels[k].stream, old.kernels[k].stream);
            QCOMPARE(now.kernels[k].opName, old.kernels[k].opName);
            QCOMPARE(now.kernels[k].startUs, old.kernels[k].startUs);
        }
        QVERIFY(now.streams > 1);
    }

    void linksKernelsToOperators() {
        // The H100 traces of InceptionV3: every kernel names an operator of the bundled model.
        const ir::Graph g = samples::loadBundledModel("inception_v3");
        const auto dags = ir::buildDags(g);
        io::TraceInfo info;
        eval::Timeline tl = io::readChromeTrace(
            IOS_SOURCE_DIR "/sample_models/measured/h100_trace_inception_v3-both.json", &info);
        QCOMPARE(info.model, g.name);
        QVERIFY(std::all_of(tl.kernels.begin(), tl.kernels.end(),
                            [](const auto& k) { return k.op == -1; })); // unlinked as read
        QCOMPARE(eval::linkKernelsToOperators(tl, dags), tl.kernels.size());
        for (const auto& k : tl.kernels)
            QCOMPARE(dags[static_cast<size_t>(k.block)].ops[static_cast<size_t>(k.op)]->name,
                     k.opName);
        // Unknown names, blocks out of range and merged-kernel names stay unlinked.
        tl.kernels.resize(4);
        tl.kernels[0].opName = "no such operator";
        tl.kernels[1].block = static_cast<int>(dags.size());
        tl.kernels[2].block = -1;
        tl.kernels[3].opName = dags[0].ops[0]->name + "+" + dags[0].ops[1]->name;
        QCOMPARE(eval::linkKernelsToOperators(tl, dags), size_t{0});
        QVERIFY(std::all_of(tl.kernels.begin(), tl.kernels.end(),
                            [](const auto& k) { return k.op == -1; }));
    }

    void malformed_data() {
        QTest::addColumn<QByteArray>("text");
        QTest::newRow("not json") << QByteArray("{\"traceEvents\": [");
        QTest::newRow("no events") << QByteArray("{\"foo\": 1}");
        QTest::newRow("empty events") << QByteArray("{\"traceEvents\": []}");
        QTest::newRow("event not object") << QByteArray("{\"traceEvents\": [3]}");
        QTest::newRow("kernel without ts")
            << QByteArray(R"({"traceEvents":[{"ph":"X","cat":"kernel","dur":1,"tid":1,)"
                          R"("args":{"op":"a","kernel":"k","ctas":1,"block":0,"stage":0}}]})");
        QTest::newRow("kernel on stage tid")
            << QByteArray(R"({"traceEvents":[{"ph":"X","cat":"kernel","ts":0,"dur":1,"tid":0,)"
                          R"("args":{"op":"a","kernel":"k","ctas":1,"block":0,"stage":0}}]})");
        QTest::newRow("negative duration")
            << QByteArray(R"({"traceEvents":[{"ph":"X","cat":"stage","ts":0,"dur":-1,"tid":0,)"
                          R"("name":"s","args":{"block":0,"stage":0,"groups":1}}]})");
        QTest::newRow("counter without args")
            << QByteArray(R"({"traceEvents":[{"ph":"C","ts":0}]})");
    }
    void malformed() {
        QFETCH(QByteArray, text);
        try {
            io::parseChromeTrace(text.toStdString(), "bad.trace.json");
            QFAIL("no UserError");
        } catch (const UserError& e) {
            QVERIFY2(std::string(e.what()).find("bad.trace.json") != std::string::npos ||
                         e.file() == "bad.trace.json",
                     e.what());
        }
    }
    void unreadableFile() {
        QVERIFY_THROWS_EXCEPTION(UserError, io::readChromeTrace("/nonexistent/x.trace.json"));
    }
};

QTEST_GUILESS_MAIN(TestTraceImport)
#include "tst_trace_import.moc"
