// SPDX-License-Identifier: Apache-2.0
// `--schedule FILE` on optimize, trace, streams and compare (docs/cli.md "Saved schedules"): a
// schedule saved on one device re-prices on another without a search — the same stages, the
// latency the target device gives them — and a file that does not fit the model exits 1 with
// one line naming the file and the node.
#include "cli_run.h"

#include <QDir>
#include <QTemporaryDir>
#include <QTest>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

using namespace ios;
using ios::testing::runCli;

class TestCliSchedule : public QObject {
    Q_OBJECT

    QTemporaryDir dir_;
    std::string path(const char* name) const {
        return dir_.filePath(QLatin1String(name)).toStdString();
    }
    static std::string read(const std::string& file) {
        std::ifstream in(file);
        std::stringstream s;
        s << in.rdbuf();
        return s.str();
    }
    static nlohmann::json total(const std::vector<std::string>& args) {
        const testing::CliRun r = runCli(args);
        if (r.code != 0)
            qWarning("%s", r.err.c_str());
        return nlohmann::json::parse(r.out)["total"];
    }

private Q_SLOTS:
    void repricesOnAnotherDeviceWithoutSearching() {
        const std::string saved = path("v100.json");
        const std::string ios = path("v100.ios.json");
        QCOMPARE(runCli({"optimize", "squeezenet", "--save-schedule", saved, "-o", ios}).code, 0);
        // The schedule file and the IOS JSON model both re-price it on the A100 at batch 8.
        const nlohmann::json a = total({"optimize", "squeezenet", "--schedule", saved, "--device",
                                        "A100", "--batch", "8", "--json"});
        const nlohmann::json b = total({"optimize", "squeezenet", "--schedule", ios, "--device",
                                        "A100", "--batch", "8", "--json"});
        QCOMPARE(a["latency_ms"].get<double>(), b["latency_ms"].get<double>());
        QCOMPARE(a["peak_bytes"], b["peak_bytes"]);
        // Not what a search on the A100 finds, nor the V100 latency: the saved stages, priced.
        const nlohmann::json v100 =
            total({"optimize", "squeezenet", "--schedule", saved, "--json"});
        QVERIFY(a["latency_ms"].get<double>() != v100["latency_ms"].get<double>());
        // Written back, it is the same schedule file (the stages did not move).
        const std::string again = path("again.json");
        QCOMPARE(runCli({"optimize", "squeezenet", "--schedule", ios, "--device", "A100",
                         "--save-schedule", again})
                     .code,
                 0);
        const nlohmann::json first = nlohmann::json::parse(read(saved));
        const nlohmann::json second = nlohmann::json::parse(read(again));
        QCOMPARE(first["blocks"], second["blocks"]);

        const testing::CliRun cmp = runCli({"compare", "squeezenet", "--schedule", saved});
        QCOMPARE(cmp.code, 0);
        QVERIFY2(cmp.out.find("schedule " + saved) != std::string::npos, cmp.out.c_str());
        const testing::CliRun tr =
            runCli({"trace", "squeezenet", "--schedule", saved, "-o", path("t.json")});
        QCOMPARE(tr.code, 0);
        const std::string program = path("p.json");
        QCOMPARE(runCli({"streams", "squeezenet", "--policy", "raf-asap", "-o", program}).code, 0);
        const testing::CliRun st =
            runCli({"streams", "squeezenet", "--schedule", program, "--device", "K80"});
        QCOMPARE(st.code, 0);
        QVERIFY2(st.out.find("raf-asap") != std::string::npos, st.out.c_str());
    }

    void refusesFilesThatDoNotFit_data() {
        QTest::addColumn<QString>("edit");
        QTest::addColumn<QString>("expected");
        QTest::newRow("unknown operator") << "unknown"
                                          << "no_such_op";
        QTest::newRow("operator twice") << "twice"
                                        << "bad.json";
        QTest::newRow("operator missing") << "missing"
                                          << "bad.json";
        QTest::newRow("dependency order") << "order"
                                          << "bad.json";
        QTest::newRow("another model") << "model"
                                       << "inception_v3";
    }
    void refusesFilesThatDoNotFit() {
        QFETCH(QString, edit);
        QFETCH(QString, expected);
        const std::string seq = path("seq.json");
        QCOMPARE(
            runCli({"optimize", "squeezenet", "--strategy", "sequential", "--save-schedule", seq})
                .code,
            0);
        nlohmann::ordered_json doc = nlohmann::ordered_json::parse(read(seq));
        auto& stages = doc["blocks"][0]["stages"];
        if (edit == QLatin1String("unknown"))
            stages[0][0][0] = "no_such_op";
        else if (edit == QLatin1String("twice"))
            stages.push_back(stages[0]);
        else if (edit == QLatin1String("missing"))
            stages.erase(stages.end() - 1);
        else if (edit == QLatin1String("order"))
            std::swap(stages[0], stages[1]);
        const std::string bad = path("bad.json");
        std::ofstream(bad) << doc.dump(1);
        const std::string model = edit == QLatin1String("model") ? "inception_v3" : "squeezenet";
        const testing::CliRun r = runCli({"optimize", model, "--schedule", bad});
        QCOMPARE(r.code, 1);
        QVERIFY2(r.err.find(expected.toStdString()) != std::string::npos &&
                     r.err.find("bad.json") != std::string::npos,
                 r.err.c_str());
        QCOMPARE(std::count(r.err.begin(), r.err.end(), '\n'), 1L);
    }

    void refusesAStrategyBesideASchedule() {
        const testing::CliRun r = runCli(
            {"optimize", "squeezenet", "--strategy", "greedy", "--schedule", path("x.json")});
        QCOMPARE(r.code, 1);
        QVERIFY2(r.err.find("--strategy or --schedule") != std::string::npos, r.err.c_str());
    }
};

QTEST_GUILESS_MAIN(TestCliSchedule)
#include "tst_cli_schedule.moc"
