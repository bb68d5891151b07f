// SPDX-License-Identifier: Apache-2.0
#include "cost/program_simulator.h"

#include "cost/cost_model.h"
#include "cost/gpu_simulation.h"
#include "util/error.h"

#include <algorithm>
#include <deque>
#include <limits>
#include <map>

namespace ios::cost {

namespace {

using schedule::InstrKind;
using schedule::Instruction;

constexpr double kNever = -std::numeric_limits<double>::infinity();

bool delimits(const Instruction& in) {
    return in.kind == InstrKind::Barrier || in.kind == InstrKind::Sync;
}

// Dense stream numbers of a segment in order of first launch, and the reverse map.
struct SegmentStreams {
    std::map<int, int> dense;
    std::vector<int> program;
    int of(int stream) {
        auto [it, added] = dense.try_emplace(stream, static_cast<int>(program.size()));
        if (added)
            program.push_back(stream);
        return it->second;
    }
};

// Streams launched on first (so a lowered stage's group i is dense stream i), then streams
// that only record or wait. `launched` = how many launched.
SegmentStreams streamsOf(const schedule::StreamProgram& p, const ProgramSegment& seg,
                         size_t* launched = nullptr) {
    SegmentStreams s;
    for (int i = seg.firstInstruction; i < seg.endInstruction; ++i)
        if (const Instruction& in = p.instructions[static_cast<size_t>(i)];
            in.kind == InstrKind::Launch)
            s.of(in.stream);
    if (launched != nullptr)
        *launched = s.program.size();
    for (int i = seg.firstInstruction; i < seg.endInstruction; ++i)
        if (const Instruction& in = p.instructions[static_cast<size_t>(i)];
            in.kind == InstrKind::Record || in.kind == InstrKind::Wait)
            s.of(in.stream);
    return s;
}

double maxOf(double a, double b) {
    return std::max(a, b);
}

} // namespace

std::vector<ProgramSegment> programSegments(const schedule::StreamProgram& program) {
    std::vector<ProgramSegment> segments;
    ProgramSegment seg;
    auto close = [&](int end) {
        seg.endInstruction = end;
        segments.push_back(seg);
    };
    const auto& ins = program.instructions;
    for (size_t i = 0; i < ins.size(); ++i) {
        if (!delimits(ins[i]))
            continue;
        close(static_cast<int>(i));
        seg = ProgramSegment{};
        seg.firstInstruction = static_cast<int>(i) + 1;
        seg.afterSync = ins[i].kind == InstrKind::Sync;
    }
    close(static_cast<int>(ins.size()));
    for (ProgramSegment& s : segments) {
        size_t launched = 0;
        streamsOf(program, s, &launched);
        s.streams = static_cast<int>(launched);
    }
    return segments;
}

namespace {

// A run with the program's segments and a zero time per instruction.
ProgramRun emptyRun(const schedule::StreamProgram& program) {
    ProgramRun run;
    run.segments = programSegments(program);
    run.instructionUs.assign(program.instructions.size(), 0);
    run.startUs.assign(program.instructions.size(), 0);
    return run;
}

} // namespace

ProgramRun simulateProgramKernels(
    const schedule::StreamProgram& program, const DeviceProfile& device, bool timeline,
    const std::function<const std::vector<KernelDesc>&(const Instruction&)>& kernelsOf,
    const std::function<std::string(const Instruction&)>& label, SimulationMode mode) {
    ProgramRun run = emptyRun(program);
    const size_t n = program.instructions.size();
    double offset = 0;
    std::deque<std::string> labels; // stable addresses for the simulation's kernels
    // Per instruction (each belongs to one segment): the kernels whose ends decide when it took
    // effect; for launches, their first kernel.
    std::vector<std::vector<size_t>> after(n);
    std::vector<size_t> firstKernel(n, detail::kNoKernel);
    for (ProgramSegment& seg : run.segments) {
        SegmentStreams streams = streamsOf(program, seg);
        const size_t count = streams.program.size();
        detail::GpuSimulation sim(count, device, timeline, seg.afterSync, seg.streams >= 2, mode);
        // Per dense stream: its last kernel, and the kernels its next kernel must wait for.
        std::vector<size_t> last(count, detail::kNoKernel);
        std::vector<std::vector<size_t>> pending(count);
        std::vector<int> kernelStream;
        std::map<int, std::vector<size_t>> events; // recorded in this segment
        for (int i = seg.firstInstruction; i < seg.endInstruction; ++i) {
            const auto ii = static_cast<size_t>(i);
            const Instruction& in = program.instructions[ii];
            if (in.kind == InstrKind::Record || in.kind == InstrKind::Wait) {
                sim.hostHalfSlot();
                // An event recorded before a barrier or sync is complete already: nothing to
                // wait for inside this segment.
                const auto s = static_cast<size_t>(streams.of(in.stream));
                if (in.kind == InstrKind::Record) {
                    std::vector<size_t> captured = pending[s];
                    if (last[s] != detail::kNoKernel)
                        captured.push_back(last[s]);
                    after[ii] = captured;
                    events[in.event] = std::move(captured);
                } else if (auto it = events.find(in.event); it != events.end()) {
                    after[ii] = it->second;
                    for (size_t k : it->second)
                        if (kernelStream[k] != static_cast<int>(s))
                            pending[s].push_back(k);
                }
                continue;
            }
            const auto s = static_cast<size_t>(streams.of(in.stream));
            const std::vector<KernelDesc>& kernels = kernelsOf(in);
            if (timeline)
                labels.push_back(label(in));
            const std::string* text = timeline ? &labels.back() : nullptr;
            const int op = in.ops.empty() ? -1 : in.ops.front();
            after[ii] = pending[s];
            if (last[s] != detail::kNoKernel)
                after[ii].push_back(last[s]);
            for (const KernelDesc& k : kernels) {
                const size_t index = sim.add(k, static_cast<int>(s), op, text);
                kernelStream.push_back(static_cast<int>(s));
                if (firstKernel[ii] == detail::kNoKernel) {
                    firstKernel[ii] = index;
                    std::sort(pending[s].begin(), pending[s].end());
                    pending[s].erase(std::unique(pending[s].begin(), pending[s].end()),
                                     pending[s].end());
                    for (size_t dep : pending[s])
                        sim.addDependency(dep, index);
                    pending[s].clear();
                }
                last[s] = index;
            }
            if (firstKernel[ii] != detail::kNoKernel)
                after[ii] = {last[s]};
        }
        const double us = sim.run();
        for (int i = seg.firstInstruction; i < seg.endInstruction; ++i) {
            const auto ii = static_cast<size_t>(i);
            double t = 0;
            for (size_t k : after[ii])
                t = maxOf(t, sim.kernelEndUs(k));
            run.instructionUs[ii] = offset + t;
            run.startUs[ii] = firstKernel[ii] != detail::kNoKernel
                                  ? offset + sim.kernelStartUs(firstKernel[ii])
                                  : run.instructionUs[ii];
        }
        if (timeline) {
            StageRun r = sim.timeline();
            for (KernelRun& k : r.kernels) {
                k.group = streams.program[static_cast<size_t>(k.group)];
                k.issueUs += offset;
                k.startUs += offset;
                k.endUs += offset;
                run.kernels.push_back(std::move(k));
            }
            for (UtilisationSample u : r.samples) {
                u.timeUs += offset;
                // Samples of consecutive segments meet at the boundary: the later one wins.
                if (!run.samples.empty() && run.samples.back().timeUs >= u.timeUs)
                    run.samples.back() = u;
                else
                    run.samples.push_back(u);
            }
        }
        seg.startUs = offset;
        seg.endUs = offset + us;
        run.segmentMs.push_back(us / 1000.0);
        offset += us;
        if (seg.endInstruction < static_cast<int>(n))
            run.instructionUs[static_cast<size_t>(seg.endInstruction)] = offset;
    }
    run.latencyUs = offset;
    return run;
}

ProgramRun simulateProgramDataflow(const ir::BlockDag& dag, const schedule::StreamProgram& program,
                                   bool timeline,
                                   const std::function<double(const Instruction&)>& launchMs,
                                   const std::function<double(const ProgramSegment&)>& overheadMs) {
    ProgramRun run = emptyRun(program);
    const size_t n = program.instructions.size();
    double offsetMs = 0;
    for (ProgramSegment& seg : run.segments) {
        std::map<int, double> streamEnd; // ms from the segment start
        std::map<int, double> released;  // latest waited event per stream
        std::map<int, double> events;
        for (int i = seg.firstInstruction; i < seg.endInstruction; ++i) {
            const auto ii = static_cast<size_t>(i);
            const Instruction& in = program.instructions[ii];
            const double ready = maxOf(streamEnd.try_emplace(in.stream, 0.0).first->second,
                                       released.try_emplace(in.stream, kNever).first->second);
            double at = ready;
            switch (in.kind) {
            case InstrKind::Launch: {
                const double end = ready + launchMs(in);
                run.startUs[ii] = (offsetMs + ready) * 1000;
                streamEnd[in.stream] = end;
                released[in.stream] = kNever;
                at = end;
                if (timeline && !in.ops.empty()) {
                    const ir::Node& node = *dag.ops[static_cast<size_t>(in.ops.front())];
                    run.kernels.push_back({in.stream, in.ops.front(), schedule::launchName(dag, in),
                                           std::string(ir::toString(node.kind)), 0, run.startUs[ii],
                                           run.startUs[ii], (offsetMs + end) * 1000});
                }
                break;
            }
            case InstrKind::Record:
                events[in.event] = ready;
                break;
            case InstrKind::Wait:
                if (auto it = events.find(in.event); it != events.end()) {
                    released[in.stream] = maxOf(released[in.stream], it->second);
                    at = maxOf(ready, it->second);
                }
                break;
            default:
                break;
            }
            run.instructionUs[ii] = (offsetMs + at) * 1000;
            if (in.kind != InstrKind::Launch)
                run.startUs[ii] = run.instructionUs[ii];
        }
        double slowest = 0;
        for (const auto& [stream, end] : streamEnd)
            slowest = maxOf(slowest, end);
        const double ms = seg.streams > 0 ? slowest + overheadMs(seg) : 0.0;
        seg.startUs = offsetMs * 1000;
        seg.endUs = (offsetMs + ms) * 1000;
        run.segmentMs.push_back(ms);
        offsetMs += ms;
        if (seg.endInstruction < static_cast<int>(n))
            run.instructionUs[static_cast<size_t>(seg.endInstruction)] = offsetMs * 1000;
    }
    run.latencyUs = offsetMs * 1000;
    return run;
}

ProgramRun simulateProgram(const CostModel& cost, const ir::BlockDag& dag,
                           const schedule::StreamProgram& program, bool timeline) {
    if (const ProgramSimulation* own = cost.programSimulation())
        return own->simulateProgram(dag, program, timeline);
    return simulateProgramDataflow(
        dag, program, timeline,
        [&](const Instruction& in) {
            if (in.ops.empty())
                return 0.0;
            schedule::Stage stage;
            stage.kind =
                in.ops.size() > 1 ? schedule::StageKind::Merge : schedule::StageKind::Parallel;
            stage.groups.push_back(in.ops);
            return checkedStageLatencyMs(cost, dag, stage);
        },
        [](const ProgramSegment&) { return 0.0; });
}

} // namespace ios::cost
