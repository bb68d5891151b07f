// SPDX-License-Identifier: Apache-2.0
#include "ir/memory.h"

#include "ir/metrics.h"
#include "util/checked.h"
#include "util/error.h"

#include <algorithm>
#include <limits>
#include <map>
#include <optional>
#include <span>
#include <stdexcept>
#include <unordered_map>

namespace ios::ir {

namespace {

// Far above any device, far below int64 overflow when thousands of tensors are summed.
constexpr int64_t kMaxTensorBytes = int64_t{1} << 50;
constexpr int64_t kMaxBatch = 1 << 20;

int64_t checkedBytes(std::optional<int64_t> bytes, const std::string& node) {
    if (!bytes || *bytes > kMaxTensorBytes)
        throw UserError("tensor size in bytes is too large (over 2^50)", {}, node,
                        Hint::LowerBatch);
    return *bytes;
}

// Bytes of a tensor of `node` (named in the error when they overflow).
int64_t bytesOf(const TensorShape& shape, const MemoryOptions& options, const std::string& node) {
    const auto bytes = checked::mul(
        checked::mul(checked::mul(checked::mul(shape.c, shape.h), shape.w), options.batch),
        options.bytesPerElement);
    return checkedBytes(bytes, node);
}

// Does the node read an input the assembly option materialises (several terms, or a sum)?
bool assemblesInput(const Node& node) {
    if (node.kind == NodeKind::Identity || node.kind == NodeKind::Element)
        return false;
    const std::vector<Term>& in = node.externalInputs();
    if (in.size() > 1)
        return true;
    return in.size() == 1 && in.front().size() > 1;
}

int64_t inputChannels(const Node& node) {
    int64_t c = 0;
    for (const Term& t : node.externalInputs())
        if (!t.empty())
            c += t.front().channels();
    return c;
}

// Sequential: max over k of out_{k-1}·[k ≥ 2] + out_k.
int64_t sequentialTransient(const Node& node, const MemoryOptions& options) {
    int64_t best = 0;
    int64_t previous = 0;
    for (const Node& inner : node.nodes) {
        const int64_t out = bytesOf(inner.outputShape, options, inner.name);
        best = std::max(best, previous + out);
        previous = out;
    }
    return best;
}

} // namespace

void checkMemoryOptions(const MemoryOptions& options) {
    if (options.batch < 1 || options.batch > kMaxBatch)
        throw UserError("batch size must be between 1 and " + std::to_string(kMaxBatch) + ", not " +
                        std::to_string(options.batch));
    if (options.bytesPerElement < 1 || options.bytesPerElement > 64)
        throw UserError("bytes per element must be between 1 and 64, not " +
                        std::to_string(options.bytesPerElement));
}

int64_t tensorBytes(const TensorShape& shape, const MemoryOptions& options) {
    return bytesOf(shape, options, {});
}

int64_t MemoryProblem::totalBytes() const {
    int64_t total = constantBytes;
    for (const Tensor& t : tensors)
        total += t.bytes;
    return total;
}

void finishMemoryProblem(MemoryProblem& p) {
    const int n = static_cast<int>(p.ops.size());
    for (MemoryProblem::Tensor& t : p.tensors) {
        t.consumers.clear();
        std::sort(t.producers.begin(), t.producers.end());
    }
    for (int i = 0; i < n; ++i) {
        std::vector<int>& in = p.ops[i].inputs;
        std::sort(in.begin(), in.end());
        in.erase(std::unique(in.begin(), in.end()), in.end());
        for (int t : in)
            p.tensors[t].consumers.push_back(i);
    }
    p.preds.assign(n, {});
    p.succs.assign(n, {});
    for (int i = 0; i < n; ++i) {
        for (int t : p.ops[i].inputs)
            for (int producer : p.tensors[t].producers) {
                if (producer >= i)
                    throw std::logic_error("memory problem '" + p.name + "': op '" + p.ops[i].name +
                                           "' is not after its producer");
                p.preds[i].push_back(producer);
            }
        std::sort(p.preds[i].begin(), p.preds[i].end());
        p.preds[i].erase(std::unique(p.preds[i].begin(), p.preds[i].end()), p.preds[i].end());
        for (int q : p.preds[i])
            p.succs[q].push_back(i);
    }
    for (MemoryProblem::Tensor& t : p.tensors)
        if (t.consumers.empty())
            t.sink = true; // dangling outputs stay (TFLite keeps graph outputs)
    std::optional<int64_t> total = p.constantBytes;
    for (const MemoryProblem::Tensor& t : p.tensors)
        total = checked::add(total, t.bytes);
    if (!total || *total > kMaxTensorBytes)
        throw UserError("the tensors of block '" + p.name +
                            "' total more than 2^50 bytes (lower the batch or the bytes per "
                            "element)",
                        Hint::LowerBatch);
}

MemoryProblem blockMemoryProblem(const Graph& graph, const BlockDag& dag, int blockIndex,
                                 const MemoryOptions& options) {
    checkMemoryOptions(options);
    const Block& block = graph.blocks.at(static_cast<size_t>(blockIndex));
    MemoryProblem p;
    p.name = block.enterName;
    std::unordered_map<std::string, int> tensorOf;
    p.tensors.push_back({block.enterName,
                         bytesOf(block.enterNode.outputShape, options, block.enterName),
                         {},
                         {},
                         false});
    tensorOf.emplace(block.enterName, 0);

    const int n = static_cast<int>(dag.ops.size());
    p.opOfBlockOp.assign(n, -1);
    p.assemblyOf.assign(n, -1);
    std::optional<NodeIndex> index; // only the assembly shapes and the weights need it
    if (options.materializedAssembly || options.countWeights)
        index.emplace(graph);
    for (int i = 0; i < n; ++i) {
        const Node& node = *dag.ops[i];
        std::vector<int> inputs;
        for (const Term& term : node.externalInputs())
            for (const ValueRef& v : term)
                if (auto it = tensorOf.find(v.node); it != tensorOf.end())
                    inputs.push_back(it->second);
                else
                    throw UserError("reads '" + v.node + "', which is not in its block", {},
                                    node.name);
        if (options.materializedAssembly && assemblesInput(node)) {
            MemoryProblem::Op assembly;
            assembly.name = node.name + ".assembly";
            assembly.inputs = inputs;
            assembly.output = static_cast<int>(p.tensors.size());
            // Terms share H×W (validated): the first value's producer gives it.
            const Node* src = index->find(node.externalInputs().front().front().node);
            const TensorShape shape{inputChannels(node), src->outputShape.h, src->outputShape.w};
            p.tensors.push_back({assembly.name, bytesOf(shape, options, node.name), {}, {}, false});
            p.assemblyOf[i] = static_cast<int>(p.ops.size());
            p.tensors.back().producers.push_back(static_cast<int>(p.ops.size()));
            inputs = {assembly.output};
            p.ops.push_back(std::move(assembly));
        }
        MemoryProblem::Op op;
        op.name = node.name;
        op.blockOp = i;
        op.inputs = std::move(inputs);
        op.output = static_cast<int>(p.tensors.size());
        if (options.sequentialTransients && node.kind == NodeKind::Sequential) {
            const int64_t out = bytesOf(node.outputShape, options, node.name);
            op.transientBytes = std::max<int64_t>(0, sequentialTransient(node, options) - out);
        }
        p.tensors.push_back(
            {node.name, bytesOf(node.outputShape, options, node.name), {}, {}, false});
        p.tensors.back().producers.push_back(static_cast<int>(p.ops.size()));
        tensorOf[node.name] = op.output;
        p.opOfBlockOp[i] = static_cast<int>(p.ops.size());
        p.ops.push_back(std::move(op));
        if (options.countWeights) {
            const OperatorMetrics m = computeMetrics(node, *index);
            const auto bytes = checked::mul(m.parameters, options.bytesPerElement);
            p.constantBytes = checkedBytes(
                checked::add(p.constantBytes, checkedBytes(bytes, node.name)), node.name);
        }
    }
    if (n > 0)
        p.tensors[static_cast<size_t>(p.ops[p.opOfBlockOp[n - 1]].output)].sink = true;
    finishMemoryProblem(p);
    return p;
}

std::vector<MemoryProblem> modelMemoryProblems(const Graph& graph,
                                               const std::vector<BlockDag>& dags,
                                               const MemoryOptions& options) {
    std::vector<MemoryProblem> out;
    out.reserve(dags.size());
    for (size_t b = 0; b < dags.size(); ++b)
        out.push_back(blockMemoryProblem(graph, dags[b], static_cast<int>(b), options));
    return out;
}

MemoryProblem joinedMemoryProblem(const std::vector<MemoryProblem>& blocks) {
    MemoryProblem whole;
    whole.name = "model";
    int carried = -1; // the previous block's exit tensor in `whole`
    for (const MemoryProblem& b : blocks) {
        const int opBase = static_cast<int>(whole.ops.size());
        std::vector<int> tensorMap(b.tensors.size());
        for (size_t t = 0; t < b.tensors.size(); ++t) {
            if (b.tensors[t].producers.empty() && carried >= 0) {
                tensorMap[t] = carried; // this block's input is the previous exit
                continue;
            }
            tensorMap[t] = static_cast<int>(whole.tensors.size());
            MemoryProblem::Tensor copy = b.tensors[t];
            copy.sink = false;
            for (int& producer : copy.producers)
                producer += opBase;
            whole.tensors.push_back(std::move(copy));
        }
        for (const MemoryProblem::Op& op : b.ops) {
            MemoryProblem::Op copy = op;
            copy.blockOp = -1;
            copy.output = tensorMap[static_cast<size_t>(op.output)];
            for (int& t : copy.inputs)
                t = tensorMap[static_cast<size_t>(t)];
            whole.ops.push_back(std::move(copy));
        }
        whole.constantBytes += b.constantBytes;
        carried = -1;
        for (size_t t = 0; t < b.tensors.size(); ++t)
            if (b.tensors[t].sink && !b.tensors[t].producers.empty())
                carried = tensorMap[t]; // the exit: the last sink with a producer
    }
    finishMemoryProblem(whole);
    return whole;
}

MemorySteps orderSteps(const std::vector<int>& order) {
    MemorySteps steps;
    steps.reserve(order.size());
    for (int op : order)
        steps.push_back({op});
    return steps;
}

MemoryWalk walkMemory(const MemoryProblem& p, const MemorySteps& steps, bool keepLive) {
    const size_t n = p.ops.size();
    std::vector<char> done(n, 0);
    std::vector<char> allocated(p.tensors.size(), 0);
    std::vector<int> pending(p.tensors.size(), 0); // consumers not yet run
    int64_t live = p.constantBytes;
    for (size_t t = 0; t < p.tensors.size(); ++t) {
        pending[t] = static_cast<int>(p.tensors[t].consumers.size());
        if (p.tensors[t].producers.empty()) {
            allocated[t] = 1;
            live += p.tensors[t].bytes;
        }
    }
    MemoryWalk walk;
    size_t seen = 0;
    for (const std::vector<int>& step : steps) {
        for (int op : step) {
            if (op < 0 || static_cast<size_t>(op) >= n)
                throw UserError("schedule names an operator index out of range (" +
                                    std::to_string(op) + ")",
                                {}, p.name);
            if (done[static_cast<size_t>(op)] != 0)
                throw UserError("scheduled twice", {}, p.ops[static_cast<size_t>(op)].name);
            done[static_cast<size_t>(op)] = 2; // in this step
        }
        int64_t sample = live;
        for (int op : step) {
            const MemoryProblem::Op& o = p.ops[static_cast<size_t>(op)];
            for (int q : p.preds[static_cast<size_t>(op)])
                if (done[static_cast<size_t>(q)] == 0) // same step: a group's chain
                    throw UserError("runs before '" + p.ops[static_cast<size_t>(q)].name +
                                        "', which produces its input",
                                    {}, o.name);
            const auto out = static_cast<size_t>(o.output);
            if (allocated[out] == 0) {
                allocated[out] = 1;
                live += p.tensors[out].bytes;
                sample += p.tensors[out].bytes;
            } else {
                sample += o.accumulateBytes;
            }
            sample += o.transientBytes;
        }
        walk.stepPeak.push_back(sample);
        if (keepLive) {
            std::vector<int> at;
            for (size_t t = 0; t < p.tensors.size(); ++t)
                if (allocated[t] == 1)
                    at.push_back(static_cast<int>(t));
            walk.liveAt.push_back(std::move(at));
        }
        if (walk.peakStep < 0 || sample > walk.peak) {
            walk.peak = sample;
            walk.peakStep = static_cast<int>(walk.stepPeak.size()) - 1;
        }
        for (int op : step) {
            done[static_cast<size_t>(op)] = 1;
            for (int t : p.ops[static_cast<size_t>(op)].inputs) {
                const auto ti = static_cast<size_t>(t);
                if (--pending[ti] == 0 && !p.tensors[ti].sink && allocated[ti] == 1) {
                    allocated[ti] = 2; // freed
                    live -= p.tensors[ti].bytes;
                }
            }
        }
        walk.liveAfter.push_back(live);
        seen += step.size();
    }
    if (seen != n)
        for (size_t i = 0; i < n; ++i)
            if (done[i] == 0)
                throw UserError("is not scheduled", {}, p.ops[i].name);
    if (steps.empty())
        walk.peak = live;
    return walk;
}

int64_t orderPeak(const MemoryProblem& problem, const std::vector<int>& order) {
    return walkMemory(problem, orderSteps(order)).peak;
}

std::vector<int> stepOfBlockOps(const MemoryProblem& problem, const std::vector<int>& blockOps) {
    std::vector<int> step;
    for (int b : blockOps) {
        const auto i = static_cast<size_t>(b);
        if (problem.assemblyOf[i] >= 0)
            step.push_back(problem.assemblyOf[i]);
        step.push_back(problem.opOfBlockOp[i]);
    }
    std::sort(step.begin(), step.end());
    return step;
}

std::vector<int> kahnOrder(const MemoryProblem& p) {
    const size_t n = p.ops.size();
    std::vector<int> missing(n);
    std::vector<int> queue;
    queue.reserve(n);
    for (size_t i = 0; i < n; ++i) {
        missing[i] = static_cast<int>(p.preds[i].size());
        if (missing[i] == 0)
            queue.push_back(static_cast<int>(i));
    }
    for (size_t head = 0; head < queue.size(); ++head)
        for (int s : p.succs[static_cast<size_t>(queue[head])])
            if (--missing[static_cast<size_t>(s)] == 0)
                queue.push_back(s);
    return queue;
}

namespace {

// TFLite's simple memory arena (arenaFootprint, arenaSteps): best-fit placement by offset,
// releases when a tensor's last consumer has run.
class SimpleArena {
public:
    explicit SimpleArena(const MemoryProblem& p)
        : p_(p), offsetOf_(p.tensors.size(), -1), pending_(p.tensors.size()) {
        for (size_t t = 0; t < p.tensors.size(); ++t) {
            pending_[t] = static_cast<int>(p.tensors[t].consumers.size());
            if (p.tensors[t].producers.empty())
                offsetOf_[t] = place(p.tensors[t].bytes, static_cast<int>(t));
        }
    }

