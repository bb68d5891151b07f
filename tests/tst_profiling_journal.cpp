// SPDX-License-Identifier: Apache-2.0
// The stage profiler's journal heals itself (profiling/stage_journal.h, issue 37 item 2): a
// run cut off while writing leaves a fragment of a line; the next run cuts the journal to its
// last complete line before it appends, so a resume after any number of cuts recovers every
// complete measurement and the final cache is the cache of an uncut run (byte for byte but for
// a stage measured again whose mock latency rounds to the next nanosecond, see sameCache).
// Property test on the mock backend: random cut points, repeated cut + resume cycles.
#include "bundled_models.h"
#include "executor.h"
#include "ir/prepared_model.h"
#include "mock_backend.h"
#include "schedulers/scheduler.h"
#include "stage_enumeration.h"
#include "stage_journal.h"
#include "stage_profiler.h"
#include "util/error.h"

#include <QTemporaryDir>
#include <QtTest>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>

using namespace ios;
using namespace ios::profiling;

namespace {

std::string readAll(const std::string& file) {
    std::ifstream in(file, std::ios::binary);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
}

schedulers::Params oneThread() {
    schedulers::Params p; // r 3, s 8
    p.threads = 1;
    return p;
}

struct Profiled {
    ir::Graph graph;
    ir::PreparedModel model;
    StageEnumeration met;
    explicit Profiled(const std::string& name)
        : graph(samples::loadBundledModel(name)), model(graph),
          met(enumerateStages(model, {&schedulers::schedulerByName("ios-both")}, oneThread(), 1)) {}
};

ProfileResult profile(const Profiled& p, const std::string& file, const ProfileOptions& options) {
    MockBackend backend(MockOptions::timingOnly("Mock GPU"));
    Executor ex(p.graph, backend, 1);
    return profileStages(ex, p.graph.name, p.model, p.met.stages, file, options);
}

// The journal's complete entries as lines (what a resume must recover).
std::vector<std::string> completeLines(const std::string& text) {
    std::vector<std::string> out;
    for (size_t at = 0, end; (end = text.find('\n', at)) != std::string::npos; at = end + 1)
        out.push_back(text.substr(at, end - at));
    return out;
}

std::vector<std::string> readBack(const std::string& journal) {
    std::vector<std::string> warnings;
    std::vector<std::string> out;
    for (const cost::StageMeasurement& m : readJournal(journal, warnings)) {
        std::string line = journalLine(m);
        line.pop_back();
        out.push_back(line);
    }
    return out;
}

// The cache of the cut runs against the uncut run's: the same entries in the same order, each
// latency equal to the stored nanosecond. The mock's clocks are absolute within a run, so a
// stage measured again after a cut, at another point of its run, may round to the next
// nanosecond where its latency lies on a half; every other entry, and the text where none
// does, is byte for byte the uncut run's.
void sameCache(const std::string& cut, const std::string& uncut) {
    const cost::MeasurementCache a = cost::MeasurementCache::load(cut);
    const cost::MeasurementCache b = cost::MeasurementCache::load(uncut);
    QCOMPARE(a.entries().size(), b.entries().size());
    size_t rounded = 0;
    for (size_t i = 0; i < a.entries().size(); ++i) {
        const cost::StageMeasurement& x = a.entries()[i];
        const cost::StageMeasurement& y = b.entries()[i];
        QCOMPARE(x.stage, y.stage);
        QCOMPARE(x.device, y.device);
        QCOMPARE(x.samples, y.samples);
        QVERIFY2(std::abs(x.latencyMs - y.latencyMs) <= 1.5e-6, x.stage.c_str());
        rounded += x.latencyMs != y.latencyMs;
    }
    QVERIFY(rounded <= 2);
    if (rounded == 0)
        QCOMPARE(readAll(cut), readAll(uncut));
}

} // namespace

