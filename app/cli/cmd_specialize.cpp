// SPDX-License-Identifier: Apache-2.0
// `ios-sched specialize MODEL --batches 1,32,128 [--devices V100,K80] [--block B]`: the paper's
// Table 3 (IOS §7.2; one block: Figure 10): one schedule optimised per batch size (or device),
// each executed at every batch size (or on every device). Rows: optimised for; columns:
// executed at.
#include "args.h"
#include "block_option.h"
#include "bundled_models.h"
#include "command.h"
#include "cost_options.h"
#include "model_options.h"
#include "provenance_options.h"
#include "schedulers/specialize.h"
#include "search_progress.h"
#include "strategies.h"
#include "util/error.h"
#include "util/json_number.h"

#include <charconv>
#include <cstdio>
#include <iostream>
#include <nlohmann/json.hpp>
#include <sstream>

namespace ios::cli {

namespace {

using Json = nlohmann::ordered_json;

std::vector<std::string> splitList(const std::string& text, const std::string& option) {
    std::vector<std::string> out;
    std::stringstream ss(text);
    std::string item;
    while (std::getline(ss, item, ','))
        if (!item.empty())
            out.push_back(item);
    if (out.empty())
        throw UserError(option + " needs a comma-separated list, not '" + text + "'");
    return out;
}

struct Setting {
    std::string label;
    cost::DeviceProfile device;
    int batch;
};

struct Matrix {
    std::vector<std::string> labels;
    std::vector<std::vector<double>> latencyMs; // [optimised for][executed at]
};

// One cost model per setting, made for the whole graph and then for the scope (the block's,
// with --block: cost/block_model.h).
Matrix specialise(const ArgParser& parser, const ir::Graph& graph, const ModelScope& scope,
                  const std::vector<Setting>& settings, const SearchOptions& search) {
    std::vector<std::unique_ptr<cost::CostModel>> wholes, scoped;
    std::vector<const cost::CostModel*> costs;
    Matrix m;
    for (const Setting& st : settings) {
        wholes.push_back(makeCostModel(parser, graph, st.device, st.batch));
        scoped.emplace_back();
        costs.push_back(&scope.cost(*wholes.back(), scoped.back()));
        m.labels.push_back(st.label);
    }
    const schedulers::Scheduler& scheduler = *search.schedulers.front();
    schedulers::SearchControl control;
    const SearchProgress progress(control,
                                  scope.title() + " specialize " + std::string(scheduler.key()));
    m.latencyMs =
        schedulers::specialize(scope.prepared(), costs, scheduler, search.params, &control)
            .latencyMs;
    return m;
}

void printMatrix(const Matrix& m, const std::string& title) {
    std::cout << title << " (rows: optimised for, columns: executed at; * = best of the column)\n"
              << "            ";
    for (const std::string& l : m.labels) {
        char cell[32];
        std::snprintf(cell, sizeof cell, "%12s", l.c_str());
        std::cout << cell;
    }
    std::cout << "\n";
    const size_t n = m.labels.size();
    for (size_t i = 0; i < n; ++i) {
        char head[32];
        std::snprintf(head, sizeof head, "%-12s", m.labels[i].c_str());
        std::cout << head;
        for (size_t j = 0; j < n; ++j) {
            bool best = true;
            for (size_t k = 0; k < n; ++k)
                best = best && m.latencyMs[i][j] <= m.latencyMs[k][j];
            char cell[32];
            std::snprintf(cell, sizeof cell, "%11.4f%s", m.latencyMs[i][j], best ? "*" : " ");
            std::cout << cell;
        }
        std::cout << "\n";
    }
}

Json matrixJson(const Matrix& m, const char* axis) {
    return {{axis, m.labels}, {"latency_ms", m.latencyMs}};
}

int runSpecialize(const std::vector<std::string>& args) {
    ArgParser parser("ios-sched specialize MODEL [--block B] [--batches LIST] [--devices LIST] "
                     "[--device D] [--batch N] [--strategy S] [-r N] [-s N] [--json]",
                     "Optimise one schedule per batch size (on --device) and, with --devices, one "
                     "per device (at --batch); execute each at every batch size / on every device "
                     "(IOS paper Table 3; one block with --block: Figure 10).");
    parser.positional("MODEL", "a model file (.ios.json, .json) or a bundled name (see models)");
    addBlockOption(parser);
    parser.option("--batches", "LIST", "Batch sizes, comma-separated", "1,16,32,64,128");
    parser.option("--devices", "LIST", "Devices (bundled names or profile files), comma-separated");
    addSearchOptions(parser, StrategyArg::One);
    parser.flag("--json", "Print {model, [block,] strategy, batch_matrix, device_matrix} as JSON");
    addCostOptions(parser);
    if (!parser.parse(args))
        return kExitOk;
    const SearchOptions search = searchOptions(parser, StrategyArg::One);
    const std::string strategy(search.schedulers.front()->key());
    const int deviceBatch = batchOption(parser); // checked even when --devices is not given
    // The plan of the files it touches: --measure-cache is written, the model file read.
    util::OutputTransaction files;
    planCostModelFiles(parser, files);
    const ir::Graph graph = loadModelArg(parser, parser.positionals().front(), files);
    const ModelScope scope(parser, graph, search.params.maxPartSize);

    const cost::DeviceProfile device = deviceOption(parser);
    std::vector<Setting> batchSettings;
    for (const std::string& b : splitList(parser.get("batches"), "--batches")) {
        int batch = 0;
        auto [end, ec] = std::from_chars(b.data(), b.data() + b.size(), batch);
        if (ec != std::errc{} || end != b.data() + b.size() || batch < 1 || batch > cost::kMaxBatch)
            throw UserError("--batches: '" + b + "' is not a batch size in [1, " +
                            std::to_string(cost::kMaxBatch) + "]");
        batchSettings.push_back({"batch " + b, device, batch});
    }
    const Matrix batches = specialise(parser, graph, scope, batchSettings, search);

    std::optional<Matrix> devices;
    if (auto list = parser.value("devices")) {
        std::vector<Setting> deviceSettings;
        for (const std::string& d : splitList(*list, "--devices")) {
            cost::DeviceProfile p = cost::loadDevice(d);
            deviceSettings.push_back({p.name, p, deviceBatch});
        }
        devices = specialise(parser, graph, scope, deviceSettings, search);
    }

    if (parser.has("json")) {
        Json j;
        j["model"] = graph.name;
        if (scope.block())
            j["block"] = *scope.block();
        j["strategy"] = strategy;
        j["batch_matrix"] = matrixJson(batches, "batches");
        j["batch_matrix"]["device"] = device.name;
        if (devices) {
            j["device_matrix"] = matrixJson(*devices, "devices");
            j["device_matrix"]["batch"] = deviceBatch;
        }
        j[io::kProvenanceKey] = commandProvenanceJson(parser, &graph);
        std::cout << util::dumpJson(j, 2) << "\n";
        return kExitOk;
    }
    printMatrix(batches, scope.title() + ": " + strategy + " on " + device.name + ", latency ms");
    if (devices)
        printMatrix(*devices, scope.title() + ": " + strategy + " at batch " +
                                  std::to_string(deviceBatch) + ", latency ms");
    return kExitOk;
}

} // namespace

} // namespace ios::cli

IOS_REGISTER_COMMAND(specialize, "specialize",
                     "Table 3: schedules specialised per batch size / device, cross-evaluated",
                     ios::cli::runSpecialize);
