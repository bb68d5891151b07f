// SPDX-License-Identifier: Apache-2.0
// The measurement store's conformance suite (engine/store/measurement_store.h), run against
// every backend URL it is given: a fresh SQLite file always, and $IOS_TEST_POSTGRES_URL when
// set (a throw-away PostgreSQL server started by the CTest fixture). Each test empties the
// store first (prune with no filter), so the suite is the same for a shared server. Then the
// SQLite backend's refusals of hostile files.
#include "cost/stage_signature.h"
#include "store/measurement_store.h"
#include "store/sqlite_store.h"
#include "user_error_text.h"

#include <QTemporaryDir>
#include <QTest>
#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <sqlite3.h>
#include <tuple>

using namespace ios;
using ios::testing::userErrorOf;

namespace {

std::string signatureOf(std::vector<std::vector<std::string>> groups,
                        schedule::StageKind kind = schedule::StageKind::Parallel) {
    cost::StageSignature s;
    s.kind = kind;
    s.groups = std::move(groups);
    return cost::signatureBytes(s);
}

cost::DeviceIdentity deviceNamed(const std::string& name, int sms = 132) {
    cost::DeviceIdentity d;
    d.name = name;
    d.computeCapability = "9.0";
    d.smCount = sms;
    d.smClockMHz = 1980;
    d.memoryClockMHz = 2619;
    d.memoryBytes = int64_t{80} << 30;
    d.driver = "580.65.06";
    d.cuda = "13.0";
    d.cudnn = "9.10.2";
    return d;
}

store::Measurement measurement(const std::string& signature, const cost::DeviceIdentity& device,
                               double median, int batch = 1, int64_t at = 1000) {
    store::Measurement m;
    m.key.signature = signature;
    m.key.device = device;
    m.key.batch = batch;
    m.sample.medianMs = median;
    m.sample.spreadMs = median / 10;
    m.sample.count = 20;
    m.sample.toolVersion = "0.1.0";
    m.sample.measuredAt = at;
    return m;
}

store::Setup setupOf(const cost::DeviceIdentity& device, int batch = 1) {
    return store::Setup{device, batch, "fp32"};
}

auto orderKey(const store::Measurement& m) {
    return std::make_tuple(cost::canonicalText(m.key.device), m.key.batch, m.key.dtype,
                           m.key.signature, m.sample.medianMs, m.sample.spreadMs, m.sample.count);
}

} // namespace

class TestMeasurementStore : public QObject {
    Q_OBJECT

    QTemporaryDir dir_;
    int files_ = 0;
    const std::string a_ = signatureOf({{"conv3x3"}, {"relu", "pool"}});
    const std::string b_ = signatureOf({{"conv3x3", "relu"}});
    const std::string c_ = signatureOf({{"conv1x1", "conv3x3"}}, schedule::StageKind::Merge);
    const cost::DeviceIdentity h100_ = deviceNamed("NVIDIA H100 80GB HBM3");
    const cost::DeviceIdentity h100Small_ = deviceNamed("NVIDIA H100 80GB HBM3", 114);

    // A URL of the backend under test, emptied.
    std::string freshUrl() {
        QFETCH(QString, backend);
        std::string url = backend.toStdString();
        if (url == "sqlite")
            url = "sqlite:" + dir_.filePath(QString("s%1.db").arg(files_++)).toStdString();
        auto s = store::openStore(url, store::OpenMode::CreateIfMissing);
        s->prune(std::nullopt, std::nullopt);
        return url;
    }

    static void backends() {
        QTest::addColumn<QString>("backend");
        QTest::newRow("sqlite") << QString("sqlite");
        if (const char* pg = std::getenv("IOS_TEST_POSTGRES_URL"); pg && *pg)
            QTest::newRow("postgresql") << QString(pg);
    }

private slots:
    void addIsIdempotent_data() { backends(); }
    void addIsIdempotent() {
        auto s = store::openStore(freshUrl(), store::OpenMode::ReadWrite);
        const std::vector<store::Measurement> ms = {
            measurement(a_, h100_, 1.5), measurement(b_, h100_, 0.5), measurement(c_, h100_, 0.25)};
        QCOMPARE(s->add(ms), int64_t{3});
        QCOMPARE(s->add(ms), int64_t{0});                            // a re-run changes nothing
        QCOMPARE(s->add({measurement(a_, h100_, 1.7)}), int64_t{1}); // a second sample of a
        const store::StoreInfo info = s->info();
        QCOMPARE(info.entries, int64_t{3});
        QCOMPARE(info.samples, int64_t{4});
    }

