// SPDX-License-Identifier: Apache-2.0
// Traces of other tools (io/foreign_trace.h) open as timelines: PyTorch profiler (Kineto)
// Chrome traces and Nsight Systems SQLite exports, written here to their documented layouts;
// malformed ones give one error naming the file.
#include "io/foreign_trace.h"
#include "io/trace_import.h"
#include "store/sqlite_statement.h"
#include "user_error_text.h"
#include "util/error.h"

#include <QFile>
#include <QTemporaryDir>
#include <QTest>

using namespace ios;

namespace {

// A Kineto trace: CPU ops and runtime calls (not kernels), three kernels on two streams of
// device 0 and one on device 1, device properties as torch.profiler writes them.
const char* kKineto = R"({
  "schemaVersion": 1,
  "deviceProperties": [{"id": 0, "name": "NVIDIA A100-SXM4-40GB", "numSms": 108},
                       {"id": 1, "name": "NVIDIA A100-SXM4-40GB", "numSms": 108}],
  "traceEvents": [
    {"ph": "X", "cat": "cpu_op", "name": "aten::conv2d", "pid": 1, "tid": 1, "ts": 100.0, "dur": 50},
    {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": 110, "dur": 5,
     "args": {"correlation": 7}},
    {"ph": "X", "cat": "kernel", "name": "implicit_convolve_sgemm", "pid": 0, "tid": 7, "ts": 1000.5, "dur": 20.25,
     "args": {"device": 0, "stream": 7, "correlation": 7, "grid": [4, 2, 1], "block": [256, 1, 1]}},
    {"ph": "X", "cat": "kernel", "name": "relu_kernel", "pid": 0, "tid": 13, "ts": 1010.5, "dur": 5,
     "args": {"device": 0, "stream": 13, "correlation": 8, "grid": [16, 1, 1]}},
    {"ph": "X", "cat": "kernel", "name": "add_kernel", "pid": 0, "tid": 7, "ts": 1030.75, "dur": 2,
     "args": {"device": 0, "stream": 7, "correlation": 9, "grid": [1, 1, 1]}},
    {"ph": "X", "cat": "kernel", "name": "other_gpu", "pid": 1, "tid": 7, "ts": 1000, "dur": 1,
     "args": {"device": 1, "stream": 7, "correlation": 10}},
    {"ph": "X", "cat": "gpu_memcpy", "name": "Memcpy HtoD", "pid": 0, "tid": 7, "ts": 990, "dur": 3,
     "args": {"device": 0, "stream": 7}}
  ]
})";

std::string errorOf(const std::function<void()>& f) {
    return testing::userErrorOf(f).toStdString();
}

void writeFile(const QString& path, const QByteArray& bytes) {
    QFile f(path);
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write(bytes);
}

} // namespace

class TestTraceImportForeign : public QObject {
    Q_OBJECT

private slots:
    void kineto() {
        io::TraceInfo info;
        const eval::Timeline tl = io::parseChromeTrace(kKineto, "prof.json", &info);
        QCOMPARE(info.source, std::string("measured"));
        QCOMPARE(tl.device, std::string("NVIDIA A100-SXM4-40GB"));
        QCOMPARE(tl.smCount, 108);
        QCOMPARE(tl.kernels.size(), size_t(3)); // device 0's kernels, no CPU op or memcpy
        QCOMPARE(tl.streams, 2);
        QCOMPARE(tl.stages.size(), size_t(0));
        const eval::TimelineKernel& first = tl.kernels[0];
        QCOMPARE(first.kernel, std::string("implicit_convolve_sgemm"));
        QCOMPARE(first.startUs, 0.0);
        QCOMPARE(first.endUs, 20.25);
        QCOMPARE(first.ctas, int64_t(8));
        QCOMPARE(first.op, -1);
        QCOMPARE(tl.kernels[1].stream, 1); // stream 13, second in first use
        QCOMPARE(tl.kernels[2].stream, 0);
        QCOMPARE(tl.kernels[2].startUs, 30.25);
        QCOMPARE(tl.latencyUs, 32.25);
        io::ForeignTraceInfo foreign;
        io::kinetoTimeline(util::parseJsonText(kKineto, "prof.json"), "prof.json", &foreign);
        QCOMPARE(foreign.tool, std::string("kineto"));
        QCOMPARE(foreign.otherKernels, size_t(1));
    }

