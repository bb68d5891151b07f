// SPDX-License-Identifier: Apache-2.0
// Names read from files never reach the terminal raw (issue 37 item 13): every command's stdout
// passes through util::escapeControl (app/cli/terminal_text.h), the escaping of the error
// messages, and its JSON output escapes every control character (util::dumpJson). Files hold
// ESC, BEL, DEL, an OSC sequence and a C1 control in a stream program's policy and synthetic
// launch name (streams --load), a device profile's name, a measurement cache's device, a
// trace's strategy and device (warps), and a model's and its nodes' names (info, optimize).
// No byte below 0x20 but a line break or a tab, no DEL and no C1 character is printed, on
// stdout or stderr, while the escaped names are.
#include "cli_run.h"
#include "terminal_text.h"
#include "util/json_text.h"

#include <QFile>
#include <QTemporaryDir>
#include <QTest>
#include <sstream>

using namespace ios;
using testing::runCli;

namespace {

// The hostile name as JSON text (inside quotes) and as util::escapeControl prints it.
const std::string kJsonName = "x\\u001b]0;pwned\\u0007\\u001b[31mred\\u007f\\u009b";
const std::string kShown = "x\\x1B]0;pwned\\x07\\x1B[31mred\\x7F\\u009B";
const std::string kRaw = "x\x1b]0;pwned\x07\x1b[31mred\x7f\xc2\x9b";

// The first raw control character of `text` (C0 but \n and \t, DEL, C1), or an empty string.
std::string rawControl(const std::string& text) {
    for (size_t i = 0; i < text.size(); ++i) {
        const auto b = static_cast<unsigned char>(text[i]);
        const auto next = i + 1 < text.size() ? static_cast<unsigned char>(text[i + 1]) : 0u;
        if ((b < 0x20 && b != '\n' && b != '\t') || b == 0x7F ||
            (b == 0xC2 && next >= 0x80 && next <= 0x9F))
            return "byte " + std::to_string(b) + " at " + std::to_string(i) +
                   " in: " + text.substr(i > 40 ? i - 40 : 0, 80);
    }
    return {};
}

std::string readText(const std::string& path) {
    QFile f(QString::fromStdString(path));
    if (!f.open(QIODevice::ReadOnly))
        throw std::runtime_error("cannot read " + path);
    return f.readAll().toStdString();
}

void writeText(const std::string& path, const std::string& text) {
    QFile f(QString::fromStdString(path));
    if (!f.open(QIODevice::WriteOnly) ||
        f.write(text.data(), static_cast<qint64>(text.size())) != static_cast<qint64>(text.size()))
        throw std::runtime_error("cannot write " + path);
}

std::string replaceAll(std::string text, const std::string& from, const std::string& to) {
    for (size_t at = text.find(from); at != std::string::npos; at = text.find(from, at + to.size()))
        text.replace(at, from.size(), to);
    return text;
}

// A command's stdout and stderr hold no raw control character; `shown` (escaped) appears.
void checkRun(const std::vector<std::string>& args, bool shown = true) {
    const testing::CliRun r = runCli(args);
    const std::string what = args.front() + " " + args[1];
    QVERIFY2(r.code == 0, (what + ": " + r.err).c_str());
    QVERIFY2(rawControl(r.out).empty(), (what + ": stdout " + rawControl(r.out)).c_str());
    QVERIFY2(rawControl(r.err).empty(), (what + ": stderr " + rawControl(r.err)).c_str());
    if (shown)
        QVERIFY2(r.out.find(kShown) != std::string::npos ||
                     r.out.find(kJsonName) != std::string::npos,
                 (what + ": the name is not shown: " + r.out.substr(0, 400)).c_str());
}

} // namespace

class TestCliEscaping : public QObject {
    Q_OBJECT

private slots:
    // The filter itself: lines and tabs kept, everything else escaped, a UTF-8 character cut by
    // a flush kept whole.
    void filterKeepsLinesAndTabs() {
        std::ostringstream sink;
        {
            cli::EscapingStreambuf filter(sink.rdbuf());
            std::ostream out(&filter);
            out << "a\tb\n" << kRaw << "\nend \xc3" << std::flush << "\xa9\r\n";
        }
        QCOMPARE(sink.str(), "a\tb\n" + kShown + "\nend \xc3\xa9\\x0D\n");
    }

