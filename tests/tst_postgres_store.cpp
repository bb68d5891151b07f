// SPDX-License-Identifier: Apache-2.0
// The measurement store on a real PostgreSQL server (tools/pg_test_cluster.sh, started by the
// CTest fixture `postgres`; $IOS_TEST_POSTGRES_URL names it): tables created by concurrent
// openers once, concurrent writer processes lose nothing, a writer killed mid-transaction
// leaves every committed measurement and nothing of its open one, and the server's errors
// reach the user as one line naming the store. The backend-neutral behaviour (idempotency,
// the median rule, the export order) is tst_measurement_store's, run on this server too.
#include "cost/stage_signature.h"
#include "store/measurement_store.h"
#include "store/postgres_store.h"
#include "util/error.h"

#include <QProcess>
#include <QRandomGenerator>
#include <QtTest>
#include <csignal>
#include <cstdio>
#include <iostream>
#include <pqxx/pqxx>
#include <set>
#include <thread>

using namespace ios;

namespace {

cost::DeviceIdentity device() {
    cost::DeviceIdentity d;
    d.name = "NVIDIA Test GPU";
    d.computeCapability = "9.0";
    d.smCount = 132;
    d.smClockMHz = 1980;
    d.memoryClockMHz = 2619;
    d.memoryBytes = 85520809984;
    d.driver = "580.0";
    d.cuda = "13.0";
    d.cudnn = "9.10.2";
    return d;
}

// Measurement i: a two-group stage of synthetic operators, a latency that is a function of i.
store::Measurement measurement(int i) {
    cost::StageSignature s;
    s.groups = {{"op" + std::to_string(i)}, {"op" + std::to_string(i / 3), "x"}};
    store::Measurement m;
    m.key.signature = cost::signatureBytes(s);
    m.key.device = device();
    m.sample.medianMs = 0.01 + 0.001 * i;
    m.sample.spreadMs = 0.0001 * (i % 7);
    m.sample.count = 10;
    m.sample.toolVersion = "test";
    m.sample.measuredAt = 1700000000;
    return m;
}

// Writer w's batches: 20 measurements each, w's range overlapping its neighbours'.
std::vector<std::vector<store::Measurement>> writerBatches(int w) {
    std::vector<std::vector<store::Measurement>> batches;
    for (int b = 0; b < 8; ++b) {
        std::vector<store::Measurement>& batch = batches.emplace_back();
        for (int k = 0; k < 20; ++k)
            batch.push_back(measurement(w * 80 + b * 20 + k));
    }
    return batches;
}

// Batch b of the killed writer: large, so a kill often lands inside its transaction.
std::vector<store::Measurement> bigBatch(int b) {
    std::vector<store::Measurement> batch;
    for (int k = 0; k < 3000; ++k)
        batch.push_back(measurement(100000 + b * 3000 + k));
    return batch;
}

std::string serverUrl() {
    const char* url = std::getenv("IOS_TEST_POSTGRES_URL");
    return url ? url : "";
}

// A fresh database on the test server; its URL.
std::string freshDatabase(const std::string& name) {
    pqxx::connection c(serverUrl());
    pqxx::nontransaction tx(c);
    tx.exec("DROP DATABASE IF EXISTS " + name);
    tx.exec("CREATE DATABASE " + name);
    std::string url = serverUrl();
    const size_t slash = url.find(":///") + 4;
    url.replace(slash, url.find('?') - slash, name);
    return url;
}

// Opens `url` expecting a UserError that names the store and contains `needle`; its text.
std::string expectRefusal(const std::string& url, store::OpenMode mode, const std::string& needle) {
    try {
        store::openStore(url, mode);
    } catch (const UserError& e) {
        const std::string message = e.what();
        if (message.find("measurement store 'postgres") != 0 ||
            message.find(needle) == std::string::npos || message.find('\n') != std::string::npos)
            QTest::qFail(("unexpected refusal: " + message).c_str(), __FILE__, __LINE__);
        return message;
    }
    QTest::qFail(("no refusal for " + url).c_str(), __FILE__, __LINE__);
    return {};
}

std::vector<std::string> dump(store::MeasurementStore& s) {
    std::vector<std::string> out;
    s.forEach([&out](const store::Measurement& m) {
        out.push_back(cost::stableHashHex(m.key.signature) + " " + m.key.device.name + " " +
                      std::to_string(m.key.batch) + " " + m.key.dtype + " " +
                      std::to_string(m.sample.medianMs) + " " + std::to_string(m.sample.spreadMs) +
                      " " + std::to_string(m.sample.count));
    });
    return out;
}

// The child processes: `--writer URL W` adds writer W's batches; `--big-writer URL` adds big
// batches for ever, printing "committed B" after each.
int childMain(char** argv) {
    const std::string mode = argv[1];
    auto s = store::openStore(argv[2], store::OpenMode::CreateIfMissing);
    if (mode == "--writer") {
        for (const auto& batch : writerBatches(std::atoi(argv[3])))
            s->add(batch);
        return 0;
    }
    for (int b = 0;; ++b) {
        s->add(bigBatch(b));
        std::printf("committed %d\n", b);
        std::fflush(stdout);
    }
}

} // namespace

