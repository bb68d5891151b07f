// SPDX-License-Identifier: Apache-2.0
// The seam for model file formats (docs/architecture.md "Adding a model format"): each format
// registers from its own file with IOS_REGISTER_MODEL_FORMAT, naming the file-name suffix it
// owns and what it can do (read, write or both). Loading, saving, `convert` and the error
// texts that list the formats go through this registry only.
#pragma once

#include "io/model_options.h"
#include "ir/graph.h"

#include <filesystem>
#include <functional>
#include <string>
#include <vector>

namespace ios::io {

struct Provenance; // io/provenance.h

struct ModelFormatEntry {
    std::string key;    // stable: "ios-json", "native", "onnx", "dot"
    std::string suffix; // lower-case file-name suffix it owns: ".ios.json"; the longest match wins
    std::string label;  // for people: "IOS JSON"
    int rank = 100;     // where it sorts in lists (help and error texts)
    // Reads the file at `path` (options: the import options of formats that take them). Empty:
    // the format is written only.
    std::function<ir::Graph(const std::filesystem::path& path, const ModelLoadOptions& options)>
        read;
    // The file's text for `graph`; `warnings`, when given, receives what the format could not
    // hold; `provenance`, when given, is recorded where the format has room for it (native
    // JSON: a "provenance" member; DOT: comment lines; IOS JSON, the IOS authors' format: not
    // at all). Empty: the format is read only.
    std::function<std::string(const ir::Graph& graph, std::vector<std::string>* warnings,
                              const Provenance* provenance)>
        write;
};

// Adds a format. Throws std::logic_error when its key or suffix is taken.
bool registerModelFormat(ModelFormatEntry entry);
// Every registered format, by rank then key.
std::vector<ModelFormatEntry> modelFormats();
// The format owning `path`'s name (case-insensitive, longest suffix), or nullptr.
const ModelFormatEntry* modelFormatFor(const std::filesystem::path& path);
// "supported: .ios.json (IOS JSON), ..., .onnx (read only), .dot (write only)".
std::string supportedModelFormats();

#define IOS_REGISTER_MODEL_FORMAT(ident, ...)                                                      \
    [[maybe_unused]] static const bool ios_model_format_registered_##ident =                       \
        ::ios::io::registerModelFormat(__VA_ARGS__)

} // namespace ios::io
