// The state-space view: part selection and drawing without a model (the layer arithmetic is
// tested with the index in tst_state_space_index).
#include "state_space_view.h"

#include <QImage>
#include <QPainter>
#include <QTest>

using namespace ios;

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
};

QTEST_MAIN(TestStateSpaceView)
#include "tst_state_space_view.moc"
