// SPDX-License-Identifier: Apache-2.0
// Shared by the search tests that run one search two ways (thread counts, memo on or off,
// the bound on or off): the same schedule, the same latency to the bit, the same counts.
#pragma once

#include "schedulers/ios_dp.h"

#include <QTest>
#include <cstring>

namespace ios::testing {

inline bool sameBits(double a, double b) {
    return std::memcmp(&a, &b, sizeof a) == 0;
}

inline void compareSearchResults(const schedulers::Result& a, const schedulers::Result& b) {
    QVERIFY(sameBits(a.latencyMs, b.latencyMs));
    QCOMPARE(a.stats.states, b.stats.states);
    QCOMPARE(a.stats.transitions, b.stats.transitions);
    QCOMPARE(a.stats.schedules.toString(), b.stats.schedules.toString());
    QCOMPARE(a.stats.parts.size(), b.stats.parts.size());
    for (size_t i = 0; i < a.stats.parts.size(); ++i) {
        QCOMPARE(a.stats.parts[i].block, b.stats.parts[i].block);
        QCOMPARE(a.stats.parts[i].part, b.stats.parts[i].part);
        QCOMPARE(a.stats.parts[i].transitions, b.stats.parts[i].transitions);
        QCOMPARE(a.stats.parts[i].width, b.stats.parts[i].width);
    }
    QCOMPARE(a.schedule.blocks.size(), b.schedule.blocks.size());
    for (size_t i = 0; i < a.schedule.blocks.size(); ++i) {
        const auto& x = a.schedule.blocks[i].stages;
        const auto& y = b.schedule.blocks[i].stages;
        QCOMPARE(x.size(), y.size());
        for (size_t k = 0; k < x.size(); ++k) {
            QCOMPARE(x[k].kind, y[k].kind);
            QCOMPARE(x[k].groups, y[k].groups);
        }
    }
}

} // namespace ios::testing
