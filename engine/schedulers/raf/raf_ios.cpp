// SPDX-License-Identifier: Apache-2.0
// RAF's own IOS variant (docs/raf.md "RAF-IOS"; RAF stream_schedule_ios.cc): the block cut at
// the nodes every path to the sink passes through and chunked to at most 20 nodes; per chunk a
// DP over remaining sets whose candidates are EVERY ending of at most 10 nodes, grouped into
// its weakly connected components (the smallest merged into the next smallest until at most 5);
// consecutive single-group stages concatenated; group j on stream j, barriers between stages;
// no merge stages.
#include "cost/cost_model.h"
#include "cost/stage_memo.h"
#include "schedulers/bits.h"
#include "schedulers/parallel_jobs.h"
#include "schedulers/raf/program_scheduler.h"
#include "schedulers/raf/raf_ios_work.h"
#include "schedulers/search_estimate.h"
#include "util/error.h"
#include "util/message_text.h"

#include <algorithm>
#include <array>
#include <bit>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <limits>
#include <numeric>
#include <string>

namespace ios::schedulers::raf {

namespace {

constexpr size_t kMaxStreams = 5; // RAF max_stream_num

using Groups = std::vector<std::vector<int>>; // node indices

// Endings a chunk's table holds before it grows: NasNet-A's 20-node chunks meet 50 000–58 000
// distinct endings each.
constexpr size_t kEndingsReserved = size_t{1} << 16;

class ChunkSearch {
public:
    // Progress: candidates enumerated, of the chunk's count (raf_ios_work.h) given to `run`;
    // `work` sizes the tables (states: the memo; candidates bound the distinct endings).
    ChunkSearch(const RafGraph& g, ChunkOrder order, const ChunkWork& work,
                cost::StagePricer& pricer, PolicyRun& run)
        : g_(g), nodes_(std::move(order.nodes)), pricer_(pricer), run_(run),
          succ_(std::move(order.succ)), adj_(std::move(order.adj)) {
        memo_.reserve(static_cast<size_t>(work.states));
        known_.reserve(static_cast<size_t>(std::min<uint64_t>(work.candidates, kEndingsReserved)));
    }

