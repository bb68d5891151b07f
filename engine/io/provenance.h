// SPDX-License-Identifier: Apache-2.0
// Where an output came from (docs/formats.md "Provenance"): every JSON document, CSV, trace,
// schedule, program and measurement cache the tools write carries one block saying which tool
// and version wrote it, by which command, for which model (name + content hash), device
// profile (name + hash), batch, cost model and settings, and when. Readers ignore fields they
// do not know; a schedule or program made for another model's content is refused.
#pragma once

#include "cost/device_profile.h"
#include "ir/graph.h"
#include "util/json_text.h"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace ios::io {

struct Provenance {
    std::string command;            // the command line, or the GUI action ("ios-explorer: ...")
    std::string model, modelHash;   // graph name and cost::modelContentHash
    std::string device, deviceHash; // profile name and deviceProfileHash
    int batch = 0;                  // 0 = not applicable
    std::string costModel;          // "simulated", "analytic", "cache:FILE", ...
    util::Json settings = util::Json::object(); // the options that shaped the result
    int64_t created = 0; // Unix seconds (provenanceFor: now, or SOURCE_DATE_EPOCH); 0 = now
};

// Model, device and batch filled in (modelHash by content, deviceHash of the profile's text).
Provenance provenanceFor(std::string command, const ir::Graph* graph,
                         const cost::DeviceProfile* device, int batch, std::string costModel);

// 16 hex digits identifying a profile's values (of writeDeviceProfile's text).
std::string deviceProfileHash(const cost::DeviceProfile& device);

// {"tool", "tool_version", "command", "created" (UTC, ISO 8601; SOURCE_DATE_EPOCH when set),
//  "model": {"name", "content_hash"}, "device": {"name", "hash"}, "batch", "cost_model",
//  "settings"}: members without a value are left out.
util::Json provenanceJson(const Provenance& p);

// The key documents use for that block.
inline constexpr const char* kProvenanceKey = "provenance";

// The same as comment lines for line-based files: each line starts with `prefix` ("# ").
std::string provenanceComment(const Provenance& p, std::string_view prefix = "# ");

// The model content hash a document's provenance names, if any (tolerant: anything
// malformed in the block counts as absent, since readers ignore what they do not know).
std::optional<std::string> provenanceModelHash(const util::Json& doc);

// Throws ios::UserError naming `file` when `doc`'s provenance names a model content hash that
// is not `graph`'s: the file was made for another model (or another version of it).
void checkProvenanceModel(const util::Json& doc, const ir::Graph& graph, const std::string& file);

} // namespace ios::io
