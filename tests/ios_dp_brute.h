// SPDX-License-Identifier: Apache-2.0
// The IOS DP's candidate rules checked directly on a random DAG's edge lists, never through
// the DP's code (docs/algorithms.md §2): shared by the brute-force suites.
#pragma once

#include "dp_test_support.h"
#include "schedulers/ios_dp.h"

#include <algorithm>
#include <cstdint>
#include <vector>

namespace ios::testing {

using schedulers::Endings;
using schedulers::Strategy;

struct Config {
    Strategy strategy;
    Endings endings;
    int r, s;
};

inline std::vector<Config> allConfigs() {
    std::vector<Config> out;
    const std::pair<int, int> rs[] = {{100, 100}, {3, 8}, {1, 8}, {2, 2}, {2, 1}, {1, 1}};
    for (Strategy st : {Strategy::Parallel, Strategy::Merge, Strategy::Both})
        for (Endings e : {Endings::Reference, Endings::All})
            for (auto [r, s] : rs)
                out.push_back({st, e, r, s});
    return out;
}

// Everything the candidate rules need to know about a pair (S, E), computed once.
struct Pair {
    bool ending = false;
    bool parallelRef = false; // every component has exactly one source
    int components = 0;
    int largestComponent = 0;
    int sources = 0;
    bool merge = false; // E ⊆ sinks(S) and mergeable
};

class Brute {
public:
    explicit Brute(const testing::RandomDag& d) : d_(d), n_(static_cast<int>(d.preds.size())) {
        ops_ = d.graph.blocks[0].operators();
    }

    bool hasPred(int v, uint32_t set) const {
        for (int p : d_.preds[v])
            if (set >> p & 1u)
                return true;
        return false;
    }
    bool isDownSet(uint32_t s) const {
        for (int v = 0; v < n_; ++v)
            if (s >> v & 1u)
                for (int p : d_.preds[v])
                    if (!(s >> p & 1u))
                        return false;
        return true;
    }
    bool linked(int a, int b) const {
        for (int p : d_.preds[a])
            if (p == b)
                return true;
        for (int p : d_.preds[b])
            if (p == a)
                return true;
        return false;
    }
    bool mergeablePair(const ir::Node& a, const ir::Node& b) const {
        auto ok = [](const ir::Node& x) {
            return x.kind == ir::NodeKind::Conv && x.conv.groups == 1 && x.inputs.size() == 1 &&
                   x.inputs[0].size() == 1;
        };
        return ok(a) && ok(b) && a.inputs[0][0] == b.inputs[0][0] &&
               a.outputShape.h == b.outputShape.h && a.outputShape.w == b.outputShape.w &&
               a.conv.stride == b.conv.stride && a.conv.act == b.conv.act;
    }

    Pair analyse(uint32_t s, uint32_t e) const {
        Pair p;
        for (int v = 0; v < n_; ++v)
            if ((s & ~e) >> v & 1u && hasPred(v, e))
                return p; // something left behind consumes E: not an ending
        p.ending = true;
        // components by repeated flooding over undirected edges inside E
        std::vector<int> comp(n_, -1);
        p.parallelRef = true;
        for (int v = 0; v < n_; ++v) {
            if (!(e >> v & 1u) || comp[v] != -1)
                continue;
            const int c = p.components++;
            comp[v] = c;
            for (bool grew = true; grew;) {
                grew = false;
                for (int a = 0; a < n_; ++a)
                    for (int b = 0; b < n_; ++b)
                        if (comp[a] == c && (e >> b & 1u) && comp[b] == -1 && linked(a, b)) {
                            comp[b] = c;
                            grew = true;
                        }
            }
            int size = 0, srcs = 0;
            for (int a = 0; a < n_; ++a)
                if (comp[a] == c) {
                    ++size;
                    srcs += hasPred(a, e) ? 0 : 1;
                }
            p.largestComponent = std::max(p.largestComponent, size);
            p.sources += srcs;
            p.parallelRef = p.parallelRef && srcs == 1;
        }
        bool allSinks = true;
        for (int v = 0; v < n_; ++v)
            if (e >> v & 1u)
                for (int w = 0; w < n_; ++w)
                    if ((s >> w & 1u) &&
                        std::find(d_.preds[w].begin(), d_.preds[w].end(), v) != d_.preds[w].end())
                        allSinks = false;
        p.merge = allSinks;
        if (allSinks && __builtin_popcount(e) > 1)
            for (int a = 0; a < n_; ++a)
                for (int b = 0; b < n_; ++b)
                    if ((e >> a & 1u) && (e >> b & 1u) && !mergeablePair(*ops_[a], *ops_[b]))
                        p.merge = false;
        return p;
    }

    // Number of (parallel, merge) candidates the rules of `c` allow for this pair.
    static std::pair<bool, bool> allowed(const Config& c, const Pair& p) {
        bool par = false;
        if (p.ending && c.strategy != Strategy::Merge && p.largestComponent <= c.r) {
            if (c.endings == Endings::Reference)
                par = p.parallelRef && p.components <= c.s;
            else
                par = p.sources <= c.s;
        }
        const bool mer = p.ending && p.merge && c.strategy != Strategy::Parallel;
        return {par, mer};
    }

    const testing::RandomDag& d_;
    int n_;
    std::vector<const ir::Node*> ops_;
};

} // namespace ios::testing
