// SPDX-License-Identifier: Apache-2.0
// The engine's folders form layers (docs/architecture.md "Layers"): a file may include headers
// of its own folder and of the folders listed before it, never of one listed after it, and
// never Qt. This suite reads every engine source and checks each #include "folder/...".
#include <QDir>
#include <QDirIterator>
#include <QFile>
#include <QRegularExpression>
#include <QTest>

namespace {

// Bottom to top. A new folder goes where its includes put it (and in docs/architecture.md).
// rewrite (MetaFlow's graph substitutions) prices graphs with cost and checks them with ref,
// and the metaflow scheduler builds on it: above eval, below schedulers.
const QStringList kLayers = {QStringLiteral("util"),     QStringLiteral("ir"),
                             QStringLiteral("schedule"), QStringLiteral("ref"),
                             QStringLiteral("cost"),     QStringLiteral("store"),
                             QStringLiteral("eval"),
                             QStringLiteral("rewrite"),  QStringLiteral("schedulers"),
                             QStringLiteral("io"),       QStringLiteral("analysis")};

QString engineDir() {
    return QStringLiteral(IOS_SOURCE_DIR "/engine");
}

} // namespace

class TestEngineLayers : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void everyFolderHasALayer() {
        const QDir engine(engineDir());
        for (const QString& folder : engine.entryList(QDir::Dirs | QDir::NoDotAndDotDot))
            QVERIFY2(kLayers.contains(folder),
                     qPrintable(QStringLiteral("engine/%1 is not in the layer list").arg(folder)));
    }

    void noFolderIncludesOneAbove() {
        const QRegularExpression include(
            QStringLiteral("^\\s*#\\s*include\\s*[<\"]([^\">]+)[\">]"));
        QDirIterator it(engineDir(), {QStringLiteral("*.h"), QStringLiteral("*.cpp")}, QDir::Files,
                        QDirIterator::Subdirectories);
        int files = 0;
        QStringList violations;
        while (it.hasNext()) {
            const QString path = it.next();
            const QString rel = QDir(engineDir()).relativeFilePath(path);
            const int own = kLayers.indexOf(rel.section(QLatin1Char('/'), 0, 0));
            QFile f(path);
            QVERIFY(f.open(QIODevice::ReadOnly));
            ++files;
            int lineNo = 0;
            while (!f.atEnd()) {
                const QString line = QString::fromUtf8(f.readLine());
                ++lineNo;
                const auto m = include.match(line);
                if (!m.hasMatch())
                    continue;
                const QString target = m.captured(1);
                if (target.startsWith(QLatin1Char('Q')))
                    violations << QStringLiteral("%1:%2 includes Qt (%3)")
                                      .arg(rel)
                                      .arg(lineNo)
                                      .arg(target);
                const int layer = kLayers.indexOf(target.section(QLatin1Char('/'), 0, 0));
                if (layer > own)
                    violations << QStringLiteral("%1:%2 includes %3, a layer above")
                                      .arg(rel)
                                      .arg(lineNo)
                                      .arg(target);
            }
        }
        QVERIFY(files > 50);
        QVERIFY2(violations.isEmpty(), qPrintable(violations.join(QLatin1Char('\n'))));
    }
};

QTEST_GUILESS_MAIN(TestEngineLayers)
#include "tst_engine_layers.moc"
