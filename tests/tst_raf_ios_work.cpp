// SPDX-License-Identifier: Apache-2.0
// RAF-IOS's counting pass (schedulers/raf/raf_ios_work.h): its counts of chunk states and
// candidates are exact (brute force on random chunks, closed forms on antichains); wide models
// (antichains of 24 and 5000 operators, a complete 100 x 100 bipartite graph) are refused up
// front, with RAF-IOS's knob, by the caps or the time limit, before any chunk is searched;
// progress is reported in candidates of the counted total.
#include "cost/analytic_cost_model.h"
#include "ir/prepared_model.h"
#include "ir/validate.h"
#include "ir_builders.h"
#include "schedulers/raf/raf_ios_work.h"
#include "schedulers/scheduler.h"
#include "util/error.h"

#include <QTest>
#include <bit>
#include <random>

using namespace ios;
using schedulers::raf::ChunkWork;

namespace {

// Brute force: every non-empty down-set S of the chunk, every non-empty ending of S (closed
// under successors within S) of at most kMaxStageOps nodes.
ChunkWork bruteForce(const std::vector<uint32_t>& succ) {
    const uint32_t m = static_cast<uint32_t>(succ.size());
    auto closedUnder = [&](uint32_t set, uint32_t within) {
        for (uint32_t v = 0; v < m; ++v)
            if ((set >> v & 1) != 0 && (succ[v] & within & ~set) != 0)
                return false;
        return true;
    };
    ChunkWork out;
    for (uint32_t s = 1; s < (uint32_t{1} << m); ++s) {
        if (!closedUnder(~s & ((uint32_t{1} << m) - 1), ~uint32_t{0})) // complement: an up-set
            continue;
        ++out.states;
        for (uint32_t e = s; e != 0; e = (e - 1) & s)
            if (std::popcount(e) <= schedulers::raf::kMaxStageOps && closedUnder(e, s))
                ++out.candidates;
    }
    return out;
}

uint64_t binomial(uint64_t n, uint64_t k) {
    uint64_t r = 1;
    for (uint64_t i = 1; i <= k; ++i)
        r = r * (n - k + i) / i;
    return r;
}

// `width` operators reading the input, then `layers` - 1 further layers of `width` operators,
// each reading every operator of the layer before (complete bipartite between layers), summed
// at the exit.
ir::Graph layered(int width, int layers) {
    ir::Graph g;
    g.name = "wide";
    g.input = testing::placeholder("x", {4, 8, 8});
    ir::Block block;
    block.enterName = "x";
    block.enterNode = g.input;
    std::vector<ir::ValueRef> previous{testing::val("x", 0, 4)};
    for (int layer = 0; layer < layers; ++layer) {
        std::vector<ir::ValueRef> current;
        for (int i = 0; i < width; ++i) {
            const std::string name = "n" + std::to_string(layer) + "_" + std::to_string(i);
            ir::Node n = testing::node(ir::NodeKind::Activation, name, testing::sum(previous));
            n.activation = ir::ActType::Tanh;
            block.innerNodes.push_back(n);
            current.push_back(testing::val(name, 0, 4));
        }
        previous = current;
    }
    block.exitNode = testing::element("out", testing::sum(previous), ir::ElementOp::Add);
    g.blocks.push_back(block);
    ir::validateAndInferShapes(g);
    return g;
}

struct Run {
    std::string message;
    bool limit = false;   // WorkLimitReached
    bool time = false;    // TimeLimitReached
    bool knobRaf = false; // its knob is RafIos
    uint64_t reports = 0; // progress reports before it
};

Run runRafIos(const ir::Graph& g, double seconds) {
    const ir::PreparedModel model(g);
    const cost::AnalyticCostModel cost(g);
    schedulers::SearchControl control;
    control.task = "test";
    control.limitHint = [](schedulers::WorkKnob k) {
        return k == schedulers::WorkKnob::RafIos ? std::string("RAF WORDS") : std::string("OTHER");
    };
    if (seconds > 0)
        control.deadline = schedulers::SearchControl::Clock::now() +
                           std::chrono::duration_cast<schedulers::SearchControl::Clock::duration>(
                               std::chrono::duration<double>(seconds));
    Run run;
    control.progress = [&](uint64_t, uint64_t) { ++run.reports; };
    try {
        schedulers::schedulerByName("raf-ios").run(model, schedulers::Params{}, cost, &control);
    } catch (const schedulers::WorkLimitReached& e) {
        run.message = e.what();
        run.limit = true;
        run.time = dynamic_cast<const schedulers::TimeLimitReached*>(&e) != nullptr;
        run.knobRaf = e.knob() == schedulers::WorkKnob::RafIos;
    }
    return run;
}

} // namespace

