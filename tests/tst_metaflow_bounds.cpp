// SPDX-License-Identifier: Apache-2.0
// Work and memory bounds of MetaFlow's search (issue 37 item 4; docs/metaflow.md "Work
// bound"): the matcher tries a pattern node that reads another only on that operator's
// readers (a chain costs its length, not its square); the counting pass counts the regions
// and candidate matches before the search and refuses wide graphs up front (knob Metaflow);
// G0 over the IOS DP's state limit is refused before the search, not after it; the queue
// holds at most SearchOptions::maxQueuedOperators operators; progress counts regions.
#include "ir/validate.h"
#include "ir_builders.h"
#include "rewrite/backtracking.h"
#include "rewrite/pattern.h"
#include "rewrite_test_support.h"
#include "schedulers/metaflow.h"
#include "util/error.h"

#include <QtTest>

using namespace ios;
using namespace ios::testing;

namespace {

std::unique_ptr<cost::CostModel> simulated(const ir::Graph& g) {
    return std::make_unique<cost::SimulatedGpuCostModel>(g, cost::loadDevice("V100"), 1);
}

ir::Graph oneBlock(const std::string& name, std::vector<Node> inner, Node exit) {
    ir::Graph g;
    g.name = name;
    g.input = placeholder("x0", {8, 8, 8});
    g.blocks.push_back(block(g.input, std::move(inner), std::move(exit)));
    ir::validateAndInferShapes(g);
    return g;
}

ir::Node conv3(const std::string& name, std::vector<Term> inputs,
               ir::ActType act = ir::ActType::Relu) {
    return conv(name, std::move(inputs), 8, {3, 3}, {1, 1}, {1, 1}, 1, act);
}

// n convs (identity activation) each followed by a relu, in a chain.
ir::Graph convReluChain(int n) {
    std::vector<Node> inner;
    std::string prev = "x0";
    for (int i = 0; i < n; ++i) {
        inner.push_back(
            conv3("c" + std::to_string(i), concat({val(prev, 0, 8)}), ir::ActType::Identity));
        prev = "r" + std::to_string(i);
        if (i + 1 < n)
            inner.push_back(
                activation(prev, concat({val("c" + std::to_string(i), 0, 8)}), ir::ActType::Relu));
    }
    return oneBlock(
        "chain", std::move(inner),
        activation("y", concat({val("c" + std::to_string(n - 1), 0, 8)}), ir::ActType::Relu));
}

// `width` convs reading the input, then `sinks` convs each summing all of them (0: the exit
// sums them).
ir::Graph wide(int width, int sinks) {
    std::vector<Node> inner;
    std::vector<ValueRef> firsts;
    for (int i = 0; i < width; ++i) {
        inner.push_back(conv3("a" + std::to_string(i), concat({val("x0", 0, 8)})));
        firsts.push_back(val("a" + std::to_string(i), 0, 8));
    }
    if (sinks == 0)
        return oneBlock("antichain", std::move(inner), conv3("y", sum(firsts)));
    std::vector<ValueRef> seconds;
    for (int j = 0; j < sinks; ++j) {
        inner.push_back(conv3("b" + std::to_string(j), sum(firsts)));
        seconds.push_back(val("b" + std::to_string(j), 0, 8));
    }
    return oneBlock("bipartite", std::move(inner), conv3("y", sum(seconds)));
}

} // namespace

class TestMetaflowBounds : public QObject {
    Q_OBJECT

private Q_SLOTS:
    // R1's second node reads the first: it is tried on the conv's readers only, so the
    // pattern's unary checks run a bounded number of times per operator, not once per pair.
    void matcherTriesReadersOnly() {
        const ir::Graph g = convReluChain(300);
        const std::vector<const ir::Node*> ops = g.blocks[0].operators();
        uint64_t tries = 0;
        rewrite::Pattern p;
        p.nodes = {{[&tries](const ir::Node& n) {
                        ++tries;
                        return n.kind == ir::NodeKind::Conv;
                    },
                    {},
                    true},
                   {[&tries](const ir::Node& n) {
                        ++tries;
                        return n.kind == ir::NodeKind::Activation;
                    },
                    {0},
                    true}};
        const std::vector<int> consumers(ops.size(), 1);
        const auto matches = rewrite::matchPattern(p, ops, consumers);
        QCOMPARE(matches.size(), size_t{300});
        QVERIFY2(tries <= 3 * ops.size(), qPrintable(QString::number(tries)));
    }

