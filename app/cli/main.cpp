// SPDX-License-Identifier: Apache-2.0
// ios-sched: the command-line front end over the engine (same functions the GUI drives).
#include "command.h"
#include "gpu_runs.h"
#include "util/output_file.h"

#include <string>
#include <vector>

int main(int argc, char** argv) {
    ios::profiling::installMeasuredCostModel(); // --cost-model measured, where CUDA is built
    // SIGINT/SIGTERM: remove staged outputs, one line, exit 130/143 (docs/cli.md).
    ios::util::installOutputSignalHandlers("ios-sched");
    return ios::cli::runCommandLine(std::vector<std::string>(argv + 1, argv + argc));
}
