// SPDX-License-Identifier: Apache-2.0
#include "block_option.h"

#include "ir/block_alone.h"
#include "util/error.h"

#include <charconv>
#include <cstdint>

namespace ios::cli {

void addBlockOption(ArgParser& parser) {
    parser.option("--block", "B",
                  "Search and price block B of MODEL alone (0 = the first, as `ios-sched info` "
                  "numbers them)");
}

namespace {

std::optional<int> blockNumber(const ArgParser& parser, const ir::Graph& graph) {
    const std::optional<std::string> text = parser.value("block");
    if (!text)
        return std::nullopt;
    int64_t block = 0;
    const char* end = text->data() + text->size();
    const auto [ptr, ec] = std::from_chars(text->data(), end, block);
    if (text->empty() || ptr != end || ec != std::errc{})
        throw UserError("--block expects a block number as `ios-sched info` lists them, not '" +
                        *text + "'");
    ir::checkBlockIndex(graph, block);
    return static_cast<int>(block);
}

} // namespace

ModelScope::ModelScope(const ArgParser& parser, const ir::Graph& graph, int maxPartSize)
    : graph_(graph) {
    if (const std::optional<int> block = blockNumber(parser, graph))
        block_.emplace(graph, *block, maxPartSize);
    else
        whole_.emplace(graph, maxPartSize);
}

std::optional<int> ModelScope::block() const {
    return block_ ? std::optional<int>(block_->block()) : std::nullopt;
}

std::string ModelScope::title() const {
    return block_ ? graph_.name + " block " + std::to_string(block_->block()) : graph_.name;
}

const cost::CostModel& ModelScope::cost(const cost::CostModel& whole,
                                        std::unique_ptr<cost::CostModel>& owned) const {
    if (!block_)
        return whole;
    owned = block_->cost(whole);
    return *owned;
}

} // namespace ios::cli
