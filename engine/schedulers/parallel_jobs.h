// SPDX-License-Identifier: Apache-2.0
// Independent searches on several threads, deterministically (docs/performance.md "Threads"):
// the parts of one IOS DP, the schedulers of a comparison, the cells of a pruning sweep, the
// settings of a specialization. Every job writes only its own results, so the outcome does not
// depend on the thread count or on timing; the calling thread reports progress and watches
// cancellation and the time limit while the jobs run.
#pragma once

#include "schedulers/search_control.h"

#include <cstdint>
#include <functional>
#include <vector>

namespace ios::schedulers {

// The thread count a front end uses when the user gives none: every core (at least 1).
int defaultThreadCount();

// The most threads any option accepts.
inline constexpr int kMaxThreads = 256;

// The order in which runJobs starts jobs on several threads: heaviest first, ties in index
// order (the longest jobs then do not start last and run alone while the other threads idle).
std::vector<size_t> jobStartOrder(const std::vector<uint64_t>& weights);

// The threads each of `jobs` searches, run at once on `threads` threads, may use inside: at
// most `threads`, and the total at most 4x `threads` while every outer thread is busy.
int innerThreads(int threads, size_t jobs);

// Runs job(i, control_i) for every i in [0, weights.size()) on up to `threads` threads.
// control_i is the job's own SearchControl: its cancel flag follows `control`'s, and its
// progress (done of total, in the job's units) counts as that fraction of weights[i]; the
// caller's control->progress receives (Σ fraction_i · weights[i], Σ weights[i]) at least every
// 100 ms, from the calling thread, and control->checkDeadline is checked there with those
// figures (either may throw: the jobs are then cancelled and the exception rethrown). Jobs
// start in jobStartOrder; when a job throws, jobs of higher index are cancelled (their Cancelled is
// dropped) and not started, jobs of lower index run and finish, and the exception of the lowest
// failing index is rethrown: the same one a run on one thread would give. With one thread the jobs
// run on the calling thread, one after the other, in index order.
// `idle` (optional): called by a thread that finds no job left to start, while other jobs may
// still run (it may help one of them: PartHelpers); it returns true when it did and may be
// called again, false when there was nothing to help (the thread then ends). With `idle`, a
// single job runs on a thread of its own when threads > 1, so that another can help it.
void runJobs(SearchControl* control, const std::vector<uint64_t>& weights, int threads,
             const std::function<void(size_t i, SearchControl& control)>& job,
             const std::function<bool()>& idle = {});

} // namespace ios::schedulers
