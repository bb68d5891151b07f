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
inline int popcount(Bits b) {
    return __builtin_popcountll(static_cast<uint64_t>(b)) +
           __builtin_popcountll(static_cast<uint64_t>(b >> 64));
}
inline int lowestBit(Bits b) {
    const auto lo = static_cast<uint64_t>(b);
    return lo != 0 ? __builtin_ctzll(lo) : 64 + __builtin_ctzll(static_cast<uint64_t>(b >> 64));
}
// Calls f(i) for every set bit i, lowest first.
template <class F> inline void forEachBit(Bits b, F&& f) {
    for (auto w = static_cast<uint64_t>(b); w != 0; w &= w - 1)
        f(__builtin_ctzll(w));
    for (auto w = static_cast<uint64_t>(b >> 64); w != 0; w &= w - 1)
        f(64 + __builtin_ctzll(w));
}

// Open addressing with linear probing; key 0 (the empty set) marks a free slot, so it must
// never be inserted. Values are returned by pointer and stay valid until the next insert.
template <class V> class BitsMap {
public:
    BitsMap() { reset(1024); }
    ~BitsMap() { // keep the largest table for this thread's next map (no fresh pages)
        std::vector<Slot>& spare = spareSlots();
        if (slots_.capacity() > spare.capacity())
            spare = std::move(slots_);
    }
    BitsMap(const BitsMap&) = delete;
    BitsMap& operator=(const BitsMap&) = delete;

    V* find(Bits key) {
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
    V& insert(Bits key, const V& value) { // key must be absent and non-zero
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
    size_t slotOf(Bits key) const {
        const auto lo = static_cast<uint64_t>(key);
        const auto hi = static_cast<uint64_t>(key >> 64);
        uint64_t h =
            lo * 0x9E3779B97F4A7C15ull ^ (hi + 0x632BE59BD9B4E019ull) * 0xC2B2AE3D27D4EB4Full;
        h ^= h >> 31;
        return static_cast<size_t>(h) & mask_;
    }
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
        Bits key = 0;
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
