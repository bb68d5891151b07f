// SPDX-License-Identifier: Apache-2.0
// RAF's ASAP policy (docs/raf.md "ASAP"; RAF stream_schedule_asap.cc): heavy chains on one
// stream each, streams reused when a finished chain reaches the next one (newest stream first),
// an event on every light edge. Has no stage form. Past schedule::kMaxProgramStreams streams,
// new chains share streams 1.. in turn (RAF numbers one per chain without a limit).
#include "schedulers/raf/policies.h"
#include "schedulers/raf/program_scheduler.h"

#include <algorithm>
#include <cstdint>
#include <map>
#include <numeric>

namespace ios::schedulers::raf {

HeavyEdges heavyEdges(const RafGraph& g) {
    const auto& nodes = g.nodes;
    const size_t n = nodes.size();
    HeavyEdges h;
    // depth(v): nodes on the longest path from v to a sink (nodes are topologically ordered).
    h.depth.assign(n, 1);
    for (size_t i = n; i-- > 0;)
        for (int c : nodes[i].consumers)
            h.depth[i] = std::max(h.depth[i], h.depth[static_cast<size_t>(c)] + 1);
    // By depth descending (stable), each node claims its first input not claimed yet.
    std::vector<int> byDepth(n);
    std::iota(byDepth.begin(), byDepth.end(), 0);
    std::stable_sort(byDepth.begin(), byDepth.end(), [&](int a, int b) {
        return h.depth[static_cast<size_t>(a)] > h.depth[static_cast<size_t>(b)];
    });
    h.heavyChild.assign(n, -1);
    h.heavyParent.assign(n, -1);
    for (int v : byDepth)
        for (int u : nodes[static_cast<size_t>(v)].inputs)
            if (h.heavyParent[static_cast<size_t>(u)] < 0) {
                h.heavyParent[static_cast<size_t>(u)] = v;
                h.heavyChild[static_cast<size_t>(v)] = u;
                break;
            }
    return h;
}

schedule::StreamProgram asapProgram(const RafGraph& g) {
    const auto& nodes = g.nodes;
    const size_t n = nodes.size();
    const HeavyEdges h = heavyEdges(g);
    const std::vector<int>& depth = h.depth;
    const std::vector<int>& heavyChild = h.heavyChild;
    const std::vector<int>& heavyParent = h.heavyParent;
    // Streams are reused when their last node reaches the node (never the node itself: it is
    // not issued yet).
    const NodeSets reach = descendants(g);

    // Issue order: a stack of ready nodes sorted by depth ascending, popped from the back; a
    // node's heavy parent, once ready, goes on top so that it issues next.
    auto byDepthAscending = [&](int a, int b) {
        return depth[static_cast<size_t>(a)] < depth[static_cast<size_t>(b)];
    };
    std::vector<size_t> pending(n);
    std::vector<int> stack;
    for (size_t i = 0; i < n; ++i) {
        pending[i] = nodes[i].inputs.size();
        if (pending[i] == 0)
            stack.push_back(static_cast<int>(i));
    }
    std::sort(stack.begin(), stack.end(), byDepthAscending);
    schedule::StreamProgram out;
    auto& program = out.instructions;
    std::vector<int> streamOf(n, -1);
    std::vector<int> eventOf(n, -1);
    std::map<int, int> streamLast; // stream → its last node whose chain has finished, or -1
    int events = 0;
    uint64_t shared = 0; // new chains put on a shared stream so far
    while (!stack.empty()) {
        const int v = stack.back();
        stack.pop_back();
        const auto vi = static_cast<size_t>(v);
        int stream = -1;
        if (heavyChild[vi] >= 0) {
            stream = streamOf[static_cast<size_t>(heavyChild[vi])];
        } else {
            for (auto it = streamLast.rbegin(); it != streamLast.rend() && stream < 0; ++it)
                if (it->second >= 0 && reach.has(static_cast<size_t>(it->second), vi))
                    stream = it->first;
            if (stream < 0)
                stream = streamLast.empty() ? 1 : streamLast.rbegin()->first + 1;
            // Past the program limit, streams 1.. are shared in turn: v waits on every input
            // by an event (it has no heavy child), so any stream keeps the program valid.
            if (stream >= schedule::kMaxProgramStreams)
                stream = 1 + static_cast<int>(shared++ % (schedule::kMaxProgramStreams - 1));
        }
        streamOf[vi] = stream;
        for (int u : nodes[vi].inputs)
            if (u != heavyChild[vi])
                program.push_back(
                    schedule::Instruction::wait(eventOf[static_cast<size_t>(u)], stream));
        program.push_back(launchOf(nodes[vi], stream));
        bool light = false;
        for (int c : nodes[vi].consumers)
            light = light || c != heavyParent[vi];
        if (light) {
            eventOf[vi] = events++;
            program.push_back(schedule::Instruction::record(eventOf[vi], stream));
        }
        // The stream's chain is finished when v has no heavy parent.
        streamLast[stream] = heavyParent[vi] < 0 ? v : -1;
        bool parentReady = false;
        for (int c : nodes[vi].consumers)
            if (--pending[static_cast<size_t>(c)] == 0) {
                if (c == heavyParent[vi])
                    parentReady = true;
                else
                    stack.push_back(c);
            }
        std::sort(stack.begin(), stack.end(), byDepthAscending);
        if (parentReady)
            stack.push_back(heavyParent[vi]);
    }
    return out;
}

namespace {

class AsapScheduler final : public ProgramScheduler {
public:
    std::string_view key() const override { return "raf-asap"; }
    std::string_view label() const override { return "RAF ASAP"; }
    std::string_view description() const override {
        return "RAF: heavy chains on streams, events on light edges, streams reused (no stages)";
    }
    std::vector<std::string_view> aliases() const override { return {"asap"}; }
    int rank() const override { return 210; }

protected:
    BlockProgram schedule(const ir::BlockDag& /*dag*/, const RafGraph& g,
                          PolicyRun& /*run*/) const override {
        return {asapProgram(g), std::nullopt};
    }
};

} // namespace

IOS_REGISTER_SCHEDULER(AsapScheduler);

} // namespace ios::schedulers::raf
