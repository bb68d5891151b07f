// SPDX-License-Identifier: Apache-2.0
#include "process_usage.h"

#include <cstdio>
#include <exception>
#include <iostream>
#include <sys/resource.h>
#include <utility>

namespace ios::cli {

namespace {

double seconds(const timeval& t) {
    return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_usec) * 1e-6;
}

} // namespace

ProcessUsage processUsage() {
    rusage usage{};
    getrusage(RUSAGE_SELF, &usage);
    return {usage.ru_maxrss, seconds(usage.ru_utime) + seconds(usage.ru_stime)};
}

void addUsageFlag(ArgParser& parser) {
    parser.flag("--usage", "At the end, print the process's peak RSS and CPU time (user + "
                           "system) to stderr: 'usage: max_rss_kib N cpu_seconds S'");
}

UsageReport::UsageReport(const ArgParser& parser, std::string command)
    : enabled_(parser.has("usage")), command_(std::move(command)),
      uncaught_(std::uncaught_exceptions()) {}

UsageReport::~UsageReport() {
    if (!enabled_ || std::uncaught_exceptions() > uncaught_)
        return;
    const ProcessUsage u = processUsage();
    char line[160];
    std::snprintf(line, sizeof line, "ios-sched %s: usage: max_rss_kib %lld cpu_seconds %.3f\n",
                  command_.c_str(), static_cast<long long>(u.maxRssKib), u.cpuSeconds);
    std::cerr << line << std::flush;
}

} // namespace ios::cli
