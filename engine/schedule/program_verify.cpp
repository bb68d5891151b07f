#include "schedule/program_verify.h"

#include "schedule/merge.h"
#include "util/error.h"

#include <map>

namespace ios::schedule {

namespace {

// A set of launches (instruction indices of the program's launches, numbered 0..n-1).
class LaunchSet {
public:
    explicit LaunchSet(size_t n = 0) : words_((n + 63) / 64, 0) {}
    void insert(size_t i) { words_[i / 64] |= uint64_t{1} << (i % 64); }
    bool contains(size_t i) const { return (words_[i / 64] >> (i % 64) & 1) != 0; }
    void unite(const LaunchSet& o) {
        for (size_t w = 0; w < words_.size(); ++w)
            words_[w] |= o.words_[w];
    }

private:
    std::vector<uint64_t> words_;
};

std::string opName(const ir::BlockDag& dag, int op) {
    return dag.ops[static_cast<size_t>(op)]->name;
}

} // namespace

std::string programProblem(const ir::BlockDag& dag, const StreamProgram& program) {
    const size_t n = dag.ops.size();
    size_t launches = 0;
    for (const Instruction& in : program.instructions)
        launches += in.kind == InstrKind::Launch ? 1 : 0;
    // launchOf[op] = launch number; before[l] = launches that complete before launch l starts.
    std::vector<int> launchOf(n, -1);
    std::vector<LaunchSet> before;
    before.reserve(launches);
    // frontier[s]: the launches that complete before the next work issued on stream s starts.
    std::map<int, LaunchSet> frontier;
    LaunchSet joined(launches); // everything issued before the last barrier or sync
    LaunchSet issued(launches);
    std::map<int, LaunchSet> events;
    auto streamFrontier = [&](int s) -> LaunchSet& {
        return frontier.try_emplace(s, joined).first->second;
    };
    for (size_t i = 0; i < program.instructions.size(); ++i) {
        const Instruction& in = program.instructions[i];
        const std::string where = "instruction " + std::to_string(i);
        if ((in.kind == InstrKind::Launch || in.kind == InstrKind::Record ||
             in.kind == InstrKind::Wait) &&
            in.stream < 0)
            return where + " uses stream " + std::to_string(in.stream) + " (streams are >= 0)";
        switch (in.kind) {
        case InstrKind::Launch: {
            if (in.ops.empty() && in.synthetic.empty())
                return where + " launches nothing";
            std::vector<const ir::Node*> members;
            for (int op : in.ops) {
                if (op < 0 || static_cast<size_t>(op) >= n)
                    return where + " launches operator #" + std::to_string(op) +
                           ", not in the block";
                if (launchOf[static_cast<size_t>(op)] >= 0)
                    return "operator '" + opName(dag, op) + "' is launched twice";
                launchOf[static_cast<size_t>(op)] = static_cast<int>(before.size());
                members.push_back(dag.ops[static_cast<size_t>(op)]);
            }
            if (members.size() > 1)
                if (auto problem = mergeProblem(members))
                    return where + " merges operators that cannot merge: " + *problem;
            LaunchSet& f = streamFrontier(in.stream);
            before.push_back(f);
            f.insert(before.size() - 1);
            issued.insert(before.size() - 1);
            break;
        }
        case InstrKind::Record:
            if (in.event < 0)
                return where + " records event " + std::to_string(in.event) + " (events are >= 0)";
            events.insert_or_assign(in.event, streamFrontier(in.stream));
            break;
        case InstrKind::Wait: {
            auto it = events.find(in.event);
            if (it == events.end())
                return where + ": stream " + std::to_string(in.stream) + " waits on event " +
                       std::to_string(in.event) + " before any record of it";
            streamFrontier(in.stream).unite(it->second);
            break;
        }
        case InstrKind::Barrier:
        case InstrKind::Sync:
            joined = issued;
            for (auto& [stream, f] : frontier)
                f = issued;
            break;
        }
    }
    for (size_t op = 0; op < n; ++op)
        if (launchOf[op] < 0)
            return "operator '" + opName(dag, static_cast<int>(op)) + "' is never launched";
    for (size_t v = 0; v < n; ++v)
        for (int u : dag.preds[v]) {
            const int lu = launchOf[static_cast<size_t>(u)];
            const int lv = launchOf[v];
            if (lu == lv)
                continue; // one merged launch (mergeable members are independent anyway)
            if (!before[static_cast<size_t>(lv)].contains(static_cast<size_t>(lu)))
                return "dependency '" + opName(dag, u) + "' -> '" +
                       opName(dag, static_cast<int>(v)) +
                       "' is not ordered: no stream order, event or barrier makes '" +
                       opName(dag, static_cast<int>(v)) + "' wait for '" + opName(dag, u) + "'";
        }
    return {};
}

void verifyProgram(const ir::BlockDag& dag, const StreamProgram& program, int block) {
    const std::string problem = programProblem(dag, program);
    if (!problem.empty())
        throw UserError("block " + std::to_string(block) + " stream program: " + problem);
}

void verifyProgram(const std::vector<ir::BlockDag>& dags, const Program& program) {
    if (program.size() != dags.size())
        throw UserError("stream program has " + std::to_string(program.size()) +
                        " blocks, the model " + std::to_string(dags.size()));
    for (size_t b = 0; b < dags.size(); ++b)
        verifyProgram(dags[b], program[b], static_cast<int>(b));
}

} // namespace ios::schedule
