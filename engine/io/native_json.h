// SPDX-License-Identifier: Apache-2.0
// The project's own versioned model format (docs/formats.md): the IOS JSON model object plus
// each block's explicit parts, under a {"format": "ios-explorer", "version": 1} header.
#pragma once

#include "io/provenance.h"
#include "ir/graph.h"
#include "util/json_text.h"

#include <string>
#include <string_view>

namespace ios::io {

using util::Json;

inline constexpr const char* kNativeFormatName = "ios-explorer";
inline constexpr int kNativeFormatVersion = 1;

// Parses and validates a native file. Throws ios::UserError naming `source` (and the node,
// when known); a file of another version is rejected with the version it has.
ir::Graph parseNativeJson(std::string_view text, const std::string& source);

// The same, from an already parsed document (used when sniffing a ".json" file).
ir::Graph nativeFromDocument(const Json& doc, const std::string& source);

// True when `doc` carries the native header key ("format"); IOS JSON has none.
bool isNativeDocument(const Json& doc);

// With `provenance`, the document carries it (io/provenance.h); readers skip it.
std::string writeNativeJson(const ir::Graph& graph, const Provenance* provenance = nullptr);

} // namespace ios::io
