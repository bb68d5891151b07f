// SPDX-License-Identifier: Apache-2.0
#include "lowered_model.h"

#include "cost/measurement_cache.h"
#include "ref/reference_executor.h"
#include "schedule/merged_weights.h"
#include "util/error.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace ios::profiling {

namespace {

// The reference executor's deterministic values (ref::uniformValues, ref::nameSeed) in float:
// the same on every platform, so a weight set is a function of (seed, node name) alone.
std::vector<float> randomValues(size_t count, uint64_t seed, float scale) {
    const std::vector<double> values = ref::uniformValues(count, seed, scale);
    std::vector<float> v(count);
    std::transform(values.begin(), values.end(), v.begin(),
                   [](double x) { return static_cast<float>(x); });
    return v;
}

uint64_t nameHash(const std::string& name, uint64_t seed) {
    return ref::nameSeed(name, seed);
}

bool isFullValue(const std::vector<ir::Term>& inputs, int64_t producerChannels) {
    return inputs.size() == 1 && inputs[0].size() == 1 && inputs[0][0].begin == 0 &&
           inputs[0][0].end == producerChannels;
}

} // namespace

LoweredModel::LoweredModel(const ir::Graph& graph, GpuBackend& backend, int batch, uint64_t seed)
    : graph_(graph), backend_(backend), batch_(batch), seed_(seed) {
    if (batch < 1)
        throw UserError("batch size must be at least 1 (got " + std::to_string(batch) + ")");
    Tensor input = allocateTensor(graph.input.outputShape, false);
    backend_.upload(input.buffer, randomValues(static_cast<size_t>(input.dims.elements()),
                                               nameHash(graph.input.name, seed_), 1.0f));
    tensors_[graph.input.name] = input;
    for (const ir::Block& block : graph.blocks)
        for (const ir::Node* op : block.operators())
            lowerOperator(*op);
}

LoweredModel::Tensor LoweredModel::allocateTensor(const ir::TensorShape& shape, bool activation) {
    Tensor t;
    t.dims = {batch_, shape.c, shape.h, shape.w};
    t.buffer = backend_.allocate(t.dims.elements());
    if (activation)
        activations_.push_back(t);
    return t;
}

const LoweredModel::Tensor& LoweredModel::tensorOf(const std::string& name) const {
    auto it = tensors_.find(name);
    if (it == tensors_.end())
        throw UserError("input names a node that has not been computed yet", {}, name);
    return it->second;
}

// Terms are concatenated along channels, the values of a term combined with `op`
// (docs/formats.md "Model structure"). A single whole value needs no kernel: its producer's
// tensor is used as is.
LoweredModel::Tensor LoweredModel::gather(const std::vector<ir::Term>& inputs, ir::ElementOp op,
                                          const Tensor* into, std::vector<Kernel>& out) {
    if (into == nullptr && !inputs.empty() && inputs[0].size() == 1) {
        const Tensor& src = tensorOf(inputs[0][0].node);
        if (isFullValue(inputs, src.dims.c))
            return src;
    }
    const Tensor& first = tensorOf(inputs.at(0).at(0).node);
    ir::TensorShape shape{0, first.dims.h, first.dims.w};
    for (const ir::Term& term : inputs)
        shape.c += term.at(0).channels();
    Tensor dst = into ? *into : allocateTensor(shape, true);
    int64_t offset = 0;
    for (const ir::Term& term : inputs) {
        for (size_t v = 0; v < term.size(); ++v) {
            const Tensor& src = tensorOf(term[v].node);
            ChannelSlice s{src.buffer, src.dims, term[v].begin};
            ChannelSlice d{dst.buffer, dst.dims, offset};
            if (v == 0)
                out.emplace_back(CopyKernel{s, d, term[v].channels()});
            else
                out.emplace_back(AccumulateKernel{s, d, term[v].channels(), op});
        }
        offset += term.at(0).channels();
    }
    return dst;
}

