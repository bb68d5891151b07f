// SPDX-License-Identifier: Apache-2.0
// util::HugePageAllocator (the memory DP's arrays): vectors keep their contents across growth
// from small blocks to huge-page blocks and back, large blocks are 2 MiB-aligned, and sizes
// that cannot be allocated are refused with std::bad_array_new_length.
#include "util/huge_page_allocator.h"

#include <QTest>
#include <cstdint>
#include <new>
#include <vector>

using namespace ios;

class TestHugePageAllocator : public QObject {
    Q_OBJECT

private slots:
    void contentsSurviveGrowth() {
        std::vector<uint64_t, util::HugePageAllocator<uint64_t>> v;
        const size_t n = 3 * util::HugePageAllocator<uint64_t>::kHugePage / sizeof(uint64_t);
        for (size_t i = 0; i < n; ++i) // through every size class, small to several pages
            v.push_back(i * 0x9E3779B97F4A7C15ull);
        for (size_t i = 0; i < n; ++i)
            QCOMPARE(v[i], i * 0x9E3779B97F4A7C15ull);
        v.resize(10);
        v.shrink_to_fit(); // back to a small block
        QCOMPARE(v.size(), size_t{10});
        QCOMPARE(v[9], 9 * 0x9E3779B97F4A7C15ull);
    }

    void largeBlocksAreAligned() {
        util::HugePageAllocator<uint32_t> a;
        const size_t n = util::HugePageAllocator<uint32_t>::kHugePage / sizeof(uint32_t) + 7;
        uint32_t* p = a.allocate(n);
        QCOMPARE(reinterpret_cast<uintptr_t>(p) % util::HugePageAllocator<uint32_t>::kHugePage,
                 uintptr_t{0});
        p[0] = 1;
        p[n - 1] = 2; // the whole block is usable
        QCOMPARE(p[0] + p[n - 1], 3u);
        a.deallocate(p, n);
        uint32_t* small = a.allocate(3);
        small[2] = 5;
        QCOMPARE(small[2], 5u);
        a.deallocate(small, 3);
    }

    void impossibleSizesThrow() {
        util::HugePageAllocator<uint64_t> a;
        QVERIFY_THROWS_EXCEPTION(std::bad_array_new_length,
                                 (void)a.allocate(static_cast<size_t>(-1) / 4));
    }

    void allocatorsCompareEqual() {
        util::HugePageAllocator<int> a;
        util::HugePageAllocator<double> b(a);
        QVERIFY(a == b);
    }
};

QTEST_GUILESS_MAIN(TestHugePageAllocator)
#include "tst_huge_page_allocator.moc"
