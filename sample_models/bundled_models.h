// SPDX-License-Identifier: Apache-2.0
// The models that ship inside the binaries: the four IOS benchmark networks, demo graphs and
// two NAS cells for Serenity's identity rewriting (tools/make_nas_cells.py writes them).
#pragma once

#include "io/model_options.h"
#include "ir/graph.h"

#include <string>
#include <string_view>
#include <vector>

namespace ios::samples {

struct BundledModel {
    std::string_view name;        // e.g. "inception_v3"
    std::string_view description; // one line for menus and `ios-sched --help`
    bool benchmark;               // one of the paper's four networks
};

const std::vector<BundledModel>& bundledModels();
bool isBundledModel(std::string_view name);

// The embedded IOS JSON text of a bundled model (empty when unknown).
std::string_view bundledModelText(std::string_view name);

// Parses a bundled model (with its explicit parts, for nasnet_large and darts_v2_cells).
// Throws ios::UserError.
ir::Graph loadBundledModel(std::string_view name);

// A CLI/GUI model argument: an existing file is loaded by extension, otherwise a bundled
// name, otherwise a generated one (random_dag.h: random_dag:N[:SEED]); anything else is a
// UserError that lists the bundled names.
ir::Graph loadModel(const std::string& pathOrName);
// The same with format options for files (ONNX --input-shape / --allow-opaque).
ir::Graph loadModel(const std::string& pathOrName, const io::ModelLoadOptions& options);

} // namespace ios::samples