class TestProfilingJournal : public QObject {
    Q_OBJECT

private slots:
    // Each round: measure a few graphs (--max-graphs), then cut the journal at a random byte of
    // what that run appended, as a kill or a full disk does. The complete lines before the cut
    // must all read back after the next run; the last run's cache must equal an uncut run's.
    void randomCutsLoseNoCompleteMeasurement_data() {
        QTest::addColumn<unsigned>("seed");
        QTest::newRow("seed 37") << 37u;
        QTest::newRow("seed 2026") << 2026u;
    }
    void randomCutsLoseNoCompleteMeasurement() {
        QFETCH(unsigned, seed);
        const Profiled p("squeezenet");
        QTemporaryDir dir;
        // One stage per graph: a stage measured again after a cut gets the very latency of the
        // uncut run (in a graph of several, the mock's event differences may round apart).
        ProfileOptions o;
        o.stagesPerGraph = 1;
        const std::string uncut = dir.filePath("uncut.json").toStdString();
        QVERIFY(profile(p, uncut, o).complete);
        const std::string file = dir.filePath("cut.json").toStdString();
        const std::string journal = journalPath(file).string();
        std::mt19937 random(seed);
        size_t cuts = 0, fragments = 0;
        std::vector<std::string> kept; // complete lines the journal held after the last cut
        try { // before the fix a resume failed: "FILE.partial line N: not valid JSON"
            for (int round = 0;; ++round) {
                QVERIFY2(round < 200, "the cut runs never finished");
                ProfileOptions cutRun = o;
                cutRun.maxGraphs = 1 + random() % 30;
                const ProfileResult r = profile(p, file, cutRun);
                if (r.complete)
                    break;
                // Nothing complete was lost: what the last cut kept is where it was, still first.
                const std::vector<std::string> now = readBack(journal);
                QVERIFY(now.size() >= kept.size());
                QVERIFY(std::equal(kept.begin(), kept.end(), now.begin()));
                // Cut within what this run appended (after the complete lines kept before it).
                const std::string text = readAll(journal);
                size_t from = 0;
                for (const std::string& line : kept)
                    from += line.size() + 1;
                QVERIFY(text.size() > from);
                const size_t at = from + random() % (text.size() - from);
                std::filesystem::resize_file(journal, at);
                ++cuts;
                fragments += at > 0 && text[at - 1] != '\n';
                kept = completeLines(text.substr(0, at));
                QCOMPARE(readBack(journal), kept); // a fragment is ignored, everything before kept
            }
        } catch (const UserError& e) {
            QFAIL(e.what());
        }
        QVERIFY(cuts >= 3);
        QVERIFY(fragments >= 2); // cuts inside a line happened, more than once
        QVERIFY(!std::filesystem::exists(journal));
        sameCache(file, uncut);
    }

    // The writer alone: whatever follows the last newline goes before the first append.
    void theWriterCutsAFragmentBeforeAppending_data() {
        QTest::addColumn<QByteArray>("before");
        QTest::addColumn<QByteArray>("kept");
        QTest::newRow("no file") << QByteArray() << QByteArray();
        QTest::newRow("fragment only") << QByteArray("{\"dev") << QByteArray();
        QTest::newRow("line and fragment") << QByteArray("L1\n{\"dev") << QByteArray("L1\n");
        QTest::newRow("complete") << QByteArray("L1\nL2\n") << QByteArray("L1\nL2\n");
        QByteArray big(200000, 'x'); // a fragment longer than one read of the scan
        QTest::newRow("long fragment") << QByteArray("L1\n") + big << QByteArray("L1\n");
    }
    void theWriterCutsAFragmentBeforeAppending() {
        QFETCH(QByteArray, before);
        QFETCH(QByteArray, kept);
        QTemporaryDir dir;
        const std::string journal = dir.filePath("c.json.partial").toStdString();
        if (!before.isEmpty())
            std::ofstream(journal, std::ios::binary) << before.toStdString();
        const cost::StageMeasurement m{"Mock GPU", "m", 1, "parallel:a", 0.5, 3, {}};
        JournalWriter writer(journal);
        writer.append({m});
        writer.close();
        QCOMPARE(readAll(journal), kept.toStdString() + journalLine(m));
    }
};

QTEST_GUILESS_MAIN(TestProfilingJournal)
#include "tst_profiling_journal.moc"