class TestPostgresStore : public QObject {
    Q_OBJECT

private slots:
    void initTestCase() {
        if (serverUrl().empty())
            QFAIL("IOS_TEST_POSTGRES_URL is not set: run through ctest, whose fixture "
                  "`postgres` starts a server (tools/pg_test_cluster.sh)");
    }

    void concurrentOpenersCreateTheTablesOnce() {
        const std::string url = freshDatabase("ios_openers");
        std::vector<std::thread> threads;
        std::atomic<int> failures{0};
        for (int t = 0; t < 8; ++t)
            threads.emplace_back([&url, &failures] {
                try {
                    auto s = store::openStore(url, store::OpenMode::CreateIfMissing);
                    s->add({measurement(1)});
                } catch (const std::exception& e) {
                    std::cerr << "opener: " << e.what() << "\n";
                    ++failures;
                }
            });
        for (std::thread& t : threads)
            t.join();
        QCOMPARE(failures.load(), 0);
        auto s = store::openStore(url, store::OpenMode::ReadOnly);
        QCOMPARE(s->info().samples, int64_t{1});
        QCOMPARE(s->info().backend, std::string("postgresql"));
    }

    void concurrentWritersLoseNothing() {
        const std::string concurrent = freshDatabase("ios_concurrent");
        const std::string serial = freshDatabase("ios_serial");
        {
            auto s = store::openStore(serial, store::OpenMode::CreateIfMissing);
            for (int w = 0; w < 8; ++w)
                for (const auto& batch : writerBatches(w))
                    s->add(batch);
        }
        std::vector<std::unique_ptr<QProcess>> writers;
        for (int w = 0; w < 8; ++w) {
            auto& p = writers.emplace_back(std::make_unique<QProcess>());
            p->setProcessChannelMode(QProcess::ForwardedChannels);
            p->start(QCoreApplication::applicationFilePath(),
                     {"--writer", QString::fromStdString(concurrent), QString::number(w)});
        }
        for (auto& p : writers) {
            QVERIFY(p->waitForFinished(120000));
            QCOMPARE(p->exitCode(), 0);
        }
        auto a = store::openStore(concurrent, store::OpenMode::ReadOnly);
        auto b = store::openStore(serial, store::OpenMode::ReadOnly);
        QCOMPARE(a->info().samples, b->info().samples);
        QCOMPARE(a->info().entries, int64_t{8 * 80 + 80}); // ranges overlap by 80
        QCOMPARE(dump(*a), dump(*b));
    }

    void killedWriterLeavesCommittedBatchesOnly() {
        const std::string url = freshDatabase("ios_killed");
        QRandomGenerator random(20261127);
        size_t committedInAll = 0;
        for (int round = 0; round < 3; ++round) {
            QProcess writer;
            writer.start(QCoreApplication::applicationFilePath(),
                         {"--big-writer", QString::fromStdString(url)});
            QVERIFY(writer.waitForStarted());
            // Killed at a random moment after its first commit, however fast this build is
            // (a sanitizer build is many times slower): some batches are in, and usually one
            // is in flight.
            QByteArray out;
            while (!out.contains("committed 0\n")) {
                QVERIFY2(writer.waitForReadyRead(120000), "the writer committed nothing in 120 s");
                out += writer.readAllStandardOutput();
            }
            QThread::msleep(random.bounded(800));
            ::kill(static_cast<pid_t>(writer.processId()), SIGKILL);
            QVERIFY(writer.waitForFinished(30000));
            out += writer.readAllStandardOutput();
            std::set<int> committed;
            for (const QByteArray& line : out.split('\n'))
                if (line.startsWith("committed "))
                    committed.insert(line.mid(10).toInt());
            committedInAll += committed.size();
            auto s = store::openStore(url, store::OpenMode::ReadOnly);
            store::Setup setup{device(), 1, "fp32"};
            for (int b = 0; b < 200; ++b) {
                std::vector<std::string> signatures;
                for (const store::Measurement& m : bigBatch(b))
                    signatures.push_back(m.key.signature);
                const std::vector<bool> present = s->has(setup, signatures);
                const auto n = std::count(present.begin(), present.end(), true);
                if (committed.count(b))
                    QCOMPARE(n, static_cast<long>(signatures.size()));
                else
                    QVERIFY2(n == 0 || n == static_cast<long>(signatures.size()),
                             qPrintable(QString("batch %1 partly present: %2").arg(b).arg(n)));
                if (n == 0 && !committed.count(b))
                    break; // later batches were never started
            }
        }
        QVERIFY2(committedInAll > 0, "no writer committed a batch before it was killed");
    }

