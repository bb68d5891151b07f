// SPDX-License-Identifier: Apache-2.0
// Subcommands of ios-sched: each cmd_<name>.cpp registers one with IOS_REGISTER_COMMAND.
#pragma once

#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace ios::cli {

// Exit codes (docs/cli.md): 0 ok, 1 user error, 2 internal error.
inline constexpr int kExitOk = 0;
inline constexpr int kExitUserError = 1;
inline constexpr int kExitInternalError = 2;

struct Command {
    std::string_view name;
    std::string_view summary;
    // args excludes the program and subcommand names. Throws ios::UserError for bad input.
    int (*run)(const std::vector<std::string>& args);
    // A command with subcommands of its own (`store info`, ...): run dispatches to them; the
    // manual page and the completions list them.
    std::span<const Command> subcommands = {};
};

std::vector<Command>& commandRegistry();

// Runs `args` (the subcommand and its arguments) as ios-sched would and returns the exit code;
// errors are printed to stderr as "ios-sched CMD: error: ...".
int runCommandLine(const std::vector<std::string>& args);

// Prints each of `warnings` (e.g. what a file format could not express) to stderr as
// "ios-sched CMD: warning: ...".
void printWarnings(std::string_view command, const std::vector<std::string>& warnings);

struct CommandRegistrar {
    explicit CommandRegistrar(Command c) { commandRegistry().push_back(c); }
};

} // namespace ios::cli

#define IOS_REGISTER_COMMAND(ident, name, summary, fn)                                             \
    static const ::ios::cli::CommandRegistrar ident##_registrar {                                  \
        ::ios::cli::Command {                                                                      \
            name, summary, fn                                                                      \
        }                                                                                          \
    }

// The same for a command that dispatches to `subs` (a static array of Command).
#define IOS_REGISTER_COMMAND_GROUP(ident, name, summary, fn, subs)                                 \
    static const ::ios::cli::CommandRegistrar ident##_registrar {                                  \
        ::ios::cli::Command {                                                                      \
            name, summary, fn, subs                                                                \
        }                                                                                          \
    }
