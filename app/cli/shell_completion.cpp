// SPDX-License-Identifier: Apache-2.0
// Shell completions of ios-sched, rendered from the commands' option tables (cli_reference.h).
#include "bundled_models.h"
#include "cli_reference.h"
#include "cost/device_profile.h"
#include "util/version.h"

#include <algorithm>
#include <sstream>

namespace ios::cli {

namespace {

enum class ValueKind { None, Model, Device, File, Choice };

bool containsAny(const std::string& text, std::initializer_list<const char*> parts) {
    return std::any_of(parts.begin(), parts.end(),
                       [&](const char* p) { return text.find(p) != std::string::npos; });
}

ValueKind valueKind(const std::string& key, const std::string& valueName) {
    if (valueName.find('|') != std::string::npos && valueName.find(' ') == std::string::npos)
        return ValueKind::Choice;
    if (valueName.rfind("MODEL", 0) == 0)
        return ValueKind::Model;
    if (key == "device" || key == "devices")
        return ValueKind::Device;
    if (containsAny(valueName, {"FILE", "OUT", "DIR", ".json", "TRACE", "PROGRAM", "STORE", "URL",
                                "RESULTS", "IN"}))
        return ValueKind::File;
    return ValueKind::None;
}

std::string choices(const std::string& valueName) {
    std::string out = valueName;
    std::replace(out.begin(), out.end(), '|', ' ');
    return out;
}

std::string joinedPath(const CommandReference& c, char sep) {
    std::string out;
    for (const std::string& p : c.path)
        out += (out.empty() ? "" : std::string(1, sep)) + p;
    return out;
}

std::string words(const std::vector<std::string>& items) {
    std::string out;
    for (const std::string& s : items)
        out += (out.empty() ? "" : " ") + s;
    return out;
}

std::vector<std::string> modelNames() {
    std::vector<std::string> out;
    for (const samples::BundledModel& m : samples::bundledModels())
        out.emplace_back(m.name);
    return out;
}

std::vector<std::string> topLevelNames(const std::vector<CommandReference>& commands) {
    std::vector<std::string> out;
    for (const CommandReference& c : commands)
        if (c.path.size() == 1)
            out.push_back(c.path[0]);
    return out;
}

void bashCase(std::ostream& out, const CommandReference& c) {
    std::vector<std::string> options;
    std::string valueCases;
    for (const OptionTable::Option& o : c.table.options) {
        options.insert(options.end(), o.names.begin(), o.names.end());
        if (o.valueName.empty())
            continue;
        std::string action;
        switch (valueKind(o.key, o.valueName)) {
        case ValueKind::Model:
            action = "_ios_sched_words \"$_ios_sched_models\"; _ios_sched_files";
            break;
        case ValueKind::Device:
            action = "_ios_sched_words \"$_ios_sched_devices\"; _ios_sched_files";
            break;
        case ValueKind::File:
            action = "_ios_sched_files";
            break;
        case ValueKind::Choice:
            action = "_ios_sched_words \"" + choices(o.valueName) + "\"";
            break;
        case ValueKind::None:
            action = ":";
            break;
        }
        for (const std::string& n : o.names)
            valueCases += "            " + n + ") " + action + "; return ;;\n";
    }
    out << "    \"" << joinedPath(c, ' ') << "\")\n";
    if (!valueCases.empty())
        out << "        case \"$prev\" in\n" << valueCases << "        esac\n";
    if (!c.subcommands.empty())
        out << "        _ios_sched_words \"" << words(c.subcommands) << "\"; return ;;\n";
    else
        out << "        opts=\"" << words(options) << "\"\n        positional="
            << (!c.table.positionals.empty() && c.table.positionals[0].name.rfind("MODEL", 0) == 0
                    ? "model"
                    : "file")
            << " ;;\n";
}

std::string zshQuote(const std::string& text) {
    std::string out;
    for (char ch : text) {
        if (ch == '\'')
            out += "'\\''";
        else if (ch == '[' || ch == ']' || ch == ':' || ch == '\\')
            out += std::string("\\") + ch;
        else
            out += ch;
    }
    return out;
}

std::string firstSentence(const std::string& text) {
    std::string s = text.substr(0, text.find(". "));
    if (s.size() > 70)
        s = s.substr(0, 67) + "...";
    return s;
}

std::string zshAction(const OptionTable::Option& o) {
    switch (valueKind(o.key, o.valueName)) {
    case ValueKind::Model:
        return ":" + zshQuote(o.valueName) + ":_ios_sched_models";
    case ValueKind::Device:
        return ":" + zshQuote(o.valueName) + ":(" + words(cost::bundledDeviceNames()) + ")";
    case ValueKind::File:
        return ":" + zshQuote(o.valueName) + ":_files";
    case ValueKind::Choice:
        return ":" + zshQuote(o.valueName) + ":(" + choices(o.valueName) + ")";
    case ValueKind::None:
        return ":" + zshQuote(o.valueName) + ": ";
    }
    return {};
}

void zshCase(std::ostream& out, const CommandReference& c) {
    out << "    \"" << joinedPath(c, ' ') << "\")\n";
    if (!c.subcommands.empty()) {
        out << "        _values 'subcommand' " << words(c.subcommands) << " ;;\n";
        return;
    }
    out << "        _arguments -s \\\n            '(-q --quiet)'{-q,--quiet}'[No progress, "
           "warnings or "
           "notes]' \\\n            '--progress[Progress even when stderr is not a terminal]'";
    for (const OptionTable::Option& o : c.table.options) {
        const std::string desc = "[" + zshQuote(firstSentence(o.help)) + "]";
        const std::string action = o.valueName.empty() ? "" : zshAction(o);
        if (o.names.size() == 1) {
            out << " \\\n            '" << o.names[0] << desc << action << "'";
            continue;
        }
        out << " \\\n            '(" << words(o.names) << ")'{";
        for (size_t i = 0; i < o.names.size(); ++i)
            out << (i ? "," : "") << o.names[i];
        out << "}'" << desc << action << "'";
    }
    const bool model =
        !c.table.positionals.empty() && c.table.positionals[0].name.rfind("MODEL", 0) == 0;
    out << " \\\n            '*:" << (model ? "model:_ios_sched_models" : "file:_files")
        << "' ;;\n";
}

} // namespace

std::string bashCompletion(const std::vector<CommandReference>& commands) {
    std::ostringstream out;
    out << "# bash completion for ios-sched (ios-explorer " << util::toolVersion()
        << "), generated by `ios-sched completion bash`\n"
        << "_ios_sched_models=\"" << words(modelNames()) << "\"\n"
        << "_ios_sched_devices=\"" << words(cost::bundledDeviceNames()) << "\"\n"
        << "_ios_sched_words() { COMPREPLY+=($(compgen -W \"$1\" -- \"$cur\")); }\n"
        << "_ios_sched_files() { local IFS=$'\\n'; COMPREPLY+=($(compgen -f -- \"$cur\")); }\n"
        << "_ios_sched() {\n"
        << "    local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD-1]}\n"
        << "    local cmd=${COMP_WORDS[1]} opts=\"\" positional=file\n"
        << "    COMPREPLY=()\n"
        << "    if [ \"$COMP_CWORD\" -eq 1 ]; then\n"
        << "        _ios_sched_words \"" << words(topLevelNames(commands))
        << " --help --version\"; return\n    fi\n";
    for (const CommandReference& c : commands)
        if (!c.subcommands.empty())
            out << "    if [ \"$cmd\" = " << c.path[0]
                << " ] && [ \"$COMP_CWORD\" -gt 2 ]; then cmd=\"$cmd ${COMP_WORDS[2]}\"; fi\n";
    out << "    case \"$cmd\" in\n";
    for (const CommandReference& c : commands)
        bashCase(out, c);
    out << "    *) return ;;\n    esac\n"
        << "    opts=\"$opts --quiet -q --progress\"\n"
        << "    if [[ \"$cur\" == -* ]]; then _ios_sched_words \"$opts\"; return; fi\n"
        << "    [ \"$positional\" = model ] && _ios_sched_words \"$_ios_sched_models\"\n"
        << "    _ios_sched_files\n}\n"
        << "complete -o filenames -F _ios_sched ios-sched\n";
    return out.str();
}

std::string zshCompletion(const std::vector<CommandReference>& commands) {
    std::ostringstream out;
    out << "#compdef ios-sched\n# zsh completion for ios-sched (ios-explorer "
        << util::toolVersion() << "), generated by `ios-sched completion zsh`\n"
        << "_ios_sched_models() {\n    local -a m\n    m=(" << words(modelNames()) << ")\n"
        << "    _alternative 'models:bundled model:compadd -a m' 'files:model file:_files'\n}\n"
        << "_ios_sched() {\n    local -a commands\n    commands=(\n";
    for (const CommandReference& c : commands)
        if (c.path.size() == 1)
            out << "        '" << c.path[0] << ":" << zshQuote(c.summary) << "'\n";
    out << "    )\n"
        << "    if (( CURRENT == 2 )); then\n"
        << "        _describe -t commands 'ios-sched command' commands\n        return\n    fi\n"
        << "    local cmd=${words[2]}\n    shift words\n    (( CURRENT-- ))\n";
    for (const CommandReference& c : commands)
        if (!c.subcommands.empty())
            out << "    if [[ $cmd == " << c.path[0]
                << " ]] && (( CURRENT > 2 )); then\n        cmd=\"$cmd ${words[2]}\"\n"
                   "        shift words\n        (( CURRENT-- ))\n    fi\n";
    out << "    case \"$cmd\" in\n";
    for (const CommandReference& c : commands)
        zshCase(out, c);
    out << "    esac\n}\n_ios_sched \"$@\"\n";
    return out.str();
}

} // namespace ios::cli
