// The dependency graph RAF's stream policies schedule (docs/raf.md "The graph"; RAF
// dependency_graph.cc): a block's operators, plus — with tuples on — a synthetic tuple node
// before every concatenation (an operator whose input list has two or more terms) gathering its
// inputs, in RAF's node order (file order, each tuple just before its concatenation), with
// inputs in argument order, transitively reduced (an edge u → v is dropped when another path
// u ⇝ v exists).
#pragma once

#include "ir/block_dag.h"
#include "schedule/schedule.h"
#include "schedule/stream_program.h"

#include <string>
#include <vector>

namespace ios::schedulers::raf {

struct RafNode {
    int op = -1;                // index into the block's BlockDag::ops; -1 for a tuple
    std::string name;           // the operator's name, "tuple:<consumer>" for a tuple
    std::vector<int> inputs;    // node indices, argument order
    std::vector<int> consumers; // node indices, ascending
};

struct RafGraph {
    std::vector<RafNode> nodes;
};

RafGraph buildRafGraph(const ir::BlockDag& dag, bool tuples);

// A launch of `node` on `stream` (a tuple: a synthetic launch).
schedule::Instruction launchOf(const RafNode& node, int stream);

// A program's operators as a stage schedule of one operator per stage, in issue order (for the
// views that show stages, when the program has no stage form).
schedule::BlockSchedule issueOrder(const schedule::StreamProgram& program);

// Stages of RafGraph nodes (groups of node indices) → the block's stage schedule, tuples
// dropped (and groups or stages left empty by that).
schedule::BlockSchedule toStages(const RafGraph& g,
                                 const std::vector<std::vector<std::vector<int>>>& stages);

// Stages of RafGraph nodes as RAF runs them: group j's nodes launched on stream j, a stream
// barrier between stages (none after the last).
schedule::StreamProgram barrierProgram(const RafGraph& g,
                                       const std::vector<std::vector<std::vector<int>>>& stages);

} // namespace ios::schedulers::raf
