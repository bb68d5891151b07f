// SPDX-License-Identifier: Apache-2.0
#include "strategies.h"

#include "eval/evaluate.h"
#include "schedulers/parallel_jobs.h"
#include "search_progress.h"
#include "util/error.h"

#include <algorithm>
#include <charconv>
#include <optional>

namespace ios::cli {

void addSearchOptions(ArgParser& parser, StrategyArg strategy, const std::string& defaultStrategy) {
    const std::string keys = schedulers::schedulerKeyList();
    if (strategy == StrategyArg::One)
        parser.option("--strategy", "S",
                      "Scheduler: " + keys +
                          " (see `ios-sched strategies`; the old names merge, "
                          "parallel and both still work)",
                      defaultStrategy);
    else if (strategy == StrategyArg::List)
        parser.option("--strategy", "S[,S...]", "Comma-separated schedulers: " + keys,
                      defaultStrategy);
    const schedulers::SearchParams defaults;
    parser.option("-r, --max-group-size", "N", "Most operators per group of a parallel stage",
                  std::to_string(defaults.r));
    parser.option("-s, --max-num-groups", "N", "Most groups per parallel stage",
                  std::to_string(defaults.s));
    parser.option("--max-part-size", "N", "Cut blocks without explicit parts into parts of N",
                  std::to_string(defaults.maxPartSize));
    parser.option("--endings", "E", "reference (the IOS enumeration) or all endings",
                  std::string(schedulers::toString(defaults.endings)));
    parser.option("--memory-budget", "BYTES",
                  "IOS strategies: the fastest schedule whose peak activation memory stays "
                  "within BYTES (e.g. 24MiB; docs/memory.md); 0 = no limit",
                  "0");
    parser.option("--max-seconds", "S",
                  "Stop searches and simulations after S seconds (exit 1, saying how far they "
                  "got), or at once when the estimate passes it; 0 = no limit",
                  std::to_string(kDefaultMaxSeconds));
    addThreadsOption(parser);
}

void addThreadsOption(ArgParser& parser) {
    parser.option("--threads", "N",
                  "Threads for independent searches and DP parts (1-" +
                      std::to_string(schedulers::kMaxThreads) +
                      ", or all = every core); results are the same for every count",
                  "all");
}

int threadsOption(const ArgParser& parser) {
    if (parser.get("threads") == "all")
        return schedulers::defaultThreadCount();
    return parser.getInt("threads", 1, schedulers::kMaxThreads);
}

namespace {

double maxSeconds(const ArgParser& parser) {
    constexpr double kMax = 1e6;
    const std::string text = parser.get("max-seconds");
    double seconds = -1;
    const auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), seconds);
    if (ec != std::errc{} || ptr != text.data() + text.size() || !(seconds >= 0) || seconds > kMax)
        throw UserError("--max-seconds expects seconds in [0, 1000000] (0 = no limit), not '" +
                        text + "'");
    return seconds;
}

} // namespace

SearchOptions searchOptions(const ArgParser& parser, StrategyArg strategy) {
    SearchOptions o;
    if (strategy == StrategyArg::None) {
        o.schedulers = schedulers::registeredSchedulers();
    } else {
        const std::vector<std::string> names = strategy == StrategyArg::One
                                                   ? std::vector{parser.get("strategy")}
                                                   : splitList(parser.get("strategy"));
        if (names.empty())
            throw UserError("--strategy needs at least one strategy");
        for (const std::string& name : names)
            o.schedulers.push_back(&schedulers::schedulerByName(name));
    }
    o.params.r = parser.getInt("max-group-size", 1, 128);
    o.params.s = parser.getInt("max-num-groups", 1, 128);
    o.params.maxPartSize = parser.getInt("max-part-size", 1, 128);
    auto endings = schedulers::endingsFromString(parser.get("endings"));
    if (!endings)
        throw UserError("--endings must be reference or all, not '" + parser.get("endings") + "'");
    o.params.endings = *endings;
    o.params.memoryBudget = parser.getBytes("memory-budget", 0, int64_t{1} << 50);
    o.params.threads = threadsOption(parser);
    o.maxSeconds = maxSeconds(parser);
    setTimeLimit(o.maxSeconds);
    return o;
}

StrategyRun runStrategy(const ir::PreparedModel& model, const schedulers::Scheduler& scheduler,
                        const schedulers::Params& params, const cost::CostModel& cost,
                        schedulers::SearchControl* control) {
    schedulers::SearchControl own;
    std::optional<SearchProgress> progress;
    if (control == nullptr) {
        control = &own;
        progress.emplace(own, model.graph().name + " " + std::string(scheduler.key()));
    }
    StrategyRun run;
    run.outcome = scheduler.run(model, params, cost, control);
    run.latencyMs = schedulers::outcomeLatencyMs(model.dags(), run.outcome, cost);
    return run;
}

void addScheduleOption(ArgParser& parser) {
    parser.option("--schedule", "FILE",
                  "Show a saved schedule instead of searching: an IOS JSON or native model with "
                  "stages, a schedule file or a stream program made for MODEL, priced under "
                  "this command's device, batch and cost model (docs/formats.md)");
}

void planScheduleInput(const ArgParser& parser, util::OutputTransaction& outputs,
                       const std::string& strategyOption) {
    const std::optional<std::string> file = parser.value("schedule");
    if (!file)
        return;
    if (!strategyOption.empty() && parser.has(strategyOption))
        throw UserError("give --" + strategyOption + " or --schedule, not both");
    outputs.input(*file, "the saved schedule (--schedule)");
}

std::optional<io::ScheduleDocument> scheduleOption(const ArgParser& parser,
                                                   const ir::PreparedModel& model) {
    const std::optional<std::string> file = parser.value("schedule");
    if (!file)
        return std::nullopt;
    return io::readScheduleDocument(*file, model);
}

StrategyRun savedScheduleRun(const io::ScheduleDocument& document, const ir::PreparedModel& model,
                             const schedulers::Params& params, const cost::CostModel& cost) {
    StrategyRun run;
    run.outcome = io::pricedScheduleDocument(document, model, cost, params);
    run.latencyMs = run.outcome.latencyMs;
    return run;
}

std::string scheduleLabel(const io::ScheduleDocument& document) {
    std::string label = "schedule " + document.source;
    if (!document.origin.empty() && document.origin.find(' ') == std::string::npos)
        label += " (" + document.origin + ")";
    return label;
}

} // namespace ios::cli