ConvKernel LoweredModel::convKernel(const ir::Node& node, const Tensor& in, BufferId out) {
    ConvKernel k;
    k.in = in.buffer;
    k.inDims = in.dims;
    k.out = out;
    k.outDims = {batch_, node.outputShape.c, node.outputShape.h, node.outputShape.w};
    k.kernel = node.conv.kernel;
    k.stride = node.conv.stride;
    k.padding = node.conv.padding;
    k.groups = node.conv.groups;
    k.act = node.conv.act;
    return k;
}

// The learned tokens and the table: the reference executor's values for (node name, seed), so
// the mock backend's output can be compared with ref::ReferenceExecutor's.
TokensKernel LoweredModel::tokensKernel(const ir::Node& node, const Tensor& in, const Tensor& out) {
    const ir::TokenAttrs& t = node.tokens;
    constexpr int64_t kExactFloatIntegers = int64_t{1} << 24;
    std::vector<float> index;
    index.reserve(t.index.size());
    for (int64_t i : t.index) {
        if (i >= kExactFloatIntegers || -i >= kExactFloatIntegers)
            throw UserError("token index " + std::to_string(i) +
                                " is too large for the GPU executor (at most 2^24 positions)",
                            {}, node.name);
        index.push_back(static_cast<float>(i));
    }
    TokensKernel k{in.buffer, out.buffer, backend_.allocate(static_cast<int64_t>(index.size())),
                   -1,        -1,         in.dims,
                   out.dims};
    backend_.upload(k.index, index);
    if (const int64_t learned = t.learnedTokens(); learned > 0) {
        k.learned = backend_.allocate(learned * in.dims.c);
        backend_.upload(k.learned, randomValues(static_cast<size_t>(learned * in.dims.c),
                                                nameHash(node.name + "/tokens", seed_), 1.0f));
    }
    if (t.embed) {
        k.tableChannels = t.tableChannels(in.dims.c);
        k.tablePositions = t.tablePositions();
        const int64_t size = k.tableChannels * k.tablePositions;
        k.table = backend_.allocate(size);
        backend_.upload(k.table, randomValues(static_cast<size_t>(size),
                                              nameHash(node.name + "/embedding", seed_), 1.0f));
    }
    return k;
}

// He-like scale (variance 1 / fan-in) keeps activations bounded through deep networks.
std::vector<float> LoweredModel::hostWeights(const ir::Node& node) const {
    int64_t inChannels = 0;
    for (const ir::Term& term : node.inputs)
        inChannels += term.at(0).channels();
    const int64_t fanIn = inChannels / node.conv.groups * node.conv.kernel.h * node.conv.kernel.w;
    const auto count = static_cast<size_t>(node.conv.outChannels * fanIn);
    return randomValues(count, nameHash(node.name + "/w", seed_),
                        static_cast<float>(std::sqrt(3.0 / static_cast<double>(fanIn))));
}

std::vector<float> LoweredModel::hostBias(const ir::Node& node) const {
    return randomValues(static_cast<size_t>(node.conv.outChannels),
                        nameHash(node.name + "/b", seed_), 0.1f);
}

