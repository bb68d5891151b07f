// SPDX-License-Identifier: Apache-2.0
// The stages a result shows (issue 32 item 4: the stage tree, the timeline's stage lane, the
// graph's stage colours and a selection's stage context read one outcome). A stage schedule
// shows its stages; a scheduler's own stream program (RAF's policies, RunResult::ownProgram)
// shows its segments (cost::programSegments: cut at barriers and syncs, as the timeline lays
// them out), never the issue-order stages it was derived from.
#pragma once

#include "schedule/schedule.h"
#include "schedule/stream_program.h"

namespace ios::gui {

// The program's segments as a stage schedule: per block one Parallel stage per segment, one
// group per stream launched on in it (first launch first), each group that stream's operators
// in issue order (a merged launch's operators together; synthetic launches have none).
schedule::Schedule segmentsAsStages(const schedule::Program& program);

} // namespace ios::gui
