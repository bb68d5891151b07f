// SPDX-License-Identifier: Apache-2.0
// A protobuf-free copy of the parts of an ONNX ModelProto the importer needs (docs/onnx.md).
// onnx_reader.cpp fills it from the file with Debian's libonnx protobuf classes; everything
// after that (constant folding, lowering, blocks) works on these plain structs.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace ios::io::onnx {

// ONNX TensorProto.DataType values the importer distinguishes.
enum DataType : int32_t { kFloat = 1, kInt32 = 6, kInt64 = 7, kDouble = 11 };

// Values are decoded only for small integer/float tensors (shape constants, Clip bounds);
// weights keep just their dims, so a weight-less file and a full one import alike.
inline constexpr int64_t kMaxFoldedElements = 64;

// Graphs with more nodes are refused before lowering. Lowering keeps about 2 KiB per node (the
// node, its tensors' shapes, the IR operator), so this bounds the importer's memory at about
// 0.5 GB beyond ~2× the file (docs/onnx.md "Limits"); CNN exports have a few thousand nodes.
inline constexpr int kMaxOnnxNodes = 200000;

struct Tensor {
    std::vector<int64_t> dims;
    int32_t dataType = 0;
    std::optional<std::vector<int64_t>> ints; // integer tensors (and integral floats)
    std::optional<std::vector<double>> reals; // small float tensors, every value
    int64_t elements() const;
};

struct Attribute {
    std::string name;
    int32_t type = 0; // AttributeProto.AttributeType
    int64_t i = 0;
    double f = 0;
    std::string s;
    std::vector<int64_t> ints;
    std::optional<Tensor> t;
};

struct Node {
    std::string name; // may be empty in the file; the importer names it after its output
    std::string opType;
    std::string domain;               // "" = the default ai.onnx domain
    std::vector<std::string> inputs;  // "" = optional input left out
    std::vector<std::string> outputs; // "" = optional output left out
    std::vector<Attribute> attrs;

    const Attribute* attr(std::string_view attrName) const;
    int64_t attrInt(std::string_view attrName, int64_t fallback) const;
    std::vector<int64_t> attrInts(std::string_view attrName) const; // empty when absent
    std::string attrString(std::string_view attrName, std::string fallback) const;
    std::string label() const; // "'name' (OpType)" for error messages
};

struct ValueInfo {
    std::string name;
    int32_t elemType = 0;
    bool hasShape = false;
    std::vector<int64_t> dims; // -1 = dynamic (dim_param or missing dim_value)
};

struct Model {
    int64_t opset = 0; // default-domain opset; 0 when the file declares none
    std::string graphName;
    std::vector<Node> nodes;
    std::unordered_map<std::string, Tensor> initializers;
    std::vector<ValueInfo> inputs; // graph inputs (weights too, when exported as inputs)
    std::vector<std::string> outputs;
    std::unordered_map<std::string, ValueInfo> valueInfo; // intermediate declared shapes
};

// Parses serialized ModelProto bytes. Throws ios::UserError (without file context) for
// anything that is not a readable ONNX model, or when the build has no ONNX support.
Model readModel(std::string_view bytes);

// Whether this build links libonnx/protobuf (CMake option IOS_WITH_ONNX).
bool supportAvailable();

} // namespace ios::io::onnx
