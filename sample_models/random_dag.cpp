// SPDX-License-Identifier: Apache-2.0
#include "random_dag.h"

#include "randwire_generator.h"
#include "util/error.h"

#include <algorithm>
#include <charconv>
#include <random>
#include <string>
#include <vector>

namespace ios::samples {

namespace {

constexpr int kWindow = 8;     // a fork or extra input reads one of the last kWindow nodes
constexpr size_t kMaxOpen = 4; // above this many unconsumed outputs, a node must join one
constexpr int kKernels[] = {1, 3, 5};

// A node in [i - kWindow, i - 1], uniformly (i >= 1).
int recentNode(int i, std::mt19937& rng) {
    const int first = std::max(0, i - kWindow);
    return first + static_cast<int>(rng() % static_cast<uint32_t>(i - first));
}

// Node i's inputs: the oldest open node (always when too many are open, else two times in
// three), a recent node one time in two, and a recent node when it has none yet (a fork).
std::vector<int> chooseInputs(int i, const std::vector<int>& open, std::mt19937& rng) {
    std::vector<int> preds;
    if (i == 0)
        return preds; // reads the block input
    if (open.size() > kMaxOpen || rng() % 3 != 0)
        preds.push_back(open.front());
    if (rng() % 2 == 0 || preds.empty()) {
        const int extra = recentNode(i, rng);
        if (std::find(preds.begin(), preds.end(), extra) == preds.end())
            preds.push_back(extra);
    }
    std::sort(preds.begin(), preds.end());
    return preds;
}

template <typename T> std::optional<T> parseNumber(std::string_view text) {
    T value{};
    const auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (text.empty() || ec != std::errc{} || ptr != text.data() + text.size())
        return std::nullopt;
    return value;
}

} // namespace

ir::Graph randomDag(int operators, uint32_t seed) {
    if (operators < 2 || operators > kMaxRandomDagOperators)
        throw UserError("a random DAG needs 2 to " + std::to_string(kMaxRandomDagOperators) +
                        " operators, not " + std::to_string(operators));
    std::mt19937 rng(seed);
    const int convolutions = operators - 1; // the output node is the last operator
    std::vector<WiredNode> nodes(static_cast<size_t>(convolutions));
    std::vector<int> open; // nodes whose output no node reads yet, oldest first
    for (int i = 0; i < convolutions; ++i) {
        WiredNode& node = nodes[static_cast<size_t>(i)];
        node.preds = chooseInputs(i, open, rng);
        node.kernel = kKernels[rng() % std::size(kKernels)];
        std::erase_if(open, [&](int v) {
            return std::find(node.preds.begin(), node.preds.end(), v) != node.preds.end();
        });
        open.push_back(i);
    }
    return wiredConvGraph(
        "random_dag_" + std::to_string(operators) + "_seed" + std::to_string(seed), nodes);
}

std::optional<ir::Graph> generatedModel(std::string_view name) {
    constexpr std::string_view kPrefix = "random_dag:";
    if (!name.starts_with(kPrefix))
        return std::nullopt;
    const std::string_view rest = name.substr(kPrefix.size());
    const size_t colon = rest.find(':');
    const auto operators = parseNumber<int>(rest.substr(0, colon));
    const auto seed = colon == std::string_view::npos
                          ? std::optional<uint32_t>(1)
                          : parseNumber<uint32_t>(rest.substr(colon + 1));
    if (!operators || !seed)
        throw UserError("a generated model is " + std::string(kRandomDagPattern) +
                            " (N operators, SEED 0 to 4294967295, default 1)",
                        std::string(name));
    return randomDag(*operators, *seed);
}

} // namespace ios::samples
