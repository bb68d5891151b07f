// SPDX-License-Identifier: Apache-2.0
// The scheduler registry (scheduler.h): filled at start-up by IOS_REGISTER_SCHEDULER lines.
#include "schedulers/scheduler.h"
#include "util/error.h"

#include <algorithm>
#include <mutex>
#include <stdexcept>

namespace ios::schedulers {

namespace {

struct Registry {
    std::mutex mutex;
    std::vector<std::unique_ptr<Scheduler>> schedulers;
};

Registry& registry() {
    static Registry r; // constructed on first use: safe from other static initialisers
    return r;
}

bool answersTo(const Scheduler& s, std::string_view name) {
    if (s.key() == name)
        return true;
    const auto aliases = s.aliases();
    return std::find(aliases.begin(), aliases.end(), name) != aliases.end();
}

} // namespace

std::string_view knobKey(Knob knob) {
    switch (knob) {
    case Knob::MaxGroupSize:
        return "r";
    case Knob::MaxNumGroups:
        return "s";
    case Knob::Endings:
        return "endings";
    case Knob::MaxPartSize:
        return "max_part_size";
    case Knob::Batch:
        return "batch";
    case Knob::Device:
        return "device";
    case Knob::MemoryBudget:
        return "memory_budget";
    }
    return "?";
}

std::string_view knobDescription(Knob knob) {
    switch (knob) {
    case Knob::MaxGroupSize:
        return "most operators per group of a parallel stage (r)";
    case Knob::MaxNumGroups:
        return "most groups per parallel stage (s)";
    case Knob::Endings:
        return "which endings the search enumerates (reference or all)";
    case Knob::MaxPartSize:
        return "blocks are cut into DP parts of at most this many operators";
    case Knob::Batch:
        return "batch size the cost model prices stages at";
    case Knob::Device:
        return "device profile the cost model simulates";
    case Knob::MemoryBudget:
        return "most bytes of activations live at any stage (0: no limit)";
    }
    return "";
}

bool Scheduler::reads(Knob knob) const {
    const auto k = knobs();
    return std::find(k.begin(), k.end(), knob) != k.end();
}

std::vector<const Scheduler*> registeredSchedulers() {
    Registry& r = registry();
    std::vector<const Scheduler*> out;
    {
        const std::lock_guard lock(r.mutex);
        for (const auto& s : r.schedulers)
            out.push_back(s.get());
    }
    std::sort(out.begin(), out.end(), [](const Scheduler* a, const Scheduler* b) {
        return a->rank() != b->rank() ? a->rank() < b->rank() : a->key() < b->key();
    });
    return out;
}

const Scheduler* findScheduler(std::string_view keyOrAlias) {
    for (const Scheduler* s : registeredSchedulers())
        if (answersTo(*s, keyOrAlias))
            return s;
    return nullptr;
}

std::string schedulerKeyList() {
    std::string out;
    for (const Scheduler* s : registeredSchedulers())
        out += (out.empty() ? "" : ", ") + std::string(s->key());
    return out;
}

const Scheduler& schedulerByName(std::string_view keyOrAlias) {
    if (const Scheduler* s = findScheduler(keyOrAlias))
        return *s;
    throw UserError("unknown strategy '" + std::string(keyOrAlias) + "' (expected one of " +
                    schedulerKeyList() + ")");
}

const Scheduler& registerScheduler(std::unique_ptr<Scheduler> scheduler) {
    if (!scheduler || scheduler->key().empty())
        throw std::logic_error("registerScheduler: a scheduler needs a key");
    Registry& r = registry();
    const std::lock_guard lock(r.mutex);
    std::vector<std::string_view> names = scheduler->aliases();
    names.push_back(scheduler->key());
    for (const auto& s : r.schedulers)
        for (std::string_view n : names)
            if (answersTo(*s, n))
                throw std::logic_error("registerScheduler: the name '" + std::string(n) +
                                       "' is taken by scheduler '" + std::string(s->key()) + "'");
    r.schedulers.push_back(std::move(scheduler));
    return *r.schedulers.back();
}

bool unregisterScheduler(std::string_view key) {
    Registry& r = registry();
    const std::lock_guard lock(r.mutex);
    auto it = std::find_if(r.schedulers.begin(), r.schedulers.end(),
                           [key](const auto& s) { return s->key() == key; });
    if (it == r.schedulers.end())
        return false;
    r.schedulers.erase(it);
    return true;
}

} // namespace ios::schedulers
