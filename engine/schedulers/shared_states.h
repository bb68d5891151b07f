// SPDX-License-Identifier: Apache-2.0
// The DP states of one part, filled by the part's search and by threads that help it
// (dp_part.h, PartSearch; docs/performance.md "A part on two threads"). Fixed capacity, open
// addressing, no locks: a thread claims a state before it solves it and publishes its value
// after; another thread that needs the state meanwhile finds it busy. A state's value depends
// on its sub-states' values alone, so who solves it does not change it.
#pragma once

#include "schedulers/bits.h"

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>

namespace ios::schedulers::detail {

template <class V, class Key> class SharedStates {
public:
    enum class Found { Claimed, Busy, Done };
    struct Slot {
        // 0 free, kWriting while its claimer writes the key, kBusy while it solves the state,
        // kDone once the value is published, kAbandoned when its claimer gave it up (a helper
        // that stopped): the next thread that needs it claims it again.
        std::atomic<uint32_t> status{0};
        Key key = 0;
        V value{};
    };
    struct Ref {
        Found found;
        Slot* slot;
    };

    // Room for n states (the part's down-sets, counted before the search).
    explicit SharedStates(size_t n) {
        size_t capacity = 1024;
        while (capacity < 2 * n + 2)
            capacity *= 2;
        slots_ = std::make_unique<Slot[]>(capacity);
        mask_ = capacity - 1;
    }

    // The state `key` (non-zero), claimed for the calling thread when nobody has it.
    Ref claim(Key key) {
        for (size_t i = slotOf(key);; i = (i + 1) & mask_) {
            Slot& s = slots_[i];
            uint32_t status = s.status.load(std::memory_order_acquire);
            if (status == 0) {
                if (s.status.compare_exchange_strong(status, kWriting, std::memory_order_acquire)) {
                    s.key = key;
                    s.status.store(kBusy, std::memory_order_release);
                    size_.fetch_add(1, std::memory_order_relaxed);
                    return {Found::Claimed, &s};
                }
            }
            while (status == kWriting)
                status = s.status.load(std::memory_order_acquire);
            if (s.key == key)
                return settle(s, status);
        }
    }
    // Done, or claimed again when it was abandoned; else busy.
    Ref recheck(Slot& s) { return settle(s, s.status.load(std::memory_order_acquire)); }
    static void publish(Slot& s, const V& value) {
        s.value = value;
        s.status.store(kDone, std::memory_order_release);
    }
    static void abandon(Slot& s) { s.status.store(kAbandoned, std::memory_order_release); }
    size_t size() const { return size_.load(std::memory_order_relaxed); }

private:
    static constexpr uint32_t kWriting = 1, kBusy = 2, kDone = 3, kAbandoned = 4;

    static Ref settle(Slot& s, uint32_t status) {
        if (status == kDone)
            return {Found::Done, &s};
        if (status == kAbandoned &&
            s.status.compare_exchange_strong(status, kBusy, std::memory_order_acquire))
            return {Found::Claimed, &s};
        return {status == kDone ? Found::Done : Found::Busy, &s};
    }
    size_t slotOf(Key key) const { return static_cast<size_t>(setHash(key)) & mask_; }

    std::unique_ptr<Slot[]> slots_;
    size_t mask_ = 0;
    std::atomic<size_t> size_{0};
};

} // namespace ios::schedulers::detail
