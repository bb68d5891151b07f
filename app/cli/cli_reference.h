// SPDX-License-Identifier: Apache-2.0
// The command line as data: every command's option table (args.h), read by running each
// command with --help under an OptionTableCapture. The manual page (`ios-sched man`) and the
// shell completions (`ios-sched completion bash|zsh`) are rendered from it, so they always
// match what the parsers accept.
#pragma once

#include "args.h"

#include <string>
#include <vector>

namespace ios::cli {

struct CommandReference {
    std::vector<std::string> path; // {"optimize"} or {"store", "info"}
    std::string summary;
    OptionTable table;                    // empty usage for a group (store) that only dispatches
    std::vector<std::string> subcommands; // of a group
};

// Commands by name, each group followed by its subcommands. Throws std::logic_error naming a
// command that declares no table (every command must parse its arguments with ArgParser).
std::vector<CommandReference> cliReference();

// ios-sched(1) in roff (man 7 man): synopsis, every command with its options and defaults,
// exit status, environment, files.
std::string manPage(const std::vector<CommandReference>& commands);

// Completion scripts: commands, subcommands, options per command; values of MODEL
// (bundled names and files), D/DEVICE (bundled device profiles) and file-like values.
std::string bashCompletion(const std::vector<CommandReference>& commands);
std::string zshCompletion(const std::vector<CommandReference>& commands);

} // namespace ios::cli
