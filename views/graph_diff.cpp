// SPDX-License-Identifier: Apache-2.0
#include "graph_diff.h"

#include <algorithm>
#include <set>
#include <string>
#include <unordered_map>

namespace ios::views {

namespace {

bool contains(const std::vector<std::string>& names, const std::string& name) {
    return std::find(names.begin(), names.end(), name) != names.end();
}

// `name` as read by step `step`: the output of the latest earlier step that created it, else
// G0's operator. Appends the G0 names it comes from.
void backToOriginal(const std::vector<rewrite::Provenance>& steps, size_t step,
                    const std::string& name, std::set<std::string>& out) {
    for (size_t j = step; j-- > 0;)
        if (contains(steps[j].created, name)) {
            for (const std::string& source : steps[j].sources)
                backToOriginal(steps, j, source, out);
            return;
        }
    out.insert(name);
}

// `name` as created by step `step`: what the earliest later step that rewrote it created,
// else G*'s operator.
void forwardToResult(const std::vector<rewrite::Provenance>& steps, size_t step,
                     const std::string& name, std::set<std::string>& out) {
    for (size_t j = step + 1; j < steps.size(); ++j)
        if (contains(steps[j].sources, name)) {
            for (const std::string& created : steps[j].created)
                forwardToResult(steps, j, created, out);
            return;
        }
    out.insert(name);
}

std::vector<int> without(std::vector<int> a, const std::vector<int>& b) {
    std::erase_if(a, [&b](int i) { return std::binary_search(b.begin(), b.end(), i); });
    return a;
}

} // namespace

std::vector<int> flatIndicesOf(const LoadedModel& model, const std::vector<std::string>& names) {
    std::unordered_map<std::string, int> index;
    for (int i = 0; i < model.operatorCount(); ++i)
        index.emplace(model.node(model.operators()[static_cast<size_t>(i)]).name, i);
    std::vector<int> out;
    for (const std::string& name : names)
        if (auto it = index.find(name); it != index.end())
            out.push_back(it->second);
    std::sort(out.begin(), out.end());
    out.erase(std::unique(out.begin(), out.end()), out.end());
    return out;
}

GraphDiff graphDiff(const LoadedModel& before, const LoadedModel& after,
                    const std::vector<rewrite::Provenance>& steps) {
    std::set<std::string> replaced, created, rewired;
    for (size_t k = 0; k < steps.size(); ++k) {
        for (const std::string& s : steps[k].sources)
            backToOriginal(steps, k, s, replaced);
        for (const std::string& c : steps[k].created)
            forwardToResult(steps, k, c, created);
        rewired.insert(steps[k].rewired.begin(), steps[k].rewired.end());
    }
    auto flat = [](const LoadedModel& m, const std::set<std::string>& names) {
        return flatIndicesOf(m, {names.begin(), names.end()});
    };
    GraphDiff d;
    d.replaced = flat(before, replaced);
    d.created = flat(after, created);
    d.rewiredBefore = without(flat(before, rewired), d.replaced);
    d.rewiredAfter = without(flat(after, rewired), d.created);
    return d;
}

StepOperators stepOperators(const LoadedModel& before, const LoadedModel& after,
                            const std::vector<rewrite::Provenance>& steps, size_t step) {
    StepOperators out;
    if (step >= steps.size())
        return out;
    std::set<std::string> sources, created;
    for (const std::string& s : steps[step].sources)
        backToOriginal(steps, step, s, sources);
    for (const std::string& c : steps[step].created)
        forwardToResult(steps, step, c, created);
    out.before = flatIndicesOf(before, {sources.begin(), sources.end()});
    out.after = flatIndicesOf(after, {created.begin(), created.end()});
    return out;
}

} // namespace ios::views
