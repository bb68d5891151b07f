// SPDX-License-Identifier: Apache-2.0
// Small ONNX models for the importer's tests, built with the ONNX protobuf classes.
#pragma once

#include <cstdint>
#include <onnx/onnx_pb.h>
#include <string>
#include <vector>

namespace ios::test {

// A tiny graph builder over the ONNX protobuf classes.
struct Builder {
    ::onnx::ModelProto model;
    ::onnx::GraphProto* g = model.mutable_graph();

    explicit Builder(std::vector<int64_t> inDims = {1, 8, 16, 16}, int opset = 13) {
        auto* o = model.add_opset_import();
        o->set_domain("");
        o->set_version(opset);
        g->set_name("test");
        input("x", inDims);
    }
    static void setDims(::onnx::ValueInfoProto* v, const std::vector<int64_t>& dims) {
        auto* tt = v->mutable_type()->mutable_tensor_type();
        tt->set_elem_type(1);
        auto* shape = tt->mutable_shape();
        for (int64_t d : dims) {
            if (d < 0)
                shape->add_dim()->set_dim_param("dyn");
            else
                shape->add_dim()->set_dim_value(d);
        }
    }
    void input(const std::string& name, const std::vector<int64_t>& dims) {
        auto* v = g->add_input();
        v->set_name(name);
        setDims(v, dims);
    }
    // A weight exported without data: a graph input with its shape.
    void weight(const std::string& name, const std::vector<int64_t>& dims) { input(name, dims); }
    void ints(const std::string& name, const std::vector<int64_t>& values) {
        auto* t = g->add_initializer();
        t->set_name(name);
        t->set_data_type(7);
        t->add_dims(static_cast<int64_t>(values.size()));
        for (int64_t v : values)
            t->add_int64_data(v);
    }
    // A one-element float initializer (a scalar operand such as √2).
    void real(const std::string& name, float value) {
        auto* t = g->add_initializer();
        t->set_name(name);
        t->set_data_type(1);
        t->add_float_data(value);
    }
    // x · 0.5 · (1 + erf(x / √2)) as PyTorch exports nn.GELU before opset 20 (`halfFirst`:
    // x · 0.5 first, as other exporters write it); `half` may be set off to break it.
    void erfGelu(const std::string& name, const std::string& x, const std::string& y,
                 bool halfFirst = false, float half = 0.5f) {
        real(name + ".sqrt2", 1.41421356f);
        real(name + ".one", 1.0f);
        real(name + ".half", half);
        node("Div", name + ".div", {x, name + ".sqrt2"}, {name + ".d"});
        node("Erf", name + ".erf", {name + ".d"}, {name + ".e"});
        node("Add", name + ".add", {name + ".e", name + ".one"}, {name + ".a"});
        if (halfFirst) {
            node("Mul", name + ".half_x", {x, name + ".half"}, {name + ".h"});
            node("Mul", name + ".mul", {name + ".h", name + ".a"}, {y});
        } else {
            node("Mul", name + ".mul", {x, name + ".a"}, {name + ".m"});
            node("Mul", name + ".scale", {name + ".m", name + ".half"}, {y});
        }
    }
    ::onnx::NodeProto* node(const std::string& op, const std::string& name,
                            std::vector<std::string> ins, std::vector<std::string> outs) {
        auto* n = g->add_node();
        n->set_op_type(op);
        n->set_name(name);
        for (auto& i : ins)
            n->add_input(i);
        for (auto& o : outs)
            n->add_output(o);
        return n;
    }
    static void attr(::onnx::NodeProto* n, const std::string& name, std::vector<int64_t> v) {
        auto* a = n->add_attribute();
        a->set_name(name);
        a->set_type(::onnx::AttributeProto::INTS);
        for (int64_t x : v)
            a->add_ints(x);
    }
    static void attr(::onnx::NodeProto* n, const std::string& name, const std::string& v) {
        auto* a = n->add_attribute();
        a->set_name(name);
        a->set_type(::onnx::AttributeProto::STRING);
        a->set_s(v);
    }
    static void attr(::onnx::NodeProto* n, const std::string& name, int64_t v) {
        auto* a = n->add_attribute();
        a->set_name(name);
        a->set_type(::onnx::AttributeProto::INT);
        a->set_i(v);
    }
    // conv with a weight input named <name>.w: cout x cin/groups x k x k
    ::onnx::NodeProto* conv(const std::string& name, const std::string& in, const std::string& out,
                            int64_t cin, int64_t cout, int64_t k, int64_t pad = 0,
                            int64_t groups = 1) {
        weight(name + ".w", {cout, cin / groups, k, k});
        auto* n = node("Conv", name, {in, name + ".w"}, {out});
        attr(n, "kernel_shape", std::vector<int64_t>{k, k});
        attr(n, "pads", std::vector<int64_t>{pad, pad, pad, pad});
        if (groups != 1)
            attr(n, "group", groups);
        return n;
    }
    void transpose(const std::string& name, const std::string& x, const std::string& y,
                   std::vector<int64_t> perm) {
        attr(node("Transpose", name, {x}, {y}), "perm", std::move(perm));
    }
    // Reshape to `shape` (an int64 initializer named <name>.shape).
    void reshape(const std::string& name, const std::string& x, const std::string& y,
                 const std::vector<int64_t>& shape) {
        ints(name + ".shape", shape);
        node("Reshape", name, {x, name + ".shape"}, {y});
    }
    // An int64 scalar initializer (no dims), e.g. a Gather index.
    void scalarInt(const std::string& name, int64_t value) {
        auto* t = g->add_initializer();
        t->set_name(name);
        t->set_data_type(7);
        t->add_int64_data(value);
    }
    void output(const std::string& name) { g->add_output()->set_name(name); }
    std::string bytes() const { return model.SerializeAsString(); }
};

} // namespace ios::test
