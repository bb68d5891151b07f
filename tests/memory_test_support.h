// SPDX-License-Identifier: Apache-2.0
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

// `width` ops reading the input, then `sinks` ops each reading all of them (0: one exit
// reading them all), every tensor `bytes` bytes: a wide graph for the DP's bounds.
inline ir::MemoryProblem wideMemoryProblem(int width, int sinks, int64_t bytes = 1024) {
    ir::MemoryProblem p;
    p.name = "wide";
    p.tensors.push_back({"in", bytes, {}, {}, false});
    auto add = [&p, bytes](const std::string& name, std::vector<int> inputs) {
        ir::MemoryProblem::Op op;
        op.name = name;
        op.blockOp = static_cast<int>(p.ops.size());
        op.output = static_cast<int>(p.tensors.size());
        op.inputs = std::move(inputs);
        p.tensors.push_back({name, bytes, {static_cast<int>(p.ops.size())}, {}, false});
        p.ops.push_back(std::move(op));
    };
    std::vector<int> first;
    for (int i = 0; i < width; ++i) {
        first.push_back(static_cast<int>(p.tensors.size()));
        add("a" + std::to_string(i), {0});
    }
    std::vector<int> second;
    for (int j = 0; j < std::max(1, sinks); ++j) {
        second.push_back(static_cast<int>(p.tensors.size()));
        add("b" + std::to_string(j), first);
    }
    if (sinks > 0)
        add("y", second);
    p.tensors.back().sink = true;
    p.opOfBlockOp.resize(p.ops.size());
    p.assemblyOf.assign(p.ops.size(), -1);
    for (size_t i = 0; i < p.ops.size(); ++i)
        p.opOfBlockOp[i] = static_cast<int>(i);
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
