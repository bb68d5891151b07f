// SPDX-License-Identifier: Apache-2.0
#include "provenance_options.h"

#include "cost_options.h"

namespace ios::cli {

namespace {

std::string& commandLineSlot() {
    static std::string line;
    return line;
}

std::string shellQuoted(const std::string& arg) {
    if (!arg.empty() && arg.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                                              "0123456789-_./:=,@%+") == std::string::npos)
        return arg;
    std::string out = "'";
    for (char c : arg)
        out += c == '\'' ? std::string("'\\''") : std::string(1, c);
    return out + "'";
}

util::Json settingsOf(const ArgParser& parser) {
    util::Json settings = util::Json::object();
    for (const OptionTable::Option& o : parser.table().options) {
        if (o.key == "help")
            continue;
        if (o.valueName.empty()) {
            if (parser.has(o.key))
                settings[o.key] = true;
            continue;
        }
        if (const std::optional<std::string> v = parser.value(o.key))
            settings[o.key] = *v;
    }
    return settings;
}

} // namespace

void setCommandLine(const std::vector<std::string>& args) {
    std::string line = "ios-sched";
    for (const std::string& a : args)
        line += " " + shellQuoted(a);
    commandLineSlot() = line;
}

const std::string& commandLine() {
    return commandLineSlot();
}

io::Provenance commandProvenance(const ArgParser& parser, const ir::Graph* graph) {
    // The simulated device, batch and cost model of commands with the cost options
    // (addCostOptions); GPU commands name their measured device themselves.
    const bool priced = parser.declares("cost-model");
    std::optional<cost::DeviceProfile> device;
    if (priced)
        device = deviceOption(parser);
    io::Provenance p = io::provenanceFor(commandLine(), graph, device ? &*device : nullptr,
                                         priced ? batchOption(parser) : 0,
                                         priced ? costModelOption(parser) : std::string());
    p.settings = settingsOf(parser);
    return p;
}

io::Provenance measuredProvenance(const ArgParser& parser, const ir::Graph& graph,
                                  std::string device, int batch) {
    io::Provenance p = commandProvenance(parser, &graph);
    p.device = std::move(device);
    p.deviceHash.clear(); // a real GPU, not a profile
    p.batch = batch;
    p.costModel = "measured";
    return p;
}

util::Json commandProvenanceJson(const ArgParser& parser, const ir::Graph* graph) {
    return io::provenanceJson(commandProvenance(parser, graph));
}

} // namespace ios::cli
