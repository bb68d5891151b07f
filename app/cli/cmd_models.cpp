// SPDX-License-Identifier: Apache-2.0
// `ios-sched models`: the models bundled into the binary, usable by name everywhere.
#include "args.h"
#include "bundled_models.h"
#include "command.h"
#include "random_dag.h"
#include "util/json_number.h"

#include <algorithm>
#include <iostream>
#include <nlohmann/json.hpp>

namespace ios::cli {

namespace {

int runModels(const std::vector<std::string>& args) {
    ArgParser parser("ios-sched models [--json]",
                     "List the bundled models and the generated ones (random_dag:N[:SEED]). Any "
                     "command taking MODEL accepts these names.");
    parser.flag("--json", "Print a JSON array of {name, description, benchmark} of the bundled "
                          "models");
    if (!parser.parse(args))
        return kExitOk;
    const auto& models = samples::bundledModels();
    if (parser.has("json")) {
        nlohmann::ordered_json out = nlohmann::ordered_json::array();
        for (const samples::BundledModel& m : models)
            out.push_back(
                {{"name", m.name}, {"description", m.description}, {"benchmark", m.benchmark}});
        std::cout << util::dumpJson(out, 2) << "\n";
        return kExitOk;
    }
    size_t width = samples::kRandomDagPattern.size();
    for (const samples::BundledModel& m : models)
        width = std::max(width, m.name.size());
    for (const samples::BundledModel& m : models)
        std::cout << m.name << std::string(width + 2 - m.name.size(), ' ') << m.description
                  << (m.benchmark ? " [benchmark]" : "") << "\n";
    std::cout << samples::kRandomDagPattern
              << std::string(width + 2 - samples::kRandomDagPattern.size(), ' ')
              << samples::kRandomDagDescription << " [generated]\n";
    return kExitOk;
}

} // namespace

IOS_REGISTER_COMMAND(models, "models", "List the bundled models", runModels);

} // namespace ios::cli
