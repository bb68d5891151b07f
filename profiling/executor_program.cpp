// SPDX-License-Identifier: Apache-2.0
// Stream programs on the executor (schedule/stream_program.h; RAF's multi-stream runtime,
// docs/raf.md): a program is turned once into a flat list of backend calls (the plan), which
// eager runs, timed runs and CUDA-graph captures then issue without further lookups.
#include "cost/program_simulator.h"
#include "executor.h"
#include "gpu_trace.h"
#include "schedule/merge.h"
#include "util/error.h"

#include <algorithm>
#include <map>
#include <set>

namespace ios::profiling {

struct Executor::ProgramPlan {
    enum class Op : uint8_t { Enqueue, Record, Wait, Sync };
    struct Step {
        Op op = Op::Enqueue;
        StreamId stream = -1;
        EventId event = -1;
        const Kernel* kernel = nullptr; // owned by the LoweredModel (stable addresses)
        uint64_t tag = 0;               // Enqueue, tagged plans: its trace tag
    };
    std::vector<Step> steps;
    bool tagged = false;
};

namespace {

using schedule::InstrKind;
using schedule::Instruction;

bool hasStream(const Instruction& in) {
    return in.kind == InstrKind::Launch || in.kind == InstrKind::Record ||
           in.kind == InstrKind::Wait;
}

std::string where(size_t block, size_t instruction) {
    return "block " + std::to_string(block) + " stream program, instruction " +
           std::to_string(instruction);
}

} // namespace

// One launch: a single operator's lowered kernels, or the merged convolution of its operators
// (the merge stage's lowering, cached like it); a synthetic launch (RAF's tuple) has no kernel
// and orders nothing its stream's records and waits do not already order.
void Executor::appendLaunch(ProgramPlan& plan, const ir::BlockDag& dag, const Instruction& in,
                            StreamId stream, int segmentOrdinal) {
    auto add = [&](const Kernel& k, int op) {
        plan.steps.push_back({ProgramPlan::Op::Enqueue, stream, -1, &k,
                              plan.tagged ? makeTraceTag(segmentOrdinal, op) : 0});
    };
    if (in.ops.size() == 1) {
        for (const Kernel& k : model_.operatorKernels(dag.ops[static_cast<size_t>(in.ops[0])]))
            add(k, in.ops[0]);
        return;
    }
    if (in.ops.empty())
        return;
    const StageProgram& merged =
        model_.stageProgram(dag, schedule::Stage{schedule::StageKind::Merge, {in.ops}});
    for (size_t i = 0; i < merged.groups[0].size(); ++i)
        add(merged.groups[0][i], merged.ops[0][i]);
}

Executor::ProgramPlan Executor::planProgram(const std::vector<ir::BlockDag>& dags,
                                            const schedule::Program& program, bool tag) {
    if (dags.size() != program.size())
        throw UserError("the stream program has " + std::to_string(program.size()) +
                        " blocks but the model has " + std::to_string(dags.size()));
    using Op = ProgramPlan::Op;
    ProgramPlan plan;
    plan.tagged = tag;
    std::map<int, size_t> streamIndex; // program stream → executor stream index
    std::map<int, size_t> eventIndex;  // program event → index into programEvents_
    const StreamId main = stream(0);
    int ordinal = 0; // segments over the whole program, as trace tags count them
    for (size_t b = 0; b < dags.size(); ++b) {
        const ir::BlockDag& dag = dags[b];
        const std::vector<Instruction>& ins = program[b].instructions;
        // Check what cannot be issued before anything is planned for this block.
        std::set<int> recorded;
        for (size_t i = 0; i < ins.size(); ++i) {
            const Instruction& in = ins[i];
            if (hasStream(in) && in.stream < 0)
                throw UserError(where(b, i) + " uses stream " + std::to_string(in.stream));
            if (in.kind == InstrKind::Record)
                recorded.insert(in.event);
            if ((in.kind == InstrKind::Record || in.kind == InstrKind::Wait) && in.event < 0)
                throw UserError(where(b, i) + " uses event " + std::to_string(in.event));
            if (in.kind == InstrKind::Wait && !recorded.contains(in.event))
                throw UserError(where(b, i) + " waits on event " + std::to_string(in.event) +
                                " before any record of it");
            if (in.kind != InstrKind::Launch)
                continue;
            if (in.ops.empty() && in.synthetic.empty())
                throw UserError(where(b, i) + " launches nothing");
            std::vector<const ir::Node*> members;
            for (int op : in.ops) {
                if (op < 0 || static_cast<size_t>(op) >= dag.ops.size())
                    throw UserError(where(b, i) + " launches operator #" + std::to_string(op) +
                                    ", not in the block");
                members.push_back(dag.ops[static_cast<size_t>(op)]);
            }
            if (members.size() > 1)
                if (auto problem = schedule::mergeProblem(members))
                    throw UserError(where(b, i) +
                                    " merges operators that cannot merge: " + *problem);
        }
        for (const cost::ProgramSegment& seg : cost::programSegments(program[b])) {
            ++ordinal;
            if (seg.afterSync)
                plan.steps.push_back({Op::Sync});
            const auto first = static_cast<size_t>(seg.firstInstruction);
            const auto end = static_cast<size_t>(seg.endInstruction);
            // The segment's streams other than main, in order of first use: forked from the
            // main stream now, joined back into it at the segment's end.
            std::vector<size_t> forked;
            for (size_t i = first; i < end; ++i) {
                if (!hasStream(ins[i]))
                    continue;
                const size_t index =
                    streamIndex.try_emplace(ins[i].stream, streamIndex.size()).first->second;
                if (index != 0 && std::find(forked.begin(), forked.end(), index) == forked.end())
                    forked.push_back(index);
            }
            if (!forked.empty())
                plan.steps.push_back({Op::Record, main, fork_});
            for (size_t index : forked)
                plan.steps.push_back({Op::Wait, stream(index), fork_});
            for (size_t i = first; i < end; ++i) {
                const Instruction& in = ins[i];
                const StreamId s = stream(streamIndex.at(in.stream));
                if (in.kind == InstrKind::Launch) {
                    appendLaunch(plan, dag, in, s, ordinal);
                    continue;
                }
                const size_t e = eventIndex.try_emplace(in.event, eventIndex.size()).first->second;
                while (programEvents_.size() <= e)
                    programEvents_.push_back(backend_.createEvent());
                plan.steps.push_back(
                    {in.kind == InstrKind::Record ? Op::Record : Op::Wait, s, programEvents_[e]});
            }
            for (size_t index : forked) {
                plan.steps.push_back({Op::Record, streams_[index], joins_[index]});
                plan.steps.push_back({Op::Wait, main, joins_[index]});
            }
        }
    }
    return plan;
}

void Executor::runPlan(const ProgramPlan& plan) {
    using Op = ProgramPlan::Op;
    for (const ProgramPlan::Step& step : plan.steps) {
        switch (step.op) {
        case Op::Enqueue:
            if (plan.tagged)
                backend_.setTraceTag(step.tag);
            backend_.enqueue(step.stream, *step.kernel);
            break;
        case Op::Record:
            backend_.record(step.event, step.stream);
            break;
        case Op::Wait:
            backend_.wait(step.stream, step.event);
            break;
        case Op::Sync:
            // Synchronizing while a stream is captured is illegal (CUDA refuses it with
            // cudaErrorStreamCaptureUnsupported and invalidates the capture). Under capture the
            // sync is a barrier: the joins into the main stream that end the segment before it
            // and the forks from it that start the next order the same work on the device.
            if (!capturing_)
                backend_.synchronize();
            break;
        }
    }
    if (plan.tagged)
        backend_.setTraceTag(0);
}

void Executor::issueProgram(const std::vector<ir::BlockDag>& dags, const schedule::Program& program,
                            bool tag) {
    runPlan(planProgram(dags, program, tag));
}

std::vector<double> Executor::timeProgram(const std::vector<ir::BlockDag>& dags,
                                          const schedule::Program& program,
                                          const TimingOptions& options) {
    const ProgramPlan plan = planProgram(dags, program, false);
    return timeRuns([&] { runPlan(plan); }, options);
}

GraphId Executor::captureProgram(const std::vector<ir::BlockDag>& dags,
                                 const schedule::Program& program) {
    const ProgramPlan plan = planProgram(dags, program, false);
    return capture([&] { runPlan(plan); });
}

} // namespace ios::profiling
