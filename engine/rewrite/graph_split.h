// SPDX-License-Identifier: Apache-2.0
// The flow-based graph split of MetaFlow (§4.3, Algorithm 2) as docs/metaflow.md decides it:
// a block over T operators is cut at a minimum vertex cut whose capacity counts the
// substitutions the cut would break, the operators of its first and last quarter tied to
// source and sink so the halves stay balanced.
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

namespace ios::rewrite {

// Operators 0..n-1 in file order; edges (producer, consumer) between them.
struct SplitProblem {
    int n = 0;
    std::vector<std::pair<int, int>> edges;
    std::vector<int64_t> cap; // Cap(o): matches using a pattern edge into o and one out of o
};

// The network's vertex weights: (n+1)·Cap(o) + 1 for operators at positions
// [⌈n/4⌉, n − ⌈n/4⌉), a weight above every such cut for the others; the first ⌈n/4⌉
// operators hang off the source, the last ⌈n/4⌉ off the sink.
struct SplitNetwork {
    std::vector<int64_t> weight;
    std::vector<bool> fromSource;
    std::vector<bool> toSink;
};
SplitNetwork splitNetwork(const SplitProblem& problem);

struct SplitResult {
    std::vector<int> cut;    // C, ascending
    int64_t capacity = 0;    // Σ weight over C (the max flow)
    std::vector<int> first;  // G2: the operators that run first (a down-set), ascending
    std::vector<int> second; // G1 = C ∪ descendants(C), ascending
    bool fileOrder = false;  // G1 or G2 was empty: the halves are cut at ⌊n/2⌋ instead
};

// Max flow (Dinic, adjacency in operator order) and the cut nearest the source; G1 and G2 as
// above, or the file-order halves at ⌊n/2⌋ when either would be empty. n ≥ 2.
SplitResult splitOperators(const SplitProblem& problem);

// The searches of Algorithm 2 for one block, in run order: while a set of operators is over
// `threshold` (and ≥ 2) it is split; each leaf is searched, G2's before G1's, and after both
// halves the window of operators within two undirected hops of their cut. A sub-problem keeps
// its operators' Cap values.
struct SplitStep {
    std::vector<int> ops; // ascending
    bool window = false;
};
std::vector<SplitStep> planSplit(const SplitProblem& problem, int threshold);

} // namespace ios::rewrite
