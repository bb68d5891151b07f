#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""A synthetic 1 000-node ONNX model (200 modules: three convs, a concat, a ReLU) for the
import timing in docs/performance.md. Usage: make_large_model.py [OUT.onnx]"""
import onnx
from onnx import TensorProto, helper
nodes=[]; weights=[]
cur="x"; C=16
for m in range(200):
    p=f"m{m}"
    for b in range(3):
        weights.append((f"{p}w{b}",[8,C,1 if b==0 else 3,1 if b==0 else 3]))
        pads=[0,0,0,0] if b==0 else [1,1,1,1]
        nodes.append(helper.make_node("Conv",[cur,f"{p}w{b}"],[f"{p}c{b}"],kernel_shape=[1,1] if b==0 else [3,3],pads=pads,name=f"{p}conv{b}"))
    nodes.append(helper.make_node("Concat",[f"{p}c0",f"{p}c1"],[f"{p}cat"],axis=1,name=f"{p}cat"))
    nodes.append(helper.make_node("Relu",[f"{p}cat"],[f"{p}out"],name=f"{p}relu"))
    # conv c2 unused -> add into concat? keep it: add c2 to cat input
    nodes[-2]=helper.make_node("Concat",[f"{p}c0",f"{p}c1",f"{p}c2"],[f"{p}cat"],axis=1,name=f"{p}cat")
    cur=f"{p}out"; C=24
    weights[-3:] = [(n,[8,16 if m==0 else 24]+d[2:]) for n,d in weights[-3:]]
inputs=[helper.make_tensor_value_info("x",TensorProto.FLOAT,[1,16,32,32])]+[helper.make_tensor_value_info(n,TensorProto.FLOAT,d) for n,d in weights]
g=helper.make_graph(nodes,"big",inputs,[helper.make_tensor_value_info(cur,TensorProto.FLOAT,None)])
m=helper.make_model(g,opset_imports=[helper.make_opsetid("",13)])
import sys; onnx.save(m, sys.argv[1] if len(sys.argv) > 1 else "big1000.onnx"); print(len(nodes),"nodes")
