#include "io/model_file.h"

#include "io/dot_export.h"
#include "io/ios_json.h"
#include "io/native_json.h"
#include "io/node_json.h"
#include "io/onnx_import.h"
#include "util/error.h"
#include "util/file_util.h"
#include "util/json_text.h"

#include <algorithm>
#include <cctype>

namespace ios::io {

using util::Json;
using util::parseJsonText;
using util::readTextFile;
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

ir::Graph loadModelFile(const std::filesystem::path& path, const ModelLoadOptions& options) {
    if (endsWith(path, ".onnx"))
        return loadOnnxFile(path, options);
    const std::string source = path.string();
    const ModelFormat format = formatForWrite(path);
    if (format == ModelFormat::Dot)
        throw UserError("DOT files can be written but not read (" + std::string(kSupported) + ")",
                        source);
    const std::string text = readTextFile(path);
    if (format == ModelFormat::IosJson) {
        ir::Graph graph = parseIosJson(text, source);
        const std::filesystem::path parts = partsFileBeside(path);
        std::error_code ec;
        if (std::filesystem::is_regular_file(parts, ec))
            applyPartsJson(graph, readTextFile(parts), parts.string());
        return graph;
    }
    // A plain ".json" is native when it carries the header, else IOS JSON under another name.
    const Json doc = parseJsonText(text, source);
    return isNativeDocument(doc) ? nativeFromDocument(doc, source)
                                 : detail::graphFromJson(doc, detail::Dialect::Ios, source);
}

void saveModelFile(const ir::Graph& graph, const std::filesystem::path& path) {
    switch (formatForWrite(path)) {
    case ModelFormat::IosJson:
        writeFileAtomically(path, writeIosJson(graph));
        return;
    case ModelFormat::Native:
        writeFileAtomically(path, writeNativeJson(graph));
        return;
    case ModelFormat::Dot:
        writeFileAtomically(path, writeDot(graph));
        return;
    }
}

} // namespace ios::io
