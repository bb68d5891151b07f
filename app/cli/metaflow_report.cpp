// SPDX-License-Identifier: Apache-2.0
#include "metaflow_report.h"

#include "metaflow_options.h"
#include "text_format.h"
#include "util/json_number.h"

#include <cstdio>

namespace ios::cli {

namespace {

using Json = nlohmann::ordered_json;

Json names(const std::vector<std::string>& list) {
    Json out = Json::array();
    for (const std::string& n : list)
        out.push_back(n);
    return out;
}

std::string joined(const std::vector<std::string>& list) {
    std::string out;
    for (const std::string& n : list)
        out += (out.empty() ? "" : ", ") + n;
    return out;
}

double ratio(double a, double b) {
    return b > 0 ? a / b : 0;
}

} // namespace

Json metaflowJson(const MetaflowReport& report) {
    const schedulers::MetaflowResult& r = *report.result;
    const rewrite::SearchResult& search = r.rewritten->search;
    Json j;
    j["model"] = report.model;
    j["preset"] = r.options.preset;
    j["alpha"] = r.options.search.alpha;
    j["cost_before_ms"] = r.before.objectiveMs;
    j["cost_after_ms"] = r.after.objectiveMs;
    j["kernels_before"] = r.before.mfKernels;
    j["kernels_after"] = r.after.mfKernels;
    Json subs = Json::array();
    for (const rewrite::Substitution& s : search.history)
        subs.push_back({{"rule", rewrite::ruleName(s.provenance.match.rule)},
                        {"sources", names(s.provenance.sources)},
                        {"created", names(s.provenance.created)},
                        {"cost_after_ms", s.costAfterMs}});
    j["substitutions"] = std::move(subs);
    j["search"] = {{"expanded", search.stats.expanded},
                   {"generated", search.stats.generated},
                   {"deduplicated", search.stats.deduplicated},
                   {"pruned", search.stats.pruned},
                   {"seconds", search.stats.seconds}};
    if (report.verify)
        j["verify"] = {{"max_abs_error", report.verify->maxAbsError},
                       {"max_rel_error", report.verify->maxRelError}};
    // Beyond the contract's fields.
    j["objective"] = schedulers::objectiveName(r.options.objective);
    j["budget"] = r.options.search.budget;
    j["split_threshold"] = r.options.search.splitThreshold;
    j["rules"] = ruleListText(r.options.search.rules);
    j["cost_model"] = report.costModel;
    j["sequential_before_ms"] = r.before.sequentialMs;
    j["sequential_after_ms"] = r.after.sequentialMs;
    j["simulated_kernels_before"] = r.before.kernels;
    j["simulated_kernels_after"] = r.after.kernels;
    j["flops_before"] = r.before.flops;
    j["flops_after"] = r.after.flops;
    j["operators_before"] = r.before.operators;
    j["operators_after"] = r.after.operators;
    j["then"] = {{"scheduler", report.then.scheduler},
                 {"original_ms", report.then.originalMs},
                 {"rewritten_ms", report.then.rewrittenMs}};
    return j;
}

void printMetaflowText(std::ostream& out, const MetaflowReport& report) {
    const schedulers::MetaflowResult& r = *report.result;
    const rewrite::SearchOptions& o = r.options.search;
    const rewrite::SearchResult& search = r.rewritten->search;
    out << report.model << ": MetaFlow, preset " << r.options.preset << " (alpha " << o.alpha
        << ", budget " << o.budget << ", split " << o.splitThreshold << ", rules "
        << ruleListText(o.rules) << ", objective " << schedulers::objectiveName(r.options.objective)
        << "), " << report.costModel << "\n";
    char line[200];
    out << "                          before       after\n";
    auto row = [&](const char* name, const std::string& a, const std::string& b,
                   const std::string& note) {
        std::snprintf(line, sizeof line, "%-20s %12s %11s  %s\n", name, a.c_str(), b.c_str(),
                      note.c_str());
        out << line;
    };
    if (r.options.objective == schedulers::MetaflowObjective::Ios)
        row("cost (ios) ms", fixed(r.before.objectiveMs, 4), fixed(r.after.objectiveMs, 4),
            fixed(ratio(r.before.objectiveMs, r.after.objectiveMs), 3) + "x");
    row("cost (seq) ms", fixed(r.before.sequentialMs, 4), fixed(r.after.sequentialMs, 4),
        fixed(ratio(r.before.sequentialMs, r.after.sequentialMs), 3) + "x");
    row("kernels (MetaFlow)", std::to_string(r.before.mfKernels), std::to_string(r.after.mfKernels),
        "");
    if (r.before.kernels >= 0)
        row("kernels (simulated)", std::to_string(r.before.kernels),
            std::to_string(r.after.kernels), "");
    row("GFLOPs", fixed(static_cast<double>(r.before.flops) / 1e9, 3),
        fixed(static_cast<double>(r.after.flops) / 1e9, 3), "batch 1");
    row("operators", std::to_string(r.before.operators), std::to_string(r.after.operators), "");
    out << "substitutions: " << search.history.size() << "\n";
    for (size_t i = 0; i < search.history.size(); ++i) {
        const rewrite::Provenance& p = search.history[i].provenance;
        out << "  " << i + 1 << ". " << rewrite::ruleName(p.match.rule) << " ("
            << rewrite::ruleDescription(p.match.rule) << "): " << joined(p.sources) << " -> "
            << joined(p.created);
        if (!p.rewired.empty())
            out << "; rewired " << joined(p.rewired);
        out << "; cost " << fixed(search.history[i].costAfterMs, 4) << " ms\n";
    }
    out << "search: expanded " << search.stats.expanded << ", generated " << search.stats.generated
        << ", deduplicated " << search.stats.deduplicated << ", pruned " << search.stats.pruned
        << ", " << fixed(search.stats.seconds, 3) << " s\n";
    out << report.then.scheduler << ": " << fixed(report.then.rewrittenMs, 4)
        << " ms on the rewritten graph, " << fixed(report.then.originalMs, 4)
        << " ms on the original ("
        << fixed(ratio(report.then.originalMs, report.then.rewrittenMs), 3) << "x)\n";
    if (report.verify) {
        char v[160];
        std::snprintf(v, sizeof v,
                      "verify: max abs error %.3g, max rel error %.3g (reference executor, "
                      "double, every block exit)\n",
                      report.verify->maxAbsError, report.verify->maxRelError);
        out << v;
    }
}

Json substitutionLogJson(const std::string& model, const schedulers::MetaflowResult& result) {
    Json subs = Json::array();
    const std::vector<rewrite::Substitution>& history = result.rewritten->search.history;
    for (size_t i = 0; i < history.size(); ++i) {
        const rewrite::Provenance& p = history[i].provenance;
        subs.push_back({{"step", i + 1},
                        {"rule", rewrite::ruleName(p.match.rule)},
                        {"block", p.match.block},
                        {"match", names(p.match.nodes)},
                        {"sources", names(p.sources)},
                        {"created", names(p.created)},
                        {"rewired", names(p.rewired)},
                        {"cost_after_ms", history[i].costAfterMs}});
    }
    Json j;
    j["model"] = model;
    j["objective"] = schedulers::objectiveName(result.options.objective);
    j["cost_before_ms"] = result.before.objectiveMs;
    j["substitutions"] = std::move(subs);
    return j;
}

void SearchTrace::add(const rewrite::SearchProgress& p) {
    rows_.push_back(p);
}

std::string SearchTrace::csv() const {
    std::string out = "counter,best_ms,popped_ms,queue,graph_best_ms\n";
    char line[128];
    for (const rewrite::SearchProgress& p : rows_) {
        // %.17g: the latencies read back as the same doubles.
        std::snprintf(line, sizeof line, "%llu,%.17g,%.17g,%llu,%.17g\n",
                      static_cast<unsigned long long>(p.stats.expanded), p.bestMs, p.poppedMs,
                      static_cast<unsigned long long>(p.queued), p.graphBestMs);
        out += line;
    }
    return out;
}

} // namespace ios::cli
