// SPDX-License-Identifier: Apache-2.0
#include "rewrite/pattern.h"

#include <unordered_map>

namespace ios::rewrite {

bool readsFrom(const ir::Node& reader, const std::string& producer) {
    for (const ir::Term& term : reader.externalInputs())
        for (const ir::ValueRef& v : term)
            if (v.node == producer)
                return true;
    return false;
}

std::vector<std::vector<int>> readersOf(const std::vector<const ir::Node*>& ops) {
    std::unordered_map<std::string, int> indexOf;
    for (size_t i = 0; i < ops.size(); ++i)
        indexOf.emplace(ops[i]->name, static_cast<int>(i));
    std::vector<std::vector<int>> readers(ops.size());
    for (size_t r = 0; r < ops.size(); ++r)
        for (const ir::Term& term : ops[r]->externalInputs())
            for (const ir::ValueRef& v : term) {
                const auto it = indexOf.find(v.node);
                if (it == indexOf.end())
                    continue;
                std::vector<int>& list = readers[static_cast<size_t>(it->second)];
                if (list.empty() || list.back() != static_cast<int>(r))
                    list.push_back(static_cast<int>(r));
            }
    return readers;
}

namespace {

// The producer of an operator's first input value ("" with none): equal inputs have equal keys.
const std::string& firstInput(const ir::Node& n) {
    static const std::string none;
    return n.inputs.empty() || n.inputs.front().empty() ? none : n.inputs.front().front().node;
}

struct Matcher {
    const Pattern& pattern;
    const std::vector<const ir::Node*>& ops;
    const std::vector<int>& consumers;
    const std::vector<bool>* allowed;
    const std::function<bool(const std::vector<int>&)>& visit;
    std::vector<std::vector<int>> readers;
    std::unordered_map<std::string, std::vector<int>> byFirstInput;
    std::vector<int> all;
    std::vector<int> mapping;
    std::vector<bool> used;
    bool stopped = false;

    void index() {
        readers = readersOf(ops);
        all.resize(ops.size());
        for (size_t i = 0; i < ops.size(); ++i) {
            all[i] = static_cast<int>(i);
            byFirstInput[firstInput(*ops[i])].push_back(static_cast<int>(i));
        }
    }

    // Readers of a matched node inside the match, for the external-output rule.
    int internalReaders(size_t p) const {
        int n = 0;
        for (size_t q = 0; q < mapping.size(); ++q)
            if (q != p && readsFrom(*ops[static_cast<size_t>(mapping[q])],
                                    ops[static_cast<size_t>(mapping[p])]->name))
                ++n;
        return n;
    }

    // The operators pattern node `pn` may map onto (ascending): readers of its first read
    // node, operators sharing the first input of its sameInputsAs node, or all.
    const std::vector<int>& candidates(const PatternNode& pn) const {
        static const std::vector<int> none;
        if (!pn.reads.empty())
            return readers[static_cast<size_t>(mapping[static_cast<size_t>(pn.reads.front())])];
        if (pn.sameInputsAs >= 0) {
            const ir::Node& twin =
                *ops[static_cast<size_t>(mapping[static_cast<size_t>(pn.sameInputsAs)])];
            const auto it = byFirstInput.find(firstInput(twin));
            return it == byFirstInput.end() ? none : it->second;
        }
        return all;
    }

    void complete() {
        const size_t depth = mapping.size();
        for (size_t p = 0; p < depth; ++p)
            if (!pattern.nodes[p].externalOutput &&
                consumers[static_cast<size_t>(mapping[p])] != internalReaders(p))
                return;
        std::vector<const ir::Node*> nodes;
        for (int i : mapping)
            nodes.push_back(ops[static_cast<size_t>(i)]);
        if (!pattern.accepts || pattern.accepts(nodes))
            stopped = !visit(mapping);
    }

    void extend() {
        const size_t depth = mapping.size();
        if (depth == pattern.nodes.size()) {
            complete();
            return;
        }
        const PatternNode& pn = pattern.nodes[depth];
        for (const int c : candidates(pn)) {
            const auto i = static_cast<size_t>(c);
            if (stopped)
                return;
            if (used[i] || (allowed != nullptr && !(*allowed)[i]) || !pn.accepts(*ops[i]))
                continue;
            bool edges = true;
            for (int from : pn.reads)
                edges =
                    edges &&
                    readsFrom(*ops[i],
                              ops[static_cast<size_t>(mapping[static_cast<size_t>(from)])]->name);
            if (!edges)
                continue;
            used[i] = true;
            mapping.push_back(c);
            extend();
            mapping.pop_back();
            used[i] = false;
        }
    }
};

} // namespace

void forEachMatch(const Pattern& pattern, const std::vector<const ir::Node*>& ops,
                  const std::vector<int>& consumers, const std::vector<bool>* allowed,
                  const std::function<bool(const std::vector<int>&)>& visit) {
    Matcher m{pattern, ops, consumers, allowed, visit,
              {},      {},  {},        {},      std::vector<bool>(ops.size(), false)};
    m.index();
    m.extend();
}

std::vector<std::vector<int>> matchPattern(const Pattern& pattern,
                                           const std::vector<const ir::Node*>& ops,
                                           const std::vector<int>& consumers) {
    std::vector<std::vector<int>> found;
    forEachMatch(pattern, ops, consumers, nullptr, [&found](const std::vector<int>& m) {
        found.push_back(m);
        return true;
    });
    return found;
}

} // namespace ios::rewrite
