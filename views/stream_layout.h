// SPDX-License-Identifier: Apache-2.0
// Where the Streams view draws one block's stream program (schedule/stream_program.h): one lane
// per program stream, the launches in issue order (x = instruction index) or in simulated time
// (x = the ProgramRun's start and instruction times), an arrow from each wait to the record it
// waits for, barriers and syncs across every lane. Widget-free, so the geometry is tested
// without painting (docs/architecture.md "Adding a view").
#pragma once

#include "cost/program_simulator.h"
#include "ir/block_dag.h"
#include "schedule/stream_program.h"

#include <string>
#include <vector>

namespace ios::views {

enum class StreamAxis {
    // Instruction i occupies slot i, in order: a launch a full slot, a record, wait, barrier or
    // sync a narrow one (kIssueMarkSlot), so the launches get the room.
    IssueOrder,
    SimulatedTime, // µs from the block's start
};

struct StreamLaunch {
    int instruction = 0; // index into the block's program
    int stream = 0;
    int lane = 0;
    double x0 = 0;
    double x1 = 0;
    bool synthetic = false; // RAF tuple pseudo-op: no kernel, orders like a launch
    std::vector<int> ops;   // indices into the block's ir::BlockDag::ops
    std::string name;       // schedule::launchName
    // Arrows ordering this launch: the waits its stream issued since its previous launch.
    std::vector<int> waitArrows;
    // Arrows whose record captured this launch (its stream's latest launch at the record).
    std::vector<int> recordArrows;
};

// A record or wait instruction, drawn on its stream's lane.
struct StreamMark {
    int instruction = 0;
    int lane = 0;
    double x = 0;
    bool record = true; // else a wait
    int event = -1;
};

// Wait → the latest record of its event issued before it, drawn from the record to the wait.
struct StreamArrow {
    int event = -1;
    int record = -1; // instruction indices
    int wait = -1;
    int fromLane = 0;
    int toLane = 0;
    double x0 = 0;       // the record's x
    double x1 = 0;       // the wait's x
    int fromLaunch = -1; // index into launches: what the record captured last; -1 = nothing
    int toLaunch = -1;   // the first launch the wait orders; -1 = none after it
};

struct StreamDivider {
    int instruction = 0;
    bool sync = false; // else a barrier
    double x = 0;
};

struct StreamLayout {
    StreamAxis axis = StreamAxis::IssueOrder;
    std::vector<int> laneStreams;       // program stream number of each lane, ascending
    std::vector<StreamLaunch> launches; // issue order
    std::vector<StreamMark> marks;
    std::vector<StreamArrow> arrows; // one per wait whose event was recorded before it
    std::vector<StreamDivider> dividers;
    double extent = 1; // x runs over [0, extent]
    // Issue order: where slot i starts (i = 0 … n; slot i ends where slot i + 1 starts).
    std::vector<double> slotStart;

    // The launch that runs operator `op` of the block, or -1.
    int launchOfOperator(int op) const;
};

// `run` must simulate `program` (one time per instruction) for SimulatedTime; without it the
// layout is in issue order (layout.axis says which).
StreamLayout layoutStreams(const ir::BlockDag& dag, const schedule::StreamProgram& program,
                           StreamAxis axis, const cost::ProgramRun* run = nullptr);

// Issue order: a launch box fills its slot (width 1) but for this margin on each side; the
// other instructions' slots are this narrow.
inline constexpr double kIssueSlotMargin = 0.08;
inline constexpr double kIssueMarkSlot = 0.4;

} // namespace ios::views
