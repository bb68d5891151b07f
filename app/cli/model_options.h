// SPDX-License-Identifier: Apache-2.0
// The one place where CLI commands load their MODEL argument: every command that reads a model
// declares these options (ONNX: --input-shape, --allow-opaque) and loads through loadModelArg().
#pragma once

#include "args.h"
#include "io/model_options.h"
#include "ir/graph.h"
#include "util/output_file.h"

#include <string>

namespace ios::cli {

// Declares --input-shape NxCxHxW and --allow-opaque (used by .onnx models, docs/onnx.md).
void addModelOptions(ArgParser& parser);

// The options' values; throws ios::UserError for a malformed --input-shape.
io::ModelLoadOptions modelOptions(const ArgParser& parser);

// A model file or bundled name, loaded with the options (samples::loadModel). Remembered as
// the current model: main() names it in errors about a node that carry no file (the DP's).
ir::Graph loadModelArg(const ArgParser& parser, const std::string& pathOrName);
// The same for a command that writes files: a model file is registered first as an input of
// the command's output plan, so an output naming it is refused before anything is written.
ir::Graph loadModelArg(const ArgParser& parser, const std::string& pathOrName,
                       util::OutputTransaction& outputs);

// The MODEL argument of the last loadModelArg() call ("" before any).
const std::string& currentModel();

} // namespace ios::cli
