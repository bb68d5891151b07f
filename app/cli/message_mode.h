// SPDX-License-Identifier: Apache-2.0
// What ios-sched prints on stderr besides errors (docs/cli.md "Conventions"): progress only on
// a terminal unless --progress asks for it elsewhere; --quiet silences progress, estimates,
// warnings and notes (errors always print). Both are global options, given anywhere before
// "--" on the command line; runCommandLine takes them out before the command parses its own.
#pragma once

#include <ostream>
#include <string>
#include <vector>

namespace ios::cli {

struct MessageMode {
    bool quiet = false;         // --quiet / -q
    bool forceProgress = false; // --progress
};

// Removes --quiet, -q and --progress from `args` (not after "--") and returns what they set.
MessageMode takeMessageOptions(std::vector<std::string>& args);

void setMessageMode(MessageMode mode);
const MessageMode& messageMode();

// Whether progress lines are printed: not quiet, and stderr is a terminal or --progress.
bool showProgress();
// Whether stderr is a terminal (progress redraws one line) rather than a file or pipe (a line
// per report).
bool progressOnTerminal();

// Where warnings and notes go: std::cerr, or a stream that drops them under --quiet.
std::ostream& notes();

} // namespace ios::cli
