// SPDX-License-Identifier: Apache-2.0
#include "operator_query.h"

#include "graph_labels.h"
#include "palette.h"
#include "units.h"

#include <QRegularExpression>

namespace ios::views {

namespace {

QString normalised(QString text) {
    return text.toLower()
        .replace(QLatin1Char('x'), QChar(0x00d7))
        .replace(QLatin1Char('*'), QChar(0x00d7));
}

// "3x3", "3×3", "1x7", "3" (square); nullopt when not a size.
std::optional<ir::Hw> parseSize(const QString& text) {
    static const QRegularExpression re(QStringLiteral("^(\\d+)(?:[x×*](\\d+))?$"));
    const QRegularExpressionMatch m = re.match(text.toLower());
    if (!m.hasMatch())
        return std::nullopt;
    const int64_t h = m.captured(1).toLongLong();
    const int64_t w = m.captured(2).isEmpty() ? h : m.captured(2).toLongLong();
    return ir::Hw{h, w};
}

// The node and, for a sequential, its inner nodes.
template <typename F> bool anyNode(const ir::Node& node, F&& f) {
    if (f(node))
        return true;
    for (const ir::Node& inner : node.nodes)
        if (anyNode(inner, f))
            return true;
    return false;
}

bool windowIs(const ir::Node& node, const ir::Hw& size, bool stride) {
    if (node.kind == ir::NodeKind::Conv)
        return (stride ? node.conv.stride : node.conv.kernel) == size;
    if (node.kind == ir::NodeKind::Pool)
        return (stride ? node.pool.stride : node.pool.kernel) == size;
    return false;
}

bool typeContains(const ir::Node& node, const QString& text) {
    return anyNode(node, [&](const ir::Node& n) {
        return normalised(operatorTitle(n)).contains(text) ||
               normalised(kindLabel(n.kind)).contains(text) ||
               normalised(QString::fromStdString(n.hintName)).contains(text);
    });
}

} // namespace

QStringList OperatorQuery::fields() {
    return {QStringLiteral("type"),   QStringLiteral("name"),  QStringLiteral("kernel"),
            QStringLiteral("stride"), QStringLiteral("shape"), QStringLiteral("block"),
            QStringLiteral("stage")};
}

OperatorQuery::OperatorQuery(const QString& text) {
    for (const QString& word : text.split(QLatin1Char(' '), Qt::SkipEmptyParts)) {
        Term term;
        const qsizetype colon = word.indexOf(QLatin1Char(':'));
        const QString key = colon > 0 ? word.left(colon).toLower() : QString();
        const QString value = colon > 0 ? word.mid(colon + 1) : word;
        if (key.isEmpty())
            term.field = Field::Any;
        else if (key == QLatin1String("type") || key == QLatin1String("op") ||
                 key == QLatin1String("kind"))
            term.field = Field::Type;
        else if (key == QLatin1String("name"))
            term.field = Field::Name;
        else if (key == QLatin1String("kernel") || key == QLatin1String("k"))
            term.field = Field::Kernel;
        else if (key == QLatin1String("stride") || key == QLatin1String("s"))
            term.field = Field::Stride;
        else if (key == QLatin1String("shape"))
            term.field = Field::Shape;
        else if (key == QLatin1String("block"))
            term.field = Field::Block;
        else if (key == QLatin1String("stage"))
            term.field = Field::Stage;
        else {
            error_ = QObject::tr("Unknown field '%1:' — use %2")
                         .arg(key, fields().join(QStringLiteral(", ")));
            terms_.clear();
            return;
        }
        if (value.isEmpty()) {
            error_ = QObject::tr("'%1' needs a value, as in %1:3").arg(word);
            terms_.clear();
            return;
        }
        term.text = normalised(value);
        if (term.field == Field::Kernel || term.field == Field::Stride) {
            term.size = parseSize(value);
            if (!term.size) {
                error_ = QObject::tr("'%1': give a size such as 3x3 or 3").arg(word);
                terms_.clear();
                return;
            }
        } else if (term.field == Field::Block || term.field == Field::Stage) {
            bool ok = false;
            term.number = value.toInt(&ok);
            if (!ok) {
                error_ = QObject::tr("'%1': give a number").arg(word);
                terms_.clear();
                return;
            }
        }
        terms_.push_back(std::move(term));
    }
}

bool OperatorQuery::matches(const ir::Node& node, const Place& place) const {
    for (const Term& term : terms_)
        if (!matches(term, node, place))
            return false;
    return !terms_.empty();
}

bool OperatorQuery::matches(const Term& term, const ir::Node& node, const Place& place) const {
    switch (term.field) {
    case Field::Any:
        return normalised(QString::fromStdString(node.name)).contains(term.text) ||
               typeContains(node, term.text);
    case Field::Type:
        return typeContains(node, term.text);
    case Field::Name:
        return normalised(QString::fromStdString(node.name)).contains(term.text);
    case Field::Kernel:
    case Field::Stride: {
        const bool stride = term.field == Field::Stride;
        return anyNode(node, [&](const ir::Node& n) { return windowIs(n, *term.size, stride); });
    }
    case Field::Shape:
        return normalised(formatShape(node.outputShape)).contains(term.text);
    case Field::Block:
        return place.block == *term.number;
    case Field::Stage:
        return place.stage == *term.number;
    }
    return false;
}

std::vector<int> findOperators(const LoadedModel& model, const ScheduleIndex& schedule,
                               const OperatorQuery& query, const QString& text) {
    std::vector<int> out;
    for (int flat = 0; flat < model.operatorCount(); ++flat) {
        const OperatorRef ref = model.operators()[static_cast<size_t>(flat)];
        const ir::Node& node = model.node(ref);
        OperatorQuery::Place place{ref.block, -1};
        if (!schedule.isEmpty())
            place.stage = schedule.at(flat).stage;
        if (QString::fromStdString(node.name) == text)
            out.insert(out.begin(), flat);
        else if (query.matches(node, place))
            out.push_back(flat);
    }
    return out;
}

} // namespace ios::views
