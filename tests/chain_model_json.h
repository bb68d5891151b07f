// SPDX-License-Identifier: Apache-2.0
// A native-JSON model for the CLI suites: a chain of ReLUs in one block.
#pragma once

#include <string>

namespace ios::testing {

// A chain of `n` ReLUs of shape [c, hw, hw] in the native format, one explicit part or none.
inline std::string chainModelJson(int n, bool onePart, int c = 8, int hw = 4) {
    const std::string shape =
        "[" + std::to_string(c) + ", " + std::to_string(hw) + ", " + std::to_string(hw) + "]";
    const std::string in = R"({"type": "placeholder", "name": "in", "hint_name": "in", )"
                           R"("output_shape": )" +
                           shape + "}";
    std::string nodes, part;
    for (int i = 0; i < n; ++i) {
        const std::string name = "r" + std::to_string(i);
        const std::string from = i == 0 ? "in" : "r" + std::to_string(i - 1);
        const std::string node = R"({"type": "relu", "name": ")" + name + R"(", "hint_name": ")" +
                                 name + R"(", "inputs": [[[")" + from + R"(", 0, )" +
                                 std::to_string(c) + R"(]]], "output_shape": )" + shape + "}";
        if (i + 1 < n)
            nodes += (nodes.empty() ? "" : ", ") + node;
        else
            nodes = "[" + nodes + "], \"exit_node\": " + node;
        part += (part.empty() ? "\"" : ", \"") + name + "\"";
    }
    return R"({"format": "ios-explorer", "version": 1, "model": {"name": "chain", "input": )" + in +
           R"(, "blocks": [{"enter_name": "in", "enter_node": )" + in + R"(, "inner_nodes": )" +
           nodes + R"(, "stages": [])" +
           (onePart ? R"(, "parts": [[)" + part + "]]" : R"(, "parts": [])") + "}]}}";
}

} // namespace ios::testing
