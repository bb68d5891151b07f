// SPDX-License-Identifier: Apache-2.0
// The DP searches a part of at most 64 operators with one machine word per operator set
// (detail::PartSearch<uint64_t>) and larger parts with two (PartSearch<Bits>): both must give
// the same stages, cost, counts and recorded state space on every part, for every strategy,
// ending rule and pruning, with a stage-priced cost model and with the additive one. The
// down-set count has the same two words and is checked against a brute force.
#include "cost/analytic_cost_model.h"
#include "ios_dp_brute.h"
#include "ir/prepared_model.h"
#include "schedule/verify.h"
#include "schedulers/dp_part.h"

#include <QTest>

using namespace ios;
using schedulers::detail::Bits;
using schedulers::detail::PartGraph;
using schedulers::detail::PartSearch;
using schedulers::detail::SearchClock;

namespace {

struct Searched {
    std::vector<std::pair<Bits, bool>> chosen;
    double costMs = 0;
    schedulers::PartStatistics stats;
    schedulers::StateSpace space;
};

template <class Set>
Searched search(const ir::BlockDag& dag, const PartGraph& g, const schedulers::Options& o,
                const cost::CostModel& cost, uint64_t states) {
    SearchClock clock;
    clock.total = states;
    Searched out;
    const cost::OperatorClasses classes = cost::operatorClasses(cost, dag);
    typename PartSearch<Set>::Shared shared(states);
    PartSearch<Set> s(dag, g, o, cost, classes, clock, &out.space, 0, 0, shared);
    out.chosen = s.run();
    out.costMs = s.costMs;
    out.stats = s.stats;
    return out;
}

// A chain of n 1x1 convolutions, each reading the previous one: a part of n operators whose
// down-sets are its n + 1 prefixes.
ir::Graph chain(int n) {
    ir::Node in;
    in.kind = ir::NodeKind::Placeholder;
    in.name = in.hintName = "in";
    in.outputShape = {8, 8, 8};
    ir::Graph graph;
    graph.name = "chain";
    graph.input = in;
    ir::Block block;
    block.enterName = "in";
    block.enterNode = in;
    for (int i = 0; i < n; ++i) {
        ir::Node node;
        node.name = node.hintName = "c" + std::to_string(i);
        node.kind = ir::NodeKind::Conv;
        node.outputShape = {8, 8, 8};
        node.conv.outChannels = 8;
        node.conv.kernel = {1, 1};
        node.conv.padding = {0, 0};
        node.conv.stride = {1, 1};
        node.inputs = {{{i == 0 ? std::string("in") : "c" + std::to_string(i - 1), 0, 8}}};
        if (i + 1 < n)
            block.innerNodes.push_back(node);
        else
            block.exitNode = node;
    }
    graph.blocks.push_back(block);
    return graph;
}

uint64_t bruteDownSets(const testing::RandomDag& d) {
    const int n = static_cast<int>(d.preds.size());
    uint64_t count = 0;
    for (uint32_t s = 0; s < (1u << n); ++s) {
        bool closed = true;
        for (int i = 0; i < n && closed; ++i)
            if ((s >> i) & 1u)
                for (int p : d.preds[static_cast<size_t>(i)])
                    closed = closed && ((s >> p) & 1u) != 0;
        count += closed ? 1 : 0;
    }
    return count;
}

} // namespace

