// The DP's counts and optimum against a plain brute force (docs/algorithms.md §2-§3): every
// subset is tested for being a down-set, every subset of a state for being a candidate stage,
// all by direct checks on the generator's edge lists, never through the DP's code.
#include "dp_test_support.h"
#include "eval/evaluate.h"
#include "schedule/verify.h"
#include "schedulers/ios_dp.h"

#include <QTest>

using namespace ios;
using schedulers::Endings;
using schedulers::Strategy;

namespace {

struct Config {
    Strategy strategy;
    Endings endings;
    int r, s;
};

std::vector<Config> allConfigs() {
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
    Brute(const testing::RandomDag& d) : d_(d), n_(static_cast<int>(d.preds.size())) {
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
        const std::vector<Config> configs = allConfigs();
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
