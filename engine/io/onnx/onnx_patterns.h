// SPDX-License-Identifier: Apache-2.0
// Operators that exporters spell out in several nodes, folded back into the one operator they
// compute before the import orders and lowers the graph (docs/onnx.md "Folded patterns").
#pragma once

#include "io/onnx/onnx_model.h"

#include <cstddef>

namespace ios::io::onnx {

// The exact GELU written out, x · 0.5 · (1 + erf(x / √2)) — PyTorch's export of nn.GELU before
// opset 20: Div(x, √2) or Mul(x, 1/√2), Erf, Add 1, then Mul by x and by 0.5 in either order —
// becomes one node of op type "Gelu" (opset 20's, approximate "none") named after the pattern's
// last node and writing its output. Only where every intermediate result has no other reader
// and the constants are those numbers (to float precision). Returns how many were folded.
size_t foldErfGelu(Model& model);

// LayerNorm written out, as PyTorch exports nn.LayerNorm before opset 17: mean = ReduceMean(x)
// over one axis (keepdims), d = x − mean, ReduceMean(d² or d·d) over the same axis, + ε, Sqrt,
// d / that — becomes one "LayerNormalization" node (opset 17's op) over that axis with that ε,
// named after its module ("/m/LayerNorm" for PyTorch's "/m/Div"; else the Div's name),
// without scale or bias inputs (the Mul and Add that follow stay and are folded by the
// lowering). Only where every intermediate has no other reader (d: the square and the Div).
size_t foldLayerNorm(Model& model);

} // namespace ios::io::onnx