class TestIosDpWords : public QObject {
    Q_OBJECT

private slots:
    void oneWordEqualsTwo() {
        std::mt19937 rng(20261124);
        const std::vector<testing::Config> configs = testing::allConfigs();
        for (int k = 0; k < 32; ++k) {
            const int n = 1 + k % 16;
            const testing::RandomDag d = testing::randomDag(rng, n);
            const ir::PreparedModel model(d.graph);
            const ir::BlockDag& dag = model.dags().front();
            const cost::AnalyticCostModel analytic(d.graph);
            for (const std::vector<int>& ops : dag.parts) {
                const PartGraph g = schedulers::detail::buildPartGraph(dag, ops);
                auto tick = [] {};
                const uint64_t states = schedulers::detail::countDownSets(g, g.all, tick) - 1;
                for (size_t ci = 0; ci < configs.size(); ++ci) {
                    schedulers::Options o;
                    o.strategy = configs[ci].strategy;
                    o.endings = configs[ci].endings;
                    o.r = configs[ci].r;
                    o.s = configs[ci].s;
                    const testing::RandomStageCost random(ci);
                    for (const cost::CostModel* cost :
                         {static_cast<const cost::CostModel*>(&random),
                          static_cast<const cost::CostModel*>(&analytic)}) {
                        const Searched one = search<uint64_t>(dag, g, o, *cost, states);
                        const Searched two = search<Bits>(dag, g, o, *cost, states);
                        const QByteArray what = QStringLiteral("dag %1 (n %2) config %3, %4")
                                                    .arg(k)
                                                    .arg(n)
                                                    .arg(ci)
                                                    .arg(QString::fromStdString(cost->describe()))
                                                    .toUtf8();
                        QVERIFY2(one.chosen == two.chosen, what.constData());
                        QVERIFY2(one.costMs == two.costMs, what.constData());
                        QVERIFY2(one.stats.states == states, what.constData());
                        QVERIFY2(one.stats.states == two.stats.states, what.constData());
                        QVERIFY2(one.stats.transitions == two.stats.transitions, what.constData());
                        QVERIFY2(one.stats.schedules == two.stats.schedules, what.constData());
                        QVERIFY2(one.stats.width == two.stats.width, what.constData());
                        QVERIFY2(one.stats.stages == two.stats.stages, what.constData());
                        QCOMPARE(one.space.states.size(), two.space.states.size());
                        for (size_t i = 0; i < one.space.states.size(); ++i) {
                            QVERIFY(one.space.states[i].remaining == two.space.states[i].remaining);
                            QVERIFY(one.space.states[i].costMs == two.space.states[i].costMs);
                        }
                        QCOMPARE(one.space.transitions.size(), two.space.transitions.size());
                        for (size_t i = 0; i < one.space.transitions.size(); ++i) {
                            const auto& a = one.space.transitions[i];
                            const auto& b = two.space.transitions[i];
                            QVERIFY(a.from == b.from && a.to == b.to && a.kind == b.kind &&
                                    a.latencyMs == b.latencyMs);
                        }
                        QVERIFY(one.space.chosen == two.space.chosen);
                    }
                }
            }
        }
    }

    void downSetsOneWordEqualsTwoAndBruteForce() {
        std::mt19937 rng(7);
        for (int k = 0; k < 80; ++k) {
            const int n = 1 + k % 16;
            const testing::RandomDag d = testing::randomDag(rng, n);
            const ir::PreparedModel model(d.graph);
            const ir::BlockDag& dag = model.dags().front();
            const PartGraph g = schedulers::detail::buildPartGraph(dag, dag.parts.front());
            uint64_t ticksOne = 0, ticksTwo = 0;
            auto tickOne = [&] { ++ticksOne; };
            auto tickTwo = [&] { ++ticksTwo; };
            std::vector<uint64_t> desc(g.desc.begin(), g.desc.end());
            const uint64_t one = schedulers::detail::countDownSets(
                desc, static_cast<uint64_t>(g.all), tickOne, UINT64_MAX);
            const uint64_t two =
                schedulers::detail::countDownSets(g.desc, g.all, tickTwo, uint64_t{UINT64_MAX});
            QCOMPARE(one, bruteDownSets(d));
            QCOMPARE(two, one);
            QCOMPARE(ticksOne, ticksTwo);
            // Past a limit the count stops early with a result above it, as the DP's
            // kMaxStates check needs.
            if (one > 2) {
                auto tick = [] {};
                QVERIFY(schedulers::detail::countDownSets(g, g.all, tick, one - 2) > one - 2);
                QCOMPARE(schedulers::detail::countDownSets(g, g.all, tick, one), one);
            }
        }
    }
    // A part of more than 64 operators takes the two-word search (optimize → searchPart):
    // on a chain of 80, a parallel stage is a suffix of at most r operators, so the schedules
    // are the compositions of 80 into parts of 1..3 and state k has min(k, 3) transitions.
    void partsOverSixtyFourOperators() {
        const ir::Graph graph = chain(80);
        const ir::PreparedModel model(graph, 128);
        QCOMPARE(model.dags().front().parts.size(), size_t{1});
        schedulers::Options o;
        o.strategy = schedulers::Strategy::Parallel;
        o.r = 3;
        o.s = 8;
        const testing::RandomStageCost cost(3);
        const schedulers::Result res = schedulers::optimize(model, o, cost);
        std::vector<UInt128> compositions(81, 0);
        compositions[0] = 1;
        uint64_t transitions = 0;
        for (int k = 1; k <= 80; ++k) {
            for (int last = 1; last <= std::min(k, 3); ++last)
                compositions[static_cast<size_t>(k)] += compositions[static_cast<size_t>(k - last)];
            transitions += static_cast<uint64_t>(std::min(k, 3));
        }
        QCOMPARE(res.stats.states, uint64_t{80});
        QCOMPARE(res.stats.transitions, transitions);
        QVERIFY(res.stats.schedules == BigUint::fromU128(compositions[80]));
        QCOMPARE(res.stats.parts.front().width, 1);
        schedule::verify(model.dags(), res.schedule); // throws on an invalid schedule
    }
};

QTEST_GUILESS_MAIN(TestIosDpWords)
#include "tst_ios_dp_words.moc"
