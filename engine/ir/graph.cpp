// SPDX-License-Identifier: Apache-2.0
#include "ir/graph.h"

#include <array>
#include <utility>

namespace ios::ir {

namespace {

template <typename Enum, size_t N>
std::optional<Enum> lookup(const std::array<std::pair<Enum, std::string_view>, N>& table,
                           std::string_view s) {
    for (const auto& [value, name] : table)
        if (name == s)
            return value;
    return std::nullopt;
}

template <typename Enum, size_t N>
std::string_view nameOf(const std::array<std::pair<Enum, std::string_view>, N>& table, Enum e) {
    for (const auto& [value, name] : table)
        if (value == e)
            return name;
    return "?";
}

constexpr std::array<std::pair<NodeKind, std::string_view>, 12> kKinds{{
    {NodeKind::Conv, "conv"},
    {NodeKind::Pool, "pool"},
    {NodeKind::Identity, "identity"},
    {NodeKind::Relu, "relu"},
    {NodeKind::Activation, "activation"},
    {NodeKind::Element, "element"},
    {NodeKind::Sequential, "sequential"},
    {NodeKind::Placeholder, "placeholder"},
    {NodeKind::Norm, "norm"},
    {NodeKind::Opaque, "opaque"},
    {NodeKind::Matmul, "matmul"},
    {NodeKind::Tokens, "tokens"},
}};
constexpr std::array<std::pair<PoolType, std::string_view>, 4> kPools{{
    {PoolType::Max, "max"},
    {PoolType::Avg, "avg"},
    {PoolType::GlobalMax, "global_max"},
    {PoolType::GlobalAvg, "global_avg"},
}};
constexpr std::array<std::pair<ActType, std::string_view>, 5> kActs{{
    {ActType::Identity, "identity"},
    {ActType::Relu, "relu"},
    {ActType::Tanh, "tanh"},
    {ActType::Sigmoid, "sigmoid"},
    {ActType::Gelu, "gelu"},
}};
constexpr std::array<std::pair<ElementOp, std::string_view>, 2> kElementOps{{
    {ElementOp::Add, "add"},
    {ElementOp::Mul, "mul"},
}};
constexpr std::array<std::pair<NormType, std::string_view>, 2> kNorms{{
    {NormType::LayerNorm, "layernorm"},
    {NormType::Softmax, "softmax"},
}};

} // namespace

std::vector<const Node*> Block::operators() const {
    std::vector<const Node*> ops;
    ops.reserve(innerNodes.size() + 1);
    for (const Node& n : innerNodes)
        ops.push_back(&n);
    ops.push_back(&exitNode);
    return ops;
}

size_t Graph::operatorCount() const {
    size_t n = 0;
    for (const Block& b : blocks)
        n += b.innerNodes.size() + 1;
    return n;
}

std::string_view toString(NodeKind kind) {
    return nameOf(kKinds, kind);
}
std::string_view toString(PoolType type) {
    return nameOf(kPools, type);
}
std::string_view toString(ActType act) {
    return nameOf(kActs, act);
}
std::string_view toString(ElementOp op) {
    return nameOf(kElementOps, op);
}
std::string_view toString(NormType type) {
    return nameOf(kNorms, type);
}
std::optional<NodeKind> nodeKindFromString(std::string_view s) {
    return lookup(kKinds, s);
}
std::optional<PoolType> poolTypeFromString(std::string_view s) {
    return lookup(kPools, s);
}
std::optional<ActType> actTypeFromString(std::string_view s) {
    return lookup(kActs, s);
}
std::optional<ElementOp> elementOpFromString(std::string_view s) {
    return lookup(kElementOps, s);
}
std::optional<NormType> normTypeFromString(std::string_view s) {
    return lookup(kNorms, s);
}

} // namespace ios::ir
