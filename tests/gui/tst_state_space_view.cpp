// The state-space view: layer of a state (operators already scheduled) and part selection.
#include "state_space_view.h"

#include <QImage>
#include <QPainter>
#include <QTest>

using namespace ios;

class TestStateSpaceView : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void layer_data() {
        QTest::addColumn<quint64>("low");
        QTest::addColumn<quint64>("high");
        QTest::addColumn<int>("partSize");
        QTest::addColumn<int>("layer");
        QTest::newRow("start: nothing scheduled") << quint64(0b1111) << quint64(0) << 4 << 0;
        QTest::newRow("end: all scheduled") << quint64(0) << quint64(0) << 4 << 4;
        QTest::newRow("two left") << quint64(0b1010) << quint64(0) << 4 << 2;
        QTest::newRow("second word counts") << ~quint64(0) << quint64(0b111) << 70 << 3;
    }
    void layer() {
        QFETCH(quint64, low);
        QFETCH(quint64, high);
        QFETCH(int, partSize);
        QFETCH(int, layer);
        schedulers::StateSpace::State st;
        st.remaining = {low, high};
        QCOMPARE(schedulers::stateLayer(st, partSize), layer);
    }

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
};

QTEST_MAIN(TestStateSpaceView)
#include "tst_state_space_view.moc"
