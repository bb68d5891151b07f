// `ios-sched convert IN OUT`: rewrite a model in the format OUT's extension names.
#include "args.h"
#include "bundled_models.h"
#include "command.h"
#include "io/model_file.h"
#include "model_options.h"
#include "util/output_file.h"

#include <algorithm>
#include <iostream>

namespace ios::cli {

namespace {

std::string_view formatName(io::ModelFormat format) {
    switch (format) {
    case io::ModelFormat::IosJson:
        return "IOS JSON";
    case io::ModelFormat::Native:
        return "native JSON";
    case io::ModelFormat::Dot:
        return "Graphviz DOT";
    }
    return "?";
}

int runConvert(const std::vector<std::string>& args) {
    ArgParser parser("ios-sched convert IN OUT [--verbose]",
                     "Convert a model between formats, chosen by OUT's extension:\n"
                     "  .ios.json  IOS JSON (the IOS authors' format)\n"
                     "  .json      native ios-explorer JSON\n"
                     "  .dot       Graphviz DOT (export only)\n"
                     "OUT is written atomically: on any error it is left untouched.");
    parser.positional("IN", "a model file or a bundled name (see models)");
    parser.positional("OUT", "the file to write");
    parser.flag("-v, --verbose", "Say what was written");
    addModelOptions(parser);
    if (!parser.parse(args))
        return kExitOk;
    const std::string& in = parser.positionals()[0];
    const std::string& out = parser.positionals()[1];
    const io::ModelFormat format = io::formatForWrite(out); // reject a bad OUT before loading
    util::OutputTransaction output;
    output.check(out, "OUT");
    const ir::Graph graph = loadModelArg(parser, in, output);
    std::vector<std::string> warnings;
    output.stage(out, io::modelFileText(graph, out, &warnings));
    output.commit();
    printWarnings("convert", warnings);
    if (!parser.has("verbose"))
        return kExitOk;
    std::cout << "wrote " << out << " (" << formatName(format) << ", " << graph.blocks.size()
              << " blocks, " << graph.operatorCount() << " operators)\n";
    const bool hasParts = std::any_of(graph.blocks.begin(), graph.blocks.end(),
                                      [](const ir::Block& b) { return !b.parts.empty(); });
    if (hasParts && format == io::ModelFormat::IosJson)
        std::cout << "note: IOS JSON cannot hold the explicit DP parts; write .json (native) "
                     "to keep them\n";
    return kExitOk;
}

} // namespace

IOS_REGISTER_COMMAND(convert, "convert", "Convert a model to IOS JSON, native JSON or DOT",
                     runConvert);

} // namespace ios::cli
