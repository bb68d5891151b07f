// SPDX-License-Identifier: Apache-2.0
// DOT export: golden file for the IOS paper's Figure 2 graph, clusters, edges, stage colours
// and quoting of hostile names.
#include "bundled_models.h"
#include "io/dot_export.h"
#include "util/file_util.h"

#include <QProcess>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>

using namespace ios;

namespace {

int count(const std::string& text, const std::string& what) {
    int n = 0;
    for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1))
        ++n;
    return n;
}

} // namespace

class TestDotExport : public QObject {
    Q_OBJECT

private slots:
    void golden() {
        const std::string dot = io::writeDot(samples::loadBundledModel("demo_figure2"));
        const std::string golden = util::readTextFile(IOS_TEST_DATA_DIR "/demo_figure2.dot");
        QCOMPARE(QString::fromStdString(dot), QString::fromStdString(golden));
    }

    void clustersAndEdges_data() {
        QTest::addColumn<QString>("model");
        QTest::addColumn<int>("blocks");
        QTest::addColumn<int>("edges");
        // Figure 2: a reads the input, b reads a, c and d read the input, the concat reads b, c, d.
        QTest::newRow("demo_figure2") << "demo_figure2" << 1 << 7;
        QTest::newRow("inception_v3") << "inception_v3" << 13 << -1;
        QTest::newRow("nasnet_large") << "nasnet_large" << 1 << -1;
    }
    void clustersAndEdges() {
        QFETCH(QString, model);
        QFETCH(int, blocks);
        QFETCH(int, edges);
        const ir::Graph g = samples::loadBundledModel(model.toStdString());
        const std::string dot = io::writeDot(g);
        QCOMPARE(count(dot, "subgraph \"cluster_"), blocks);
        QCOMPARE(count(dot, " [label=\""), int(g.operatorCount()) + 1);
        if (edges >= 0)
            QCOMPARE(count(dot, " -> "), edges);
        QVERIFY(dot.find("fillcolor=1") == std::string::npos);
    }

    void stageColours() {
        const ir::Graph g = samples::loadBundledModel("demo_figure2");
        io::DotOptions options;
        options.stageOfOperator = {{0, 1, 1, -1, 13}}; // a; b and c together; d none; concat
        const std::string dot = io::writeDot(g, options);
        QVERIFY(dot.find("\"1\" [label=\"1 (a)\\nconv 1x1 relu\\n192x15x15\\nstage 0\", "
                         "fillcolor=1];") != std::string::npos);
        QCOMPARE(count(dot, "\\nstage 1\", fillcolor=2]"), 2);
        QVERIFY(dot.find("\"4\" [label=\"4 (d)\\nconv 1x1 relu\\n192x15x15\"];") !=
                std::string::npos);
        QVERIFY(dot.find("stage 13\", fillcolor=2]") != std::string::npos); // 12 colours cycle
    }

    void quoting() {
        ir::Graph g = samples::loadBundledModel("demo_figure2");
        g.name = "fig \"2\"";
        g.blocks[0].innerNodes[0].hintName = "a\\b\"c\nd";
        const std::string dot = io::writeDot(g);
        QVERIFY(dot.starts_with("digraph \"fig \\\"2\\\"\" {\n"));
        QVERIFY2(dot.find("\"1\" [label=\"1 (a\\\\b\\\"c d)\\nconv") != std::string::npos,
                 dot.c_str());
    }

    // When Graphviz is installed, it must accept the output.
    void graphvizAccepts() {
        const QString dotTool = QStandardPaths::findExecutable(QStringLiteral("dot"));
        if (dotTool.isEmpty())
            QSKIP("Graphviz 'dot' is not installed; syntax not checked by Graphviz");
        ir::Graph g = samples::loadBundledModel("inception_v3");
        g.blocks[0].innerNodes[0].hintName = "q\"uo\\te";
        QProcess p;
        p.start(dotTool, {QStringLiteral("-Tplain")});
        QVERIFY(p.waitForStarted());
        p.write(QByteArray::fromStdString(io::writeDot(g)));
        p.closeWriteChannel();
        QVERIFY(p.waitForFinished(60000));
        QCOMPARE(p.exitCode(), 0);
        QVERIFY(p.readAllStandardOutput().startsWith("graph "));
    }
};

QTEST_GUILESS_MAIN(TestDotExport)
#include "tst_dot_export.moc"