    // Places the outputs of `ops` not yet placed, and a scratch block for each op's
    // temporaries (an accumulation group's later member, a sequential's transients); then
    // releases the scratch blocks and the inputs whose consumers are all done.
    void run(std::span<const int> ops) {
        scratch_.clear();
        for (int op : ops) {
            const MemoryProblem::Op& o = p_.ops[static_cast<size_t>(op)];
            int64_t temporary = o.transientBytes;
            if (offsetOf_[static_cast<size_t>(o.output)] < 0)
                offsetOf_[static_cast<size_t>(o.output)] =
                    place(p_.tensors[static_cast<size_t>(o.output)].bytes, o.output);
            else
                temporary += o.accumulateBytes;
            if (temporary > 0)
                scratch_.push_back(place(temporary, -1));
        }
        for (int64_t offset : scratch_)
            allocs_.erase(offset);
        for (int op : ops)
            for (int t : p_.ops[static_cast<size_t>(op)].inputs) {
                const auto ti = static_cast<size_t>(t);
                if (--pending_[ti] == 0 && !p_.tensors[ti].sink && offsetOf_[ti] >= 0)
                    allocs_.erase(offsetOf_[ti]);
            }
    }

    int64_t footprint() const { return highWater_ + p_.constantBytes; }

private:
    static constexpr int64_t kAlign = 4;
    static int64_t alignUp(int64_t x) { return (x + kAlign - 1) / kAlign * kAlign; }

