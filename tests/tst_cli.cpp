// SPDX-License-Identifier: Apache-2.0
// ios-sched driven as a user would (QProcess on the built binary): info --json, convert round
// trips, models, exit codes and one-line errors, and --help on every registered subcommand.
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>

namespace {

struct Run {
    int exitCode = -1;
    QByteArray out;
    QByteArray err;
};

Run runSched(const QStringList& args, const QString& workingDir = {}) {
    QProcess p;
    if (!workingDir.isEmpty())
        p.setWorkingDirectory(workingDir);
    p.start(QStringLiteral(IOS_SCHED_PATH), args);
    Run r;
    if (!p.waitForStarted(-1) || !p.waitForFinished(-1) || p.exitStatus() != QProcess::NormalExit)
        return r; // -1: did not run or crashed
    r.exitCode = p.exitCode();
    r.out = p.readAllStandardOutput();
    r.err = p.readAllStandardError();
    return r;
}

// A JSON document without its "provenance" member (which names the command line and time).
QByteArray withoutProvenance(const QByteArray& json) {
    QJsonObject o = QJsonDocument::fromJson(json).object();
    o.remove(QStringLiteral("provenance"));
    return QJsonDocument(o).toJson();
}

QByteArray readFile(const QString& path) {
    QFile f(path);
    return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
}

bool writeFile(const QString& path, const QByteArray& data) {
    QFile f(path);
    return f.open(QIODevice::WriteOnly) && f.write(data) == data.size();
}

QString bundledFile(const QString& name) {
    return QStringLiteral(IOS_SOURCE_DIR "/sample_models/%1.ios.json").arg(name);
}

// An error is exactly one line on stderr, nothing on stdout.
void verifyOneLineError(const Run& r) {
    QCOMPARE(r.exitCode, 1);
    QVERIFY2(r.err.endsWith('\n') && r.err.count('\n') == 1, r.err.constData());
    QVERIFY2(r.out.isEmpty(), r.out.constData());
}

const QStringList kBundled{"inception_v3",    "squeezenet",     "nasnet_large",
                           "randwire_large",  "demo_figure2",   "demo_inception_module",
                           "demo_random_dag", "darts_v2_cells", "swiftnet_cell",
                           "convnext_tiny",   "vit_b_16",       "swin_t"};

} // namespace

class TestCli : public QObject {
    Q_OBJECT

private slots:
    void initTestCase();
    void infoJson_data();
    void infoJson();
    void infoText();
    void infoFromAnotherDirectory();
    void infoMaxPartSize();
    void convertIosJsonIsByteIdentical_data();
    void convertIosJsonIsByteIdentical();
    void convertNativeAndDot();
    void convertVerbose();
    void malformedInput_data();
    void malformedInput();
    void failedConvertKeepsExistingOutput();
    void unknownModelListsNames();
    void usageErrors_data();
    void usageErrors();
    void models();
    void everyCommandHasHelp();
    void saveScheduleAndValidate();
    void dpStateLimit();

private:
    QTemporaryDir tmp_;
};

void TestCli::initTestCase() {
    QVERIFY(tmp_.isValid());
    QVERIFY2(QFileInfo::exists(QStringLiteral(IOS_SCHED_PATH)), IOS_SCHED_PATH);
}

void TestCli::infoJson_data() {
    QTest::addColumn<QString>("model");
    QTest::addColumn<int>("blocks");
    QTest::addColumn<int>("operators");
    QTest::addColumn<int>("parts");
    QTest::addColumn<int>("dagWidth");

    QTest::newRow("inception_v3") << "inception_v3" << 13 << 119 << 13 << 6;
    QTest::newRow("squeezenet") << "squeezenet" << 12 << 50 << 12 << 3;
    QTest::newRow("nasnet_large") << "nasnet_large" << 1 << 374 << 25 << 15;
    QTest::newRow("randwire_large") << "randwire_large" << 6 << 120 << 6 << 8;
}

