// SPDX-License-Identifier: Apache-2.0
// tools/bench_scaling.sh (docs/performance.md "Scaling") on a tiny subset of its three tables:
// squeezenet at batches 1 and 2 and a model that does not load (the batch table), a random
// DAG of 20 operators (size), squeezenet and compare on 1 and 2 threads (threads). The CSV has
// one row per run with numbers where the run succeeded and the refusal where it did not, and
// the markdown has the tables. No timing is asserted, only that times are measured.
#include <QFile>
#include <QProcess>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QTest>

namespace {

constexpr int kColumns = 11; // table .. command

// One CSV line: fields split at commas outside double quotes, "" inside quotes is one quote.
QStringList csvFields(const QString& line) {
    QStringList fields{QString()};
    bool quoted = false;
    for (qsizetype i = 0; i < line.size(); ++i) {
        const QChar c = line[i];
        if (c == '"' && quoted && i + 1 < line.size() && line[i + 1] == '"')
            fields.last() += line[++i];
        else if (c == '"')
            quoted = !quoted;
        else if (c == ',' && !quoted)
            fields << QString();
        else
            fields.last() += c;
    }
    return fields;
}

QString fileText(const QString& path) {
    QFile f(path);
    return f.open(QIODevice::ReadOnly) ? QString::fromUtf8(f.readAll()) : QString();
}

bool positiveNumber(const QString& text) {
    bool ok = false;
    const double v = text.toDouble(&ok);
    return ok && v > 0;
}

} // namespace

class TestBenchScaling : public QObject {
    Q_OBJECT

private slots:
    void initTestCase() {
        QVERIFY(dir_.isValid());
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.insert("IOS_SCHED", IOS_SCHED_PATH);
        env.insert("IOS_SCALING_MODELS", "squeezenet,no_such_model");
        env.insert("IOS_SCALING_BATCHES", "1,2");
        env.insert("IOS_SCALING_SIZES", "20");
        env.remove("IOS_SCALING_ONNX_DIR");
        env.insert("IOS_SCALING_THREAD_MODELS", "squeezenet");
        env.insert("IOS_SCALING_THREAD_BATCHES", "1");
        env.insert("IOS_SCALING_THREADS", "1 2");
        env.insert("IOS_SCALING_COMPARE", "demo_figure2");
        QProcess p;
        p.setProcessEnvironment(env);
        p.start("bash", {IOS_SOURCE_DIR "/tools/bench_scaling.sh", dir_.path()});
        QVERIFY(p.waitForFinished(300000));
        QVERIFY2(p.exitCode() == 0, p.readAllStandardError().constData());
        const QStringList lines =
            fileText(dir_.filePath("scaling.csv")).split('\n', Qt::SkipEmptyParts);
        QVERIFY(!lines.isEmpty());
        QCOMPARE(lines.front(), QStringLiteral("table,model,batch,ops,threads,wall_s,cpu_s,"
                                               "max_rss_mib,latency_ms,status,command"));
        for (qsizetype i = 1; i < lines.size(); ++i) {
            rows_ << csvFields(lines[i]);
            QCOMPARE(rows_.last().size(), kColumns);
        }
    }

    void oneRowPerRun() {
        QStringList seen;
        for (const QStringList& r : rows_)
            seen << r[0] + " " + r[1] + " " + r[2] + " " + r[4];
        QCOMPARE(seen, (QStringList{"batch squeezenet 1 1", "batch squeezenet 2 1",
                                    "batch no_such_model 1 1", "batch no_such_model 2 1",
                                    "size random_dag:20 1 1", "threads squeezenet 1 1",
                                    "threads squeezenet 1 2", "threads demo_figure2 1 1",
                                    "threads demo_figure2 1 2"}));
    }

    void successfulRunsHaveNumbers() {
        for (const QStringList& r : rows_) {
            if (r[1] == "no_such_model")
                continue;
            const QByteArray what = r.join(',').toUtf8();
            QVERIFY2(r[9] == "ok", what.constData());
            for (int column : {3, 5, 6, 7, 8}) // ops, wall, cpu, rss, latency
                QVERIFY2(positiveNumber(r[column]), what.constData());
        }
        QCOMPARE(rows_[0][3], QStringLiteral("50"));
        QCOMPARE(rows_[4][3], QStringLiteral("20"));
        QCOMPARE(
            rows_[1][10],
            QStringLiteral("ios-sched optimize squeezenet --batch 2 --threads 1 --json --usage"));
        QCOMPARE(rows_[8][10], QStringLiteral("ios-sched compare demo_figure2 --threads 2 --json "
                                              "--usage"));
    }

    void refusedRunsSayWhy() {
        const QStringList& r = rows_[2];
        QVERIFY2(r[9].startsWith("exit 1: ") && r[9].contains("no_such_model"), qPrintable(r[9]));
        QVERIFY(r[3].isEmpty() && r[6].isEmpty() && r[7].isEmpty() && r[8].isEmpty());
        QVERIFY(positiveNumber(r[5])); // the wall time is still measured
    }

    void markdownHasTheTables() {
        const QString md = fileText(dir_.filePath("scaling.md"));
        for (const char* title :
             {"### Search against batch", "### Search against graph size",
              "### Search against threads", "| squeezenet | ", "| random_dag:20 | 20 | ",
              "| optimize squeezenet --batch 1 | ", "| compare demo_figure2 | ",
              "- no_such_model --batch 2: exit 1: "})
            QVERIFY2(md.contains(QLatin1String(title)), qPrintable(title + ("\n" + md)));
        QVERIFY(md.contains(QRegularExpression(R"(\| [0-9.]+ \([0-9.]+\) / [0-9.]+ \|)")));
    }

private:
    QTemporaryDir dir_;
    QList<QStringList> rows_;
};

QTEST_GUILESS_MAIN(TestBenchScaling)
#include "tst_bench_scaling.moc"