    // Best fit by offset, else on top; `tensor` -1 for a scratch block. Returns the offset.
    int64_t place(int64_t size, int tensor) {
        const int64_t top =
            allocs_.empty() ? 0 : allocs_.rbegin()->first + allocs_.rbegin()->second.first;
        int64_t best = alignUp(top);
        int64_t bestFit = std::numeric_limits<int64_t>::max();
        int64_t current = 0;
        for (const auto& [offset, entry] : allocs_) {
            const int64_t aligned = alignUp(current);
            if (aligned + size <= offset && offset - current < bestFit) {
                best = aligned;
                bestFit = offset - current;
            }
            current = offset + entry.first;
        }
        allocs_.emplace(best, std::make_pair(size, tensor));
        highWater_ = std::max(highWater_, best + size);
        return best;
    }

    const MemoryProblem& p_;
    std::map<int64_t, std::pair<int64_t, int>> allocs_; // offset → (size, tensor), sorted
    std::vector<int64_t> offsetOf_;
    std::vector<int> pending_;     // consumers not yet run
    std::vector<int64_t> scratch_; // this step's scratch blocks (offsets)
    int64_t highWater_ = 0;
};

} // namespace

int64_t arenaFootprint(const MemoryProblem& p, const std::vector<int>& order) {
    SimpleArena arena(p);
    for (const int& op : order)
        arena.run(std::span<const int>(&op, 1));
    return arena.footprint();
}

std::vector<int64_t> arenaSteps(const MemoryProblem& p, const MemorySteps& steps) {
    SimpleArena arena(p);
    std::vector<int64_t> out;
    out.reserve(steps.size());
    for (const std::vector<int>& step : steps) {
        arena.run(step);
        out.push_back(arena.footprint());
    }
    return out;
}

} // namespace ios::ir
