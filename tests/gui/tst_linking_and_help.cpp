// SPDX-License-Identifier: Apache-2.0
// The main window's one selection (issue 17 item 3): an operator-table row selects the
// operator in the stage tree and the graph, a graph click selects the table row, a stage row
// highlights its operators; Help ▸ Keyboard Shortcuts lists the registered shortcuts; an
// ONNX model with an unsupported operator opens with the opaque option (item 8).
#include "graph_view.h"
#include "main_window_test_support.h"
#include "operator_table_model.h"
#include "stage_tree_model.h"
#include "streams_view.h"

#include <QAction>
#include <QApplication>
#include <QDialog>
#include <QFile>
#include <QItemSelectionModel>
#include <QMenu>
#include <QSortFilterProxyModel>
#include <QTableView>
#include <QTemporaryDir>
#include <QTreeView>
#include <QTreeWidget>
#include <algorithm>
#include <memory>

using namespace ios::gui;
using namespace ios::gui::test;

namespace {

// The operator table's row (view order) of flat operator `flat`.
int tableRowOf(MainWindow& w, int flat) {
    auto* proxy = static_cast<QSortFilterProxyModel*>(w.operatorTable()->model());
    return proxy->mapFromSource(proxy->sourceModel()->index(flat, 0)).row();
}

int flatOfTableRow(MainWindow& w, int row) {
    auto* proxy = static_cast<QSortFilterProxyModel*>(w.operatorTable()->model());
    return proxy->mapToSource(proxy->index(row, 0)).row();
}

// Protocol-buffer wire format, enough to add one value_info to an ONNX graph.
QByteArray varint(quint64 v) {
    QByteArray out;
    do {
        char byte = static_cast<char>(v & 0x7f);
        v >>= 7;
        if (v != 0)
            byte = static_cast<char>(byte | 0x80);
        out.append(byte);
    } while (v != 0);
    return out;
}
QByteArray field(int number, const QByteArray& bytes) { // length-delimited
    return varint(static_cast<quint64>(number) << 3 | 2) + varint(bytes.size()) + bytes;
}
QByteArray intField(int number, quint64 v) {
    return varint(static_cast<quint64>(number) << 3) + varint(v);
}
quint64 readVarint(const QByteArray& b, qsizetype& at) {
    quint64 v = 0;
    for (int shift = 0;; shift += 7) {
        const auto byte = static_cast<unsigned char>(b[at++]);
        v |= static_cast<quint64>(byte & 0x7f) << shift;
        if ((byte & 0x80) == 0)
            return v;
    }
}

// The ModelProto with ValueInfoProto {name, float tensor of `dims`} added to its graph
// (ModelProto field 7, GraphProto field 13): what an exporter's shape inference writes.
QByteArray withValueInfo(const QByteArray& model, const QByteArray& name,
                         const std::vector<quint64>& dims) {
    QByteArray shape;
    for (quint64 d : dims)
        shape += field(1, intField(1, d));
    const QByteArray tensor = intField(1, 1) + field(2, shape);
    const QByteArray info = field(1, name) + field(2, field(1, tensor));
    QByteArray out;
    qsizetype at = 0;
    while (at < model.size()) {
        const qsizetype start = at;
        const quint64 key = readVarint(model, at);
        const int number = static_cast<int>(key >> 3);
        switch (key & 7) {
        case 0:
            readVarint(model, at);
            out += model.mid(start, at - start);
            break;
        case 2: {
            const auto length = static_cast<qsizetype>(readVarint(model, at));
            const QByteArray body = model.mid(at, length);
            at += length;
            out += number == 7 ? field(7, body + field(13, info)) : model.mid(start, at - start);
            break;
        }
        default:
            qFatal("unexpected wire type in the ONNX model");
        }
    }
    return out;
}

bool hasShortcut(const std::vector<ShortcutHelp>& list, const QString& section,
                 const QKeySequence& key) {
    const QString text = key.toString(QKeySequence::NativeText);
    return std::any_of(list.begin(), list.end(), [&](const ShortcutHelp& e) {
        return e.section.startsWith(section) && e.keys == text;
    });
}

} // namespace

