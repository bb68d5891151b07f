// SPDX-License-Identifier: Apache-2.0
// Stream program validity (docs/raf.md "Verifier"): every operator launched exactly once on a
// valid stream, every wait after a record of its event, merged launches mergeable, and every
// dependency u → v of the block ordered before v starts: by issue order on one stream, by a
// record issued after u on u's stream that v's stream waited on before v (transitively, through
// any launches and events), or by a barrier or device sync between them.
//
// The check keeps a vector clock per stream and per event record still to be waited on (for
// each other stream, how many of its launches are known to complete before the next work
// there), never a set per launch. Clocks are sparse (only the streams a clock has learnt of
// since the last barrier or sync) and a record's clock is dropped after its last wait, so
// memory is linear in the launches for the programs the policies write; it is at most
// (streams + records held at once) × streams entries, and the check refuses with
// WorkLimitReached (WorkKnob::ProgramSize) before holding more than kMaxProgramClockEntries or
// doing more than kMaxProgramClockSteps steps (checked up front from a counting pass, then as
// it runs).
#pragma once

#include "ir/block_dag.h"
#include "schedule/stream_program.h"

#include <cstdint>
#include <string>
#include <vector>

namespace ios::schedule {

// The size of one block's check: the counting pass's numbers, then what the check measured.
struct ProgramCheckSize {
    uint64_t launches = 0;    // Launch instructions
    uint64_t streams = 0;     // distinct streams the program uses
    uint64_t liveRecords = 0; // most event records held at once (recorded, still to be waited)
    uint64_t worstSteps = 0;  // bound on the steps: (records held + waits) × 2 × streams
    uint64_t peakEntries = 0; // measured: most clock entries held at once
    uint64_t steps = 0;       // measured: clock entries copied or merged
};

// The verifier's caps: 2^24 clock entries of 8 bytes (128 MiB); 2^33 steps (seconds of work).
inline constexpr uint64_t kMaxProgramClockEntries = uint64_t{1} << 24;
inline constexpr uint64_t kMaxProgramClockSteps = uint64_t{1} << 33;

// The counting pass (stream and event numbers within the limits of stream_program.h).
ProgramCheckSize programCheckSize(const StreamProgram& program);

// The first problem found, in words naming the operators or instruction; empty when valid.
// Throws WorkLimitReached (util/work_limit.h) when the check is past the caps above. `size`,
// when given, receives the counting pass's numbers and what the check measured.
std::string programProblem(const ir::BlockDag& dag, const StreamProgram& program,
                           ProgramCheckSize* size = nullptr);

// Throws ios::UserError with programProblem's text (prefixed with the block) when not valid.
void verifyProgram(const ir::BlockDag& dag, const StreamProgram& program, int block = 0);
void verifyProgram(const std::vector<ir::BlockDag>& dags, const Program& program);

} // namespace ios::schedule
