// SPDX-License-Identifier: Apache-2.0
#include "io/onnx/onnx_values.h"

#include "io/onnx/onnx_checks.h"

#include <algorithm>

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

} // namespace ios::io::onnx::detail
