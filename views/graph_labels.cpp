// SPDX-License-Identifier: Apache-2.0
#include "graph_labels.h"

#include "units.h"

#include <QObject>
#include <QStringList>
#include <algorithm>
#include <utility>
#include <vector>

namespace ios::views {

namespace {

QString hw(const ir::Hw& v) {
    return QStringLiteral("%1×%2").arg(v.h).arg(v.w);
}

// "3×3/2": kernel, and the stride only when it is not 1.
QString window(const ir::Hw& kernel, const ir::Hw& stride) {
    QString s = hw(kernel);
    if (stride != ir::Hw{1, 1})
        s += stride.h == stride.w ? QStringLiteral("/%1").arg(stride.h)
                                  : QStringLiteral("/%1×%2").arg(stride.h).arg(stride.w);
    return s;
}

QString actName(ir::ActType act) {
    switch (act) {
    case ir::ActType::Identity:
        return QStringLiteral("Identity");
    case ir::ActType::Relu:
        return QStringLiteral("Relu");
    case ir::ActType::Tanh:
        return QStringLiteral("Tanh");
    case ir::ActType::Sigmoid:
        return QStringLiteral("Sigmoid");
    case ir::ActType::Gelu:
        return QStringLiteral("GELU");
    }
    return {};
}

// The ONNX op type of an imported node, or empty for models written as IOS files (whose
// hint names are free text).
QString onnxType(const ir::Node& node) {
    const QString hint = QString::fromStdString(node.hintName);
    if (hint.isEmpty() || hint == QString::fromStdString(node.name) || !hint.front().isUpper() ||
        hint.contains(QLatin1Char('/')) || hint.contains(QLatin1Char(' ')))
        return {};
    return hint;
}

bool isSum(const ir::Node& node) {
    return node.inputs.size() == 1 && node.inputs.front().size() > 1;
}

QString shapeText(int64_t c, int64_t h, int64_t w) {
    return QStringLiteral("%1×%2×%3").arg(c).arg(h).arg(w);
}

bool isDepthwise(const ir::Node& n) {
    return n.kind == ir::NodeKind::Conv && n.conv.groups > 1 && n.conv.groups == n.conv.outChannels;
}

bool isPointwise(const ir::Node& n) {
    return n.kind == ir::NodeKind::Conv && n.conv.kernel == ir::Hw{1, 1} && n.conv.groups == 1;
}

} // namespace

// A sequential has room for one short line: its steps as types, a depthwise conv followed by
// a 1×1 conv read as one SepConv (as NasNet names them), activations left out when there is
// a conv or pool (the tooltip lists every step), repeats counted ("SepConv×2"), and the
// window of the first conv or pool ("Relu→SepConv×2 5×5/2" reads "SepConv×2 5×5/2").
QString sequentialTitle(const ir::Node& node) {
    const auto& steps = node.nodes;
    const bool hasWindow = std::any_of(steps.begin(), steps.end(), [](const ir::Node& n) {
        return n.kind == ir::NodeKind::Conv || n.kind == ir::NodeKind::Pool;
    });
    std::vector<std::pair<QString, int>> runs;
    QString firstWindow;
    for (size_t i = 0; i < steps.size(); ++i) {
        const ir::Node& n = steps[i];
        QString type;
        if (isDepthwise(n) && i + 1 < steps.size() && isPointwise(steps[i + 1])) {
            type = QStringLiteral("SepConv");
            ++i;
        } else if (hasWindow &&
                   (n.kind == ir::NodeKind::Relu || n.kind == ir::NodeKind::Activation)) {
            continue;
        } else {
            type = operatorTitle(n).section(QLatin1Char(' '), 0, 0);
        }
        if (firstWindow.isEmpty() && n.kind == ir::NodeKind::Conv)
            firstWindow = window(n.conv.kernel, n.conv.stride);
        else if (firstWindow.isEmpty() && n.kind == ir::NodeKind::Pool &&
                 n.pool.type != ir::PoolType::GlobalAvg && n.pool.type != ir::PoolType::GlobalMax)
            firstWindow = window(n.pool.kernel, n.pool.stride);
        if (!runs.empty() && runs.back().first == type)
            ++runs.back().second;
        else
            runs.emplace_back(type, 1);
    }
    QStringList parts;
    for (const auto& [type, count] : runs)
        parts << (count > 1 ? QStringLiteral("%1×%2").arg(type).arg(count) : type);
    QString title = parts.join(QStringLiteral("→"));
    if (!firstWindow.isEmpty())
        title += QLatin1Char(' ') + firstWindow;
    return title;
}

QString operatorTitle(const ir::Node& node) {
    switch (node.kind) {
    case ir::NodeKind::Conv: {
        QString s = QStringLiteral("Conv %1").arg(window(node.conv.kernel, node.conv.stride));
        const QString type = onnxType(node);
        if ((type == QLatin1String("MatMul") || type == QLatin1String("Gemm")) &&
            node.conv.kernel == ir::Hw{1, 1}) {
            int64_t in = 0; // a Linear over channels: its weight's in × out
            for (const ir::Term& t : node.inputs)
                in += t.empty() ? 0 : t.front().channels();
            s = QStringLiteral("MatMul %1×%2").arg(in).arg(node.conv.outChannels);
        } else if (isDepthwise(node))
            s = QStringLiteral("DWConv %1").arg(window(node.conv.kernel, node.conv.stride));
        if (node.conv.act != ir::ActType::Identity)
            s += QStringLiteral(" +") + actName(node.conv.act);
        return s;
    }
    case ir::NodeKind::Pool:
        switch (node.pool.type) {
        case ir::PoolType::GlobalAvg:
            return QStringLiteral("GlobalAvgPool");
        case ir::PoolType::GlobalMax:
            return QStringLiteral("GlobalMaxPool");
        case ir::PoolType::Max:
            return QStringLiteral("MaxPool %1").arg(window(node.pool.kernel, node.pool.stride));
        case ir::PoolType::Avg:
            return QStringLiteral("AvgPool %1").arg(window(node.pool.kernel, node.pool.stride));
        }
        break;
    case ir::NodeKind::Identity:
        if (node.inputs.size() > 1)
            return QStringLiteral("Concat");
        return isSum(node) ? QStringLiteral("Add") : QStringLiteral("Identity");
    case ir::NodeKind::Relu:
        if (node.inputs.size() > 1)
            return QStringLiteral("Concat+Relu");
        return isSum(node) ? QStringLiteral("Add+Relu") : QStringLiteral("Relu");
    case ir::NodeKind::Activation: {
        const QString type = onnxType(node);
        if (type == QLatin1String("BatchNormalization"))
            return node.activation == ir::ActType::Identity
                       ? QStringLiteral("BatchNorm")
                       : QStringLiteral("BatchNorm+") + actName(node.activation);
        if (!type.isEmpty() && node.activation != ir::ActType::Relu)
            return type;
        return actName(node.activation);
    }
    case ir::NodeKind::Element:
        return node.element == ir::ElementOp::Mul ? QStringLiteral("Mul") : QStringLiteral("Add");
    case ir::NodeKind::Norm: {
        const QString base = node.norm.type == ir::NormType::LayerNorm ? QStringLiteral("LayerNorm")
                                                                       : QStringLiteral("Softmax");
        return node.norm.groups > 1 ? QStringLiteral("%1 ×%2").arg(base).arg(node.norm.groups)
                                    : base;
    }
    case ir::NodeKind::Matmul: {
        const QString base =
            node.matmul.transposeB ? QStringLiteral("MatMul A·Bᵀ") : QStringLiteral("MatMul A·B");
        const QString heads = node.matmul.heads > 1
                                  ? QStringLiteral("%1 ×%2").arg(base).arg(node.matmul.heads)
                                  : base;
        return node.matmul.windows > 1
                   ? QStringLiteral("%1 in %2 windows").arg(heads).arg(node.matmul.windows)
                   : heads;
    }
    case ir::NodeKind::Tokens: { // short enough for a node card; counts in the properties
        if (node.tokens.learnedTokens() > 0)
            return node.tokens.embed ? QStringLiteral("ClassToken+Pos")
                                     : QStringLiteral("ClassToken");
        if (node.tokens.embed) // a table over every position, or one repeating (a bias)
            return node.tokens.embedChannels > 0 || node.tokens.embedPositions > 0
                       ? QStringLiteral("Bias table")
                       : QStringLiteral("PosEmbed");
        return QStringLiteral("Tokens %1").arg(node.tokens.index.size());
    }
    case ir::NodeKind::Sequential:
        return sequentialTitle(node);
    case ir::NodeKind::Placeholder:
        return QStringLiteral("Input");
    case ir::NodeKind::Opaque: {
        const QString type = onnxType(node);
        return type.isEmpty() ? QStringLiteral("Opaque") : type;
    }
    }
    return QString::fromUtf8(ir::toString(node.kind));
}

QString operatorParams(const ir::Node& node) {
    QStringList parts;
    if (node.kind == ir::NodeKind::Conv) {
        // Output channels are the shape's first number, beside these on the node.
        if (node.conv.padding != ir::Hw{0, 0})
            parts << (node.conv.padding.h == node.conv.padding.w
                          ? QStringLiteral("pad %1").arg(node.conv.padding.h)
                          : QStringLiteral("pad %1").arg(hw(node.conv.padding)));
        if (node.conv.groups > 1)
            parts << QStringLiteral("g %1").arg(node.conv.groups);
    } else if (node.kind == ir::NodeKind::Pool && node.pool.padding != ir::Hw{0, 0}) {
        parts << (node.pool.padding.h == node.pool.padding.w
                      ? QStringLiteral("pad %1").arg(node.pool.padding.h)
                      : QStringLiteral("pad %1").arg(hw(node.pool.padding)));
    } else if (node.kind == ir::NodeKind::Sequential) {
        // The windows of its convolutions and pools, which the joined title has no room for.
        QStringList windows;
        for (const ir::Node& inner : node.nodes)
            if (inner.kind == ir::NodeKind::Conv)
                windows << window(inner.conv.kernel, inner.conv.stride);
            else if (inner.kind == ir::NodeKind::Pool &&
                     inner.pool.type != ir::PoolType::GlobalAvg &&
                     inner.pool.type != ir::PoolType::GlobalMax)
                windows << window(inner.pool.kernel, inner.pool.stride);
        if (!windows.isEmpty())
            parts << windows.join(QStringLiteral(", "));
    } else if (node.inputs.size() > 1) {
        parts << QObject::tr("%n inputs", nullptr, static_cast<int>(node.inputs.size()));
    }
    return parts.join(QStringLiteral(" · "));
}

QString operatorTooltip(const ir::Node& node, const ir::OperatorMetrics& metrics,
                        const ir::NodeIndex& names, const OperatorContext& context) {
    QString html =
        QStringLiteral("<b>%1</b> <i>(%2)</i><br><tt>%3</tt>")
            .arg(operatorTitle(node).toHtmlEscaped(), QString::fromUtf8(ir::toString(node.kind)),
                 QString::fromStdString(node.name).toHtmlEscaped());
    QStringList rows;
    auto row = [&rows](const QString& key, const QString& value) {
        rows << QStringLiteral("<tr><td>%1</td><td>%2</td></tr>").arg(key, value.toHtmlEscaped());
    };
    const QString type = onnxType(node);
    if (!type.isEmpty())
        row(QObject::tr("ONNX op"), type);
    switch (node.kind) {
    case ir::NodeKind::Conv:
        row(QObject::tr("kernel"), hw(node.conv.kernel));
        row(QObject::tr("stride"), hw(node.conv.stride));
        row(QObject::tr("padding"), hw(node.conv.padding));
        row(QObject::tr("groups"), QString::number(node.conv.groups));
        row(QObject::tr("out channels"), QString::number(node.conv.outChannels));
        row(QObject::tr("activation"), actName(node.conv.act));
        break;
    case ir::NodeKind::Pool:
        row(QObject::tr("pool"), QString::fromUtf8(ir::toString(node.pool.type)));
        row(QObject::tr("kernel"), hw(node.pool.kernel));
        row(QObject::tr("stride"), hw(node.pool.stride));
        row(QObject::tr("padding"), hw(node.pool.padding));
        break;
    case ir::NodeKind::Activation:
        row(QObject::tr("activation"), actName(node.activation));
        break;
    case ir::NodeKind::Element:
        row(QObject::tr("op"), QString::fromUtf8(ir::toString(node.element)));
        break;
    case ir::NodeKind::Norm:
        row(QObject::tr("normalization"), QString::fromUtf8(ir::toString(node.norm.type)));
        row(QObject::tr("channel groups"), QString::number(node.norm.groups));
        if (node.norm.type == ir::NormType::LayerNorm)
            row(QObject::tr("epsilon"), QString::number(node.norm.epsilon));
        break;
    case ir::NodeKind::Matmul:
        row(QObject::tr("product"),
            node.matmul.transposeB ? QObject::tr("A·Bᵀ per head") : QObject::tr("A·B per head"));
        row(QObject::tr("heads"), QString::number(node.matmul.heads));
        if (node.matmul.windows > 1)
            row(QObject::tr("windows"), QString::number(node.matmul.windows));
        if (node.matmul.alpha != 1.0)
            row(QObject::tr("scale"), QString::number(node.matmul.alpha));
        break;
    case ir::NodeKind::Tokens:
        row(QObject::tr("positions out"), QString::number(node.tokens.index.size()));
        row(QObject::tr("learned tokens"), QString::number(node.tokens.learnedTokens()));
        row(QObject::tr("embedding"), !node.tokens.embed
                                          ? QObject::tr("none")
                                          : QObject::tr("%1 × %2 table added")
                                                .arg(node.tokens.tableChannels(node.outputShape.c))
                                                .arg(node.tokens.tablePositions()));
        break;
    case ir::NodeKind::Sequential:
        for (const ir::Node& inner : node.nodes)
            row(QObject::tr("step"), operatorTitle(inner));
        break;
    default:
        break;
    }
    // Inputs: one line per term (terms are concatenated; values inside a term are summed).
    int termIndex = 0;
    for (const ir::Term& term : node.externalInputs()) {
        QStringList values;
        int64_t channels = 0, h = 0, w = 0;
        for (const ir::ValueRef& v : term) {
            const ir::Node* producer = names.find(v.node);
            channels = v.channels();
            if (producer) {
                h = producer->outputShape.h;
                w = producer->outputShape.w;
            }
            const bool whole = producer && v.begin == 0 && v.end == producer->outputShape.c;
            values << (whole ? QString::fromStdString(v.node)
                             : QStringLiteral("%1[%2:%3]")
                                   .arg(QString::fromStdString(v.node))
                                   .arg(v.begin)
                                   .arg(v.end));
        }
        row(QObject::tr("input %1").arg(termIndex++),
            QStringLiteral("%1 (%2) ← %3")
                .arg(shapeText(channels, h, w),
                     formatBytes(static_cast<double>(channels * h * w * ir::kBytesPerElement)),
                     values.join(QStringLiteral(" + "))));
    }
    row(QObject::tr("output"),
        QStringLiteral("%1 (%2)").arg(
            formatShape(node.outputShape),
            formatBytes(static_cast<double>(node.outputShape.elements() * ir::kBytesPerElement))));
    row(QObject::tr("FLOPs"), formatFlops(static_cast<double>(metrics.flops)));
    if (metrics.parameters > 0)
        row(QObject::tr("weights"),
            QStringLiteral("%1 params (%2)")
                .arg(formatCount(static_cast<double>(metrics.parameters)),
                     formatBytes(static_cast<double>(metrics.weightBytes))));
    row(QObject::tr("memory traffic"),
        QObject::tr("%1 read, %2 written")
            .arg(formatBytes(static_cast<double>(metrics.bytesRead)),
                 formatBytes(static_cast<double>(metrics.bytesWritten))));
    QString where = QObject::tr("block %1, part %2").arg(context.block).arg(context.part);
    if (context.placement && context.placement->stage >= 0)
        where +=
            QObject::tr(", stage %1 (S%2 in block%3), group %4")
                .arg(context.placement->globalStage)
                .arg(context.placement->stage)
                .arg(context.placement->kind == schedule::StageKind::Merge ? QObject::tr(", merged")
                                                                           : QString())
                .arg(context.placement->group);
    row(QObject::tr("where"), where);
    return html + QStringLiteral("<table cellspacing=0 cellpadding=1>") + rows.join(QString()) +
           QStringLiteral("</table>");
}

} // namespace ios::views
