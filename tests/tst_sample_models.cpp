// SPDX-License-Identifier: Apache-2.0
// The bundled models (sample_models/): they load and validate by name, the four benchmark
// networks have the reference's structure, and each equals the reference file it copies.
#include "bundled_models.h"
#include "io/ios_json.h"
#include "io/onnx_import.h"
#include "ir/block_dag.h"
#include "ir/model_summary.h"
#include "ir/validate.h"
#include "reference_models.h"
#include "util/error.h"
#include "util/file_util.h"

#include <QtTest>
#include <filesystem>

using namespace ios;

class TestSampleModels : public QObject {
    Q_OBJECT

private slots:
    void allBundledModelsLoad();
    void benchmarkStructure_data();
    void benchmarkStructure();
    void demoGraphs_data();
    void demoGraphs();
    void sameAsReference_data();
    void sameAsReference();
    void unknownNameListsBundledModels();
};

void TestSampleModels::allBundledModelsLoad() {
    QCOMPARE(samples::bundledModels().size(), size_t{12});
    int benchmarks = 0;
    for (const samples::BundledModel& m : samples::bundledModels()) {
        const QByteArray name(m.name.data(), static_cast<qsizetype>(m.name.size()));
        QVERIFY2(samples::isBundledModel(m.name), name.constData());
        QVERIFY2(!m.description.empty(), name.constData());
        if ((m.name == "convnext_tiny" || m.name == "vit_b_16" || m.name == "swin_t") &&
            !io::onnxSupportAvailable())
            continue; // an embedded ONNX export
        ir::Graph g = samples::loadBundledModel(m.name);
        QCOMPARE(QByteArray::fromStdString(g.name), name);
        ir::Graph again = g;
        ir::validateAndInferShapes(again); // idempotent on an already validated graph
        QVERIFY(again == g);
        QVERIFY(samples::loadModel(std::string(m.name)) == g); // the CLI/GUI entry point
        benchmarks += m.benchmark ? 1 : 0;
    }
    QCOMPARE(benchmarks, 4);
}

void TestSampleModels::benchmarkStructure_data() {
    QTest::addColumn<QString>("name");
    QTest::addColumn<int>("blocks");
    QTest::addColumn<int>("operators");
    QTest::addColumn<int>("parts");
    QTest::addColumn<int>("widestPart");
    QTest::addColumn<int>("dagWidth");
    QTest::addColumn<QList<int>>("inputShape");

    // Counted from the reference files (inner nodes + exit node per block); widths checked
    // with an independent script. The Table-1 part widths of docs/algorithms.md §3 (6, 3, 8) are
    // the block widths of inception_v3, squeezenet and randwire_large.
    QTest::newRow("inception_v3") << "inception_v3" << 13 << 119 << 13 << 12 << 6
                                  << QList<int>{3, 299, 299};
    QTest::newRow("squeezenet") << "squeezenet" << 12 << 50 << 12 << 6 << 3
                                << QList<int>{3, 224, 224};
    QTest::newRow("nasnet_large") << "nasnet_large" << 1 << 374 << 25 << 21 << 15
                                  << QList<int>{3, 331, 331};
    QTest::newRow("randwire_large")
        << "randwire_large" << 6 << 120 << 6 << 33 << 8 << QList<int>{3, 224, 224};
}

void TestSampleModels::benchmarkStructure() {
    QFETCH(QString, name);
    QFETCH(int, blocks);
    QFETCH(int, operators);
    QFETCH(int, parts);
    QFETCH(int, widestPart);
    QFETCH(int, dagWidth);
    QFETCH(QList<int>, inputShape);

    const ir::Graph g = samples::loadBundledModel(name.toStdString());
    QCOMPARE(static_cast<int>(g.blocks.size()), blocks);
    QCOMPARE(static_cast<int>(g.operatorCount()), operators);
    QCOMPARE(g.input.outputShape, (ir::TensorShape{inputShape[0], inputShape[1], inputShape[2]}));

    const ir::ModelSummary s = ir::summarize(g);
    QCOMPARE(s.operators, operators);
    QCOMPARE(s.parts, parts);
    QCOMPARE(s.widestPart, widestPart);
    QCOMPARE(s.dagWidth, std::optional<int>(dagWidth));
    // docs/algorithms.md §1: with the bundled models, max part size 50 gives the same parts.
    QCOMPARE(ir::summarize(g, 50).parts, parts);
}

