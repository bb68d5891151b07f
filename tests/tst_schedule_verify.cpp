// SPDX-License-Identifier: Apache-2.0
// The schedule verifier names each kind of error and the operator; merge export
// (docs/formats.md "Model structure").
#include "schedule/ios_stages.h"
#include "schedule/verify.h"
#include "schedule_test_graph.h"
#include "util/error.h"

#include <QTest>

using namespace ios;
using schedule::BlockSchedule;
using schedule::Stage;
using schedule::StageKind;

Q_DECLARE_METATYPE(ios::schedule::BlockSchedule)

namespace {
Stage par(std::vector<std::vector<int>> groups) {
    return {StageKind::Parallel, std::move(groups)};
}
Stage mer(std::vector<std::vector<int>> groups) {
    return {StageKind::Merge, std::move(groups)};
}
} // namespace

class TestScheduleVerify : public QObject {
    Q_OBJECT

private slots:
    void valid_data() {
        QTest::addColumn<BlockSchedule>("schedule");
        QTest::newRow("sequential")
            << BlockSchedule{{par({{0}}), par({{1}}), par({{2}}), par({{3}})}};
        QTest::newRow("parallel") << BlockSchedule{{par({{0}, {1}, {2}}), par({{3}})}};
        QTest::newRow("chain in a group") << BlockSchedule{{par({{1}, {2}}), par({{0, 3}})}};
        QTest::newRow("merge") << BlockSchedule{{mer({{0, 1}}), par({{2}}), par({{3}})}};
        QTest::newRow("single merge") << BlockSchedule{{mer({{2}}), par({{0}, {1}}), mer({{3}})}};
    }
    void valid() {
        QFETCH(BlockSchedule, schedule);
        const ir::Graph g = testing::fourOpGraph();
        schedule::verify(ir::buildBlockDag(g.blocks[0]), schedule);
    }

    void errors_data() {
        QTest::addColumn<BlockSchedule>("schedule");
        QTest::addColumn<QString>("message");
        QTest::newRow("missing") << BlockSchedule{{par({{0}, {1}, {2}})}}
                                 << "node 'd': the schedule misses";
        QTest::newRow("repeated") << BlockSchedule{{par({{0}, {1}, {2}}), par({{0}}), par({{3}})}}
                                  << "node 'a': stage 2 schedules the operator a second time";
        QTest::newRow("out of range") << BlockSchedule{{par({{7}})}} << "operator #7";
        QTest::newRow("empty stage") << BlockSchedule{{Stage{}}} << "stage 1 is empty";
        QTest::newRow("empty group") << BlockSchedule{{par({{0}, {}})}} << "group 2 is empty";
        QTest::newRow("dependency") << BlockSchedule{{par({{3}}), par({{0}, {1}, {2}})}}
                                    << "node 'd': stage 1 runs the operator before its input 'a'";
        QTest::newRow("other group") << BlockSchedule{{par({{1}, {2}}), par({{0}, {3}})}}
                                     << "node 'd': stage 2 runs the operator before its input 'a'";
        QTest::newRow("group order")
            << BlockSchedule{{par({{1}, {2}}), par({{3, 0}})}} << "before its input 'a'";
        QTest::newRow("merge groups") << BlockSchedule{{mer({{0}, {1}}), par({{2}}), par({{3}})}}
                                      << "merge stage with 2 groups";
        QTest::newRow("not mergeable") << BlockSchedule{{mer({{0, 2}}), par({{1}}), par({{3}})}}
                                       << "cannot merge: 'c': only convolutions can merge";
        QTest::newRow("merge with input") << BlockSchedule{{par({{1}, {2}}), mer({{0, 3}})}}
                                          << "merges the operator with its input 'a'";
    }
    void errors() {
        QFETCH(BlockSchedule, schedule);
        QFETCH(QString, message);
        const ir::Graph g = testing::fourOpGraph();
        try {
            schedule::verify(ir::buildBlockDag(g.blocks[0]), schedule);
            QFAIL("accepted");
        } catch (const UserError& e) {
            QVERIFY2(QString(e.what()).contains(message), e.what());
        }
    }

    void blockCount() {
        const ir::Graph g = testing::fourOpGraph();
        QVERIFY_THROWS_EXCEPTION(UserError,
                                 schedule::verify(ir::buildDags(g), schedule::Schedule{}));
    }

    // docs/formats.md: one conv named like the first member, kernel/padding the largest,
    // out_channels summed, consumers read it with the members' channel ranges.
    void mergeExport() {
        const ir::Graph g = testing::fourOpGraph();
        const auto dags = ir::buildDags(g);
        const schedule::Schedule s{{BlockSchedule{{mer({{0, 1}}), par({{2}}), par({{3}})}}}};
        const ir::Graph opt = schedule::optimizedGraph(g, dags, s);
        const ir::Block& b = opt.blocks[0];
        QCOMPARE(b.innerNodes.size(), size_t{2});
        const ir::Node& m = b.innerNodes[0];
        QCOMPARE(QString::fromStdString(m.name), QString("a"));
        QCOMPARE(m.conv.outChannels, int64_t{24});
        QCOMPARE(m.conv.kernel, (ir::Hw{3, 3}));
        QCOMPARE(m.conv.padding, (ir::Hw{1, 1}));
        QCOMPARE(m.outputShape, (ir::TensorShape{24, 8, 8}));
        const auto& in = b.exitNode.inputs;
        QCOMPARE(in.size(), size_t{3});
        QVERIFY(in[0][0] == (ir::ValueRef{"a", 0, 8}));
        QVERIFY(in[1][0] == (ir::ValueRef{"a", 8, 24}));
        QVERIFY(in[2][0] == (ir::ValueRef{"c", 0, 8}));
        QCOMPARE(b.stages.size(), size_t{3});
        QVERIFY(b.stages[0] == (ir::NameStage{{"a"}}));
        // and the stages read back as a valid schedule of the optimised model
        const auto optDags = ir::buildDags(opt);
        schedule::verify(optDags, schedule::scheduleFromStages(opt, optDags));
    }

    void unknownStageName() {
        ir::Graph g = testing::fourOpGraph();
        g.blocks[0].stages = {{{"a", "zz"}}};
        try {
            schedule::scheduleFromStages(g, ir::buildDags(g));
            QFAIL("accepted");
        } catch (const UserError& e) {
            QVERIFY2(QString(e.what()).contains("node 'zz'"), e.what());
        }
    }
};

QTEST_GUILESS_MAIN(TestScheduleVerify)
#include "tst_schedule_verify.moc"
