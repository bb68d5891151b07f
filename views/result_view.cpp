// SPDX-License-Identifier: Apache-2.0
#include "result_view.h"

#include <QPainter>
#include <QWidget>

namespace ios::views {

void ResultView::renderPicture(QPainter& painter, const QRect& area) {
    Q_UNUSED(area);
    widget()->render(&painter);
}

QSize ResultView::pictureSize() {
    return widget()->size().expandedTo(QSize(800, 500));
}

ResultView* asResultView(QWidget* widget) {
    return dynamic_cast<ResultView*>(widget);
}

} // namespace ios::views
