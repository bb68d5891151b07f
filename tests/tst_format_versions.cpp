// SPDX-License-Identifier: Apache-2.0
// One versioning rule for every file format the tools read (issue 37 item 12): native models,
// schedule files, measurement caches and device profiles take "version" as the JSON integer
// this build reads, and refuse 1.0, 1e0, 1.5, "1", true, null, 2 and a missing version with the
// one message of util::requireFormatVersion. Each file starts as what the tool itself writes.
#include "bundled_models.h"
#include "cost/device_profile.h"
#include "cost/measurement_cache.h"
#include "io/native_json.h"
#include "io/schedule_file.h"
#include "ir/block_dag.h"
#include "schedulers/baselines.h"
#include "util/error.h"

#include <QTest>
#include <functional>
#include <regex>
#include <string>

using namespace ios;

namespace {

struct Format {
    const char* name;
    std::string written;                          // the writer's text, version 1
    std::function<void(const std::string&)> read; // throws UserError when refused
};

std::vector<Format> formats() {
    static const ir::Graph graph = samples::loadBundledModel("squeezenet");
    static const std::vector<ir::BlockDag> dags = ir::buildDags(graph);
    cost::MeasurementCache cache;
    return {
        {"native format", io::writeNativeJson(graph),
         [](const std::string& t) { (void)io::parseNativeJson(t, "m.json"); }},
        {"schedule file", io::writeScheduleFile(graph, dags, schedulers::sequential(dags)),
         [](const std::string& t) { (void)io::parseScheduleFile(t, "s.json", graph, dags); }},
        {"measurement cache", cache.text(),
         [](const std::string& t) { (void)cost::MeasurementCache::parse(t, "c.json"); }},
        {"device profile", cost::writeDeviceProfile(*cost::findBundledDevice("v100")),
         [](const std::string& t) { (void)cost::parseDeviceProfile(t, "d.json"); }},
    };
}

// `text` with its "version" value replaced by `token` (raw JSON), or removed when empty.
std::string withVersion(const std::string& text, const std::string& token) {
    static const std::regex version(R"re("version":\s*1,\s*)re");
    if (!std::regex_search(text, version))
        throw std::logic_error("no \"version\": 1 in the written text");
    return std::regex_replace(text, version, token.empty() ? "" : "\"version\": " + token + ", ",
                              std::regex_constants::format_first_only);
}

std::string errorOf(const Format& f, const std::string& text) {
    try {
        f.read(text);
    } catch (const UserError& e) {
        return e.what();
    }
    return {};
}

} // namespace

class TestFormatVersions : public QObject {
    Q_OBJECT

private slots:
    void integerVersionOnly_data() {
        QTest::addColumn<QString>("token");
        QTest::addColumn<QString>("got");
        QTest::newRow("1.0") << "1.0"
                             << "got 1.0)";
        QTest::newRow("1e0") << "1e0"
                             << "got 1.0)";
        QTest::newRow("1.5") << "1.5"
                             << "got 1.5)";
        QTest::newRow("string") << "\"1\""
                                << "got a string)";
        QTest::newRow("true") << "true"
                              << "got a boolean)";
        QTest::newRow("null") << "null"
                              << "got a null)";
        QTest::newRow("2") << "2"
                           << "got 2)";
        QTest::newRow("0") << "0"
                           << "got 0)";
        QTest::newRow("-1") << "-1"
                            << "got -1)";
        QTest::newRow("2^32+1") << "4294967297"
                                << "got 4294967297)";
        QTest::newRow("missing") << ""
                                 << "got none)";
    }
    void integerVersionOnly() {
        QFETCH(QString, token);
        QFETCH(QString, got);
        for (const Format& f : formats()) {
            QVERIFY2(errorOf(f, f.written).empty(), f.name); // as written: read back
            const std::string e = errorOf(f, withVersion(f.written, token.toStdString()));
            const std::string expected = std::string("\"version\" must be the integer 1 (the ") +
                                         f.name + " version this build reads; " + got.toStdString();
            QVERIFY2(e.find(expected) != std::string::npos,
                     qPrintable(QString::fromStdString(std::string(f.name) + ": " + e)));
        }
    }
};

QTEST_GUILESS_MAIN(TestFormatVersions)
#include "tst_format_versions.moc"
