// SPDX-License-Identifier: Apache-2.0
#include "fuzz_support.h"

#include "io/ios_json.h"
#include "util/error.h"
#include "util/file_util.h"

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <memory>

namespace ios::fuzz {

const LoadedModel& sampleModel(const std::string& name) {
    static std::map<std::string, std::unique_ptr<LoadedModel>> models;
    std::unique_ptr<LoadedModel>& slot = models[name];
    if (!slot) {
        const std::filesystem::path path =
            std::filesystem::path(IOS_FUZZ_SAMPLE_MODELS_DIR) / (name + ".ios.json");
        try {
            slot = std::make_unique<LoadedModel>();
            slot->graph = io::parseIosJson(util::readTextFile(path), path.string());
            slot->dags = ir::buildDags(slot->graph);
        } catch (const UserError& e) {
            std::fprintf(stderr, "fuzz: cannot load %s: %s\n", path.c_str(), e.what());
            std::abort();
        }
    }
    return *slot;
}

} // namespace ios::fuzz
