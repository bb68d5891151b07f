// SPDX-License-Identifier: Apache-2.0
// The graph's find box, Netron-style: words and field:value terms, all of which must match.
//   conv                 a bare word: in the name, the title on the node ("Conv 3×3/2 +Relu"),
//                        the kind ("concat", "pool") or the ONNX op type
//   type:conv  op:  kind:   the title, kind or ONNX op type only
//   name:mixed_5b        the name only
//   kernel:3x3  k:3      a kernel (a sequential's: any of its nodes'); one number = square
//   stride:2  s:2x2      a stride likewise
//   shape:17×17          the output shape as written on the node ("768×17×17"; x works as ×)
//   block:3  stage:2     where it is (stage within its block, of the shown result)
// Case is ignored. Terms are parsed once; an unknown field is an error naming it.
#pragma once

#include "ir/graph.h"
#include "loaded_model.h"
#include "schedule_index.h"

#include <QString>
#include <QStringList>
#include <optional>
#include <vector>

namespace ios::views {

class OperatorQuery {
public:
    // Where an operator is, for block: and stage: (stage -1 = no schedule shown).
    struct Place {
        int block = 0;
        int stage = -1;
    };

    // Empty error() when `text` parsed.
    explicit OperatorQuery(const QString& text);
    const QString& error() const { return error_; }
    bool isEmpty() const { return terms_.empty(); }
    bool matches(const ir::Node& node, const Place& place) const;

    // The fields, for the find box's tooltip and errors.
    static QStringList fields();

private:
    enum class Field { Any, Type, Name, Kernel, Stride, Shape, Block, Stage };
    struct Term {
        Field field = Field::Any;
        QString text;               // lower case, × for x
        std::optional<ir::Hw> size; // kernel, stride
        std::optional<int> number;  // block, stage
    };
    bool matches(const Term& term, const ir::Node& node, const Place& place) const;

    std::vector<Term> terms_;
    QString error_;
};

// The operators (flat indices) `query` matches, in model order, except that one named exactly
// `text` comes first (so "12" finds node 12 before 112). `schedule` may be empty.
std::vector<int> findOperators(const LoadedModel& model, const ScheduleIndex& schedule,
                               const OperatorQuery& query, const QString& text);

} // namespace ios::views
