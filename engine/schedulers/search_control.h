// Progress, cancellation and a time limit of a long search, shared by every scheduler and by
// the jobs that run several searches in a row.
#pragma once

#include "util/error.h"

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <string>

namespace ios::schedulers {

// What bounds the work of one algorithm. A refusal carries the knob that applies to the
// algorithm that refused, and each front end words it for its users (a flag on the CLI, a
// field in the GUI); the engine never names a front end's option.
enum class WorkKnob : uint8_t {
    IosPruning,       // the IOS DP: r, s, part size, batch
    RafIos,           // RAF-IOS's chunk DP: operators per chunk / part size
    Metaflow,         // MetaFlow: search budget, region size, rules
    MemoryExpansions, // Serenity's memory DP: expansion limit, part size
    Specialization,   // specialization: batch sizes, devices
    ProgramSize,      // a stream program: launches, streams
};

// A search refused because its work (counted up front or while it runs) exceeds a limit: the
// time limit (TimeLimitReached) or a cap on states, candidates or memory. A UserError: front
// ends print it as one line, followed by their words for knob().
class WorkLimitReached : public UserError {
public:
    explicit WorkLimitReached(const std::string& message, WorkKnob knob = WorkKnob::IosPruning)
        : UserError(message), knob_(knob) {}
    WorkKnob knob() const { return knob_; }

private:
    WorkKnob knob_;
};

// A search stopped at SearchControl::deadline, or refused because its estimate cannot end
// before it.
class TimeLimitReached : public WorkLimitReached {
public:
    using WorkLimitReached::WorkLimitReached;
};

// progress(done, total) is called at least every 100 ms from the searching thread, in units
// the scheduler chooses (the IOS DP: states finished / non-empty down-sets over all parts);
// setting `cancel` makes the search throw ios::Cancelled within 100 ms. Where a search looks
// at `cancel` it also calls checkDeadline: past `deadline` (none by default) it throws
// TimeLimitReached; the progress callback may throw too (a projection past the limit).
struct SearchControl {
    using Clock = std::chrono::steady_clock;

    std::atomic<bool> cancel{false};
    // A job's control inside runJobs (parallel_jobs.h): the caller's cancel counts too.
    const SearchControl* parent = nullptr;
    std::function<void(uint64_t done, uint64_t total)> progress;
    Clock::time_point deadline = Clock::time_point::max();
    // For the message: what runs ("optimize inception_v3"), the knob of the algorithm that
    // runs now (set by that algorithm before it reports progress) and the front end's words
    // for a knob ("lower -r/-s ..."; empty function or empty words: none).
    std::string task;
    WorkKnob knob = WorkKnob::IosPruning;
    std::function<std::string(WorkKnob)> limitHint;

    // cancel, or the parent's cancelled().
    bool cancelled() const {
        return cancel.load(std::memory_order_relaxed) || (parent != nullptr && parent->cancelled());
    }

    bool hasDeadline() const { return deadline != Clock::time_point::max(); }
    // Throws TimeLimitReached when the deadline has passed; done of total (progress units, 0
    // of 0 when unknown) say how far the search got.
    void checkDeadline(uint64_t done = 0, uint64_t total = 0) const;

    // The front end's words for `k`, empty when it gave none.
    std::string hintFor(WorkKnob k) const { return limitHint ? limitHint(k) : std::string(); }
    // "task: what; hint" as one line.
    std::string limitMessage(const std::string& what, WorkKnob k) const;
    // Before long work: throws TimeLimitReached when `estimatedSeconds` (from a counting
    // pass) cannot end before the deadline; `what` says what was counted ("2^20 chunk states,
    // estimated 45 s").
    void refuseIfPastDeadline(double estimatedSeconds, const std::string& what, WorkKnob k) const;
    // Copies task, knob, deadline and words into a child control whose parent is this one.
    void inheritInto(SearchControl& child) const;
};

} // namespace ios::schedulers
