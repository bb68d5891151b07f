// SPDX-License-Identifier: Apache-2.0
// ONNX import (.onnx, opsets 11-18) into the IR: docs/onnx.md describes what is supported
// and how each operator is lowered. Uses Debian's libonnx protobuf classes when the build
// has them (IOS_WITH_ONNX); otherwise every call reports "built without ONNX support".
#pragma once

#include "io/model_options.h"
#include "ir/graph.h"

#include <filesystem>
#include <string>
#include <string_view>

namespace ios::io {

bool onnxSupportAvailable();

// Parses serialized ONNX bytes; the result is validated (ir::validateAndInferShapes) and cut
// into blocks at articulation points. Throws ios::UserError naming `source` and the node.
ir::Graph parseOnnx(std::string_view bytes, const std::string& source,
                    const ModelLoadOptions& options = {});

ir::Graph loadOnnxFile(const std::filesystem::path& path, const ModelLoadOptions& options = {});

} // namespace ios::io
