// SPDX-License-Identifier: Apache-2.0
// Model files by their name's suffix, through the format registry (io/model_format.h):
// .ios.json (IOS JSON), .json (native), .onnx (import only, io/onnx_import.h), .dot (export
// only).
#pragma once

#include "io/model_format.h"
#include "io/model_options.h"
#include "ir/graph.h"

#include <filesystem>
#include <string>
#include <vector>

namespace ios::io {

// The format a file written to `path` gets (a plain ".json" is native; reading sniffs it).
// Throws UserError naming the supported formats for a name no writable format owns.
const ModelFormatEntry& formatForWrite(const std::filesystem::path& path);

ir::Graph loadModelFile(const std::filesystem::path& path); // throws ios::UserError
// The same with format options (ONNX: the input shape, opaque operators).
ir::Graph loadModelFile(const std::filesystem::path& path, const ModelLoadOptions& options);
// Atomic. `warnings`, when given, receives what the format could not hold (writeIosJson).
// `provenance`: recorded where the format has room (ModelFormatEntry::write).
void saveModelFile(const ir::Graph& graph, const std::filesystem::path& path,
                   std::vector<std::string>* warnings = nullptr,
                   const Provenance* provenance = nullptr);
// What saveModelFile() writes to `path` (for an output transaction, util/output_file.h).
std::string modelFileText(const ir::Graph& graph, const std::filesystem::path& path,
                          std::vector<std::string>* warnings = nullptr,
                          const Provenance* provenance = nullptr);

} // namespace ios::io
