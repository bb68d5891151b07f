// SPDX-License-Identifier: Apache-2.0
// An allocator for the large arrays of the memory DP (schedulers/serenity/memory_dp.cpp):
// blocks of at least 2 MiB are 2 MiB-aligned and, on Linux, advised as transparent huge pages
// (madvise MADV_HUGEPAGE; a hint the kernel may ignore). The DP touches hundreds of MiB of fresh
// memory, one 4 KiB page fault at a time otherwise (docs/performance.md "Serenity's memory DP").
// Smaller blocks, and other systems, use plain operator new.
#pragma once

#include <cstddef>
#include <cstdlib>
#include <new>

#if defined(__linux__)
#include <sys/mman.h>
#endif

namespace ios::util {

template <class T> class HugePageAllocator {
public:
    using value_type = T;
    static constexpr std::size_t kHugePage = std::size_t{2} << 20;

    HugePageAllocator() = default;
    template <class U> HugePageAllocator(const HugePageAllocator<U>&) noexcept {}

    T* allocate(std::size_t n) {
        if (n > static_cast<std::size_t>(-1) / sizeof(T))
            throw std::bad_array_new_length();
        const std::size_t bytes = n * sizeof(T);
        if (bytes < kHugePage)
            return static_cast<T*>(::operator new(bytes));
        const std::size_t rounded = (bytes + kHugePage - 1) / kHugePage * kHugePage;
        void* p = std::aligned_alloc(kHugePage, rounded);
        if (p == nullptr)
            throw std::bad_alloc();
#if defined(__linux__) && defined(MADV_HUGEPAGE)
        madvise(p, rounded, MADV_HUGEPAGE);
#endif
        return static_cast<T*>(p);
    }
    void deallocate(T* p, std::size_t n) noexcept {
        if (n * sizeof(T) < kHugePage)
            ::operator delete(p);
        else
            std::free(p);
    }

    template <class U> bool operator==(const HugePageAllocator<U>&) const noexcept {
        return true;
    }
};

} // namespace ios::util
