// SPDX-License-Identifier: Apache-2.0
#include "stage_enumeration.h"

#include "cost/cost_model.h"
#include "cost/measurement_cache.h"
#include "cost/stage_memo.h"
#include "cost/stage_signature.h"
#include "ir/metrics.h"

#include <algorithm>
#include <chrono>
#include <map>
#include <mutex>
#include <tuple>
#include <unordered_map>

namespace ios::profiling {

namespace {

// Records every distinct stage it is asked for. The DP asks for the same stage from many
// states, so the first ask is found by a compact binary key (block, kind, operator indices),
// cheaper than the name key, which is built once per distinct stage.
class RecordingCostModel final : public cost::CostModel {
public:
    struct Seen {
        int phase = 0; // the scheduler that asked first
        int block = 0;
        int part = 0;
        uint64_t order = 0; // per (block, part): the part's search runs on one thread
        schedule::Stage stage;
    };

    RecordingCostModel(const std::vector<ir::BlockDag>& dags, int batch) : batch_(batch) {
        for (size_t b = 0; b < dags.size(); ++b) {
            blockOf_.emplace(&dags[b], static_cast<int>(b));
            asked_.emplace_back(dags[b].parts.size(), 0);
        }
    }
    // The next scheduler's stages sort after the earlier ones'.
    void nextPhase() {
        std::lock_guard lock(mutex_);
        ++phase_;
    }

    double stageLatencyMs(const ir::BlockDag& dag, const schedule::Stage& stage) const override {
        const int block = blockOf_.at(&dag);
        std::string key;
        key.reserve(8 + 2 * static_cast<size_t>(stage.operatorCount() + stage.groups.size()));
        auto put16 = [&key](uint32_t v) {
            key.push_back(static_cast<char>(v & 0xff));
            key.push_back(static_cast<char>((v >> 8) & 0xff));
        };
        put16(static_cast<uint32_t>(block) & 0xffff);
        put16(static_cast<uint32_t>(block) >> 16);
        key.push_back(stage.kind == schedule::StageKind::Merge ? 'm' : 'p');
        for (const schedule::Group& g : stage.groups) {
            for (int op : g)
                put16(static_cast<uint32_t>(op));
            put16(0xffff); // group end (a block has fewer operators)
        }
        std::lock_guard lock(mutex_);
        ++calls_;
        if (seen_.find(key) == seen_.end()) {
            const int part = stage.groups.empty() || stage.groups.front().empty()
                                 ? 0
                                 : dag.partOf.at(static_cast<size_t>(stage.groups.front().front()));
            uint64_t& order = asked_[static_cast<size_t>(block)][static_cast<size_t>(part)];
            seen_.emplace(std::move(key), Seen{phase_, block, part, order++, stage});
        }
        // Any latency will do: which stages the DP prices does not depend on it.
        return 0.001 * (1 + stage.operatorCount());
    }
    std::string describe() const override { return "stage recorder"; }
    int batch() const override { return batch_; }

