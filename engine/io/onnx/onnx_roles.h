// SPDX-License-Identifier: Apache-2.0
// Axis roles of token and attention tensors (docs/onnx.md "Tokens and heads"), shared by the
// layout rules (onnx_tokens.cpp) and the attention rules (onnx_attention.cpp). Internal to
// engine/io/onnx.
#pragma once

#include "io/onnx/onnx_lowerer.h"

#include <optional>

namespace ios::io::onnx::detail {

// Which ONNX axes enumerate the IR channels and which the IR positions, each major → minor
// (size-1 axes play none).
struct Roles {
    std::vector<int> chan, pos;
    friend bool operator==(const Roles&, const Roles&) = default;
};

// The axes in [from, to) whose extent is not 1.
std::vector<int> nonUnit(const std::vector<int64_t>& dims, size_t from, size_t to);

// The roles of x's axes; nullopt for views that are not a relabelling of the terms.
std::optional<Roles> rolesOf(const Val& x);

// v's view from its roles: the named views where they fit, else Axes.
void settle(Val& v, const Roles& r);

// x with its axes permuted (ONNX Transpose `perm`; empty = reversed) into `outDims`: a
// relabelling of the roles; nullopt when x's view has no roles.
std::optional<Val> permuted(const Val& x, std::vector<int64_t> perm, std::vector<int64_t> outDims);

// The tokens index that copies x's positions into the order of position axes `pos` (a
// permutation of x's): output position i (row-major over `pos`) reads x's position index[i].
std::vector<int64_t> reorderIndex(const Val& x, const std::vector<int>& pos);

// The product of dims along `axes`.
int64_t product(const std::vector<int64_t>& dims, const std::vector<int>& axes);

// The value of a one-element constant: an initializer, a Constant node's output, folded shape
// arithmetic, or arithmetic on such (Swin's head_dim ** -0.5, the head dim from the shape),
// a few levels deep; integer Div truncates as ONNX's does.
std::optional<double> scalarConstant(const Model& m, const TensorTable& table,
                                     const std::string& name);

} // namespace ios::io::onnx::detail
