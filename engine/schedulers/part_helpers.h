// SPDX-License-Identifier: Apache-2.0
// Threads with no search of their own that help a running one: an IOS DP part searched while
// other threads of runJobs (parallel_jobs.h) have run out of parts (dp_part.h, PartSearch::help;
// docs/performance.md "A part on two threads").
#pragma once

#include "schedulers/search_control.h"

#include <condition_variable>
#include <functional>
#include <mutex>

namespace ios::schedulers::detail {

class PartHelpers {
public:
    // The search, on its thread, once helpers may join: an idle thread then runs
    // help(control) on its own thread, `control` a child of `searchControl` that close()
    // cancels. Once a helper has returned (it went through every state, failed, or the search
    // ended) no other joins.
    void open(const SearchControl* searchControl, std::function<void(SearchControl&)> help);
    // No helper joins from now on; returns once those at work have returned.
    void close();
    // An idle thread: helps the search if it is open (returns true once done), else false.
    bool help();

private:
    std::mutex mutex_;
    std::condition_variable left_;
    std::function<void(SearchControl&)> help_;
    SearchControl control_;
    int working_ = 0;
    bool open_ = false;
};

} // namespace ios::schedulers::detail
