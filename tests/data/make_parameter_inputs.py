#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Writes parameter_inputs.onnx: a 1x1 conv whose output is scaled by a per-channel parameter
(`gamma`, a ConvNeXt-style layer scale) and shifted by another (`pos`, a positional
embedding), then added to the input — both parameters graph inputs without values, as
weight-less exports have them. The import reads them as parameters and warns (docs/onnx.md).
Needs python3-onnx; the tests only read the committed file."""
import os

import onnx
from onnx import TensorProto as T
from onnx import helper

inputs = [helper.make_tensor_value_info("x", T.FLOAT, [1, 8, 16, 16]),
          helper.make_tensor_value_info("w", T.FLOAT, [8, 8, 1, 1]),
          helper.make_tensor_value_info("gamma", T.FLOAT, [8, 1, 1]),
          helper.make_tensor_value_info("pos", T.FLOAT, [1, 8, 16, 16])]
nodes = [helper.make_node("Conv", ["x", "w"], ["h"], kernel_shape=[1, 1]),
         helper.make_node("Mul", ["h", "gamma"], ["s"]),
         helper.make_node("Add", ["s", "pos"], ["t"]),
         helper.make_node("Add", ["t", "x"], ["y"])]
graph = helper.make_graph(nodes, "g", inputs,
                          [helper.make_tensor_value_info("y", T.FLOAT, [1, 8, 16, 16])])
model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
onnx.save(model, os.path.join(os.path.dirname(os.path.abspath(__file__)), "parameter_inputs.onnx"))
