// Stream program validity (docs/raf.md "Verifier"): every operator launched exactly once on a
// valid stream, every wait after a record of its event, merged launches mergeable, and every
// dependency u → v of the block ordered before v starts: by issue order on one stream, by a
// record issued after u on u's stream that v's stream waited on before v (transitively, through
// any launches and events), or by a barrier or device sync between them.
#pragma once

#include "ir/block_dag.h"
#include "schedule/stream_program.h"

#include <string>
#include <vector>

namespace ios::schedule {

// The first problem found, in words naming the operators or instruction; empty when valid.
std::string programProblem(const ir::BlockDag& dag, const StreamProgram& program);

// Throws ios::UserError with programProblem's text (prefixed with the block) when not valid.
void verifyProgram(const ir::BlockDag& dag, const StreamProgram& program, int block = 0);
void verifyProgram(const std::vector<ir::BlockDag>& dags, const Program& program);

} // namespace ios::schedule
