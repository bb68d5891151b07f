// SPDX-License-Identifier: Apache-2.0
// What ios-sched writes says where it came from (io/provenance.h): the command line, the
// model, the cost options the command declares (device, batch, cost model) and the value of
// every option as its settings.
#pragma once

#include "args.h"
#include "io/provenance.h"
#include "ir/graph.h"

#include <string>
#include <vector>

namespace ios::cli {

// Remembers the command line being run (runCommandLine sets it), shell-quoted.
void setCommandLine(const std::vector<std::string>& args);
const std::string& commandLine();

// The provenance of the current command's outputs. `graph` may be null (no model).
io::Provenance commandProvenance(const ArgParser& parser, const ir::Graph* graph);

// The same for GPU commands: the device measured on (the backend's name) and its batch.
io::Provenance measuredProvenance(const ArgParser& parser, const ir::Graph& graph,
                                  std::string device, int batch);

// The same as the JSON block documents carry.
util::Json commandProvenanceJson(const ArgParser& parser, const ir::Graph* graph);

} // namespace ios::cli
