// SPDX-License-Identifier: Apache-2.0
// Stage profiling into a measurement store (docs/gpu.md "Sharing measurements", issue 34):
// the classes of stages a search meets are keyed by their canonical signature under this
// device's identity, batch and data type; those the store already holds are skipped, the
// others measured many per captured graph, and each graph's measurements added in ONE store
// transaction, so a killed run loses at most the graph in flight and a re-run resumes from
// the store itself (no journal). Any number of processes may profile into one store at once.
#pragma once

#include "stage_profiler.h"
#include "store/measurement_store.h"

#include <cstddef>
#include <cstdint>
#include <vector>

namespace ios::profiling {

struct StoreProfileResult {
    size_t stagesMet = 0;
    size_t classes = 0;   // distinct stage signatures among them
    size_t fromStore = 0; // met stages whose signature the store held already
    size_t measured = 0;  // classes measured by this run
    size_t graphs = 0;
    size_t kernels = 0;
    long long replays = 0;
    int64_t samplesAdded = 0; // samples the store gained (0 for a class another run added)
    double busySeconds = 0;
    double prepareSeconds = 0; // signatures, the store's has(), lowering the stages
    double measureSeconds = 0; // capturing, replaying, adding
    bool complete = false;     // every class has a sample in the store
};

// The setup the executor measures under: its device's identity, its batch, fp32.
store::Setup measurementSetup(Executor& executor);

// Measures the classes of `stages` the store lacks under measurementSetup(executor) and adds
// them, a graph at a time. A sample is the class representative's median of the timed
// replays (storedLatencyMs), their spread (max - min, rounded alike), their count, the tool
// version and store::measurementTime(). options.everyStage is ignored (the store keys by
// signature: one measurement per class); maxGraphs and cancel stop between graphs.
StoreProfileResult profileIntoStore(Executor& executor, const ir::PreparedModel& model,
                                    const std::vector<MetStage>& stages,
                                    store::MeasurementStore& store, const ProfileOptions& options);

} // namespace ios::profiling
