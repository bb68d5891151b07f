#include "io/model_file.h"

#include "util/error.h"
#include "util/file_util.h"

#include <new>

namespace ios::io {

namespace {

const ModelFormatEntry& formatOf(const std::filesystem::path& path) {
    const ModelFormatEntry* format = modelFormatFor(path);
    if (!format)
        throw UserError("unsupported file extension (" + supportedModelFormats() + ")",
                        path.string());
    return *format;
}

} // namespace

const ModelFormatEntry& formatForWrite(const std::filesystem::path& path) {
    const ModelFormatEntry& format = formatOf(path);
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
    const ModelFormatEntry& format = formatOf(path);
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
                          std::vector<std::string>* warnings) {
    return formatForWrite(path).write(graph, warnings);
}

void saveModelFile(const ir::Graph& graph, const std::filesystem::path& path,
                   std::vector<std::string>* warnings) {
    util::writeFileAtomically(path, modelFileText(graph, path, warnings));
}

} // namespace ios::io
