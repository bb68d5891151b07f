// SPDX-License-Identifier: Apache-2.0
// `ios-sched man` and `ios-sched completion SHELL`: the manual page and the shell completions,
// rendered from the commands' option tables (cli_reference.h). The build runs both to make the
// installed ios-sched.1 and completion files.
#include "args.h"
#include "cli_reference.h"
#include "command.h"
#include "util/error.h"

#include <iostream>

namespace ios::cli {

namespace {

int runMan(const std::vector<std::string>& args) {
    ArgParser parser("ios-sched man", "Print the manual page ios-sched(1) in roff, from the "
                                      "option tables of every command (man -l - to read it).");
    if (!parser.parse(args))
        return kExitOk;
    std::cout << manPage(cliReference());
    return kExitOk;
}

int runCompletion(const std::vector<std::string>& args) {
    ArgParser parser("ios-sched completion SHELL",
                     "Print the completion script for SHELL (bash or zsh): commands, options, "
                     "bundled model and device names. Load it with "
                     "'source <(ios-sched completion bash)'; packages install it.");
    parser.positional("SHELL", "bash or zsh");
    if (!parser.parse(args))
        return kExitOk;
    const std::string& shell = parser.positionals()[0];
    if (shell == "bash")
        std::cout << bashCompletion(cliReference());
    else if (shell == "zsh")
        std::cout << zshCompletion(cliReference());
    else
        throw UserError("completion: unknown shell '" + shell + "' (bash or zsh)");
    return kExitOk;
}

} // namespace

IOS_REGISTER_COMMAND(man, "man", "Print the manual page (roff)", runMan);
IOS_REGISTER_COMMAND(completion, "completion", "Print a bash or zsh completion script",
                     runCompletion);

} // namespace ios::cli
