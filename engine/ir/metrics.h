// SPDX-License-Identifier: Apache-2.0
// Work and memory traffic per operator (fp32, batch 1; multiply by the batch size).
#pragma once

#include "ir/graph.h"

#include <unordered_map>

namespace ios::ir {

// Exact counts. Shapes within the format's bounds (docs/formats.md) can still make a count
// exceed int64 (a 2^20-channel 4096x4096 conv has 2^64 parameters): every sum and product is
// checked, and an overflow is a UserError naming the node, never a wrapped or negative count.
struct OperatorMetrics {
    int64_t flops = 0;        // multiply-adds count as 2
    int64_t bytesRead = 0;    // activations read (every input value once)
    int64_t bytesWritten = 0; // output activations
    int64_t weightBytes = 0;  // parameters (conv weights + bias)
    int64_t parameters = 0;

    // Adds `o` field by field; throws UserError naming `node` when a sum overflows int64.
    OperatorMetrics& add(const OperatorMetrics& o, const std::string& node);
};

inline constexpr int64_t kBytesPerElement = 4;

// Name → node for every node of a validated graph, sequential inner nodes included.
class NodeIndex {
public:
    explicit NodeIndex(const Graph& graph);
    const Node* find(const std::string& name) const;

private:
    void add(const Node& node);
    std::unordered_map<std::string, const Node*> nodes_;
};

// Metrics of one node of a validated graph (a sequential sums its inner nodes). Throws
// UserError naming the node when a count overflows int64.
OperatorMetrics computeMetrics(const Node& node, const NodeIndex& index);

} // namespace ios::ir
