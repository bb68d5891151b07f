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
    if (!limitHint.empty())
        message += "; " + limitHint;
    throw TimeLimitReached(message);
}

} // namespace ios::schedulers
