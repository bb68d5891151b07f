// SPDX-License-Identifier: Apache-2.0
#include "schedulers/part_helpers.h"

namespace ios::schedulers::detail {

void PartHelpers::open(const SearchControl* searchControl,
                       std::function<void(SearchControl&)> help) {
    std::lock_guard lock(mutex_);
    control_.parent = searchControl;
    control_.cancel = false;
    help_ = std::move(help);
    open_ = true;
}

void PartHelpers::close() {
    std::unique_lock lock(mutex_);
    open_ = false;
    control_.cancel = true;
    left_.wait(lock, [this] { return working_ == 0; });
    help_ = nullptr;
}

bool PartHelpers::help() {
    std::function<void(SearchControl&)> help;
    {
        std::lock_guard lock(mutex_);
        if (!open_)
            return false;
        help = help_;
        ++working_;
    }
    try { // a helper's failure is never the search's: it stops helping, nothing more
        help(control_);
    } catch (...) {
    }
    // It went through every state (or failed, or the search ended): nothing is left for
    // another helper to claim.
    std::lock_guard lock(mutex_);
    open_ = false;
    --working_;
    left_.notify_all();
    return true;
}

} // namespace ios::schedulers::detail
