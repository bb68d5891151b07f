// SPDX-License-Identifier: Apache-2.0
// Numbers and names at the CLI (issue 19): counts that used to wrap (`info` printed negative or
// wrapped parameters), options that used to narrow, absurd cache latencies that used to hang
// the DP, device-profile numbers printed with 300 digits or as -0, names with control
// characters printed raw, and advice that did not apply to explicit parts. Each ends in exit 1
// with one line that names the file and field or node. Commands run in-process.
#include "chain_model_json.h"
#include "cli_run.h"

#include <QFile>
#include <QTemporaryDir>
#include <QTest>
#include <string>
#include <vector>

using namespace ios;
using testing::runCli;
using Run = testing::CliRun;

namespace {

// A failed run: exit 1, one line on stderr, no control character but its final newline.
void expectOneLineError(const Run& r, const std::string& needle) {
    QCOMPARE(r.code, 1);
    QVERIFY2(r.err.find(needle) != std::string::npos, r.err.c_str());
    QVERIFY2(!r.err.empty() && r.err.back() == '\n', r.err.c_str());
    for (size_t i = 0; i + 1 < r.err.size(); ++i)
        QVERIFY2(static_cast<unsigned char>(r.err[i]) >= 0x20 && r.err[i] != 0x7F,
                 ("control byte at " + std::to_string(i) + ": " + r.err).c_str());
}

std::string placeholderJson(const std::string& name, const std::string& shape) {
    return R"({"type": "placeholder", "name": ")" + name + R"(", "hint_name": "in",
               "output_shape": )" +
           shape + "}";
}

// IOS JSON of one conv reading the input; `inputName` is what the conv reads.
std::string convModel(int64_t inChannels, int64_t outChannels, const std::string& convName,
                      const std::string& inputName) {
    const std::string in = placeholderJson("in", "[" + std::to_string(inChannels) + ", 1, 1]");
    return R"({"name": "big", "input": )" + in + R"(, "blocks": [{"enter_name": "in",
        "enter_node": )" +
           in + R"(, "inner_nodes": [], "exit_node": {"type": "conv",
        "name": ")" +
           convName + R"(", "hint_name": "c", "inputs": [[[")" + inputName + R"(", 0, )" +
           std::to_string(inChannels) + R"(]]], "out_channels": )" + std::to_string(outChannels) +
           R"(, "kernel": [4096, 4096], "stride": [1, 1],
        "padding": [2048, 2048], "groups": 1, "act": "relu", "output_shape": [)" +
           std::to_string(outChannels) + R"(, 2, 2]}, "stages": []}]})";
}

// IOS JSON of two chains of `length` ReLUs from the input, summed by the exit node.
std::string twoChainsModel(int length) {
    const std::string in = placeholderJson("in", "[4, 2, 2]");
    std::string nodes;
    for (const char chain : {'a', 'b'})
        for (int i = 0; i < length; ++i) {
            const std::string from = i == 0 ? "in" : chain + std::to_string(i - 1);
            nodes += R"({"type": "relu", "name": ")" + (chain + std::to_string(i)) +
                     R"(", "hint_name": "r", "inputs": [[[")" + from +
                     R"(", 0, 4]]], "output_shape": [4, 2, 2]}, )";
        }
    nodes.resize(nodes.size() - 2);
    const std::string last = std::to_string(length - 1);
    return R"({"name": "chains", "input": )" + in + R"(, "blocks": [{"enter_name": "in",
        "enter_node": )" +
           in + R"(, "inner_nodes": [)" + nodes + R"(], "exit_node": {
        "type": "identity", "name": "sum", "hint_name": "sum", "inputs": [[["a)" +
           last + R"(", 0, 4], ["b)" + last + R"(", 0, 4]]], "output_shape": [4, 2, 2]},
        "stages": []}]})";
}

} // namespace

class TestCliNumbers : public QObject {
    Q_OBJECT

private slots:
    void initTestCase() { QVERIFY(tmp_.isValid()); }

