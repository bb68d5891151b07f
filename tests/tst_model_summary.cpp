// SPDX-License-Identifier: Apache-2.0
// The exact DAG width (ir::maximumAntichain) against brute force, and ir::summarize on a
// hand-built graph whose counts, parts and totals are known.
#include "ir/dag_width.h"
#include "ir/model_summary.h"
#include "ir/validate.h"
#include "ir_builders.h"
#include "util/error.h"

#include <QtTest>
#include <random>

using namespace ios;
using namespace ios::testing;
using Succs = std::vector<std::vector<int>>;

Q_DECLARE_METATYPE(Succs)

namespace {

// reach[u] bit v: v is reachable from u (u != v). Small n only.
std::vector<uint32_t> closure(const Succs& succs) {
    const size_t n = succs.size();
    std::vector<uint32_t> reach(n, 0);
    for (bool changed = true; changed;) {
        changed = false;
        for (size_t u = 0; u < n; ++u) {
            uint32_t r = reach[u];
            for (int v : succs[u])
                r |= (1U << v) | reach[static_cast<size_t>(v)];
            changed = changed || r != reach[u];
            reach[u] = r;
        }
    }
    return reach;
}

bool isAntichain(const std::vector<uint32_t>& reach, uint32_t set) {
    for (size_t u = 0; u < reach.size(); ++u)
        if ((set >> u) & 1U && (reach[u] & set) != 0)
            return false;
    return true;
}

int bruteForceWidth(const Succs& succs) {
    const auto reach = closure(succs);
    int best = 0;
    for (uint32_t set = 0; set < (1U << succs.size()); ++set)
        if (isAntichain(reach, set))
            best = std::max(best, std::popcount(set));
    return best;
}

// Edges only from lower to higher index, so it is acyclic; a fixed seed keeps it reproducible.
Succs randomDag(std::mt19937& rng, int n, double density) {
    std::bernoulli_distribution edge(density);
    Succs succs(static_cast<size_t>(n));
    for (int u = 0; u < n; ++u)
        for (int v = u + 1; v < n; ++v)
            if (edge(rng))
                succs[static_cast<size_t>(u)].push_back(v);
    return succs;
}

} // namespace

class TestModelSummary : public QObject {
    Q_OBJECT

private slots:
    void knownWidths_data();
    void knownWidths();
    void randomDagsMatchBruteForce();
    void cycleIsRejected();
    void summaryOfHandBuiltGraph();
    void widthIgnoresParts();
};

void TestModelSummary::knownWidths_data() {
    QTest::addColumn<Succs>("succs");
    QTest::addColumn<int>("width");

    QTest::newRow("empty") << Succs{} << 0;
    QTest::newRow("single") << Succs{{}} << 1;
    QTest::newRow("chain") << Succs{{1}, {2}, {3}, {}} << 1;
    QTest::newRow("independent") << Succs{{}, {}, {}, {}, {}} << 5;
    QTest::newRow("diamond") << Succs{{1, 2}, {3}, {3}, {}} << 2;
    // IOS Figure 2: a feeds b; b, c, d read the input; the exit concatenates them.
    QTest::newRow("figure 2") << Succs{{1}, {4}, {4}, {4}, {}} << 3;
    // Two chains a0→a1→a2 and b0→b1 with a cross edge a0→b1: {a1, b0} etc., width 2.
    QTest::newRow("two chains") << Succs{{1, 4}, {2}, {}, {4}, {}} << 2;
    // A transitive edge must not change anything: 0→1→2 plus 0→2, and a lone 3.
    QTest::newRow("transitive edge") << Succs{{1, 2}, {2}, {}, {}} << 2;
    // An hourglass 0,1 → 2 → 3,4: vertex-disjoint paths need 3, chains of the transitive
    // closure only 2 ({0, 2, 3}, {1, 4}), and the width is 2.
    QTest::newRow("hourglass needs the closure") << Succs{{2}, {2}, {3, 4}, {}, {}} << 2;
    // A "crown": 3 sources, 3 sinks, each source to two sinks; width 3.
    QTest::newRow("crown") << Succs{{3, 4}, {4, 5}, {5, 3}, {}, {}, {}} << 3;
}

void TestModelSummary::knownWidths() {
    QFETCH(Succs, succs);
    QFETCH(int, width);
    const std::vector<int> antichain = ir::maximumAntichain(succs);
    QCOMPARE(static_cast<int>(antichain.size()), width);
    uint32_t set = 0;
    for (int v : antichain)
        set |= 1U << v;
    QVERIFY(isAntichain(closure(succs), set));
    QVERIFY(std::is_sorted(antichain.begin(), antichain.end()));
}

void TestModelSummary::randomDagsMatchBruteForce() {
    std::mt19937 rng(20210401);
    for (int trial = 0; trial < 300; ++trial) {
        const int n = 1 + trial % 14;
        const double density = 0.05 + 0.1 * (trial % 7);
        const Succs succs = randomDag(rng, n, density);
        const std::vector<int> antichain = ir::maximumAntichain(succs);
        uint32_t set = 0;
        for (int v : antichain)
            set |= 1U << v;
        QVERIFY(isAntichain(closure(succs), set));
        QCOMPARE(static_cast<int>(antichain.size()), bruteForceWidth(succs));
    }
}

