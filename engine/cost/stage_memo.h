// SPDX-License-Identifier: Apache-2.0
// The canonical stage memo (docs/search-speed.md "Canonical stage memo"): stages that launch
// the same kernels on the same device cost the same, whatever their operators are called and
// wherever they sit in the model, so a cost model that can say which operators are
// interchangeable prices each such stage once. NasNet-A repeats its cells and RandWire's
// nodes share a few shapes: most of the stages a search meets are repeats.
#pragma once

#include "cost/cost_model.h"
#include "cost/stage_shortcuts.h"
#include "ir/validate.h"

#include <array>
#include <atomic>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace ios::cost {

// Latencies by canonical stage key: the stage kind, then per group (in stage order) its size
// and its operators' classes (in group order). Thread-safe (sharded locks); a value, once in,
// never changes, so concurrent searches read the same latencies whoever priced them first.
class StageMemo {
public:
    using Key = std::vector<uint32_t>;

    bool find(const Key& key, double& ms) const;
    void insert(const Key& key, double ms);
    size_t size() const;

private:
    // Open addressing per shard: the table holds the key's hash, where its words start in the
    // shard's arena, its length and the latency (no allocation per entry).
    struct Slot {
        uint64_t hash = 0;
        uint32_t offset = 0;
        uint32_t length = 0; // 0: free (keys are never empty)
        double ms = 0;
    };
    struct Shard {
        mutable std::mutex mutex;
        // (not "slots": a suite may include this after <QtTest>, where that is a Qt macro)
        std::vector<Slot> table = std::vector<Slot>(1024);
        std::vector<uint32_t> arena;
        size_t size = 0;
    };
    static uint64_t hashOf(const Key& key);
    static const Slot* lookup(const Shard& shard, const Key& key, uint64_t hash);
    static void grow(Shard& shard);
    static constexpr size_t kShards = 32;
    std::array<Shard, kShards> shards_;
};

// What a cost model that prices operators from their attributes and input shapes alone (the
// simulated GPU, the analytic roofline) needs for canonicalStageMemo: operator classes by
// signature — kind, output shape, attributes, each input as the shape it is looked up to
// and its channel range (and in-place flag), nested nodes — so equal classes mean equal kernels and
// equal merged convolutions, whatever the names; and the memo. Thread-safe.
class CanonicalStages {
public:
    CanonicalStages();
    // The classes by signature and the memo of `other`, for the same cost model priced on
    // another graph (GraphRetargeting::forGraph: a rewritten graph reuses the original's
    // stages).
    // Valid because a class is the operator's signature, never its name or node; the cache
    // of classes by node stays per graph (nodes of a freed graph may share addresses).
    struct SharedWith {
        const CanonicalStages& other;
    };
    explicit CanonicalStages(SharedWith shared);

    // Fills classes (per dag.ops) and returns the memo.
    StageMemo* classify(const ir::BlockDag& dag, const ir::ShapeLookup& shapeOf,
                        std::vector<uint32_t>& classes) const;

private:
    struct Shared {
        std::mutex mutex;
        std::map<std::string, uint32_t> classIds;
        StageMemo memo;
    };
    mutable std::mutex mutex_;
    mutable std::map<const ir::Node*, uint32_t> classOf_;
    std::shared_ptr<Shared> shared_;
};

// The operator signature CanonicalStages compares (appended to `out`).
void appendOperatorSignature(const ir::Node& node, const ir::ShapeLookup& shapeOf,
                             std::string& out);

// The canonical stage key (StageMemo's): the stage kind, then per group its size and its
// operators' classes in order (`classes` per dag.ops). Written into `key`, which is cleared
// first (a caller keeps one key to avoid an allocation per stage). Every operator of the stage
// must be an index into `classes`. Inline: the DP's stage lookup (StagePricer::ms) builds one
// per candidate stage.
inline void canonicalStageKey(const schedule::Stage& stage, const std::vector<uint32_t>& classes,
                              StageMemo::Key& key) {
    key.clear();
    key.push_back(static_cast<uint32_t>(stage.kind));
    for (const schedule::Group& group : stage.groups) {
        key.push_back(static_cast<uint32_t>(group.size()));
        for (int op : group)
            key.push_back(classes[static_cast<size_t>(op)]);
    }
}

// What a cost model's StageShortcuts::canonicalStageMemo gives for one DAG: its memo (nullptr:
// none, or classes that do not cover the DAG) and the classes of dag.ops.
struct OperatorClasses {
    StageMemo* memo = nullptr;
    std::vector<uint32_t> classes;
};
OperatorClasses operatorClasses(const CostModel& cost, const ir::BlockDag& dag);

// Prices the stages of one block DAG through the cost model's canonical memo when it has one
// (StageShortcuts::canonicalStageMemo), otherwise by checkedStageLatencyMs. Same values either
// way, bit for bit. One per thread: it keeps a scratch key.
class StagePricer {
public:
    StagePricer(const CostModel& cost, const ir::BlockDag& dag);
    // With operatorClasses(cost, dag) already at hand (the DP takes them once per block).
    StagePricer(const CostModel& cost, const ir::BlockDag& dag, const OperatorClasses& classes);

    // checkedStageLatencyMs(cost, dag, stage), from the memo when an equal stage was priced.
    double ms(const schedule::Stage& stage);
    // The memo's latency of an equal stage, without pricing: false when none was priced yet
    // (or the model has no memo).
    bool find(const schedule::Stage& stage, double& ms);
    // StageShortcuts::stageLowerBoundMs (negative: the model has no bound).
    double lowerBoundMs(const schedule::Stage& stage) const {
        return shortcuts_ != nullptr ? shortcuts_->stageLowerBoundMs(dag_, stage) : -1;
    }

    uint64_t calls() const { return calls_; }
    uint64_t priced() const { return priced_; } // calls that ran the cost model
    bool canonical() const { return memo_ != nullptr; }

private:
    const CostModel& cost_;
    const StageShortcuts* shortcuts_; // cost_.stageShortcuts()
    const ir::BlockDag& dag_;
    StageMemo* memo_ = nullptr;
    std::vector<uint32_t> classes_; // per dag.ops
    StageMemo::Key key_;
    uint64_t calls_ = 0;
    uint64_t priced_ = 0;
};

} // namespace ios::cost