class TestRafIosWork : public QObject {
    Q_OBJECT

private slots:
    void countsMatchBruteForce() {
        std::mt19937 rng(37);
        for (int trial = 0; trial < 200; ++trial) {
            const size_t m = 1 + static_cast<size_t>(trial % 13);
            const double density = 0.05 + 0.08 * (trial % 6);
            std::bernoulli_distribution edge(density);
            std::vector<uint32_t> succ(m, 0);
            for (size_t i = 0; i < m; ++i)
                for (size_t j = i + 1; j < m; ++j)
                    if (edge(rng))
                        succ[i] |= uint32_t{1} << j;
            const ChunkWork fast = schedulers::raf::countChunk(succ);
            const ChunkWork slow = bruteForce(succ);
            QCOMPARE(fast.states, slow.states);
            QCOMPARE(fast.candidates, slow.candidates);
        }
    }

    // An antichain of m nodes: 2^m - 1 states; a state of j nodes has sum_{k<=10} C(j, k)
    // endings. A chain: m states of one ending each.
    void closedForms() {
        for (size_t m : {1, 5, 12, 20}) {
            const ChunkWork antichain = schedulers::raf::countChunk(std::vector<uint32_t>(m, 0));
            uint64_t candidates = 0;
            for (uint64_t j = 1; j <= m; ++j)
                for (uint64_t k = 1; k <= std::min<uint64_t>(j, 10); ++k)
                    candidates += binomial(m, j) * binomial(j, k);
            QCOMPARE(antichain.states, (uint64_t{1} << m) - 1);
            QCOMPARE(antichain.candidates, candidates);
            std::vector<uint32_t> chain(m, 0);
            for (size_t i = 0; i + 1 < m; ++i)
                chain[i] = uint32_t{1} << (i + 1);
            const ChunkWork c = schedulers::raf::countChunk(chain);
            QCOMPARE(c.states, uint64_t{m});
            uint64_t chainCandidates = 0;
            for (uint64_t j = 1; j <= m; ++j)
                chainCandidates += std::min<uint64_t>(j, 10);
            QCOMPARE(c.candidates, chainCandidates);
        }
    }

    // 24 independent operators: one 20-node antichain chunk, billions of candidates; past a
    // short time limit the estimate refuses it before any chunk is searched.
    void antichain24RefusedByEstimate() {
        const Run run = runRafIos(layered(24, 1), 2);
        QVERIFY(run.limit);
        QVERIFY(run.time);
        QVERIFY(run.knobRaf);
        QVERIFY2(run.message.find("estimated") != std::string::npos, run.message.c_str());
        QVERIFY2(run.message.find("RAF WORDS") != std::string::npos, run.message.c_str());
        QCOMPARE(run.reports, uint64_t{0});
    }

    // 5000 independent operators and a complete 100 x 100 bipartite graph: chunks of 20
    // independent operators each, past the cap on states (not the time limit).
    void wideModelsRefusedByCap_data() {
        QTest::addColumn<int>("width");
        QTest::addColumn<int>("layers");
        QTest::addRow("antichain 5000") << 5000 << 1;
        QTest::addRow("bipartite 100x100") << 100 << 2;
    }
    void wideModelsRefusedByCap() {
        QFETCH(int, width);
        QFETCH(int, layers);
        // A generous time limit, only so that a search that is not refused ends the test.
        const Run run = runRafIos(layered(width, layers), 30);
        QVERIFY(run.limit);
        QVERIFY(!run.time);
        QVERIFY(run.knobRaf);
        QVERIFY2(run.message.find("more than 4194304 chunk states") != std::string::npos,
                 run.message.c_str());
        QCOMPARE(run.reports, uint64_t{0});
    }

    // Progress in candidates: one total over the run (the counted one), never passed.
    void progressInCandidates() {
        const ir::Graph g = layered(12, 1);
        const ir::PreparedModel model(g);
        const cost::AnalyticCostModel cost(g);
        schedulers::SearchControl control;
        std::vector<std::pair<uint64_t, uint64_t>> reports;
        control.progress = [&](uint64_t done, uint64_t total) {
            reports.emplace_back(done, total);
        };
        schedulers::schedulerByName("raf-ios").run(model, schedulers::Params{}, cost, &control);
        QVERIFY(!reports.empty());
        // 12 independent operators and the exit after them: one chunk.
        std::vector<uint32_t> succ(13, uint32_t{1} << 12);
        succ[12] = 0;
        const uint64_t expected = schedulers::raf::countChunk(succ).candidates;
        for (const auto& [done, total] : reports) {
            QCOMPARE(total, expected);
            QVERIFY(done <= total);
        }
    }
};

QTEST_GUILESS_MAIN(TestRafIosWork)
#include "tst_raf_ios_work.moc"
