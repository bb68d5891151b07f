// SPDX-License-Identifier: Apache-2.0
// Interchangeable ops in Serenity's DP (schedulers/serenity/symmetry.h): twinBefore finds
// exactly the classes of ops that read the same tensors and write equal tensors read by the
// same ops; with them in index order the DP reaches the brute-force optimum (and the peak of
// the DP over every down-set) on random problems full of such classes, with fewer down-sets,
// and returns an order valid for the original problem; on the bundled models both DPs agree.
#include "build_flavour.h"
#include "bundled_models.h"
#include "ir/block_dag.h"
#include "ir/memory.h"
#include "memory_test_support.h"
#include "schedulers/serenity/cuts.h"
#include "schedulers/serenity/memory_dp.h"
#include "schedulers/serenity/soft_budget.h"
#include "schedulers/serenity/symmetry.h"

#include <QTest>
#include <random>

using namespace ios;
using namespace ios::testing;
namespace sy = ios::schedulers::serenity;

namespace {

sy::DpLimits unlimited(bool breakSymmetry) {
    sy::DpLimits l;
    l.maxExpansions = 0;
    l.breakSymmetry = breakSymmetry;
    return l;
}

// `groups` groups of 1–3 copies of one op: the copies of a group read the same tensors (all
// copies of up to three earlier groups, or the input) and write tensors of the group's size;
// a group reading another reads every copy. `twins` receives, per op, the copy before it.
ir::MemoryProblem twinProblem(std::mt19937& rng, int groups, std::vector<int>& twins) {
    auto pick = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
    ir::MemoryProblem p;
    p.name = "twins";
    p.tensors.push_back({"in", 4 * pick(1, 32), {}, {}, false});
    std::vector<std::vector<int>> outputs; // per group, its copies' tensors
    twins.clear();
    for (int g = 0; g < groups; ++g) {
        std::vector<int> inputs;
        for (int q = std::max(0, g - 4); q < g; ++q)
            if (pick(0, 2) == 0 && inputs.size() < 6)
                inputs.insert(inputs.end(), outputs[static_cast<size_t>(q)].begin(),
                              outputs[static_cast<size_t>(q)].end());
        if (inputs.empty())
            inputs = g == 0 || pick(0, 2) == 0 ? std::vector<int>{0}
                                               : outputs[static_cast<size_t>(pick(0, g - 1))];
        std::sort(inputs.begin(), inputs.end());
        const int copies = pick(0, 2) == 0 ? 1 : pick(2, 3);
        const int64_t bytes = 4 * pick(1, 32);
        outputs.emplace_back();
        for (int c = 0; c < copies; ++c) {
            ir::MemoryProblem::Op op;
            op.name = "g" + std::to_string(g) + "c" + std::to_string(c);
            op.blockOp = static_cast<int>(p.ops.size());
            op.output = static_cast<int>(p.tensors.size());
            op.inputs = inputs;
            twins.push_back(c == 0 ? -1 : static_cast<int>(p.ops.size()) - 1);
            outputs.back().push_back(op.output);
            p.tensors.push_back({op.name, bytes, {static_cast<int>(p.ops.size())}, {}, false});
            p.ops.push_back(std::move(op));
        }
    }
    p.opOfBlockOp.resize(p.ops.size());
    p.assemblyOf.assign(p.ops.size(), -1);
    for (size_t i = 0; i < p.ops.size(); ++i)
        p.opOfBlockOp[i] = static_cast<int>(i);
    ir::finishMemoryProblem(p);
    // A copy whose group had no reader and was not the last group is a sink-free dangling
    // tensor like its twins: still interchangeable. Two groups can coincide by chance (same
    // inputs, size and readers): then their copies are twins too, and the expectation follows.
    for (size_t i = 0; i < p.ops.size(); ++i)
        if (twins[i] < 0)
            for (size_t j = 0; j < i; ++j) {
                const auto& a = p.ops[i];
                const auto& b = p.ops[j];
                const auto& ta = p.tensors[static_cast<size_t>(a.output)];
                const auto& tb = p.tensors[static_cast<size_t>(b.output)];
                if (a.inputs == b.inputs && ta.bytes == tb.bytes && ta.consumers == tb.consumers &&
                    ta.sink == tb.sink && p.preds[i] == p.preds[j] && p.succs[i] == p.succs[j]) {
                    int last = static_cast<int>(j);
                    for (size_t k = j + 1; k < i; ++k)
                        if (twins[k] == last)
                            last = static_cast<int>(k);
                    twins[i] = last;
                    break;
                }
            }
    return p;
}

bool topological(const ir::MemoryProblem& p, const std::vector<int>& order) {
    std::vector<char> done(p.ops.size(), 0);
    for (int op : order) {
        for (int q : p.preds[static_cast<size_t>(op)])
            if (done[static_cast<size_t>(q)] == 0)
                return false;
        done[static_cast<size_t>(op)] = 1;
    }
    return order.size() == p.ops.size();
}

} // namespace

class TestSerenitySymmetry : public QObject {
    Q_OBJECT

private Q_SLOTS:
    // The classes found are the copies made (each waits for the copy before it), no more.
    void twinsAreTheCopies() {
        std::mt19937 rng(1130);
        for (int trial = 0; trial < 300; ++trial) {
            std::vector<int> twins;
            const ir::MemoryProblem p = twinProblem(rng, 1 + trial % 8, twins);
            QCOMPARE(sy::twinBefore(p, sy::wholeSegment(p)), twins);
        }
    }

