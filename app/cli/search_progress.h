// SPDX-License-Identifier: Apache-2.0
// Progress, estimates and the time limit of long searches on stderr (CLI commands).
#pragma once

#include "schedulers/ios_dp.h"

#include <chrono>
#include <string>

namespace ios::cli {

// The command's time limit (--max-seconds; 0 = none), counted from this call: every
// SearchProgress built afterwards puts its deadline on its control. runCommandLine clears it.
void setTimeLimit(double seconds);
inline constexpr int kDefaultMaxSeconds = 600; // --max-seconds default (docs/cli.md)

// Installs a progress callback on `control`. When stderr is a terminal (or --progress; then
// a line per second, message_mode.h) it prints
// "label: 42.0% (done/total states), about 12 s left" with carriage returns (cleared at the
// end); otherwise, once the projection passes kLongSeconds, one line with the estimate. Under
// a time limit the control gets the deadline, and a projection that cannot end in time
// (even twice as fast as measured so far, after a second of measurement) stops the search at
// once with a TimeLimitReached naming the estimate.
class SearchProgress {
public:
    static constexpr double kLongSeconds = 10;

    SearchProgress(schedulers::SearchControl& control, std::string label);
    ~SearchProgress();
    SearchProgress(const SearchProgress&) = delete;
    SearchProgress& operator=(const SearchProgress&) = delete;

private:
    void report(uint64_t done, uint64_t total);

    schedulers::SearchControl& control_;
    std::string label_;
    bool tty_ = false;       // progress is shown (showProgress())
    bool redraw_ = false;    // on a terminal: one line redrawn; elsewhere a line per second
    bool announced_ = false; // the long-work line was printed (no progress shown)
    std::chrono::steady_clock::time_point lastLine_{};
    std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now();
    struct RateBase { // where the rate is measured from: the count's first report
        bool set = false;
        std::chrono::steady_clock::time_point at;
        uint64_t done = 0;
        uint64_t total = 0;
    } rateBase_;
};

} // namespace ios::cli
