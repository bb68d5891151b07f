// SPDX-License-Identifier: Apache-2.0
// A saved schedule opened as a document (docs/formats.md "Opening a saved schedule"): any file
// this tool writes a schedule into — an IOS JSON model with stages (merges as merged nodes, as
// IOS writes them), a native JSON model with stages, a schedule file or a stream program file —
// read against the model it was made for and turned into an Outcome that is exactly that
// schedule, to be priced under any cost model (another device, another batch) without a
// search. `ios-sched optimize|trace|streams|compare --schedule FILE` and the explorer's
// File ▸ Open Schedule read it through here.
#pragma once

#include "cost/cost_model.h"
#include "io/provenance.h"
#include "ir/prepared_model.h"
#include "schedulers/scheduler.h"

#include <filesystem>
#include <string>
#include <string_view>

namespace ios::io {

enum class ScheduleDocumentKind {
    IosJson,      // an IOS JSON model with `stages`, merge stages as merged conv nodes
    NativeJson,   // a native model with `stages` and `merge_stages`
    ScheduleFile, // "ios-explorer-schedule"
    Program,      // a stream program file (`ios-sched streams -o`)
};

// "IOS JSON", "native JSON", "schedule file", "stream program".
std::string_view toString(ScheduleDocumentKind kind);

struct ScheduleDocument {
    std::string source; // the file, as given
    ScheduleDocumentKind kind = ScheduleDocumentKind::ScheduleFile;
    // How it was made, when the file says: the provenance's strategy, else a program's policy
    // or a schedule file's note; empty when unknown.
    std::string origin;
    // The schedule (and for a program file its programs; the schedule is then each block's
    // launches in issue order). latencyMs and peakBytes are left 0: priceScheduleDocument.
    schedulers::Outcome outcome;
};

// Reads `text` (from `source`) as whichever of the four kinds it is and checks it against
// `model`: the model's name, its content (hash, or for IOS JSON every node against the model
// scheduled as the file says), every operator once, dependencies in order, merges mergeable.
// Throws ios::UserError naming `source` and the block and node that do not fit.
ScheduleDocument parseScheduleDocument(std::string_view text, const std::string& source,
                                       const ir::PreparedModel& model);
// The same from a file (util::readInputFile, the schedule files' cap).
ScheduleDocument readScheduleDocument(const std::filesystem::path& path,
                                      const ir::PreparedModel& model);

// The native JSON model of `graph` with `schedule` in its blocks' `stages` and, where a block
// has merge stages, their indices in `merge_stages` (written after `parts`), so that opening it
// as a schedule gives back exactly `schedule`; a model load reads the stages by name only.
std::string writeNativeSchedule(const ir::Graph& graph, const std::vector<ir::BlockDag>& dags,
                                const schedule::Schedule& schedule,
                                const Provenance* provenance = nullptr);

// The document's outcome priced under `cost`: latencyMs (its program's when it has one, else
// its stages'; schedulers::outcomeLatencyMs) and peakBytes (eval::scheduleMemory with the
// batch of `cost` and `params`' element size), searchSeconds 0.
schedulers::Outcome pricedScheduleDocument(const ScheduleDocument& document,
                                           const ir::PreparedModel& model,
                                           const cost::CostModel& cost,
                                           const schedulers::SearchParams& params = {});

} // namespace ios::io
