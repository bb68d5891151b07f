// SPDX-License-Identifier: Apache-2.0
#include "schedule/verify.h"

#include "schedule/merge.h"
#include "util/error.h"

namespace ios::schedule {

void verify(const ir::BlockDag& dag, const BlockSchedule& bs) {
    const int n = static_cast<int>(dag.ops.size());
    // position of each operator: stage, group, index in group; -1 = not seen yet
    std::vector<int> stageOf(n, -1), groupOf(n, -1), posOf(n, -1);
    for (int si = 0; si < static_cast<int>(bs.stages.size()); ++si) {
        const Stage& st = bs.stages[si];
        const std::string where = "stage " + std::to_string(si + 1);
        if (st.groups.empty())
            throw UserError(where + " is empty");
        for (int gi = 0; gi < static_cast<int>(st.groups.size()); ++gi) {
            if (st.groups[gi].empty())
                throw UserError(where + ", group " + std::to_string(gi + 1) + " is empty");
            for (int k = 0; k < static_cast<int>(st.groups[gi].size()); ++k) {
                const int op = st.groups[gi][k];
                if (op < 0 || op >= n)
                    throw UserError(where + " names operator #" + std::to_string(op) +
                                    ", the block has " + std::to_string(n));
                if (stageOf[op] != -1)
                    throw UserError(where +
                                        " schedules the operator a second time (first in stage " +
                                        std::to_string(stageOf[op] + 1) + ")",
                                    {}, dag.ops[op]->name);
                stageOf[op] = si;
                groupOf[op] = gi;
                posOf[op] = k;
            }
        }
        // Dependencies: every predecessor ran in an earlier stage, or earlier in this group.
        for (int gi = 0; gi < static_cast<int>(st.groups.size()); ++gi)
            for (int op : st.groups[gi])
                for (int p : dag.preds[op]) {
                    const bool earlierStage = stageOf[p] != -1 && stageOf[p] < si;
                    const bool earlierInGroup =
                        stageOf[p] == si && groupOf[p] == gi && posOf[p] < posOf[op];
                    if (!earlierStage && !earlierInGroup)
                        throw UserError(where + " runs the operator before its input '" +
                                            dag.ops[p]->name + "'",
                                        {}, dag.ops[op]->name);
                }
        if (st.kind == StageKind::Merge) {
            if (st.groups.size() != 1)
                throw UserError(where + " is a merge stage with " +
                                    std::to_string(st.groups.size()) + " groups (must be one)",
                                {}, dag.ops[st.groups.front().front()]->name);
            std::vector<const ir::Node*> members;
            for (int op : st.groups.front())
                members.push_back(dag.ops[op]);
            for (int op : st.groups.front())
                for (int p : dag.preds[op])
                    if (stageOf[p] == si)
                        throw UserError(where + " merges the operator with its input '" +
                                            dag.ops[p]->name + "'",
                                        {}, dag.ops[op]->name);
            if (auto why = mergeProblem(members))
                throw UserError(where + " cannot merge: " + *why, {}, members.front()->name);
        }
    }
    for (int i = 0; i < n; ++i)
        if (stageOf[i] == -1)
            throw UserError("the schedule misses the operator", {}, dag.ops[i]->name);
}

void verify(const std::vector<ir::BlockDag>& dags, const Schedule& schedule) {
    if (dags.size() != schedule.blocks.size())
        throw UserError("the schedule has " + std::to_string(schedule.blocks.size()) +
                        " blocks, the model " + std::to_string(dags.size()));
    for (size_t b = 0; b < dags.size(); ++b) {
        try {
            verify(dags[b], schedule.blocks[b]);
        } catch (const UserError& e) {
            throw UserError("block " + std::to_string(b + 1) + ": " + e.message(), e.file(),
                            e.node());
        }
    }
}

} // namespace ios::schedule
