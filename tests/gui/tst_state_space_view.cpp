// SPDX-License-Identifier: Apache-2.0
// The state-space view: part selection and drawing without a model (the layer arithmetic is
// tested with the index in tst_state_space_index), the chosen ending marked in the endings
// list, states marked by selected operators, and clicks that select operators.
#include "loaded_model.h"
#include "state_space_view.h"

#include <QApplication>
#include <QImage>
#include <QLabel>
#include <QPainter>
#include <QSignalSpy>
#include <QTest>

using namespace ios;

namespace {

// Block 0, part 0 holds operators 0, 1, 2 of block 0 (bits 0, 1, 2). The optimal schedule
// runs {0}, {1}, {2}; an ending {0, 1} (merge) from the full state was not chosen.
std::shared_ptr<schedulers::StateSpace> threeOperatorSpace() {
    auto space = std::make_shared<schedulers::StateSpace>();
    space->partOps = {{{0, 1, 2}}};
    space->states.push_back({0, 0, {0b111, 0}, 3.0}); // 0: everything left
    space->states.push_back({0, 0, {0b110, 0}, 2.0}); // 1: op 0 done
    space->states.push_back({0, 0, {0b100, 0}, 1.0}); // 2: ops 0, 1 done
    space->states.push_back({0, 0, {0b000, 0}, 0.0}); // 3: all done
    space->transitions.push_back({0, 1, schedule::StageKind::Parallel, 1.0});
    space->transitions.push_back({1, 2, schedule::StageKind::Parallel, 1.0});
    space->transitions.push_back({2, 3, schedule::StageKind::Parallel, 1.0});
    space->transitions.push_back({0, 2, schedule::StageKind::Merge, 2.5});
    space->chosen = {0, 1, 2};
    return space;
}

// The entry of the shown part's state that contains exactly `count` operators.
int entryWith(const views::StateSpaceView& view, size_t count) {
    for (int e = 0; e < 4; ++e)
        if (view.stateOperators(e).size() == count)
            return e;
    return -1;
}

} // namespace

class TestStateSpaceView : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void showsOnlyRecordedParts() {
        auto space = std::make_shared<schedulers::StateSpace>();
        space->partOps = {{{0, 1}}};
        space->states.push_back({0, 0, {0b11, 0}, 2.0});
        space->states.push_back({0, 0, {0b01, 0}, 1.0});
        space->states.push_back({0, 0, {0, 0}, 0.0});
        space->transitions.push_back({0, 1, schedule::StageKind::Parallel, 1.0});
        space->transitions.push_back({1, 2, schedule::StageKind::Parallel, 1.0});
        space->chosen = {0, 1};
        views::StateSpaceView view;
        view.setStateSpace(nullptr, space);
        QVERIFY(view.showPart(0, 0));
        QVERIFY(!view.showPart(0, 1));
        QVERIFY(!view.showPart(1, 0));
        QImage image(400, 300, QImage::Format_ARGB32);
        QPainter painter(&image);
        view.render(painter, image.rect()); // draws without a model
    }

    void marksTheChosenEnding() {
        const views::LoadedModelPtr model = views::loadModel(QStringLiteral("demo_figure2"));
        QVERIFY(model->dags()[0].ops.size() >= 3);
        views::StateSpaceView view;
        view.setStateSpace(model, threeOperatorSpace());
        const int full = entryWith(view, 3);
        QVERIFY(full >= 0);
        view.selectState(full);
        const QString text = view.endingsText();
        // Two endings; the one on the optimal path ({op 0}) first, bold, marked "chosen".
        QCOMPARE(text.count(QStringLiteral("href=")), 2);
        QCOMPARE(text.count(QStringLiteral("◀ chosen")), 1);
        const QString op0 = QString::fromStdString(model->node({0, 0}).name).toHtmlEscaped();
        const qsizetype chosen = text.indexOf(QStringLiteral("<b><a href=\"t:"));
        QVERIFY(chosen >= 0);
        QVERIFY(text.indexOf(QStringLiteral("merge")) > chosen);
        QVERIFY(text.mid(chosen, text.indexOf(QStringLiteral("◀ chosen")) - chosen).contains(op0));
        // Clicking the merge ending selects its two operators.
        const qsizetype merge = text.lastIndexOf(QStringLiteral("href=\"t:"));
        const QString link =
            text.mid(merge + 6, text.indexOf(QLatin1Char('"'), merge + 6) - merge - 6);
        QSignalSpy spy(&view, &views::StateSpaceView::operatorsSelected);
        for (QLabel* label : view.findChildren<QLabel*>())
            if (label->text() == text)
                Q_EMIT label->linkActivated(link);
        QCOMPARE(spy.size(), 1);
        QCOMPARE(spy.front().front().value<std::vector<int>>(),
                 (std::vector<int>{model->flatIndex({0, 0}), model->flatIndex({0, 1})}));
    }

    void selectOperatorsMarksStatesContainingThem() {
        const views::LoadedModelPtr model = views::loadModel(QStringLiteral("demo_figure2"));
        views::StateSpaceView view;
        view.setStateSpace(model, threeOperatorSpace());
        const int op1 = model->flatIndex({0, 1});
        view.selectOperators({op1});
        // States still holding op 1: everything left, and op 0 done (not 2 or 3 ops done).
        const std::vector<int> marked = view.markedStates();
        QCOMPARE(marked.size(), size_t{2});
        for (int e = 0; e < 4; ++e) {
            const std::vector<int> ops = view.stateOperators(e);
            const bool holds = std::find(ops.begin(), ops.end(), op1) != ops.end();
            QCOMPARE(std::find(marked.begin(), marked.end(), e) != marked.end(), holds);
        }
        view.selectOperators({});
        QVERIFY(view.markedStates().empty());
        // An operator of no recorded part marks nothing and keeps the part.
        view.selectOperators({model->operatorCount() - 1});
        QVERIFY(view.markedStates().empty());
        QCOMPARE(view.shownPart(), std::make_pair(0, 0));
    }

    void clickOnStateEmitsItsOperators() {
        const views::LoadedModelPtr model = views::loadModel(QStringLiteral("demo_figure2"));
        views::StateSpaceView view;
        view.setStateSpace(model, threeOperatorSpace());
        view.resize(900, 600);
        view.show();
        QVERIFY(QTest::qWaitForWindowExposed(&view));
        QSignalSpy spy(&view, &views::StateSpaceView::operatorsSelected);
        const int oneLeft = entryWith(view, 1);
        QTest::mouseClick(view.canvas(), Qt::LeftButton, {}, view.statePosition(oneLeft).toPoint());
        QCOMPARE(view.selectedState(), oneLeft);
        QCOMPARE(spy.size(), 1);
        const auto ops = spy.front().front().value<std::vector<int>>();
        QCOMPARE(ops, std::vector<int>{model->flatIndex({0, 2})});
        // → walks the optimal path: from "one left" to "none left".
        QTest::keyClick(&view, Qt::Key_Right);
        QCOMPARE(view.selectedState(), entryWith(view, 0));
        QTest::keyClick(&view, Qt::Key_Escape);
        QCOMPARE(view.selectedState(), -1);
    }

    void shortcutsAreListed() {
        const auto keys = views::StateSpaceView::shortcutHelp();
        QVERIFY(keys.size() >= 4);
        for (const auto& [key, action] : keys)
            QVERIFY(!key.isEmpty() && !action.isEmpty());
    }
};

QTEST_MAIN(TestStateSpaceView)
#include "tst_state_space_view.moc"
