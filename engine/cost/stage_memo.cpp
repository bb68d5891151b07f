#include "cost/stage_memo.h"

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