void LoweredModel::lowerNode(const ir::Node& node) {
    using ir::NodeKind;
    Lowered low;
    Tensor out;
    switch (node.kind) {
    case NodeKind::Identity:
    case NodeKind::Element: {
        const ir::ElementOp op = node.kind == NodeKind::Element ? node.element : ir::ElementOp::Add;
        if (op == ir::ElementOp::Add)
            out = gather(node.inputs, op, nullptr, low.kernels); // a whole single value aliases
        else {
            Tensor dst = allocateTensor(node.outputShape, true);
            out = gather(node.inputs, op, &dst, low.kernels);
        }
        break;
    }
    case NodeKind::Conv: {
        low.input = gather(node.inputs, ir::ElementOp::Add, nullptr, low.kernels);
        low.gatherKernels = static_cast<int>(low.kernels.size());
        out = allocateTensor(node.outputShape, true);
        ConvKernel k = convKernel(node, low.input, out.buffer);
        const std::vector<float> weights = hostWeights(node);
        k.weights = backend_.allocate(static_cast<int64_t>(weights.size()));
        backend_.upload(k.weights, weights);
        k.bias = backend_.allocate(node.conv.outChannels);
        backend_.upload(k.bias, hostBias(node));
        low.kernels.emplace_back(k);
        break;
    }
    case NodeKind::Pool: {
        low.input = gather(node.inputs, ir::ElementOp::Add, nullptr, low.kernels);
        out = allocateTensor(node.outputShape, true);
        PoolKernel k{low.input.buffer, out.buffer,       low.input.dims,   out.dims,
                     node.pool.type,   node.pool.kernel, node.pool.stride, node.pool.padding};
        if (k.type == ir::PoolType::GlobalAvg || k.type == ir::PoolType::GlobalMax)
            k = PoolKernel{k.in,   k.out, k.inDims, k.outDims, k.type, {k.inDims.h, k.inDims.w},
                           {1, 1}, {0, 0}};
        low.kernels.emplace_back(k);
        break;
    }
    case NodeKind::Relu:
    case NodeKind::Activation: {
        low.input = gather(node.inputs, ir::ElementOp::Add, nullptr, low.kernels);
        out = allocateTensor(node.outputShape, true);
        const ir::ActType act = node.kind == NodeKind::Relu ? ir::ActType::Relu : node.activation;
        if (act == ir::ActType::Identity)
            low.kernels.emplace_back(CopyKernel{
                {low.input.buffer, low.input.dims, 0}, {out.buffer, out.dims, 0}, out.dims.c});
        else
            low.kernels.emplace_back(ActivationKernel{low.input.buffer, out.buffer, out.dims, act});
        break;
    }
    case NodeKind::Norm: {
        low.input = gather(node.inputs, ir::ElementOp::Add, nullptr, low.kernels);
        out = allocateTensor(node.outputShape, true);
        low.kernels.emplace_back(NormKernel{low.input.buffer, out.buffer, out.dims, node.norm.type,
                                            node.norm.groups, node.norm.epsilon});
        break;
    }
    case NodeKind::Matmul: {
        if (node.inputs.size() != 2)
            throw UserError("a matmul reads two operands", {}, node.name);
        low.input = gather({node.inputs[0]}, ir::ElementOp::Add, nullptr, low.kernels);
        const Tensor b = gather({node.inputs[1]}, ir::ElementOp::Add, nullptr, low.kernels);
        out = allocateTensor(node.outputShape, true);
        low.kernels.emplace_back(MatmulKernel{
            low.input.buffer, b.buffer, out.buffer, low.input.dims, b.dims, out.dims,
            node.matmul.heads, node.matmul.transposeB, node.matmul.alpha, node.matmul.windows});
        break;
    }
    case NodeKind::Tokens: {
        low.input = gather(node.inputs, ir::ElementOp::Add, nullptr, low.kernels);
        out = allocateTensor(node.outputShape, true);
        low.kernels.emplace_back(tokensKernel(node, low.input, out));
        break;
    }
    case NodeKind::Sequential: {
        // Inner nodes run in order; the sequential's output is its last inner node's.
        for (const ir::Node& inner : node.nodes) {
            lowerNode(inner);
            Lowered innerLow = std::move(lowered_.at(&inner));
            lowered_.erase(&inner);
            low.kernels.insert(low.kernels.end(), innerLow.kernels.begin(), innerLow.kernels.end());
        }
        out = tensorOf(node.nodes.back().name);
        break;
    }
    case NodeKind::Placeholder:
        throw UserError("a placeholder cannot be a schedule operator", {}, node.name);
    case NodeKind::Opaque:
        throw UserError("an opaque (imported, undescribed) operator cannot run on the GPU executor",
                        {}, node.name);
    }
    tensors_[node.name] = out;
    lowered_[&node] = std::move(low);
}

