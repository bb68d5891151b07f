#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Writes the bundled NAS cell samples (IOS JSON) that exercise Serenity's identity rewriting
through element-wise chains (docs/memory.md "Identity graph rewriting").

  tools/make_nas_cells.py            write sample_models/darts_v2_cells.ios.json (and its
                                     .parts.json) and sample_models/swiftnet_cell.ios.json
  tools/make_nas_cells.py --check    exit 1 when the files differ from what this writes

darts_v2_cells: DARTS (Liu et al., ICLR 2019), genotype DARTS_V2, at the width of its ImageNet
network's first cells (C = 48, 28x28): a normal cell whose two inputs s0 and s1 are both the
model input (48x28x28, as the first cell's are both the stem's output in DARTS' CIFAR network;
the IR has one input), preprocessed by ReLU -> 1x1 conv -> BN, then the reduction cell after it
(C = 96), whose preprocess1 is ReLU -> 1x1 conv -> BN over the normal cell's concatenation.
Every operation applies its own ReLU first, as DARTS' modules do; batch norms are folded into
the conv before them. dil_conv_3x3 (dilation 2) is a 5x5 depthwise conv with padding 2 here
(same window span and output shape; the IR has no dilation).

swiftnet_cell: a SwiftNet-like cell (Zhang et al. 2019, as the Serenity paper shows Cell A:
dense irregular wiring whose nodes read concatenations of earlier nodes through ReLU -> conv,
and depthwise convs). The exact published cell is only drawn in the papers, so this structure
is an assumption of the same kind, not SwiftNet itself.
"""
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


class Builder:
    # Nodes are named 0 (the input), 1, 2, ... in file order, as the IOS models are (a parts
    # file splits by those numbers); hint names say what each is. Methods take and return
    # hint names.
    def __init__(self, name, shape):
        self.name = name
        self.shapes = {"in": list(shape)}
        self.ids = {"in": "0"}
        self.input = {"type": "placeholder", "name": "0", "hint_name": "in",
                      "output_shape": list(shape)}
        self.nodes = []

    def _add(self, node, shape):
        hint = node["name"]
        node["name"] = self.ids[hint] = str(len(self.nodes) + 1)
        node["output_shape"] = list(shape)
        self.shapes[hint] = list(shape)
        self.nodes.append(node)
        return hint

    def ref(self, name):
        return [self.ids[name], 0, self.shapes[name][0]]

    def parts(self, last_of_each):
        """A parts file (docs/formats.md) whose parts end at the given hint names."""
        ends = [int(self.ids[h]) for h in last_of_each]
        return {"model": self.name, "block_index": 0,
                "note": "Written by tools/make_nas_cells.py: parts for the IOS DP, whose "
                        "search over one 51-operator part of width 7 takes half a minute.",
                "split_node_names": [str(k) for k in [0] + ends]}

    def relu(self, name, x):
        return self._add({"type": "relu", "name": name, "hint_name": name,
                          "inputs": [[self.ref(x)]]}, self.shapes[x])

    def conv(self, name, x, out, k=1, s=1, p=None, groups=1, act="identity"):
        c, h, w = self.shapes[x]
        p = k // 2 if p is None else p
        oh, ow = (h + 2 * p - k) // s + 1, (w + 2 * p - k) // s + 1
        return self._add({"type": "conv", "name": name, "hint_name": name,
                          "inputs": [[self.ref(x)]], "out_channels": out, "kernel": [k, k],
                          "stride": [s, s], "padding": [p, p], "groups": groups, "act": act},
                         [out, oh, ow])

    def maxpool(self, name, x, s):
        c, h, w = self.shapes[x]
        return self._add({"type": "pool", "name": name, "hint_name": name,
                          "inputs": [[self.ref(x)]], "pool_type": "max", "kernel": [3, 3],
                          "stride": [s, s], "padding": [1, 1]},
                         [c, (h + 2 - 3) // s + 1, (w + 2 - 3) // s + 1])

    def add(self, name, a, b):  # one term: the values are summed
        return self._add({"type": "identity", "name": name, "hint_name": name,
                          "inputs": [[self.ref(a), self.ref(b)]]}, self.shapes[a])

    def concat(self, name, xs):  # one term per value: concatenated along channels
        c = sum(self.shapes[x][0] for x in xs)
        _, h, w = self.shapes[xs[0]]
        return self._add({"type": "identity", "name": name, "hint_name": name,
                          "inputs": [[self.ref(x)] for x in xs]}, [c, h, w])

    def relu_conv(self, name, x, out, k=1, s=1):  # ReLUConvBN (BN folded)
        return self.conv(name, self.relu(name + "_relu", x), out, k, s)

    def sep_conv(self, name, x, c, s=1):  # DARTS SepConv 3x3: (ReLU, dw, pw, BN) twice
        y = self.conv(name + "_dw1", self.relu(name + "_relu1", x), c, 3, s, groups=c)
        y = self.conv(name + "_pw1", y, c, act="relu")  # BN, then the second ReLU
        y = self.conv(name + "_dw2", y, c, 3, 1, groups=c)
        return self.conv(name + "_pw2", y, c)

    def dil_conv(self, name, x, c):  # DARTS DilConv 3x3, dilation 2: ReLU, dw, pw, BN
        y = self.conv(name + "_dw", self.relu(name + "_relu", x), c, 5, 1, 2, groups=c)
        return self.conv(name + "_pw", y, c)

    def graph(self):
        *inner, exit_node = self.nodes
        return {"name": self.name, "input": self.input,
                "blocks": [{"enter_name": "0", "enter_node": self.input, "inner_nodes": inner,
                            "exit_node": exit_node, "stages": []}]}


def darts_v2_cells():
    g = Builder("darts_v2_cells", [48, 28, 28])
    s0 = s1 = "in"  # both cell inputs the model input, as in DARTS' first cell
    # Normal cell, C = 48.
    c = 48
    p0 = g.relu_conv("n_pre0", s0, c)
    p1 = g.relu_conv("n_pre1", s1, c)
    n2 = g.add("n_node2", g.sep_conv("n_op0", p0, c), g.sep_conv("n_op1", p1, c))
    n3 = g.add("n_node3", g.sep_conv("n_op2", p0, c), g.sep_conv("n_op3", p1, c))
    n4 = g.add("n_node4", g.sep_conv("n_op4", p1, c), p0)  # skip_connect(s0)
    n5 = g.add("n_node5", p0, g.dil_conv("n_op7", n2, c))  # skip_connect(s0), dil_conv(node2)
    normal = g.concat("n_concat", [n2, n3, n4, n5])
    # Reduction cell, C = 96: s0 is the normal cell's s1, s1 its output.
    c = 96
    r0 = g.relu_conv("r_pre0", s1, c)
    r1 = g.relu_conv("r_pre1", normal, c)
    m2 = g.add("r_node2", g.maxpool("r_op0", r0, 2), g.maxpool("r_op1", r1, 2))
    m3 = g.add("r_node3", m2, g.maxpool("r_op3", r1, 2))  # skip_connect(node2)
    m4 = g.add("r_node4", g.maxpool("r_op4", r0, 2), m2)
    m5 = g.add("r_node5", m2, g.maxpool("r_op7", r1, 2))
    g.concat("r_concat", [m2, m3, m4, m5])
    return g.graph(), g.parts(["n_node3", "n_concat", "r_concat"])


def swiftnet_cell():
    g = Builder("swiftnet_cell", [32, 56, 56])
    c = 32
    x = g.relu_conv("stem", "in", c)
    nodes = [x]
    # Each node reads the concatenation of some earlier nodes through ReLU -> 1x1 conv (BN
    # folded), then a 3x3 depthwise conv with ReLU; node 3's input also has a ReLU-led
    # depthwise branch straight over a concatenation (a kernel-wise rewrite).
    wiring = [[0], [0, 1], [0, 1, 2], [1, 2, 3], [0, 2, 3, 4], [1, 3, 4, 5]]
    for i, reads in enumerate(wiring, start=1):
        src = nodes[reads[0]] if len(reads) == 1 else g.concat(
            f"node{i}_cat", [nodes[j] for j in reads])
        y = g.relu_conv(f"node{i}_pw", src, c)
        if i == 3:  # depthwise over ReLU(concat): kernel-wise
            side = g.concat("node3_dwcat", [nodes[1], nodes[2]])
            d = g.conv("node3_dwside", g.relu("node3_dwrelu", side), 2 * c, 3, groups=2 * c)
            y = g.add("node3_mix", y, g.conv("node3_dwproj", d, c))
        nodes.append(g.conv(f"node{i}_dw", y, c, 3, groups=c, act="relu"))
    out = g.concat("out_cat", nodes[2:])
    g.relu_conv("out_pw", out, 2 * c)
    return g.graph(), None


def write(data, path, check):
    text = json.dumps(data, indent=1)  # as ios-sched convert writes IOS JSON
    if check:
        return path.exists() and path.read_text() == text
    path.write_text(text)
    return True


def main():
    check = "--check" in sys.argv[1:]
    ok = True
    for graph, parts in (darts_v2_cells(), swiftnet_cell()):
        files = [(graph, ".ios.json")] + ([(parts, ".parts.json")] if parts else [])
        for data, ext in files:
            path = ROOT / "sample_models" / (graph["name"] + ext)
            if not write(data, path, check):
                print(f"{path.relative_to(ROOT)} differs from tools/make_nas_cells.py's output")
                ok = False
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
