// SPDX-License-Identifier: Apache-2.0
// Byte sizes as people type them (engine/util/byte_size.h): the one parser behind the CLI's
// --memory-budget and the GUI's budget field — units binary or decimal, fractions, spaces and
// case, and what is refused (TooLarge apart from Malformed, so the CLI can name the range).
#include "util/byte_size.h"

#include <QTest>

using namespace ios;

class TestByteSize : public QObject {
    Q_OBJECT

private slots:
    void parse_data() {
        QTest::addColumn<QString>("text");
        QTest::addColumn<qlonglong>("bytes"); // -1: refused
        QTest::newRow("plain") << "25165824" << qlonglong{25165824};
        QTest::newRow("MiB") << "24 MiB" << qlonglong{24} * 1048576;
        QTest::newRow("no space, lower case") << "24mib" << qlonglong{24} * 1048576;
        QTest::newRow("fraction") << "19.25 MiB" << qlonglong{20185088};
        QTest::newRow("KiB") << "512 KiB" << qlonglong{524288};
        QTest::newRow("k is binary") << "512k" << qlonglong{524288};
        QTest::newRow("MB is decimal") << "64 MB" << qlonglong{64000000};
        QTest::newRow("GiB") << "1.5 GiB" << qlonglong{1610612736};
        QTest::newRow("bytes") << "812 B" << qlonglong{812};
        QTest::newRow("spaces") << "  3 MiB " << qlonglong{3145728};
        QTest::newRow("zero") << "0" << qlonglong{0};
        QTest::newRow("rounded") << "0.5 B" << qlonglong{1};
        QTest::newRow("Ki without B") << "24 Ki" << qlonglong{-1};
        QTest::newRow("word") << "lots" << qlonglong{-1};
        QTest::newRow("negative") << "-4 MiB" << qlonglong{-1};
        QTest::newRow("two numbers") << "4 4" << qlonglong{-1};
        QTest::newRow("unknown unit") << "4 PiB" << qlonglong{-1};
        QTest::newRow("beyond 2^50") << "2000 TiB" << qlonglong{-1};
        QTest::newRow("empty") << "" << qlonglong{-1};
    }
    void parse() {
        QFETCH(QString, text);
        QFETCH(qlonglong, bytes);
        const util::ByteSize parsed = util::parseByteSize(text.toStdString());
        if (bytes < 0) {
            QVERIFY2(parsed.status != util::ByteSize::Status::Ok, qPrintable(text));
        } else {
            QVERIFY(parsed.status == util::ByteSize::Status::Ok);
            QCOMPARE(parsed.bytes, int64_t{bytes});
        }
    }

    void tooLargeIsNotMalformed() {
        QVERIFY(util::parseByteSize("2000 TiB").status == util::ByteSize::Status::TooLarge);
        QVERIFY(util::parseByteSize("99999999999999999999").status ==
                util::ByteSize::Status::TooLarge);
        QVERIFY(util::parseByteSize("1 PB").status == util::ByteSize::Status::Malformed);
        QCOMPARE(util::parseByteSize("1 TiB").bytes, int64_t{1} << 40);
    }
};

QTEST_GUILESS_MAIN(TestByteSize)
#include "tst_byte_size.moc"
