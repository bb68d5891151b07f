// SPDX-License-Identifier: Apache-2.0
// What `ios-sched metaflow` prints and writes (docs/cli.md "metaflow"): the result as text or
// one JSON object, the substitution log (--log) and the search trace (--trace).
#pragma once

#include "rewrite/verify_rewrite.h"
#include "schedulers/metaflow.h"

#include <nlohmann/json.hpp>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

namespace ios::cli {

// The `then` scheduler on G0 next to its run on G* (result.then).
struct ThenComparison {
    std::string scheduler;
    double originalMs = 0;
    double rewrittenMs = 0;
};

struct MetaflowReport {
    std::string model;
    std::string costModel; // describe()
    const schedulers::MetaflowResult* result = nullptr;
    ThenComparison then;
    std::optional<rewrite::RewriteCheck> verify;
};

// The --json object: {"model", "preset", "alpha", "cost_before_ms", "cost_after_ms",
// "kernels_before", "kernels_after", "substitutions", "search", "verify"?} and more fields.
nlohmann::ordered_json metaflowJson(const MetaflowReport& report);
void printMetaflowText(std::ostream& out, const MetaflowReport& report);

// --log: {"model", "objective", "substitutions": [{"step", "rule", "block", "match",
// "sources", "created", "rewired", "cost_after_ms"}]}.
nlohmann::ordered_json substitutionLogJson(const std::string& model,
                                           const schedulers::MetaflowResult& result);

// --trace: the search's progress reports, one CSV row each.
class SearchTrace {
public:
    void add(const rewrite::SearchProgress& p);
    std::string csv() const; // "counter,best_ms,popped_ms,queue\n" then the rows

private:
    std::vector<rewrite::SearchProgress> rows_;
};

} // namespace ios::cli
