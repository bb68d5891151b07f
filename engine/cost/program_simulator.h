// SPDX-License-Identifier: Apache-2.0
// Simulation of stream programs (schedule/stream_program.h; docs/raf.md "Simulating programs").
//
// A program runs as segments cut at its barriers and device syncs (both join every stream, so
// nothing crosses them); a block's latency is the sum of its segments'. Within a segment the
// host issues launches in program order, one every launchOverheadUs (a record or a wait costs
// half a launch); a stream runs its launches in issue order; a launch after a wait starts only
// once the work the waited event captured has finished (plus the GPU's dependent-kernel gap,
// as within a stream); concurrently running kernels share the SMs as in a stage
// (stage_simulator.h). A segment after a device sync pays the launch latency (the host was
// blocked); a segment that used two or more streams ends with a join that costs syncOverheadUs.
// A lowered stage schedule therefore simulates to exactly the stage simulator's latency: each
// stage is one segment, synchronised iff it has several groups.
#pragma once

#include "cost/device_profile.h"
#include "cost/kernel_model.h"
#include "cost/kernel_timeline.h"
#include "cost/simulation_mode.h"
#include "ir/block_dag.h"
#include "schedule/stream_program.h"

#include <functional>
#include <vector>

namespace ios::cost {

struct ProgramSegment {
    int firstInstruction = 0; // [first, end) of the program's instructions
    int endInstruction = 0;
    int streams = 0; // distinct streams launched on
    bool afterSync = false;
    double startUs = 0;
    double endUs = 0;
};

struct ProgramRun {
    double latencyUs = 0;
    // Per segment, its latency as the model prices it (the block latency in ms is their sum in
    // order, as a stage schedule's is the sum of its stages').
    std::vector<double> segmentMs;
    std::vector<ProgramSegment> segments;
    // Per instruction, when it took effect on the device (µs from the block start): a launch
    // → when its last kernel ended (a launch without kernels: when its stream reached it), a
    // record → when the captured work was done, a wait → when the waiting stream was released,
    // a barrier or sync → the end of the segment before it.
    std::vector<double> instructionUs;
    // Per instruction, launches only: when its first kernel started (else = instructionUs).
    std::vector<double> startUs;
    // With a timeline: the kernels (group = the program's stream number, times from the block
    // start) and the device utilisation (empty for models without SMs).
    std::vector<KernelRun> kernels;
    std::vector<UtilisationSample> samples;
};

// The segments of a program: [first, end) instruction ranges cut at barriers and syncs (the
// delimiters belong to no segment), with their stream counts and whether a sync precedes them.
std::vector<ProgramSegment> programSegments(const schedule::StreamProgram& program);

// Kernel-level simulation on a device (the simulated GPU): `kernelsOf(launch)` gives the
// kernels of a launch instruction (empty for a synthetic one); `label(launch)` its timeline
// label. The program must be valid (schedule/program_verify.h).
ProgramRun simulateProgramKernels(
    const schedule::StreamProgram& program, const DeviceProfile& device, bool timeline,
    const std::function<const std::vector<KernelDesc>&(const schedule::Instruction&)>& kernelsOf,
    const std::function<std::string(const schedule::Instruction&)>& label,
    SimulationMode mode = SimulationMode::Fast);

class CostModel;

// Capability of a cost model (cost_model.h): its own simulation of one block's stream program.
// segmentMs (per segment, in order) must sum to stage latencies for a lowered stage schedule:
// segment i of lowerBlock(bs) costs what stageLatencyMs(bs's stage) does, bit for bit.
class ProgramSimulation {
public:
    virtual ~ProgramSimulation() = default;
    virtual ProgramRun simulateProgram(const ir::BlockDag& dag,
                                       const schedule::StreamProgram& program,
                                       bool timeline) const = 0;
};

// One block's stream program simulated under `cost`: its ProgramSimulation, or (models that know
// stage latencies only, e.g. measurements) the operator-level dataflow below, each launch taking
// its one-operator stage latency (a merged launch: its merge stage's), streams not slowing each
// other. Throws UserError for an invalid program.
ProgramRun simulateProgram(const CostModel& cost, const ir::BlockDag& dag,
                           const schedule::StreamProgram& program, bool timeline);

// simulateProgram(cost, dag, program, timeline) after checking every segment's latency like a
// stage latency (a UserError naming the segment and the cost model).
ProgramRun checkedProgramRun(const CostModel& cost, const ir::BlockDag& dag,
                             const schedule::StreamProgram& program, bool timeline);

// Operator-level dataflow: a launch takes launchMs(launch) on its stream once its stream and the
// events it waits on are done; streams do not slow each other; a segment lasts until its last
// stream ends, plus segmentOverheadMs(segment). Times are summed in ms in issue order, as an
// additive stage model sums a group.
ProgramRun
simulateProgramDataflow(const ir::BlockDag& dag, const schedule::StreamProgram& program,
                        bool timeline,
                        const std::function<double(const schedule::Instruction&)>& launchMs,
                        const std::function<double(const ProgramSegment&)>& segmentOverheadMs);

} // namespace ios::cost
