// RAF's own IOS variant (docs/raf.md "RAF-IOS"; RAF stream_schedule_ios.cc): the block cut at
// the nodes every path to the sink passes through and chunked to at most 20 nodes; per chunk a
// DP over remaining sets whose candidates are EVERY ending of at most 10 nodes, grouped into
// its weakly connected components (the smallest merged into the next smallest until at most 5);
// consecutive single-group stages concatenated; group j on stream j, barriers between stages;
// no merge stages.
#include "cost/cost_model.h"
#include "cost/stage_memo.h"
#include "schedulers/parallel_jobs.h"
#include "schedulers/raf/program_scheduler.h"
#include "schedulers/raf/raf_ios_work.h"
#include "util/error.h"
#include "util/message_text.h"

#include <algorithm>
#include <bit>
#include <cstdint>
#include <limits>
#include <numeric>
#include <string>
#include <unordered_map>

namespace ios::schedulers::raf {

namespace {

constexpr size_t kMaxStreams = 5; // RAF max_stream_num

using Groups = std::vector<std::vector<int>>; // node indices

class ChunkSearch {
public:
    // Progress: candidates enumerated, of the chunk's count (raf_ios_work.h) given to `run`.
    ChunkSearch(const RafGraph& g, ChunkOrder order, cost::StagePricer& pricer, PolicyRun& run)
        : g_(g), nodes_(std::move(order.nodes)), pricer_(pricer), run_(run),
          succ_(std::move(order.succ)), adj_(std::move(order.adj)) {}

    // Stages (groups of node indices) in execution order.
    std::vector<Groups> run() {
        const uint32_t all =
            nodes_.size() == 32 ? ~uint32_t{0} : (uint32_t{1} << nodes_.size()) - 1;
        best(all);
        std::vector<Groups> stages;
        for (uint32_t s = all; s != 0;) {
            const uint32_t e = memo_.at(s).ending;
            stages.push_back(groups(e));
            s &= ~e;
        }
        std::reverse(stages.begin(), stages.end());
        return stages;
    }

private:
    struct Entry {
        double ms = 0;
        uint32_t ending = 0;
    };

    double best(uint32_t s) {
        if (s == 0)
            return 0;
        if (auto it = memo_.find(s); it != memo_.end())
            return it->second.ms;
        Entry e{std::numeric_limits<double>::infinity(), 0};
        // Endings: subsets E of s, |E| <= kMaxStageOps, closed under successors within s.
        // Decide nodes from the last (a node's successors come after it) to the first.
        std::vector<int> members;
        for (uint32_t r = s; r != 0; r &= r - 1)
            members.push_back(std::countr_zero(r));
        enumerate(s, members, static_cast<int>(members.size()) - 1, 0, 0, e);
        memo_.emplace(s, e);
        return e.ms;
    }

    void enumerate(uint32_t s, const std::vector<int>& members, int i, uint32_t chosen, int size,
                   Entry& e) {
        if (i < 0) {
            if (chosen == 0)
                return;
            if ((++candidates_ & 1023) == 0)
                run_.poll(candidates_);
            // Branch and bound (docs/search-speed.md "Fifth pass"): a stage whose lower bound
            // already loses to the best ending found is not priced; the choice is the same.
            const double rest = best(s & ~chosen);
            if (rest + stageBoundMs(chosen) > e.ms)
                return;
            const double ms = stageMs(chosen) + rest;
            if (ms < e.ms) {
                e.ms = ms;
                e.ending = chosen;
            }
            return;
        }
        const int v = members[static_cast<size_t>(i)];
        enumerate(s, members, i - 1, chosen, size, e); // v stays
        // v may end the set when its successors in s all do.
        if (size < kMaxStageOps && (succ_[static_cast<size_t>(v)] & s & ~chosen) == 0)
            enumerate(s, members, i - 1, chosen | uint32_t{1} << v, size + 1, e);
    }

    // Weakly connected components of the ending, the smallest merged into the next smallest
    // until at most kMaxStreams; groups ordered by their first node, members in node order.
    Groups groups(uint32_t ending) const {
        std::vector<uint32_t> comps;
        for (uint32_t left = ending; left != 0;) {
            const uint32_t comp = componentWithin(left & (~left + 1), ending, adj_);
            comps.push_back(comp);
            left &= ~comp;
        }
        while (comps.size() > kMaxStreams) {
            std::stable_sort(comps.begin(), comps.end(), [](uint32_t a, uint32_t b) {
                return std::popcount(a) < std::popcount(b);
            });
            comps[1] |= comps[0];
            comps.erase(comps.begin());
        }
        std::sort(comps.begin(), comps.end(),
                  [](uint32_t a, uint32_t b) { return std::countr_zero(a) < std::countr_zero(b); });
        Groups out;
        for (uint32_t c : comps) {
            std::vector<int> group;
            for (uint32_t r = c; r != 0; r &= r - 1)
                group.push_back(nodes_[static_cast<size_t>(std::countr_zero(r))]);
            out.push_back(std::move(group));
        }
        return out;
    }

    schedule::Stage stageOf(uint32_t ending) const {
        schedule::Stage stage;
        for (const auto& group : groups(ending)) {
            schedule::Group ops;
            for (int v : group)
                if (g_.nodes[static_cast<size_t>(v)].op >= 0)
                    ops.push_back(g_.nodes[static_cast<size_t>(v)].op);
            if (!ops.empty())
                stage.groups.push_back(std::move(ops));
        }
        return stage;
    }

