// SPDX-License-Identifier: Apache-2.0
#include "io/native_json.h"

#include "io/model_format.h"
#include "io/node_json.h"
#include "util/error.h"
#include "util/input_file.h"
#include "util/json_number.h"

namespace ios::io {

using util::dumpPythonStyle;
using util::Json;
using util::parseJsonDocument;

bool isNativeDocument(const Json& doc) {
    return doc.is_object() && doc.contains("format");
}

ir::Graph nativeFromDocument(const Json& doc, const std::string& source) {
    if (!doc.is_object())
        throw UserError("a native model file must be a JSON object", source);
    for (const auto& item : doc.items())
        if (item.key() != "format" && item.key() != "version" && item.key() != "model" &&
            item.key() != kProvenanceKey)
            throw UserError("unknown top-level field '" + item.key() + "'", source);
    const auto format = doc.find("format");
    if (format == doc.end() || *format != Json(kNativeFormatName))
        throw UserError(std::string("field 'format' must be \"") + kNativeFormatName + "\"",
                        source);
    util::requireFormatVersion(doc, kNativeFormatVersion, "native format", source);
    const auto model = doc.find("model");
    if (model == doc.end())
        throw UserError("missing field 'model'", source);
    return detail::graphFromJson(*model, detail::Dialect::Native, source);
}

ir::Graph parseNativeJson(std::string_view text, const std::string& source) {
    return nativeFromDocument(parseJsonDocument(text, source).root(), source);
}

std::string writeNativeJson(const ir::Graph& graph, const Provenance* provenance) {
    Json doc = Json::object();
    doc["format"] = kNativeFormatName;
    doc["version"] = kNativeFormatVersion;
    if (provenance != nullptr)
        doc[kProvenanceKey] = provenanceJson(*provenance);
    doc["model"] = detail::graphToJson(graph, detail::Dialect::Native);
    return dumpPythonStyle(doc) + "\n";
}

namespace {

// A plain ".json" is native when it carries the header, else IOS JSON under another name.
ir::Graph readJsonModelFile(const std::filesystem::path& path, std::vector<std::string>* warnings) {
    const std::string source = path.string();
    const util::JsonDocument parsed =
        util::parseJsonDocument(util::readInputFile(path, util::InputKind::Model), source);
    const Json& doc = parsed.root();
    return isNativeDocument(doc)
               ? nativeFromDocument(doc, source)
               : detail::graphFromJson(doc, detail::Dialect::Ios, source, warnings);
}

} // namespace

IOS_REGISTER_MODEL_FORMAT(
    native_json,
    ModelFormatEntry{
        .key = "native",
        .suffix = ".json",
        .label = "native JSON",
        .rank = 20,
        .read =
            [](const std::filesystem::path& path, const ModelLoadOptions& options) {
                return readJsonModelFile(path, options.warnings);
            },
        .write = [](const ir::Graph& graph, std::vector<std::string>*,
                    const Provenance* provenance) { return writeNativeJson(graph, provenance); }});

} // namespace ios::io