void TestCli::infoJson() {
    QFETCH(QString, model);
    QFETCH(int, blocks);
    QFETCH(int, operators);
    QFETCH(int, parts);
    QFETCH(int, dagWidth);

    const Run r = runSched({"info", model, "--json"});
    QCOMPARE(r.exitCode, 0);
    QVERIFY(r.err.isEmpty());
    QJsonParseError error;
    const QJsonDocument doc = QJsonDocument::fromJson(r.out, &error);
    QVERIFY2(error.error == QJsonParseError::NoError, qPrintable(error.errorString()));
    const QJsonObject o = doc.object();

    // The keys docs/cli.md documents, in that order.
    const QStringList keys{"name",
                           "input_shape",
                           "output_shape",
                           "blocks",
                           "operators",
                           "parts",
                           "max_part_size",
                           "widest_part",
                           "dag_width",
                           "operators_by_kind",
                           "primitives_by_kind",
                           "flops",
                           "gflops",
                           "parameters",
                           "weight_bytes",
                           "weight_mb",
                           "bytes_read",
                           "bytes_written",
                           "per_block",
                           "provenance"};
    QStringList present = o.keys();
    present.sort();
    QStringList expected = keys;
    expected.sort();
    QCOMPARE(present, expected);

    QCOMPARE(o["name"].toString(), model);
    QCOMPARE(o["blocks"].toInt(), blocks);
    QCOMPARE(o["operators"].toInt(), operators);
    QCOMPARE(o["parts"].toInt(), parts);
    QCOMPARE(o["max_part_size"].toInt(), 100);
    QCOMPARE(o["dag_width"].toInt(), dagWidth);
    QCOMPARE(o["input_shape"].toArray().size(), 3);
    QVERIFY(o["flops"].toDouble() > 1e9);
    QCOMPARE(o["gflops"].toDouble(), o["flops"].toDouble() / 1e9);
    QCOMPARE(o["weight_bytes"].toDouble(), 4 * o["parameters"].toDouble());

    int byKind = 0;
    for (const QJsonValue v : o["operators_by_kind"].toObject())
        byKind += v.toInt();
    QCOMPARE(byKind, operators);

    const QJsonArray perBlock = o["per_block"].toArray();
    QCOMPARE(perBlock.size(), blocks);
    int blockOps = 0;
    int blockParts = 0;
    double blockFlops = 0;
    for (const QJsonValue b : perBlock) {
        blockOps += b["operators"].toInt();
        blockParts += b["parts"].toInt();
        blockFlops += b["flops"].toDouble();
        QVERIFY(b["dag_width"].toInt() <= dagWidth);
    }
    QCOMPARE(blockOps, operators);
    QCOMPARE(blockParts, parts);
    QCOMPARE(blockFlops, o["flops"].toDouble());
}

void TestCli::infoText() {
    const Run r = runSched({"info", "demo_figure2"});
    QCOMPARE(r.exitCode, 0);
    for (const char* line : {"Model         demo_figure2", "Operators     5 (conv 4, identity 1)",
                             "DAG width     3", "GFLOPs"})
        QVERIFY2(r.out.contains(line), r.out.constData());
}

void TestCli::infoFromAnotherDirectory() {
    // A bundled name works wherever the user stands; a relative path is relative to them.
    const Run byName = runSched({"info", "squeezenet", "--json"}, tmp_.path());
    QCOMPARE(byName.exitCode, 0);
    QVERIFY(QFile::copy(bundledFile("squeezenet"), tmp_.filePath("copy.ios.json")));
    const Run byPath = runSched({"info", "copy.ios.json", "--json"}, tmp_.path());
    QCOMPARE(byPath.exitCode, 0);
    QCOMPARE(withoutProvenance(byPath.out), withoutProvenance(byName.out));
}

void TestCli::infoMaxPartSize() {
    const Run r = runSched({"info", "randwire_large", "--json", "--max-part-size", "10"});
    QCOMPARE(r.exitCode, 0);
    const QJsonObject o = QJsonDocument::fromJson(r.out).object();
    QCOMPARE(o["max_part_size"].toInt(), 10);
    QCOMPARE(o["widest_part"].toInt(), 10);
    QCOMPARE(o["parts"].toInt(), 1 + 2 + 4 + 4 + 4 + 1); // blocks of 1, 17, 33, 33, 33, 3 ops
    verifyOneLineError(runSched({"info", "randwire_large", "--max-part-size", "0"}));
    verifyOneLineError(runSched({"info", "randwire_large", "--max-part-size", "x"}));
}

