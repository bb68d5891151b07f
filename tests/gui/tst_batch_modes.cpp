// SPDX-License-Identifier: Apache-2.0
// The batch modes of ios-explorer (--measure-startup, --screenshots DIR) end with the error
// when the model loads but cannot be scheduled (issue 37 item 8): exit status 1 and one line
// on stderr, "ios-explorer: <the error>", instead of leaving it in the status bar of a window
// nobody sees and waiting forever. The real binary runs offscreen on an antichain of 120
// operators in one explicit DP part (2^120 states: the search is refused up front), and on a
// file that does not load. Settings go to a temporary folder (XDG_CONFIG_HOME).
#include <QDir>
#include <QFile>
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>

namespace {

// One block: `n` relus over the input, an identity concatenating them, all in one part.
QByteArray antichainModel(int n) {
    const QByteArray input =
        R"({"type": "placeholder", "name": "x", "hint_name": "x", "output_shape": [4, 4, 4]})";
    QByteArray nodes, terms, part;
    for (int i = 0; i < n; ++i) {
        const QByteArray name = "r" + QByteArray::number(i);
        const QByteArray sep = i > 0 ? ", " : "";
        nodes += sep + R"({"type": "relu", "name": ")" + name + R"(", "hint_name": ")" + name +
                 R"(", "inputs": [[["x", 0, 4]]], "output_shape": [4, 4, 4]})";
        terms += sep + R"([[")" + name + R"(", 0, 4]])";
        part += sep + "\"" + name + "\"";
    }
    return R"({"format": "ios-explorer", "version": 1, "model": {"name": "antichain", "input": )" +
           input + R"(, "blocks": [{"enter_name": "x", "enter_node": )" + input +
           R"(, "inner_nodes": [)" + nodes +
           R"(], "exit_node": {"type": "identity", "name": "y", "hint_name": "y", "inputs": [)" +
           terms + R"(], "output_shape": [)" + QByteArray::number(4 * n) +
           R"(, 4, 4]}, "stages": [], "parts": [[)" + part + R"(, "y"]]}]}})";
}

struct Run {
    bool finished = false;
    int code = -1;
    QByteArray out, err;
};

Run explorer(const QStringList& args, const QString& configDir) {
    QProcess p;
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.insert(QStringLiteral("QT_QPA_PLATFORM"), QStringLiteral("offscreen"));
    env.insert(QStringLiteral("XDG_CONFIG_HOME"), configDir);
    p.setProcessEnvironment(env);
    p.start(QStringLiteral(IOS_EXPLORER_PATH), args);
    Run r;
    // Generous for a loaded sanitizer machine: the refusal itself takes well under a second.
    r.finished = p.waitForFinished(120'000);
    if (!r.finished) {
        p.kill();
        p.waitForFinished();
    }
    r.code = p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -1;
    r.out = p.readAllStandardOutput();
    r.err = p.readAllStandardError();
    return r;
}

} // namespace

class TestBatchModes : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void initTestCase() {
        QVERIFY(dir_.isValid());
        QFile model(dir_.filePath(QStringLiteral("antichain.json")));
        QVERIFY(model.open(QIODevice::WriteOnly));
        model.write(antichainModel(120));
        model.close();
        QFile broken(dir_.filePath(QStringLiteral("broken.json")));
        QVERIFY(broken.open(QIODevice::WriteOnly));
        broken.write(R"({"format": "ios-explorer", "version": 1.0, "model": {}})");
        broken.close();
    }

    void exitWithTheError_data() {
        QTest::addColumn<QStringList>("args");
        QTest::addColumn<QString>("fragment");
        const QString model = dir_.filePath(QStringLiteral("antichain.json"));
        const QString broken = dir_.filePath(QStringLiteral("broken.json"));
        const QString shots = dir_.filePath(QStringLiteral("shots"));
        QTest::newRow("measure-startup, unschedulable")
            << QStringList{QStringLiteral("--measure-startup"), model} << QString();
        QTest::newRow("screenshots, unschedulable")
            << QStringList{QStringLiteral("--screenshots"), shots, model} << QString();
        QTest::newRow("measure-startup, not loadable")
            << QStringList{QStringLiteral("--measure-startup"), broken}
            << QStringLiteral("\"version\" must be the integer 1");
    }
    void exitWithTheError() {
        QFETCH(QStringList, args);
        QFETCH(QString, fragment);
        const Run r = explorer(args, dir_.filePath(QStringLiteral("config")));
        QVERIFY2(r.finished, "still running after 120 s: the batch mode did not exit");
        QCOMPARE(r.code, 1);
        const QList<QByteArray> lines = r.err.trimmed().split('\n');
        QVERIFY2(!r.err.trimmed().isEmpty() && lines.last().startsWith("ios-explorer: "),
                 r.err.constData());
        QVERIFY2(fragment.isEmpty() || lines.last().contains(fragment.toUtf8()), r.err.constData());
        QVERIFY2(!r.out.contains("schedule displayed"), r.out.constData());
    }

private:
    QTemporaryDir dir_;
};

QTEST_GUILESS_MAIN(TestBatchModes)
#include "tst_batch_modes.moc"
