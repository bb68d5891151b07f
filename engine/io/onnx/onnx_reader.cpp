// SPDX-License-Identifier: Apache-2.0
// ModelProto → onnx::Model with Debian's libonnx protobuf classes (libonnx_proto). Without
// them (IOS_WITH_ONNX=OFF or not found) readModel() reports that the build lacks ONNX.
#include "io/onnx/onnx_model.h"
#include "util/checked.h"
#include "util/error.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

#ifdef IOS_HAVE_ONNX
#include <onnx/onnx_pb.h>
#endif

namespace ios::io::onnx {

int64_t Tensor::elements() const {
    if (std::any_of(dims.begin(), dims.end(), [](int64_t d) { return d <= 0; }))
        return 0;
    return checked::product(dims).value_or(-1);
}

const Attribute* Node::attr(std::string_view attrName) const {
    for (const Attribute& a : attrs)
        if (a.name == attrName)
            return &a;
    return nullptr;
}

int64_t Node::attrInt(std::string_view attrName, int64_t fallback) const {
    const Attribute* a = attr(attrName);
    return a ? a->i : fallback;
}

std::vector<int64_t> Node::attrInts(std::string_view attrName) const {
    const Attribute* a = attr(attrName);
    return a ? a->ints : std::vector<int64_t>{};
}

std::string Node::attrString(std::string_view attrName, std::string fallback) const {
    const Attribute* a = attr(attrName);
    return a ? a->s : fallback;
}

std::string Node::label() const {
    return "'" + name + "' (" + (domain.empty() ? "" : domain + "::") + opType + ")";
}

#ifdef IOS_HAVE_ONNX

bool supportAvailable() {
    return true;
}

namespace {

namespace pb = ::onnx;

// Protobuf wire format, just enough to count the nodes of the top-level graph before parsing
// (protobuf's objects take ~15× the bytes of a file of tiny nodes, so the cap must come first).
// Reads one varint at `p`; false at the end of the data or on a malformed varint.
bool wireVarint(const char*& p, const char* end, uint64_t& v) {
    v = 0;
    for (int shift = 0; shift < 64 && p < end; shift += 7) {
        const auto b = static_cast<unsigned char>(*p++);
        v |= uint64_t{b & 0x7fu} << shift;
        if (!(b & 0x80u))
            return true;
    }
    return false;
}

// Calls visit(field, begin, end) for each length-delimited field of the message in [p, end);
// stops quietly at anything malformed (the real parse reports it).
template <typename Visit> void wireFields(const char* p, const char* end, Visit&& visit) {
    uint64_t key = 0;
    uint64_t len = 0;
    while (p < end && wireVarint(p, end, key)) {
        switch (key & 7) {
        case 0:
            if (!wireVarint(p, end, len))
                return;
            break;
        case 1:
        case 5:
            if (end - p < ((key & 7) == 1 ? 8 : 4))
                return;
            p += (key & 7) == 1 ? 8 : 4;
            break;
        case 2:
            if (!wireVarint(p, end, len) || len > static_cast<uint64_t>(end - p))
                return;
            visit(key >> 3, p, p + len);
            p += len;
            break;
        default:
            return;
        }
    }
}

// ModelProto.graph (field 7) → GraphProto.node (field 1), summed over repeated graph fields.
int64_t countTopLevelNodes(std::string_view bytes) {
    int64_t nodes = 0;
    wireFields(
        bytes.data(), bytes.data() + bytes.size(), [&](uint64_t f, const char* b, const char* e) {
            if (f == 7)
                wireFields(b, e, [&](uint64_t g, const char*, const char*) { nodes += g == 1; });
        });
    return nodes;
}

template <typename T> std::optional<T> readRaw(const std::string& raw, size_t i) {
    T v;
    if ((i + 1) * sizeof(T) > raw.size())
        return std::nullopt;
    std::memcpy(&v, raw.data() + i * sizeof(T), sizeof(T)); // ONNX raw data is little-endian
    return v;
}

// Element k of a tensor of T: from raw_data when the tensor has it, else from its typed field
// (`count` values, `at(j)`); nullopt when missing.
template <typename T, typename Field>
std::optional<T> element(const pb::TensorProto& t, size_t k, int count, Field at) {
    if (t.has_raw_data())
        return readRaw<T>(t.raw_data(), k);
    if (k < static_cast<size_t>(count))
        return static_cast<T>(at(static_cast<int>(k)));
    return std::nullopt;
}

// An integral double that fits int64 (shape constants stored as floats), else nullopt.
std::optional<int64_t> integral(double v) {
    if (!std::isfinite(v) || v != std::floor(v) || std::fabs(v) > 9.0e18)
        return std::nullopt;
    return static_cast<int64_t>(v);
}

Tensor readTensor(const pb::TensorProto& t, const std::string& where) {
    Tensor out;
    out.dataType = t.data_type();
    for (int64_t d : t.dims()) {
        if (d < 0)
            throw UserError("tensor '" + t.name() + "' of " + where + " has a negative dimension");
        out.dims.push_back(d);
    }
    const int64_t n = out.elements();
    if (n < 0)
        throw UserError("tensor '" + t.name() + "' of " + where + " is impossibly large");
    if (n > kMaxFoldedElements || t.data_location() == pb::TensorProto::EXTERNAL)
        return out; // weights: only their dims matter
    std::vector<int64_t> values;
    std::vector<double> reals;
    for (int64_t i = 0; i < n; ++i) {
        const auto k = static_cast<size_t>(i);
        std::optional<int64_t> v;
        std::optional<double> real;
        switch (out.dataType) {
        case kInt64:
            v = element<int64_t>(t, k, t.int64_data_size(), [&](int j) { return t.int64_data(j); });
            break;
        case kInt32:
            if (auto e = element<int32_t>(t, k, t.int32_data_size(),
                                          [&](int j) { return t.int32_data(j); }))
                v = *e;
            break;
        case kFloat:
            if (auto e = element<float>(t, k, t.float_data_size(),
                                        [&](int j) { return t.float_data(j); })) {
                real = *e;
                v = integral(*e);
            }
            break;
        case kDouble:
            if (auto e = element<double>(t, k, t.double_data_size(),
                                         [&](int j) { return t.double_data(j); })) {
                real = *e;
                v = integral(*e);
            }
            break;
        default:
            return out;
        }
        if (real)
            reals.push_back(*real);
        if (v)
            values.push_back(*v);
    }
    if (reals.size() == static_cast<size_t>(n))
        out.reals = std::move(reals);
    if (values.size() == static_cast<size_t>(n)) // not for missing data or non-integral floats
        out.ints = std::move(values);
    return out;
}

ValueInfo readValueInfo(const pb::ValueInfoProto& v) {
    ValueInfo out;
    out.name = v.name();
    if (!v.has_type() || !v.type().has_tensor_type())
        return out;
    const pb::TypeProto_Tensor& tt = v.type().tensor_type();
    out.elemType = tt.elem_type();
    if (!tt.has_shape())
        return out;
    out.hasShape = true;
    for (const pb::TensorShapeProto_Dimension& d : tt.shape().dim())
        out.dims.push_back(d.has_dim_value() && d.dim_value() >= 0 ? d.dim_value() : -1);
    return out;
}

Attribute readAttribute(const pb::AttributeProto& a, const std::string& where) {
    Attribute out;
    out.name = a.name();
    out.type = a.type();
    out.i = a.i();
    out.f = a.f();
    out.s = a.s();
    out.ints.assign(a.ints().begin(), a.ints().end());
    if (a.has_t())
        out.t = readTensor(a.t(), where);
    return out;
}

} // namespace

Model readModel(std::string_view bytes) {
    if (bytes.empty())
        throw UserError("empty file: not an ONNX model");
    if (bytes.size() > static_cast<size_t>(std::numeric_limits<int>::max()))
        throw UserError("file is too large for an ONNX model (over 2 GiB)");
    if (const int64_t nodes = countTopLevelNodes(bytes); nodes > kMaxOnnxNodes)
        throw UserError("the graph has " + std::to_string(nodes) +
                        " nodes; the importer takes at most " + std::to_string(kMaxOnnxNodes) +
                        " (CNN exports have a few thousand): split or simplify the model");
    pb::ModelProto proto;
    if (!proto.ParseFromArray(bytes.data(), static_cast<int>(bytes.size())))
        throw UserError("not an ONNX model: the protobuf data is malformed or truncated");
    if (!proto.has_graph() || proto.graph().node_size() == 0)
        throw UserError("not an ONNX model: it has no graph nodes");

    Model m;
    for (const pb::OperatorSetIdProto& o : proto.opset_import())
        if (o.domain().empty() || o.domain() == "ai.onnx")
            m.opset = o.version();
    const pb::GraphProto& g = proto.graph();
    m.graphName = g.name();
    m.nodes.reserve(static_cast<size_t>(g.node_size()));
    for (const pb::NodeProto& n : g.node()) {
        Node node;
        node.name = n.name();
        node.opType = n.op_type();
        node.domain = n.domain() == "ai.onnx" ? std::string() : n.domain();
        node.inputs.assign(n.input().begin(), n.input().end());
        node.outputs.assign(n.output().begin(), n.output().end());
        const std::string where = "node '" + n.name() + "'";
        for (const pb::AttributeProto& a : n.attribute())
            node.attrs.push_back(readAttribute(a, where));
        m.nodes.push_back(std::move(node));
    }
    for (const pb::TensorProto& t : g.initializer())
        m.initializers[t.name()] = readTensor(t, "the initializers");
    for (const pb::ValueInfoProto& v : g.input())
        m.inputs.push_back(readValueInfo(v));
    for (const pb::ValueInfoProto& v : g.output())
        m.outputs.push_back(v.name());
    for (const pb::ValueInfoProto& v : g.value_info())
        m.valueInfo[v.name()] = readValueInfo(v);
    return m;
}

#else // no ONNX library in this build

bool supportAvailable() {
    return false;
}

Model readModel(std::string_view) {
    throw UserError("this build has no ONNX support (built without ONNX support: install "
                    "libonnx-dev, libprotobuf-dev and protobuf-compiler, then reconfigure with "
                    "-DIOS_WITH_ONNX=ON)");
}

#endif

} // namespace ios::io::onnx