void TestCli::convertIosJsonIsByteIdentical_data() {
    QTest::addColumn<QString>("model");
    for (const QString& m : kBundled)
        if (QFile::exists(bundledFile(m))) // ONNX exports have no IOS JSON text to match
            QTest::newRow(qPrintable(m)) << m;
}

void TestCli::convertIosJsonIsByteIdentical() {
    QFETCH(QString, model);
    const QString out = tmp_.filePath(model + ".ios.json");
    const Run r = runSched({"convert", model, out});
    QCOMPARE(r.exitCode, 0);
    // Silent on success, except the one warning that IOS JSON cannot carry explicit DP parts
    // (the models bundled with a parts file).
    QVERIFY(r.out.isEmpty());
    QVERIFY2(r.err.isEmpty() ||
                 (r.err.count('\n') == 1 && r.err.contains("cannot hold explicit DP parts")),
             qPrintable(r.err));
    const QByteArray original = readFile(bundledFile(model));
    QVERIFY(!original.isEmpty());
    QVERIFY2(readFile(out) == original, "the IOS JSON written differs from the bundled file");
}

void TestCli::convertNativeAndDot() {
    for (const QString& model : {QStringLiteral("inception_v3"), QStringLiteral("nasnet_large")}) {
        const QString native = tmp_.filePath(model + "-native.json");
        QCOMPARE(runSched({"convert", model, native}).exitCode, 0);
        const QJsonObject doc = QJsonDocument::fromJson(readFile(native)).object();
        QCOMPARE(doc["format"].toString(), QStringLiteral("ios-explorer"));

        // native → IOS JSON gives back the bundled bytes, and the native file keeps the parts.
        const QString back = tmp_.filePath(model + "-back.ios.json");
        QCOMPARE(runSched({"convert", native, back}).exitCode, 0);
        QCOMPARE(readFile(back), readFile(bundledFile(model)));
        const Run fromNative = runSched({"info", native, "--json"});
        const Run fromBundled = runSched({"info", model, "--json"});
        QCOMPARE(fromNative.exitCode, 0);
        QCOMPARE(withoutProvenance(fromNative.out), withoutProvenance(fromBundled.out));

        const QString dot = tmp_.filePath(model + ".dot");
        QCOMPARE(runSched({"convert", model, dot}).exitCode, 0);
        QByteArray text = readFile(dot);
        QVERIFY2(text.startsWith("// tool: ios-explorer\n"), text.left(80).constData());
        while (text.startsWith("//")) // the provenance's comment lines
            text = text.mid(text.indexOf('\n') + 1);
        QVERIFY2(text.startsWith("digraph"), text.left(80).constData());
        QVERIFY(text.trimmed().endsWith('}'));
    }
}

void TestCli::convertVerbose() {
    const Run r = runSched({"convert", "--verbose", "demo_figure2", tmp_.filePath("v.dot")});
    QCOMPARE(r.exitCode, 0);
    QVERIFY2(r.out.startsWith("wrote ") && r.out.contains("5 operators"), r.out.constData());
}

namespace {

// demo_figure2 with the inputs of node "1" (a: conv on the input) replaced, or a field set.
QByteArray figure2With(const QString& field, const QJsonValue& value) {
    QJsonObject model = QJsonDocument::fromJson(readFile(bundledFile("demo_figure2"))).object();
    QJsonArray blocks = model["blocks"].toArray();
    QJsonObject block = blocks[0].toObject();
    QJsonArray inner = block["inner_nodes"].toArray();
    for (qsizetype i = 0; i < inner.size(); ++i) {
        QJsonObject node = inner[i].toObject();
        if (node["name"].toString() == QLatin1String("1")) {
            node[field] = value;
            inner[i] = node;
        }
    }
    block["inner_nodes"] = inner;
    blocks[0] = block;
    model["blocks"] = blocks;
    return QJsonDocument(model).toJson();
}

QJsonArray inputsFrom(const char* node, int begin, int end) {
    return QJsonArray{QJsonArray{QJsonArray{node, begin, end}}};
}

} // namespace

