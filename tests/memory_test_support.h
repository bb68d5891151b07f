// Shared by the memory tests: random memory problems built directly (op DAGs with multi-
// consumer tensors, several sinks, varied sizes), and an independent oracle that walks every
// topological order with its own straightforward live-set bookkeeping.
#pragma once

#include "ir/memory.h"

#include <algorithm>
#include <cstdint>
#include <functional>
#include <map>
#include <random>
#include <string>
#include <vector>

namespace ios::testing {

// n ops "u0".. in topological order reading the input tensor "in" or earlier ops (up to
// three inputs, edges mostly local); sizes are multiples of 4 in [4, 64 * 4].
inline ir::MemoryProblem randomMemoryProblem(std::mt19937& rng, int n, double edgeDensity = 0.5) {
    auto pick = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
    std::bernoulli_distribution edge(edgeDensity);
    ir::MemoryProblem p;
    p.name = "random";
    p.tensors.push_back({"in", 4 * pick(1, 64), {}, {}, false});
    for (int i = 0; i < n; ++i) {
        ir::MemoryProblem::Op op;
        op.name = "u" + std::to_string(i);
        op.blockOp = i;
        op.output = static_cast<int>(p.tensors.size());
        for (int q = std::max(0, i - 4); q < i; ++q)
            if (edge(rng) && op.inputs.size() < 3)
                op.inputs.push_back(p.ops[static_cast<size_t>(q)].output);
        if (op.inputs.empty())
            op.inputs.push_back(i == 0 || pick(0, 2) == 0 ? 0 : pick(1, i)); // tensor index
        p.tensors.push_back({op.name, 4 * pick(1, 64), {i}, {}, false});
        p.ops.push_back(std::move(op));
    }
    p.opOfBlockOp.resize(static_cast<size_t>(n));
    p.assemblyOf.assign(static_cast<size_t>(n), -1);
    for (int i = 0; i < n; ++i)
        p.opOfBlockOp[static_cast<size_t>(i)] = i;
    ir::finishMemoryProblem(p);
    return p;
}

// Every topological order of `ops` (after `before`), with its peak computed from scratch: at
// each step, live = constant + every tensor produced (or the input) and not yet dead, where a
// dead tensor is a non-sink whose consumers have all run; sample = live + the new output.
struct OrderOracle {
    std::map<int64_t, uint64_t> peaks; // peak → number of orders
    int64_t best = INT64_MAX;

    OrderOracle(const ir::MemoryProblem& p, const std::vector<int>& ops,
                const std::vector<int>& before = {}) {
        std::vector<char> ran(p.ops.size(), 0);
        for (int b : before)
            ran[static_cast<size_t>(b)] = 1;
        std::vector<int> order;
        std::function<void()> rec = [&] {
            if (order.size() == ops.size()) {
                const int64_t peak = walk(p, ran, order, before);
                ++peaks[peak];
                best = std::min(best, peak);
                return;
            }
            for (int u : ops) {
                if (std::find(order.begin(), order.end(), u) != order.end())
                    continue;
                bool ready = true;
                for (int q : p.preds[static_cast<size_t>(u)])
                    ready = ready && (ran[static_cast<size_t>(q)] != 0 ||
                                      std::find(order.begin(), order.end(), q) != order.end());
                if (!ready)
                    continue;
                order.push_back(u);
                rec();
                order.pop_back();
            }
        };
        rec();
    }

    static int64_t live(const ir::MemoryProblem& p, const std::vector<char>& done) {
        int64_t bytes = p.constantBytes;
        for (const ir::MemoryProblem::Tensor& t : p.tensors) {
            bool made = t.producers.empty();
            for (int q : t.producers)
                made = made || done[static_cast<size_t>(q)] != 0;
            bool dead = !t.sink;
            for (int c : t.consumers)
                dead = dead && done[static_cast<size_t>(c)] != 0;
            if (made && !dead)
                bytes += t.bytes;
        }
        return bytes;
    }

    static int64_t walk(const ir::MemoryProblem& p, std::vector<char> done,
                        const std::vector<int>& order, const std::vector<int>& /*before*/) {
        int64_t peak = live(p, done);
        for (int u : order) {
            const ir::MemoryProblem::Op& op = p.ops[static_cast<size_t>(u)];
            const ir::MemoryProblem::Tensor& out = p.tensors[static_cast<size_t>(op.output)];
            bool allocated = false;
            for (int q : out.producers)
                allocated = allocated || done[static_cast<size_t>(q)] != 0;
            const int64_t sample =
                live(p, done) + (allocated ? op.accumulateBytes : out.bytes) + op.transientBytes;
            peak = std::max(peak, sample);
            done[static_cast<size_t>(u)] = 1;
        }
        return peak;
    }
};

} // namespace ios::testing
