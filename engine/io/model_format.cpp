// SPDX-License-Identifier: Apache-2.0
#include "io/model_format.h"

#include <algorithm>
#include <cctype>
#include <memory>
#include <mutex>
#include <stdexcept>

namespace ios::io {

namespace {

struct Registry {
    std::mutex mutex;
    std::vector<std::unique_ptr<ModelFormatEntry>> entries; // stable addresses
};

Registry& registry() {
    static Registry r;
    return r;
}

std::string lowerName(const std::filesystem::path& path) {
    std::string name = path.filename().string();
    std::transform(name.begin(), name.end(), name.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    return name;
}

} // namespace

bool registerModelFormat(ModelFormatEntry entry) {
    Registry& r = registry();
    const std::lock_guard lock(r.mutex);
    for (const auto& e : r.entries)
        if (e->key == entry.key || e->suffix == entry.suffix)
            throw std::logic_error("model format '" + entry.key + "' (" + entry.suffix +
                                   ") registered twice");
    r.entries.push_back(std::make_unique<ModelFormatEntry>(std::move(entry)));
    return true;
}

std::vector<ModelFormatEntry> modelFormats() {
    Registry& r = registry();
    std::vector<ModelFormatEntry> out;
    {
        const std::lock_guard lock(r.mutex);
        for (const auto& e : r.entries)
            out.push_back(*e);
    }
    std::sort(out.begin(), out.end(), [](const ModelFormatEntry& a, const ModelFormatEntry& b) {
        return a.rank != b.rank ? a.rank < b.rank : a.key < b.key;
    });
    return out;
}

const ModelFormatEntry* modelFormatFor(const std::filesystem::path& path) {
    const std::string name = lowerName(path);
    Registry& r = registry();
    const std::lock_guard lock(r.mutex);
    const ModelFormatEntry* best = nullptr;
    for (const auto& e : r.entries)
        if (name.size() > e->suffix.size() && name.ends_with(e->suffix) &&
            (!best || e->suffix.size() > best->suffix.size()))
            best = e.get();
    return best;
}

std::string supportedModelFormats() {
    std::string text = "supported: ";
    bool first = true;
    for (const ModelFormatEntry& e : modelFormats()) {
        text += (first ? "" : ", ") + e.suffix + " (" + e.label;
        if (!e.write)
            text += ", read only";
        else if (!e.read)
            text += ", write only";
        text += ')';
        first = false;
    }
    return text;
}

} // namespace ios::io