void TestCli::malformedInput_data() {
    QTest::addColumn<QByteArray>("content");
    QTest::addColumn<QString>("node"); // named in the message when the fault lies in one

    const QByteArray model = readFile(bundledFile("demo_figure2"));
    QTest::newRow("truncated") << model.left(model.size() / 2) << QString();
    QTest::newRow("empty") << QByteArray() << QString();
    QTest::newRow("not json") << QByteArray("hello") << QString();
    QTest::newRow("wrong type") << QByteArray(R"({"name": 1, "input": [], "blocks": {}})")
                                << QString();
    QTest::newRow("cycle") << figure2With("inputs", inputsFrom("5", 0, 960)) << "1";
    QTest::newRow("unknown input") << figure2With("inputs", inputsFrom("zz", 0, 384)) << "1";
    QTest::newRow("channel range") << figure2With("inputs", inputsFrom("0", 0, 385)) << "1";
    QTest::newRow("zero kernel") << figure2With("kernel", QJsonArray{0, 1}) << "1";
    QTest::newRow("absurd channels") << figure2With("out_channels", 1e15) << "1";
}

void TestCli::malformedInput() {
    QFETCH(QByteArray, content);
    QFETCH(QString, node);
    QTemporaryDir dir;
    const QString bad = dir.filePath("bad.ios.json");
    QVERIFY(writeFile(bad, content));

    for (const QString& target :
         {QStringLiteral("out.ios.json"), QStringLiteral("out.json"), QStringLiteral("out.dot")}) {
        const Run r = runSched({"convert", bad, dir.filePath(target)});
        verifyOneLineError(r);
        QVERIFY2(r.err.contains("bad.ios.json"), r.err.constData());
        if (!node.isEmpty())
            QVERIFY2(r.err.contains("node '" + node.toUtf8() + "'"), r.err.constData());
        QCOMPARE(QDir(dir.path()).entryList(QDir::Files), QStringList{"bad.ios.json"});
    }
    const Run info = runSched({"info", bad});
    verifyOneLineError(info);
    QVERIFY2(info.err.contains("bad.ios.json"), info.err.constData());
}

void TestCli::failedConvertKeepsExistingOutput() {
    const QString bad = tmp_.filePath("broken.ios.json");
    const QString out = tmp_.filePath("existing.ios.json");
    QVERIFY(writeFile(bad, "{\"name\": "));
    QVERIFY(writeFile(out, "keep me"));
    verifyOneLineError(runSched({"convert", bad, out}));
    QCOMPARE(readFile(out), QByteArray("keep me"));
}

void TestCli::unknownModelListsNames() {
    const Run r = runSched({"info", "inception_v4"}, tmp_.path());
    verifyOneLineError(r);
    QVERIFY(r.err.contains("inception_v4"));
    for (const QString& m : kBundled)
        QVERIFY2(r.err.contains(m.toUtf8()), r.err.constData());
}

void TestCli::usageErrors_data() {
    QTest::addColumn<QStringList>("args");
    QTest::addColumn<QByteArray>("fragment");
    QTest::newRow("unknown option") << QStringList{"info", "squeezenet", "--frobnicate"}
                                    << QByteArray("unknown option '--frobnicate'");
    QTest::newRow("missing model") << QStringList{"info"} << QByteArray("missing argument MODEL");
    QTest::newRow("missing OUT") << QStringList{"convert", "squeezenet"}
                                 << QByteArray("missing argument OUT");
    QTest::newRow("extra argument")
        << QStringList{"models", "x"} << QByteArray("unexpected argument 'x'");
    QTest::newRow("unsupported extension")
        << QStringList{"convert", "squeezenet", "out.txt"} << QByteArray("out.txt");
    QTest::newRow("unknown command")
        << QStringList{"frobnicate"} << QByteArray("unknown command 'frobnicate'");
    // Checked before any work (hostile-input probe): nothing is written, nothing is searched.
    QTest::newRow("trace extension") << QStringList{"trace", "squeezenet", "-o", "out.png"}
                                     << QByteArray("out.png: a trace is written as .json");
    QTest::newRow("empty output name") << QStringList{"trace", "squeezenet", "-o", ""}
                                       << QByteArray("the output file name is empty");
    QTest::newRow("output folder missing")
        << QStringList{"trace", "nasnet_large", "-o", "no/such/dir/t.json"}
        << QByteArray("no/such/dir/t.json: cannot write file: No such file or directory");
    QTest::newRow("optimize output folder missing") // not after a long search
        << QStringList{"optimize", "nasnet_large", "-r", "100", "-s", "100", "-o", "no/x.ios.json"}
        << QByteArray("no/x.ios.json: cannot write file: No such file or directory");
    QTest::newRow("specialize --batch") << QStringList{"specialize", "squeezenet", "--batch", "0"}
                                        << QByteArray("--batch must be in [1, 65536], not 0");
    QTest::newRow("cache without file") << QStringList{"optimize", "squeezenet", "--cost", "cache:"}
                                        << QByteArray("cache:FILE needs a FILE");
    QTest::newRow("measure device") // before the GPU is looked for
        << QStringList{"measure", "squeezenet", "--device", "Z80"}
        << QByteArray("unknown device 'Z80'");
}

