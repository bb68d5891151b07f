// SPDX-License-Identifier: Apache-2.0
// The DP's counts and optimum against a plain brute force (docs/algorithms.md §2-§3): every
// subset is tested for being a down-set, every subset of a state for being a candidate stage,
// all by direct checks on the generator's edge lists, never through the DP's code.
#include "eval/evaluate.h"
#include "ios_dp_brute.h"
#include "schedule/verify.h"
#include "schedulers/ios_dp.h"

#include <QTest>

using namespace ios;
using testing::Brute;
using testing::Config;
using testing::Endings;
using testing::Pair;
using testing::Strategy;

namespace {

struct Counts {
    uint64_t states = 0, transitions = 0;
    UInt128 schedules = 0;
    int width = 0;
};

} // namespace

class TestIosDpBruteForce : public QObject {
    Q_OBJECT

private slots:
    void countsMatchBruteForce() {
        std::mt19937 rng(20210405);
        const std::vector<Config> configs = testing::allConfigs();
        int dags = 0;
        for (; dags < 220; ++dags) {
            const int n = 1 + dags % 12;
            const testing::RandomDag d = testing::randomDag(rng, n);
            Brute b(d);
            const uint32_t full = (1u << n) - 1;
            std::vector<Counts> counts(configs.size());
            std::vector<std::vector<UInt128>> sched(configs.size(),
                                                    std::vector<UInt128>(full + 1, 0));
            for (auto& v : sched)
                v[0] = 1;
            // States in increasing order: every S \ E is numerically smaller than S.
            for (uint32_t s = 1; s <= full; ++s) {
                if (!b.isDownSet(s))
                    continue;
                for (auto& c : counts)
                    ++c.states;
                for (uint32_t e = s; e != 0; e = (e - 1) & s) {
                    const Pair p = b.analyse(s, e);
                    for (size_t ci = 0; ci < configs.size(); ++ci) {
                        auto [par, mer] = Brute::allowed(configs[ci], p);
                        const int k = (par ? 1 : 0) + (mer ? 1 : 0);
                        counts[ci].transitions += k;
                        sched[ci][s] += sched[ci][s & ~e] * static_cast<unsigned>(k);
                        if (par)
                            counts[ci].width = std::max(counts[ci].width, p.components);
                    }
                }
            }
            for (size_t ci = 0; ci < configs.size(); ++ci) {
                const Config& c = configs[ci];
                schedulers::Options o;
                o.strategy = c.strategy;
                o.endings = c.endings;
                o.r = c.r;
                o.s = c.s;
                const testing::RandomStageCost cost(ci);
                const schedulers::Result res =
                    schedulers::optimize(ir::PreparedModel(d.graph), o, cost);
                const QString what =
                    QString("dag %1 (n %2) %3 %4 r%5 s%6")
                        .arg(dags)
                        .arg(n)
                        .arg(QString::fromUtf8(schedulers::toString(c.strategy).data()))
                        .arg(QString::fromUtf8(schedulers::toString(c.endings).data()))
                        .arg(c.r)
                        .arg(c.s);
                QVERIFY2(res.stats.states == counts[ci].states, qPrintable(what));
                QVERIFY2(res.stats.transitions == counts[ci].transitions, qPrintable(what));
                QVERIFY2(res.stats.schedules == BigUint::fromU128(sched[ci][full]),
                         qPrintable(what));
                QVERIFY2(res.stats.parts.at(0).width == counts[ci].width, qPrintable(what));
            }
        }
        QVERIFY(dags >= 200);
    }

    // The DP's optimum equals the minimum over every schedule, each enumerated explicitly.
    void optimumMatchesBruteForce() {
        std::mt19937 rng(7);
        const Config configs[] = {{Strategy::Both, Endings::Reference, 3, 8},
                                  {Strategy::Parallel, Endings::Reference, 100, 100},
                                  {Strategy::Merge, Endings::Reference, 3, 8},
                                  {Strategy::Both, Endings::All, 2, 2}};
        int compared = 0;
        for (int i = 0; i < 150; ++i) {
            const int n = 1 + i % 10;
            const testing::RandomDag d = testing::randomDag(rng, n);
            Brute b(d);
            for (const Config& c : configs) {
                const testing::RandomStageCost cost(1000 + i);
                // best(S) by plain recursion over all candidate stages: every schedule is one
                // root-to-empty path, and no result is reused.
                uint64_t paths = 0;
                std::function<double(uint32_t)> best = [&](uint32_t s) -> double {
                    if (s == 0) {
                        ++paths;
                        return 0;
                    }
                    double m = std::numeric_limits<double>::infinity();
                    for (uint32_t e = s; e != 0; e = (e - 1) & s) {
                        auto [par, mer] = Brute::allowed(c, b.analyse(s, e));
                        if (par)
                            m = std::min(m, cost.latency(e, false) + best(s & ~e));
                        if (mer)
                            m = std::min(m, cost.latency(e, true) + best(s & ~e));
                    }
                    return m;
                };
                schedulers::Options o;
                o.strategy = c.strategy;
                o.endings = c.endings;
                o.r = c.r;
                o.s = c.s;
                const schedulers::Result res =
                    schedulers::optimize(ir::PreparedModel(d.graph), o, cost);
                if (res.stats.schedules > BigUint(20000))
                    continue; // too many schedules to walk one by one in a unit test
                const double expected = best((1u << n) - 1);
                QCOMPARE(res.latencyMs, expected);
                const auto dags = ir::buildDags(d.graph);
                schedule::verify(dags, res.schedule);
                QCOMPARE(eval::totalLatencyMs(dags, res.schedule, cost), expected);
                QCOMPARE(BigUint(paths), res.stats.schedules);
                ++compared;
            }
        }
        QVERIFY2(compared >= 300, qPrintable(QString::number(compared)));
    }
};

QTEST_GUILESS_MAIN(TestIosDpBruteForce)
#include "tst_ios_dp_bruteforce.moc"
