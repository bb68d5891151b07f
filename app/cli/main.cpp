// ios-sched: the command-line front end over the engine (same functions the GUI drives).
#include "command.h"
#include "gpu_runs.h"

#include <string>
#include <vector>

int main(int argc, char** argv) {
    ios::profiling::installMeasuredCostModel(); // --cost-model measured, where CUDA is built
    return ios::cli::runCommandLine(std::vector<std::string>(argv + 1, argv + argc));
}
