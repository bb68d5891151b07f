// SPDX-License-Identifier: Apache-2.0
// `ios-sched convert IN OUT`: rewrite a model in the format OUT's extension names.
#include "args.h"
#include "bundled_models.h"
#include "command.h"
#include "io/model_file.h"
#include "model_options.h"
#include "provenance_options.h"
#include "util/output_file.h"

#include <algorithm>
#include <iostream>

namespace ios::cli {

namespace {

// The formats as the registry lists them (io/model_format.h): what IN and OUT may be.
std::string convertDescription() {
    std::string text = "Convert a model between formats, chosen by OUT's extension:\n";
    for (const io::ModelFormatEntry& f : io::modelFormats()) {
        std::string suffix = f.suffix;
        suffix.resize(std::max<size_t>(suffix.size(), 10), ' ');
        text += "  " + suffix + " " + f.label +
                (!f.write  ? " (import only)"
                 : !f.read ? " (export only)"
                           : "") +
                "\n";
    }
    return text + "OUT is written atomically: on any error it is left untouched.";
}

int runConvert(const std::vector<std::string>& args) {
    ArgParser parser("ios-sched convert IN OUT [--verbose]", convertDescription());
    parser.positional("IN", "a model file or a bundled name (see models)");
    parser.positional("OUT", "the file to write");
    parser.flag("-v, --verbose", "Say what was written");
    addModelOptions(parser);
    if (!parser.parse(args))
        return kExitOk;
    const std::string& in = parser.positionals()[0];
    const std::string& out = parser.positionals()[1];
    const io::ModelFormatEntry& format = io::formatForWrite(out); // reject a bad OUT before loading
    util::OutputTransaction output;
    output.check(out, "OUT");
    const ir::Graph graph = loadModelArg(parser, in, output);
    std::vector<std::string> warnings;
    const io::Provenance provenance = commandProvenance(parser, &graph);
    output.stage(out, io::modelFileText(graph, out, &warnings, &provenance));
    output.commit();
    printWarnings("convert", warnings);
    if (!parser.has("verbose"))
        return kExitOk;
    std::cout << "wrote " << out << " (" << format.label << ", " << graph.blocks.size()
              << " blocks, " << graph.operatorCount() << " operators)\n";
    const bool hasParts = std::any_of(graph.blocks.begin(), graph.blocks.end(),
                                      [](const ir::Block& b) { return !b.parts.empty(); });
    if (hasParts && format.key == "ios-json")
        std::cout << "note: IOS JSON cannot hold the explicit DP parts; write .json (native) "
                     "to keep them\n";
    return kExitOk;
}

} // namespace

IOS_REGISTER_COMMAND(convert, "convert", "Convert a model to IOS JSON, native JSON or DOT",
                     runConvert);

} // namespace ios::cli
