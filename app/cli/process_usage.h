// SPDX-License-Identifier: Apache-2.0
// The process's own peak memory and CPU time (getrusage), so benchmark scripts need no external
// `time` (tools/bench_scaling.sh, docs/performance.md "Scaling"): `--usage` on optimize,
// compare and bench, and the max RSS column of `bench --memory`.
#pragma once

#include "args.h"

#include <cstdint>
#include <string>

namespace ios::cli {

struct ProcessUsage {
    int64_t maxRssKib = 0; // peak resident set size so far (ru_maxrss, KiB on Linux)
    double cpuSeconds = 0; // user + system CPU time of every thread so far
};

ProcessUsage processUsage();

// Declares --usage.
void addUsageFlag(ArgParser& parser);

// With --usage, prints "ios-sched COMMAND: usage: max_rss_kib N cpu_seconds S" to stderr when
// the command returns normally (not when it ends with an error): one line a script can read
// whatever the command printed on stdout.
class UsageReport {
public:
    UsageReport(const ArgParser& parser, std::string command);
    ~UsageReport();
    UsageReport(const UsageReport&) = delete;
    UsageReport& operator=(const UsageReport&) = delete;

private:
    bool enabled_;
    std::string command_;
    int uncaught_;
};

} // namespace ios::cli
