// SPDX-License-Identifier: Apache-2.0
// `ios-sched store info|merge|export|import|prune`: the measurement store (docs/store.md).
#include "args.h"
#include "bundled_models.h"
#include "command.h"
#include "cost/cost_model.h"
#include "message_mode.h"
#include "model_options.h"
#include "store/measurement_store.h"
#include "store/store_json.h"
#include "text_format.h"
#include "util/error.h"
#include "util/json_number.h"
#include "util/output_file.h"

#include <algorithm>
#include <cstdio>
#include <ctime>
#include <iostream>
#include <map>
#include <memory>
#include <sstream>

namespace ios::cli {

namespace {

constexpr size_t kCopyBatch = 10000;

util::Json setupJson(const store::StoreInfo::DeviceCount& s) {
    util::Json j;
    j["id"] = cost::identityId(s.device);
    j["device"] = cost::toJson(s.device);
    j["batch"] = s.batch;
    j["dtype"] = s.dtype;
    j["entries"] = s.entries;
    return j;
}

void printInfo(const store::StoreInfo& info) {
    std::cout << "store:      " << info.url << "\nbackend:    " << info.backend
              << "\nentries:    " << info.entries << " (" << info.samples << " samples)"
              << "\nstages:     " << info.stages << "\noperators:  " << info.operators
              << "\nsize:       "
              << (info.bytes < 0 ? std::string("unknown") : bytesText(info.bytes))
              << "\nsetups:     " << info.setups.size() << "\n";
    if (info.setups.empty())
        return;
    std::cout << "\nid             name                            cc    SMs  driver       CUDA  "
                 "cuDNN   math  batch  dtype  entries\n";
    for (const store::StoreInfo::DeviceCount& s : info.setups) {
        const cost::DeviceIdentity& d = s.device;
        const auto pad = [](const std::string& t, size_t w) {
            return t.size() >= w ? t + " " : t + std::string(w - t.size(), ' ');
        };
        std::cout << pad(cost::identityId(d), 15) << pad(d.name, 32)
                  << pad(d.computeCapability.empty() ? "-" : d.computeCapability, 6)
                  << pad(std::to_string(d.smCount), 5) << pad(d.driver.empty() ? "-" : d.driver, 13)
                  << pad(d.cuda.empty() ? "-" : d.cuda, 6)
                  << pad(d.cudnn.empty() ? "-" : d.cudnn, 8)
                  << pad(d.mathMode.empty() ? "-" : d.mathMode, 6)
                  << pad(std::to_string(s.batch), 7) << pad(s.dtype, 7) << s.entries << "\n";
    }
}

int runInfo(const std::vector<std::string>& args) {
    ArgParser parser("ios-sched store info URL [--json]",
                     "What a measurement store holds: entries, samples, stages, operators, size "
                     "and its device setups (id, device, batch, data type, entries).");
    parser.positional("URL", "The store: sqlite:PATH, PATH or postgresql://...");
    parser.flag("--json", "Print it as one JSON object");
    if (!parser.parse(args))
        return kExitOk;
    const store::StoreInfo info =
        store::openStore(parser.positionals()[0], store::OpenMode::ReadOnly)->info();
    if (!parser.has("json")) {
        printInfo(info);
        return kExitOk;
    }
    util::Json j;
    j["url"] = info.url;
    j["backend"] = info.backend;
    j["entries"] = info.entries;
    j["samples"] = info.samples;
    j["stages"] = info.stages;
    j["operators"] = info.operators;
    j["bytes"] = info.bytes;
    j["setups"] = util::Json::array();
    for (const store::StoreInfo::DeviceCount& s : info.setups)
        j["setups"].push_back(setupJson(s));
    std::cout << util::dumpJson(j, 2) << "\n";
    return kExitOk;
}

int runMerge(const std::vector<std::string>& args) {
    ArgParser parser("ios-sched store merge STORE... -o OUT",
                     "Adds every sample of the stores to OUT (created if missing). Samples equal "
                     "to one OUT has are not added twice, so merging again changes nothing; "
                     "different samples of one stage are all kept.");
    parser.positional("STORE", "The stores to merge (sqlite:PATH, PATH or postgresql://...)", true,
                      true);
    parser.option("-o, --output", "OUT", "The store that receives them");
    if (!parser.parse(args))
        return kExitOk;
    const std::string outUrl = parser.get("output");
    // Every input must open before OUT is created or changed.
    std::vector<std::unique_ptr<store::MeasurementStore>> inputs;
    for (const std::string& url : parser.positionals())
        inputs.push_back(store::openStore(url, store::OpenMode::ReadOnly));
    auto out = store::openStore(outUrl, store::OpenMode::CreateIfMissing);
    int64_t read = 0, added = 0;
    for (const auto& in : inputs) {
        std::vector<store::Measurement> batch;
        in->forEach([&](const store::Measurement& m) {
            batch.push_back(m);
            ++read;
            if (batch.size() >= kCopyBatch) {
                added += out->add(batch);
                batch.clear();
            }
        });
        added += out->add(batch);
    }
    std::cout << "merged " << read << " samples from " << inputs.size() << " store"
              << (inputs.size() == 1 ? "" : "s") << " into " << outUrl << " (" << added
              << " new)\n";
    return kExitOk;
}

int runExport(const std::vector<std::string>& args) {
    ArgParser parser("ios-sched store export URL [-o FILE|-]",
                     "Writes the store as one JSON document (docs/store.md \"JSON form\"): "
                     "deterministic, so stores holding the same samples export identical files.");
    parser.positional("URL", "The store: sqlite:PATH, PATH or postgresql://...");
    parser.option("-o, --output", "FILE", "Where to write it (- : standard output)", "-");
    if (!parser.parse(args))
        return kExitOk;
    const std::string file = parser.get("output");
    util::OutputTransaction outputs;
    if (file != "-")
        outputs.check(file, "the export (-o)");
    auto s = store::openStore(parser.positionals()[0], store::OpenMode::ReadOnly);
    if (file == "-") {
        store::exportStoreJson(*s, std::cout);
        std::cout.flush();
        return kExitOk;
    }
    std::ostringstream text;
    const store::JsonCounts counts = store::exportStoreJson(*s, text);
    outputs.stage(file, text.str());
    outputs.commit();
    notes() << "exported " << counts.samples << " samples (" << counts.operators << " operators, "
            << counts.devices << " devices) to " << file << "\n";
    return kExitOk;
}

int runImport(const std::vector<std::string>& args) {
    ArgParser parser("ios-sched store import FILE [--model M ...] -o URL",
                     "Adds a store export or a legacy measurement cache "
                     "(\"ios-explorer-measurements\") to the store URL (created if missing). A "
                     "legacy cache names stages by operator names: each entry's model must be a "
                     "bundled model or given with --model. The file is validated in full first: "
                     "a bad file adds nothing.");
    parser.positional("FILE", "The JSON file");
    parser.option("--model", "M",
                  "A model file (or bundled name) a legacy cache's entries were measured on, "
                  "matched by the model's name; repeat for several");
    parser.option("-o, --output", "URL", "The store that receives the samples");
    addModelOptions(parser);
    if (!parser.parse(args))
        return kExitOk;
    std::map<std::string, ir::Graph> models; // by the model's own name
    for (const std::string& m : parser.values("model")) {
        ir::Graph g = loadModelArg(parser, m);
        const std::string name = g.name;
        models.insert_or_assign(name, std::move(g));
    }
    const store::ModelResolver resolve = [&](const std::string& name) -> const ir::Graph* {
        if (auto it = models.find(name); it != models.end())
            return &it->second;
        if (!samples::isBundledModel(name))
            return nullptr;
        return &models.emplace(name, samples::loadBundledModel(name)).first->second;
    };
    const std::string file = parser.positionals()[0];
    const std::string url = parser.get("output");
    try {
        store::checkStoreJson(file, resolve); // a bad file creates and changes nothing
        auto s = store::openStore(url, store::OpenMode::CreateIfMissing);
        const store::JsonCounts counts = store::importStoreJson(file, *s, resolve, true);
        std::cout << "imported " << counts.samples << " samples from " << file << " into " << url
                  << " (" << counts.added << " new)\n";
    } catch (const store::ModelNotFound& e) {
        throw UserError(e.message() + "; give its model file with --model FILE", e.file());
    }
    return kExitOk;
}

int64_t parseBefore(const std::string& text) {
    int y = 0, mo = 0, d = 0;
    char tail = 0;
    if (std::sscanf(text.c_str(), "%4d-%2d-%2d%c", &y, &mo, &d, &tail) == 3 && y >= 1970 &&
        mo >= 1 && mo <= 12 && d >= 1 && d <= 31) {
        std::tm tm{};
        tm.tm_year = y - 1900;
        tm.tm_mon = mo - 1;
        tm.tm_mday = d;
        return static_cast<int64_t>(timegm(&tm));
    }
    size_t used = 0;
    try {
        const long long v = std::stoll(text, &used);
        if (used == text.size() && v >= 0)
            return v;
    } catch (const std::exception&) {
    }
    throw UserError("--before must be a date YYYY-MM-DD (UTC) or Unix seconds, not '" + text + "'");
}

// The setup --device (an identity id or a device name), --batch and --dtype name.
store::Setup setupOption(const ArgParser& parser, store::MeasurementStore& s,
                         const std::string& url) {
    const std::string device = parser.get("device");
    store::Setup setup;
    setup.batch = parser.getInt("batch", 1, cost::kMaxBatch);
    setup.dtype = parser.get("dtype");
    std::vector<cost::DeviceIdentity> matches;
    std::string ids;
    for (const store::StoreInfo::DeviceCount& c : s.info().setups) {
        const std::string id = cost::identityId(c.device);
        if (ids.find(id) == std::string::npos)
            ids += (ids.empty() ? "" : ", ") + id + " '" + c.device.name + "'";
        if ((id == device || c.device.name == device) &&
            std::find(matches.begin(), matches.end(), c.device) == matches.end())
            matches.push_back(c.device);
    }
    if (matches.size() != 1)
        throw UserError("measurement store '" + url + "': --device '" + device + "' matches " +
                        std::to_string(matches.size()) + " device identities (it holds: " +
                        (ids.empty() ? std::string("none") : ids) + "); give one id");
    setup.device = matches.front();
    return setup;
}

int runPrune(const std::vector<std::string>& args) {
    ArgParser parser("ios-sched store prune URL [--before DATE|UNIX] [--device ID [--batch N] "
                     "[--dtype T]]",
                     "Deletes the samples measured before a date and/or those of one device "
                     "setup; at least one filter is required.");
    parser.positional("URL", "The store: sqlite:PATH, PATH or postgresql://...");
    parser.option("--before", "WHEN",
                  "Samples measured before this date (YYYY-MM-DD, UTC) or "
                  "Unix time");
    parser.option("--device", "ID",
                  "Samples of this device identity (id from store info, or a "
                  "device name matching one identity)");
    parser.option("--batch", "N", "With --device: the batch size", "1");
    parser.option("--dtype", "T", "With --device: the data type", "fp32");
    if (!parser.parse(args))
        return kExitOk;
    if (!parser.has("before") && !parser.has("device"))
        throw UserError("store prune needs a filter: --before and/or --device (to empty a store, "
                        "delete it)");
    if (!parser.has("device") && (parser.has("batch") || parser.has("dtype")))
        throw UserError("--batch and --dtype select a setup together with --device");
    const std::string url = parser.positionals()[0];
    std::optional<int64_t> before;
    if (parser.has("before"))
        before = parseBefore(parser.get("before"));
    auto s = store::openStore(url, store::OpenMode::ReadWrite);
    std::optional<store::Setup> setup;
    if (parser.has("device"))
        setup = setupOption(parser, *s, url);
    const int64_t removed = s->prune(before, setup);
    std::cout << "removed " << removed << " sample" << (removed == 1 ? "" : "s") << " from " << url
              << "\n";
    return kExitOk;
}

constexpr Command kSubcommands[] = {
    {"info", "What a store holds: counts, size, device setups", runInfo},
    {"merge", "Add the samples of stores to another (idempotent)", runMerge},
    {"export", "Write a store as a deterministic JSON document", runExport},
    {"import", "Add a store export or a legacy measurement cache to a store", runImport},
    {"prune", "Delete samples by date and/or device setup", runPrune},
};

int runStore(const std::vector<std::string>& args) {
    if (args.empty())
        throw UserError("store needs a subcommand: info, merge, export, import or prune "
                        "(store --help)");
    const bool help = args[0] == "--help" || args[0] == "-h";
    if (!help)
        for (const Command& sub : kSubcommands)
            if (args[0] == sub.name)
                return sub.run(std::vector<std::string>(args.begin() + 1, args.end()));
    std::ostringstream text;
    text << "Usage: ios-sched store SUBCOMMAND ... (SUBCOMMAND --help for its options)\n\n"
            "The measurement store: stage latencies keyed by stage signature, device identity, "
            "batch and data type (docs/store.md). URL: sqlite:PATH, PATH or "
            "postgresql://...\n\n";
    for (const Command& sub : kSubcommands)
        text << "  " << sub.name << std::string(8 - sub.name.size(), ' ') << sub.summary << "\n";
    if (!help)
        throw UserError("unknown store subcommand '" + args[0] +
                        "' (info, merge, export, import or prune)");
    std::cout << text.str();
    return kExitOk;
}

} // namespace

IOS_REGISTER_COMMAND_GROUP(store, "store",
                           "Inspect, merge, export, import and prune measurement stores", runStore,
                           kSubcommands);

} // namespace ios::cli
