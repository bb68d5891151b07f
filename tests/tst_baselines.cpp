// SPDX-License-Identifier: Apache-2.0
// Sequential and greedy baselines (docs/algorithms.md §4 "Baselines").
#include "bundled_models.h"
#include "schedule/verify.h"
#include "schedule_test_graph.h"
#include "schedulers/baselines.h"

#include <QTest>

using namespace ios;

class TestBaselines : public QObject {
    Q_OBJECT

private slots:
    void handBuilt() {
        const ir::Graph g = testing::fourOpGraph();
        const auto dag = ir::buildBlockDag(g.blocks[0]);
        const schedule::BlockSchedule seq = schedulers::sequential(dag);
        QCOMPARE(seq.stages.size(), size_t{4});
        for (int i = 0; i < 4; ++i)
            QVERIFY(seq.stages[i].groups == (std::vector<schedule::Group>{{i}}));
        const schedule::BlockSchedule gr = schedulers::greedy(dag);
        QCOMPARE(gr.stages.size(), size_t{2});
        QVERIFY(gr.stages[0].groups == (std::vector<schedule::Group>{{0}, {1}, {2}}));
        QVERIFY(gr.stages[1].groups == (std::vector<schedule::Group>{{3}}));
    }

    // Greedy has one stage per level: as many as the longest path has operators.
    void models_data() {
        QTest::addColumn<QString>("model");
        for (const char* m : {"inception_v3", "squeezenet", "nasnet_large", "randwire_large"})
            QTest::newRow(m) << m;
    }
    void models() {
        QFETCH(QString, model);
        const ir::Graph g = samples::loadBundledModel(model.toStdString());
        const auto dags = ir::buildDags(g);
        const auto seq = schedulers::sequential(dags);
        const auto gr = schedulers::greedy(dags);
        schedule::verify(dags, seq);
        schedule::verify(dags, gr);
        for (size_t b = 0; b < dags.size(); ++b) {
            const auto& d = dags[b];
            std::vector<int> depth(d.ops.size(), 1);
            int longest = 0;
            for (size_t i = 0; i < d.ops.size(); ++i) { // file order is topological here
                for (int p : d.preds[i])
                    depth[i] = std::max(depth[i], depth[p] + 1);
                longest = std::max(longest, depth[i]);
            }
            QCOMPARE(gr.blocks[b].stages.size(), size_t(longest));
            QCOMPARE(seq.blocks[b].stages.size(), d.ops.size());
        }
    }
};

QTEST_GUILESS_MAIN(TestBaselines)
#include "tst_baselines.moc"
