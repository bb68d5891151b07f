// SPDX-License-Identifier: Apache-2.0
// A schedule on its own, without the model (docs/formats.md "Schedule files"): per block, the
// stages in the layout of IOS JSON's `stages` (operator names), plus the indices of merge
// stages. Used to keep the exact schedules that were measured on a GPU
// (sample_models/measured/schedules/) and to evaluate them on any device profile.
#pragma once

#include "io/provenance.h"
#include "ir/block_dag.h"
#include "ir/graph.h"
#include "schedule/schedule.h"
#include "util/json_text.h"

#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

namespace ios::io {

// The schedule file's document (embedded by outputs that carry schedules, e.g. pareto --json).
// With `provenance`, the document carries it (io/provenance.h).
util::Json scheduleFileJson(const ir::Graph& graph, const std::vector<ir::BlockDag>& dags,
                            const schedule::Schedule& schedule, const std::string& note = {},
                            const Provenance* provenance = nullptr);

// Serialises `schedule` of `graph` (format "ios-explorer-schedule", version 1). `note` is free
// text kept in the file (how the schedule was produced).
std::string writeScheduleFile(const ir::Graph& graph, const std::vector<ir::BlockDag>& dags,
                              const schedule::Schedule& schedule, const std::string& note = {},
                              const Provenance* provenance = nullptr);

// Parses a schedule file for `graph` and verifies it (schedule::verify). Throws ios::UserError
// naming `source` for malformed JSON, a different model name or block count, a provenance
// naming another model content hash, unknown operator names and invalid schedules.
schedule::Schedule parseScheduleFile(std::string_view jsonText, const std::string& source,
                                     const ir::Graph& graph, const std::vector<ir::BlockDag>& dags);
schedule::Schedule loadScheduleFile(const std::filesystem::path& path, const ir::Graph& graph,
                                    const std::vector<ir::BlockDag>& dags);

} // namespace ios::io