    void hasBatchesLookups_data() { backends(); }
    void hasBatchesLookups() {
        auto s = store::openStore(freshUrl(), store::OpenMode::ReadWrite);
        s->add({measurement(a_, h100_, 1.5), measurement(c_, h100_, 0.3)});
        const std::string unknown = signatureOf({{"never measured"}});
        QCOMPARE(s->has(setupOf(h100_), {a_, unknown, b_, c_}),
                 (std::vector<bool>{true, false, false, true}));
        QCOMPARE(s->has(setupOf(h100_, 2), {a_, c_}), (std::vector<bool>{false, false}));
        // Another SM count is another setup: never mixed in.
        QCOMPARE(s->has(setupOf(h100Small_), {a_}), (std::vector<bool>{false}));
        store::Setup tf32 = setupOf(h100_);
        tf32.dtype = "fp16";
        QCOMPARE(s->has(tf32, {a_}), (std::vector<bool>{false}));
        QVERIFY(!s->latencyMs(setupOf(h100Small_), a_));
    }

    void latencyIsTheLowerMedian_data() { backends(); }
    void latencyIsTheLowerMedian() {
        auto s = store::openStore(freshUrl(), store::OpenMode::ReadWrite);
        QVERIFY(!s->latencyMs(setupOf(h100_), a_));
        s->add({measurement(a_, h100_, 3), measurement(a_, h100_, 1), measurement(a_, h100_, 2)});
        QCOMPARE(*s->latencyMs(setupOf(h100_), a_), 2.0);
        s->add({measurement(a_, h100_, 4)});
        QCOMPARE(*s->latencyMs(setupOf(h100_), a_), 2.0); // 1 2 3 4: the lower middle one
        s->add({measurement(a_, h100_, 5)});
        QCOMPARE(*s->latencyMs(setupOf(h100_), a_), 3.0);
        QVERIFY(!s->latencyMs(setupOf(h100_), b_));
    }

    void infoCounts_data() { backends(); }
    void infoCounts() {
        auto s = store::openStore(freshUrl(), store::OpenMode::ReadWrite);
        s->add({measurement(a_, h100_, 1), measurement(a_, h100_, 1.1), measurement(b_, h100_, 2),
                measurement(c_, h100_, 3, 8), measurement(a_, h100Small_, 4)});
        const store::StoreInfo info = s->info();
        QCOMPARE(info.samples, int64_t{5});
        QCOMPARE(info.entries, int64_t{4});
        QCOMPARE(info.stages, int64_t{3});
        QCOMPARE(info.operators, int64_t{4}); // conv3x3, relu, pool, conv1x1
        QVERIFY(!info.backend.empty());
        QCOMPARE(info.setups.size(), size_t{3});
        for (size_t i = 1; i < info.setups.size(); ++i)
            QVERIFY(
                std::make_tuple(cost::canonicalText(info.setups[i - 1].device),
                                info.setups[i - 1].batch) <
                std::make_tuple(cost::canonicalText(info.setups[i].device), info.setups[i].batch));
        int64_t total = 0;
        for (const auto& setup : info.setups)
            total += setup.entries;
        QCOMPARE(total, int64_t{4});
        // setups(): the same setups, in the same order, without counting.
        const std::vector<store::Setup> setups = s->setups();
        QCOMPARE(setups.size(), info.setups.size());
        for (size_t i = 0; i < setups.size(); ++i) {
            QVERIFY(setups[i].device == info.setups[i].device);
            QCOMPARE(setups[i].batch, info.setups[i].batch);
            QCOMPARE(setups[i].dtype, info.setups[i].dtype);
        }
    }

    void forEachIsCanonicalAndLossless_data() { backends(); }
    void forEachIsCanonicalAndLossless() {
        auto s = store::openStore(freshUrl(), store::OpenMode::ReadWrite);
        std::vector<store::Measurement> added = {
            measurement(c_, h100_, 3, 8, 17), measurement(b_, h100Small_, 2),
            measurement(a_, h100_, 1.25, 1, 1700000000), measurement(a_, h100_, 0.75),
            measurement(b_, h100_, 2)};
        added[1].key.dtype = "fp16";
        added[1].sample.toolVersion = "9.9.9";
        s->add(added);
        std::vector<store::Measurement> seen;
        s->forEach([&](const store::Measurement& m) { seen.push_back(m); });
        QCOMPARE(seen.size(), added.size());
        for (size_t i = 1; i < seen.size(); ++i)
            QVERIFY(orderKey(seen[i - 1]) < orderKey(seen[i]));
        for (const store::Measurement& m : added) {
            const auto it = std::find_if(seen.begin(), seen.end(),
                                         [&](const auto& x) { return orderKey(x) == orderKey(m); });
            QVERIFY(it != seen.end());
            QVERIFY(it->key.device == m.key.device);
            QCOMPARE(it->sample.toolVersion, m.sample.toolVersion);
            QCOMPARE(it->sample.measuredAt, m.sample.measuredAt);
        }
    }