    void kinetoErrors() {
        std::string text = kKineto;
        text.replace(text.find("\"ts\": 1010.5"), 12, "\"ts\": \"late\"");
        const std::string bad = errorOf([&] { io::parseChromeTrace(text, "prof.json"); });
        QVERIFY2(bad.rfind("prof.json: invalid Kineto trace: event 3: \"ts\"", 0) == 0,
                 bad.c_str());
        const std::string empty = errorOf([] {
            io::parseChromeTrace(R"({"schemaVersion": 1, "traceEvents": [
                {"ph": "X", "cat": "cpu_op", "name": "aten::mm", "ts": 1, "dur": 2}]})",
                                 "cpu.json");
        });
        QVERIFY2(empty == "cpu.json: the trace holds no GPU kernel", empty.c_str());
        // The JSON Array Format (older torch.profiler exports, pid and tid as strings).
        const std::string array = errorOf([] {
            io::parseChromeTrace(R"([{"name": "aten::randn", "ph": "X", "ts": 545, "dur": 272,
                                      "tid": 1, "pid": "CPU functions", "args": {}}])",
                                 "old.json");
        });
        QVERIFY2(array == "old.json: the trace holds no GPU kernel", array.c_str());
        const eval::Timeline tl = io::parseChromeTrace(
            R"([{"name": "k", "ph": "X", "cat": "kernel", "ts": 5, "dur": 2, "pid": 0,
                 "tid": "stream 7", "args": {"device": 0, "stream": 7}}])",
            "array.json");
        QCOMPARE(tl.kernels.size(), size_t(1));
    }

    void nsightSqlite() {
        QTemporaryDir dir;
        const std::string path = dir.filePath(QStringLiteral("run.sqlite")).toStdString();
        {
            store::SqliteDb db(path);
            db.open(path, false, true);
            db.exec("CREATE TABLE StringIds (id INTEGER PRIMARY KEY, value TEXT NOT NULL);"
                    "INSERT INTO StringIds VALUES (1, 'volta_sgemm_128x64_nn'), (2, 'relu'),"
                    " (3, 'NVIDIA H100 80GB HBM3');"
                    "CREATE TABLE TARGET_INFO_GPU (id INTEGER, name TEXT, smCount INTEGER);"
                    "INSERT INTO TARGET_INFO_GPU VALUES (0, 'NVIDIA H100 80GB HBM3', 132);"
                    "CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL (start INTEGER NOT NULL, end INTEGER"
                    " NOT NULL, deviceId INTEGER, contextId INTEGER, streamId INTEGER,"
                    " correlationId INTEGER, gridX INTEGER, gridY INTEGER, gridZ INTEGER,"
                    " blockX INTEGER, blockY INTEGER, blockZ INTEGER, shortName INTEGER,"
                    " demangledName INTEGER, mangledName INTEGER);"
                    "INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES"
                    " (5000000, 5012000, 0, 1, 14, 1, 2, 3, 1, 128, 1, 1, 1, 1, 1),"
                    " (5001000, 5003500, 0, 1, 7, 2, 8, 1, 1, 256, 1, 1, 2, 2, 2),"
                    " (5020000, 5021000, 0, 1, 14, 3, 1, 1, 1, 32, 1, 1, 2, 2, 2);");
        }
        QVERIFY(io::isSqliteFile(path));
        io::TraceInfo info;
        const eval::Timeline tl = io::readChromeTrace(path, &info);
        QCOMPARE(info.strategy, std::string("Nsight Systems"));
        QCOMPARE(tl.device, std::string("NVIDIA H100 80GB HBM3"));
        QCOMPARE(tl.smCount, 132);
        QCOMPARE(tl.kernels.size(), size_t(3));
        QCOMPARE(tl.kernels[0].kernel, std::string("volta_sgemm_128x64_nn"));
        QCOMPARE(tl.kernels[0].ctas, int64_t(6));
        QCOMPARE(tl.kernels[0].endUs, 12.0); // ns to µs
        QCOMPARE(tl.kernels[1].stream, 1);
        QCOMPARE(tl.kernels[1].startUs, 1.0);
        QCOMPARE(tl.kernels[2].stream, 0);
        QCOMPARE(tl.latencyUs, 21.0);
    }

    void nsightErrors() {
        QTemporaryDir dir;
        const std::string empty = dir.filePath(QStringLiteral("empty.sqlite")).toStdString();
        {
            store::SqliteDb db(empty);
            db.open(empty, false, true);
            db.exec("CREATE TABLE StringIds (id INTEGER, value TEXT);");
        }
        const std::string noKernels = errorOf([&] { io::readChromeTrace(empty); });
        QVERIFY2(noKernels.find("no table CUPTI_ACTIVITY_KIND_KERNEL") != std::string::npos &&
                     noKernels.find("`nsys export`") != std::string::npos,
                 noKernels.c_str());
        // A truncated database: the header, then nothing SQLite can read.
        const QString truncated = dir.filePath(QStringLiteral("cut.sqlite"));
        writeFile(truncated, QByteArray("SQLite format 3\0", 16) + QByteArray(100, '\x7f'));
        const std::string cut = errorOf([&] { io::readChromeTrace(truncated.toStdString()); });
        QVERIFY2(cut.rfind(truncated.toStdString() + ": ", 0) == 0, cut.c_str());
        const QString report = dir.filePath(QStringLiteral("run.nsys-rep"));
        writeFile(report, "binary report");
        const std::string rep = errorOf([&] { io::readChromeTrace(report.toStdString()); });
        QVERIFY2(rep.find("`nsys export`") != std::string::npos, rep.c_str());
    }
};

QTEST_GUILESS_MAIN(TestTraceImportForeign)
#include "tst_trace_import_foreign.moc"
