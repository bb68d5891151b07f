// SPDX-License-Identifier: Apache-2.0
// The layered DP (docs/memory.md "The memory DP"): layer i holds the down-sets of i ops with
// μ(S), their frontier z(S), the best peak reaching them and a Zobrist hash; only the current
// and the next layer keep their sets, every entry keeps (parent, last op) for the order.
#include "schedulers/serenity/memory_dp.h"

#include "schedulers/bits.h"
#include "schedulers/serenity/dp_rate.h"
#include "schedulers/serenity/segment_model.h"
#include "util/error.h"
#include "util/huge_page_allocator.h"

#include <algorithm>
#include <chrono>

namespace ios::schedulers::serenity {

std::string_view toString(DpStatus status) {
    switch (status) {
    case DpStatus::Solution:
        return "solution";
    case DpStatus::NoSolution:
        return "no solution";
    case DpStatus::Timeout:
        return "timeout";
    }
    return "?";
}

namespace {

using detail::SegmentModel;
using Clock = std::chrono::steady_clock;

// Beyond this a run counts as a timeout (back-pointers are 32-bit).
constexpr uint64_t kMaxEntries = uint64_t{1} << 27;

uint64_t splitmix(uint64_t& state) {
    uint64_t z = (state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

// The DP's arrays reach hundreds of MiB: huge pages where the kernel gives them.
template <class T> using Array = std::vector<T, util::HugePageAllocator<T>>;

// One layer: sets and frontiers as `words` words per entry, struct of arrays.
struct Layer {
    int words = 1;
    Array<uint64_t> sets, fronts, hashes;
    Array<int64_t> mu, peak;
    Array<uint32_t> id; // global entry id
    // Open addressing: (the hash's high 32 bits << 32) | (entry index + 1), 0 = free. The tag
    // in the slot spares a probe the load of the entry's hash.
    Array<uint64_t> slots;
    size_t mask = 0;

    size_t size() const { return mu.size(); }
    const uint64_t* set(size_t i) const { return sets.data() + i * static_cast<size_t>(words); }
    const uint64_t* front(size_t i) const { return fronts.data() + i * static_cast<size_t>(words); }
    void clear() {
        sets.clear();
        fronts.clear();
        hashes.clear();
        mu.clear();
        peak.clear();
        id.clear();
        std::fill(slots.begin(), slots.end(), 0);
    }
    // Bytes held (capacities).
    uint64_t bytes() const {
        return 8 * (sets.capacity() + fronts.capacity() + hashes.capacity() + mu.capacity() +
                    peak.capacity()) +
               4 * id.capacity() + 8 * slots.capacity();
    }
    // Bytes one more entry slot takes in the arrays (not the table).
    uint64_t entryBytes() const { return 16 * static_cast<uint64_t>(words) + 8 + 16 + 4; }
    size_t capacity() const { return mu.capacity(); }
    void reserveEntries(size_t n) {
        const size_t w = static_cast<size_t>(words);
        sets.reserve(n * w);
        fronts.reserve(n * w);
        hashes.reserve(n);
        mu.reserve(n);
        peak.reserve(n);
        id.reserve(n);
    }
    static uint64_t slotValue(uint64_t h, size_t entry) {
        return (h >> 32 << 32) | static_cast<uint64_t>(entry + 1);
    }
    void growTable() {
        const size_t capacity = std::max<size_t>(1024, slots.size() * 2);
        slots.assign(capacity, 0);
        mask = capacity - 1;
        for (size_t i = 0; i < size(); ++i) {
            size_t s = hashes[i] & mask;
            while (slots[s] != 0)
                s = (s + 1) & mask;
            slots[s] = slotValue(hashes[i], i);
        }
    }
    // The entry with the set `set` ∪ {u} (hash h), or SIZE_MAX; `slot` receives where to
    // insert.
    size_t find(uint64_t h, const uint64_t* set, int u, size_t& slot) const {
        const int uw = u >> 6;
        const uint64_t bit = uint64_t{1} << (u & 63);
        const uint64_t tag = h >> 32;
        for (size_t s = h & mask;; s = (s + 1) & mask) {
            const uint64_t v = slots[s];
            if (v == 0) {
                slot = s;
                return SIZE_MAX;
            }
            if (v >> 32 != tag)
                continue;
            const size_t e = static_cast<uint32_t>(v);
            const uint64_t* other = sets.data() + (e - 1) * static_cast<size_t>(words);
            bool same = true;
            for (int wi = 0; wi < words && same; ++wi)
                same = other[wi] == (wi == uw ? set[wi] | bit : set[wi]);
            if (same)
                return e - 1;
        }
    }
    // Starts loading what find(h, …) will read: the slot, or, once the slot is in cache
    // (`entry`), the entry it names. Only a hint: the table may change before the find.
    // Inlined always: GCC finds a function that only prefetches pure and drops its calls.
    [[gnu::always_inline]] void prefetch(uint64_t h, bool entry) const {
        const size_t s = h & mask;
        if (!entry) {
            __builtin_prefetch(slots.data() + s);
            return;
        }
        if (const uint64_t v = slots[s]; v != 0) {
            const size_t e = static_cast<uint32_t>(v);
            __builtin_prefetch(sets.data() + (e - 1) * static_cast<size_t>(words));
            __builtin_prefetch(peak.data() + (e - 1));
        }
    }
};

// The expansions of cur's entry i look up `next` far apart (Zobrist hashes scatter them): the
// lookups of entry i + kSlotsAhead start loading their slots, those of i + kEntriesAhead the
// entries in them, so that the misses overlap. Same lookups, same order: results unchanged.
constexpr size_t kSlotsAhead = 8;
constexpr size_t kEntriesAhead = 4;

[[gnu::always_inline]] inline void prefetchExpansions(const Layer& cur, size_t i, const Layer& next,
                                                      const std::vector<uint64_t>& zobrist,
                                                      bool entry) {
    if (i >= cur.size())
        return;
    const uint64_t* f = cur.front(i);
    for (int wi = 0; wi < cur.words; ++wi)
        for (uint64_t bits = f[wi]; bits != 0; bits &= bits - 1)
            next.prefetch(cur.hashes[i] ^
                              zobrist[static_cast<size_t>(wi * 64 + __builtin_ctzll(bits))],
                          entry);
}

class Ticker {
public:
    Ticker(SearchControl* control, const DpLimits& limits, int n)
        : control_(control), limits_(limits), n_(n), start_(Clock::now()), last_(start_) {}

    // Every 256 states: cancel, deadline, progress, time limit. True: the time limit passed.
    // Progress: the share of the run's bounds used — layers of n, expansions of the limit,
    // bytes of the byte bound, the largest (the run ends when one is used up) — per 2^20.
    bool tick(int layer, uint64_t expansions, uint64_t bytes) {
        if (++count_ < 256)
            return false;
        count_ = 0;
        const auto now = Clock::now();
        if (control_ != nullptr) {
            if (control_->cancelled())
                throw Cancelled();
            const uint64_t used = share(layer, expansions, bytes);
            control_->checkDeadline(used, kShares);
            if (control_->progress && now - last_ > std::chrono::milliseconds(100)) {
                last_ = now;
                control_->progress(used, kShares);
            }
        }
        return limits_.timeLimitSeconds > 0 &&
               std::chrono::duration<double>(now - start_).count() > limits_.timeLimitSeconds;
    }
    double seconds() const { return std::chrono::duration<double>(Clock::now() - start_).count(); }

private:
    static constexpr uint64_t kShares = uint64_t{1} << 20;
    uint64_t share(int layer, uint64_t expansions, uint64_t bytes) const {
        double used = n_ == 0 ? 1.0 : static_cast<double>(layer) / n_;
        if (limits_.maxExpansions != 0)
            used = std::max(used, static_cast<double>(expansions) /
                                      static_cast<double>(limits_.maxExpansions));
        if (limits_.maxBytes != 0)
            used =
                std::max(used, static_cast<double>(bytes) / static_cast<double>(limits_.maxBytes));
        return static_cast<uint64_t>(std::min(used, 1.0) * static_cast<double>(kShares));
    }

    SearchControl* control_;
    const DpLimits& limits_;
    int n_;
    Clock::time_point start_, last_;
    uint32_t count_ = 0;
};

// The layers, table and back-pointers of one run, grown only within a byte bound.
struct Store {
    Layer cur, next;
    Array<uint32_t> parent{0};
    Array<uint16_t> lastOp{0};
    uint64_t maxBytes = 0;
    uint64_t highWater = 0;

    uint64_t bytes() const {
        return cur.bytes() + next.bytes() + 4 * parent.capacity() + 2 * lastOp.capacity();
    }
    // The fewest bytes held once `entries` down-sets are in `next`: its arrays (or their
    // capacity now), its table at load ≤ ½, and the back-pointers.
    uint64_t leastBytesWith(uint64_t entries) const {
        const uint64_t layer = std::max<uint64_t>(next.bytes(), entries * (next.entryBytes() + 16));
        const uint64_t backs = std::max<uint64_t>(4 * parent.capacity() + 2 * lastOp.capacity(),
                                                  6 * (parent.size() + entries));
        return cur.bytes() + layer + backs;
    }
    // Room for one more entry of `next` (its arrays, its table after the insertion, its
    // back-pointer): what is full doubles, and only when the bytes held after the growth stay
    // within maxBytes (the old arrays counted: they are freed after the copy). False: no room.
    bool makeRoom() {
        uint64_t grow = 0;
        const size_t entries =
            next.capacity() == next.size() ? std::max<size_t>(64, 2 * next.size()) : 0;
        const size_t backs =
            parent.capacity() == parent.size() ? std::max<size_t>(64, 2 * parent.size()) : 0;
        const bool table = (next.size() + 2) * 2 > next.slots.size();
        grow += entries * next.entryBytes() + backs * 6;
        if (table)
            grow += 16 * static_cast<uint64_t>(next.slots.size());
        if (bytes() + grow > maxBytes)
            return false;
        if (entries != 0)
            next.reserveEntries(entries);
        if (backs != 0) {
            parent.reserve(backs);
            lastOp.reserve(backs);
        }
        highWater = std::max(highWater, bytes() + (table ? 16 * next.slots.size() : 0));
        return true;
    }
};

// The expansions of a layer: Σ |z(S)| over its down-sets.
uint64_t countExpansions(const Layer& cur) {
    uint64_t expansions = 0;
    for (size_t i = 0; i < cur.fronts.size(); ++i)
        expansions += static_cast<uint64_t>(ios::schedulers::detail::popcount64(cur.fronts[i]));
    return expansions;
}

// A down-set of i + 1 ops is reached from at most i + 1 down-sets of i ops (one per maximal
// op): `kept` transitions out of down-sets of `layer` ops reach at least kept / (layer + 1).
uint64_t leastEntries(uint64_t kept, int layer) {
    return (kept + static_cast<uint64_t>(layer)) / (static_cast<uint64_t>(layer) + 1);
}

// The transitions of a layer the budget keeps and their largest peak.
struct LayerCount {
    uint64_t kept = 0;
    int64_t maxKept = 0;
    int64_t minBroken = kNoBudget;
};

LayerCount countLayer(const SegmentModel& m, const Layer& cur, int64_t budget) {
    LayerCount c;
    const int words = m.words();
    for (size_t i = 0; i < cur.size(); ++i) {
        const uint64_t* s = cur.set(i);
        for (int wi = 0; wi < words; ++wi)
            for (uint64_t bits = cur.front(i)[wi]; bits != 0; bits &= bits - 1) {
                const int u = wi * 64 + __builtin_ctzll(bits);
                const int64_t newPeak = std::max(cur.peak[i], cur.mu[i] + m.stepBytes(s, u));
                if (newPeak > budget) {
                    c.minBroken = std::min(c.minBroken, newPeak);
                } else {
                    ++c.kept;
                    c.maxKept = std::max(c.maxKept, newPeak);
                }
            }
    }
    return c;
}

} // namespace

DpResult memoryDp(const ir::MemoryProblem& problem, const Segment& segment, int64_t budget,
                  const DpLimits& limits, SearchControl* control) {
    DpResult result = detail::memoryDp(SegmentModel(problem, segment, limits.breakSymmetry), budget,
                                       limits, control);
    recordDpRun(result.expansions, result.seconds);
    return result;
}

DpResult detail::memoryDp(const SegmentModel& m, int64_t budget, const DpLimits& limits,
                          SearchControl* control) {
    const int n = m.size();
    const int words = m.words();
    const auto w = static_cast<size_t>(words);
    Ticker ticker(control, limits, n);
    DpResult result;

    std::vector<uint64_t> zobrist(static_cast<size_t>(n));
    uint64_t seed = 0x5EEDu;
    for (uint64_t& z : zobrist)
        z = splitmix(seed);

    if (control != nullptr)
        control->knob = WorkKnob::MemoryExpansions;
    Store store;
    store.maxBytes = limits.maxBytes == 0 ? UINT64_MAX : limits.maxBytes;
    Array<uint32_t>& parent = store.parent;
    Array<uint16_t>& lastOp = store.lastOp;
    Layer& cur = store.cur;
    Layer& next = store.next;
    cur.words = next.words = words;
    auto stop = [&](bool memory) {
        result.status = DpStatus::Timeout;
        result.memoryBound = memory;
        result.entries = parent.size();
        result.bytes = store.highWater;
        result.seconds = ticker.seconds();
        return result;
    };
    cur.sets.assign(w, 0);
    cur.fronts.assign(w, 0);
    m.initialFrontier(cur.fronts.data());
    cur.hashes.push_back(0);
    cur.mu.push_back(m.startBytes());
    cur.peak.push_back(m.startBytes());
    cur.id.push_back(0);
    result.entries = 1;
    result.maxKept = m.startBytes();
    result.sameFrom = m.startBytes();
    if (m.startBytes() > budget) {
        result.sameFrom = 0;
        result.sameTo = m.startBytes() - 1;
        result.seconds = ticker.seconds();
        return result; // NoSolution: the live input alone is over the budget
    }

    for (int layer = 0; layer < n; ++layer) {
        // The layer's expansions, counted before it runs; then, where they could, the
        // down-sets the next layer must hold (a layer that ends at the memory bound ends the
        // run before it starts, and so does one past the expansion limit that would).
        const uint64_t expansions = countExpansions(cur);
        const bool overLimit =
            limits.maxExpansions != 0 && result.expansions + expansions > limits.maxExpansions;
        if (overLimit || store.leastBytesWith(leastEntries(expansions, layer)) > store.maxBytes) {
            const LayerCount count = countLayer(m, cur, budget);
            result.sameFrom = std::max(result.sameFrom, count.maxKept);
            result.sameTo = std::min(result.sameTo, count.minBroken - 1);
            const bool memory =
                store.leastBytesWith(leastEntries(count.kept, layer)) > store.maxBytes;
            if (memory && !overLimit) // every budget from the largest kept peak up to τ ends here
                result.maxKept = std::max(result.maxKept, count.maxKept);
            if (overLimit || memory)
                return stop(memory);
            if (count.kept == 0) { // NoSolution: every transition breaks the budget
                result.expansions += expansions;
                result.bytes = store.highWater;
                result.seconds = ticker.seconds();
                return result;
            }
        }
        next.clear();
        if (next.slots.empty())
            next.growTable();
        for (size_t i = 0; i < cur.size(); ++i) {
            if (ticker.tick(layer, result.expansions, store.highWater))
                return stop(false);
            prefetchExpansions(cur, i + kSlotsAhead, next, zobrist, false);
            prefetchExpansions(cur, i + kEntriesAhead, next, zobrist, true);
            const uint64_t* s = cur.set(i);
            const uint64_t* f = cur.front(i);
            const int64_t mu = cur.mu[i];
            const int64_t peak = cur.peak[i];
            for (int wi = 0; wi < words; ++wi)
                for (uint64_t bits = f[wi]; bits != 0; bits &= bits - 1) {
                    const int u = wi * 64 + __builtin_ctzll(bits);
                    ++result.expansions;
                    const int64_t newPeak = std::max(peak, mu + m.stepBytes(s, u));
                    if (newPeak > budget) {
                        result.sameTo = std::min(result.sameTo, newPeak - 1);
                        continue;
                    }
                    result.maxKept = std::max(result.maxKept, newPeak);
                    result.sameFrom = std::max(result.sameFrom, newPeak);
                    const uint64_t h = cur.hashes[i] ^ zobrist[static_cast<size_t>(u)];
                    size_t slot = 0;
                    const size_t found = next.find(h, s, u, slot);
                    if (found != SIZE_MAX) {
                        if (newPeak <= next.peak[found]) { // the paper's ≤: last wins
                            next.peak[found] = newPeak;
                            parent[next.id[found]] = cur.id[i];
                            lastOp[next.id[found]] = static_cast<uint16_t>(u);
                        }
                        continue;
                    }
                    if (!store.makeRoom())
                        return stop(true);
                    const size_t e = next.size();
                    next.slots[slot] = Layer::slotValue(h, e);
                    // Word by word (room is reserved): no library call per entry.
                    for (int k = 0; k < words; ++k) {
                        next.sets.push_back(s[k]);
                        next.fronts.push_back(f[k]);
                    }
                    uint64_t* added = next.sets.data() + e * w;
                    SegmentModel::set(added, u);
                    m.nextFrontier(f, added, u, next.fronts.data() + e * w);
                    next.hashes.push_back(h);
                    next.mu.push_back(m.muAfter(added, u, mu, s));
                    next.peak.push_back(newPeak);
                    next.id.push_back(static_cast<uint32_t>(parent.size()));
                    parent.push_back(cur.id[i]);
                    lastOp.push_back(static_cast<uint16_t>(u));
                    if ((next.size() + 1) * 2 > next.slots.size())
                        next.growTable();
                }
            if (parent.size() > kMaxEntries)
                return stop(false);
        }
        result.entries = parent.size();
        if (next.size() == 0) {
            result.bytes = store.highWater;
            result.seconds = ticker.seconds();
            return result; // NoSolution: every transition broke the budget
        }
        std::swap(cur, next);
    }
    result.status = DpStatus::Solution;
    result.bytes = store.highWater;
    result.peak = n == 0 ? m.startBytes() : cur.peak[0];
    for (uint32_t e = cur.id[0]; e != 0; e = parent[e])
        result.order.push_back(m.op(lastOp[e]));
    std::reverse(result.order.begin(), result.order.end());
    result.seconds = ticker.seconds();
    return result;
}

namespace {

struct BruteSearch {
    const SegmentModel& m;
    std::vector<uint64_t> set, front;
    std::vector<int> order;
    BruteForce best;
    bool found = false;

    void run(int depth, int64_t mu, int64_t peak) {
        const int n = m.size();
        if (depth == n) {
            ++best.orders;
            if (!found || peak < best.peak) {
                found = true;
                best.peak = peak;
                best.order = order;
            }
            return;
        }
        const auto w = static_cast<size_t>(m.words());
        const std::vector<uint64_t> savedFront(front.begin() + static_cast<long>(depth * w),
                                               front.begin() + static_cast<long>((depth + 1) * w));
        for (int u = 0; u < n; ++u) {
            if (!SegmentModel::has(savedFront.data(), u))
                continue;
            const int64_t newPeak = std::max(peak, mu + m.stepBytes(set.data(), u));
            std::vector<uint64_t> prev = set;
            SegmentModel::set(set.data(), u);
            const int64_t newMu = m.muAfter(set.data(), u, mu, prev.data());
            m.nextFrontier(savedFront.data(), set.data(), u, front.data() + (depth + 1) * w);
            order.push_back(m.op(u));
            run(depth + 1, newMu, newPeak);
            order.pop_back();
            set = prev;
        }
    }
};

void checkOracleSize(const SegmentModel& m, int maxOps, const ir::MemoryProblem& problem) {
    if (m.size() > maxOps)
        throw UserError("the exhaustive oracles take at most " + std::to_string(maxOps) +
                            " operators, not " + std::to_string(m.size()),
                        {}, problem.name);
}

// The counting DP over down-sets, layer by layer, along transitions whose sample is within
// `budget`; per down-set the orders reaching it are counted per peak so far.
template <class Visit> void layeredCount(const SegmentModel& m, int64_t budget, Visit&& onFull) {
    const int n = m.size();
    const auto w = static_cast<size_t>(m.words());
    struct Entry {
        std::vector<uint64_t> set, front;
        int64_t mu;
        std::map<int64_t, BigUint> peaks; // peak so far → orders
    };
    std::map<std::vector<uint64_t>, Entry> cur;
    Entry start{std::vector<uint64_t>(w, 0), std::vector<uint64_t>(w, 0), m.startBytes(), {}};
    m.initialFrontier(start.front.data());
    start.peaks[m.startBytes()] = 1;
    cur.emplace(start.set, std::move(start));
    for (int layer = 0; layer < n; ++layer) {
        std::map<std::vector<uint64_t>, Entry> next;
        for (const auto& [key, e] : cur)
            for (int u = 0; u < n; ++u) {
                if (!SegmentModel::has(e.front.data(), u))
                    continue;
                const int64_t sample = e.mu + m.stepBytes(e.set.data(), u);
                if (sample > budget)
                    continue;
                std::vector<uint64_t> s2 = e.set;
                SegmentModel::set(s2.data(), u);
                auto it = next.find(s2);
                if (it == next.end()) {
                    Entry fresh{s2,
                                std::vector<uint64_t>(w),
                                m.muAfter(s2.data(), u, e.mu, e.set.data()),
                                {}};
                    m.nextFrontier(e.front.data(), s2.data(), u, fresh.front.data());
                    it = next.emplace(s2, std::move(fresh)).first;
                }
                for (const auto& [peak, count] : e.peaks)
                    it->second.peaks[std::max(peak, sample)] += count;
            }
        cur = std::move(next);
    }
    for (const auto& [key, e] : cur)
        onFull(e.peaks);
}

} // namespace

BruteForce bruteForceOrder(const ir::MemoryProblem& problem, const Segment& segment) {
    const SegmentModel m(problem, segment);
    checkOracleSize(m, 12, problem);
    const auto w = static_cast<size_t>(m.words());
    BruteSearch search{m,
                       std::vector<uint64_t>(w, 0),
                       std::vector<uint64_t>(w * static_cast<size_t>(m.size() + 1), 0),
                       {},
                       {}};
    m.initialFrontier(search.front.data());
    search.run(0, m.startBytes(), m.startBytes());
    return search.best;
}

BigUint countOrders(const ir::MemoryProblem& problem, const Segment& segment, int64_t budget) {
    const SegmentModel m(problem, segment);
    checkOracleSize(m, 64, problem);
    BigUint total;
    if (m.startBytes() > budget)
        return total;
    layeredCount(m, budget, [&](const std::map<int64_t, BigUint>& peaks) {
        for (const auto& [peak, count] : peaks)
            total += count;
    });
    return total;
}

std::map<int64_t, BigUint> peakDistribution(const ir::MemoryProblem& problem,
                                            const Segment& segment, int maxOps) {
    const SegmentModel m(problem, segment);
    checkOracleSize(m, maxOps, problem);
    std::map<int64_t, BigUint> out;
    layeredCount(m, kNoBudget, [&](const std::map<int64_t, BigUint>& peaks) {
        for (const auto& [peak, count] : peaks)
            out[peak] += count;
    });
    return out;
}

} // namespace ios::schedulers::serenity