    void prune_data() { backends(); }
    void prune() {
        auto s = store::openStore(freshUrl(), store::OpenMode::ReadWrite);
        s->add({measurement(a_, h100_, 1, 1, 100), measurement(a_, h100_, 2, 1, 300),
                measurement(b_, h100_, 1, 1, 100), measurement(b_, h100Small_, 1, 1, 100),
                measurement(c_, h100_, 1, 4, 500)});
        QCOMPARE(s->prune(int64_t{200}, std::nullopt), int64_t{3});
        QCOMPARE(*s->latencyMs(setupOf(h100_), a_), 2.0);
        QVERIFY(!s->latencyMs(setupOf(h100_), b_));
        QCOMPARE(s->prune(std::nullopt, setupOf(h100Small_)), int64_t{0});
        QCOMPARE(s->prune(std::nullopt, setupOf(h100_, 4)), int64_t{1});
        QCOMPARE(s->setups().size(), size_t{1}); // the batch-4 setup went with its last sample
        QCOMPARE(s->prune(int64_t{301}, setupOf(h100_)), int64_t{1});
        const store::StoreInfo info = s->info();
        QCOMPARE(info.samples, int64_t{0});
        QCOMPARE(info.operators, int64_t{0}); // nothing left refers to them
        QVERIFY(info.setups.empty());
        QVERIFY(s->setups().empty());
        QCOMPARE(s->add({measurement(a_, h100_, 7)}), int64_t{1}); // after a full prune
        QCOMPARE(s->setups().size(), size_t{1});
        QCOMPARE(*s->latencyMs(setupOf(h100_), a_), 7.0);
    }

    void addIsAllOrNothing_data() { backends(); }
    void addIsAllOrNothing() {
        auto s = store::openStore(freshUrl(), store::OpenMode::ReadWrite);
        s->add({measurement(a_, h100_, 1)});
        for (auto breakIt : std::vector<std::function<void(store::Measurement&)>>{
                 [](store::Measurement& m) { m.sample.medianMs = -1; },
                 [](store::Measurement& m) { m.sample.medianMs = std::nan(""); },
                 [](store::Measurement& m) { m.sample.count = 0; },
                 [](store::Measurement& m) { m.key.batch = 0; },
                 [](store::Measurement& m) { m.key.signature = "\x07garbage"; },
                 [](store::Measurement& m) { m.key.device.name.clear(); }}) {
            std::vector<store::Measurement> batch = {
                measurement(b_, h100_, 1), measurement(c_, h100_, 2), measurement(a_, h100_, 3)};
            breakIt(batch[1]);
            const QString error = userErrorOf([&] { s->add(batch); });
            QVERIFY2(error.contains("measurement 1"), qPrintable(error));
            QCOMPARE(s->info().samples, int64_t{1});
            QVERIFY(!s->latencyMs(setupOf(h100_), b_));
        }
    }

    void reopenReadOnly_data() { backends(); }
    void reopenReadOnly() {
        const std::string url = freshUrl();
        store::openStore(url, store::OpenMode::ReadWrite)->add({measurement(a_, h100_, 1.5)});
        auto ro = store::openStore(url, store::OpenMode::ReadOnly);
        QCOMPARE(*ro->latencyMs(setupOf(h100_), a_), 1.5);
        QCOMPARE(ro->info().samples, int64_t{1});
        int visited = 0;
        ro->forEach([&](const store::Measurement&) { ++visited; });
        QCOMPARE(visited, 1);
        QVERIFY(!userErrorOf([&] { ro->add({measurement(b_, h100_, 1)}); }).isEmpty());
        QVERIFY(!userErrorOf([&] { ro->prune(std::nullopt, std::nullopt); }).isEmpty());
    }

