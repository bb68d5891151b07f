// SPDX-License-Identifier: Apache-2.0
// A stream program: what the host issues for one block, in issue order (docs/raf.md
// "Stream programs"; RAF multi-stream design, seeds RAF doc). Kernels are launched on numbered
// CUDA streams; events recorded on one stream and waited on by another order work across
// streams; a stream barrier joins every stream on the device (the host is not blocked); a
// device sync blocks the host until the device is idle.
//
// Stage schedules lower to programs losslessly (lowerBlock): group i → stream i, a device sync
// before every stage of several groups and a stream barrier between stages (a stage of more
// than kMaxProgramStreams groups shares streams: group i on stream i mod kMaxProgramStreams).
// RAF's ASAP policy has no stage form (per-edge events, streams reused across what would be
// stages).
#pragma once

#include "ir/block_dag.h"
#include "schedule/schedule.h"

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace ios::schedule {

// The limits of every stream program, shared by its writers (lowerBlock, RAF's policies, the
// program file writer) and its readers (the program file loader, the verifier), so that every
// program the tool writes it reads back. Stream numbers are 0..kMaxProgramStreams-1: a stream
// is a CUDA stream of the executor, a track of the trace (whose reader takes 4096 streams) and
// a row of the text output, so writers reuse streams rather than number one per independent
// launch. Event numbers are 0..kMaxProgramEvent.
inline constexpr int kMaxProgramStreams = 4096;
inline constexpr int kMaxProgramEvent = 1 << 30;

// The stream a writer puts the i-th of many independent lanes on (a stage's group, a wave's
// chain): lane i mod kMaxProgramStreams, so lanes past the limit share streams in turn.
inline int laneStream(size_t lane) {
    return static_cast<int>(lane % static_cast<size_t>(kMaxProgramStreams));
}

enum class InstrKind : uint8_t {
    Launch,  // ops on `stream` (several ops: ONE merged convolution, as a merge stage)
    Record,  // cudaEventRecord(event, stream): captures the work issued on `stream` so far
    Wait,    // cudaStreamWaitEvent(stream, event): later work on `stream` waits for it
    Barrier, // device-wide join of every stream; the host runs on
    Sync,    // the host waits until the device is idle
};

struct Instruction {
    InstrKind kind = InstrKind::Launch;
    int stream = 0;       // Launch, Record, Wait
    int event = -1;       // Record, Wait
    std::vector<int> ops; // Launch: indices into the block's ir::BlockDag::ops
    // Launch of a synthetic pseudo-op (RAF's tuple before a concatenation): ops is empty and
    // `synthetic` names it ("tuple:<consumer>", never a model node). It launches no kernel but
    // orders work like any launch.
    std::string synthetic;

    static Instruction launch(int op, int stream) {
        return {InstrKind::Launch, stream, -1, {op}, {}};
    }
    static Instruction launchAll(std::vector<int> ops, int stream) {
        return {InstrKind::Launch, stream, -1, std::move(ops), {}};
    }
    static Instruction launchSynthetic(std::string name, int stream) {
        return {InstrKind::Launch, stream, -1, {}, std::move(name)};
    }
    static Instruction record(int event, int stream) {
        return {InstrKind::Record, stream, event, {}, {}};
    }
    static Instruction wait(int event, int stream) {
        return {InstrKind::Wait, stream, event, {}, {}};
    }
    static Instruction barrier() { return {InstrKind::Barrier, 0, -1, {}, {}}; }
    static Instruction sync() { return {InstrKind::Sync, 0, -1, {}, {}}; }
    friend bool operator==(const Instruction&, const Instruction&) = default;
};

struct StreamProgram {
    std::vector<Instruction> instructions; // issue order
    friend bool operator==(const StreamProgram&, const StreamProgram&) = default;
};

// One program per block, in block order.
using Program = std::vector<StreamProgram>;

// The stage schedule as a program: per stage, a Sync first when it has several groups, group
// i's operators launched on stream i in group order (a merge stage: one Launch of all its
// operators), a Barrier between consecutive stages.
StreamProgram lowerBlock(const BlockSchedule& bs);
Program lower(const Schedule& schedule);

struct ProgramCounts {
    int streams = 0;  // distinct streams launched on
    int events = 0;   // distinct events recorded
    int records = 0;  // Record instructions
    int waits = 0;    // Wait instructions
    int barriers = 0; // Barrier instructions
    int syncs = 0;    // Sync instructions
    int launches = 0; // Launch instructions (synthetic ones included)
};
ProgramCounts counts(const StreamProgram& program);

// The first instruction outside the limits above (a stream or event number out of range), in
// words; empty when none. The verifier and the program file writer check it.
std::string programLimitProblem(const StreamProgram& program);

// Name of a launch for people and files: the operator's name, "a+b" for a merged launch, the
// synthetic name for a pseudo-op.
std::string launchName(const ir::BlockDag& dag, const Instruction& launch);

} // namespace ios::schedule