    void infoRefusesWrappedCounts() {
        // 2^20 filters of 2^20 x 4096 x 4096: 2^64 + 2^20 parameters (printed as 1.049 M)
        const std::string path = write("big.ios.json", convModel(1 << 20, 1 << 20, "conv0", "in"));
        expectOneLineError(runCli({"info", path}),
                           "big.ios.json: node 'conv0': its parameters overflow 64-bit integers");
        expectOneLineError(runCli({"info", path, "--json"}), "its parameters overflow");
    }

    void infoPrintsLargeCountsExactly() {
        // 2^10 filters of 2^18 x 4096 x 4096: 2^52 + 2^10 parameters, FLOPs ~ 2^55 (> 2^53)
        const std::string path = write("large.ios.json", convModel(1 << 18, 1 << 10, "c", "in"));
        const Run r = runCli({"info", path, "--json"});
        QCOMPARE(r.code, 0);
        QVERIFY2(r.out.find("\"parameters\": 4503599627371520") != std::string::npos,
                 r.out.c_str());
        QVERIFY2(r.out.find("\"flops\": -") == std::string::npos, r.out.c_str());
    }

    void optionsAreNotNarrowed_data() {
        QTest::addColumn<QString>("option");
        QTest::addColumn<QString>("value");
        QTest::addColumn<QString>("message");
        QTest::newRow("batch 2^32+1") << "--batch"
                                      << "4294967297"
                                      << "--batch must be in [1, 65536], not 4294967297";
        QTest::newRow("batch 2^64") << "--batch"
                                    << "18446744073709551617"
                                    << "--batch must be in [1, 65536]";
        QTest::newRow("batch -1") << "--batch"
                                  << "-1"
                                  << "--batch must be in [1, 65536], not -1";
        QTest::newRow("batch 1e3") << "--batch"
                                   << "1e3"
                                   << "--batch expects an integer in [1, 65536], not '1e3'";
        QTest::newRow("batch nan") << "--batch"
                                   << "nan"
                                   << "expects an integer in [1, 65536]";
        QTest::newRow("max-part-size 2^32+8") << "--max-part-size"
                                              << "4294967304"
                                              << "--max-part-size must be in [1, 128]";
        QTest::newRow("max-group-size 2^31") << "-r"
                                             << "2147483648"
                                             << "--max-group-size must be in [1, 128]";
    }
    void optionsAreNotNarrowed() {
        QFETCH(QString, option);
        QFETCH(QString, value);
        QFETCH(QString, message);
        expectOneLineError(
            runCli({"optimize", "demo_figure2", option.toStdString(), value.toStdString()}),
            message.toStdString());
    }

    // A part's schedule count stops at 2^128 - 1 (two chains of 60 have about 2^204); the
    // JSON says so next to the count, as the text does, and not for a count that fits.
    void saturatedScheduleCountIsMarked_data() {
        QTest::addColumn<int>("length");
        QTest::addColumn<bool>("saturated");
        QTest::newRow("2 x 60") << 60 << true;
        QTest::newRow("2 x 10") << 10 << false;
    }
    void saturatedScheduleCountIsMarked() {
        QFETCH(int, length);
        QFETCH(bool, saturated);
        const std::string path = write("chains.ios.json", twoChainsModel(length));
        const std::vector<std::string> args = {"optimize", path, "--max-part-size", "128",
                                               "--stats"};
        const Run text = runCli(args);
        QCOMPARE(text.code, 0);
        QCOMPARE(text.out.find("lower bound") != std::string::npos, saturated);
        std::vector<std::string> withJson = args;
        withJson.push_back("--json");
        const Run json = runCli(withJson);
        QCOMPARE(json.code, 0);
        // once in "total", once for the one part
        const std::string flag =
            std::string("\"schedules_saturated\": ") + (saturated ? "true" : "false");
        const size_t first = json.out.find(flag);
        QVERIFY2(first != std::string::npos, json.out.c_str());
        QVERIFY2(json.out.find(flag, first + 1) != std::string::npos, json.out.c_str());
        QVERIFY2(json.out.find(flag, json.out.find(flag, first + 1) + 1) == std::string::npos,
                 json.out.c_str());
        const bool exact =
            json.out.find("\"schedules\": \"340282366920938463463374607431768211455\"") !=
            std::string::npos;
        QCOMPARE(exact, saturated); // the saturated count is 2^128 - 1 (one part)
    }