    void twoHandlesSeeEachOther_data() { backends(); }
    void twoHandlesSeeEachOther() {
        const std::string url = freshUrl();
        auto one = store::openStore(url, store::OpenMode::ReadWrite);
        auto two = store::openStore(url, store::OpenMode::ReadWrite);
        QVERIFY(!two->latencyMs(setupOf(h100_), a_));
        one->add({measurement(a_, h100_, 1.5)});
        QCOMPARE(*two->latencyMs(setupOf(h100_), a_), 1.5);
        two->add({measurement(b_, h100_, 2.5)});
        QCOMPARE(one->has(setupOf(h100_), {a_, b_}), (std::vector<bool>{true, true}));
    }

    // A held snapshot serves reads (a backend may or may not freeze them); released, every
    // committed write is seen; a write through the holding handle ends it.
    void heldSnapshot_data() { backends(); }
    void heldSnapshot() {
        const std::string url = freshUrl();
        auto writer = store::openStore(url, store::OpenMode::ReadWrite);
        writer->add({measurement(a_, h100_, 1.5)});
        auto reader = store::openStore(url, store::OpenMode::ReadOnly);
        reader->holdSnapshot(true);
        QCOMPARE(*reader->latencyMs(setupOf(h100_), a_), 1.5);
        writer->add({measurement(b_, h100_, 2.5)});
        QCOMPARE(reader->setups().size(), size_t{1});
        reader->holdSnapshot(false);
        QCOMPARE(*reader->latencyMs(setupOf(h100_), b_), 2.5);
        writer->holdSnapshot(true);
        QVERIFY(writer->latencyMs(setupOf(h100_), a_));
        QCOMPARE(writer->add({measurement(c_, h100_, 0.5)}), int64_t{1});
        QCOMPARE(*reader->latencyMs(setupOf(h100_), c_), 0.5);
    }

    // The SQLite backend's refusals: each names the URL.
    void sqliteRefusesHostileFiles() {
        const std::string missing = dir_.filePath("missing.db").toStdString();
        QVERIFY(userErrorOf([&] {
                    store::openStore(missing, store::OpenMode::ReadOnly);
                }).contains("does not exist"));
        const std::string text = dir_.filePath("text.db").toStdString();
        std::ofstream(text) << "this is not a database, just some text of more than a page";
        QString e = userErrorOf([&] { store::openStore(text, store::OpenMode::ReadWrite); });
        QVERIFY2(e.contains("text.db") && e.contains("not a SQLite database"), qPrintable(e));
        const std::string other = dir_.filePath("other.db").toStdString();
        sqlite3* db = nullptr;
        QCOMPARE(sqlite3_open(other.c_str(), &db), SQLITE_OK);
        sqlite3_exec(db, "CREATE TABLE people(name TEXT)", nullptr, nullptr, nullptr);
        sqlite3_close(db);
        e = userErrorOf([&] { store::openStore("sqlite:" + other, store::OpenMode::ReadWrite); });
        QVERIFY2(e.contains("other.db") && e.contains("not a measurement store"), qPrintable(e));
        const std::string newer = dir_.filePath("newer.db").toStdString();
        store::openStore(newer, store::OpenMode::CreateIfMissing);
        QCOMPARE(sqlite3_open(newer.c_str(), &db), SQLITE_OK);
        sqlite3_exec(db, "UPDATE meta SET value = '99' WHERE key = 'schema_version'", nullptr,
                     nullptr, nullptr);
        sqlite3_close(db);
        e = userErrorOf([&] { store::openStore(newer, store::OpenMode::ReadOnly); });
        QVERIFY2(e.contains("newer.db") && e.contains("schema version 99"), qPrintable(e));
        e = userErrorOf([&] {
            store::openStore("/nonexistent-folder/x.db", store::OpenMode::CreateIfMissing);
        });
        QVERIFY2(e.contains("/nonexistent-folder/x.db"), qPrintable(e));
        e = userErrorOf(
            [&] { store::openStore(dir_.path().toStdString(), store::OpenMode::CreateIfMissing); });
        QVERIFY2(e.contains("directory"), qPrintable(e));
        QVERIFY(userErrorOf([&] {
                    store::openStore("sqlite:", store::OpenMode::ReadOnly);
                }).contains("no file"));
        QVERIFY(userErrorOf([&] {
                    store::openStore("mysql://x/y", store::OpenMode::ReadOnly);
                }).contains("mysql://x/y"));
    }
};

QTEST_GUILESS_MAIN(TestMeasurementStore)
#include "tst_measurement_store.moc"
