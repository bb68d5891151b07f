// SPDX-License-Identifier: Apache-2.0
// Typed hints on errors (util/error.h): every hint comes from a real bad input, the CLI words it
// with its flag (app/cli/error_hints.cpp), and no engine message names a front end's option:
// the engine's string literals hold no "--" followed by a letter.
#include "bundled_models.h"
#include "chain_model_json.h"
#include "cli_run.h"
#include "cost/cost_model_factory.h"
#include "cost/measurement_cache.h"
#include "cost/stage_signature.h"
#include "error_hints.h"
#include "io/model_file.h"
#include "io/model_options.h"
#include "ir/memory.h"
#include "ir/metrics.h"
#include "schedulers/scheduler.h"
#include "store/measurement_store.h"
#include "util/error.h"

#include <QDirIterator>
#include <QFile>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QTest>
#include <fstream>
#include <functional>

using namespace ios;

namespace {

// The hint of the UserError `f` throws (a failure when it throws none).
Hint hintOf(const std::function<void()>& f) {
    try {
        f();
    } catch (const UserError& e) {
        return e.hint();
    }
    return Hint::None;
}

// The line without its comment: the text before a "//" outside string and character literals.
QString codeOf(const QString& line) {
    bool inString = false;
    for (qsizetype i = 0; i < line.size(); ++i) {
        const QChar c = line[i];
        if (inString && c == QLatin1Char('\\')) {
            ++i;
        } else if (!inString && c == QLatin1Char('\'')) { // '"', '\'' or a digit separator
            const qsizetype close = line.indexOf(
                QLatin1Char('\''), i + (line.mid(i + 1, 1) == QLatin1String("\\") ? 3 : 2));
            if (close < 0)
                return line;
            i = close;
        } else if (c == QLatin1Char('"')) {
            inString = !inString;
        } else if (!inString && line.mid(i, 2) == QLatin1String("//")) {
            return line.left(i);
        }
    }
    return line;
}

} // namespace

class TestCliErrorHints : public QObject {
    Q_OBJECT

    QTemporaryDir dir_;

    std::string write(const QString& name, const std::string& bytes) {
        const std::string path = dir_.filePath(name).toStdString();
        std::ofstream(path, std::ios::binary) << bytes;
        return path;
    }

    Hint searchHint(const std::string& json, int maxPartSize, int64_t budget = 0) {
        const ir::Graph g = io::loadModelFile(write(QStringLiteral("m.json"), json));
        const ir::PreparedModel model(g, maxPartSize);
        const auto cost = cost::makeCostModel(cost::CostModelSpec{}, g);
        schedulers::Params params;
        params.memoryBudget = budget;
        return hintOf(
            [&] { schedulers::schedulerByName("ios-both").run(model, params, *cost, nullptr); });
    }

private slots:
    void allowOpaque() {
#ifndef IOS_HAVE_ONNX
        QSKIP("built without ONNX import");
#endif
        // squeezenet1_1.onnx with its first Relu renamed to an operator nobody knows.
        QFile in(QStringLiteral(IOS_SOURCE_DIR "/sample_models/onnx/squeezenet1_1.onnx"));
        QVERIFY(in.open(QIODevice::ReadOnly));
        QByteArray bytes = in.readAll();
        const QByteArray relu("\x22\x04Relu", 6);
        QVERIFY(bytes.indexOf(relu) >= 0);
        bytes.replace(bytes.indexOf(relu), relu.size(), QByteArray("\x22\x04Relz", 6));
        const std::string path = write(QStringLiteral("custom.onnx"), bytes.toStdString());
        QVERIFY(hintOf([&] { io::loadModelFile(path); }) == Hint::AllowOpaque);
        const testing::CliRun r = testing::runCli({"info", path});
        QCOMPARE(r.code, 1);
        QVERIFY2(r.err.find("pass --allow-opaque") != std::string::npos, r.err.c_str());
        // One hint, the CLI's own: the engine's text names no remedy of its own.
        QVERIFY2(r.err.find("import them") == r.err.rfind("import them"), r.err.c_str());
    }

    void inputShape() {
        QVERIFY(hintOf([] { io::parseInputShape("1"); }) == Hint::InputShape);
    }

    void partSizes() {
        QVERIFY(searchHint(testing::chainModelJson(130, false), 130) == Hint::LowerPartSize);
        QVERIFY(searchHint(testing::chainModelJson(130, true), 100) == Hint::ExplicitParts);
    }

    void budget() {
        QVERIFY(searchHint(testing::chainModelJson(4, false), 100, 1) == Hint::RaiseBudget);
    }

    void batch() {
        const ir::Graph g = io::loadModelFile(
            write(QStringLiteral("big.json"), testing::chainModelJson(40, false, 16384, 128)));
        const std::vector<ir::BlockDag> dags = ir::buildDags(g);
        ir::MemoryOptions m;
        m.batch = 65536;
        // 2^28 elements of 4 bytes at batch 2^16: 2^46 bytes a tensor, over 2^50 together.
        QVERIFY(hintOf([&] { ir::blockMemoryProblem(g, dags[0], 0, m); }) == Hint::LowerBatch);
        m.bytesPerElement = 64; // and over 2^50 alone
        QVERIFY(hintOf([&] { ir::blockMemoryProblem(g, dags[0], 0, m); }) == Hint::LowerBatch);
    }