void TestCli::usageErrors() {
    QFETCH(QStringList, args);
    QFETCH(QByteArray, fragment);
    const Run r = runSched(args, tmp_.path());
    verifyOneLineError(r);
    QVERIFY2(r.err.contains(fragment), r.err.constData());
    QVERIFY(!QFileInfo::exists(tmp_.filePath("out.txt")));
}

void TestCli::models() {
    const Run text = runSched({"models"});
    QCOMPARE(text.exitCode, 0);
    const Run json = runSched({"models", "--json"});
    QCOMPARE(json.exitCode, 0);
    const QJsonArray list = QJsonDocument::fromJson(json.out).array();
    QStringList names;
    int benchmarks = 0;
    for (const QJsonValue m : list) {
        names << m["name"].toString();
        QVERIFY(!m["description"].toString().isEmpty());
        QVERIFY(text.out.contains(m["description"].toString().toUtf8()));
        benchmarks += m["benchmark"].toBool() ? 1 : 0;
    }
    QCOMPARE(names, kBundled);
    QCOMPARE(benchmarks, 4);
}

void TestCli::everyCommandHasHelp() {
    const Run top = runSched({"--help"});
    QCOMPARE(top.exitCode, 0);
    // "Commands:" lists one "  name  summary" line per registered subcommand.
    const QList<QByteArray> lines = top.out.split('\n');
    const qsizetype start = lines.indexOf("Commands:");
    QVERIFY(start >= 0);
    QStringList commands;
    for (qsizetype i = start + 1; i < lines.size() && lines[i].startsWith("  "); ++i)
        commands << QString::fromUtf8(lines[i].trimmed().split(' ').front());
    for (const char* mine : {"info", "convert", "models"})
        QVERIFY2(commands.contains(QLatin1String(mine)), qPrintable(commands.join(' ')));
    for (const QString& c : commands) {
        for (const QString& flag : {QStringLiteral("--help"), QStringLiteral("-h")}) {
            const Run r = runSched({c, flag});
            QVERIFY2(r.exitCode == 0, qPrintable(c + " " + flag + ": " + r.err));
            QVERIFY2(r.out.startsWith("Usage: ios-sched " + c.toUtf8()), qPrintable(c));
        }
    }
    QCOMPARE(runSched({}).exitCode, 1); // no command: usage on stderr
}

