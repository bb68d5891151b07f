#include "io/model_file.h"

#include "io/dot_export.h"
#include "io/ios_json.h"
#include "io/native_json.h"
#include "io/node_json.h"
#include "io/onnx_import.h"
#include "util/error.h"
#include "util/file_util.h"
#include "util/input_file.h"
#include "util/json_text.h"

#include <algorithm>
#include <cctype>
#include <new>

namespace ios::io {

using util::InputKind;
using util::Json;
using util::parseJsonDocument;
using util::readInputFile;
using util::writeFileAtomically;

namespace {

constexpr const char* kSupported =
    "supported: .ios.json (IOS JSON), .json (native), .onnx (read only), .dot (write only)";

bool endsWith(const std::filesystem::path& path, std::string_view suffix) {
    std::string name = path.filename().string();
    std::transform(name.begin(), name.end(), name.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    return name.size() > suffix.size() && name.ends_with(suffix);
}

// "model.ios.json" -> "model.parts.json": the explicit DP parts that the IOS format cannot
// hold (reference_models/nasnet_large.parts.json sits beside its model this way).
std::filesystem::path partsFileBeside(const std::filesystem::path& path) {
    std::string name = path.filename().string();
    name.resize(name.size() - std::string_view(".ios.json").size());
    return path.parent_path() / (name + ".parts.json");
}

} // namespace

ModelFormat formatForWrite(const std::filesystem::path& path) {
    if (endsWith(path, ".ios.json"))
        return ModelFormat::IosJson;
    if (endsWith(path, ".json"))
        return ModelFormat::Native;
    if (endsWith(path, ".dot"))
        return ModelFormat::Dot;
    throw UserError("unsupported file extension (" + std::string(kSupported) + ")", path.string());
}

ir::Graph loadModelFile(const std::filesystem::path& path) {
    return loadModelFile(path, ModelLoadOptions{});
}

namespace {

ir::Graph loadModel(const std::filesystem::path& path, const ModelLoadOptions& options) {
    if (endsWith(path, ".onnx"))
        return loadOnnxFile(path, options);
    const std::string source = path.string();
    const ModelFormat format = formatForWrite(path);
    if (format == ModelFormat::Dot)
        throw UserError("DOT files can be written but not read (" + std::string(kSupported) + ")",
                        source);
    const std::string text = readInputFile(path, InputKind::Model);
    if (format == ModelFormat::IosJson) {
        ir::Graph graph = parseIosJson(text, source);
        // Optional; when something is there it is read through the same checks (a FIFO or a
        // device there is an error, not silently skipped).
        const std::filesystem::path parts = partsFileBeside(path);
        if (util::inputExists(parts))
            applyPartsJson(graph, readInputFile(parts, InputKind::Parts), parts.string());
        return graph;
    }
    // A plain ".json" is native when it carries the header, else IOS JSON under another name.
    const util::JsonDocument parsed = parseJsonDocument(text, source);
    const Json& doc = parsed.root();
    return isNativeDocument(doc) ? nativeFromDocument(doc, source)
                                 : detail::graphFromJson(doc, detail::Dialect::Ios, source);
}

} // namespace

ir::Graph loadModelFile(const std::filesystem::path& path, const ModelLoadOptions& options) {
    try {
        return loadModel(path, options);
    } catch (const std::bad_alloc&) {
        // Everything the failed load held is freed by now; the message names the file.
        throw UserError("not enough memory to load the model; give a smaller model or raise the "
                        "memory limit",
                        path.string());
    }
}

std::string modelFileText(const ir::Graph& graph, const std::filesystem::path& path,
                          std::vector<std::string>* warnings) {
    switch (formatForWrite(path)) {
    case ModelFormat::IosJson:
        return writeIosJson(graph, warnings);
    case ModelFormat::Native:
        return writeNativeJson(graph);
    case ModelFormat::Dot:
        return writeDot(graph);
    }
    return {};
}

void saveModelFile(const ir::Graph& graph, const std::filesystem::path& path,
                   std::vector<std::string>* warnings) {
    writeFileAtomically(path, modelFileText(graph, path, warnings));
}

} // namespace ios::io