void TestModelSummary::cycleIsRejected() {
    QVERIFY_THROWS_EXCEPTION(UserError, ir::maximumAntichain(Succs{{1}, {2}, {0}}));
    QVERIFY_THROWS_EXCEPTION(UserError, ir::maximumAntichain(Succs{{5}}));
    QVERIFY_THROWS_EXCEPTION(UserError, ir::maximumAntichain(Succs(ir::kMaxAntichainVertices + 1)));
}

// in [8,6,6] → block 0: a = conv3x3 p1 8→8, b = conv1x1 8→4, p = max pool 3x3 p1, exit
// c = concat(a, b, p) [20,6,6] → block 1: s = sequential(relu, conv1x1 20→10), exit e = relu
void TestModelSummary::summaryOfHandBuiltGraph() {
    ir::Graph g;
    g.name = "hand";
    g.input = placeholder("in", {8, 6, 6});
    g.blocks.push_back(
        block(g.input,
              {conv("a", concat({val("in", 0, 8)}), 8, {3, 3}, {1, 1}, {1, 1}),
               conv("b", concat({val("in", 0, 8)}), 4, {1, 1}),
               pool("p", concat({val("in", 0, 8)}), ir::PoolType::Max, {3, 3}, {1, 1}, {1, 1})},
              node(ir::NodeKind::Identity, "c",
                   concat({val("a", 0, 8), val("b", 0, 4), val("p", 0, 8)}))));
    g.blocks.push_back(
        block(g.blocks[0].exitNode,
              {sequential("s", {node(ir::NodeKind::Relu, "s_r", concat({val("c", 0, 20)})),
                                conv("s_c", concat({val("s_r", 0, 20)}), 10, {1, 1}, {1, 1}, {0, 0},
                                     1, ir::ActType::Identity)})},
              node(ir::NodeKind::Relu, "e", concat({val("s", 0, 10)}))));
    ir::validateAndInferShapes(g);

    const ir::ModelSummary s = ir::summarize(g, 2);
    QCOMPARE(s.name, std::string("hand"));
    QCOMPARE(s.inputShape, (ir::TensorShape{8, 6, 6}));
    QCOMPARE(s.outputShape, (ir::TensorShape{10, 6, 6}));
    QCOMPARE(s.operators, 6);
    QCOMPARE(s.parts, 3); // block 0: {a, b}, {p, c}; block 1: {s, e}
    QCOMPARE(s.widestPart, 2);
    QCOMPARE(s.dagWidth, std::optional<int>(3)); // a, b, p
    using K = ir::NodeKind;
    QCOMPARE(s.operatorsByKind,
             (ir::KindCounts{
                 {K::Conv, 2}, {K::Pool, 1}, {K::Identity, 1}, {K::Relu, 1}, {K::Sequential, 1}}));
    QCOMPARE(s.primitivesByKind,
             (ir::KindCounts{{K::Conv, 3}, {K::Pool, 1}, {K::Identity, 1}, {K::Relu, 2}}));
    QCOMPARE(s.blocks.size(), size_t{2});
    QCOMPARE(s.blocks[0].dagWidth, std::optional<int>(3));
    QCOMPARE(s.blocks[1].dagWidth, std::optional<int>(1));
    QCOMPARE(s.blocks[1].enterName, std::string("c"));
    QCOMPARE(s.blocks[1].exitName, std::string("e"));

    // Parameters: a 8*8*9+8 = 584, b 4*8+4 = 36, s_c 10*20+10 = 210.
    QCOMPARE(s.totals.parameters, qint64{584 + 36 + 210});
    QCOMPARE(s.totals.weightBytes, qint64{(584 + 36 + 210) * 4});
    // FLOPs (36 = 6x6): a 2*72*8*36 + 8*36, b 2*8*4*36 + 4*36, p 9*8*36, c 0,
    // s: relu 20*36 + conv 2*20*10*36, e 10*36.
    const double flops = (2.0 * 72 * 8 * 36 + 288) + (2.0 * 32 * 36 + 144) + 9.0 * 8 * 36 +
                         (20.0 * 36 + 2.0 * 200 * 36) + 360;
    QCOMPARE(static_cast<double>(s.totals.flops), flops);
    QCOMPARE(static_cast<double>(s.blocks[0].metrics.flops + s.blocks[1].metrics.flops), flops);

    const ir::ModelSummary whole = ir::summarize(g);
    QCOMPARE(whole.parts, 2);
    QCOMPARE(whole.widestPart, 4);
    QVERIFY_THROWS_EXCEPTION(UserError, ir::summarize(g, 0));
}

// Parts bound the DP, not the width: a part boundary does not hide independence.
void TestModelSummary::widthIgnoresParts() {
    ir::Graph g;
    g.name = "fan";
    g.input = placeholder("in", {4, 2, 2});
    std::vector<ir::Node> inner;
    ir::Term all;
    for (int i = 0; i < 6; ++i) {
        inner.push_back(
            node(ir::NodeKind::Relu, "r" + std::to_string(i), concat({val("in", 0, 4)})));
        all.push_back(val(inner.back().name, 0, 4));
    }
    g.blocks.push_back(block(g.input, std::move(inner), node(ir::NodeKind::Identity, "x", {all})));
    ir::validateAndInferShapes(g);
    const ir::ModelSummary s = ir::summarize(g, 2);
    QCOMPARE(s.parts, 4);
    QCOMPARE(s.dagWidth, std::optional<int>(6));
}

QTEST_GUILESS_MAIN(TestModelSummary)
#include "tst_model_summary.moc"
