// SPDX-License-Identifier: Apache-2.0
// Shared by the fuzz targets that need a model (schedule files, device profiles): a bundled
// sample model read once from the source tree (IOS_FUZZ_SAMPLE_MODELS_DIR, set by
// tests/fuzz/CMakeLists.txt) with its DP DAGs.
#pragma once

#include "ir/block_dag.h"
#include "ir/graph.h"

#include <string>
#include <vector>

namespace ios::fuzz {

struct LoadedModel {
    ir::Graph graph;
    std::vector<ir::BlockDag> dags; // point into `graph`: keep the LoadedModel in place
};

// sample_models/<name>.ios.json, loaded on first use and kept for the process; aborts when it
// does not load (a broken build, not a finding).
const LoadedModel& sampleModel(const std::string& name);

} // namespace ios::fuzz
