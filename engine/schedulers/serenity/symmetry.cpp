// SPDX-License-Identifier: Apache-2.0
#include "schedulers/serenity/symmetry.h"

#include <algorithm>
#include <cstdint>
#include <unordered_map>

namespace ios::schedulers::serenity {

namespace {

using Op = ir::MemoryProblem::Op;
using Tensor = ir::MemoryProblem::Tensor;

bool interchangeable(const ir::MemoryProblem& p, int a, int b) {
    const Op& x = p.ops[static_cast<size_t>(a)];
    const Op& y = p.ops[static_cast<size_t>(b)];
    const Tensor& tx = p.tensors[static_cast<size_t>(x.output)];
    const Tensor& ty = p.tensors[static_cast<size_t>(y.output)];
    return x.inputs == y.inputs && x.transientBytes == y.transientBytes &&
           x.accumulateBytes == y.accumulateBytes && tx.bytes == ty.bytes && tx.sink == ty.sink &&
           tx.consumers == ty.consumers &&
           p.preds[static_cast<size_t>(a)] == p.preds[static_cast<size_t>(b)] &&
           p.succs[static_cast<size_t>(a)] == p.succs[static_cast<size_t>(b)];
}

uint64_t signature(const ir::MemoryProblem& p, int op) {
    const Op& o = p.ops[static_cast<size_t>(op)];
    const Tensor& t = p.tensors[static_cast<size_t>(o.output)];
    uint64_t h = 0x9E3779B97F4A7C15ull;
    const auto mix = [&h](uint64_t v) {
        h = (h ^ v) * 0xBF58476D1CE4E5B9ull + 0x94D049BB133111EBull;
    };
    for (int i : o.inputs)
        mix(static_cast<uint64_t>(i));
    mix(static_cast<uint64_t>(t.bytes));
    for (int c : t.consumers)
        mix(static_cast<uint64_t>(c));
    return h;
}

} // namespace

std::vector<int> twinBefore(const ir::MemoryProblem& p, const Segment& segment) {
    std::vector<int> before(segment.ops.size(), -1);
    std::unordered_map<uint64_t, std::vector<size_t>> heads; // signature → first of each class
    std::vector<size_t> latest(segment.ops.size(), 0);       // class head → its latest op
    for (size_t i = 0; i < segment.ops.size(); ++i) {
        const int op = segment.ops[i];
        const Tensor& out = p.tensors[static_cast<size_t>(p.ops[static_cast<size_t>(op)].output)];
        if (out.producers.size() != 1) // an accumulation group's member: not swapped
            continue;
        std::vector<size_t>& classes = heads[signature(p, op)];
        const auto head = std::find_if(classes.begin(), classes.end(), [&](size_t h) {
            return interchangeable(p, segment.ops[h], op);
        });
        if (head == classes.end()) {
            classes.push_back(i);
            latest[i] = i;
            continue;
        }
        before[i] = static_cast<int>(latest[*head]);
        latest[*head] = i;
    }
    return before;
}

} // namespace ios::schedulers::serenity
