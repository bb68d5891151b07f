// SPDX-License-Identifier: Apache-2.0
// Colours shared by every view, so an operator kind or a stage has the same colour in the
// graph, the stage tree and the timeline (legends are drawn from these functions).
#pragma once

#include "ir/graph.h"

#include <QColor>
#include <QString>

namespace ios::views {

QColor kindColor(ir::NodeKind kind);
QString kindLabel(ir::NodeKind kind);

// A qualitative palette of well-separated colours for stages, streams and strategies.
QColor categoricalColor(int index);

// The fill of a schedule stage, by its index within its block: the 20 categorical colours, so
// the stages of a block (rarely more than 20) all differ and neighbours always do; views add
// the stage number ("S12") where the colour alone could repeat across blocks (NasNet: 107).
// The graph's selection outlines: black and thick for the selected operators, violet and dashed
// for the rest of their stage; neither is a stage or kind fill (stageColor, kindColor).
QColor selectionColor();
QColor stageContextColor();
QColor stageColor(int stageInBlock);

// A colour per tensor of a memory problem (hundreds of them): hues a golden angle apart, so
// tensors stacked next to each other differ; tensor 0 (the block input) is grey.
QColor tensorColor(int tensor);

// Sequential colour ramp for heat maps, t in [0, 1] (dark blue → yellow, perceptually ordered).
QColor heatColor(double t);

} // namespace ios::views
