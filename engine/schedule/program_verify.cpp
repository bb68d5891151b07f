// SPDX-License-Identifier: Apache-2.0
#include "schedule/program_verify.h"

#include "schedule/merge.h"
#include "util/error.h"
#include "util/work_limit.h"

#include <algorithm>
#include <functional>
#include <limits>
#include <optional>
#include <unordered_map>

namespace ios::schedule {

namespace {

constexpr uint32_t kNone = std::numeric_limits<uint32_t>::max();

bool onStream(const Instruction& in) {
    return in.kind == InstrKind::Launch || in.kind == InstrKind::Record ||
           in.kind == InstrKind::Wait;
}

std::string opName(const ir::BlockDag& dag, int op) {
    return dag.ops[static_cast<size_t>(op)]->name;
}

// Dense numbers 0..S-1 of the streams a program uses, in order of first use.
struct DenseStreams {
    std::vector<int> of = std::vector<int>(static_cast<size_t>(kMaxProgramStreams), -1);
    int count = 0;
    explicit DenseStreams(const StreamProgram& program) {
        for (const Instruction& in : program.instructions)
            if (onStream(in) && of[static_cast<size_t>(in.stream)] < 0)
                of[static_cast<size_t>(in.stream)] = count++;
    }
    size_t operator()(int stream) const {
        return static_cast<size_t>(of[static_cast<size_t>(stream)]);
    }
};

// Per record instruction, the index of the last wait that observes it (kNone: none; a wait
// observes the latest record of its event issued before it).
std::vector<uint32_t> lastWaits(const StreamProgram& program) {
    std::vector<uint32_t> last(program.instructions.size(), kNone);
    std::unordered_map<int, uint32_t> latest;
    for (size_t i = 0; i < program.instructions.size(); ++i) {
        const Instruction& in = program.instructions[i];
        if (in.kind == InstrKind::Record)
            latest[in.event] = static_cast<uint32_t>(i);
        else if (in.kind == InstrKind::Wait)
            if (auto it = latest.find(in.event); it != latest.end())
                last[it->second] = static_cast<uint32_t>(i);
    }
    return last;
}

// The most records held at once: from a record that is waited on to its last wait.
uint64_t peakLiveRecords(const StreamProgram& program, const std::vector<uint32_t>& last) {
    std::vector<uint32_t> ends; // last waits of the records held, a min-heap
    uint64_t peak = 0;
    for (size_t i = 0; i < program.instructions.size(); ++i) {
        while (!ends.empty() && ends.front() < i) {
            std::pop_heap(ends.begin(), ends.end(), std::greater<>());
            ends.pop_back();
        }
        if (program.instructions[i].kind == InstrKind::Record && last[i] != kNone) {
            ends.push_back(last[i]);
            std::push_heap(ends.begin(), ends.end(), std::greater<>());
            peak = std::max<uint64_t>(peak, ends.size());
        }
    }
    return peak;
}

// Throws WorkLimitReached: the check would hold `entries` clock entries, or take size.steps
// (or up front size.worstSteps) steps, past the caps.
[[noreturn]] void refuseIfTooLarge(const ProgramCheckSize& size, uint64_t entries) {
    throw WorkLimitReached(
        "stream program: checking its order (" + std::to_string(size.launches) + " launches on " +
            std::to_string(size.streams) + " streams, " + std::to_string(size.liveRecords) +
            " event records held at once) needs " +
            (entries > 0
                 ? std::to_string(entries) + " clock entries" + " and " + std::to_string(size.steps)
                 : "up to " + std::to_string(size.worstSteps)) +
            " steps, past the verifier's limit of " + std::to_string(kMaxProgramClockEntries) +
            " entries and " + std::to_string(kMaxProgramClockSteps) +
            " steps: use fewer streams or fewer event records waited on at once",
        WorkKnob::ProgramSize);
}

// One clock entry: launches of `stream` (dense number) known complete.
struct Entry {
    uint32_t stream = 0;
    uint32_t count = 0;
};

// A sparse clock: entries sorted by stream, valid in barrier epoch `epoch` only (a barrier or
// sync makes every older entry redundant: the joined counts cover it).
struct Clock {
    std::vector<Entry> entries;
    uint64_t epoch = 0;
};

// The happens-before state of one block while its instructions are read in issue order: a
// clock per stream (its own launches left implicit: all issued so far), one per record still
// to be waited on, and the joined counts (launches issued before the last barrier or sync,
// kept lazily per stream). Counts the entries held and the steps, refusing past the caps.
class OrderClocks {
public:
    OrderClocks(const StreamProgram& program, ProgramCheckSize& size)
        : streams_(program), size_(size), lastWait_(lastWaits(program)), clocks_(size.streams),
          issued_(size.streams, 0), atEpochStart_(size.streams, 0), launchEpoch_(size.streams, 0) {}

