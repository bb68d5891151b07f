// SPDX-License-Identifier: Apache-2.0
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

#include <cstdint>
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

// Per node, a set of nodes (one bitset row each).
class NodeSets {
public:
    explicit NodeSets(size_t n) : words_((n + 63) / 64), bits_(n * words_, 0) {}
    bool has(size_t v, size_t u) const { return (bits_[v * words_ + u / 64] >> (u % 64) & 1) != 0; }
    void insert(size_t v, size_t u) { bits_[v * words_ + u / 64] |= uint64_t{1} << (u % 64); }
    void unite(size_t v, size_t from); // row v |= row `from`
    size_t count(size_t v) const;

private:
    size_t words_;
    std::vector<uint64_t> bits_;
};

// Row v: the nodes with a path of one or more edges to v (from the nodes' inputs, so usable
// before the consumers are filled in).
NodeSets ancestors(const RafGraph& g);
// Row v: the nodes v has a path of one or more edges to.
NodeSets descendants(const RafGraph& g);

// A launch of `node` on `stream` (a tuple: a synthetic launch).
schedule::Instruction launchOf(const RafNode& node, int stream);

// A program's operators as a stage schedule of one operator per stage, in issue order (for the
// views that show stages, when the program has no stage form).
schedule::BlockSchedule issueOrder(const schedule::StreamProgram& program);

// Stages of RafGraph nodes (groups of node indices) → the block's stage schedule, tuples
// dropped (and groups or stages left empty by that).
schedule::BlockSchedule toStages(const RafGraph& g,
                                 const std::vector<std::vector<std::vector<int>>>& stages);

// Stages of RafGraph nodes as RAF runs them: group j's nodes launched on stream j (past
// schedule::kMaxProgramStreams groups, on schedule::laneStream(j)), a stream barrier between
// stages (none after the last).
schedule::StreamProgram barrierProgram(const RafGraph& g,
                                       const std::vector<std::vector<std::vector<int>>>& stages);

} // namespace ios::schedulers::raf
