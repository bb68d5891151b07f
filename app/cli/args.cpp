// SPDX-License-Identifier: Apache-2.0
#include "args.h"

#include "util/byte_size.h"
#include "util/error.h"

#include <charconv>
#include <cstdint>
#include <iostream>
#include <sstream>

namespace ios::cli {

std::vector<std::string> splitList(const std::string& text) {
    std::vector<std::string> out;
    std::stringstream ss(text);
    std::string part;
    while (std::getline(ss, part, ',')) {
        const auto b = part.find_first_not_of(' ');
        const auto e = part.find_last_not_of(' ');
        if (b != std::string::npos)
            out.push_back(part.substr(b, e - b + 1));
    }
    return out;
}

namespace {

std::string keyOf(const std::vector<std::string>& names) {
    for (const auto& n : names)
        if (n.rfind("--", 0) == 0)
            return n.substr(2);
    return names.front().substr(1);
}

} // namespace

namespace {

thread_local OptionTableCapture* currentCapture = nullptr;

} // namespace

OptionTableCapture::OptionTableCapture() : previous_(currentCapture) {
    currentCapture = this;
}

OptionTableCapture::~OptionTableCapture() {
    currentCapture = previous_;
}

ArgParser::ArgParser(std::string usage, std::string description) {
    table_.usage = std::move(usage);
    table_.description = std::move(description);
    flag("-h, --help", "Show this help and exit");
}

void ArgParser::flag(const std::string& names, const std::string& help) {
    auto n = splitList(names);
    table_.options.push_back({n, keyOf(n), {}, help, std::nullopt});
}

void ArgParser::option(const std::string& names, const std::string& valueName,
                       const std::string& help, std::optional<std::string> defaultValue) {
    auto n = splitList(names);
    table_.options.push_back({n, keyOf(n), valueName, help, std::move(defaultValue)});
}

void ArgParser::positional(const std::string& name, const std::string& help, bool required,
                           bool repeated) {
    table_.positionals.push_back({name, help, required, repeated});
}

const ArgParser::Spec* ArgParser::findSpec(const std::string& name) const {
    for (const Spec& s : table_.options)
        for (const auto& n : s.names)
            if (n == name)
                return &s;
    return nullptr;
}

bool ArgParser::parse(const std::vector<std::string>& args) {
    for (size_t i = 0; i < args.size(); ++i) {
        std::string arg = args[i];
        if (arg.size() > 1 && arg[0] == '-' &&
            !(arg.size() > 1 && std::isdigit(static_cast<unsigned char>(arg[1])))) {
            if (arg == "--") {
                positionals_.insert(positionals_.end(), args.begin() + static_cast<long>(i) + 1,
                                    args.end());
                break;
            }
            std::optional<std::string> inlineValue;
            if (auto eq = arg.find('='); eq != std::string::npos && arg.rfind("--", 0) == 0) {
                inlineValue = arg.substr(eq + 1);
                arg = arg.substr(0, eq);
            }
            const Spec* spec = findSpec(arg);
            if (spec == nullptr)
                throw UserError("unknown option '" + arg + "' (see --help)");
            if (spec->key == "help") {
                if (currentCapture != nullptr)
                    currentCapture->table = table_;
                else
                    std::cout << help();
                return false;
            }
            std::string value;
            if (!spec->valueName.empty()) {
                if (inlineValue) {
                    value = *inlineValue;
                } else {
                    if (i + 1 >= args.size())
                        throw UserError("option '" + arg + "' needs a value " + spec->valueName);
                    value = args[++i];
                }
            } else if (inlineValue) {
                throw UserError("option '" + arg + "' takes no value");
            }
            given_.emplace_back(spec->key, value);
        } else {
            positionals_.push_back(arg);
        }
    }
    size_t required = 0;
    bool repeated = false;
    for (const auto& p : table_.positionals) {
        required += p.required ? 1 : 0;
        repeated = repeated || p.repeated;
    }
    if (positionals_.size() < required)
        throw UserError("missing argument " + table_.positionals[positionals_.size()].name +
                        " (usage: " + table_.usage + ")");
    if (!repeated && positionals_.size() > table_.positionals.size())
        throw UserError("unexpected argument '" + positionals_[table_.positionals.size()] +
                        "' (usage: " + table_.usage + ")");
    return true;
}

bool ArgParser::declares(const std::string& key) const {
    for (const Spec& s : table_.options)
        if (s.key == key)
            return true;
    return false;
}

bool ArgParser::has(const std::string& key) const {
    for (const auto& [k, v] : given_)
        if (k == key)
            return true;
    return false;
}

std::vector<std::string> ArgParser::values(const std::string& key) const {
    std::vector<std::string> out;
    for (const auto& [k, v] : given_)
        if (k == key)
            out.push_back(v);
    return out;
}

std::optional<std::string> ArgParser::value(const std::string& key) const {
    std::optional<std::string> result;
    for (const auto& [k, v] : given_)
        if (k == key)
            result = v; // the last occurrence wins
    if (result)
        return result;
    for (const Spec& s : table_.options)
        if (s.key == key)
            return s.defaultValue;
    return std::nullopt;
}

std::string ArgParser::get(const std::string& key) const {
    auto v = value(key);
    if (!v)
        throw UserError("option --" + key + " is required");
    return *v;
}

int ArgParser::getInt(const std::string& key, int min, int max) const {
    return static_cast<int>(getInt64(key, min, max));
}

int64_t ArgParser::getInt64(const std::string& key, int64_t min, int64_t max) const {
    const std::string text = get(key);
    const std::string range = "[" + std::to_string(min) + ", " + std::to_string(max) + "]";
    // Parsed as int64: a value beyond the range (2^32+1 for an int) is refused, never narrowed.
    int64_t result = 0;
    auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), result);
    const bool digits = ptr == text.data() + text.size() && !text.empty();
    if (digits && (ec == std::errc::result_out_of_range || result < min || result > max))
        throw UserError("--" + key + " must be in " + range + ", not " + text);
    if (ec != std::errc{} || !digits)
        throw UserError("--" + key + " expects an integer in " + range + ", not '" + text + "'");
    return result;
}

