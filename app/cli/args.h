// SPDX-License-Identifier: Apache-2.0
// A small declarative option parser: every subcommand gets --help and uniform errors from it.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace ios::cli {

// What a parser declares: the source of its --help, of the manual page and of the shell
// completions (cli_reference.h), so the three never disagree.
struct OptionTable {
    struct Option {
        std::vector<std::string> names; // "-r", "--max-group-size"
        std::string key;                // the first long name without "--"
        std::string valueName;          // empty = flag
        std::string help;
        std::optional<std::string> defaultValue;
    };
    struct Positional {
        std::string name, help;
        bool required = true, repeated = false;
    };
    std::string usage, description;
    std::vector<Option> options;
    std::vector<Positional> positionals;
};

// While one is alive on this thread, ArgParser::parse given --help stores its table here
// (instead of printing the help) and returns false, as for --help: running a command with
// {"--help"} under a capture reads its table without running it.
class OptionTableCapture {
public:
    OptionTableCapture();
    ~OptionTableCapture();
    OptionTableCapture(const OptionTableCapture&) = delete;
    OptionTableCapture& operator=(const OptionTableCapture&) = delete;

    std::optional<OptionTable> table;

private:
    OptionTableCapture* previous_;
};

class ArgParser {
public:
    ArgParser(std::string usage, std::string description);

    // Declare before parse(). `names` like "-r, --max-group-size"; the first long name is the key.
    void flag(const std::string& names, const std::string& help);
    void option(const std::string& names, const std::string& valueName, const std::string& help,
                std::optional<std::string> defaultValue = std::nullopt);
    void positional(const std::string& name, const std::string& help, bool required = true,
                    bool repeated = false);

    // Returns false when --help was given (help is already printed to stdout).
    // Throws ios::UserError on unknown options, missing values or missing positionals.
    bool parse(const std::vector<std::string>& args);

    bool has(const std::string& key) const;                         // flag given / option given
    std::optional<std::string> value(const std::string& key) const; // option or its default
    std::string get(const std::string& key) const;                  // value or throws
    std::vector<std::string> values(const std::string& key) const;  // every occurrence, in order
    int getInt(const std::string& key, int min, int max) const;
    int64_t getInt64(const std::string& key, int64_t min, int64_t max) const;
    // A byte count as util::parseByteSize reads it ("24MiB", "19.5 MiB", "64MB", "1048576").
    int64_t getBytes(const std::string& key, int64_t min, int64_t max) const;
    const std::vector<std::string>& positionals() const { return positionals_; }

    std::string help() const;
    // The declared options and arguments (the help, man page and completions read them).
    const OptionTable& table() const { return table_; }
    // Whether an option with this key (long name without "--") is declared.
    bool declares(const std::string& key) const;

private:
    using Spec = OptionTable::Option;
    const Spec* findSpec(const std::string& name) const;

    OptionTable table_;
    std::vector<std::pair<std::string, std::string>> given_; // key → value ("" for flags)
    std::vector<std::string> positionals_;
};

// "a, b,,c" → {a, b, c}: comma-separated items, spaces trimmed, empty items dropped.
std::vector<std::string> splitList(const std::string& text);

} // namespace ios::cli
