// SPDX-License-Identifier: Apache-2.0
// Generated random DAGs (sample_models/random_dag.h, `random_dag:N[:SEED]`): N operators in one
// block, acyclic, the same graph for the same name, a narrow width at every size, and
// malformed names refused with the pattern.
#include "bundled_models.h"
#include "ir/block_dag.h"
#include "ir/dag_width.h"
#include "random_dag.h"
#include "user_error_text.h"

#include <QTest>
#include <vector>

using namespace ios;

namespace {

// Kahn's algorithm over the block's operator DAG: true when every operator can be ordered.
bool acyclic(const ir::BlockDag& dag) {
    std::vector<int> indegree(dag.ops.size(), 0);
    for (const std::vector<int>& succs : dag.succs)
        for (int v : succs)
            ++indegree[static_cast<size_t>(v)];
    std::vector<int> ready;
    for (size_t v = 0; v < indegree.size(); ++v)
        if (indegree[v] == 0)
            ready.push_back(static_cast<int>(v));
    size_t ordered = 0;
    while (!ready.empty()) {
        const int u = ready.back();
        ready.pop_back();
        ++ordered;
        for (int v : dag.succs[static_cast<size_t>(u)])
            if (--indegree[static_cast<size_t>(v)] == 0)
                ready.push_back(v);
    }
    return ordered == dag.ops.size();
}

} // namespace

class TestRandomDag : public QObject {
    Q_OBJECT

private slots:
    void sizeAndAcyclicity_data() {
        QTest::addColumn<int>("operators");
        for (int n : {2, 3, 100, 300, 1000, 3000})
            QTest::newRow(qPrintable(QString::number(n))) << n;
    }
    void sizeAndAcyclicity() {
        QFETCH(int, operators);
        const ir::Graph g = samples::randomDag(operators);
        QCOMPARE(g.operatorCount(), static_cast<size_t>(operators));
        QCOMPARE(g.blocks.size(), size_t{1});
        const std::vector<ir::BlockDag> dags = ir::buildDags(g);
        QCOMPARE(dags.size(), size_t{1});
        QCOMPARE(dags.front().ops.size(), static_cast<size_t>(operators));
        QVERIFY(acyclic(dags.front()));
        if (operators <= static_cast<int>(ir::kMaxAntichainVertices))
            QVERIFY2(ir::dagWidth(dags.front()) <= 16, // 12 at 3 000 operators
                     qPrintable(QString::number(ir::dagWidth(dags.front()))));
    }

    void sameNameSameGraph() {
        const ir::Graph a = samples::loadModel("random_dag:300");
        QCOMPARE(QString::fromStdString(a.name), QStringLiteral("random_dag_300_seed1"));
        QVERIFY(a == samples::randomDag(300, 1));
        QVERIFY(a == samples::loadModel("random_dag:300:1"));
        QVERIFY(a == samples::loadModel("random_dag:300"));
        const ir::Graph b = samples::loadModel("random_dag:300:7");
        QCOMPARE(b.operatorCount(), size_t{300});
        QVERIFY(!(a == b));
        QVERIFY(!samples::generatedModel("randwire_large").has_value());
    }

    void malformedNamesRefused_data() {
        QTest::addColumn<QString>("name");
        QTest::addColumn<QString>("says");
        const QString pattern = QStringLiteral("random_dag:N[:SEED]");
        QTest::newRow("no count") << "random_dag:" << pattern;
        QTest::newRow("not a number") << "random_dag:many" << pattern;
        QTest::newRow("negative seed") << "random_dag:100:-1" << pattern;
        QTest::newRow("two seeds") << "random_dag:100:1:2" << pattern;
        QTest::newRow("seed too large") << "random_dag:100:4294967296" << pattern;
        QTest::newRow("one operator") << "random_dag:1" << QStringLiteral("2 to 100000");
        QTest::newRow("too many") << "random_dag:100001" << QStringLiteral("2 to 100000");
        QTest::newRow("unknown name") << "random_graph:100" << pattern; // listed as generated
    }
    void malformedNamesRefused() {
        QFETCH(QString, name);
        QFETCH(QString, says);
        const QString error = testing::userErrorOf([&] { samples::loadModel(name.toStdString()); });
        QVERIFY2(error.contains(says), qPrintable(error));
    }
};

QTEST_GUILESS_MAIN(TestRandomDag)
#include "tst_random_dag.moc"
