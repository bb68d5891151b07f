// SPDX-License-Identifier: Apache-2.0
#include "schedulers/search_control.h"

#include <cstdio>

namespace ios::schedulers {

void SearchControl::checkDeadline(uint64_t done, uint64_t total) const {
    if (!hasDeadline() || Clock::now() < deadline)
        return;
    std::string message = (task.empty() ? std::string("search") : task) + ": time limit reached";
    if (total > 0) {
        char buf[96];
        std::snprintf(buf, sizeof buf, " after %.1f%% of the search (%llu of %llu states)",
                      100.0 * static_cast<double>(done) / static_cast<double>(total),
                      static_cast<unsigned long long>(done),
                      static_cast<unsigned long long>(total));
        message += buf;
    }
    const std::string hint = hintFor(knob);
    if (!hint.empty())
        message += "; " + hint;
    throw TimeLimitReached(message, knob);
}

std::string SearchControl::limitMessage(const std::string& what, WorkKnob k) const {
    std::string message = (task.empty() ? std::string("search") : task) + ": " + what;
    const std::string hint = hintFor(k);
    if (!hint.empty())
        message += "; " + hint;
    return message;
}

void SearchControl::refuseIfPastDeadline(double estimatedSeconds, const std::string& what,
                                         WorkKnob k) const {
    if (!hasDeadline())
        return;
    const double left = std::chrono::duration<double>(deadline - Clock::now()).count();
    if (estimatedSeconds > left)
        throw TimeLimitReached(limitMessage(what + ", past the time limit", k), k);
}

void SearchControl::inheritInto(SearchControl& child) const {
    child.parent = this;
    child.deadline = deadline;
    child.task = task;
    child.knob = knob;
    child.limitHint = limitHint;
}

} // namespace ios::schedulers
