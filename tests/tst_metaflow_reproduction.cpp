// SPDX-License-Identifier: Apache-2.0
// MetaFlow's published results on the simulated GPUs (docs/metaflow.md §7 items 6–9): the hard
// parts are asserted (a speedup, R3 merges, InceptionE's 1×1 triple merged, its 1×3/3×1 pairs
// not merged on K80, relaxed no worse than greedy, NasNet only R5, RandWire unchanged); the
// figures — costs, kernel counts, search seconds, the substitutions, the α sweep, what
// merging a 1×3/3×1 pair costs and why — are printed for docs/metaflow.md, never asserted.
#include "build_flavour.h"
#include "bundled_models.h"
#include "cost/kernel_model.h"
#include "ir/metrics.h"
#include "rewrite/backtracking.h"
#include "rewrite_test_support.h"

#include <QtTest>

using namespace ios;
using namespace ios::testing;
using rewrite::RuleId;
using rewrite::SearchOptions;

namespace {

// The paper preset without R5: the figures before in-place concatenation existed.
SearchOptions paperWithoutR5() {
    SearchOptions o = SearchOptions::paper();
    o.rules.set(RuleId::R5, false);
    return o;
}

rewrite::SearchResult search(const ir::Graph& g, const std::string& device,
                             const SearchOptions& o = SearchOptions::paper()) {
    rewrite::RewriteCost cost(simulatedFactory(device));
    return rewrite::metaflowSearch(g, cost, o);
}

size_t applied(const rewrite::SearchResult& r, RuleId rule) {
    return static_cast<size_t>(
        std::count_if(r.history.begin(), r.history.end(),
                      [rule](const auto& s) { return s.provenance.match.rule == rule; }));
}

// A conv of block b with `out` outputs and kernel `k`.
bool hasConv(const ir::Graph& g, size_t b, int64_t out, ir::Hw k) {
    for (const ir::Node* n : g.blocks[b].operators())
        if (n->kind == ir::NodeKind::Conv && n->conv.outChannels == out && n->conv.kernel == k)
            return true;
    return false;
}

// The kernels the simulated device launches for operator `name` of `g`: algorithm, CTAs,
// waves, GFLOP executed and solo time (docs/metaflow.md "Measured": why the 1×3/3×1 pairs of
// InceptionE do not merge).
void printKernels(const ir::Graph& g, const std::string& name, const cost::DeviceProfile& dev) {
    const ir::NodeIndex index(g);
    const ir::Node& n = *index.find(name);
    const auto shape = [&index](const std::string& p) -> const ir::TensorShape* {
        const ir::Node* producer = index.find(p);
        return producer != nullptr ? &producer->outputShape : nullptr;
    };
    for (const cost::KernelDesc& k : cost::operatorKernels(n, shape, 1, dev)) {
        const cost::Occupancy o = cost::occupancy(k, dev);
        qInfo("    %s %s %lldx%lld->%lld: %s, %lld CTAs, %lld waves (%lld resident, %s), "
              "%.4f GFLOP, %.2f us",
              dev.name.c_str(), name.c_str(), static_cast<long long>(n.conv.kernel.h),
              static_cast<long long>(n.conv.kernel.w), static_cast<long long>(n.conv.outChannels),
              k.name.c_str(), static_cast<long long>(k.ctas), static_cast<long long>(o.waves),
              static_cast<long long>(o.residentCtas), o.limiter.c_str(), k.flops / 1e9,
              cost::soloKernelUs(k, dev));
    }
}

void print(const char* what, const ir::Graph& g, const rewrite::SearchResult& r) {
    qInfo("%s: cost %.4f -> %.4f ms (%.3fx), mfKernels %lld -> %lld, %zu substitutions "
          "(R3 %zu, R5 %zu), search %.3f s, %llu expanded, %llu generated, %llu deduplicated, "
          "%llu pruned",
          what, r.costBeforeMs, r.costAfterMs, r.costBeforeMs / r.costAfterMs,
          static_cast<long long>(rewrite::mfKernels(g)),
          static_cast<long long>(rewrite::mfKernels(r.graph)), r.history.size(),
          applied(r, RuleId::R3), applied(r, RuleId::R5), r.stats.seconds,
          static_cast<unsigned long long>(r.stats.expanded),
          static_cast<unsigned long long>(r.stats.generated),
          static_cast<unsigned long long>(r.stats.deduplicated),
          static_cast<unsigned long long>(r.stats.pruned));
}

} // namespace

