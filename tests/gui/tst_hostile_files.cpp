// SPDX-License-Identifier: Apache-2.0
// The explorer reads through the same input layer as the CLI (engine/util/input_file.h):
// opening or dropping a FIFO, a symlink to /dev/zero, a 10 GB sparse file, a 300 000-key JSON
// object or a truncated file shows an error naming the file; nothing hangs (a FIFO opened for
// reading blocks: ctest's timeout would be the failure) or crashes.
#include "main_window.h"

#include <QApplication>
#include <QDropEvent>
#include <QFile>
#include <QMimeData>
#include <QTemporaryDir>
#include <QTest>
#include <QUrl>
#include <sys/stat.h>
#include <unistd.h>

using namespace ios::gui;

namespace {
// The window's own drop handler, callable without a drag session.
class DroppableWindow : public MainWindow {
public:
    using MainWindow::dropEvent;
};
} // namespace

class TestHostileFiles : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void initTestCase() {
        QVERIFY(dir_.isValid());
        const QByteArray fifo = path(QStringLiteral("fifo.json")).toLocal8Bit();
        QCOMPARE(::mkfifo(fifo.constData(), 0600), 0);
        const QByteArray traceFifo = path(QStringLiteral("fifo.trace.json")).toLocal8Bit();
        QCOMPARE(::mkfifo(traceFifo.constData(), 0600), 0);
        QVERIFY(QFile::link(QStringLiteral("/dev/zero"), path(QStringLiteral("zero.json"))));
        QFile sparse(path(QStringLiteral("sparse.ios.json")));
        QVERIFY(sparse.open(QIODevice::WriteOnly));
        QVERIFY(sparse.resize(qint64{10} << 30));
        sparse.close();
        QFile keys(path(QStringLiteral("keys.json")));
        QVERIFY(keys.open(QIODevice::WriteOnly));
        QByteArray text = "{";
        for (int i = 0; i < 300'000; ++i)
            text += (i ? ",\"k" : "\"k") + QByteArray::number(i) + "\":" + QByteArray::number(i);
        keys.write(text + "}");
        keys.close();
        QFile truncated(path(QStringLiteral("truncated.ios.json")));
        QVERIFY(truncated.open(QIODevice::WriteOnly));
        truncated.write("{\"name\": \"x\", \"blocks\": [{\"enter_node\"");
        truncated.close();
    }

    void openingAHostileFileShowsAnError_data() {
        QTest::addColumn<QString>("file");
        QTest::addColumn<QString>("expected");
        QTest::newRow("fifo") << QStringLiteral("fifo.json") << QStringLiteral("FIFO");
        QTest::newRow("symlink to /dev/zero")
            << QStringLiteral("zero.json") << QStringLiteral("character device");
        QTest::newRow("10 GB sparse")
            << QStringLiteral("sparse.ios.json") << QStringLiteral("limit");
        QTest::newRow("300 000 keys")
            << QStringLiteral("keys.json") << QStringLiteral("unknown field 'k0'");
        QTest::newRow("truncated")
            << QStringLiteral("truncated.ios.json") << QStringLiteral("not valid JSON");
    }
    void openingAHostileFileShowsAnError() {
        QFETCH(QString, file);
        QFETCH(QString, expected);
        MainWindow w;
        w.setDialogsEnabled(false);
        QVERIFY(!w.openModel(path(file)));
        QVERIFY2(w.lastError().contains(file) && w.lastError().contains(expected),
                 qPrintable(w.lastError()));
    }

    void openingAHostileTraceShowsAnError() {
        MainWindow w;
        w.setDialogsEnabled(false);
        QVERIFY(w.openModel(QStringLiteral("squeezenet")));
        for (const char* file : {"fifo.trace.json", "zero.json", "truncated.ios.json"}) {
            QVERIFY(!w.openMeasuredTrace(path(QLatin1String(file))));
            QVERIFY2(w.lastError().contains(QLatin1String(file)), qPrintable(w.lastError()));
        }
    }

    void droppingAFifoDoesNotBlock() {
        // A drop sniffs a .json file's head to tell a trace from a model: through the input
        // layer, so a FIFO is refused instead of blocking the UI thread in open().
        DroppableWindow w;
        w.setDialogsEnabled(false);
        QMimeData mime;
        mime.setUrls({QUrl::fromLocalFile(path(QStringLiteral("fifo.json")))});
        QDropEvent drop(QPointF(10, 10), Qt::CopyAction, &mime, Qt::LeftButton, Qt::NoModifier);
        w.dropEvent(&drop);
        QVERIFY2(w.lastError().contains(QLatin1String("FIFO")), qPrintable(w.lastError()));
    }

private:
    QString path(const QString& name) const { return dir_.filePath(name); }
    QTemporaryDir dir_;
};

QTEST_MAIN(TestHostileFiles)
#include "tst_hostile_files.moc"
