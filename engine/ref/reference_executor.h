// SPDX-License-Identifier: Apache-2.0
// The CPU reference executor: runs a validated ir::Graph in double precision at batch 1, with
// straight loops and no scheduling. It is the numerical oracle for graph rewrites and for the
// merged convolution of an IOS merge stage (IOS paper §3 "operator merge"; docs/testing.md).
//
// Semantics (those of shape inference, ir/shape_inference.cpp):
// - tensors are C×H×W, row-major; the inputs of a node are its terms concatenated along
//   channels, the values of a term added (multiplied for an element/mul node), a 1×1 value of
//   an element node broadcast over H×W;
// - conv: cross-correlation with zero padding, stride, groups, bias, then the activation;
//   weights laid out [out][in / groups][kh][kw];
// - pools: floor-mode windows; max ignores padding (a window of padding only gives 0), avg
//   counts the padding (count_include_pad: the sum is divided by kh·kw, as PyTorch's default
//   and the GPU backend's CUDNN_POOLING_AVERAGE_COUNT_INCLUDE_PADDING); global pools reduce
//   H×W to 1×1;
// - opaque nodes have no semantics and are refused (ios::UserError naming the node).
//
// Weights and inputs are deterministic: a splitmix64 stream seeded by FNV-1a(seed, name),
// uniform in [-scale, scale) — the same streams as the GPU executor (profiling/executor.cpp),
// so the two agree up to float rounding. Conv weights use scale sqrt(3 / fan_in) (variance
// 1 / fan_in, activations stay O(1) through deep networks), biases 0.1, the input 1.
#pragma once

#include "ir/graph.h"

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace ios::ref {

// A C×H×W tensor of doubles; element (c, y, x) is data[(c·h + y)·w + x].
struct Tensor {
    ir::TensorShape shape;
    std::vector<double> data;

    Tensor() = default;
    explicit Tensor(ir::TensorShape s, double fill = 0.0);

    double& at(int64_t c, int64_t y, int64_t x) { return data[index(c, y, x)]; }
    const double& at(int64_t c, int64_t y, int64_t x) const { return data[index(c, y, x)]; }
    // Channels [begin, end) as a new tensor.
    Tensor channels(int64_t begin, int64_t end) const;

private:
    size_t index(int64_t c, int64_t y, int64_t x) const {
        return static_cast<size_t>((c * shape.h + y) * shape.w + x);
    }
};

// The parameters of one convolution: weights [out][in / groups][kh][kw] and bias [out].
struct ConvWeights {
    std::vector<double> weights;
    std::vector<double> bias;
};

// FNV-1a of `name` mixed with `seed`: the seed of a name's value stream.
uint64_t nameSeed(const std::string& name, uint64_t seed);
// `count` values uniform in [-scale, scale) from the splitmix64 stream started at `streamSeed`.
std::vector<double> uniformValues(size_t count, uint64_t streamSeed, double scale);

// A random tensor of `shape` with values in [-1, 1), a function of (name, seed) alone.
Tensor randomTensor(ir::TensorShape shape, const std::string& name, uint64_t seed);

// The deterministic weights of conv node `conv` reading `inChannels` channels: a function of
// (node name, seed) and the weight shape alone, so a rewritten graph that keeps the node's
// name and attributes gets the same weights.
ConvWeights randomConvWeights(const ir::Node& conv, int64_t inChannels, uint64_t seed);

// The weight transform of schedule::mergedConv (IOS paper §3, operator merge): member m's
// kernel is zero-padded and centred in the merged kernel, i.e. placed at row offset
// (K_h − k_h) / 2 = P_h − p_h (and likewise for columns) by schedule::placeMergedWeights, the
// placement the GPU executor uses too; out-channel blocks and biases are concatenated in member
// order. `inChannels` is the shared input's channel count; memberWeights[i] belongs to members[i].
// Throws what schedule::mergedConv throws (ios::UserError when the members are not mergeable,
// std::logic_error for fewer than two), ios::UserError naming a member whose kernel cannot be
// centred exactly (odd size difference, or a centre that is not the padding difference: only
// for sets mergeable() refuses), and std::invalid_argument for weights of the wrong size.
ConvWeights mergedConvWeights(const std::vector<const ir::Node*>& members,
                              const std::vector<ConvWeights>& memberWeights, int64_t inChannels);

// Single operators on explicit tensors (the executor's building blocks).
Tensor conv2d(const Tensor& in, const ir::ConvAttrs& attrs, const ConvWeights& w);
Tensor pool2d(const Tensor& in, const ir::PoolAttrs& attrs);
void activate(Tensor& t, ir::ActType act);
// LayerNorm or softmax over each channel group at every position; a LayerNorm's per-channel
// scale and shift are 1 and 0 (constants that no rewrite or merge touches).
Tensor normalize(const Tensor& in, const ir::NormAttrs& a);
// Positions gathered from `in` (ir::TokenAttrs): learned token k's values are learned[k·C + c];
// with attrs.embed, embedding[c · outPositions + i] is added.
Tensor gatherTokens(const Tensor& in, const ir::TokenAttrs& attrs,
                    const std::vector<double>& learned, const std::vector<double>& embedding);
// The product of two activations per head (ir::MatmulAttrs; docs/formats.md "matmul").
Tensor matmul(const Tensor& a, const Tensor& b, const ir::MatmulAttrs& attrs);

// Runs a validated graph node by node and keeps every node's output.
class ReferenceExecutor {
public:
    explicit ReferenceExecutor(uint64_t seed = 1) : seed_(seed) {}

    uint64_t seed() const { return seed_; }

    // Explicit weights for the conv named `convName` (a merged conv, a rewritten node),
    // used instead of the random ones; checked against the node's shape when it runs.
    void setWeights(const std::string& convName, ConvWeights weights);
    // The weights conv node `conv` runs with: the explicit ones, else the random ones.
    ConvWeights weightsOf(const ir::Node& conv, int64_t inChannels) const;

    // The graph input to use instead of randomTensor(input shape, input name, seed).
    void setInput(Tensor input);

    // Runs every node of `graph` (validated: inner nodes in dependency order). Outputs of an
    // earlier run are discarded. Throws ios::UserError naming an opaque node, a node that reads
    // a value not computed yet, or explicit weights / input of the wrong shape.
    void run(const ir::Graph& graph);

    bool hasOutput(const std::string& name) const { return outputs_.count(name) != 0; }
    // The output of node `name` (the input placeholder, a block node, a sequential's inner
    // node); throws ios::UserError for an unknown name.
    const Tensor& output(const std::string& name) const;
    const std::map<std::string, Tensor>& outputs() const { return outputs_; }

private:
    Tensor gather(const ir::Node& node, const std::vector<ir::Term>& terms) const;
    void runNode(const ir::Node& node);

    uint64_t seed_;
    std::map<std::string, ConvWeights> explicitWeights_;
    std::optional<Tensor> input_;
    std::map<std::string, Tensor> outputs_;
};

} // namespace ios::ref
