// SPDX-License-Identifier: Apache-2.0
#include "cost/stage_memo.h"

#include "ir/block_dag.h"

#include <algorithm>
#include <cstring>

namespace ios::cost {

uint64_t StageMemo::hashOf(const Key& key) {
    uint64_t h = 0x9e3779b97f4a7c15ull ^ key.size();
    for (uint32_t v : key) {
        h ^= v;
        h *= 0xff51afd7ed558ccdull;
        h ^= h >> 32;
    }
    return h;
}

const StageMemo::Slot* StageMemo::lookup(const Shard& shard, const Key& key, uint64_t hash) {
    const size_t mask = shard.table.size() - 1;
    for (size_t i = (hash >> 5) & mask;; i = (i + 1) & mask) {
        const Slot& slot = shard.table[i];
        if (slot.length == 0)
            return &slot; // free: the key is absent, and would go here
        if (slot.hash == hash && slot.length == key.size() &&
            std::equal(key.begin(), key.end(), shard.arena.begin() + slot.offset))
            return &slot;
    }
}

void StageMemo::grow(Shard& shard) {
    std::vector<Slot> old(shard.table.size() * 2);
    old.swap(shard.table);
    const size_t mask = shard.table.size() - 1;
    for (const Slot& slot : old)
        if (slot.length != 0) {
            size_t i = (slot.hash >> 5) & mask;
            while (shard.table[i].length != 0)
                i = (i + 1) & mask;
            shard.table[i] = slot;
        }
}

bool StageMemo::find(const Key& key, double& ms) const {
    const uint64_t hash = hashOf(key);
    const Shard& shard = shards_[hash % kShards];
    std::lock_guard lock(shard.mutex);
    const Slot* slot = lookup(shard, key, hash);
    if (slot->length == 0)
        return false;
    ms = slot->ms;
    return true;
}

void StageMemo::insert(const Key& key, double ms) {
    if (key.empty() || key.size() > UINT32_MAX)
        return;
    const uint64_t hash = hashOf(key);
    Shard& shard = shards_[hash % kShards];
    std::lock_guard lock(shard.mutex);
    if (lookup(shard, key, hash)->length != 0)
        return; // an equal key priced concurrently holds the same value
    if (shard.arena.size() + key.size() > UINT32_MAX)
        return; // full: the stage is priced again next time
    if ((shard.size + 1) * 2 > shard.table.size())
        grow(shard);
    Slot& slot = const_cast<Slot&>(*lookup(shard, key, hash));
    slot = {hash, static_cast<uint32_t>(shard.arena.size()), static_cast<uint32_t>(key.size()), ms};
    shard.arena.insert(shard.arena.end(), key.begin(), key.end());
    ++shard.size;
}

size_t StageMemo::size() const {
    size_t n = 0;
    for (const Shard& shard : shards_) {
        std::lock_guard lock(shard.mutex);
        n += shard.size;
    }
    return n;
}

// Binary, not text: the search classifies every operator of a model on its first stage, and
// decimal formatting was most of that. Unambiguous: numbers are 8 bytes, and every variable
// part (terms, values, the in-place flag, nested nodes) starts with its own tag byte.
void appendOperatorSignature(const ir::Node& node, const ir::ShapeLookup& shapeOf,
                             std::string& out) {
    auto num = [&out](int64_t v) {
        char bytes[sizeof v];
        std::memcpy(bytes, &v, sizeof v);
        out.append(bytes, sizeof v);
    };
    auto hw = [&num](const ir::Hw& v) {
        num(v.h);
        num(v.w);
    };
    num(static_cast<int64_t>(node.kind));
    num(node.outputShape.c);
    num(node.outputShape.h);
    num(node.outputShape.w);
    switch (node.kind) {
    case ir::NodeKind::Conv:
        num(node.conv.outChannels);
        hw(node.conv.kernel);
        hw(node.conv.stride);
        hw(node.conv.padding);
        num(node.conv.groups);
        num(static_cast<int64_t>(node.conv.act));
        break;
    case ir::NodeKind::Pool:
        num(static_cast<int64_t>(node.pool.type));
        hw(node.pool.kernel);
        hw(node.pool.stride);
        hw(node.pool.padding);
        break;
    case ir::NodeKind::Activation:
        num(static_cast<int64_t>(node.activation));
        break;
    case ir::NodeKind::Norm:
        num(static_cast<int64_t>(node.norm.type));
        num(node.norm.groups);
        break;
    case ir::NodeKind::Matmul:
        num(node.matmul.heads);
        num(node.matmul.transposeB ? 1 : 0);
        num(node.matmul.windows);
        break;
    case ir::NodeKind::Tokens: // the cost depends on sizes, not on which positions
        num(static_cast<int64_t>(node.tokens.index.size()));
        num(node.tokens.learnedTokens());
        num(node.tokens.embed ? 1 : 0);
        num(node.tokens.embedChannels);
        num(node.tokens.embedPositions);
        break;
    case ir::NodeKind::Element:
        num(static_cast<int64_t>(node.element));
        break;
    default:
        break;
    }
    out += '[';
    for (const ir::Term& term : node.inputs) {
        out += '(';
        for (const ir::ValueRef& v : term) {
            if (const ir::TensorShape* shape = shapeOf(v.node)) {
                out += 's';
                num(shape->c);
                num(shape->h);
                num(shape->w);
            } else {
                out += '?';
            }
            num(v.begin);
            num(v.end);
            if (v.inPlace)
                out += 'i'; // no copy kernel: another price (absent flags add nothing)
        }
        out += ')';
    }
    out += ']';
    out += '{';
    for (const ir::Node& inner : node.nodes) {
        out += 'n';
        appendOperatorSignature(inner, shapeOf, out);
    }
    out += '}';
}

CanonicalStages::CanonicalStages() : shared_(std::make_shared<Shared>()) {}

CanonicalStages::CanonicalStages(SharedWith shared) : shared_(shared.other.shared_) {}

StageMemo* CanonicalStages::classify(const ir::BlockDag& dag, const ir::ShapeLookup& shapeOf,
                                     std::vector<uint32_t>& classes) const {
    classes.clear();
    std::lock_guard lock(mutex_); // always before the shared lock: one order, no deadlock
    std::string signature;
    for (const ir::Node* node : dag.ops) {
        auto it = classOf_.find(node);
        if (it == classOf_.end()) {
            signature.clear();
            appendOperatorSignature(*node, shapeOf, signature);
            std::lock_guard sharedLock(shared_->mutex);
            const auto id = shared_->classIds.emplace(
                signature, static_cast<uint32_t>(shared_->classIds.size()));
            it = classOf_.emplace(node, id.first->second).first;
        }
        classes.push_back(it->second);
    }
    return &shared_->memo;
}

OperatorClasses operatorClasses(const CostModel& cost, const ir::BlockDag& dag) {
    OperatorClasses out;
    if (const StageShortcuts* shortcuts = cost.stageShortcuts())
        out.memo = shortcuts->canonicalStageMemo(dag, out.classes);
    if (out.memo != nullptr && out.classes.size() != dag.ops.size())
        out.memo = nullptr; // a model that filled the classes wrongly gets no memo
    if (out.memo == nullptr)
        out.classes.clear();
    return out;
}

StagePricer::StagePricer(const CostModel& cost, const ir::BlockDag& dag)
    : StagePricer(cost, dag, operatorClasses(cost, dag)) {}

StagePricer::StagePricer(const CostModel& cost, const ir::BlockDag& dag,
                         const OperatorClasses& classes)
    : cost_(cost), shortcuts_(cost.stageShortcuts()), dag_(dag), memo_(classes.memo),
      classes_(classes.classes) {}

bool StagePricer::find(const schedule::Stage& stage, double& ms) {
    if (memo_ == nullptr)
        return false;
    canonicalStageKey(stage, classes_, key_);
    if (!memo_->find(key_, ms))
        return false;
    ++calls_; // a stage whose latency the caller takes, as from ms()
    return true;
}

double StagePricer::ms(const schedule::Stage& stage) {
    ++calls_;
    if (memo_ == nullptr) {
        ++priced_;
        return checkedStageLatencyMs(cost_, dag_, stage);
    }
    canonicalStageKey(stage, classes_, key_);
    double ms = 0;
    if (memo_->find(key_, ms))
        return ms;
    ++priced_;
    ms = checkedStageLatencyMs(cost_, dag_, stage); // throws before anything is stored
    memo_->insert(key_, ms);
    return ms;
}

} // namespace ios::cost
