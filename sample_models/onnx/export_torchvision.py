#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Export torchvision CNNs to ONNX (opset 13) WITHOUT weights, for `ios-sched ... model.onnx`.

Scheduling needs shapes, not weights: every float initializer with more than one element is
turned into a graph input with its declared type and shape (its data is dropped), so the files
stay a few kilobytes. Integer initializers (Reshape targets and other shape constants) are kept.
Nothing is downloaded: the models are built with random initial weights (weights=None).

    python3 export_torchvision.py [--out DIR] [--opset 13] [model ...]

A model is one of MODELS below (the default set) or any other torchvision classification
builder (resnet152, vgg16, convnext_tiny, vit_b_16, swin_t, ...), built with weights=None for a
224x224 input. tools/bench_scaling.sh times the search on a folder of them
(IOS_SCALING_ONNX_DIR, docs/performance.md "Scaling").

Needs PyTorch, torchvision and onnx (Debian: python3-torch python3-torchvision python3-onnx).
"""
import argparse
import os
import sys

import onnx
import torch
import torchvision.models as tvm

# name -> (constructor, input H = W)
MODELS = {
    "inception_v3": (lambda: tvm.inception_v3(weights=None, aux_logits=True, init_weights=False), 299),
    "googlenet": (lambda: tvm.googlenet(weights=None, aux_logits=False, init_weights=False), 224),
    "resnet50": (lambda: tvm.resnet50(weights=None), 224),
    "squeezenet1_1": (lambda: tvm.squeezenet1_1(weights=None), 224),
    "mobilenet_v2": (lambda: tvm.mobilenet_v2(weights=None), 224),
    "mnasnet1_0": (lambda: tvm.mnasnet1_0(weights=None), 224),
    "densenet121": (lambda: tvm.densenet121(weights=None), 224),
    "efficientnet_b0": (lambda: tvm.efficientnet_b0(weights=None), 224),
    "shufflenet_v2_x1_0": (lambda: tvm.shufflenet_v2_x1_0(weights=None), 224),
}


def strip_weights(model: onnx.ModelProto) -> int:
    """Moves float initializers (weights) into graph inputs without data; returns how many."""
    graph = model.graph
    declared = {i.name for i in graph.input}
    keep, moved = [], 0
    for init in graph.initializer:
        numel = 1
        for d in init.dims:
            numel *= d
        if init.data_type != onnx.TensorProto.FLOAT or numel <= 1:
            keep.append(init)
            continue
        if init.name not in declared:
            graph.input.append(onnx.helper.make_tensor_value_info(
                init.name, init.data_type, list(init.dims)))
        moved += 1
    del graph.initializer[:]
    graph.initializer.extend(keep)
    return moved


def compact(model: onnx.ModelProto) -> None:
    """Shortens the file without changing what it computes or how its operators are named in
    IOS Explorer: intermediate tensors get short names (t0, t1, ...) and the nodes that only
    compute constants (shape arithmetic, Swin's shift mask) lose their names. Operators that
    read the image keep theirs: they name the imported operators."""
    graph = model.graph
    keep = {i.name for i in graph.input} | {o.name for o in graph.output}
    keep |= {i.name for i in graph.initializer}
    data = {graph.input[0].name}  # tensors computed from the image (not through Shape)
    for n in graph.node:
        if n.op_type != "Shape" and any(i in data for i in n.input):
            data.update(n.output)
        if not any(o in data for o in n.output):
            n.name = ""
    # One Constant node per distinct value, first in the graph (they read nothing).
    first, alias, constants, rest = {}, {}, [], []
    for n in graph.node:
        if n.op_type == "Constant" and len(n.attribute) == 1 and n.attribute[0].name == "value":
            key = n.attribute[0].t.SerializeToString()
            if key in first:
                alias[n.output[0]] = first[key]
                continue
            first[key] = n.output[0]
            constants.append(n)
        else:
            rest.append(n)
    for n in rest:
        for i, x in enumerate(n.input):
            n.input[i] = alias.get(x, x)
    nodes = constants + rest
    del graph.node[:]
    graph.node.extend(nodes)
    renamed = {}
    for n in graph.node:
        for i, o in enumerate(n.output):
            if o and o not in keep:
                renamed[o] = n.output[i] = "t%x" % len(renamed)
        for i, x in enumerate(n.input):
            n.input[i] = renamed.get(x, x)
    del graph.value_info[:]


def builder(name: str):
    """(constructor, input H = W) of a model name; None when torchvision has no such model."""
    if name in MODELS:
        return MODELS[name]
    if name not in tvm.list_models(module=tvm):  # the classification models
        return None
    return (lambda: getattr(tvm, name)(weights=None), 224)


def export(name: str, out_dir: str, opset: int, short: bool) -> str:
    ctor, size = builder(name)
    torch.manual_seed(0)
    model = ctor().eval()
    x = torch.zeros(1, 3, size, size)
    path = os.path.join(out_dir, name + ".onnx")
    tmp = path + ".full"
    # PyTorch 1.13 runs nn.MultiheadAttention (ViT) through a fused kernel the ONNX exporter
    # does not know whenever autograd is off; with it on, the exporter sees the plain ops.
    attention = any(isinstance(m, torch.nn.MultiheadAttention) for m in model.modules())
    with torch.enable_grad() if attention else torch.no_grad():
        torch.onnx.export(model, x, tmp, opset_version=opset, input_names=["input"],
                          output_names=["logits"], do_constant_folding=True)
    m = onnx.load(tmp)
    os.remove(tmp)
    moved = strip_weights(m)
    if short:
        compact(m)
    m.doc_string = f"torchvision {name}, opset {opset}, weights stripped ({moved} tensors)"
    onnx.checker.check_model(m)
    onnx.save(m, path)
    ops = {}
    for n in m.graph.node:
        ops[n.op_type] = ops.get(n.op_type, 0) + 1
    print(f"{name}: {len(m.graph.node)} nodes, {os.path.getsize(path)} bytes, "
          + ", ".join(f"{k} {v}" for k, v in sorted(ops.items())))
    return path


def main() -> int:
    here = os.path.dirname(os.path.abspath(__file__))
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("models", nargs="*", help="default: " + ", ".join(MODELS) +
                   "; or any torchvision classification model")
    p.add_argument("--out", default=os.path.join(here, "generated"),
                   help="output folder (default: sample_models/onnx/generated, git-ignored)")
    p.add_argument("--opset", type=int, default=13)
    p.add_argument("--compact", action="store_true",
                   help="short tensor names, unnamed constant arithmetic (a smaller file; the "
                   "operators keep their names)")
    args = p.parse_args()
    names = args.models or list(MODELS)
    unknown = [n for n in names if builder(n) is None]
    if unknown:
        p.error("unknown model(s): " + ", ".join(unknown))
    os.makedirs(args.out, exist_ok=True)
    failed = []
    for n in names:
        try:
            export(n, args.out, args.opset, args.compact)
        except Exception as e:  # an operator the exporter lacks: report it, go on
            print(f"{n}: export failed: {type(e).__name__}: {str(e).splitlines()[0]}")
            failed.append(n)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
