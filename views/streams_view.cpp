// SPDX-License-Identifier: Apache-2.0
#include "streams_view.h"

#include "chart_style.h"
#include "palette.h"
#include "units.h"

#include <QButtonGroup>
#include <QComboBox>
#include <QHBoxLayout>
#include <QHelpEvent>
#include <QKeyEvent>
#include <QLabel>
#include <QMouseEvent>
#include <QPainter>
#include <QPushButton>
#include <QToolButton>
#include <QToolTip>
#include <QVBoxLayout>
#include <QWheelEvent>
#include <algorithm>
#include <cmath>

namespace ios::views {

// The drawing surface: forwards painting and input to the view, which owns the state.
class StreamsCanvas : public QWidget {
public:
    explicit StreamsCanvas(StreamsView* view) : QWidget(view), view_(view) {
        setMouseTracking(true);
        setFocusPolicy(Qt::StrongFocus);
        setMinimumHeight(200);
    }

protected:
    void paintEvent(QPaintEvent*) override {
        QPainter p(this);
        view_->render(p, rect());
    }
    void resizeEvent(QResizeEvent*) override {
        view_->axisState_.setPixelRange(StreamsView::kLabelWidth,
                                        width() - StreamsView::kLabelWidth - 12);
    }
    void wheelEvent(QWheelEvent* e) override {
        // Ctrl: zoom; otherwise scroll the lanes when they overflow, else pan in x.
        const QPoint d = e->angleDelta();
        if (e->modifiers() & Qt::ControlModifier)
            view_->zoomAt(e->position().x(), std::pow(1.0015, d.y()));
        else if (e->modifiers() & Qt::ShiftModifier || d.x() != 0 || !view_->lanesOverflow())
            view_->panBy(-(d.x() != 0 ? d.x() : d.y()) * 0.5, 0);
        else
            view_->panBy(0, -d.y() * 0.5);
        e->accept();
    }
    void mousePressEvent(QMouseEvent* e) override {
        press_ = last_ = e->position();
        setFocus();
    }
    void mouseMoveEvent(QMouseEvent* e) override {
        if (!(e->buttons() & Qt::LeftButton))
            return;
        view_->panBy(last_.x() - e->position().x(), last_.y() - e->position().y());
        last_ = e->position();
    }
    void mouseReleaseEvent(QMouseEvent* e) override {
        if ((e->position() - press_).manhattanLength() < 4)
            view_->clickAt(e->position());
    }
    void mouseDoubleClickEvent(QMouseEvent*) override { view_->fitToView(); }
    void keyPressEvent(QKeyEvent* e) override {
        const double centre = StreamsView::kLabelWidth + (width() - StreamsView::kLabelWidth) / 2.0;
        switch (e->key()) {
        case Qt::Key_Plus:
        case Qt::Key_Equal:
            view_->zoomAt(centre, 1.25);
            return;
        case Qt::Key_Minus:
            view_->zoomAt(centre, 0.8);
            return;
        case Qt::Key_F:
        case Qt::Key_0:
            view_->fitToView();
            return;
        case Qt::Key_Left:
            view_->panBy(-60, 0);
            return;
        case Qt::Key_Right:
            view_->panBy(60, 0);
            return;
        default:
            QWidget::keyPressEvent(e);
        }
    }
    bool event(QEvent* e) override {
        if (e->type() == QEvent::ToolTip) {
            auto* help = static_cast<QHelpEvent*>(e);
            const QString text = view_->tooltipAt(help->pos());
            if (text.isEmpty())
                QToolTip::hideText();
            else
                QToolTip::showText(help->globalPos(), text, this);
            return true;
        }
        return QWidget::event(e);
    }

private:
    StreamsView* view_;
    QPointF press_, last_;
};

StreamsView::StreamsView(QWidget* parent) : QWidget(parent) {
    canvas_ = new StreamsCanvas(this);
    blockBox_ = new QComboBox(this);
    blockBox_->setToolTip(tr("The block whose program is shown"));
    blockBox_->setSizeAdjustPolicy(QComboBox::AdjustToContents);
    issueButton_ = new QToolButton(this);
    issueButton_->setText(tr("Issue order"));
    issueButton_->setToolTip(tr("x = instruction index: the order the host issues them"));
    timeButton_ = new QToolButton(this);
    timeButton_->setText(tr("Simulated time"));
    timeButton_->setToolTip(tr("x = when each instruction took effect in the simulation"));
    for (QToolButton* b : {issueButton_, timeButton_}) {
        b->setCheckable(true);
    }
    axisGroup_ = new QButtonGroup(this);
    axisGroup_->setExclusive(true);
    axisGroup_->addButton(issueButton_, 0);
    axisGroup_->addButton(timeButton_, 1);
    issueButton_->setChecked(true);
    auto* fit = new QPushButton(tr("Fit"), this);
    fit->setToolTip(tr("Show the whole block (F, or double-click)"));
    hint_ = new QLabel(tr("Ctrl+wheel: zoom · drag: pan"), this);
    hint_->setToolTip(tr("Ctrl+wheel or +/−: zoom · drag, wheel or ←/→: pan · F or double-click: "
                         "fit · click a launch: select its operator · hover: details"));
    hint_->setStyleSheet(QStringLiteral("color: #606060"));

    auto* bar = new QHBoxLayout;
    bar->setContentsMargins(4, 2, 4, 2);
    bar->addWidget(blockBox_);
    bar->addWidget(issueButton_);
    bar->addWidget(timeButton_);
    bar->addWidget(fit);
    bar->addStretch(1);
    bar->addWidget(hint_);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->setSpacing(0);
    layout->addLayout(bar);
    layout->addWidget(canvas_, 1);

    connect(blockBox_, &QComboBox::activated, this, [this](int i) { setBlock(i); });
    connect(axisGroup_, &QButtonGroup::idClicked, this, [this](int id) {
        setAxis(id == 1 ? StreamAxis::SimulatedTime : StreamAxis::IssueOrder);
    });
    connect(fit, &QPushButton::clicked, this, &StreamsView::fitToView);
    updateControls();
}

QWidget* StreamsView::canvas() const {
    return canvas_;
}

void StreamsView::clear() {
    model_.reset();
    program_.clear();
    runs_.clear();
    title_.clear();
    note_.clear();
    block_ = 0;
    selected_.clear();
    layout_ = {};
    hits_.clear();
    updateControls();
    canvas_->update();
}

void StreamsView::setProgram(LoadedModelPtr model, schedule::Program program,
                             std::vector<cost::ProgramRun> runs, const QString& title,
                             const QString& note) {
    const bool sameShape = model == model_ && program.size() == program_.size();
    model_ = std::move(model);
    program_ = std::move(program);
    runs_ = runs.size() == program_.size() ? std::move(runs) : std::vector<cost::ProgramRun>{};
    title_ = title;
    note_ = note;
    selected_.clear();
    if (!model_ || program_.size() > model_->dags().size())
        program_.clear();
    if (!sameShape || block_ >= blockCount()) {
        // Open on the block that shows the most: most streams, then most waits.
        block_ = 0;
        std::pair<int, int> best{-1, -1};
        for (int b = 0; b < blockCount(); ++b) {
            const schedule::ProgramCounts c = schedule::counts(program_[static_cast<size_t>(b)]);
            if (std::pair(c.streams, c.waits) > best) {
                best = {c.streams, c.waits};
                block_ = b;
            }
        }
    }
    updateControls();
    relayout();
    fitToView();
}

const schedule::StreamProgram* StreamsView::blockProgram() const {
    return block_ < blockCount() ? &program_[static_cast<size_t>(block_)] : nullptr;
}

schedule::ProgramCounts StreamsView::blockCounts() const {
    const schedule::StreamProgram* p = blockProgram();
    return p ? schedule::counts(*p) : schedule::ProgramCounts{};
}

void StreamsView::updateControls() {
    const QSignalBlocker block(blockBox_);
    blockBox_->clear();
    for (int b = 0; b < blockCount(); ++b) {
        const schedule::ProgramCounts c = schedule::counts(program_[static_cast<size_t>(b)]);
        blockBox_->addItem(
            tr("Block %1 · %2 launches, %3 streams").arg(b).arg(c.launches).arg(c.streams));
    }
    blockBox_->setCurrentIndex(block_);
    blockBox_->setVisible(blockCount() > 1);
    timeButton_->setEnabled(canShowTime());
    timeButton_->setToolTip(
        canShowTime() ? tr("x = when each instruction took effect in the simulation")
                      : tr("No simulated times for this program%1")
                            .arg(note_.isEmpty() ? QString() : QStringLiteral(": ") + note_));
}

void StreamsView::relayout() {
    const schedule::StreamProgram* p = blockProgram();
    hits_.clear();
    if (!p) {
        layout_ = {};
        return;
    }
    const ir::BlockDag& dag = model_->dags()[static_cast<size_t>(block_)];
    layout_ = layoutStreams(dag, *p, wantedAxis_,
                            canShowTime() ? &runs_[static_cast<size_t>(block_)] : nullptr);
    (layout_.axis == StreamAxis::SimulatedTime ? timeButton_ : issueButton_)->setChecked(true);
}

void StreamsView::setBlock(int block) {
    if (block < 0 || block >= blockCount())
        return;
    block_ = block;
    selected_.clear();
    blockBox_->setCurrentIndex(block);
    relayout();
    fitToView();
}

void StreamsView::setAxis(StreamAxis axis) {
    wantedAxis_ = axis;
    relayout();
    fitToView();
}

void StreamsView::fitToView() {
    axisState_ = TimeAxis(layout_.extent, kLabelWidth, canvas_->width() - kLabelWidth - 12);
    scrollY_ = 0;
    canvas_->update();
}

void StreamsView::zoomAt(double x, double factor) {
    axisState_.zoomAt(x, factor);
    canvas_->update();
}

void StreamsView::panBy(double dx, double dy) {
    if (dx != 0)
        axisState_.panPixels(dx);
    if (dy != 0) {
        const Geometry g = geometry(canvas_->rect());
        const double content = g.laneHeight * static_cast<double>(layout_.laneStreams.size());
        scrollY_ = std::clamp(scrollY_ + dy, 0.0, std::max(0.0, content - g.plot.height()));
    }
    canvas_->update();
}

bool StreamsView::lanesOverflow() const {
    const Geometry g = geometry(canvas_->rect());
    return g.laneHeight * static_cast<double>(layout_.laneStreams.size()) > g.plot.height();
}

bool StreamsView::selectOperators(const std::vector<int>& flatIndices) {
    selected_.clear();
    if (!model_ || program_.empty()) {
        canvas_->update();
        return false;
    }
    int target = -1;
    for (int flat : flatIndices)
        if (flat >= 0 && flat < model_->operatorCount()) {
            target = model_->operators()[static_cast<size_t>(flat)].block;
            break;
        }
    if (target < 0 || target >= blockCount()) {
        canvas_->update();
        return false;
    }
    if (target != block_)
        setBlock(target);
    for (int flat : flatIndices) {
        if (flat < 0 || flat >= model_->operatorCount())
            continue;
        const OperatorRef ref = model_->operators()[static_cast<size_t>(flat)];
        const int launch = ref.block == block_ ? layout_.launchOfOperator(ref.op) : -1;
        if (launch >= 0 && std::find(selected_.begin(), selected_.end(), launch) == selected_.end())
            selected_.push_back(launch);
    }
    if (!selected_.empty())
        scrollToLaunch(selected_.front());
    canvas_->update();
    return !selected_.empty();
}

void StreamsView::clearSelection() {
    selected_.clear();
    canvas_->update();
}

std::vector<int> StreamsView::highlightedArrows() const {
    std::vector<int> out;
    for (int l : selected_)
        for (int a : layout_.launches[static_cast<size_t>(l)].waitArrows)
            if (std::find(out.begin(), out.end(), a) == out.end())
                out.push_back(a);
    std::sort(out.begin(), out.end());
    return out;
}

void StreamsView::scrollToLaunch(int launch) {
    const StreamLaunch& l = layout_.launches[static_cast<size_t>(launch)];
    if (l.x0 < axisState_.visibleStart() || l.x1 > axisState_.visibleEnd()) {
        const double half = axisState_.visibleDuration() / 2;
        const double mid = (l.x0 + l.x1) / 2;
        axisState_.setVisible(mid - half, mid + half);
    }
    const Geometry g = geometry(canvas_->rect());
    const double y = g.laneHeight * l.lane;
    if (y < scrollY_ || y + g.laneHeight > scrollY_ + g.plot.height())
        panBy(0, y - scrollY_ - (g.plot.height() - g.laneHeight) / 2);
}

int StreamsView::hitLaunchAt(const QPointF& pos) const {
    for (auto it = hits_.rbegin(); it != hits_.rend(); ++it)
        if (it->kind == Hit::Launch && it->rect.contains(pos))
            return it->index;
    return -1;
}

QRectF StreamsView::launchRect(int launch) const {
    for (const Hit& h : hits_)
        if (h.kind == Hit::Launch && h.index == launch)
            return h.rect;
    return {};
}

void StreamsView::clickAt(const QPointF& pos) {
    const int launch = hitLaunchAt(pos);
    if (launch < 0)
        return;
    selected_ = {launch};
    canvas_->update();
    const StreamLaunch& l = layout_.launches[static_cast<size_t>(launch)];
    if (!l.synthetic && model_)
        Q_EMIT operatorSelected(model_->flatIndex({block_, l.ops.front()}));
}

// --- tooltips ---------------------------------------------------------------------------

QString StreamsView::timeText(int instruction) const {
    if (layout_.axis != StreamAxis::SimulatedTime)
        return {};
    const cost::ProgramRun& run = runs_[static_cast<size_t>(block_)];
    return formatMs(run.instructionUs[static_cast<size_t>(instruction)] / 1000.0);
}

QString StreamsView::eventText(int arrow, bool fromWaitSide) const {
    const StreamArrow& a = layout_.arrows[static_cast<size_t>(arrow)];
    const auto name = [this](int launch) {
        return launch < 0
                   ? tr("nothing")
                   : QString::fromStdString(layout_.launches[static_cast<size_t>(launch)].name)
                         .toHtmlEscaped();
    };
    const int recordStream = layout_.laneStreams[static_cast<size_t>(a.fromLane)];
    const int waitStream = layout_.laneStreams[static_cast<size_t>(a.toLane)];
    return fromWaitSide ? tr("e%1 (recorded on stream %2 after %3)")
                              .arg(a.event)
                              .arg(recordStream)
                              .arg(name(a.fromLaunch))
                        : tr("e%1 (waited on by stream %2 before %3)")
                              .arg(a.event)
                              .arg(waitStream)
                              .arg(name(a.toLaunch));
}

QString StreamsView::launchTooltip(int launch) const {
    const StreamLaunch& l = layout_.launches[static_cast<size_t>(launch)];
    QString text = tr("<b>%1</b>").arg(QString::fromStdString(l.name).toHtmlEscaped());
    if (l.synthetic)
        text += tr(" — synthetic tuple launch (RAF): no kernel, orders work like a launch");
    else if (l.ops.size() > 1)
        text += tr(" — one merged convolution of %1 operators").arg(l.ops.size());
    else if (model_)
        text += QStringLiteral(" (%1)").arg(kindLabel(model_->node({block_, l.ops.front()}).kind));
    text += tr("<br>instruction #%1 on stream %2").arg(l.instruction).arg(l.stream);
    QStringList waits, records;
    for (int a : l.waitArrows)
        waits << eventText(a, true);
    for (int a : l.recordArrows)
        records << eventText(a, false);
    text += waits.isEmpty() ? tr("<br>waits on no event")
                            : tr("<br>waits on %1").arg(waits.join(QStringLiteral(", ")));
    if (!records.isEmpty())
        text += tr("<br>records %1").arg(records.join(QStringLiteral(", ")));
    if (layout_.axis == StreamAxis::SimulatedTime)
        text += tr("<br>simulated: start %1, end %2 (%3)")
                    .arg(formatMs(l.x0 / 1000.0), formatMs(l.x1 / 1000.0),
                         formatMs((l.x1 - l.x0) / 1000.0));
    return text;
}

QString StreamsView::arrowTooltip(int arrow) const {
    const StreamArrow& a = layout_.arrows[static_cast<size_t>(arrow)];
    QString text = tr("<b>event e%1</b>: %2<br>%3")
                       .arg(a.event)
                       .arg(eventText(arrow, true), eventText(arrow, false));
    text += tr("<br>record #%1, wait #%2").arg(a.record).arg(a.wait);
    if (layout_.axis == StreamAxis::SimulatedTime)
        text += tr("<br>captured work done at %1; stream released at %2")
                    .arg(timeText(a.record), timeText(a.wait));
    return text;
}

QString StreamsView::tooltipAt(const QPointF& pos) const {
    auto distance = [](const QPointF& p, const QPointF& a, const QPointF& b) {
        const QPointF d = b - a;
        const double len2 = QPointF::dotProduct(d, d);
        const double t =
            len2 > 0 ? std::clamp(QPointF::dotProduct(p - a, d) / len2, 0.0, 1.0) : 0.0;
        const QPointF q = a + t * d - p;
        return std::sqrt(QPointF::dotProduct(q, q));
    };
    for (auto it = hits_.rbegin(); it != hits_.rend(); ++it) {
        switch (it->kind) {
        case Hit::Launch:
            if (it->rect.contains(pos))
                return launchTooltip(it->index);
            break;
        case Hit::Mark:
            if (it->rect.contains(pos)) {
                const StreamMark& m = layout_.marks[static_cast<size_t>(it->index)];
                for (size_t a = 0; a < layout_.arrows.size(); ++a)
                    if ((m.record ? layout_.arrows[a].record : layout_.arrows[a].wait) ==
                        m.instruction)
                        return arrowTooltip(static_cast<int>(a));
                return tr("%1 e%2 (#%3)")
                    .arg(m.record ? tr("record") : tr("wait"))
                    .arg(m.event)
                    .arg(m.instruction);
            }
            break;
        case Hit::Arrow:
            for (size_t k = 1; k < it->path.size(); ++k)
                if (distance(pos, it->path[k - 1], it->path[k]) < 4)
                    return arrowTooltip(it->index);
            break;
        case Hit::Divider:
            if (it->rect.contains(pos)) {
                const StreamDivider& d = layout_.dividers[static_cast<size_t>(it->index)];
                QString text = d.sync ? tr("<b>device sync</b> (#%1): the host waits until the "
                                           "device is idle")
                                      : tr("<b>stream barrier</b> (#%1): every stream joins; the "
                                           "host runs on");
                text = text.arg(d.instruction);
                if (layout_.axis == StreamAxis::SimulatedTime)
                    text += tr("<br>at %1").arg(timeText(d.instruction));
                return text;
            }
            break;
        }
    }
    return {};
}

void StreamsView::render(QPainter& p, const QRect& area) {
    lastArea_ = area;
    hits_.clear();
    p.save();
    p.fillRect(area, QColor(0xfc, 0xfc, 0xfc));
    setPixelFont(p, 12);
    if (!blockProgram()) {
        p.setPen(Qt::darkGray);
        p.drawText(area, Qt::AlignCenter,
                   title_.isEmpty() ? tr("Run a search to see its stream program.") : title_);
        p.restore();
        return;
    }
    TimeAxis axis = axisState_;
    axis.setPixelRange(area.left() + kLabelWidth, area.width() - kLabelWidth - 12);
    hits_ = StreamsPainter(*this).paint(p, area, axis);
    p.restore();
}

// Each item unbreakable, so a narrow view wraps between items.
QString StreamsView::countsText() const {
    const schedule::ProgramCounts c = blockCounts();
    int synthetic = 0;
    for (const StreamLaunch& l : layout_.launches)
        synthetic += l.synthetic ? 1 : 0;
    QStringList items;
    items << tr("Block %1 of %2").arg(block_).arg(blockCount());
    if (canShowTime()) {
        double total = 0;
        for (const cost::ProgramRun& r : runs_)
            total += r.latencyUs;
        items << tr("simulated latency %1 (whole program %2)")
                     .arg(formatMs(runs_[static_cast<size_t>(block_)].latencyUs / 1000.0),
                          formatMs(total / 1000.0));
    }
    items << tr("%1 streams").arg(c.streams) << tr("%1 events").arg(c.events)
          << tr("%1 waits").arg(c.waits) << tr("%1 barriers").arg(c.barriers)
          << tr("%1 syncs").arg(c.syncs)
          << (synthetic > 0 ? tr("%1 launches (%2 synthetic)").arg(c.launches).arg(synthetic)
                            : tr("%1 launches").arg(c.launches));
    for (QString& item : items)
        item.replace(QLatin1Char(' '), QChar(0xa0));
    if (!canShowTime() && !note_.isEmpty())
        items << tr("not simulated: %1").arg(note_);
    return items.join(QStringLiteral(" · "));
}

ShortcutTable StreamsView::shortcuts() const {
    return {{tr("+ / −"), tr("Zoom in / out")},
            {tr("F, 0, double-click"), tr("Fit the program")},
            {tr("← / →"), tr("Pan")},
            {tr("Ctrl+wheel"), tr("Zoom around the cursor")},
            {tr("Wheel, Shift+wheel"), tr("Scroll the lanes, pan in time")}};
}

QWidget* StreamsView::keyTarget() {
    return canvas_;
}

} // namespace ios::views
