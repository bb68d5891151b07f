// SPDX-License-Identifier: Apache-2.0
// What an operator box in the graph says, as Netron does: the operator type with its key
// parameters on the node ("Conv 3×3/2", "MaxPool 3×3/2", "Concat"), and everything else —
// full parameters, input and output tensors with their sizes, FLOPs, the full name, where it
// sits in the model and the schedule — in the tooltip.
#pragma once

#include "ir/graph.h"
#include "ir/metrics.h"
#include "loaded_model.h"
#include "schedule_index.h"

#include <QString>

namespace ios::views {

// The operator type with kernel/stride when they matter: "Conv 3×3/2 +Relu", "MaxPool 3×3/2",
// "GlobalAvgPool", "Concat", "Add+Relu", "BatchNorm". ONNX imports keep the ONNX op type
// (ir::Node::hintName) where the IR kind is coarser.
QString operatorTitle(const ir::Node& node);

// The title of a sequential node: "SepConv×2 5×5/2" for Relu→DWConv→Conv 1×1→Relu→DWConv→
// Conv 1×1 (a depthwise and a pointwise conv read as one SepConv; activations left out beside
// convs and pools; repeats counted; the first window).
QString sequentialTitle(const ir::Node& node);

// Key parameters the title leaves out, in a few characters: padding and groups of a conv
// ("pad 1 · g 32"), a pool's padding, a sequential's windows ("5×5/2, 1×1"), a concat's inputs.
QString operatorParams(const ir::Node& node);

// Where an operator sits, for the tooltip.
struct OperatorContext {
    int block = 0;
    int part = 0;
    const OperatorPlacement* placement = nullptr; // null without a schedule
};

// Rich-text tooltip: title, full name, every parameter, input and output tensors (shape and
// bytes), FLOPs, weights, block / part / stage.
QString operatorTooltip(const ir::Node& node, const ir::OperatorMetrics& metrics,
                        const ir::NodeIndex& names, const OperatorContext& context);

} // namespace ios::views
