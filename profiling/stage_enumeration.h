// SPDX-License-Identifier: Apache-2.0
// Which stages a search prices, and which of them launch the same kernels (docs/gpu.md "Stage
// profiling at scale"). The IOS DP prices every transition of every state it keeps, and which
// states it keeps does not depend on the latencies, so the set of stages it asks for is known
// before anything is measured: one search under a recording cost model lists them.
#pragma once

#include "ir/prepared_model.h"
#include "schedule/schedule.h"
#include "schedulers/scheduler.h"

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace ios::profiling {

struct MetStage {
    int block = 0;
    schedule::Stage stage;
    std::string key; // cost::stageKey: what a measurement cache keys it by
};

struct StageEnumeration {
    std::vector<MetStage> stages; // distinct by key: block, then first-asked order
    uint64_t calls = 0;           // stage latencies the search asked for, repeats included
    double seconds = 0;
};

// Runs each of `schedulers` in turn on `model` (its batch is `batch`) under a recording cost
// model: a cheap deterministic latency, neither additiveParallelStages nor
// canonicalStageMemo, so every distinct stage reaches it. A baseline's stages are those its
// schedule is priced with (greedy's may span DP parts, so the DP never meets them). The order
// does not depend on params.threads: by scheduler, then block, then part, then the order the
// part's search asked for them (one part is searched on one thread), which is the order of a
// search on one thread. `control` as for Scheduler::run (progress, cancel, time limit).
StageEnumeration enumerateStages(const ir::PreparedModel& model,
                                 const std::vector<const schedulers::Scheduler*>& schedulers,
                                 const schedulers::Params& params, int batch,
                                 schedulers::SearchControl* control = nullptr);

// Stages that launch the same kernels: equal kind and, group by group in order, operators of
// equal signature in order (cost::CanonicalStages, cost/stage_memo.h). With everyStage each
// stage is its own class.
struct StageClasses {
    std::vector<size_t> classOf;              // per stage: its class
    std::vector<std::vector<size_t>> members; // per class: its stages, ascending (first: the
                                              // representative that is measured)
};
StageClasses canonicalClasses(const ir::PreparedModel& model, const std::vector<MetStage>& stages,
                              bool everyStage);

// Per stage: cost::signatureBytes of its cost::stageSignature, what the measurement store keys
// a measurement by (equal for every member of a canonical class).
std::vector<std::string> stageSignatureBytes(const ir::PreparedModel& model,
                                             const std::vector<MetStage>& stages);

// Part `index` of `count` of a profiling job (`profile --shard I/N`): the canonical classes
// whose representative's signature hash (cost::stableHash64 of its signature bytes) mod
// `count` is `index`. The partition depends on the stages' contents only, so N tasks cover
// every class exactly once, in any order, on any machine, for any set of models.
struct Shard {
    uint32_t index = 0;
    uint32_t count = 1;
};
inline constexpr uint32_t kMaxShards = 4096;
// The stages of the shard's classes (every member of each), in their order; `classesKept`
// (when not null) gets how many classes that is.
std::vector<MetStage> shardStages(const ir::PreparedModel& model, std::vector<MetStage> stages,
                                  Shard shard, size_t* classesKept = nullptr);

} // namespace ios::profiling
