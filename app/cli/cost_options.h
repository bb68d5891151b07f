// SPDX-License-Identifier: Apache-2.0
// The one place where CLI commands choose a cost model: every command that needs stage
// latencies declares these options and builds its model through makeCostModel().
#pragma once

#include "args.h"
#include "cost/cost_model.h"
#include "cost/cost_model_factory.h"
#include "cost/device_profile.h"
#include "ir/graph.h"
#include "util/output_file.h"

#include <memory>

namespace ios::cli {

// Declares --batch N, --device NAME|profile.json (default: the simulated V100) and
// --cost-model simulated|analytic.
void addCostOptions(ArgParser& parser);

// The cost model the options select for `graph` (which must outlive it). Throws
// ios::UserError for bad values.
std::unique_ptr<cost::CostModel> makeCostModel(const ArgParser& parser, const ir::Graph& graph);

// The same choice with the device and batch given explicitly (compare and specialize build
// one model per device and batch size).
std::unique_ptr<cost::CostModel> makeCostModel(const ArgParser& parser, const ir::Graph& graph,
                                               const cost::DeviceProfile& device, int batch);

// The options as the engine's cost-model factory takes them, device and batch explicit.
cost::CostModelSpec costModelSpec(const ArgParser& parser, const cost::DeviceProfile& device,
                                  int batch);

// The value of --cost-model, checked (simulated, analytic, measured or cache:FILE).
std::string costModelOption(const ArgParser& parser);

// Registers the files the chosen cost model reads and writes in the command's output plan:
// cache:FILE is an input; with measured, --measure-cache is an output (saved as stages are
// measured). Throws ios::UserError when one is refused (util::OutputTransaction::check).
void planCostModelFiles(const ArgParser& parser, util::OutputTransaction& outputs);

// The values of --device and --batch.
cost::DeviceProfile deviceOption(const ArgParser& parser);
int batchOption(const ArgParser& parser);

} // namespace ios::cli
