// SPDX-License-Identifier: Apache-2.0
// Chart data shaped like the application's (every registered scheduler, the 4 × 8 pruning
// sweep, two specialization matrices, a trade-off front, τ traces, a peak distribution), and
// the label-layout check of issue 17: every label a render drew lies inside its chart and
// overlaps no other. Shared by tst_charts and tst_analysis_tabs.
#pragma once

#include "charts.h"
#include "memory_charts.h"
#include "pareto_chart.h"
#include "schedulers/scheduler.h"

#include <QDir>
#include <QImage>
#include <QPixmap>
#include <QRegularExpression>
#include <QString>
#include <cmath>
#include <memory>

namespace chart_fixtures {

using namespace ios;

inline constexpr double kMiB = 1024.0 * 1024.0;

inline void fillComparison(views::ComparisonChart& chart) {
    std::vector<views::ComparisonEntry> entries;
    int i = 0;
    for (const schedulers::Scheduler* s : schedulers::registeredSchedulers()) {
        const double k = i++;
        entries.push_back(
            {QString::fromUtf8(s->label().data(), static_cast<qsizetype>(s->label().size())),
             12.265 - 0.41 * k, 0.0021 * std::pow(k + 1, 3), 1000 * k, 27742 * k * k,
             (20.5 + 1.75 * k) * kMiB});
    }
    chart.setData(QStringLiteral("Strategies on nasnet_large, batch 16, simulated NVIDIA Tesla "
                                 "V100-SXM2-32GB (r = 3, s = 8, memory budget 24 MiB)"),
                  std::move(entries), 14.9, 24 * kMiB);
}

inline void fillSweep(views::SweepChart& chart) {
    std::vector<int> r{1, 2, 3, 4}, s{1, 2, 3, 4, 5, 6, 7, 8};
    std::vector<double> latency, transitions, seconds;
    for (size_t ri = 0; ri < r.size(); ++ri)
        for (size_t si = 0; si < s.size(); ++si) {
            latency.push_back(12.265 - 0.0813 * static_cast<double>(ri) -
                              0.0377 * std::log(static_cast<double>(si + 1)));
            transitions.push_back(1843.0 * std::pow(2.1, static_cast<double>(ri + si)));
            seconds.push_back(0.004 * std::pow(1.9, static_cast<double>(ri + si)));
        }
    chart.setData(QStringLiteral("Pruning sweep, IOS-Both on nasnet_large, batch 1, simulated "
                                 "NVIDIA Tesla V100-SXM2-32GB"),
                  r, s, latency, transitions, seconds);
}

inline void fillHeatMap(views::HeatMapChart& chart) {
    views::HeatMatrix batch{
        QStringLiteral("Optimised for batch size (latency at each)"),
        {QStringLiteral("batch 1"), QStringLiteral("batch 32"), QStringLiteral("batch 128")},
        {{4.112, 61.73, 240.5}, {4.120, 61.37, 239.9}, {4.137, 61.52, 238.8}}};
    views::HeatMatrix device{QStringLiteral("Optimised for device (latency at each)"),
                             {QStringLiteral("V100"), QStringLiteral("A100"),
                              QStringLiteral("H100"), QStringLiteral("K80")},
                             {{4.112, 2.931, 1.702, 19.11},
                              {4.131, 2.902, 1.731, 19.64},
                              {4.190, 2.950, 1.688, 19.80},
                              {4.390, 3.120, 1.790, 18.40}}};
    chart.setData({batch, device});
}

inline void fillPareto(views::ParetoChart& chart) {
    auto front = std::make_shared<schedulers::ParetoFront>();
    for (int i = 0; i < 6; ++i) {
        schedulers::ParetoPoint pt;
        pt.budget = i == 0 ? 0 : static_cast<int64_t>((30 - 2 * i) * kMiB);
        pt.peakBytes = static_cast<int64_t>((29.5 - 2.1 * i) * kMiB);
        pt.latencyMs = 12.265 + 0.137 * i * i;
        front->points.push_back(pt);
    }
    front->unconstrainedPeak = front->points.front().peakBytes;
    front->smallestPeak = front->points.back().peakBytes;
    front->seconds = 3.42;
    chart.setFront(front, QStringLiteral("IOS-Both"));
    chart.setCurrent(front->points[2].peakBytes, front->points[2].latencyMs,
                     front->points[2].budget);
}

inline void fillTau(views::TauTraceChart& chart) {
    std::vector<views::DpPartition> parts;
    for (int k = 0; k < 3; ++k) {
        views::DpPartition part;
        part.ops = {k * 10, k * 10 + 1, k * 10 + 2};
        part.peak = static_cast<int64_t>((18 + k) * kMiB);
        for (int i = 0; i < 6; ++i)
            part.trace.push_back({static_cast<int64_t>((16.5 + k + 0.6 * i) * kMiB),
                                  i == 5   ? schedulers::serenity::DpStatus::Solution
                                  : i == 3 ? schedulers::serenity::DpStatus::Timeout
                                           : schedulers::serenity::DpStatus::NoSolution});
        parts.push_back(part);
    }
    chart.setData(QStringLiteral("Soft budget, block 7 (NasNet-A cell)"), parts);
}

inline void fillPeaks(views::PeakDistributionChart& chart) {
    views::PeakWindow w;
    w.ops = {11, 12, 13, 14, 15, 16};
    for (int i = 0; i < 8; ++i)
        w.peaks.push_back({static_cast<int64_t>((12.25 + 0.75 * i) * kMiB), 10.0 + i * (8 - i)});
    for (const auto& [peak, n] : w.peaks)
        w.orders += n;
    w.filePeak = w.peaks[5].first;
    chart.setData(QStringLiteral("Peaks of every order, block 7"), w,
                  QStringLiteral("ops 11–16: reduction_cell_0/… → reduction_cell_0/concat"));
}

// Renders `chart` at `size` as the widget paints itself; empty when every label lies inside
// the chart and no two overlap, else what is wrong. Saves a PNG under $IOS_CHART_PNG_DIR.
inline QString labelLayoutProblem(views::ChartWidget& chart, QSize size, const QString& name) {
    chart.resize(size);
    const QImage image = chart.grab().toImage();
    if (const QByteArray dir = qgetenv("IOS_CHART_PNG_DIR"); !dir.isEmpty())
        image.save(
            QDir(QString::fromLocal8Bit(dir))
                .filePath(
                    QStringLiteral("%1-%2x%3.png").arg(name).arg(size.width()).arg(size.height())));
    const auto& labels = chart.lastLabels();
    if (labels.empty())
        return QStringLiteral("no labels drawn");
    if (chart.lastLabelRects().size() != labels.size())
        return QStringLiteral("lastLabelRects() and lastLabels() disagree");
    const QRectF bounds = chart.lastLabelBounds();
    if (!QRectF(chart.rect()).contains(bounds))
        return QStringLiteral("the label bounds leave the widget");
    auto text = [](const QRectF& r) {
        return QStringLiteral("(%1,%2 %3×%4)").arg(r.x()).arg(r.y()).arg(r.width()).arg(r.height());
    };
    // A tick label (a number, maybe with a unit) is drawn whole or not at all.
    static const QRegularExpression cutTick(QStringLiteral("^[×0-9., −-]+…$"));
    for (const ios::views::ChartLabel& l : labels)
        if (cutTick.match(l.text).hasMatch())
            return QStringLiteral("tick label cut: \"%1\"").arg(l.text);
    for (size_t i = 0; i < labels.size(); ++i) {
        if (!bounds.adjusted(-0.5, -0.5, 0.5, 0.5).contains(labels[i].rect))
            return QStringLiteral("\"%1\" %2 leaves the chart %3")
                .arg(labels[i].text, text(labels[i].rect), text(bounds));
        for (size_t j = 0; j < i; ++j) {
            const QRectF both = labels[i].rect.intersected(labels[j].rect);
            if (both.width() > 0.5 && both.height() > 0.5)
                return QStringLiteral("\"%1\" %2 overlaps \"%3\" %4")
                    .arg(labels[i].text, text(labels[i].rect), labels[j].text,
                         text(labels[j].rect));
        }
    }
    return {};
}

inline bool hasLabel(const views::ChartWidget& chart, const QString& text) {
    for (const views::ChartLabel& l : chart.lastLabels())
        if (l.text == text)
            return true;
    return false;
}

} // namespace chart_fixtures