int64_t ArgParser::getBytes(const std::string& key, int64_t min, int64_t max) const {
    const std::string text = get(key);
    const util::ByteSize size = util::parseByteSize(text);
    const std::string range = "[" + std::to_string(min) + ", " + std::to_string(max) + "] bytes";
    if (size.status == util::ByteSize::Status::Malformed)
        throw UserError("--" + key + " expects a size in bytes (e.g. 1048576, 512KiB, 19.5 MiB, " +
                        "64MB), not '" + text + "'");
    if (size.status == util::ByteSize::Status::TooLarge || size.bytes < min || size.bytes > max)
        throw UserError("--" + key + " must be in " + range + ", not " + text);
    return size.bytes;
}

std::string ArgParser::help() const {
    std::ostringstream out;
    out << "Usage: " << table_.usage << "\n\n" << table_.description << "\n";
    if (!table_.positionals.empty()) {
        out << "\nArguments:\n";
        for (const auto& p : table_.positionals)
            out << "  " << p.name << std::string(p.name.size() < 24 ? 24 - p.name.size() : 1, ' ')
                << p.help << "\n";
    }
    out << "\nOptions:\n";
    for (const Spec& s : table_.options) {
        std::string left;
        for (const auto& n : s.names)
            left += (left.empty() ? "" : ", ") + n;
        if (!s.valueName.empty())
            left += " " + s.valueName;
        out << "  " << left << std::string(left.size() < 24 ? 24 - left.size() : 1, ' ') << s.help;
        if (s.defaultValue)
            out << " (default: " << *s.defaultValue << ")";
        out << "\n";
    }
    return out.str();
}

} // namespace ios::cli