    void streamsLoad() {
        QTemporaryDir dir;
        const std::string file = dir.filePath(QStringLiteral("p.json")).toStdString();
        QCOMPARE(runCli({"streams", "squeezenet", "--policy", "raf-asap", "-o", file}).code, 0);
        util::Json doc = util::parseJsonText(readText(file), file);
        doc["policy"] = kRaw;
        util::Json& program = doc["blocks"][0]["program"];
        const util::Json launch = {{"op", "launch"},
                                   {"node", kRaw},
                                   {"stream", program[0]["stream"]},
                                   {"synthetic", true}};
        program.insert(program.begin(), launch);
        const std::string text = doc.dump();
        writeText(file, text);
        checkRun({"streams", "squeezenet", "--load", file});
        checkRun({"streams", "squeezenet", "--load", file, "--json"});
    }

    void deviceProfileName() {
        QTemporaryDir dir;
        const std::string file = dir.filePath(QStringLiteral("d.json")).toStdString();
        const std::string v100 = readText(IOS_SOURCE_DIR "/resources/devices/v100.json");
        const std::string text =
            replaceAll(v100, "\"name\": \"V100\"", "\"name\": \"" + kJsonName + "\"");
        QVERIFY(text != v100);
        writeText(file, text);
        checkRun({"optimize", "squeezenet", "--device", file, "--strategy", "sequential"});
        checkRun({"streams", "squeezenet", "--device", file});
    }

    void cacheDevice() {
        QTemporaryDir dir;
        const std::string file = dir.filePath(QStringLiteral("c.json")).toStdString();
        const std::string device = "NVIDIA H100 80GB HBM3";
        std::string squeezenet;
        std::istringstream lines(
            readText(IOS_SOURCE_DIR "/sample_models/measured/h100_measured_cache.json"));
        for (std::string line; std::getline(lines, line);)
            if (line.find("\"squeezenet\"") != std::string::npos)
                squeezenet += (squeezenet.empty() ? "" : ",\n") +
                              replaceAll(line.substr(0, line.rfind('}') + 1), device, kJsonName);
        writeText(file,
                  "{\"format\": \"ios-explorer-measurements\", \"version\": 1, \"entries\": [\n" +
                      squeezenet + "]}\n");
        checkRun({"fidelity", "squeezenet", "--cost-model", "cache:" + file});
        checkRun({"optimize", "squeezenet", "--cost-model", "cache:" + file, "--strategy",
                  "sequential"});
    }

    void traceStrategy() {
        QTemporaryDir dir;
        const std::string file = dir.filePath(QStringLiteral("t.json")).toStdString();
        std::string text =
            readText(IOS_SOURCE_DIR "/sample_models/measured/h100_trace_inception_v3-greedy.json");
        text = replaceAll(text, "\"strategy\": \"greedy\"", "\"strategy\": \"" + kJsonName + "\"");
        text = replaceAll(text, "\"model\": \"inception_v3\"", "\"model\": \"" + kJsonName + "\"");
        writeText(file, text);
        checkRun({"warps", file, "-o", dir.filePath(QStringLiteral("w.svg")).toStdString()});
    }

    void modelAndNodeNames() {
        QTemporaryDir dir;
        const std::string file = dir.filePath(QStringLiteral("m.json")).toStdString();
        util::Json input = {{"type", "placeholder"},
                            {"name", "in"},
                            {"hint_name", "in"},
                            {"output_shape", {4, 4, 4}}};
        util::Json nodes = util::Json::array(), terms = util::Json::array();
        for (int i = 0; i < 3; ++i) {
            const std::string name = kRaw + std::to_string(i);
            nodes.push_back({{"type", "relu"},
                             {"name", name},
                             {"hint_name", name},
                             {"inputs", {{{"in", 0, 4}}}},
                             {"output_shape", {4, 4, 4}}});
            terms.push_back({{name, 0, 4}});
        }
        util::Json exit = {{"type", "identity"},
                           {"name", "out"},
                           {"hint_name", "out"},
                           {"inputs", terms},
                           {"output_shape", {12, 4, 4}}};
        util::Json block = {
            {"enter_name", "in"}, {"enter_node", input},           {"inner_nodes", nodes},
            {"exit_node", exit},  {"stages", util::Json::array()}, {"parts", util::Json::array()}};
        util::Json model = {
            {"name", kRaw}, {"input", input}, {"blocks", util::Json::array({block})}};
        writeText(file,
                  util::Json{{"format", "ios-explorer"}, {"version", 1}, {"model", model}}.dump());
        checkRun({"info", file});
        checkRun({"info", file, "--json"});
        checkRun({"optimize", file});
        checkRun({"optimize", file, "--json"});
        checkRun({"memory", file});
    }
};

QTEST_GUILESS_MAIN(TestCliEscaping)
#include "tst_cli_escaping.moc"