    const DenseStreams& streams() const { return streams_; }

    // Is launch number `seq` of stream `stream` known complete before the next work on `on`?
    bool ordered(size_t stream, uint32_t seq, size_t on) const {
        if (stream == on)
            return true; // issued before on the same stream
        return std::max(joined(stream), known(clocks_[on], stream)) > seq;
    }
    // A launch on `stream`; returns its number on that stream.
    uint32_t launch(size_t stream) {
        if (launchEpoch_[stream] < epoch_) {
            launchEpoch_[stream] = epoch_;
            atEpochStart_[stream] = issued_[stream];
        }
        return issued_[stream]++;
    }
    void record(size_t i, const Instruction& in) {
        Recorded& r = events_[in.event];
        release(r.clock);
        r = {static_cast<uint32_t>(i), {}};
        if (lastWait_[i] == kNone)
            return; // never waited on: no clock kept
        const size_t s = streams_(in.stream);
        const Clock& from = current(s);
        r.clock.epoch = epoch_;
        r.clock.entries.reserve(from.entries.size() + 1);
        for (const Entry& e : from.entries)
            if (e.stream < s)
                r.clock.entries.push_back(e);
        r.clock.entries.push_back({static_cast<uint32_t>(s), issued_[s]});
        for (const Entry& e : from.entries)
            if (e.stream > s)
                r.clock.entries.push_back(e);
        grew(r.clock.entries.size(), r.clock.entries.size());
    }
    // False when no record of the event was issued before.
    bool wait(size_t i, const Instruction& in) {
        const auto it = events_.find(in.event);
        if (it == events_.end())
            return false;
        Recorded& r = it->second;
        if (r.clock.epoch == epoch_ && !r.clock.entries.empty())
            merge(streams_(in.stream), r.clock);
        if (lastWait_[r.record] == i)
            release(r.clock);
        return true;
    }
    void join() { ++epoch_; }

private:
    struct Recorded {
        uint32_t record = 0;
        Clock clock;
    };

    uint32_t joined(size_t t) const {
        return launchEpoch_[t] < epoch_ ? issued_[t] : atEpochStart_[t];
    }
    uint32_t known(const Clock& c, size_t t) const {
        if (c.epoch != epoch_)
            return 0;
        const auto it =
            std::lower_bound(c.entries.begin(), c.entries.end(), t,
                             [](const Entry& e, size_t stream) { return e.stream < stream; });
        return it != c.entries.end() && it->stream == t ? it->count : 0;
    }
    // Stream s's clock, emptied first when it is from an older epoch.
    Clock& current(size_t s) {
        Clock& c = clocks_[s];
        if (c.epoch != epoch_) {
            release(c);
            c.epoch = epoch_;
        }
        return c;
    }
    // Stream `to`'s clock |= `from` (its own stream's entry left implicit).
    void merge(size_t to, const Clock& from) {
        Clock& c = current(to);
        std::vector<Entry> out;
        out.reserve(c.entries.size() + from.entries.size());
        auto a = c.entries.begin();
        auto b = from.entries.begin();
        while (a != c.entries.end() || b != from.entries.end()) {
            if (b == from.entries.end() || (a != c.entries.end() && a->stream < b->stream)) {
                out.push_back(*a++);
            } else if (a == c.entries.end() || b->stream < a->stream) {
                if (b->stream != to)
                    out.push_back(*b);
                ++b;
            } else {
                out.push_back({a->stream, std::max(a->count, b->count)});
                ++a;
                ++b;
            }
        }
        const size_t before = c.entries.size();
        c.entries = std::move(out);
        held_ -= before;
        grew(c.entries.size(), before + from.entries.size());
    }
    void release(Clock& c) {
        held_ -= c.entries.size();
        std::vector<Entry>().swap(c.entries);
    }
    // `added` entries now held, after `steps` steps: refuses past the caps.
    void grew(size_t added, size_t steps) {
        held_ += added;
        size_.steps += steps;
        size_.peakEntries = std::max<uint64_t>(size_.peakEntries, held_);
        if (held_ > kMaxProgramClockEntries || size_.steps > kMaxProgramClockSteps)
            refuseIfTooLarge(size_, held_);
    }

