// SPDX-License-Identifier: Apache-2.0
#include "io/provenance.h"

#include "cost/stage_signature.h"
#include "store/measurement_store.h"
#include "util/error.h"
#include "util/version.h"

#include <ctime>
#include <sstream>

namespace ios::io {

namespace {

std::string isoTime(int64_t unixSeconds) {
    const std::time_t t = static_cast<std::time_t>(unixSeconds);
    std::tm utc{};
    gmtime_r(&t, &utc);
    char buf[32];
    std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &utc);
    return buf;
}

} // namespace

std::string deviceProfileHash(const cost::DeviceProfile& device) {
    return cost::stableHashHex(cost::writeDeviceProfile(device));
}

Provenance provenanceFor(std::string command, const ir::Graph* graph,
                         const cost::DeviceProfile* device, int batch, std::string costModel) {
    Provenance p;
    p.command = std::move(command);
    if (graph != nullptr) {
        p.model = graph->name;
        p.modelHash = cost::modelContentHash(*graph);
    }
    if (device != nullptr) {
        p.device = device->name;
        p.deviceHash = deviceProfileHash(*device);
    }
    p.batch = batch;
    p.costModel = std::move(costModel);
    p.created = store::measurementTime();
    return p;
}

util::Json provenanceJson(const Provenance& p) {
    util::Json j = util::Json::object();
    j["tool"] = "ios-explorer";
    j["tool_version"] = util::toolVersion();
    if (!p.command.empty())
        j["command"] = p.command;
    j["created"] = isoTime(p.created != 0 ? p.created : store::measurementTime());
    if (!p.model.empty() || !p.modelHash.empty())
        j["model"] = {{"name", p.model}, {"content_hash", p.modelHash}};
    if (!p.device.empty())
        j["device"] = {{"name", p.device}, {"hash", p.deviceHash}};
    if (p.batch > 0)
        j["batch"] = p.batch;
    if (!p.costModel.empty())
        j["cost_model"] = p.costModel;
    if (!p.settings.empty())
        j["settings"] = p.settings;
    return j;
}

std::string provenanceComment(const Provenance& p, std::string_view prefix) {
    const util::Json j = provenanceJson(p);
    std::ostringstream out;
    for (const auto& [key, value] : j.items())
        out << prefix << key << ": "
            << (value.is_string() ? value.get<std::string>() : value.dump()) << "\n";
    return out.str();
}

std::optional<std::string> provenanceModelHash(const util::Json& doc) {
    if (!doc.is_object())
        return std::nullopt;
    const auto block = doc.find(kProvenanceKey);
    if (block == doc.end() || !block->is_object())
        return std::nullopt;
    const auto model = block->find("model");
    if (model == block->end() || !model->is_object())
        return std::nullopt;
    const auto hash = model->find("content_hash");
    if (hash == model->end() || !hash->is_string() || hash->get<std::string>().empty())
        return std::nullopt;
    return hash->get<std::string>();
}

void checkProvenanceModel(const util::Json& doc, const ir::Graph& graph, const std::string& file) {
    const std::optional<std::string> hash = provenanceModelHash(doc);
    if (!hash)
        return;
    const std::string own = cost::modelContentHash(graph);
    if (*hash == own)
        return;
    std::string madeFor;
    if (const auto name = doc[kProvenanceKey]["model"].find("name");
        name != doc[kProvenanceKey]["model"].end() && name->is_string())
        madeFor = " '" + name->get<std::string>() + "'";
    throw UserError("made for another model: its provenance names model" + madeFor +
                        " with content hash " + *hash + ", but '" + graph.name + "' has " + own +
                        " (the file belongs to a different model or another version of it)",
                    file);
}

} // namespace ios::io