    // Stages (groups of node indices) in execution order.
    std::vector<Groups> run() {
        const uint32_t all =
            nodes_.size() == 32 ? ~uint32_t{0} : (uint32_t{1} << nodes_.size()) - 1;
        best(all);
        std::vector<Groups> stages;
        for (uint32_t s = all; s != 0;) {
            const uint32_t e = memo_.find(s)->ending;
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
    using Members = std::array<int, 32>; // a state's nodes (a chunk has at most 32)
    // What is known of an ending's stage latency: the latency, or (exact false) a bound.
    struct Known {
        double ms = 0;
        bool exact = false;
    };

    double best(uint32_t s) {
        if (s == 0)
            return 0;
        if (const Entry* known = memo_.find(s))
            return known->ms;
        Entry e{std::numeric_limits<double>::infinity(), 0};
        // Endings: subsets E of s, |E| <= kMaxStageOps, closed under successors within s.
        // Decide nodes from the last (a node's successors come after it) to the first.
        Members members{};
        int count = 0;
        for (uint32_t r = s; r != 0; r &= r - 1)
            members[static_cast<size_t>(count++)] = std::countr_zero(r);
        enumerate(s, members, count - 1, 0, 0, e);
        memo_.insert(s, e);
        return e.ms;
    }

    void enumerate(uint32_t s, const Members& members, int i, uint32_t chosen, int size, Entry& e) {
        if (i < 0) {
            if (chosen == 0)
                return;
            if ((++candidates_ & 1023) == 0)
                run_.poll(candidates_);
            // Branch and bound (docs/search-speed.md "Fifth pass"): a stage whose lower bound
            // already loses to the best ending found is not priced; the choice is the same.
            const double rest = best(s & ~chosen);
            const double ms = stageMsUnless(chosen, rest, e.ms);
            if (ms + rest < e.ms) {
                e.ms = ms + rest;
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
    // until at most kMaxStreams, ordered by their first node.
    struct Components {
        std::array<uint32_t, kMaxStageOps> masks{};
        size_t count = 0;
        // Stable insertion sort by key (a few masks; what std::stable_sort would order).
        template <class Key> void sortBy(Key key) {
            for (size_t i = 1; i < count; ++i) {
                const uint32_t m = masks[i];
                size_t j = i;
                for (; j > 0 && key(masks[j - 1]) > key(m); --j)
                    masks[j] = masks[j - 1];
                masks[j] = m;
            }
        }
    };
    Components components(uint32_t ending) const {
        Components c;
        for (uint32_t left = ending; left != 0;) {
            const uint32_t comp = componentWithin(left & (~left + 1), ending, adj_);
            c.masks[c.count++] = comp;
            left &= ~comp;
        }
        while (c.count > kMaxStreams) {
            c.sortBy([](uint32_t m) { return std::popcount(m); });
            c.masks[1] |= c.masks[0];
            std::copy(c.masks.begin() + 1, c.masks.begin() + static_cast<long>(c.count),
                      c.masks.begin());
            --c.count;
        }
        c.sortBy([](uint32_t m) { return std::countr_zero(m); });
        return c;
    }

    // The groups of an ending (node indices, members in node order).
    Groups groups(uint32_t ending) const {
        const Components c = components(ending);
        Groups out;
        for (size_t i = 0; i < c.count; ++i) {
            std::vector<int> group;
            for (uint32_t r = c.masks[i]; r != 0; r &= r - 1)
                group.push_back(nodes_[static_cast<size_t>(std::countr_zero(r))]);
            out.push_back(std::move(group));
        }
        return out;
    }

    // The stage of an ending (its groups' operators; tuples launch nothing), built in stage_,
    // whose groups keep their capacity from call to call (spare_ holds those not in use).
    const schedule::Stage& stageOf(uint32_t ending) {
        const Components c = components(ending);
        std::vector<schedule::Group>& groups = stage_.groups;
        size_t used = 0;
        for (size_t i = 0; i < c.count; ++i) {
            if (groups.size() == used) {
                groups.emplace_back();
                if (!spare_.empty()) {
                    groups.back().swap(spare_.back());
                    spare_.pop_back();
                }
            }
            schedule::Group& ops = groups[used];
            ops.clear();
            for (uint32_t r = c.masks[i]; r != 0; r &= r - 1)
                if (const int op = g_.nodes[static_cast<size_t>(
                                                nodes_[static_cast<size_t>(std::countr_zero(r))])]
                                       .op;
                    op >= 0)
                    ops.push_back(op);
            if (!ops.empty())
                ++used;
        }
        while (groups.size() > used) {
            spare_.push_back(std::move(groups.back()));
            groups.pop_back();
        }
        return stage_;
    }

    // The ending's stage latency, or +infinity when its bound already loses: rest + bound >
    // bestMs. Known latencies and bounds are kept per ending; a bound comes from the cost
    // model's memo (an equal stage priced anywhere) or its lower bound, so a stage is priced
    // only when its bound does not lose.
    double stageMsUnless(uint32_t ending, double rest, double bestMs) {
        constexpr double kLoses = std::numeric_limits<double>::infinity();
        Known* known = known_.find(ending);
        if (known != nullptr && known->exact)
            return known->ms;
        if (known != nullptr && rest + known->ms > bestMs)
            return kLoses;
        const schedule::Stage& stage = stageOf(ending);
        if (known == nullptr) {
            double ms = 0;
            if (stage.groups.empty() || pricer_.find(stage, ms)) {
                known_.insert(ending, {ms, true});
                return ms;
            }
            const double bound = pricer_.lowerBoundMs(stage);
            const double kept = bound >= 0 ? bound : -std::numeric_limits<double>::infinity();
            known = &known_.insert(ending, {kept, false});
            if (rest + kept > bestMs)
                return kLoses;
        }
        *known = {pricer_.ms(stage), true};
        return known->ms;
    }

    const RafGraph& g_;
    std::vector<int> nodes_;
    cost::StagePricer& pricer_; // equal stages priced once (the cost model's canonical memo)
    PolicyRun& run_;
    std::vector<uint32_t> succ_;
    std::vector<uint32_t> adj_;
    // Open addressing (BitsMap): the DP looks up a state and an ending per candidate.
    detail::BitsMap<Entry, uint64_t> memo_;
    detail::BitsMap<Known, uint64_t> known_; // by ending
    schedule::Stage stage_;
    std::vector<schedule::Group> spare_;
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

    // The counting pass's candidates at a per-candidate cost: enumeration (kEnumeration)
    // and, at most, a share of them (kDistinctShare) priced as distinct endings at this
    // machine's time per concurrent stage. Priors measured here (NasNet-A: 10.2 M candidates,
    // 2.1 s, enumeration-bound; RandWire: 0.68 M, 0.5 s, 3 % of them priced at 17 µs); the
    // process's record of RAF-IOS runs corrects them (work_estimate.h).
    bool hasEstimate() const override { return true; }
    std::optional<SearchEstimate> estimate(const ir::PreparedModel& model, const Params& params,
                                           const cost::CostModel& cost, double /*countLimit*/,
                                           const SearchControl* control) const override {
        const auto t0 = std::chrono::steady_clock::now();
        SearchEstimate e;
        e.statesUnit = "chunk states";
        e.transitionsUnit = "candidates";
        for (uint64_t w : blockWork(model, params, nullptr))
            e.transitions += w;
        e.countSeconds =
            std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        e.secondsPerStage = secondsPerStage(cost, concurrentStages(model), control);
        const double candidates = static_cast<double>(e.transitions);
        e.stagesPriced = static_cast<uint64_t>(candidates * kDistinctShare);
        const double threads = std::max(1, params.threads);
        e.low = e.countSeconds + candidates * kEnumeration / threads;
        e.high = e.low + candidates * kDistinctShare * e.secondsPerStage / threads;
        e.seconds = std::sqrt(e.low * e.high);
        return e;
    }
    static constexpr double kEnumeration = 200e-9;
    static constexpr double kDistinctShare = 0.03;

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
        std::vector<ChunkWork> work;
        for (std::vector<int>& chunk : rafIosChunks(g)) {
            parts.push_back(chunkOrder(g, std::move(chunk)));
            work.push_back(countChunk(parts.back().succ));
            weights.push_back(std::max<uint64_t>(1, work.back().candidates));
        }
        std::vector<std::vector<Groups>> found(parts.size());
        runJobs(run.control(), weights, run.threads(), [&](size_t i, SearchControl& job) {
            PolicyRun chunkRun(run.cost(), &job, weights[i], 1);
            cost::StagePricer pricer(run.cost(), dag); // equal stages: the model's shared memo
            found[i] = ChunkSearch(g, std::move(parts[i]), work[i], pricer, chunkRun).run();
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