    // The counting pass: regions of at most the split threshold (plus windows), the
    // candidates of the chain (one R1 match per conv + relu), before any expansion.
    void planCountsRegionsAndCandidates() {
        const ir::Graph g = convReluChain(200);
        const rewrite::SearchOptions o = rewrite::SearchOptions::paper();
        const rewrite::SearchPlan plan = rewrite::planSearch(g, o);
        QCOMPARE(plan.operators, uint64_t{400});
        QVERIFY(plan.regions.size() >= 400 / 30);
        QVERIFY(plan.candidates >= 150 && plan.candidates <= 400);
    }

    // A wide antichain: the first expansions alone would build tens of thousands of graphs of
    // hundreds of operators; refused before the search with the count and knob Metaflow.
    void antichainRefusedUpFront() {
        const ir::Graph g = wide(300, 0);
        const ir::PreparedModel m(g);
        const auto cost = simulated(g);
        schedulers::MetaflowOptions o = schedulers::metaflowPreset("paper");
        o.maxPlanWork = uint64_t{1} << 22;
        bool searched = false;
        rewrite::SearchHooks hooks;
        hooks.progress = [&searched](const rewrite::SearchProgress&) { searched = true; };
        try {
            schedulers::runMetaflow(m, {}, *cost, o, nullptr, hooks);
            QFAIL("the search ran");
        } catch (const schedulers::WorkLimitReached& e) {
            QVERIFY(e.knob() == schedulers::WorkKnob::Metaflow);
            QVERIFY2(QString(e.what()).contains("rewritten graphs of at most 301 operators"),
                     e.what());
        }
        QVERIFY(!searched);
    }

    // The complete bipartite graph 23 × 23 has 2^23 down-sets among its first half: the IOS
    // DP that schedules G* would refuse it, and does so before the search.
    void bipartiteRefusedBeforeTheSearch() {
        const ir::Graph g = wide(23, 23);
        const ir::PreparedModel m(g, 64);
        const auto cost = simulated(g);
        bool searched = false;
        rewrite::SearchHooks hooks;
        hooks.progress = [&searched](const rewrite::SearchProgress&) { searched = true; };
        try {
            schedulers::runMetaflow(m, {}, *cost, schedulers::metaflowPreset("paper"), nullptr,
                                    hooks);
            QFAIL("no refusal");
        } catch (const UserError& e) {
            QVERIFY2(QString(e.what()).contains("states"), e.what());
        }
        QVERIFY(!searched);
    }

    // The queue's bound: a search whose queue would pass it is refused (knob Metaflow)
    // rather than growing; under the default bound the same search ends.
    void queueBound() {
        const ir::Graph g = wide(12, 0);
        rewrite::RewriteCost cost(simulatedFactory());
        rewrite::SearchOptions o = rewrite::SearchOptions::paper();
        o.alpha = 2; // keeps most children: the queue grows
        o.budget = 20;
        const auto r = rewrite::metaflowSearch(g, cost, o);
        QVERIFY(r.stats.expanded > 1);
        o.maxQueuedOperators = 5 * 13;
        try {
            rewrite::metaflowSearch(g, cost, o);
            QFAIL("no refusal");
        } catch (const schedulers::WorkLimitReached& e) {
            QVERIFY(e.knob() == schedulers::WorkKnob::Metaflow);
            QVERIFY2(QString(e.what()).contains("queue would hold more than 65 operators"),
                     e.what());
        }
    }

    // Progress counts regions searched toward the plan's regions, ending at it.
    void progressHasATotal() {
        const ir::Graph g = convReluChain(40);
        const ir::PreparedModel m(g);
        const auto cost = simulated(g);
        schedulers::SearchControl control;
        uint64_t lastDone = 0;
        uint64_t lastTotal = 0;
        control.progress = [&](uint64_t done, uint64_t total) {
            QVERIFY(done >= lastDone);
            lastDone = done;
            lastTotal = total;
        };
        schedulers::MetaflowOptions o = schedulers::metaflowPreset("paper");
        o.search.budget = 50;
        schedulers::runMetaflow(m, {}, *cost, o, &control);
        QVERIFY(lastTotal > 0);
        QCOMPARE(lastDone, lastTotal);
    }
};

QTEST_GUILESS_MAIN(TestMetaflowBounds)
#include "tst_metaflow_bounds.moc"
