#include "rewrite/pattern.h"

namespace ios::rewrite {

bool readsFrom(const ir::Node& reader, const std::string& producer) {
    for (const ir::Term& term : reader.externalInputs())
        for (const ir::ValueRef& v : term)
            if (v.node == producer)
                return true;
    return false;
}

namespace {

struct Matcher {
    const Pattern& pattern;
    const std::vector<const ir::Node*>& ops;
    const std::vector<int>& consumers;
    std::vector<int> mapping;
    std::vector<bool> used;
    std::vector<std::vector<int>> found;

    // Readers of a matched node inside the match, for the external-output rule.
    int internalReaders(size_t p) const {
        int n = 0;
        for (size_t q = 0; q < mapping.size(); ++q)
            if (q != p && readsFrom(*ops[static_cast<size_t>(mapping[q])],
                                    ops[static_cast<size_t>(mapping[p])]->name))
                ++n;
        return n;
    }

    void extend() {
        const size_t depth = mapping.size();
        if (depth == pattern.nodes.size()) {
            for (size_t p = 0; p < depth; ++p)
                if (!pattern.nodes[p].externalOutput &&
                    consumers[static_cast<size_t>(mapping[p])] != internalReaders(p))
                    return;
            std::vector<const ir::Node*> nodes;
            for (int i : mapping)
                nodes.push_back(ops[static_cast<size_t>(i)]);
            if (!pattern.accepts || pattern.accepts(nodes))
                found.push_back(mapping);
            return;
        }
        const PatternNode& pn = pattern.nodes[depth];
        for (size_t i = 0; i < ops.size(); ++i) {
            if (used[i] || !pn.accepts(*ops[i]))
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
            mapping.push_back(static_cast<int>(i));
            extend();
            mapping.pop_back();
            used[i] = false;
        }
    }
};

} // namespace

std::vector<std::vector<int>> matchPattern(const Pattern& pattern,
                                           const std::vector<const ir::Node*>& ops,
                                           const std::vector<int>& consumers) {
    Matcher m{pattern, ops, consumers, {}, std::vector<bool>(ops.size(), false), {}};
    m.extend();
    return std::move(m.found);
}

} // namespace ios::rewrite
