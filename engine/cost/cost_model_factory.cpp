// SPDX-License-Identifier: Apache-2.0
#include "cost/cost_model_factory.h"

#include "util/error.h"

#include <algorithm>
#include <mutex>
#include <stdexcept>

namespace ios::cost {

namespace {

struct Registry {
    std::mutex mutex;
    std::vector<CostModelEntry> entries;
};

Registry& registry() {
    static Registry r;
    return r;
}

// The entry `text` names: a key exactly, or a key ending in ':' as its prefix.
std::optional<CostModelEntry> entryOf(std::string_view text) {
    for (CostModelEntry& entry : costModelEntries())
        if (entry.takesArgument() ? text.substr(0, entry.key.size()) == entry.key
                                  : text == entry.key)
            return std::move(entry);
    return std::nullopt;
}

std::string usageList() {
    std::string choices;
    for (const CostModelEntry& e : costModelEntries())
        choices += (choices.empty() ? "" : ", ") + e.usage;
    return choices;
}

} // namespace

bool registerCostModel(CostModelEntry entry) {
    Registry& r = registry();
    const std::lock_guard lock(r.mutex);
    for (const CostModelEntry& e : r.entries)
        if (e.key == entry.key)
            throw std::logic_error("cost model '" + entry.key + "' registered twice");
    r.entries.push_back(std::move(entry));
    return true;
}

bool unregisterCostModel(std::string_view key) {
    Registry& r = registry();
    const std::lock_guard lock(r.mutex);
    const auto it = std::find_if(r.entries.begin(), r.entries.end(),
                                 [&](const CostModelEntry& e) { return e.key == key; });
    if (it == r.entries.end())
        return false;
    r.entries.erase(it);
    return true;
}

std::vector<CostModelEntry> costModelEntries() {
    std::vector<CostModelEntry> out;
    {
        Registry& r = registry();
        const std::lock_guard lock(r.mutex);
        out = r.entries;
    }
    std::stable_sort(out.begin(), out.end(), [](const CostModelEntry& a, const CostModelEntry& b) {
        return a.rank != b.rank ? a.rank < b.rank : a.key < b.key;
    });
    return out;
}

std::optional<CostModelEntry> findCostModel(std::string_view key) {
    for (CostModelEntry& e : costModelEntries())
        if (e.key == key)
            return std::move(e);
    return std::nullopt;
}

void parseCostModelKind(std::string_view text, CostModelSpec& spec) {
    const std::optional<CostModelEntry> entry = entryOf(text);
    if (!entry)
        throw UserError("the cost model must be one of " + usageList() + ", not '" +
                            std::string(text) + "'",
                        Hint::ChooseCostModel);
    std::string argument(text.substr(entry->key.size()));
    if (entry->checkArgument)
        entry->checkArgument(argument); // its own words, an empty argument included
    else if (entry->takesArgument() && argument.empty())
        throw UserError("the cost model " + entry->usage + " needs the text after '" + entry->key +
                            "'",
                        Hint::ChooseCostModel);
    spec.key = entry->key;
    spec.argument = std::move(argument);
}

std::string costModelKindText(const CostModelSpec& spec) {
    return spec.key + spec.argument;
}

std::unique_ptr<CostModel> makeCostModel(const CostModelSpec& spec, const ir::Graph& graph) {
    const std::optional<CostModelEntry> entry = findCostModel(spec.key);
    if (!entry)
        throw UserError("the cost model '" + spec.key + "' is not built into this program");
    return entry->build(spec, graph);
}

} // namespace ios::cost
