// SPDX-License-Identifier: Apache-2.0
// The graph's find box (issue 32 item 6, Netron-style): words match the name, the type on the
// node ("concat" found nothing when only names were searched) or the kind; field terms narrow
// by type, kernel, stride, shape, block and stage; Enter steps through the matches; editing the
// query clears an old "no match".
#include "graph_labels.h"
#include "graph_view.h"
#include "loaded_model.h"
#include "operator_item.h"
#include "operator_query.h"
#include "palette.h"

#include <QLineEdit>
#include <QSignalSpy>
#include <QTest>
#include <algorithm>

using namespace ios;
using namespace ios::views;

namespace {

LoadedModelPtr inception() {
    static const LoadedModelPtr model = loadModel(QStringLiteral("inception_v3"));
    return model;
}

std::vector<int> find(const QString& text) {
    const OperatorQuery query(text);
    return findOperators(*inception(), ScheduleIndex(), query, text);
}

const ir::Node& node(int flat) {
    return inception()->node(inception()->operators()[static_cast<size_t>(flat)]);
}

bool hasWindow(const ir::Node& n, ir::Hw kernel) {
    if ((n.kind == ir::NodeKind::Conv && n.conv.kernel == kernel) ||
        (n.kind == ir::NodeKind::Pool && n.pool.kernel == kernel))
        return true;
    for (const ir::Node& inner : n.nodes)
        if (hasWindow(inner, kernel))
            return true;
    return false;
}

} // namespace

class TestOperatorQuery : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void typeWordsFindOperatorsNamesDoNot() {
        // InceptionV3's concatenations are named "Mixed_…", typed Concat.
        const std::vector<int> concats = find(QStringLiteral("concat"));
        QVERIFY(!concats.empty());
        for (int flat : concats) // the title on the node says so (or its name does)
            QVERIFY2(
                operatorTitle(node(flat)).contains(QLatin1String("concat"), Qt::CaseInsensitive) ||
                    kindLabel(node(flat).kind)
                        .contains(QLatin1String("concat"), Qt::CaseInsensitive) ||
                    QString::fromStdString(node(flat).name)
                        .contains(QLatin1String("concat"), Qt::CaseInsensitive),
                node(flat).name.c_str());
        // The name-only search of before found none of them.
        QVERIFY(find(QStringLiteral("name:concat")).size() < concats.size());
        QCOMPARE(find(QStringLiteral("type:concat")).size(), concats.size());
        QCOMPARE(find(QStringLiteral("TYPE:Concat")).size(), concats.size());
    }

    void kernelAndTypeTogether() {
        const std::vector<int> all3 = find(QStringLiteral("kernel:3x3"));
        const std::vector<int> conv3 = find(QStringLiteral("type:conv kernel:3x3"));
        QVERIFY(!conv3.empty());
        QVERIFY(conv3.size() <= all3.size());
        for (int flat : conv3)
            QVERIFY2(hasWindow(node(flat), {3, 3}), node(flat).name.c_str());
        // 3 is square, × works as x; an asymmetric kernel is its own.
        QCOMPARE(find(QStringLiteral("k:3")).size(), all3.size());
        QCOMPARE(find(QString::fromUtf8("kernel:3×3")).size(), all3.size());
        const std::vector<int> oneBySeven = find(QStringLiteral("kernel:1x7"));
        QVERIFY(!oneBySeven.empty()); // Inception's factorised 7×7
        for (int flat : oneBySeven)
            QVERIFY(hasWindow(node(flat), {1, 7}));
        QVERIFY(find(QStringLiteral("kernel:3x3 stride:2")).size() < all3.size());
    }

    void blockAndNameFields() {
        for (int flat : find(QStringLiteral("block:2")))
            QCOMPARE(inception()->operators()[static_cast<size_t>(flat)].block, 2);
        const QString name = QString::fromStdString(node(20).name);
        const std::vector<int> named = find(QStringLiteral("name:") + name);
        QVERIFY(std::find(named.begin(), named.end(), 20) != named.end());
        for (int flat : named)
            QVERIFY(QString::fromStdString(node(flat).name).contains(name, Qt::CaseInsensitive));
        QVERIFY(named.size() < find(QStringLiteral("block:") +
                                    QString::number(inception()->operators()[20].block))
                                   .size() ||
                named.size() == 1);
    }

    void errorsNameTheField() {
        QVERIFY(
            OperatorQuery(QStringLiteral("colour:red")).error().contains(QLatin1String("colour")));
        QVERIFY(!OperatorQuery(QStringLiteral("kernel:big")).error().isEmpty());
        QVERIFY(!OperatorQuery(QStringLiteral("block:x")).error().isEmpty());
        QVERIFY(OperatorQuery(QStringLiteral("type:conv kernel:3")).error().isEmpty());
    }

    // Enter steps through the matches; an edit clears an old "no match".
    void findBoxStepsAndClears() {
        GraphView view;
        view.resize(1280, 800);
        view.show();
        QSignalSpy ready(&view, &GraphView::layoutReady);
        view.setModel(inception());
        QVERIFY(view.isLayoutReady() || ready.wait(120000));
        const QString counts = view.infoText();

        QVERIFY(!view.findOperator(QStringLiteral("nosuchthing")));
        QVERIFY(view.infoText().contains(QLatin1String("No operator matches")));
        QTest::keyClick(view.findBox(), Qt::Key_X); // typing again: the old message goes
        QCOMPARE(view.infoText(), counts);

        const size_t n = find(QStringLiteral("concat")).size();
        QVERIFY(n >= 2);
        std::vector<int> seen;
        for (size_t i = 0; i < n; ++i) {
            QVERIFY(view.findOperator(QStringLiteral("concat")));
            const auto selected = view.scene()->selectedItems();
            QCOMPARE(selected.size(), 1);
            seen.push_back(static_cast<OperatorItem*>(selected.front())->flatIndex());
        }
        std::sort(seen.begin(), seen.end());
        QCOMPARE(std::unique(seen.begin(), seen.end()) - seen.begin(), static_cast<long>(n));
        QVERIFY(view.infoText().contains(QStringLiteral("of %1").arg(n)));
    }
};

QTEST_MAIN(TestOperatorQuery)
#include "tst_operator_query.moc"