void TestCli::saveScheduleAndValidate() {
    // optimize --save-schedule keeps a schedule; validate evaluates it against a measurement.
    QVERIFY(QDir(tmp_.path()).mkpath(QStringLiteral("val/schedules")));
    const QString file = tmp_.filePath(QStringLiteral("val/schedules/squeezenet-greedy.json"));
    const Run opt = runSched({"optimize", "squeezenet", "--strategy", "greedy", "--device", "H100",
                              "--save-schedule", file});
    QVERIFY2(opt.exitCode == 0, opt.err.constData());
    QVERIFY(readFile(file).contains("\"format\": \"ios-explorer-schedule\""));
    const QString results = tmp_.filePath(QStringLiteral("val/results.json"));
    QVERIFY(writeFile(results, R"({"model": "squeezenet", "batch": 1, "results": [
        {"strategy": "greedy", "stages": 38, "latency": {"median_ms": 3.0},
         "cuda_graph_latency": {"median_ms": 0.5}}]})"));
    const Run val = runSched({"validate", results, "--device", "H100", "--json"});
    QVERIFY2(val.exitCode == 0, val.err.constData());
    const QJsonObject j = QJsonDocument::fromJson(val.out).object();
    const QJsonArray rows = j["schedules"].toArray();
    QCOMPARE(rows.size(), 1);
    const double sim = rows[0]["simulated_ms"].toDouble();
    QVERIFY(sim > 0);
    QCOMPARE(rows[0]["measured"].toString(), QStringLiteral("cuda_graph"));
    QCOMPARE(rows[0]["error_pct"].toDouble(), 100 * (sim - 0.5) / 0.5);
    const QJsonArray by = j["by_strategy"].toArray();
    QCOMPARE(by.size(), 1);
    QCOMPARE(by[0]["mape_pct"].toDouble(), std::abs(100 * (sim - 0.5) / 0.5));

    // A measured schedule whose file is missing, or with another stage count: one-line error.
    QVERIFY(writeFile(results, R"({"model": "squeezenet", "results": [
        {"strategy": "sequential", "cuda_graph_latency": {"median_ms": 0.5}}]})"));
    Run bad = runSched({"validate", results});
    verifyOneLineError(bad);
    QVERIFY2(bad.err.contains("squeezenet-sequential.json"), bad.err.constData());
    QVERIFY(writeFile(results, R"({"model": "squeezenet", "results": [
        {"strategy": "greedy", "stages": 7, "cuda_graph_latency": {"median_ms": 0.5}}]})"));
    bad = runSched({"validate", results});
    verifyOneLineError(bad);
    QVERIFY2(bad.err.contains("the measured one 7"), bad.err.constData());
}

void TestCli::dpStateLimit() {
    // 60 independent operators in one part: 2^60 DP states. The count itself used to run
    // forever; now the search refuses at once, naming the file and the part's first operator.
    QJsonObject model = QJsonDocument::fromJson(readFile(bundledFile("demo_figure2"))).object();
    QJsonArray blocks = model["blocks"].toArray();
    QJsonObject block = blocks[0].toObject();
    QJsonArray inner, exitInputs;
    for (int i = 0; i < 60; ++i) {
        const QString name = QStringLiteral("w%1").arg(i);
        inner.append(QJsonObject{{"type", "relu"},
                                 {"name", name},
                                 {"hint_name", name},
                                 {"inputs", inputsFrom("0", 0, 384)},
                                 {"output_shape", QJsonArray{384, 15, 15}}});
        exitInputs.append(QJsonArray{name, 0, 384}); // one term: the sum of all
    }
    block["inner_nodes"] = inner;
    block["exit_node"] = QJsonObject{{"type", "identity"},
                                     {"name", "5"},
                                     {"hint_name", "5"},
                                     {"inputs", QJsonArray{exitInputs}},
                                     {"output_shape", QJsonArray{384, 15, 15}}};
    block["stages"] = QJsonArray{};
    blocks[0] = block;
    model["blocks"] = blocks;
    const QString wide = tmp_.filePath(QStringLiteral("wide.ios.json"));
    QVERIFY(writeFile(wide, QJsonDocument(model).toJson()));

    const Run r = runSched({"optimize", wide, "-o", tmp_.filePath(QStringLiteral("w.ios.json"))});
    verifyOneLineError(r);
    QVERIFY2(r.err.contains("wide.ios.json: node 'w0': the IOS DP would have more than"),
             r.err.constData());
    QVERIFY2(r.err.contains("lower --max-part-size"), r.err.constData());
    QVERIFY(!QFileInfo::exists(tmp_.filePath(QStringLiteral("w.ios.json"))));
    const Run small = runSched({"optimize", wide, "--max-part-size", "10"});
    QVERIFY2(small.exitCode == 0, small.err.constData());
}

QTEST_GUILESS_MAIN(TestCli)
#include "tst_cli.moc"