    void refusalsAreOneClearLine() {
        // A database that does not exist: the server's reason, the URL.
        std::string url = serverUrl();
        const size_t slash = url.find(":///") + 4;
        url.replace(slash, url.find('?') - slash, "ios_no_such_database");
        expectRefusal(url, store::OpenMode::CreateIfMissing, "ios_no_such_database");
        expectRefusal(url, store::OpenMode::ReadOnly, "does not exist");
        // A password never reaches the message.
        const std::string secret =
            "postgresql://ios:hunter2@/ios_test?host=/nonexistent-ios-socket";
        const std::string message = expectRefusal(secret, store::OpenMode::ReadOnly, "ios:***@");
        QVERIFY2(message.find("hunter2") == std::string::npos, message.c_str());
        // A store of a newer schema than this build reads.
        const std::string newer = freshDatabase("ios_newer");
        store::openStore(newer, store::OpenMode::CreateIfMissing)->add({measurement(2)});
        {
            pqxx::connection c(newer);
            pqxx::work tx(c);
            tx.exec("UPDATE ios_meta SET value = '99' WHERE key = 'schema_version'");
            tx.commit();
        }
        expectRefusal(newer, store::OpenMode::ReadWrite, "schema version 99, newer");
        expectRefusal(newer, store::OpenMode::CreateIfMissing, "schema version 99, newer");
    }

    void readOnlyRefusesWrites() {
        const std::string url = freshDatabase("ios_read_only");
        store::openStore(url, store::OpenMode::CreateIfMissing)->add({measurement(3)});
        auto s = store::openStore(url, store::OpenMode::ReadOnly);
        QVERIFY_THROWS_EXCEPTION(UserError, s->add({measurement(4)}));
        QVERIFY_THROWS_EXCEPTION(UserError, s->prune(std::nullopt, std::nullopt));
        QCOMPARE(s->info().samples, int64_t{1});
    }

    void errorsNameTheStore() {
        const std::string missing = "postgresql:///ios_test?host=/nonexistent-ios-socket&user=ios";
        try {
            store::openStore(missing, store::OpenMode::ReadOnly);
            QFAIL("no error for an unreachable server");
        } catch (const UserError& e) {
            QVERIFY2(std::string(e.what()).find("measurement store 'postgresql:///ios_test") == 0,
                     e.what());
        }
        QCOMPARE(store::redactedUrl("postgresql://me:secret@db.example/x"),
                 std::string("postgresql://me:***@db.example/x"));
        QCOMPARE(store::redactedUrl("postgresql:///x?user=me&password=secret&port=1"),
                 std::string("postgresql:///x?user=me&password=***&port=1"));
        const std::string empty = freshDatabase("ios_empty");
        try {
            store::openStore(empty, store::OpenMode::ReadOnly);
            QFAIL("no error for a database without a store");
        } catch (const UserError& e) {
            QVERIFY2(std::string(e.what()).find("holds no measurement store") != std::string::npos,
                     e.what());
        }
        {
            pqxx::connection c(empty);
            pqxx::work tx(c);
            tx.exec("CREATE TABLE ios_meta(name TEXT)");
            tx.commit();
        }
        try {
            store::openStore(empty, store::OpenMode::ReadWrite);
            QFAIL("no error for tables of another kind");
        } catch (const UserError& e) {
            QVERIFY2(std::string(e.what()).find("another kind") != std::string::npos, e.what());
        }
    }
};

int main(int argc, char** argv) {
    if (argc >= 3 && (std::string(argv[1]) == "--writer" || std::string(argv[1]) == "--big-writer"))
        return childMain(argv);
    QCoreApplication app(argc, argv);
    TestPostgresStore test;
    return QTest::qExec(&test, argc, argv);
}

#include "tst_postgres_store.moc"
