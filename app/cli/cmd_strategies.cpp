// SPDX-License-Identifier: Apache-2.0
// `ios-sched strategies [--json]`: every registered scheduler with its key, label, one-line
// description and the knobs it reads (the engine's registry, schedulers/scheduler.h).
#include "args.h"
#include "command.h"
#include "schedulers/scheduler.h"
#include "util/json_number.h"

#include <cstdio>
#include <iostream>
#include <nlohmann/json.hpp>

namespace ios::cli {

namespace {

int runStrategies(const std::vector<std::string>& args) {
    ArgParser parser("ios-sched strategies [--json]",
                     "List the registered schedulers: the names --strategy accepts, what each "
                     "does and which settings it reads.");
    parser.flag("--json", "Print a JSON array of {key, label, description, knobs, aliases}");
    if (!parser.parse(args))
        return kExitOk;
    const auto schedulers = schedulers::registeredSchedulers();
    if (parser.has("json")) {
        nlohmann::ordered_json rows = nlohmann::ordered_json::array();
        for (const schedulers::Scheduler* s : schedulers) {
            nlohmann::ordered_json knobs = nlohmann::ordered_json::array();
            for (schedulers::Knob k : s->knobs())
                knobs.push_back(schedulers::knobKey(k));
            nlohmann::ordered_json aliases = nlohmann::ordered_json::array();
            for (std::string_view a : s->aliases())
                aliases.push_back(a);
            rows.push_back({{"key", s->key()},
                            {"label", s->label()},
                            {"description", s->description()},
                            {"knobs", std::move(knobs)},
                            {"aliases", std::move(aliases)}});
        }
        std::cout << util::dumpJson(rows, 2) << "\n";
        return kExitOk;
    }
    for (const schedulers::Scheduler* s : schedulers) {
        std::string knobs;
        for (schedulers::Knob k : s->knobs())
            knobs += (knobs.empty() ? "" : ", ") + std::string(schedulers::knobKey(k));
        std::string aliases;
        for (std::string_view a : s->aliases())
            aliases += (aliases.empty() ? " (also: " : ", ") + std::string(a);
        if (!aliases.empty())
            aliases += ")";
        std::cout << s->key() << aliases << " - " << s->label() << "\n    " << s->description()
                  << "\n    knobs: " << knobs << "\n";
    }
    return kExitOk;
}

} // namespace

} // namespace ios::cli

IOS_REGISTER_COMMAND(strategies, "strategies", "List the registered schedulers and their knobs",
                     ios::cli::runStrategies);