    void absurdCacheLatencyIsRefused() {
        // Used to spin forever (DP reconstruction) with unbounded memory.
        const std::string cache = write(
            "cache.json", R"({"format": "ios-explorer-measurements", "version": 1, "entries": [
            {"device": "V100", "model": "demo_figure2", "batch": 1, "stage": "parallel:1",
             "latency_ms": 1e308}]})");
        expectOneLineError(runCli({"optimize", "demo_figure2", "--cost", "cache:" + cache}),
                           "cache.json: entries[0].latency_ms must be a number in [0, 1e+09] "
                           "(got 1e+308)");
    }

    void deviceProfileNumbersAreCompact_data() {
        QTest::addColumn<QString>("value");
        QTest::addColumn<QString>("message");
        QTest::newRow("1e300") << "1e300"
                               << "must be between 1 and 10000 (got 1e+300)";
        QTest::newRow("-0") << "-0.0"
                            << "must be between 1 and 10000 (got 0)";
    }
    void deviceProfileNumbersAreCompact() {
        QFETCH(QString, value);
        QFETCH(QString, message);
        QFile v100(QStringLiteral(IOS_SOURCE_DIR "/resources/devices/v100.json"));
        QVERIFY(v100.open(QIODevice::ReadOnly));
        std::string text = v100.readAll().toStdString();
        text.replace(text.find("\"sm_count\": 80"), 14, "\"sm_count\": " + value.toStdString());
        const std::string path = write("dev.json", text);
        const Run r = runCli({"optimize", "demo_figure2", "--device", path});
        expectOneLineError(r, "device profile field 'sm_count' " + message.toStdString());
        QVERIFY2(r.err.size() < 200, r.err.c_str()); // no 300-digit number
    }

    void controlCharactersAreEscaped() {
        // A conv named with an OSC title sequence reading an input named with ESC, NUL and LF.
        const std::string path = write(
            "evil.ios.json", convModel(8, 8, "c\\u001b]0;pwned\\u0007", "x\\u001b[31m\\u0000\\n"));
        const Run r = runCli({"info", path});
        expectOneLineError(r, "node 'c\\x1B]0;pwned\\x07': unknown input 'x\\x1B[31m\\x00\\x0A'");
    }

    void explicitPartAdviceApplies() {
        // 130 operators in one explicit part: --max-part-size cannot help, the parts file can.
        const std::string path = write("chain.json", testing::chainModelJson(130, true));
        const Run r = runCli({"optimize", path});
        expectOneLineError(r, "a DP part has 130 operators; at most 128 are supported; the "
                              "block's parts are explicit (the max part size does not apply)");
        QVERIFY2(r.err.find("(--max-part-size does not apply to explicit parts)") !=
                     std::string::npos,
                 r.err.c_str());
        QVERIFY2(r.err.find("lower --max-part-size") == std::string::npos, r.err.c_str());
    }

private:
    std::string write(const QString& name, const std::string& text) {
        const QString path = tmp_.filePath(name);
        QFile f(path);
        if (!f.open(QIODevice::WriteOnly) ||
            f.write(text.data(), static_cast<qint64>(text.size())) !=
                static_cast<qint64>(text.size()))
            qFatal("cannot write %s", qPrintable(path));
        return path.toStdString();
    }
    std::string write(const char* name, const std::string& text) {
        return write(QString::fromLatin1(name), text);
    }

    QTemporaryDir tmp_;
};

QTEST_GUILESS_MAIN(TestCliNumbers)
#include "tst_cli_numbers.moc"
