#include "search_progress.h"

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
        lower = "lower --max-part-size or use another --strategy";
        break;
    case WorkKnob::Metaflow:
        lower = "lower --budget or choose fewer --rules";
        break;
    case WorkKnob::MemoryExpansions:
        lower = "set --limit-expansions or lower --max-part-size";
        break;
    case WorkKnob::Specialization:
        lower = "ask for fewer or smaller --batches/--devices";
        break;
    case WorkKnob::ProgramSize:
        lower = "use a program with fewer launches";
        break;
    }
    char buf[200];
    std::snprintf(buf, sizeof buf,
                  "the limit is --max-seconds %g: %s, or raise --max-seconds (0 = no limit)",
                  timeLimit().seconds, lower);
    return buf;
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
      tty_(isatty(STDERR_FILENO) == 1) {
    control.task = label_;
    control.deadline = timeLimit().deadline;
    control.limitHint = nullptr;
    if (control.hasDeadline())
        control.limitHint = [](schedulers::WorkKnob knob) { return limitHint(knob); };
    control.progress = [this](uint64_t done, uint64_t total) { report(done, total); };
}

void SearchProgress::report(uint64_t done, uint64_t total) {
    const auto now = Clock::now();
    const double elapsed = std::chrono::duration<double>(now - start_).count();
    const double fraction =
        total == 0 ? 1.0 : static_cast<double>(done) / static_cast<double>(total);
    // Seconds left at the rate measured so far (negative: not enough measured yet).
    const double left = done == 0 || elapsed < 1.0 ? -1.0 : elapsed * (1 - fraction) / fraction;
    if (left > 0 && control_.hasDeadline()) {
        const double budget = std::chrono::duration<double>(control_.deadline - now).count();
        if (left / 2 > budget)
            throw schedulers::TimeLimitReached(
                label_ + ": estimated " + secondsText(elapsed + left) + " (" +
                    std::to_string(done) + " of " + std::to_string(total) + " states after " +
                    secondsText(elapsed) + "), past the time limit; " +
                    control_.hintFor(control_.knob),
                control_.knob);
    }
    if (tty_) {
        std::fprintf(stderr, "\r%s: %5.1f%% (%llu/%llu states)", label_.c_str(), 100 * fraction,
                     static_cast<unsigned long long>(done), static_cast<unsigned long long>(total));
        if (left >= 0)
            std::fprintf(stderr, ", about %s left\033[K", secondsText(left).c_str());
        std::fflush(stderr);
    } else if (!announced_ && left > kLongSeconds) {
        announced_ = true;
        std::fprintf(stderr, "%s: estimated %s (%llu of %llu states after %s)\n", label_.c_str(),
                     secondsText(elapsed + left).c_str(), static_cast<unsigned long long>(done),
                     static_cast<unsigned long long>(total), secondsText(elapsed).c_str());
    }
}

SearchProgress::~SearchProgress() {
    control_.progress = nullptr;
    if (tty_) {
        std::fprintf(stderr, "\r\033[K");
        std::fflush(stderr);
    }
}

} // namespace ios::cli