class TestLinkingAndHelp : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void init() { useTestSettings("tst_linking_and_help"); }

    void operatorTableSelectsEverywhere() {
        MainWindow w;
        w.setDialogsEnabled(false);
        QVERIFY(w.openModel(QStringLiteral("inception_v3")));
        QVERIFY(waitForResult(w));
        const int row = 7;
        const int flat = flatOfTableRow(w, row);
        w.operatorTable()->setCurrentIndex(w.operatorTable()->model()->index(row, 0));
        QCOMPARE(w.selection()->operators(), std::vector<int>{flat});
        QCOMPARE(w.selection()->source(), Selection::Source::OperatorTable);
        // The stage tree's current row is that operator, the graph highlights it.
        const QModelIndex current = w.stageTree()->currentIndex();
        QVERIFY(current.isValid());
        QCOMPARE(current.data(ios::views::StageTreeModel::OperatorsRole).value<QList<int>>(),
                 QList<int>{flat});
        QCOMPARE(w.graphHighlight(), std::vector<int>{flat});
        // Its stage is the context: it holds the operator.
        const auto& context = w.selection()->stageContext();
        QVERIFY(std::find(context.begin(), context.end(), flat) != context.end());
        // The Streams view selected its launch.
        QCOMPARE(w.streamsView()->selectedLaunches().size(), size_t{1});
    }

    void graphAndStageTreeSelectTheTableRow() {
        MainWindow w;
        w.setDialogsEnabled(false);
        QVERIFY(w.openModel(QStringLiteral("squeezenet")));
        QVERIFY(waitForResult(w));
        Q_EMIT w.graphView()->operatorSelected(3);
        QCOMPARE(w.operatorTable()->selectionModel()->selectedRows().size(), 1);
        QCOMPARE(w.operatorTable()->selectionModel()->selectedRows().front().row(),
                 tableRowOf(w, 3));
        // A stage row: all its operators, in the graph and the table.
        const QModelIndex block = w.stageTree()->model()->index(0, 0);
        const QModelIndex stage = w.stageTree()->model()->index(0, 0, block);
        const auto ops = stage.data(ios::views::StageTreeModel::OperatorsRole).value<QList<int>>();
        w.stageTree()->setCurrentIndex(stage);
        QCOMPARE(w.graphHighlight(), std::vector<int>(ops.begin(), ops.end()));
        QCOMPARE(w.selection()->stageContext(), std::vector<int>(ops.begin(), ops.end()));
        QCOMPARE(w.operatorTable()->selectionModel()->selectedRows().size(), ops.size());
    }

    void shortcutListComesFromTheActions() {
        MainWindow w;
        const auto list = w.shortcuts();
        QVERIFY(hasShortcut(list, QStringLiteral("File"), QKeySequence::Open));
        QVERIFY(hasShortcut(list, QStringLiteral("File ▸ Export"),
                            QKeySequence(QStringLiteral("Ctrl+E"))));
        QVERIFY(hasShortcut(list, QStringLiteral("File ▸ Export"),
                            QKeySequence(QStringLiteral("Ctrl+Shift+T"))));
        QVERIFY(hasShortcut(list, QStringLiteral("Search"), QKeySequence(Qt::Key_F5)));
        QVERIFY(hasShortcut(list, QStringLiteral("Search"), QKeySequence(Qt::Key_Escape)));
        QVERIFY(hasShortcut(list, QStringLiteral("Help"), QKeySequence::HelpContents));
        // The views' own keys come along.
        QVERIFY(std::any_of(list.begin(), list.end(), [](const ShortcutHelp& e) {
            return e.section == QLatin1String("Graph") && e.keys == QLatin1String("F or 0");
        }));
        // A key declared at run time too.
        addShortcutHelp(QStringLiteral("Test view"), QStringLiteral("Q"), QStringLiteral("quack"));
        const auto more = w.shortcuts();
        QVERIFY(hasShortcut(more, QStringLiteral("Test view"), QKeySequence(QStringLiteral("Q"))));
        // Every action with a shortcut in the menus is listed: nothing is missed.
        int withKeys = 0;
        for (QAction* a : w.findChildren<QAction*>())
            if (!a->shortcut().isEmpty() && !a->menu())
                ++withKeys;
        QVERIFY(static_cast<int>(list.size()) >= withKeys);
        // The dialog lists them, a row per key.
        std::unique_ptr<QDialog> dialog(createShortcutDialog(&w, more));
        auto* tree = dialog->findChild<QTreeWidget*>(QStringLiteral("shortcutList"));
        QVERIFY(tree != nullptr);
        const auto ctrlE = tree->findItems(
            QKeySequence(QStringLiteral("Ctrl+E")).toString(QKeySequence::NativeText),
            Qt::MatchExactly, 0);
        QCOMPARE(ctrlE.size(), 1);
        QCOMPARE(ctrlE.front()->text(1), QStringLiteral("Schedule"));
    }

    void opaqueOptionOpensUnsupportedOperators() {
        // squeezenet1_1.onnx with its first Relu renamed to an operator nobody knows.
        QFile in(QStringLiteral(IOS_SOURCE_DIR "/sample_models/onnx/squeezenet1_1.onnx"));
        QVERIFY(in.open(QIODevice::ReadOnly));
        QByteArray bytes = in.readAll();
        const QByteArray relu("\x22\x04Relu", 6);
        const qsizetype at = bytes.indexOf(relu);
        QVERIFY(at >= 0);
        bytes.replace(at, relu.size(), QByteArray("\x22\x04Relz", 6));
        // Its output's shape, as exporters record it (an opaque operator's shape is declared).
        bytes = withValueInfo(bytes, "/features/features.1/Relu_output_0", {1, 64, 111, 111});
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("custom.onnx"));
        QFile out(path);
        QVERIFY(out.open(QIODevice::WriteOnly));
        out.write(bytes);
        out.close();

        MainWindow w;
        w.setDialogsEnabled(false);
        QVERIFY(!w.allowOpaque());
        QVERIFY(!w.openModel(path));
        // Said for GUI users: the menu option, not the CLI flag.
        QVERIFY2(w.lastError().contains(QStringLiteral("Relz")), qPrintable(w.lastError()));
        QVERIFY2(!w.lastError().contains(QStringLiteral("--allow-opaque")),
                 qPrintable(w.lastError()));
        QVERIFY2(w.lastError().contains(QStringLiteral("as Opaque")), qPrintable(w.lastError()));
        w.setAllowOpaque(true);
        QVERIFY2(w.openModel(path), qPrintable(w.lastError()));
        bool opaque = false;
        for (const auto& ref : w.model()->operators())
            opaque |= w.model()->node(ref).kind == ios::ir::NodeKind::Opaque;
        QVERIFY(opaque);
        QVERIFY(waitForResult(w));
        // The option persists.
        MainWindow again;
        QVERIFY(again.allowOpaque());
    }
};

QTEST_MAIN(TestLinkingAndHelp)
#include "tst_linking_and_help.moc"