    DenseStreams streams_;
    ProgramCheckSize& size_;
    std::vector<uint32_t> lastWait_;
    std::vector<Clock> clocks_;
    std::vector<uint32_t> issued_;       // per stream: launches issued
    std::vector<uint32_t> atEpochStart_; // per stream: launches issued before its epoch began
    std::vector<uint64_t> launchEpoch_;  // per stream: the epoch of its last launch
    uint64_t epoch_ = 1;                 // barriers and syncs so far, plus one
    uint64_t held_ = 0;                  // clock entries held
    std::unordered_map<int, Recorded> events_;
};

// Reads one block's program in issue order: launches checked and numbered, each dependency of
// a launched operator checked against the clocks as it launches.
class OrderChecker {
public:
    OrderChecker(const ir::BlockDag& dag, const StreamProgram& program, ProgramCheckSize& size)
        : dag_(dag), clocks_(program, size), streamOf_(dag.ops.size(), 0),
          seqOf_(dag.ops.size(), kNone), launchOf_(dag.ops.size(), -1) {}

    std::string run(const StreamProgram& program) {
        for (size_t i = 0; i < program.instructions.size(); ++i)
            if (std::string problem = step(i, program.instructions[i]); !problem.empty())
                return problem;
        for (size_t op = 0; op < dag_.ops.size(); ++op)
            if (launchOf_[op] < 0)
                return "operator '" + opName(dag_, static_cast<int>(op)) + "' is never launched";
        if (unordered_)
            return unorderedText(unordered_->first, unordered_->second);
        return {};
    }

private:
    std::string step(size_t i, const Instruction& in) {
        const std::string where = "instruction " + std::to_string(i);
        switch (in.kind) {
        case InstrKind::Launch:
            return launch(where, in);
        case InstrKind::Record:
            clocks_.record(i, in);
            return {};
        case InstrKind::Wait:
            if (!clocks_.wait(i, in))
                return where + ": stream " + std::to_string(in.stream) + " waits on event " +
                       std::to_string(in.event) + " before any record of it";
            return {};
        case InstrKind::Barrier:
        case InstrKind::Sync:
            clocks_.join();
            return {};
        }
        return {};
    }

    std::string launch(const std::string& where, const Instruction& in) {
        if (in.ops.empty() && in.synthetic.empty())
            return where + " launches nothing";
        std::vector<const ir::Node*> members;
        for (int op : in.ops) {
            if (op < 0 || static_cast<size_t>(op) >= dag_.ops.size())
                return where + " launches operator #" + std::to_string(op) + ", not in the block";
            if (launchOf_[static_cast<size_t>(op)] >= 0)
                return "operator '" + opName(dag_, op) + "' is launched twice";
            launchOf_[static_cast<size_t>(op)] = launches_;
            members.push_back(dag_.ops[static_cast<size_t>(op)]);
        }
        if (members.size() > 1)
            if (auto problem = mergeProblem(members))
                return where + " merges operators that cannot merge: " + *problem;
        const size_t stream = clocks_.streams()(in.stream);
        for (int op : in.ops)
            checkInputs(static_cast<size_t>(op), stream);
        const uint32_t seq = clocks_.launch(stream);
        for (int op : in.ops) {
            streamOf_[static_cast<size_t>(op)] = stream;
            seqOf_[static_cast<size_t>(op)] = seq;
        }
        ++launches_;
        return {};
    }