    std::vector<Seen> take(uint64_t& calls) {
        std::lock_guard lock(mutex_);
        std::vector<Seen> out;
        out.reserve(seen_.size());
        for (auto& [key, s] : seen_)
            out.push_back(std::move(s));
        seen_.clear();
        calls = calls_;
        std::sort(out.begin(), out.end(), [](const Seen& a, const Seen& b) {
            return std::tie(a.phase, a.block, a.part, a.order) <
                   std::tie(b.phase, b.block, b.part, b.order);
        });
        return out;
    }

private:
    int batch_;
    std::unordered_map<const ir::BlockDag*, int> blockOf_;
    mutable std::mutex mutex_;
    mutable std::unordered_map<std::string, Seen> seen_;
    mutable std::vector<std::vector<uint64_t>> asked_; // per block, per part
    mutable uint64_t calls_ = 0;
    int phase_ = 0;
};

} // namespace

StageEnumeration enumerateStages(const ir::PreparedModel& model,
                                 const std::vector<const schedulers::Scheduler*>& schedulers,
                                 const schedulers::Params& params, int batch,
                                 schedulers::SearchControl* control) {
    const auto start = std::chrono::steady_clock::now();
    const std::vector<ir::BlockDag>& dags = model.dags();
    RecordingCostModel recorder(dags, batch);
    for (const schedulers::Scheduler* scheduler : schedulers) {
        scheduler->run(model, params, recorder, control);
        recorder.nextPhase();
    }
    StageEnumeration out;
    std::vector<RecordingCostModel::Seen> seen = recorder.take(out.calls);
    out.stages.reserve(seen.size());
    for (RecordingCostModel::Seen& s : seen) {
        MetStage m;
        m.block = s.block;
        m.key = cost::stageKey(dags[static_cast<size_t>(s.block)], s.stage);
        m.stage = std::move(s.stage);
        out.stages.push_back(std::move(m));
    }
    out.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    return out;
}

namespace {

ir::ShapeLookup shapeLookup(const ir::NodeIndex& index) {
    return [&index](const std::string& name) -> const ir::TensorShape* {
        const ir::Node* n = index.find(name);
        return n ? &n->outputShape : nullptr;
    };
}

} // namespace

std::vector<std::string> stageSignatureBytes(const ir::PreparedModel& model,
                                             const std::vector<MetStage>& stages) {
    const ir::NodeIndex index(model.graph());
    const ir::ShapeLookup shapeOf = shapeLookup(index);
    std::vector<std::string> out;
    out.reserve(stages.size());
    for (const MetStage& m : stages)
        out.push_back(cost::signatureBytes(
            cost::stageSignature(model.dags()[static_cast<size_t>(m.block)], m.stage, shapeOf)));
    return out;
}

std::vector<MetStage> shardStages(const ir::PreparedModel& model, std::vector<MetStage> stages,
                                  Shard shard, size_t* classesKept) {
    const StageClasses classes = canonicalClasses(model, stages, false);
    const ir::NodeIndex index(model.graph());
    const ir::ShapeLookup shapeOf = shapeLookup(index);
    std::vector<char> keep(stages.size(), 0);
    size_t kept = 0;
    for (const std::vector<size_t>& members : classes.members) {
        const MetStage& r = stages[members.front()];
        const std::string bytes = cost::signatureBytes(
            cost::stageSignature(model.dags()[static_cast<size_t>(r.block)], r.stage, shapeOf));
        if (cost::stableHash64(bytes) % shard.count != shard.index)
            continue;
        ++kept;
        for (size_t i : members)
            keep[i] = 1;
    }
    std::vector<MetStage> out;
    for (size_t i = 0; i < stages.size(); ++i)
        if (keep[i])
            out.push_back(std::move(stages[i]));
    if (classesKept != nullptr)
        *classesKept = kept;
    return out;
}

StageClasses canonicalClasses(const ir::PreparedModel& model, const std::vector<MetStage>& stages,
                              bool everyStage) {
    StageClasses out;
    out.classOf.reserve(stages.size());
    if (everyStage) {
        for (size_t i = 0; i < stages.size(); ++i) {
            out.classOf.push_back(i);
            out.members.push_back({i});
        }
        return out;
    }
    const std::vector<ir::BlockDag>& dags = model.dags();
    const ir::NodeIndex index(model.graph());
    const ir::ShapeLookup shapeOf = shapeLookup(index);
    // Operator classes by signature, shared by every block: a repeated cell's operators get
    // the classes of the first cell's.
    const cost::CanonicalStages canonical;
    std::vector<std::vector<uint32_t>> classes(dags.size());
    std::vector<char> classified(dags.size(), 0);
    std::map<std::vector<uint32_t>, size_t> byKey;
    std::vector<uint32_t> key;
    for (size_t i = 0; i < stages.size(); ++i) {
        const MetStage& m = stages[i];
        const auto b = static_cast<size_t>(m.block);
        if (!classified[b]) {
            canonical.classify(dags[b], shapeOf, classes[b]);
            classified[b] = 1;
        }
        cost::canonicalStageKey(m.stage, classes[b], key);
        const auto [it, inserted] = byKey.emplace(key, out.members.size());
        if (inserted)
            out.members.emplace_back();
        out.members[it->second].push_back(i);
        out.classOf.push_back(it->second);
    }
    return out;
}

} // namespace ios::profiling