    double stageMs(uint32_t ending) {
        if (auto it = stageMs_.find(ending); it != stageMs_.end())
            return it->second;
        const schedule::Stage stage = stageOf(ending);
        const double ms = stage.groups.empty() ? 0.0 : pricer_.ms(stage);
        stageMs_.emplace(ending, ms);
        return ms;
    }

    // A latency stageMs(ending) is never below: itself when known (this chunk or the cost
    // model's memo), else the cost model's bound; -infinity when it has none.
    double stageBoundMs(uint32_t ending) {
        if (auto it = stageMs_.find(ending); it != stageMs_.end())
            return it->second;
        if (auto it = boundMs_.find(ending); it != boundMs_.end())
            return it->second;
        const schedule::Stage stage = stageOf(ending);
        double ms = 0;
        if (stage.groups.empty() || pricer_.find(stage, ms)) {
            stageMs_.emplace(ending, ms);
            return ms;
        }
        const double bound = pricer_.lowerBoundMs(stage);
        const double kept = bound >= 0 ? bound : -std::numeric_limits<double>::infinity();
        boundMs_.emplace(ending, kept);
        return kept;
    }

    const RafGraph& g_;
    std::vector<int> nodes_;
    cost::StagePricer& pricer_; // equal stages priced once (the cost model's canonical memo)
    PolicyRun& run_;
    std::vector<uint32_t> succ_;
    std::vector<uint32_t> adj_;
    std::unordered_map<uint32_t, Entry> memo_;
    std::unordered_map<uint32_t, double> stageMs_;
    std::unordered_map<uint32_t, double> boundMs_;
    uint64_t candidates_ = 0;
};

class RafIosScheduler final : public ProgramScheduler {
public:
    std::string_view key() const override { return "raf-ios"; }
    std::string_view label() const override { return "RAF IOS"; }
    std::string_view description() const override {
        return "RAF's IOS: blocks of <= 20 nodes, every ending of <= 10 ops, <= 5 streams, no "
               "merges";
    }
    int rank() const override { return 220; }

protected:
    // The counting pass: every chunk of every block counted before any is searched, refused
    // past the caps (raf_ios_work.h) or when even kSecondsPerCandidate cannot end in time.
    std::vector<uint64_t> blockWork(const ir::PreparedModel& model, const Params& params,
                                    SearchControl* control) const override {
        if (control != nullptr)
            control->knob = WorkKnob::RafIos;
        RafIosCounter counter;
        std::vector<uint64_t> work;
        for (const ir::BlockDag& dag : model.dags()) {
            const RafGraph g = buildRafGraph(dag, params.rafTuples);
            const uint64_t before = counter.candidates();
            for (std::vector<int>& chunk : rafIosChunks(g)) {
                if (control != nullptr && control->cancelled())
                    throw Cancelled();
                counter.count(chunkOrder(g, std::move(chunk)), control);
            }
            work.push_back(std::max<uint64_t>(1, counter.candidates() - before));
        }
        if (control != nullptr) {
            // Chunks run in parallel, each on one thread: the largest one at least.
            const double candidates =
                std::max(static_cast<double>(counter.largestChunk()),
                         static_cast<double>(counter.candidates()) / std::max(1, params.threads));
            const double seconds = candidates * kSecondsPerCandidate;
            control->refuseIfPastDeadline(
                seconds,
                "RAF-IOS would try " + std::to_string(counter.candidates()) +
                    " candidate stages in " + std::to_string(counter.states()) +
                    " chunk states, estimated at least " + util::formatNumber(seconds) + " s",
                WorkKnob::RafIos);
        }
        return work;
    }

    BlockProgram schedule(const ir::BlockDag& dag, const RafGraph& g,
                          PolicyRun& run) const override {
        // Chunks are independent searches: jobs on the block's threads, kept in chunk order,
        // each weighted by its candidates.
        std::vector<ChunkOrder> parts;
        std::vector<uint64_t> weights;
        for (std::vector<int>& chunk : rafIosChunks(g)) {
            parts.push_back(chunkOrder(g, std::move(chunk)));
            weights.push_back(std::max<uint64_t>(1, countChunk(parts.back().succ).candidates));
        }
        std::vector<std::vector<Groups>> found(parts.size());
        runJobs(run.control(), weights, run.threads(), [&](size_t i, SearchControl& job) {
            PolicyRun chunkRun(run.cost(), &job, weights[i], 1);
            cost::StagePricer pricer(run.cost(), dag); // equal stages: the model's shared memo
            found[i] = ChunkSearch(g, std::move(parts[i]), pricer, chunkRun).run();
        });
        std::vector<Groups> stages;
        for (std::vector<Groups>& part : found) {
            for (Groups& stage : part) {
                // Consecutive single-group stages run as one.
                if (stage.size() == 1 && !stages.empty() && stages.back().size() == 1)
                    stages.back().front().insert(stages.back().front().end(), stage.front().begin(),
                                                 stage.front().end());
                else
                    stages.push_back(std::move(stage));
            }
        }
        return {barrierProgram(g, stages), toStages(g, stages)};
    }
};

} // namespace

IOS_REGISTER_SCHEDULER(RafIosScheduler);

} // namespace ios::schedulers::raf
