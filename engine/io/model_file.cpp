// SPDX-License-Identifier: Apache-2.0
#include "io/model_file.h"

#include "util/error.h"
#include "util/file_util.h"
#include "util/input_file.h"

#include <new>

namespace ios::io {

namespace {

// Standard input ("-") has no name to go by: a JSON document is read as a ".json" file (IOS
// JSON or native, told apart by content), anything else as ONNX; written, it is native JSON.
std::filesystem::path standardStreamAs(const std::filesystem::path& path, bool reading) {
    if (!util::isStandardInput(path))
        return path;
    if (!reading)
        return "standard-output.json";
    const std::string head = util::readInputHead(path, 64);
    const size_t first = head.find_first_not_of(" \t\r\n");
    return first != std::string::npos && head[first] == '{' ? "standard-input.json"
                                                            : "standard-input.onnx";
}

const ModelFormatEntry& formatOf(const std::filesystem::path& path, bool reading) {
    const ModelFormatEntry* format = modelFormatFor(standardStreamAs(path, reading));
    if (!format)
        throw UserError("unsupported file extension (" + supportedModelFormats() + ")",
                        path.string());
    return *format;
}

} // namespace

const ModelFormatEntry& formatForWrite(const std::filesystem::path& path) {
    const ModelFormatEntry& format = formatOf(path, false);
    if (!format.write)
        throw UserError(format.label + " files can be read but not written (" +
                            supportedModelFormats() + ")",
                        path.string());
    return format;
}

ir::Graph loadModelFile(const std::filesystem::path& path) {
    return loadModelFile(path, ModelLoadOptions{});
}

ir::Graph loadModelFile(const std::filesystem::path& path, const ModelLoadOptions& options) {
    const ModelFormatEntry& format = formatOf(path, true);
    if (!format.read)
        throw UserError(format.label + " files can be written but not read (" +
                            supportedModelFormats() + ")",
                        path.string());
    try {
        return format.read(path, options);
    } catch (const std::bad_alloc&) {
        // Everything the failed load held is freed by now; the message names the file.
        throw UserError("not enough memory to load the model; give a smaller model or raise the "
                        "memory limit",
                        path.string());
    }
}

std::string modelFileText(const ir::Graph& graph, const std::filesystem::path& path,
                          std::vector<std::string>* warnings, const Provenance* provenance) {
    return formatForWrite(path).write(graph, warnings, provenance);
}

void saveModelFile(const ir::Graph& graph, const std::filesystem::path& path,
                   std::vector<std::string>* warnings, const Provenance* provenance) {
    util::writeFileAtomically(path, modelFileText(graph, path, warnings, provenance));
}

} // namespace ios::io
