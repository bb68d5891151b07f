// SPDX-License-Identifier: Apache-2.0
#include "profile_run.h"

#include "io/schedule_file.h"
#include "message_mode.h"
#include "provenance_options.h"
#include "search_progress.h"
#include "text_format.h"
#include "util/message_text.h"

#include <cstdio>
#include <iostream>
#include <unistd.h>

namespace ios::cli {

double secondsSince(ProfileClock::time_point start) {
    return std::chrono::duration<double>(ProfileClock::now() - start).count();
}

ProfileProgressPrinter::ProfileProgressPrinter(std::string label)
    : label_(util::escapeControl(label)), tty_(progressOnTerminal()) {}

ProfileProgressPrinter::~ProfileProgressPrinter() {
    if (tty_ && printed_) {
        std::fprintf(stderr, "\r\033[K");
        std::fflush(stderr);
    }
}

void ProfileProgressPrinter::operator()(const profiling::ProfileProgress& p) {
    if (messageMode().quiet)
        return;
    const auto now = ProfileClock::now();
    const double interval = tty_ ? 0.25 : messageMode().forceProgress ? 1 : 10;
    const bool last = p.graphsDone == p.graphsTotal;
    if (!last && std::chrono::duration<double>(now - lastPrint_).count() < interval)
        return;
    if (last && !printed_)
        return; // a run shorter than one interval: the summary says it all
    lastPrint_ = now;
    printed_ = true;
    std::fprintf(stderr, "%s%s: %zu/%zu stages, %zu/%zu graphs, %s s, about %s s left%s",
                 tty_ ? "\r" : "", label_.c_str(), p.stagesDone, p.stagesTotal, p.graphsDone,
                 p.graphsTotal, fixed(p.elapsedSeconds, 1).c_str(), fixed(p.etaSeconds, 0).c_str(),
                 tty_ ? "\033[K" : "\n");
    std::fflush(stderr);
}

std::string replayCommand(const ProfileRun& run, const std::string& costModel) {
    std::string replay = "ios-sched optimize " + run.modelArg + " --strategy " +
                         std::string(run.search.schedulers.front()->key()) + " -r " +
                         run.parser.get("max-group-size") + " -s " +
                         run.parser.get("max-num-groups");
    if (run.batch != 1)
        replay += " --batch " + std::to_string(run.batch);
    if (run.search.params.maxPartSize != ir::kDefaultMaxPartSize)
        replay += " --max-part-size " + std::to_string(run.search.params.maxPartSize);
    return replay + " --cost-model " + costModel;
}

util::Json commonJson(const ProfileRun& run) {
    util::Json j;
    j["model"] = run.graph.name;
    j["device"] = run.backend.deviceName();
    j["batch"] = run.batch;
    util::Json strategies = util::Json::array();
    for (const schedulers::Scheduler* s : run.search.schedulers)
        strategies.push_back(std::string(s->key()));
    j["strategies"] = strategies;
    j["stage_requests"] = run.met.calls;
    if (run.shard) {
        j["shard"] = std::to_string(run.shard->index) + "/" + std::to_string(run.shard->count);
        j["shard_stages_of"] = run.stagesBeforeShard;
        j["shard_classes"] = run.shardClasses;
    }
    return j;
}

util::Json runSearches(const ProfileRun& run, const cost::CostModel& cost,
                       const std::string& source) {
    util::Json searches = util::Json::array();
    for (const schedulers::Scheduler* s : run.search.schedulers) {
        schedulers::SearchControl control;
        SearchProgress progress(control, "profile " + run.graph.name + ": " +
                                             std::string(s->key()) + " from the " + source);
        const schedulers::Outcome outcome = s->run(run.prepared, run.search.params, cost, &control);
        searches.push_back({{"strategy", std::string(s->key())},
                            {"latency_ms", outcome.latencyMs},
                            {"search_seconds", outcome.searchSeconds}});
        const auto out = run.parser.value("save-schedule");
        if (s == run.search.schedulers.front() && out) {
            const io::Provenance provenance =
                measuredProvenance(run.parser, run.graph, run.backend.deviceName(), run.batch);
            run.outputs.stage(*out, io::writeScheduleFile(
                                        run.graph, run.prepared.dags(), outcome.schedule,
                                        "ios-sched profile --strategy " + std::string(s->key()) +
                                            " (" + cost.describe() + ")",
                                        &provenance));
        }
    }
    return searches;
}

void printSearches(const util::Json& searches, const std::string& source) {
    for (const util::Json& sj : searches)
        std::cout << "from the " << source << ": " << sj["strategy"].get<std::string>() << " "
                  << fixed(sj["latency_ms"].get<double>(), 4) << " ms, search "
                  << fixed(sj["search_seconds"].get<double>(), 2) << " s\n";
}

void noteShard(const ProfileRun& run, size_t stagesDone) {
    notes() << "ios-sched profile: shard " << run.shard->index << "/" << run.shard->count << ": "
            << stagesDone << " of " << run.stagesBeforeShard
            << " stages measured or known; no search (it needs every shard: merge them, "
               "then run the search)\n";
}

} // namespace ios::cli