void LoweredModel::lowerOperator(const ir::Node& node) {
    try {
        lowerNode(node);
    } catch (const UserError& e) {
        if (!e.node().empty())
            throw;
        throw UserError(e.message(), {}, node.name);
    }
}

// The merged convolution (IOS paper §4.1 "operator merge"): member filters are placed in the
// largest kernel by schedule::placeMergedWeights (centred, at offset merged padding − member
// padding), which computes the member's exact output when the members are mergeable
// (schedule/merge.h), then outputs are split.
StageProgram LoweredModel::buildMergeProgram(const ir::BlockDag& dag,
                                             const schedule::Group& group) {
    std::vector<const ir::Node*> members;
    for (int op : group)
        members.push_back(dag.ops.at(static_cast<size_t>(op)));
    const Lowered& firstLow = lowered_.at(members.front());
    std::vector<Kernel> kernels(firstLow.kernels.begin(),
                                firstLow.kernels.begin() + firstLow.gatherKernels);
    // The placement the reference executor's ref::mergedConvWeights proves (one function).
    const schedule::MergedConvLayout layout =
        schedule::mergedConvLayout(members, firstLow.input.dims.c);
    const Tensor mergedOut = allocateTensor(layout.merged.outputShape, true);
    ConvKernel k = convKernel(layout.merged, firstLow.input, mergedOut.buffer);
    const auto [weights, bias] = schedule::placeMergedWeights<float>(layout, [&](size_t i) {
        return std::pair{hostWeights(*members[i]), hostBias(*members[i])};
    });
    k.weights = backend_.allocate(static_cast<int64_t>(weights.size()));
    backend_.upload(k.weights, weights);
    k.bias = backend_.allocate(static_cast<int64_t>(bias.size()));
    backend_.upload(k.bias, bias);
    kernels.emplace_back(k);
    int64_t offset = 0;
    for (const ir::Node* m : members) {
        const Tensor& dst = tensorOf(m->name);
        kernels.emplace_back(CopyKernel{
            {mergedOut.buffer, mergedOut.dims, offset}, {dst.buffer, dst.dims, 0}, dst.dims.c});
        offset += dst.dims.c;
    }
    std::vector<int> ops(kernels.size(), group.front());
    return StageProgram{{std::move(kernels)}, {std::move(ops)}};
}

const StageProgram& LoweredModel::stageProgram(const ir::BlockDag& dag,
                                               const schedule::Stage& stage) {
    const std::string key = cost::stageKey(dag, stage);
    if (auto it = programs_.find(key); it != programs_.end())
        return it->second;
    StageProgram p;
    const bool merge = stage.kind == schedule::StageKind::Merge && stage.groups.size() == 1 &&
                       stage.groups[0].size() >= 2;
    if (merge) {
        p = buildMergeProgram(dag, stage.groups[0]);
    } else {
        for (const schedule::Group& group : stage.groups) {
            std::vector<Kernel> kernels;
            std::vector<int> ops;
            for (int op : group) {
                const Lowered& low = lowered_.at(dag.ops.at(static_cast<size_t>(op)));
                kernels.insert(kernels.end(), low.kernels.begin(), low.kernels.end());
                ops.insert(ops.end(), low.kernels.size(), op);
            }
            p.groups.push_back(std::move(kernels));
            p.ops.push_back(std::move(ops));
        }
    }
    return programs_.emplace(key, std::move(p)).first->second;
}

const std::vector<Kernel>& LoweredModel::operatorKernels(const ir::Node* op) const {
    return lowered_.at(op).kernels;
}

void LoweredModel::poisonActivations() {
    for (const Tensor& t : activations_)
        backend_.upload(t.buffer, std::vector<float>(static_cast<size_t>(t.dims.elements()),
                                                     std::numeric_limits<float>::quiet_NaN()));
}

BufferId LoweredModel::outputBuffer() const {
    return tensorOf(graph_.blocks.back().exitNode.name).buffer;
}

} // namespace ios::profiling
