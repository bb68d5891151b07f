#include "search_progress.h"

#include <cstdio>
#include <unistd.h>

namespace ios::cli {

SearchProgress::SearchProgress(schedulers::SearchControl& control, std::string label)
    : active_(isatty(STDERR_FILENO) == 1) {
    if (!active_)
        return;
    control.progress = [label = std::move(label)](uint64_t done, uint64_t total) {
        const double pct =
            total == 0 ? 100.0 : 100.0 * static_cast<double>(done) / static_cast<double>(total);
        std::fprintf(stderr, "\r%s: %5.1f%% (%llu/%llu states)", label.c_str(), pct,
                     static_cast<unsigned long long>(done), static_cast<unsigned long long>(total));
        std::fflush(stderr);
    };
}

SearchProgress::~SearchProgress() {
    if (active_) {
        std::fprintf(stderr, "\r\033[K");
        std::fflush(stderr);
    }
}

} // namespace ios::cli
