// SPDX-License-Identifier: Apache-2.0
// IOS JSON (docs/formats.md): the IOS authors' model + schedule exchange format, read and written
// exactly (same keys, nesting and number formats as the reference files). Reads what their
// export_config() writes; writes every key their Graph.from_config() requires.
#pragma once

#include "ir/graph.h"

#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

namespace ios::io {

// Parses and validates (ir::validateAndInferShapes). `source` names the file in errors.
// Throws ios::UserError naming the source and, when known, the node. What is read otherwise than
// the file literally says (detail::graphFromJson) is said in `warnings` when given.
ir::Graph parseIosJson(std::string_view text, const std::string& source,
                       std::vector<std::string>* warnings = nullptr);

// Serialises in the reference layout (one-space indent, Python json key order, ASCII only).
// What the format cannot hold is left out, and said in `warnings` when given: in-place
// concatenation terms (ir::ValueRef::inPlace) are written as ordinary ones, which compute
// the same values (the native format keeps them). Activations of act_type "identity" are
// written, with a warning: the IOS authors' loader reads them but their runtimes refuse them.
// A block's explicit DP parts are left out, with a warning naming the block: the IOS authors'
// Block.from_config has no such key and this reader refuses unknown keys (a parts file beside
// the model, or the native format, carries them).
std::string writeIosJson(const ir::Graph& graph, std::vector<std::string>* warnings = nullptr);

// Applies a parts file (reference_models/nasnet_large.parts.json) to the graph's block.
void applyPartsJson(ir::Graph& graph, std::string_view text, const std::string& source);

} // namespace ios::io
