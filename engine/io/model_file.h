// Model files by extension: .ios.json (IOS JSON), .json (native), .onnx (import only,
// io/onnx_import.h), .dot (export only).
#pragma once

#include "io/model_options.h"
#include "ir/graph.h"

#include <filesystem>
#include <string>
#include <vector>

namespace ios::io {

enum class ModelFormat { IosJson, Native, Dot };

// By extension; a plain ".json" is sniffed: native when it has "format": "ios-explorer".
ModelFormat formatForWrite(const std::filesystem::path& path);

ir::Graph loadModelFile(const std::filesystem::path& path); // throws ios::UserError
// The same with format options (ONNX: --input-shape, --allow-opaque).
ir::Graph loadModelFile(const std::filesystem::path& path, const ModelLoadOptions& options);
// Atomic. `warnings`, when given, receives what the format could not hold (writeIosJson).
void saveModelFile(const ir::Graph& graph, const std::filesystem::path& path,
                   std::vector<std::string>* warnings = nullptr);
// What saveModelFile() writes to `path` (for an output transaction, util/output_file.h).
std::string modelFileText(const ir::Graph& graph, const std::filesystem::path& path,
                          std::vector<std::string>* warnings = nullptr);

} // namespace ios::io
