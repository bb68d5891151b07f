// SPDX-License-Identifier: Apache-2.0
// The one mapping between ir::Graph and JSON objects, shared by the IOS JSON and the native
// format (docs/formats.md). Field names, key order and input checks live here.
#pragma once

#include "ir/graph.h"
#include "util/json_text.h"

#include <string>
#include <vector>

namespace ios::io::detail {

using util::Json;

// The IOS model object, or the native format's, which adds each block's explicit "parts".
enum class Dialect { Ios, Native };

// The model object in the reference key order (type, name, hint_name, inputs, kind fields,
// output_shape; blocks: enter_name, enter_node, inner_nodes, exit_node, stages[, parts]).
Json graphToJson(const ir::Graph& graph, Dialect dialect);

// Reads a model object strictly (types, ranges that cannot overflow, no unknown fields,
// stages and parts naming operators of their block), then validates it
// (ir::validateAndInferShapes, ir::buildBlockDag for explicit parts). Every error is an
// ios::UserError naming `source` and, when known, the node and field. IOS dialect: an
// element-wise node whose later values are wider than its first is read as the IOS authors'
// CUDA runtime computes it (the first channels of the wider value), said in `warnings`.
ir::Graph graphFromJson(const Json& model, Dialect dialect, const std::string& source,
                        std::vector<std::string>* warnings = nullptr);

} // namespace ios::io::detail
