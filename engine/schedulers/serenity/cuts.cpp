// SPDX-License-Identifier: Apache-2.0
#include "schedulers/serenity/cuts.h"

#include <cstdint>

namespace ios::schedulers::serenity {

namespace {

using Row = std::vector<uint64_t>;

bool test(const Row& r, int i) {
    return (r[static_cast<size_t>(i >> 6)] >> (i & 63)) & 1u;
}
void setBit(Row& r, int i) {
    r[static_cast<size_t>(i >> 6)] |= uint64_t{1} << (i & 63);
}

} // namespace

std::vector<int> cutPoints(const ir::MemoryProblem& p) {
    const int n = static_cast<int>(p.ops.size());
    const auto words = static_cast<size_t>((n + 63) / 64);
    // anc[i], desc[i] exclude i; ops are topological, so one pass each way.
    std::vector<Row> anc(static_cast<size_t>(n), Row(words, 0));
    std::vector<Row> desc(static_cast<size_t>(n), Row(words, 0));
    for (int i = 0; i < n; ++i)
        for (int q : p.preds[static_cast<size_t>(i)]) {
            Row& a = anc[static_cast<size_t>(i)];
            const Row& aq = anc[static_cast<size_t>(q)];
            for (size_t w = 0; w < words; ++w)
                a[w] |= aq[w];
            setBit(a, q);
        }
    for (int i = n - 1; i >= 0; --i)
        for (int s : p.succs[static_cast<size_t>(i)]) {
            Row& d = desc[static_cast<size_t>(i)];
            const Row& ds = desc[static_cast<size_t>(s)];
            for (size_t w = 0; w < words; ++w)
                d[w] |= ds[w];
            setBit(d, s);
        }
    std::vector<int> cuts;
    for (int c = 0; c < n; ++c) {
        const Row& a = anc[static_cast<size_t>(c)];
        const Row& d = desc[static_cast<size_t>(c)];
        int covered = 1;
        for (size_t w = 0; w < words; ++w)
            covered += __builtin_popcountll(a[w]) + __builtin_popcountll(d[w]);
        if (covered != n)
            continue;
        bool crossing = false;
        for (int x = 0; x < n && !crossing; ++x)
            if (test(a, x))
                for (int s : p.succs[static_cast<size_t>(x)])
                    crossing = crossing || test(d, s);
        if (!crossing)
            cuts.push_back(c);
    }
    return cuts;
}

std::vector<Segment> cutSegments(const ir::MemoryProblem& p) {
    const int n = static_cast<int>(p.ops.size());
    const std::vector<int> cuts = cutPoints(p);
    // Every op is an ancestor or a descendant of each cut, so ops split by position relative
    // to the cuts; a cut's ancestors are exactly the ops before it in any order, and the ops are
    // topological, so "before c" is "index < c" restricted to ancestors — which is all of them.
    std::vector<Segment> out;
    std::vector<int> done;
    int from = 0;
    auto close = [&](int endInclusive) {
        Segment s;
        s.before = done;
        for (int i = from; i <= endInclusive; ++i)
            s.ops.push_back(i);
        done.insert(done.end(), s.ops.begin(), s.ops.end());
        if (!s.ops.empty())
            out.push_back(std::move(s));
        from = endInclusive + 1;
    };
    for (int c : cuts)
        close(c);
    if (from < n)
        close(n - 1);
    return out;
}

} // namespace ios::schedulers::serenity