    // Same inputs and size are not enough: other readers, or an accumulation group's output.
    void readersAndAccumulationsKeepOpsApart() {
        ir::MemoryProblem p;
        p.name = "apart";
        p.tensors = {{"in", 8, {}, {}, false},
                     {"a", 4, {0}, {}, false},
                     {"b", 4, {1}, {}, false},
                     {"c", 4, {2}, {}, false}};
        p.ops = {{"a", 0, 1, {0}}, {"b", 1, 2, {0}}, {"c", 2, 3, {1}}}; // c reads a only
        p.opOfBlockOp = {0, 1, 2};
        p.assemblyOf = {-1, -1, -1};
        ir::finishMemoryProblem(p);
        QCOMPARE(sy::twinBefore(p, sy::wholeSegment(p)), (std::vector<int>{-1, -1, -1}));
        // a and b accumulate into one tensor: neither is swapped.
        ir::MemoryProblem q;
        q.name = "accumulate";
        q.tensors = {{"in", 8, {}, {}, false}, {"sum", 4, {0, 1}, {}, true}};
        q.ops = {{"a", 0, 1, {0}}, {"b", 1, 1, {0}}};
        q.opOfBlockOp = {0, 1};
        q.assemblyOf = {-1, -1};
        ir::finishMemoryProblem(q);
        QCOMPARE(sy::twinBefore(q, sy::wholeSegment(q)), (std::vector<int>{-1, -1}));
    }

    // The DP with twins in order: brute force's optimum, the peak of the DP over every
    // down-set, an order valid for the problem walking to that peak, never more down-sets
    // (fewer whenever a class has two ops), and the soft budget's result the same.
    void dpEqualsBruteForce() {
        std::mt19937 rng(2026);
        const int trials = kFullModels ? 600 : 150;
        int fewer = 0;
        for (int trial = 0; trial < trials; ++trial) {
            std::vector<int> twins;
            const ir::MemoryProblem p = twinProblem(rng, 1 + trial % 6, twins);
            if (p.ops.size() > 9)
                continue; // brute force walks every order
            const sy::Segment whole = sy::wholeSegment(p);
            const sy::DpResult broken = sy::memoryDp(p, whole, sy::kNoBudget, unlimited(true));
            const sy::DpResult every = sy::memoryDp(p, whole, sy::kNoBudget, unlimited(false));
            QVERIFY(broken.status == sy::DpStatus::Solution);
            const OrderOracle oracle(p, whole.ops);
            QCOMPARE(broken.peak, oracle.best);
            QCOMPARE(every.peak, oracle.best);
            QVERIFY(topological(p, broken.order));
            QCOMPARE(ir::orderPeak(p, broken.order), broken.peak);
            QVERIFY(broken.entries <= every.entries);
            if (std::any_of(twins.begin(), twins.end(), [](int t) { return t >= 0; })) {
                QVERIFY(broken.entries < every.entries);
                ++fewer;
            }
            const sy::SoftBudgetResult soft = sy::softBudget(p, whole, {}, 4);
            QVERIFY(soft.optimal);
            QCOMPARE(soft.peak, oracle.best);
        }
        QVERIFY(fewer > trials / 4);
    }

    // Segments after cut points, with ops done before them: the same peak either way.
    void segmentsAgree() {
        std::mt19937 rng(7);
        for (int trial = 0; trial < 60; ++trial) {
            std::vector<int> twins;
            const ir::MemoryProblem p = twinProblem(rng, 14, twins);
            for (const sy::Segment& s : sy::cutSegments(p)) {
                const sy::DpResult a = sy::memoryDp(p, s, sy::kNoBudget, unlimited(true));
                const sy::DpResult b = sy::memoryDp(p, s, sy::kNoBudget, unlimited(false));
                QCOMPARE(a.peak, b.peak);
                QCOMPARE(sy::segmentPeak(p, s, a.order), a.peak);
            }
        }
    }

    // The bundled models' blocks (NasNet-A, 8 M down-sets without twins in order, in optimised
    // builds only): the same optimal peak with fewer or as many down-sets.
    void bundledModels_data() {
        QTest::addColumn<QString>("model");
        for (const char* m : {"squeezenet", "inception_v3", "randwire_large", "darts_v2_cells",
                              "swiftnet_cell", "nasnet_large"})
            QTest::newRow(m) << m;
    }
    void bundledModels() {
        QFETCH(QString, model);
        if (model == QStringLiteral("nasnet_large") && !kFullModels)
            QSKIP("NasNet-A's exact DP over every down-set runs in optimised builds");
        const ir::Graph g = samples::loadModel(model.toStdString());
        const auto problems = ir::modelMemoryProblems(g, ir::buildDags(g), ir::MemoryOptions{});
        for (const ir::MemoryProblem& p : problems)
            for (const sy::Segment& s : sy::cutSegments(p)) {
                const sy::DpResult a = sy::memoryDp(p, s, sy::kNoBudget, unlimited(true));
                const sy::DpResult b = sy::memoryDp(p, s, sy::kNoBudget, unlimited(false));
                QCOMPARE(a.peak, b.peak);
                QVERIFY(a.entries <= b.entries);
                QCOMPARE(sy::segmentPeak(p, s, a.order), a.peak);
            }
    }
};

QTEST_APPLESS_MAIN(TestSerenitySymmetry)
#include "tst_serenity_symmetry.moc"
