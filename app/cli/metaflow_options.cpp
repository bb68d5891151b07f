// SPDX-License-Identifier: Apache-2.0
#include "metaflow_options.h"

#include "util/error.h"

#include <charconv>
#include <cmath>
#include <limits>

namespace ios::cli {

namespace {

std::string validRules() {
    std::string out;
    for (rewrite::RuleId rule : rewrite::kAllRules)
        out += (out.empty() ? "" : ", ") + std::string(rewrite::ruleName(rule));
    return out;
}

double alphaOption(const std::string& text, const std::string& option = "--alpha") {
    double alpha = 0;
    const auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), alpha);
    if (ec != std::errc{} || ptr != text.data() + text.size() || !std::isfinite(alpha) || alpha < 1)
        throw UserError(option + " expects a number ≥ 1 (1: greedy; the paper uses 1.05), not '" +
                        text + "'");
    return alpha;
}

rewrite::RuleSet rulesOption(const std::string& text) {
    std::vector<rewrite::RuleId> rules;
    for (const std::string& name : splitList(text)) {
        const std::optional<rewrite::RuleId> rule = rewrite::ruleFromName(name);
        if (!rule)
            throw UserError("--rules: unknown rule '" + name + "' (valid: " + validRules() + ")");
        rules.push_back(*rule);
    }
    return rewrite::RuleSet::only(rules);
}

} // namespace

void addMetaflowOptions(ArgParser& parser) {
    parser.option("--preset", "P",
                  "paper (alpha 1.05, budget 100000 per subgraph, the graph split into subgraphs "
                  "of at most 30 operators) or artifact (alpha 1.01, budget 300, one search)",
                  "paper");
    parser.option("--alpha", "A",
                  "Relaxation: keep rewritten graphs cheaper than A x the best "
                  "(≥ 1; 1 = greedy; default: the preset's)");
    parser.option("--alpha-sweep", "A1,A2,...",
                  "Run the search once per alpha (each ≥ 1) and print the best cost against "
                  "alpha (MetaFlow's Figure 10) instead of one run; no scheduler runs after it");
    parser.option("--budget", "N",
                  "Most graphs expanded after the first, per searched region "
                  "(default: the preset's)");
    parser.option("--split-threshold", "T",
                  "Split the graph into subgraphs of at most T operators at minimum cuts, each "
                  "searched on its own (MetaFlow's Algorithm 2; with --objective ios: each block "
                  "on its own); 0 = never, one search (default: the preset's)");
    parser.option("--rules", "R1,R3,...",
                  "The substitutions to use, of " + validRules() + " (default: the preset's)");
    parser.option("--objective", "O",
                  "seq: the sum of operator latencies (MetaFlow's cost); ios: the sum over blocks "
                  "of IOS-both's latency",
                  "seq");
    parser.option("--then", "S", "The scheduler run on the rewritten graph (a registry key)",
                  "ios-both");
}

schedulers::MetaflowOptions metaflowOptions(const ArgParser& parser) {
    schedulers::MetaflowOptions o = schedulers::metaflowPreset(parser.get("preset"));
    if (parser.has("alpha"))
        o.search.alpha = alphaOption(parser.get("alpha"));
    if (parser.has("budget"))
        o.search.budget = static_cast<uint64_t>(
            parser.getInt64("budget", 0, std::numeric_limits<int64_t>::max()));
    if (parser.has("split-threshold"))
        o.search.splitThreshold = parser.getInt("split-threshold", 0, 1'000'000);
    if (parser.has("rules"))
        o.search.rules = rulesOption(parser.get("rules"));
    const std::optional<schedulers::MetaflowObjective> objective =
        schedulers::objectiveFromName(parser.get("objective"));
    if (!objective)
        throw UserError("--objective must be seq or ios, not '" + parser.get("objective") + "'");
    o.objective = *objective;
    o.then = parser.get("then");
    schedulers::checkMetaflowOptions(o);
    return o;
}

std::vector<double> alphaSweepOption(const ArgParser& parser) {
    std::vector<double> alphas;
    if (!parser.has("alpha-sweep"))
        return alphas;
    if (parser.has("alpha"))
        throw UserError("--alpha-sweep runs every alpha it lists; drop --alpha");
    for (const std::string& a : splitList(parser.get("alpha-sweep")))
        alphas.push_back(alphaOption(a, "--alpha-sweep"));
    if (alphas.empty())
        throw UserError("--alpha-sweep expects a list of numbers ≥ 1, such as 1,1.05,1.1");
    return alphas;
}

std::string ruleListText(const rewrite::RuleSet& rules) {
    std::string out;
    for (rewrite::RuleId rule : rewrite::kAllRules)
        if (rules.on(rule))
            out += (out.empty() ? "" : ",") + std::string(rewrite::ruleName(rule));
    return out.empty() ? "none" : out;
}

} // namespace ios::cli
