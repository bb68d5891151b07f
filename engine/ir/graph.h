// SPDX-License-Identifier: Apache-2.0
// The typed graph IR: a model is a chain of blocks of nodes (docs/formats.md "Model
// structure", docs/algorithms.md §1).
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace ios::ir {

struct TensorShape {
    int64_t c = 0;
    int64_t h = 0;
    int64_t w = 0;

    int64_t elements() const { return c * h * w; }
    friend bool operator==(const TensorShape&, const TensorShape&) = default;
};

// Two-dimensional attribute (kernel, stride, padding), [h, w] in the files.
struct Hw {
    int64_t h = 0;
    int64_t w = 0;
    friend bool operator==(const Hw&, const Hw&) = default;
};

enum class NodeKind : uint8_t {
    Conv,
    Pool,
    Identity,
    Relu,
    Activation,
    Element,
    Sequential,
    Placeholder,
    // A normalization along channels at every position (docs/formats.md "norm"): LayerNorm
    // over all channels, or softmax over each of `groups` equal channel groups.
    Norm,
    // An imported operator the IR cannot describe (ONNX --allow-opaque): declared output
    // shape, inputs of any shape, zero FLOPs, real memory traffic.
    Opaque,
    // A batched product of two activations per attention head (docs/formats.md "matmul"):
    // the two input terms are the operands, not a concatenation.
    Matmul,
    // Positions gathered from the input, learned tokens among them, optionally plus a learned
    // per-position table (docs/formats.md "tokens"): class tokens and positional embeddings,
    // token selection, window partitions and shifts.
    Tokens // keep last: kNodeKindCount
};
inline constexpr size_t kNodeKindCount = static_cast<size_t>(NodeKind::Tokens) + 1;
enum class PoolType : uint8_t { Max, Avg, GlobalMax, GlobalAvg };
// Gelu: x·Φ(x) = 0.5·x·(1 + erf(x/√2)), the exact (not tanh-approximated) GELU.
enum class ActType : uint8_t { Identity, Relu, Tanh, Sigmoid, Gelu };
enum class ElementOp : uint8_t { Add, Mul };
// LayerNorm: (x − mean) / √(var + ε) per group, then a per-channel scale and shift.
// Softmax: exp(x − max) / Σ exp(x − max) per group.
enum class NormType : uint8_t { LayerNorm, Softmax };

// Channels [begin, end) of node `node`'s output.
struct ValueRef {
    std::string node;
    int64_t begin = 0;
    int64_t end = 0;
    // The producer writes its whole output straight into this concatenation's buffer, so the
    // term needs no copy kernel (MetaFlow's exclusive concat, docs/metaflow.md rule R5). Only
    // on the single value of a term of a node with two or more terms that reads all of a
    // producer this node alone reads (ir::inPlaceObstacle). Values are unchanged by it.
    bool inPlace = false;

    int64_t channels() const { return end - begin; }
    friend bool operator==(const ValueRef&, const ValueRef&) = default;
};

// The values of a term are combined element-wise (added, or multiplied for element/mul);
// the terms of an input list are concatenated along channels.
using Term = std::vector<ValueRef>;

struct ConvAttrs {
    int64_t outChannels = 0;
    Hw kernel{1, 1};
    Hw stride{1, 1};
    Hw padding{0, 0};
    int64_t groups = 1;
    ActType act = ActType::Identity;
    friend bool operator==(const ConvAttrs&, const ConvAttrs&) = default;
};

struct NormAttrs {
    NormType type = NormType::LayerNorm;
    int64_t groups = 1;    // equal channel groups normalized separately (attention heads)
    double epsilon = 1e-5; // LayerNorm's ε
    friend bool operator==(const NormAttrs&, const NormAttrs&) = default;
};

// Matmul: operands A (input term 0) and B (term 1); positions are H×W, and the channels of
// every operand split into `heads` equal consecutive groups (g = head). The positions split
// into `windows` equal consecutive groups (w = window; window attention), each multiplied on
// its own: with M = A's positions / windows and N = B's positions / windows,
//   transpose_b (Q·Kᵀ): A and B have heads·d channels; out has heads·N channels,
//     out[g·N + j, w·M + i] = alpha · Σ_e A[g·d + e, w·M + i] · B[g·d + e, w·N + j];
//   otherwise (A·V):    A has heads·N channels, B heads·d; out has heads·d channels,
//     out[g·d + e, w·M + i] = alpha · Σ_j A[g·N + j, w·M + i] · B[g·d + e, w·N + j].
struct MatmulAttrs {
    int64_t heads = 1;
    bool transposeB = true;
    double alpha = 1.0;
    int64_t windows = 1;
    friend bool operator==(const MatmulAttrs&, const MatmulAttrs&) = default;
};

// Tokens: output position i (row-major over out_hw) copies input position index[i]
// (row-major over the input's H×W), or, for index[i] = −1 − k, learned token k (C values).
// With `embed`, a learned table T of embedChannels × embedPositions values is added, repeating
// along both axes: out[c, i] += T[c mod embedChannels, i mod embedPositions] (0 = the whole
// axis: a positional embedding is [C, out_hw]; an attention bias shared by the windows
// repeats along the positions).
struct TokenAttrs {
    std::vector<int64_t> index;
    Hw outHw{1, 1};
    bool embed = false;
    int64_t embedChannels = 0;
    int64_t embedPositions = 0;
    int64_t learnedTokens() const {
        int64_t k = 0;
        for (int64_t i : index)
            k = i < 0 ? std::max(k, -i) : k;
        return k;
    }
    // The table's extent along the channels (c) and positions of the output.
    int64_t tableChannels(int64_t c) const { return embedChannels > 0 ? embedChannels : c; }
    int64_t tablePositions() const {
        return embedPositions > 0 ? embedPositions : outHw.h * outHw.w;
    }
    friend bool operator==(const TokenAttrs&, const TokenAttrs&) = default;
};

struct PoolAttrs {
    PoolType type = PoolType::Max;
    Hw kernel{1, 1};
    Hw stride{1, 1};
    Hw padding{0, 0};
    friend bool operator==(const PoolAttrs&, const PoolAttrs&) = default;
};

// One node. Only the attributes of its kind are meaningful; the rest keep their defaults.
struct Node {
    NodeKind kind = NodeKind::Identity;
    std::string name;
    std::string hintName;
    std::vector<Term>
        inputs; // empty for placeholders and for a sequential (its first node has them)
    TensorShape outputShape;

    ConvAttrs conv;                     // Conv
    PoolAttrs pool;                     // Pool
    NormAttrs norm;                     // Norm
    MatmulAttrs matmul;                 // Matmul
    TokenAttrs tokens;                  // Tokens
    ActType activation = ActType::Relu; // Activation (act_type)
    // Activation (inplace): the IOS authors' runtime writes the result over its input's
    // buffer. Values are unchanged by it; it is kept so files written back carry it.
    bool activationInPlace = false;
    ElementOp element = ElementOp::Add; // Element (op_type)
    std::vector<Node> nodes;            // Sequential: run in order

    // The inputs that name nodes outside this node (for a sequential: its first node's).
    const std::vector<Term>& externalInputs() const {
        return kind == NodeKind::Sequential && !nodes.empty() ? nodes.front().inputs : inputs;
    }
    friend bool operator==(const Node&, const Node&) = default;
};

// A schedule as written in a file: stages → groups → operator names.
using NameGroup = std::vector<std::string>;
using NameStage = std::vector<NameGroup>;

struct Block {
    std::string enterName;
    Node enterNode;
    std::vector<Node> innerNodes;
    Node exitNode;
    std::vector<NameStage> stages;
    // Explicit DP parts (operator names); empty = cut by max_part_size (docs/algorithms.md §1).
    std::vector<std::vector<std::string>> parts;

    // Schedule operators: inner nodes followed by the exit node, in file order.
    std::vector<const Node*> operators() const;
    friend bool operator==(const Block&, const Block&) = default;
};

struct Graph {
    std::string name;
    Node input; // the placeholder
    std::vector<Block> blocks;

    size_t operatorCount() const;
    friend bool operator==(const Graph&, const Graph&) = default;
};

std::string_view toString(NodeKind kind);
std::string_view toString(PoolType type);
std::string_view toString(ActType act);
std::string_view toString(ElementOp op);
std::string_view toString(NormType type);
std::optional<NodeKind> nodeKindFromString(std::string_view s);
std::optional<PoolType> poolTypeFromString(std::string_view s);
std::optional<ActType> actTypeFromString(std::string_view s);
std::optional<ElementOp> elementOpFromString(std::string_view s);
std::optional<NormType> normTypeFromString(std::string_view s);

} // namespace ios::ir
