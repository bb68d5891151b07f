// SPDX-License-Identifier: Apache-2.0
// The command line of ios-sched without its main(): the command registry and the dispatch with
// its exit codes, so tests can run commands in-process.
#include "command.h"
#include "error_hints.h"
#include "message_mode.h"
#include "model_options.h"
#include "provenance_options.h"
#include "search_progress.h"
#include "terminal_text.h"
#include "util/error.h"
#include "util/message_text.h"
#include "util/output_file.h"
#include "util/version.h"

#include <algorithm>
#include <exception>
#include <iostream>

namespace ios::cli {

std::vector<Command>& commandRegistry() {
    static std::vector<Command> commands;
    return commands;
}

void printWarnings(std::string_view command, const std::vector<std::string>& warnings) {
    for (const std::string& w : warnings)
        notes() << "ios-sched " << command << ": warning: " << util::escapeControl(w) << "\n";
}

namespace {

void printUsage(std::ostream& out) {
    out << "Usage: ios-sched COMMAND [OPTIONS]\n\n"
           "Inter-operator scheduling of CNN graphs (IOS, MLSys 2021) from the command line.\n\n"
           "Commands:\n";
    std::vector<Command> commands = commandRegistry();
    std::sort(commands.begin(), commands.end(),
              [](const Command& a, const Command& b) { return a.name < b.name; });
    for (const Command& c : commands)
        out << "  " << c.name << std::string(c.name.size() < 12 ? 12 - c.name.size() : 1, ' ')
            << c.summary << "\n";
    out << "\nOptions:\n"
           "  -h, --help     Print this help\n"
           "  -v, --version  Print the version ("
        << util::toolVersion()
        << ")\n"
           "  -q, --quiet    (with any command) No progress, estimates, warnings or notes on "
           "stderr; errors still print\n"
           "  --progress     (with any command) Progress even when stderr is not a terminal "
           "(a line per second)\n"
           "\nA FILE argument or option value of '-' is standard input (read) or standard "
           "output (written).\n"
           "Run 'ios-sched COMMAND --help' for a command's options.\n"
           "Exit status: 0 success, 1 bad input or usage, 2 internal error, 128+N "
           "stopped by signal N.\n";
}

// For one command: once an output goes to standard output ("-"), the text for people that
// the command prints on std::cout goes to stderr, so standard output carries the data alone.
class TextToStderrOnDataOutput {
public:
    explicit TextToStderrOnDataOutput(EscapedStream& text) {
        current() = &text;
        util::setStandardOutputClaimedHook([] { current()->retarget(std::cerr.rdbuf()); });
    }
    ~TextToStderrOnDataOutput() {
        util::setStandardOutputClaimedHook(nullptr);
        current() = nullptr;
    }
    TextToStderrOnDataOutput(const TextToStderrOnDataOutput&) = delete;
    TextToStderrOnDataOutput& operator=(const TextToStderrOnDataOutput&) = delete;

private:
    static EscapedStream*& current() {
        static EscapedStream* stream = nullptr;
        return stream;
    }
};

} // namespace

int runCommandLine(const std::vector<std::string>& given) {
    std::vector<std::string> args = given;
    setMessageMode(takeMessageOptions(args));
    if (args.empty()) {
        printUsage(std::cerr);
        return kExitUserError;
    }
    if (args[0] == "-h" || args[0] == "--help" || args[0] == "help") {
        printUsage(std::cout);
        return kExitOk;
    }
    if (args[0] == "-V" || args[0] == "-v" || args[0] == "--version") {
        std::cout << "ios-sched " << util::toolVersion() << "\n";
        return kExitOk;
    }
    for (const Command& c : commandRegistry()) {
        if (c.name != args[0])
            continue;
        setTimeLimit(0); // each command sets its own (--max-seconds)
        setCommandLine(args);
        EscapedStream escaped(std::cout); // names from files never reach a terminal raw
        const TextToStderrOnDataOutput route(escaped);
        try {
            return c.run({args.begin() + 1, args.end()});
        } catch (const UserError& e) {
            // A node named without a file is one of the model's (found after loading it).
            const bool modelNode = e.file().empty() && !e.node().empty();
            // what() is escaped already (UserError); other exceptions' texts are escaped here.
            std::cerr << "ios-sched " << c.name
                      << ": error: " << (modelNode ? e.inFile(currentModel()).what() : e.what())
                      << cliHintText(e.hint()) << "\n";
            return kExitUserError;
        } catch (const std::bad_alloc&) {
            // The loaders turn this into a UserError naming their file; here it came later.
            const std::string& model = currentModel();
            std::cerr << "ios-sched " << c.name
                      << ": error: " << (model.empty() ? "" : model + ": ")
                      << "out of memory (the work is too large for the memory available; "
                         "give a smaller input or raise the memory limit)\n";
            return kExitUserError;
        } catch (const std::exception& e) {
            std::cerr << "ios-sched " << c.name
                      << ": internal error: " << util::escapeControl(e.what()) << "\n";
            return kExitInternalError;
        }
    }
    std::cerr << "ios-sched: unknown command '" << util::escapeControl(args[0])
              << "' (see ios-sched --help)\n";
    return kExitUserError;
}

} // namespace ios::cli