void TestSampleModels::demoGraphs_data() {
    QTest::addColumn<QString>("name");
    QTest::addColumn<int>("operators");
    QTest::addColumn<int>("dagWidth");

    // Figure 2 of the IOS paper: a → b, and c, d beside them, concatenated: width 3.
    QTest::newRow("demo_figure2") << "demo_figure2" << 5 << 3;
    // Inception-A: four branches (1x1 | 1x1→5x5 | 1x1→3x3→3x3 | pool→1x1) and the concat.
    QTest::newRow("demo_inception_module") << "demo_inception_module" << 9 << 4;
    QTest::newRow("demo_random_dag") << "demo_random_dag" << 11 << 4;
    // The NAS cells for Serenity's identity rewriting (tools/make_nas_cells.py).
    QTest::newRow("darts_v2_cells") << "darts_v2_cells" << 51 << 7;
    QTest::newRow("swiftnet_cell") << "swiftnet_cell" << 33 << 2;
}

void TestSampleModels::demoGraphs() {
    QFETCH(QString, name);
    QFETCH(int, operators);
    QFETCH(int, dagWidth);
    const ir::Graph g = samples::loadBundledModel(name.toStdString());
    QCOMPARE(g.blocks.size(), size_t{1});
    const ir::ModelSummary s = ir::summarize(g);
    QCOMPARE(s.operators, operators);
    QCOMPARE(s.dagWidth, std::optional<int>(dagWidth));
    QVERIFY(s.totals.flops > 0);
}

void TestSampleModels::sameAsReference_data() {
    QTest::addColumn<QString>("name");
    for (const char* name : {"inception_v3", "squeezenet", "nasnet_large", "randwire_large"})
        QTest::newRow(name) << name;
}

void TestSampleModels::sameAsReference() {
    QFETCH(QString, name);
    const QString referenceDir = ios::testing::referenceModelsDir();
    if (referenceDir.isEmpty())
        QSKIP("no reference models folder (set IOS_REFERENCE_MODELS_DIR to compare with it)");
    const std::filesystem::path dir = referenceDir.toStdString();
    const std::filesystem::path file = dir / (name.toStdString() + ".ios.json");
    if (!std::filesystem::exists(file))
        QSKIP(qPrintable("no reference model " + QString::fromStdString(file.string())));

    ir::Graph reference = io::parseIosJson(util::readTextFile(file), file.string());
    const std::filesystem::path parts = dir / (name.toStdString() + ".parts.json");
    if (std::filesystem::exists(parts))
        io::applyPartsJson(reference, util::readTextFile(parts), parts.string());
    const ir::Graph bundled = samples::loadBundledModel(name.toStdString());
    QCOMPARE(bundled.blocks.size(), reference.blocks.size());
    for (size_t b = 0; b < bundled.blocks.size(); ++b)
        QVERIFY2(bundled.blocks[b] == reference.blocks[b], qPrintable(QString::number(b)));
    QVERIFY(bundled == reference);
    QCOMPARE(samples::bundledModelText(name.toStdString()),
             std::string_view(util::readTextFile(file)));
}

void TestSampleModels::unknownNameListsBundledModels() {
    try {
        samples::loadModel("no_such_model_or_file");
        QFAIL("an unknown name was accepted");
    } catch (const UserError& e) {
        QCOMPARE(e.file(), std::string("no_such_model_or_file"));
        for (const samples::BundledModel& m : samples::bundledModels())
            QVERIFY2(e.message().find(std::string(m.name)) != std::string::npos, e.what());
    }
    QVERIFY_THROWS_EXCEPTION(UserError, samples::loadBundledModel("inception"));
}

QTEST_GUILESS_MAIN(TestSampleModels)
#include "tst_sample_models.moc"
