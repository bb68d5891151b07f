// SPDX-License-Identifier: Apache-2.0
#include "stream_layout.h"

#include <algorithm>
#include <map>
#include <set>

namespace ios::views {

namespace {

using schedule::InstrKind;
using schedule::Instruction;

struct RecordSeen {
    int instruction = -1;
    int stream = 0;
    int launch = -1; // the stream's latest launch when it was recorded
};

} // namespace

int StreamLayout::launchOfOperator(int op) const {
    for (size_t i = 0; i < launches.size(); ++i)
        if (std::find(launches[i].ops.begin(), launches[i].ops.end(), op) != launches[i].ops.end())
            return static_cast<int>(i);
    return -1;
}

StreamLayout layoutStreams(const ir::BlockDag& dag, const schedule::StreamProgram& program,
                           StreamAxis axis, const cost::ProgramRun* run) {
    const auto& ins = program.instructions;
    const size_t n = ins.size();
    const bool timed = axis == StreamAxis::SimulatedTime && run != nullptr &&
                       run->instructionUs.size() == n && run->startUs.size() == n;
    StreamLayout out;
    out.axis = timed ? StreamAxis::SimulatedTime : StreamAxis::IssueOrder;

    std::set<int> streams;
    for (const Instruction& in : ins)
        if (in.kind == InstrKind::Launch || in.kind == InstrKind::Record ||
            in.kind == InstrKind::Wait)
            streams.insert(in.stream);
    out.laneStreams.assign(streams.begin(), streams.end());
    std::map<int, int> laneOf;
    for (size_t l = 0; l < out.laneStreams.size(); ++l)
        laneOf[out.laneStreams[l]] = static_cast<int>(l);

    if (!timed) {
        out.slotStart.assign(n + 1, 0.0);
        for (size_t i = 0; i < n; ++i)
            out.slotStart[i + 1] =
                out.slotStart[i] + (ins[i].kind == InstrKind::Launch ? 1.0 : kIssueMarkSlot);
    }
    // Where instruction i sits: its slot's centre, or when it took effect.
    auto at = [&](size_t i) {
        return timed ? run->instructionUs[i] : (out.slotStart[i] + out.slotStart[i + 1]) / 2;
    };
    std::map<int, int> lastLaunch;                // stream → launch index
    std::map<int, std::vector<int>> pendingWaits; // stream → arrows since its last launch
    std::map<int, RecordSeen> recorded;           // event → its latest record so far
    for (size_t i = 0; i < n; ++i) {
        const Instruction& in = ins[i];
        const int index = static_cast<int>(i);
        switch (in.kind) {
        case InstrKind::Launch: {
            StreamLaunch l;
            l.instruction = index;
            l.stream = in.stream;
            l.lane = laneOf[in.stream];
            l.x0 = timed ? run->startUs[i] : out.slotStart[i] + kIssueSlotMargin;
            l.x1 = timed ? std::max(run->instructionUs[i], l.x0)
                         : out.slotStart[i + 1] - kIssueSlotMargin;
            l.synthetic = in.ops.empty();
            l.ops = in.ops;
            l.name = schedule::launchName(dag, in);
            const int launch = static_cast<int>(out.launches.size());
            l.waitArrows = std::move(pendingWaits[in.stream]);
            pendingWaits[in.stream].clear();
            for (int a : l.waitArrows)
                out.arrows[static_cast<size_t>(a)].toLaunch = launch;
            lastLaunch[in.stream] = launch;
            out.launches.push_back(std::move(l));
            break;
        }
        case InstrKind::Record: {
            const auto last = lastLaunch.find(in.stream);
            recorded[in.event] = {index, in.stream, last == lastLaunch.end() ? -1 : last->second};
            out.marks.push_back({index, laneOf[in.stream], at(i), true, in.event});
            break;
        }
        case InstrKind::Wait: {
            out.marks.push_back({index, laneOf[in.stream], at(i), false, in.event});
            const auto rec = recorded.find(in.event);
            if (rec == recorded.end())
                break; // an invalid program; the verifier names it
            StreamArrow a;
            a.event = in.event;
            a.record = rec->second.instruction;
            a.wait = index;
            a.fromLane = laneOf[rec->second.stream];
            a.toLane = laneOf[in.stream];
            a.x0 = at(static_cast<size_t>(a.record));
            a.x1 = at(i);
            a.fromLaunch = rec->second.launch;
            const int arrow = static_cast<int>(out.arrows.size());
            if (a.fromLaunch >= 0)
                out.launches[static_cast<size_t>(a.fromLaunch)].recordArrows.push_back(arrow);
            pendingWaits[in.stream].push_back(arrow);
            out.arrows.push_back(a);
            break;
        }
        case InstrKind::Barrier:
        case InstrKind::Sync:
            out.dividers.push_back({index, in.kind == InstrKind::Sync, at(i)});
            break;
        }
    }

    out.extent = timed ? std::max(run->latencyUs, 0.0) : out.slotStart.back();
    if (timed)
        for (const StreamLaunch& l : out.launches)
            out.extent = std::max(out.extent, l.x1);
    out.extent = std::max(out.extent, timed ? 1e-3 : 1.0);
    return out;
}

} // namespace ios::views
