// Progress and cancellation of a long search, shared by every scheduler and by the jobs that
// run several searches in a row.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>

namespace ios::schedulers {

// progress(done, total) is called at least every 100 ms from the searching thread, in units
// the scheduler chooses (the IOS DP: states finished / non-empty down-sets over all parts);
// setting `cancel` makes the search throw ios::Cancelled within 100 ms.
struct SearchControl {
    std::atomic<bool> cancel{false};
    std::function<void(uint64_t done, uint64_t total)> progress;
};

} // namespace ios::schedulers
