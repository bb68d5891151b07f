// SPDX-License-Identifier: Apache-2.0
// The per-part index of a recorded DP state space (what the state-space view draws): every
// state and transition lands in its part, layers and ranks are consistent, the bands count
// every in-part transition, the optimal path is the DP's chosen schedule.
#include "bundled_models.h"
#include "cost/analytic_cost_model.h"
#include "schedulers/ios_dp.h"
#include "schedulers/state_space_index.h"

#include <QTest>
#include <numeric>
#include <set>

using namespace ios;

namespace {

std::shared_ptr<const schedulers::StateSpace> record(const char* model, uint64_t limit) {
    const ir::Graph g = samples::loadBundledModel(model);
    const cost::AnalyticCostModel cost(g);
    schedulers::Options o;
    o.recordStateSpace = true;
    o.maxRecordedTransitions = limit;
    auto result = schedulers::optimize(ir::PreparedModel(g), o, cost);
    return std::make_shared<const schedulers::StateSpace>(std::move(*result.stateSpace));
}

} // namespace

class TestStateSpaceIndex : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void layer_data() {
        QTest::addColumn<quint64>("low");
        QTest::addColumn<quint64>("high");
        QTest::addColumn<int>("partSize");
        QTest::addColumn<int>("layer");
        QTest::newRow("start: nothing scheduled") << quint64(0b1111) << quint64(0) << 4 << 0;
        QTest::newRow("end: all scheduled") << quint64(0) << quint64(0) << 4 << 4;
        QTest::newRow("two left") << quint64(0b1010) << quint64(0) << 4 << 2;
        QTest::newRow("second word counts") << ~quint64(0) << quint64(0b111) << 70 << 3;
    }
    void layer() {
        QFETCH(quint64, low);
        QFETCH(quint64, high);
        QFETCH(int, partSize);
        QFETCH(int, layer);
        schedulers::StateSpace::State st;
        st.remaining = {low, high};
        QCOMPARE(schedulers::stateLayer(st, partSize), layer);
    }

    void indexesEveryPart_data() {
        QTest::addColumn<QString>("model");
        QTest::addColumn<quint64>("limit");
        QTest::newRow("squeezenet") << QStringLiteral("squeezenet") << quint64(2'000'000);
        QTest::newRow("inception_v3") << QStringLiteral("inception_v3") << quint64(2'000'000);
        QTest::newRow("inception_v3 truncated") << QStringLiteral("inception_v3") << quint64(500);
    }
    void indexesEveryPart() {
        QFETCH(QString, model);
        QFETCH(quint64, limit);
        const auto space = record(model.toUtf8().constData(), limit);
        const auto index = schedulers::indexStateSpace(space);
        QCOMPARE(index->space, space);
        size_t parts = 0;
        for (const auto& block : space->partOps)
            parts += block.size();
        QCOMPARE(index->parts.size(), parts);

        size_t states = 0, transitions = 0, path = 0, busiest = 0;
        for (const schedulers::PartStateSpace& p : index->parts) {
            QCOMPARE(index->find(p.block, p.part), static_cast<int>(&p - index->parts.data()));
            states += p.states.size();
            transitions += p.transitions.size();
            path += p.path.size();
            busiest = std::max(busiest, p.transitions.size());
            QCOMPARE(p.layerSize.size(), static_cast<size_t>(p.partSize) + 1);
            QCOMPARE(
                static_cast<size_t>(std::accumulate(p.layerSize.begin(), p.layerSize.end(), 0)),
                p.states.size());
            std::set<std::pair<int, int>> positions; // (layer, rank) is a unique position
            for (size_t i = 0; i < p.states.size(); ++i) {
                const auto& st = space->states[p.states[i]];
                QCOMPARE(st.block, p.block);
                QCOMPARE(st.part, p.part);
                QCOMPARE(p.layer[i], schedulers::stateLayer(st, p.partSize));
                QVERIFY(p.rank[i] < p.layerSize[static_cast<size_t>(p.layer[i])]);
                QVERIFY(positions.insert({p.layer[i], p.rank[i]}).second);
                QVERIFY(st.costMs <= p.maxCostMs);
            }
            uint64_t inPart = 0;
            for (size_t k = 0; k < p.transitions.size(); ++k) {
                const auto& tr = space->transitions[p.transitions[k]];
                QCOMPARE(p.states[static_cast<size_t>(p.from[k])], tr.from);
                if (p.to[k] < 0)
                    continue;
                ++inPart;
                QCOMPARE(p.states[static_cast<size_t>(p.to[k])], tr.to);
                // A stage schedules at least one operator: edges go to a later layer.
                QVERIFY(p.layer[static_cast<size_t>(p.to[k])] >
                        p.layer[static_cast<size_t>(p.from[k])]);
            }
            uint64_t banded = 0;
            for (const auto& band : p.bands) {
                QVERIFY(band.toLayer > band.fromLayer);
                banded += band.count;
            }
            QCOMPARE(banded, inPart);
        }
        QCOMPARE(states, space->states.size());
        QCOMPARE(transitions, space->transitions.size());
        QCOMPARE(index->parts[index->busiest].transitions.size(), busiest);
        if (!space->truncated) {
            QCOMPARE(path, space->chosen.size());
            // The path of each part walks from layer 0 to the last layer.
            for (const schedulers::PartStateSpace& p : index->parts) {
                int at = 0;
                for (uint32_t k : p.path) {
                    QCOMPARE(p.layer[static_cast<size_t>(p.from[k])], at);
                    at = p.layer[static_cast<size_t>(p.to[k])];
                }
                QCOMPARE(at, p.partSize);
            }
        }
        QCOMPARE(index->find(-1, 0), -1);
        QCOMPARE(index->find(0, 1000), -1);
    }

    void emptyAndMissing() {
        QVERIFY(schedulers::indexStateSpace(nullptr)->parts.empty());
        auto space = std::make_shared<schedulers::StateSpace>();
        space->partOps = {{{0, 1}}};
        space->states.push_back({0, 0, {0b11, 0}, 2.0});
        space->states.push_back({3, 7, {0b01, 0}, 1.0}); // a part that was not recorded
        space->transitions.push_back({0, 1, schedule::StageKind::Parallel, 1.0});
        space->transitions.push_back({1, 0, schedule::StageKind::Parallel, 1.0});
        space->transitions.push_back({0, 99, schedule::StageKind::Parallel, 1.0});
        space->chosen = {0, 42};
        const auto index = schedulers::indexStateSpace(space);
        QCOMPARE(index->parts.size(), size_t{1});
        const auto& p = index->parts.front();
        QCOMPARE(p.states.size(), size_t{1});
        QCOMPARE(p.transitions.size(), size_t{2}); // the two leaving state 0
        QCOMPARE(p.to[0], -1);
        QCOMPARE(p.to[1], -1);
        QCOMPARE(p.path.size(), size_t{1});
        QVERIFY(p.bands.empty());
    }
};

QTEST_MAIN(TestStateSpaceIndex)
#include "tst_state_space_index.moc"