    void costModels() {
        cost::CostModelSpec spec;
        QVERIFY(hintOf([&] { cost::parseCostModelKind("roofline", spec); }) ==
                Hint::ChooseCostModel);
        QVERIFY(hintOf([&] { cost::parseCostModelKind("cache:", spec); }) == Hint::ChooseCostModel);
        // The committed cache holds H100 measurements of other models.
        const ir::Graph g = samples::loadBundledModel("demo_figure2");
        const std::string h100 = IOS_SOURCE_DIR "/sample_models/measured/h100_measured_cache.json";
        cost::parseCostModelKind("cache:" + h100, spec);
        QVERIFY(hintOf([&] { cost::makeCostModel(spec, g); }) == Hint::MeasureOnGpu);
        // Two devices and none chosen.
        cost::MeasurementCache cache;
        for (const char* device : {"A", "B"})
            cache.add({device, g.name, 1, "x", 1.0, 1, {}});
        QVERIFY(hintOf([&] { cost::CachedCostModel(cache, g.name, 1); }) ==
                Hint::ChooseCacheDevice);
    }

    void storeFallback() {
        // One stage of squeezenet measured; demo_figure2's stages are missing.
        const ir::Graph squeezenet = samples::loadBundledModel("squeezenet");
        const ir::BlockDag dag = ir::buildBlockDag(squeezenet.blocks[0]);
        const ir::NodeIndex nodes(squeezenet);
        const schedule::Stage one{schedule::StageKind::Parallel, {{0}}};
        store::Measurement m;
        m.key.signature = cost::signatureBytes(
            cost::stageSignature(dag, one, [&](const std::string& n) -> const ir::TensorShape* {
                const ir::Node* node = nodes.find(n);
                return node ? &node->outputShape : nullptr;
            }));
        m.key.device.name = "Tesla V100-SXM2-16GB";
        m.key.device.computeCapability = "7.0";
        m.key.device.smCount = 80;
        m.sample.medianMs = 1;
        m.sample.count = 1;
        m.sample.toolVersion = "test";
        const std::string path = dir_.filePath(QStringLiteral("s.db")).toStdString();
        store::openStore(path, store::OpenMode::CreateIfMissing)->add({m});
        const ir::Graph g = samples::loadBundledModel("demo_figure2");
        cost::CostModelSpec spec;
        cost::parseCostModelKind("store:" + path, spec);
        const auto cost = cost::makeCostModel(spec, g);
        const ir::PreparedModel model(g);
        QVERIFY(hintOf([&] {
                    schedulers::schedulerByName("sequential").run(model, {}, *cost, nullptr);
                }) == Hint::StoreFallback);
    }

    // Each hint has the CLI's words, naming a flag.
    void theCliNamesAFlagForEveryHint() {
        for (Hint h :
             {Hint::AllowOpaque, Hint::InputShape, Hint::LowerPartSize, Hint::ExplicitParts,
              Hint::LowerBatch, Hint::ChooseCostModel, Hint::MeasureOnGpu, Hint::ChooseCacheDevice,
              Hint::RaiseBudget, Hint::StoreFallback})
            QVERIFY2(cli::cliHintText(h).find("--") != std::string::npos,
                     cli::cliHintText(h).c_str());
        // The mock device has no flag: its environment variable.
        QVERIFY(cli::cliHintText(Hint::CudaBackend).find("IOS_PROFILING_MOCK=1") !=
                std::string::npos);
        QVERIFY(cli::cliHintText(Hint::None).empty());
    }

    // No engine string literal names an option ("--" then a letter); comments may.
    void noEngineMessageNamesAFlag() {
        const QRegularExpression literal(QStringLiteral("\"(?:[^\"\\\\\n]|\\\\.)*\""));
        const QRegularExpression flag(QStringLiteral("--[A-Za-z]"));
        QDirIterator it(QStringLiteral(IOS_SOURCE_DIR "/engine"),
                        {QStringLiteral("*.h"), QStringLiteral("*.cpp")}, QDir::Files,
                        QDirIterator::Subdirectories);
        QStringList found;
        int files = 0;
        while (it.hasNext()) {
            const QString path = it.next();
            QFile f(path);
            QVERIFY(f.open(QIODevice::ReadOnly));
            ++files;
            int lineNo = 0;
            while (!f.atEnd()) {
                const QString line = codeOf(QString::fromUtf8(f.readLine()));
                ++lineNo;
                for (auto m = literal.globalMatch(line); m.hasNext();) {
                    const QString text = m.next().captured(0);
                    if (flag.match(text).hasMatch())
                        found << QStringLiteral("%1:%2: %3").arg(path).arg(lineNo).arg(text);
                }
            }
        }
        QVERIFY(files > 100);
        QVERIFY2(found.isEmpty(), qPrintable(found.join('\n')));
    }
};

QTEST_GUILESS_MAIN(TestCliErrorHints)
#include "tst_cli_error_hints.moc"
