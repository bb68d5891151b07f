// SPDX-License-Identifier: Apache-2.0
// `ios-sched profile MODEL --store URL` (docs/gpu.md "Sharing measurements", issue 34): the
// stages the store lacks for this device setup are measured and added a graph per
// transaction (profiling/store_profiler.h); then, unless --no-search or --shard, the searches
// run from the store as `--cost-model store:URL@ID` runs them.
#include "command.h"
#include "cost/device_identity.h"
#include "message_mode.h"
#include "profile_run.h"
#include "store/measurement_store.h"
#include "store/store_cost_model.h"
#include "store_profiler.h"
#include "text_format.h"
#include "util/json_number.h"

#include <iostream>

namespace ios::cli {

int profileIntoStore(ProfileRun& run, const std::string& url) {
    // Opened (created) only now: the device was found and the model loaded.
    std::shared_ptr<store::MeasurementStore> measurements =
        store::openStore(url, store::OpenMode::CreateIfMissing);
    const store::Setup setup = profiling::measurementSetup(run.executor);
    const std::string id = cost::identityId(setup.device);
    profiling::StoreProfileResult result;
    {
        ProfileProgressPrinter printer("profile " + run.graph.name);
        run.options.progress = [&printer](const profiling::ProfileProgress& p) { printer(p); };
        result = profiling::profileIntoStore(run.executor, run.prepared, run.met.stages,
                                             *measurements, run.options);
    }
    const std::string replay = replayCommand(run, "store:" + url + "@" + id);

    util::Json j = commonJson(run);
    j["identity_id"] = id;
    j["identity"] = cost::toJson(setup.device);
    addMeasureCounters(j, run, result);
    j["from_store"] = result.fromStore;
    j["entries_added"] = result.samplesAdded;
    j["store"] = url;
    j["replay_command"] = replay;

    util::Json searches = util::Json::array();
    if (result.complete && !run.parser.has("no-search") && !run.shard) {
        store::StoreCostModel::Options options;
        options.url = url;
        options.setup = setup;
        const store::StoreCostModel cost(measurements, options, run.graph);
        searches = runSearches(run, cost, "store");
        j["search"] = searches;
    }
    run.outputs.commit();
    j["wall_seconds"] = secondsSince(run.wallStart);

    if (run.json) {
        std::cout << util::dumpJson(j, 1) << "\n";
    } else {
        std::cout << run.graph.name << " on " << run.backend.deviceName() << " (" << id
                  << "), batch " << run.batch << ", " << run.parser.get("strategy") << " (r "
                  << run.search.params.r << ", s " << run.search.params.s << ")\n"
                  << "stages met           " << result.stagesMet << " (asked " << run.met.calls
                  << " times)\n"
                  << "distinct canonical   " << result.classes << "\n"
                  << "from store           " << result.fromStore << "\n"
                  << "measured             " << result.measured << "\n"
                  << "graphs               " << result.graphs << "\n"
                  << "kernels              " << result.kernels << "\n"
                  << "replays              " << result.replays << "\n"
                  << "GPU-busy seconds     " << fixed(result.busySeconds, 3) << "\n"
                  << "enumeration seconds  " << fixed(run.met.seconds, 2) << "\n"
                  << "preparation seconds  " << fixed(result.prepareSeconds, 2) << "\n"
                  << "measurement seconds  " << fixed(result.measureSeconds, 2) << "\n"
                  << "wall seconds         " << fixed(j["wall_seconds"].get<double>(), 2) << "\n"
                  << "store                " << url << " (" << result.samplesAdded
                  << " entries added)\n";
        if (result.complete && !run.shard)
            std::cout << "replay: " << replay << "\n";
        printSearches(searches, "store");
    }
    if (run.shard && result.complete)
        noteShard(run, result.stagesMet);
    if (!result.complete)
        notes() << "ios-sched profile: stopped after " << result.graphs
                << " graphs; the store keeps every graph measured: run the same command "
                   "again to go on\n";
    return kExitOk;
}

} // namespace ios::cli