    // Each dependency u → v of v (launching now on `stream`) must be launched and complete
    // before v starts; the first one that is not (by v, then input order) is kept.
    void checkInputs(size_t v, size_t stream) {
        const std::vector<int>& preds = dag_.preds[v];
        for (size_t k = 0; k < preds.size(); ++k) {
            const auto u = static_cast<size_t>(preds[k]);
            if (launchOf_[u] == launches_)
                continue; // one merged launch (mergeable members are independent anyway)
            if (seqOf_[u] != kNone && clocks_.ordered(streamOf_[u], seqOf_[u], stream))
                continue;
            const std::pair<size_t, size_t> at{v, k};
            if (!unordered_ || at < *unordered_)
                unordered_ = at;
        }
    }

    std::string unorderedText(size_t v, size_t k) const {
        const std::string a = opName(dag_, dag_.preds[v][k]);
        const std::string b = opName(dag_, static_cast<int>(v));
        return "dependency '" + a + "' -> '" + b +
               "' is not ordered: no stream order, event or barrier makes '" + b + "' wait for '" +
               a + "'";
    }

    const ir::BlockDag& dag_;
    OrderClocks clocks_;
    std::vector<size_t> streamOf_; // per operator: the dense stream it launched on
    std::vector<uint32_t> seqOf_;  // per operator: its launch's number on that stream
    std::vector<int> launchOf_;    // per operator: its launch's number in the block
    int launches_ = 0;
    std::optional<std::pair<size_t, size_t>> unordered_; // (v, index into preds[v])
};

} // namespace

ProgramCheckSize programCheckSize(const StreamProgram& program) {
    ProgramCheckSize size;
    size.streams = static_cast<uint64_t>(DenseStreams(program).count);
    const std::vector<uint32_t> last = lastWaits(program);
    size.liveRecords = peakLiveRecords(program, last);
    uint64_t merges = 0; // records kept and waits
    for (size_t i = 0; i < program.instructions.size(); ++i) {
        const InstrKind kind = program.instructions[i].kind;
        size.launches += kind == InstrKind::Launch ? 1 : 0;
        merges += (kind == InstrKind::Record && last[i] != kNone) || kind == InstrKind::Wait;
    }
    size.worstSteps = merges * 2 * size.streams;
    return size;
}

std::string programProblem(const ir::BlockDag& dag, const StreamProgram& program,
                           ProgramCheckSize* size) {
    if (std::string problem = programLimitProblem(program); !problem.empty())
        return problem;
    ProgramCheckSize counted = programCheckSize(program);
    if (counted.worstSteps > kMaxProgramClockSteps)
        refuseIfTooLarge(counted, 0);
    std::string problem = OrderChecker(dag, program, counted).run(program);
    if (size != nullptr)
        *size = counted;
    return problem;
}

void verifyProgram(const ir::BlockDag& dag, const StreamProgram& program, int block) {
    const std::string prefix = "block " + std::to_string(block) + " ";
    std::string problem;
    try {
        problem = programProblem(dag, program);
    } catch (const WorkLimitReached& e) {
        throw WorkLimitReached(prefix + e.message(), e.knob());
    }
    if (!problem.empty())
        throw UserError(prefix + "stream program: " + problem);
}

void verifyProgram(const std::vector<ir::BlockDag>& dags, const Program& program) {
    if (program.size() != dags.size())
        throw UserError("stream program has " + std::to_string(program.size()) +
                        " blocks, the model " + std::to_string(dags.size()));
    for (size_t b = 0; b < dags.size(); ++b)
        verifyProgram(dags[b], program[b], static_cast<int>(b));
}

} // namespace ios::schedule
