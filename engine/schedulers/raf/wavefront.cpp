// SPDX-License-Identifier: Apache-2.0
// RAF's wavefront policy (docs/raf.md "Wavefront"; RAF stream_schedule_wavefront.cc): waves of
// chains, chain j of a wave on stream j, a stream barrier between waves.
#include "schedulers/raf/policies.h"
#include "schedulers/raf/program_scheduler.h"

namespace ios::schedulers::raf {

std::vector<std::vector<std::vector<int>>> wavefrontChains(const RafGraph& g) {
    const auto& nodes = g.nodes;
    std::vector<size_t> pending(nodes.size());
    std::vector<int> free;
    for (size_t v = 0; v < nodes.size(); ++v) {
        pending[v] = nodes[v].inputs.size();
        if (pending[v] == 0)
            free.push_back(static_cast<int>(v));
    }
    auto consumers = [&](int v) -> const std::vector<int>& {
        return nodes[static_cast<size_t>(v)].consumers;
    };
    std::vector<std::vector<std::vector<int>>> result;
    while (!free.empty()) {
        std::vector<std::vector<int>> wave;
        for (int n : free) {
            std::vector<int> chain{n};
            if (consumers(n).size() == 1) {
                int m = consumers(n).front();
                while (consumers(m).size() == 1 && pending[static_cast<size_t>(m)] == 1) {
                    chain.push_back(m);
                    m = consumers(m).front();
                }
                if (pending[static_cast<size_t>(m)] == 1)
                    chain.push_back(m);
            }
            wave.push_back(std::move(chain));
        }
        free.clear();
        for (const auto& chain : wave)
            for (int c : consumers(chain.back()))
                if (--pending[static_cast<size_t>(c)] == 0)
                    free.push_back(c);
        result.push_back(std::move(wave));
    }
    return result;
}

namespace {

class WavefrontScheduler final : public ProgramScheduler {
public:
    std::string_view key() const override { return "raf-wavefront"; }
    std::string_view label() const override { return "RAF wavefront"; }
    std::string_view description() const override {
        return "RAF: waves of independent chains, chain j on stream j, barriers between waves";
    }
    std::vector<std::string_view> aliases() const override { return {"wavefront"}; }
    int rank() const override { return 200; }

protected:
    BlockProgram schedule(const ir::BlockDag& /*dag*/, const RafGraph& g,
                          PolicyRun& /*run*/) const override {
        const auto w = wavefrontChains(g);
        return {barrierProgram(g, w), toStages(g, w)};
    }
};

} // namespace

IOS_REGISTER_SCHEDULER(WavefrontScheduler);

} // namespace ios::schedulers::raf
