#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Writes tiny ONNX seed models for fuzz_onnx into tests/fuzz/onnx_seeds (python3-onnx).

Each seed file is one option byte (fuzz_onnx.cpp) followed by a serialized ModelProto.
"""
import os
import onnx
from onnx import TensorProto, helper

here = os.path.join(os.path.dirname(os.path.abspath(__file__)), "onnx_seeds")


def model(nodes, inits=(), weights=(), shape=(1, 3, 8, 8), opset=13):
    inputs = [helper.make_tensor_value_info("x", TensorProto.FLOAT, list(shape))]
    inputs += [helper.make_tensor_value_info(n, TensorProto.FLOAT, d) for n, d in weights]
    out = helper.make_tensor_value_info("y", TensorProto.FLOAT, None)
    g = helper.make_graph(nodes, "seed", inputs, [out], initializer=list(inits))
    return helper.make_model(g, opset_imports=[helper.make_opsetid("", opset)])


def ints(name, values):
    return helper.make_tensor(name, TensorProto.INT64, [len(values)], values)


seeds = {
    "conv_bn_relu": model([
        helper.make_node("Conv", ["x", "w"], ["a"], kernel_shape=[3, 3], pads=[1, 1, 1, 1]),
        helper.make_node("BatchNormalization", ["a", "s", "b", "m", "v"], ["n"]),
        helper.make_node("Relu", ["n"], ["y"])],
        weights=[("w", [4, 3, 3, 3])] + [(k, [4]) for k in "sbmv"]),
    "inception": model([
        helper.make_node("Conv", ["x", "w1"], ["a"], kernel_shape=[1, 1]),
        helper.make_node("Conv", ["x", "w2"], ["b"], kernel_shape=[3, 3], pads=[1, 1, 1, 1]),
        helper.make_node("MaxPool", ["x"], ["c"], kernel_shape=[3, 3], pads=[1, 1, 1, 1],
                         strides=[1, 1]),
        helper.make_node("Concat", ["a", "b", "c"], ["y"], axis=1)],
        weights=[("w1", [2, 3, 1, 1]), ("w2", [2, 3, 3, 3])]),
    "residual_head": model([
        helper.make_node("Conv", ["x", "w"], ["a"], kernel_shape=[1, 1]),
        helper.make_node("Add", ["a", "x"], ["s"]),
        helper.make_node("Relu", ["s"], ["r"]),
        helper.make_node("GlobalAveragePool", ["r"], ["p"]),
        helper.make_node("Flatten", ["p"], ["f"], axis=1),
        helper.make_node("Gemm", ["f", "fc"], ["y"], transB=1)],
        weights=[("w", [3, 3, 1, 1]), ("fc", [10, 3])]),
    "shuffle": model([
        helper.make_node("Split", ["x", "sp"], ["l", "r"], axis=1),
        helper.make_node("Concat", ["l", "r"], ["c"], axis=1),
        helper.make_node("Reshape", ["c", "s5"], ["v"]),
        helper.make_node("Transpose", ["v"], ["t"], perm=[0, 2, 1, 3, 4]),
        helper.make_node("Reshape", ["t", "s4"], ["y"])],
        inits=[ints("sp", [2, 2]), ints("s5", [1, 2, 2, 8, 8]), ints("s4", [1, 4, 8, 8])],
        shape=(1, 4, 8, 8)),
    "shape_flatten": model([
        helper.make_node("Shape", ["x"], ["s"]),
        helper.make_node("Gather", ["s", "zero"], ["n"], axis=0),
        helper.make_node("Concat", ["n", "m1"], ["t"], axis=0),
        helper.make_node("Pad", ["x", "pads"], ["p"]),
        helper.make_node("AveragePool", ["p"], ["q"], kernel_shape=[2, 2], strides=[2, 2]),
        helper.make_node("Reshape", ["q", "t"], ["y"])],
        inits=[ints("zero", [0]), ints("m1", [-1]), ints("pads", [0, 0, 1, 1, 0, 0, 1, 1])]),
    "custom": model([
        helper.make_node("Sigmoid", ["x"], ["a"]),
        helper.make_node("MyOp", ["a"], ["y"], domain="com.example")]),
}

os.makedirs(here, exist_ok=True)
for name, m in seeds.items():
    for opt in (0, 1):
        with open(os.path.join(here, f"{name}_{opt}.bin"), "wb") as f:
            f.write(bytes([opt]) + m.SerializeToString())
print(f"wrote {2 * len(seeds)} seeds to {here}")