class TestMetaflowReproduction : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void squeezeNet() {
        const ir::Graph g = samples::loadBundledModel("squeezenet");
        QCOMPARE(rewrite::mfKernels(g), int64_t{50}); // [MF] Fig. 11
        for (const SearchOptions& o : {SearchOptions::paper(), SearchOptions::artifact()}) {
            const auto r = search(g, "V100", o);
            print(o.splitThreshold > 0 ? "SqueezeNet V100 paper" : "SqueezeNet V100 artifact", g, r);
            for (const rewrite::Substitution& step : r.history) {
                std::string sources;
                for (const std::string& n : step.provenance.sources)
                    sources += " " + n;
                qInfo("  %s on%s -> %.4f ms", rewrite::ruleName(step.provenance.match.rule).data(),
                      sources.c_str(), step.costAfterMs);
            }
            QVERIFY(r.costAfterMs < r.costBeforeMs);
            QVERIFY(applied(r, RuleId::R3) >= 1);
            QVERIFY(rewrite::mfKernels(r.graph) >= 38 && rewrite::mfKernels(r.graph) < 50);
        }
        print("SqueezeNet V100 paper without R5", g, search(g, "V100", paperWithoutR5()));
    }

    // [MF] Fig. 7: on V100 InceptionE's 1×1 convs (320 + 384 + 448) merge into one of 1152
    // outputs and its 1×3/3×1 pairs into 3×3 convs of 768; on K80 the pairs stay apart.
    void inceptionV3() {
        if (!kFullModels)
            QSKIP("InceptionV3 searches run in optimised builds only");
        const ir::Graph g = samples::loadBundledModel("inception_v3");
        const auto v100 = search(g, "V100");
        print("InceptionV3 V100 paper", g, v100);
        QVERIFY(v100.costAfterMs < v100.costBeforeMs);
        const auto k80 = search(g, "K80");
        print("InceptionV3 K80 paper", g, k80);
        print("InceptionV3 V100 paper without R5", g, search(g, "V100", paperWithoutR5()));
        print("InceptionV3 K80 paper without R5", g, search(g, "K80", paperWithoutR5()));
        for (size_t b : {size_t{10}, size_t{11}}) {
            qInfo("InceptionE block %zu: V100 1152=%d 3x3x768=%d; K80 1152=%d 3x3x768=%d", b,
                  hasConv(v100.graph, b, 1152, {1, 1}), hasConv(v100.graph, b, 768, {3, 3}),
                  hasConv(k80.graph, b, 1152, {1, 1}), hasConv(k80.graph, b, 768, {3, 3}));
            QVERIFY(hasConv(v100.graph, b, 1152, {1, 1}));
            QVERIFY(!hasConv(k80.graph, b, 768, {3, 3}));
            // The simulated V100 does not merge the pairs either (a miss of Fig. 7, reported
            // in docs/metaflow.md): what one merge costs on each device.
            const ir::Graph sub = blockAlone(g, b);
            for (const rewrite::Match& m : rewrite::findMatches(sub, 0, RuleId::R3)) {
                const ir::NodeIndex index(sub);
                if (index.find(m.nodes[0])->conv.kernel == index.find(m.nodes[1])->conv.kernel)
                    continue;
                const ir::Graph merged = rewrite::applyMatch(sub, m).graph;
                for (const char* device : {"V100", "K80"}) {
                    rewrite::RewriteCost cost(simulatedFactory(device));
                    qInfo("  %s: merging %s + %s: %.4f -> %.4f ms", device, m.nodes[0].c_str(),
                          m.nodes[1].c_str(), cost.price(sub).total(), cost.price(merged).total());
                    const cost::DeviceProfile dev = cost::loadDevice(device);
                    printKernels(sub, m.nodes[0], dev);
                    printKernels(sub, m.nodes[1], dev);
                    printKernels(merged, m.nodes[0], dev);
                }
            }
        }
    }

    // [MF] Fig. 10: best cost and search time per α; relaxed (1.05) is no worse than greedy.
    void alphaSweep() {
        if (!kFullModels)
            QSKIP("InceptionV3 searches run in optimised builds only");
        const ir::Graph g = samples::loadBundledModel("inception_v3");
        double greedy = 0;
        double relaxed = 0;
        for (int a = 100; a <= 110; ++a) {
            SearchOptions o = SearchOptions::paper();
            o.alpha = a / 100.0;
            const auto r = search(g, "V100", o);
            qInfo("alpha %.2f: %.4f ms, %.3f s, %llu expanded", o.alpha, r.costAfterMs,
                  r.stats.seconds, static_cast<unsigned long long>(r.stats.expanded));
            if (a == 100)
                greedy = r.costAfterMs;
            if (a == 105)
                relaxed = r.costAfterMs;
        }
        QVERIFY(relaxed <= greedy);
    }

    // [MF] §6 / docs/metaflow.md §7 item 9: no rule but R5 matches NasNet (its convs sit in
    // relu-sepconv sequentials), nothing matches RandWire.
    void nasnetAndRandwire() {
        if (!kFullModels)
            QSKIP("the large models run in optimised builds only");
        const ir::Graph nasnet = samples::loadBundledModel("nasnet_large");
        const auto n = search(nasnet, "V100");
        print("nasnet_large", nasnet, n);
        QVERIFY(!n.history.empty());
        QCOMPARE(applied(n, RuleId::R5), n.history.size());
        QVERIFY(n.costAfterMs < n.costBeforeMs);
        const ir::Graph randwire = samples::loadBundledModel("randwire_large");
        const auto r = search(randwire, "V100");
        print("randwire_large", randwire, r);
        QVERIFY(r.graph == randwire);
    }
};

QTEST_GUILESS_MAIN(TestMetaflowReproduction)
#include "tst_metaflow_reproduction.moc"
