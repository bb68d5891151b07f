// SPDX-License-Identifier: Apache-2.0
// One tick and label engine for every QPainter chart (issue 17: labels ran together, lost
// their first digit, left the chart): a value's unit chosen once per axis and named in the
// axis title, tick labels with as many decimals as the step needs, and every label measured
// and kept inside its chart without overlapping another (a tick label that would is thinned
// out, a name is elided). The labels a render drew are kept, so tests can check the layout.
#pragma once

#include <QPainter>
#include <QRectF>
#include <QString>
#include <vector>

namespace ios::views {

// The unit of an axis: values are divided by `per` and the title says `name`.
struct AxisUnit {
    double per = 1;
    QString name; // "ms", "µs", "s", "×10³", or empty for plain numbers
    double toUnit(double value) const { return value / per; }
    // "Latency" → "Latency (ms)"; a unitless axis keeps its title.
    QString title(const QString& quantity) const;
};

// A duration axis whose largest value is `maxSeconds`: µs below 1 ms, ms below 1 s, else s.
AxisUnit durationUnit(double maxSeconds);
// The same for values in milliseconds.
AxisUnit durationUnitMs(double maxMs);
// A count axis: plain up to 10 000, else a power of 10³ (×10³, ×10⁶, …) so ticks stay short.
AxisUnit countUnit(double maxCount);

// A tick value in its axis's unit, with the decimals its step needs ("12.5" for step 0.5).
QString tickLabel(double value, double step);

// True when `step` is m × 10^k with m ∈ {1, 2, 5} (within rounding).
bool isNiceStep(double step);

struct ChartLabel {
    QRectF rect; // where the text is painted, in device coordinates
    QString text;
};

// The labels of one render: draws text only where it stays inside the chart and clear of
// the labels drawn before it (so draw the labels that matter most first).
class ChartLabels {
public:
    // `bounds` in the painter's coordinates at the time of the call.
    void reset(const QPainter& p, const QRectF& bounds);

    // Draws `text` aligned by `flags` in `box`, each line elided with `elide` to the box's
    // width (Qt::ElideNone: a line wider than the box is not drawn; wrapped text wraps).
    // Returns false, drawing nothing, when the text would leave the bounds or overlap a label
    // already drawn.
    bool draw(QPainter& p, const QRectF& box, int flags, const QString& text,
              Qt::TextElideMode elide = Qt::ElideRight);
    // Whether draw() would draw it.
    bool fits(const QPainter& p, const QRectF& box, int flags, const QString& text,
              Qt::TextElideMode elide = Qt::ElideRight) const;

    const std::vector<ChartLabel>& labels() const { return labels_; }
    const QRectF& bounds() const { return bounds_; }
    // Labels left out because they did not fit (thinned-out ticks, crowded names).
    int dropped() const { return dropped_; }

private:
    struct Placed {
        QString text;
        QRectF local;  // painter coordinates
        QRectF device; // device coordinates
    };
    Placed place(const QPainter& p, const QRectF& box, int flags, const QString& text,
                 Qt::TextElideMode elide) const;
    bool free(const QRectF& device) const;

    QRectF bounds_;
    std::vector<ChartLabel> labels_;
    int dropped_ = 0;
};

} // namespace ios::views
