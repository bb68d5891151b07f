// SPDX-License-Identifier: Apache-2.0
#include "search_progress.h"

#include "message_mode.h"
#include "util/message_text.h"

#include <cstdio>
#include <unistd.h>

namespace ios::cli {

namespace {

using Clock = schedulers::SearchControl::Clock;

struct TimeLimit {
    double seconds = 0; // 0: none
    Clock::time_point deadline = Clock::time_point::max();
};

TimeLimit& timeLimit() {
    static TimeLimit limit;
    return limit;
}

std::string secondsText(double s) {
    char buf[32];
    std::snprintf(buf, sizeof buf, s < 10 ? "%.1f s" : "%.0f s", s);
    return buf;
}

// The CLI's words for the knob of the algorithm that hit the limit.
std::string limitHint(schedulers::WorkKnob knob) {
    using schedulers::WorkKnob;
    const char* lower = "";
    switch (knob) {
    case WorkKnob::IosPruning:
        lower = "lower -r/-s, --batch or --max-part-size";
        break;
    case WorkKnob::RafIos:
        // RAF-IOS's chunks and endings are RAF's constants: no option shrinks its search.
        lower = "RAF-IOS's 20-operator chunks are fixed: use another --strategy or --policy "
                "(raf-asap, raf-wavefront, or ios-both with -r/-s), more --threads";
        break;
    case WorkKnob::Metaflow: // the options of `ios-sched metaflow` that bound its search
        lower = "lower --budget or --split-threshold or choose fewer --rules (ios-sched "
                "metaflow), or use another --strategy";
        break;
    case WorkKnob::MemoryExpansions: // the options of `ios-sched memory` that bound its DP
        lower = "lower --limit-expansions or --escalate or use --order kahn (ios-sched memory), "
                "or use another --strategy";
        break;
    case WorkKnob::Specialization:
        lower = "ask for fewer or smaller --batches/--devices";
        break;
    case WorkKnob::ProgramSize:
        lower = "use a program with fewer launches, streams or events waited on at once";
        break;
    }
    // The words for the knob first: a refusal is a work cap as often as the time limit.
    std::string words = lower;
    if (timeLimit().seconds > 0) {
        char limit[96];
        std::snprintf(limit, sizeof limit, "; the time limit is --max-seconds %g (0 = none)",
                      timeLimit().seconds);
        words += limit;
    }
    return words;
}

// What progress counts for the algorithm that runs.
const char* unitOf(schedulers::WorkKnob knob) {
    switch (knob) {
    case schedulers::WorkKnob::Metaflow:
        return "regions";
    case schedulers::WorkKnob::MemoryExpansions:
        return "operators";
    case schedulers::WorkKnob::RafIos:
        return "candidates";
    default:
        return "states";
    }
}

} // namespace

void setTimeLimit(double seconds) {
    TimeLimit& limit = timeLimit();
    limit.seconds = seconds;
    limit.deadline = Clock::time_point::max();
    if (seconds > 0)
        limit.deadline = Clock::now() + std::chrono::duration_cast<Clock::duration>(
                                            std::chrono::duration<double>(seconds));
}

SearchProgress::SearchProgress(schedulers::SearchControl& control, std::string label)
    : control_(control), label_(util::escapeControl(label)), // names a model: from a file
      tty_(showProgress()), redraw_(progressOnTerminal()) {
    control.task = label_;
    control.deadline = timeLimit().deadline;
    control.limitHint = [](schedulers::WorkKnob knob) { return limitHint(knob); };
    control.progress = [this](uint64_t done, uint64_t total) { report(done, total); };
}

void SearchProgress::report(uint64_t done, uint64_t total) {
    const auto now = Clock::now();
    const double elapsed = std::chrono::duration<double>(now - start_).count();
    const double fraction =
        total == 0 ? 1.0 : static_cast<double>(done) / static_cast<double>(total);
    // The rate is measured from the first report of this count on, so that the setup before
    // it (loading, counting passes, planning) is not taken for a share of the work.
    if (!rateBase_.set || total != rateBase_.total || done < rateBase_.done)
        rateBase_ = {true, now, done, total};
    const double measured = std::chrono::duration<double>(now - rateBase_.at).count();
    // Seconds left at the rate measured so far (negative: not enough measured yet).
    const double left = done <= rateBase_.done || measured < 1.0
                            ? -1.0
                            : measured * static_cast<double>(total - done) /
                                  static_cast<double>(done - rateBase_.done);
    if (left > 0 && control_.hasDeadline()) {
        const double budget = std::chrono::duration<double>(control_.deadline - now).count();
        if (left / 2 > budget)
            throw schedulers::TimeLimitReached(
                label_ + ": estimated " + secondsText(elapsed + left) + " (" +
                    std::to_string(done) + " of " + std::to_string(total) + " " +
                    unitOf(control_.knob) + " after " + secondsText(elapsed) +
                    "), past the time limit; " + control_.hintFor(control_.knob),
                control_.knob);
    }
    if (tty_) {
        // Not on a terminal (--progress): a line per second, not a redrawn one.
        if (!redraw_ && std::chrono::duration<double>(now - lastLine_).count() < 1.0)
            return;
        lastLine_ = now;
        std::fprintf(stderr, "%s%s: %5.1f%% (%llu/%llu %s)", redraw_ ? "\r" : "", label_.c_str(),
                     100 * fraction, static_cast<unsigned long long>(done),
                     static_cast<unsigned long long>(total), unitOf(control_.knob));
        if (left >= 0)
            std::fprintf(stderr, ", about %s left", secondsText(left).c_str());
        std::fprintf(stderr, redraw_ ? "\033[K" : "\n");
        std::fflush(stderr);
    } else if (!announced_ && left > kLongSeconds && !messageMode().quiet) {
        announced_ = true;
        std::fprintf(stderr, "%s: estimated %s (%llu of %llu %s after %s)\n", label_.c_str(),
                     secondsText(elapsed + left).c_str(), static_cast<unsigned long long>(done),
                     static_cast<unsigned long long>(total), unitOf(control_.knob),
                     secondsText(elapsed).c_str());
    }
}

SearchProgress::~SearchProgress() {
    control_.progress = nullptr;
    if (tty_ && redraw_) {
        std::fprintf(stderr, "\r\033[K");
        std::fflush(stderr);
    }
}

} // namespace ios::cli
