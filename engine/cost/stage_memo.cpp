#include "cost/stage_memo.h"

#include "ir/block_dag.h"

namespace ios::cost {

size_t StageMemo::KeyHash::operator()(const Key& key) const noexcept {
    uint64_t h = 0x9e3779b97f4a7c15ull ^ key.size();
    for (uint32_t v : key) {
        h ^= v;
        h *= 0xff51afd7ed558ccdull;
        h ^= h >> 32;
    }
    return static_cast<size_t>(h);
}

bool StageMemo::find(const Key& key, double& ms) const {
    const Shard& shard = shards_[KeyHash{}(key) % kShards];
    std::lock_guard lock(shard.mutex);
    const auto it = shard.map.find(key);
    if (it == shard.map.end())
        return false;
    ms = it->second;
    return true;
}

void StageMemo::insert(const Key& key, double ms) {
    Shard& shard = shards_[KeyHash{}(key) % kShards];
    std::lock_guard lock(shard.mutex);
    shard.map.emplace(key, ms); // an equal key priced concurrently holds the same value
}

size_t StageMemo::size() const {
    size_t n = 0;
    for (const Shard& shard : shards_) {
        std::lock_guard lock(shard.mutex);
        n += shard.map.size();
    }
    return n;
}

void appendOperatorSignature(const ir::Node& node, const ir::ShapeLookup& shapeOf,
                             std::string& out) {
    auto num = [&out](int64_t v) {
        out += std::to_string(v);
        out += ',';
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
                num(shape->c);
                num(shape->h);
                num(shape->w);
            } else {
                out += "?,";
            }
            num(v.begin);
            num(v.end);
        }
        out += ')';
    }
    out += ']';
    out += '{';
    for (const ir::Node& inner : node.nodes)
        appendOperatorSignature(inner, shapeOf, out);
    out += '}';
}

StageMemo* CanonicalStages::classify(const ir::BlockDag& dag, const ir::ShapeLookup& shapeOf,
                                     std::vector<uint32_t>& classes) const {
    classes.clear();
    std::lock_guard lock(mutex_);
    std::string signature;
    for (const ir::Node* node : dag.ops) {
        auto it = classOf_.find(node);
        if (it == classOf_.end()) {
            signature.clear();
            appendOperatorSignature(*node, shapeOf, signature);
            const auto id = classIds_.emplace(signature, static_cast<uint32_t>(classIds_.size()));
            it = classOf_.emplace(node, id.first->second).first;
        }
        classes.push_back(it->second);
    }
    return &memo_;
}

StagePricer::StagePricer(const CostModel& cost, const ir::BlockDag& dag) : cost_(cost), dag_(dag) {
    memo_ = cost.canonicalStageMemo(dag, classes_);
    if (memo_ != nullptr && classes_.size() != dag.ops.size())
        memo_ = nullptr; // a model that filled the classes wrongly gets no memo
}

double StagePricer::ms(const schedule::Stage& stage) {
    ++calls_;
    if (memo_ == nullptr) {
        ++priced_;
        return checkedStageLatencyMs(cost_, dag_, stage);
    }
    key_.clear();
    key_.push_back(static_cast<uint32_t>(stage.kind));
    for (const schedule::Group& group : stage.groups) {
        key_.push_back(static_cast<uint32_t>(group.size()));
        for (int op : group)
            key_.push_back(classes_[static_cast<size_t>(op)]);
    }
    double ms = 0;
    if (memo_->find(key_, ms))
        return ms;
    ++priced_;
    ms = checkedStageLatencyMs(cost_, dag_, stage); // throws before anything is stored
    memo_->insert(key_, ms);
    return ms;
}

} // namespace ios::cost
