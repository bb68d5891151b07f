// SPDX-License-Identifier: Apache-2.0
#include "palette.h"

#include <algorithm>
#include <array>
#include <cmath>

namespace ios::views {

QColor kindColor(ir::NodeKind kind) {
    switch (kind) {
    case ir::NodeKind::Conv:
        return QColor(0x4c, 0x78, 0xa8);
    case ir::NodeKind::Pool:
        return QColor(0xf5, 0x85, 0x18);
    case ir::NodeKind::Identity:
        return QColor(0x9d, 0x9d, 0x9d);
    case ir::NodeKind::Relu:
        return QColor(0x54, 0xa2, 0x4b);
    case ir::NodeKind::Activation:
        return QColor(0x88, 0xd2, 0x7a);
    case ir::NodeKind::Element:
        return QColor(0xb2, 0x79, 0xa2);
    case ir::NodeKind::Sequential:
        return QColor(0x72, 0xb7, 0xb2);
    case ir::NodeKind::Norm:
        return QColor(0xed, 0xc9, 0x48);
    case ir::NodeKind::Matmul:
        return QColor(0x2f, 0x4b, 0x7c);
    case ir::NodeKind::Tokens:
        return QColor(0xa0, 0xcb, 0xe8);
    case ir::NodeKind::Opaque:
        return QColor(0x6b, 0x5b, 0x3e);
    case ir::NodeKind::Placeholder:
        return QColor(0xe4, 0x57, 0x56);
    }
    return Qt::gray;
}

QString kindLabel(ir::NodeKind kind) {
    return QString::fromUtf8(ir::toString(kind));
}

QColor categoricalColor(int index) {
    // Tableau-20-like: strong colours first, then their light variants.
    static constexpr std::array<QRgb, 20> colors{0x1f77b4, 0xff7f0e, 0x2ca02c, 0xd62728, 0x9467bd,
                                                 0x8c564b, 0xe377c2, 0x7f7f7f, 0xbcbd22, 0x17becf,
                                                 0xaec7e8, 0xffbb78, 0x98df8a, 0xff9896, 0xc5b0d5,
                                                 0xc49c94, 0xf7b6d2, 0xc7c7c7, 0xdbdb8d, 0x9edae5};
    const auto n = static_cast<int>(colors.size());
    return QColor(colors[static_cast<size_t>(((index % n) + n) % n)]);
}

QColor selectionColor() {
    return QColor(0x11, 0x11, 0x11);
}

QColor stageContextColor() {
    return QColor(0xaa, 0x00, 0xff);
}

QColor stageColor(int stageInBlock) {
    return categoricalColor(stageInBlock);
}

QColor tensorColor(int tensor) {
    if (tensor <= 0)
        return QColor(0xb8, 0xb8, 0xb8);
    const double hue = std::fmod(0.58 + tensor * 0.381966, 1.0); // golden angle
    const double saturation = tensor % 2 == 0 ? 0.45 : 0.62;
    const double value = tensor % 3 == 0 ? 0.80 : 0.92;
    return QColor::fromHsvF(static_cast<float>(hue), static_cast<float>(saturation),
                            static_cast<float>(value));
}

QColor heatColor(double t) {
    // Piecewise-linear approximation of viridis.
    static constexpr std::array<QRgb, 6> stops{0x440154, 0x414487, 0x2a788e,
                                               0x22a884, 0x7ad151, 0xfde725};
    t = std::clamp(std::isfinite(t) ? t : 0.0, 0.0, 1.0);
    const double x = t * (stops.size() - 1);
    const auto i = std::min(static_cast<size_t>(x), stops.size() - 2);
    const double f = x - static_cast<double>(i);
    const QColor a(stops[i]), b(stops[i + 1]);
    return QColor::fromRgbF(static_cast<float>(a.redF() + f * (b.redF() - a.redF())),
                            static_cast<float>(a.greenF() + f * (b.greenF() - a.greenF())),
                            static_cast<float>(a.blueF() + f * (b.blueF() - a.blueF())));
}

} // namespace ios::views
