// SPDX-License-Identifier: Apache-2.0
#include "io/onnx/onnx_values.h"

#include "io/onnx/onnx_checks.h"

#include <algorithm>
#include <array>
#include <string_view>
#include <utility>

namespace ios::io::onnx::detail {

std::vector<int64_t> broadcast(const Node& node, const std::vector<int64_t>& a,
                               const std::vector<int64_t>& b) {
    std::vector<int64_t> out(std::max(a.size(), b.size()), 1);
    for (size_t i = 0; i < out.size(); ++i) {
        const int64_t x = i < out.size() - a.size() ? 1 : a[i - (out.size() - a.size())];
        const int64_t y = i < out.size() - b.size() ? 1 : b[i - (out.size() - b.size())];
        if (x != y && x != 1 && y != 1)
            fail(node, "cannot broadcast " + dimsText(a) + " with " + dimsText(b));
        out[i] = x == 1 ? y : x;
    }
    return out;
}

std::optional<int64_t> foldBinary(const Node& node, int64_t x, int64_t y) {
    const std::string& op = node.opType;
    std::optional<int64_t> r;
    if (op == "Add" || op == "Sum")
        r = checked::add(x, y);
    else if (op == "Sub")
        r = checked::sub(x, y);
    else if (op == "Mul")
        r = checked::mul(x, y);
    else if (op == "Div" && y == 0)
        fail(node, "divides the constant " + std::to_string(x) +
                       " by zero; fix the shape computation in the model");
    else if (op == "Div")
        r = checked::div(x, y); // integer Div truncates
    else if (op == "Equal")
        r = x == y ? 1 : 0;
    else if (op == "Mod" && y == 0)
        fail(node, "takes the constant " + std::to_string(x) +
                       " modulo zero; fix the shape computation in the model");
    else if (op == "Mod" && y == -1)
        r = 0;              // INT64_MIN % -1 traps
    else if (op == "Mod") { // fmod 0: the divisor's sign, as Python's %; fmod 1: C's
        int64_t m = x % y;
        if (node.attrInt("fmod", 0) == 0 && m != 0 && ((m < 0) != (y < 0)))
            m += y;
        r = m;
    } else
        return std::nullopt;
    if (!r)
        fail(node, "constant " + std::to_string(x) + " " + op + " " + std::to_string(y) +
                       " overflows 64-bit integers; fix the shape computation in the model");
    return r;
}

std::optional<EinsumSpec> parseEinsum(const Node& node) {
    const std::string equation = node.attrString("equation", "");
    const size_t arrow = equation.find("->");
    if (arrow == std::string::npos)
        return std::nullopt;
    EinsumSpec e;
    std::string term;
    const auto letters = [](std::string_view s, std::string& out) {
        for (char c : s) {
            if (c == ' ')
                continue;
            if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')))
                return false;
            out += c;
        }
        return true;
    };
    size_t from = 0;
    while (from <= arrow) {
        const size_t comma = std::min(equation.find(',', from), arrow);
        if (!letters(std::string_view(equation).substr(from, comma - from), term))
            return std::nullopt;
        e.inputs.push_back(std::exchange(term, {}));
        from = comma + 1;
    }
    if (!letters(std::string_view(equation).substr(arrow + 2), e.output))
        return std::nullopt;
    return e;
}

std::vector<int64_t> einsumDims(const Node& node,
                                const std::vector<std::vector<int64_t>>& operands) {
    const std::optional<EinsumSpec> e = parseEinsum(node);
    if (!e || e->inputs.size() != operands.size())
        fail(node, "unsupported einsum equation '" + node.attrString("equation", "") + "'");
    std::array<int64_t, 128> extent{};
    for (size_t i = 0; i < operands.size(); ++i) {
        const std::vector<int64_t>& d = operands[i];
        if (d.size() != e->inputs[i].size())
            fail(node, "einsum operand " + std::to_string(i) + " " + dimsText(d) +
                           " does not have the equation's " + std::to_string(e->inputs[i].size()) +
                           " axes");
        for (size_t k = 0; k < d.size(); ++k) {
            int64_t& x = extent[static_cast<unsigned char>(e->inputs[i][k])];
            if (x > 1 && d[k] > 1 && x != d[k])
                fail(node, std::string("einsum axis '") + e->inputs[i][k] + "' is " +
                               std::to_string(x) + " in one operand and " + std::to_string(d[k]) +
                               " in another");
            x = std::max(x, d[k]);
        }
    }
    std::vector<int64_t> out;
    for (char c : e->output) {
        if (extent[static_cast<unsigned char>(c)] == 0)
            fail(node, std::string("einsum output axis '") + c + "' is in no operand");
        out.push_back(extent[static_cast<unsigned char>(c)]);
    }
    return out;
}

} // namespace ios::io::onnx::detail
