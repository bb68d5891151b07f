// SPDX-License-Identifier: Apache-2.0
#include "store/measurement_store.h"

#include "util/error.h"

#include <chrono>
#include <cstdlib>
#include <mutex>

namespace ios::store {

namespace {

struct Registry {
    std::mutex mutex;
    std::vector<StoreBackend> backends;
};

Registry& registry() {
    static Registry r;
    return r;
}

bool startsWith(std::string_view text, std::string_view prefix) {
    return text.substr(0, prefix.size()) == prefix;
}

} // namespace

bool registerStoreBackend(StoreBackend backend) {
    Registry& r = registry();
    std::lock_guard lock(r.mutex);
    r.backends.push_back(std::move(backend));
    return true;
}

std::vector<std::string> storeBackendNames() {
    Registry& r = registry();
    std::lock_guard lock(r.mutex);
    std::vector<std::string> names;
    for (const StoreBackend& b : r.backends)
        names.push_back(b.name);
    return names;
}

std::unique_ptr<MeasurementStore> openStore(const std::string& url, OpenMode mode) {
    if (url.empty())
        throw UserError("a measurement store URL is empty (sqlite:PATH, PATH or "
                        "postgresql://...)");
    StoreFactory open;
    StoreFactory fallback; // a bare path: the backend answering to the empty scheme
    {
        Registry& r = registry();
        std::lock_guard lock(r.mutex);
        for (const StoreBackend& b : r.backends)
            for (const std::string& scheme : b.schemes) {
                if (scheme.empty())
                    fallback = b.open;
                else if (startsWith(url, scheme) && !open)
                    open = b.open;
            }
    }
    const bool looksLikeUrl = url.find("://") != std::string::npos;
    if (!open && looksLikeUrl)
        throw UserError("measurement store '" + url +
                        "': no backend for this URL scheme is built in (built: " +
                        [] {
                            std::string list;
                            for (const std::string& n : storeBackendNames())
                                list += (list.empty() ? "" : ", ") + n;
                            return list.empty() ? std::string("none") : list;
                        }() +
                        ")");
    if (!open)
        open = fallback;
    if (!open)
        throw UserError("measurement store '" + url + "': no store backend is built in");
    return open(url, mode);
}

std::vector<Setup> MeasurementStore::setups() {
    std::vector<Setup> out;
    for (const StoreInfo::DeviceCount& c : info().setups)
        out.push_back(Setup{c.device, c.batch, c.dtype});
    return out;
}

int64_t measurementTime() {
    if (const char* epoch = std::getenv("SOURCE_DATE_EPOCH"); epoch && *epoch) {
        char* end = nullptr;
        const long long v = std::strtoll(epoch, &end, 10);
        if (end && *end == '\0' && v >= 0)
            return v;
    }
    return std::chrono::duration_cast<std::chrono::seconds>(
               std::chrono::system_clock::now().time_since_epoch())
        .count();
}

} // namespace ios::store
