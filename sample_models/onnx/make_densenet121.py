#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""DenseNet-121 as torchvision builds it (4 dense blocks of 6/12/24/16 layers, growth 32,
bn_size 4, transitions halving channels), written with the ONNX helper so no PyTorch is
needed. Node names follow torch.onnx.export ("/features/denseblock1/denselayer1/conv1/Conv").
Tensors get short names. Weights are shaped graph inputs without data, as export_torchvision.py leaves them: the file
stays small and schedules the same. Used by the graph-layout timing in docs/performance.md.

    python3 make_densenet121.py [OUT.onnx]
"""
import sys

import onnx
from onnx import TensorProto, helper

GROWTH, BN_SIZE, BLOCKS, INIT = 32, 4, (6, 12, 24, 16), 64
nodes, weights = [], []


def weight(name, dims):
    # Short input names ("w17"): the file holds hundreds of them and only their shapes matter.
    del name
    short = f"w{len(weights)}"
    weights.append(helper.make_tensor_value_info(short, TensorProto.FLOAT, dims))
    return short


def conv(prefix, x, cin, cout, k, stride=1, pad=0):
    w = weight(prefix + ".weight", [cout, cin, k, k])
    out = f"t{len(nodes)}"
    nodes.append(helper.make_node("Conv", [x, w], [out], name=prefix + "/Conv",
                                  kernel_shape=[k, k], strides=[stride, stride],
                                  pads=[pad] * 4))
    return out


def norm_relu(prefix, relu_prefix, x, c):
    params = [weight(f"{prefix}.{p}", [c]) for p in ("weight", "bias", "running_mean",
                                                      "running_var")]
    bn = f"t{len(nodes)}"
    nodes.append(helper.make_node("BatchNormalization", [x] + params, [bn],
                                  name=prefix + "/BatchNormalization", epsilon=1e-5))
    out = f"t{len(nodes)}"
    nodes.append(helper.make_node("Relu", [bn], [out], name=relu_prefix + "/Relu"))
    return out


def concat(name, inputs):
    if len(inputs) == 1:
        return inputs[0]
    out = f"t{len(nodes)}"
    nodes.append(helper.make_node("Concat", inputs, [out], name=name, axis=1))
    return out


def main():
    x = conv("/features/conv0", "input", 3, INIT, 7, 2, 3)
    x = norm_relu("/features/norm0", "/features/relu0", x, INIT)
    pool = f"t{len(nodes)}"
    nodes.append(helper.make_node("MaxPool", [x], [pool], name="/features/pool0/MaxPool",
                                  kernel_shape=[3, 3], strides=[2, 2], pads=[1, 1, 1, 1]))
    x, c = pool, INIT
    for b, layers in enumerate(BLOCKS, start=1):
        features, channels = [x], c
        for l in range(1, layers + 1):
            p = f"/features/denseblock{b}/denselayer{l}"
            # Every dense layer concatenates all earlier features itself (torch.cat(inputs)).
            y = concat(p + "/Concat", features)
            y = norm_relu(p + "/norm1", p + "/relu1", y, channels)
            y = conv(p + "/conv1", y, channels, BN_SIZE * GROWTH, 1)
            y = norm_relu(p + "/norm2", p + "/relu2", y, BN_SIZE * GROWTH)
            y = conv(p + "/conv2", y, BN_SIZE * GROWTH, GROWTH, 3, 1, 1)
            features.append(y)
            channels += GROWTH
        x, c = concat(f"/features/denseblock{b}/Concat", features), channels
        if b < len(BLOCKS):
            p = f"/features/transition{b}"
            x = norm_relu(p + "/norm", p + "/relu", x, c)
            x = conv(p + "/conv", x, c, c // 2, 1)
            pooled = f"t{len(nodes)}"
            nodes.append(helper.make_node("AveragePool", [x], [pooled],
                                          name=p + "/pool/AveragePool", kernel_shape=[2, 2],
                                          strides=[2, 2]))
            x, c = pooled, c // 2
    x = norm_relu("/features/norm5", "", x, c)
    nodes.append(helper.make_node("GlobalAveragePool", [x], ["/GlobalAveragePool_output_0"],
                                  name="/GlobalAveragePool"))
    nodes.append(helper.make_node("Flatten", ["/GlobalAveragePool_output_0"],
                                  ["/Flatten_output_0"], name="/Flatten", axis=1))
    nodes.append(helper.make_node("Gemm", ["/Flatten_output_0",
                                           weight("classifier.weight", [1000, c]),
                                           weight("classifier.bias", [1000])],
                                  ["logits"], name="/classifier/Gemm", transB=1))
    graph = helper.make_graph(
        nodes, "densenet121",
        [helper.make_tensor_value_info("input", TensorProto.FLOAT, [1, 3, 224, 224])] + weights,
        [helper.make_tensor_value_info("logits", TensorProto.FLOAT, [1, 1000])])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    model.doc_string = "DenseNet-121 (torchvision structure), weights stripped"
    onnx.checker.check_model(model)
    out = sys.argv[1] if len(sys.argv) > 1 else "densenet121.onnx"
    onnx.save(model, out)
    print(out, len(nodes), "nodes")


if __name__ == "__main__":
    main()
