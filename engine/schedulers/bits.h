// SPDX-License-Identifier: Apache-2.0
// 128-bit operator sets for the DP (docs/algorithms.md §1: parts ≤ 128 operators) and an
// open-addressing hash map keyed by them.
#pragma once

#include "util/big_uint.h"

#include <cstdint>
#include <vector>

namespace ios::schedulers::detail {

using Bits = UInt128;
inline constexpr int kMaxPartOperators = 128;

inline Bits bit(int i) {
    return Bits{1} << i;
}
// Without -mpopcnt (the portable build) __builtin_popcountll is a call into libgcc's table
// loop; the DP counts closures for every state, so the bit-parallel sum is inlined instead.
inline int popcount64(uint64_t x) {
#ifdef __POPCNT__
    return __builtin_popcountll(x);
#else
    x -= (x >> 1) & 0x5555555555555555ull;
    x = (x & 0x3333333333333333ull) + ((x >> 2) & 0x3333333333333333ull);
    x = (x + (x >> 4)) & 0x0F0F0F0F0F0F0F0Full;
    return static_cast<int>((x * 0x0101010101010101ull) >> 56);
#endif
}
inline int popcount(Bits b) {
    return popcount64(static_cast<uint64_t>(b)) + popcount64(static_cast<uint64_t>(b >> 64));
}
inline int popcount(uint64_t b) {
    return popcount64(b);
}
inline int lowestBit(Bits b) {
    const auto lo = static_cast<uint64_t>(b);
    return lo != 0 ? __builtin_ctzll(lo) : 64 + __builtin_ctzll(static_cast<uint64_t>(b >> 64));
}
inline int lowestBit(uint64_t b) {
    return __builtin_ctzll(b);
}
// Calls f(i) for every set bit i, lowest first.
template <class F> inline void forEachBit(uint64_t b, F&& f) {
    for (; b != 0; b &= b - 1)
        f(__builtin_ctzll(b));
}
template <class F> inline void forEachBit(Bits b, F&& f) {
    for (auto w = static_cast<uint64_t>(b); w != 0; w &= w - 1)
        f(__builtin_ctzll(w));
    for (auto w = static_cast<uint64_t>(b >> 64); w != 0; w &= w - 1)
        f(64 + __builtin_ctzll(w));
}

// The hash of an operator set that the DP's tables (BitsMap, SharedStates) probe from.
template <class Key> inline uint64_t setHash(Key key) {
    const auto lo = static_cast<uint64_t>(key);
    uint64_t hi = 0;
    if constexpr (sizeof(Key) > sizeof(uint64_t))
        hi = static_cast<uint64_t>(key >> 64);
    uint64_t h = lo * 0x9E3779B97F4A7C15ull ^ (hi + 0x632BE59BD9B4E019ull) * 0xC2B2AE3D27D4EB4Full;
    return h ^ (h >> 31);
}

// Open addressing with linear probing; key 0 (the empty set) marks a free slot, so it must
// never be inserted. Values are returned by pointer and stay valid until the next insert.
// Key: Bits, or uint64_t for sets of at most 64 operators.
template <class V, class Key = Bits> class BitsMap {
public:
    BitsMap() { reset(1024); }
    ~BitsMap() { // keep the largest table for this thread's next map (no fresh pages)
        std::vector<Slot>& spare = spareSlots();
        if (slots_.capacity() > spare.capacity())
            spare = std::move(slots_);
    }
    BitsMap(const BitsMap&) = delete;
    BitsMap& operator=(const BitsMap&) = delete;

    V* find(Key key) {
        for (size_t i = slotOf(key);; i = (i + 1) & mask_) {
            if (slots_[i].key == key)
                return &slots_[i].value;
            if (slots_[i].key == 0)
                return nullptr;
        }
    }
    // Room for n keys without growing (the DP knows its state count before it starts).
    void reserve(size_t n) {
        size_t capacity = slots_.size();
        while (capacity < 2 * n + 2)
            capacity *= 2;
        if (capacity != slots_.size() && size_ == 0)
            reset(capacity);
    }
    // Inlined: the DP inserts once per state, and the call costs as much as the insert.
    [[gnu::always_inline]] V& insert(Key key, const V& value) { // key absent and non-zero
        if ((size_ + 1) * 2 > slots_.size())
            grow();
        size_t i = slotOf(key);
        while (slots_[i].key != 0)
            i = (i + 1) & mask_;
        slots_[i] = {key, value};
        ++size_;
        return slots_[i].value;
    }
    size_t size() const { return size_; }

private:
    size_t slotOf(Key key) const { return static_cast<size_t>(setHash(key)) & mask_; }
    void reset(size_t capacity) {
        std::vector<Slot>& spare = spareSlots();
        if (slots_.capacity() < capacity && spare.capacity() >= capacity)
            slots_.swap(spare);
        slots_.assign(capacity, Slot{});
        mask_ = capacity - 1;
        size_ = 0;
    }
    void grow() {
        std::vector<Slot> old = std::move(slots_);
        reset(old.size() * 2);
        for (const Slot& slot : old)
            if (slot.key != 0)
                insert(slot.key, slot.value);
    }

    struct Slot { // key and value side by side: one cache miss per probe
        Key key = 0;
        V value{};
    };
    static std::vector<Slot>& spareSlots() {
        thread_local std::vector<Slot> spare;
        return spare;
    }
    std::vector<Slot> slots_;
    size_t mask_ = 0;
    size_t size_ = 0;
};

} // namespace ios::schedulers::detail
