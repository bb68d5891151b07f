// SPDX-License-Identifier: Apache-2.0
// Runs one ios-sched command in the test's own process (runCommandLine, app/cli/command.h)
// with stdout and stderr captured: the tst_cli_* suites' way to drive the CLI.
#pragma once

#include "command.h"

#include <iostream>
#include <sstream>
#include <string>
#include <vector>

namespace ios::testing {

struct CliRun {
    int code = 0;
    std::string out, err;
};

inline CliRun runCli(const std::vector<std::string>& args) {
    std::ostringstream out, err;
    std::streambuf* oldOut = std::cout.rdbuf(out.rdbuf());
    std::streambuf* oldErr = std::cerr.rdbuf(err.rdbuf());
    CliRun r;
    r.code = cli::runCommandLine(args);
    std::cout.rdbuf(oldOut);
    std::cerr.rdbuf(oldErr);
    r.out = out.str();
    r.err = err.str();
    return r;
}

} // namespace ios::testing
