// SPDX-License-Identifier: Apache-2.0
#include "cost/device_identity.h"

#include "cost/stage_signature.h"
#include "util/error.h"

#include <limits>
#include <type_traits>

namespace ios::cost {

util::Json toJson(const DeviceIdentity& d) {
    util::Json j;
    j["name"] = d.name;
    j["compute_capability"] = d.computeCapability;
    j["sm_count"] = d.smCount;
    j["sm_clock_mhz"] = d.smClockMHz;
    j["memory_clock_mhz"] = d.memoryClockMHz;
    j["memory_bytes"] = d.memoryBytes;
    j["driver"] = d.driver;
    j["cuda"] = d.cuda;
    j["cudnn"] = d.cudnn;
    j["math_mode"] = d.mathMode;
    return j;
}

std::string canonicalText(const DeviceIdentity& identity) { return toJson(identity).dump(); }

std::string identityId(const DeviceIdentity& identity) {
    return "h" + stableHashHex(canonicalText(identity)).substr(0, 12);
}

namespace {

template <class T> T field(const util::Json& json, const char* key, const std::string& where) {
    const auto it = json.find(key);
    if (it == json.end())
        throw UserError(where + ": the device identity has no \"" + key + "\"");
    if constexpr (std::is_same_v<T, std::string>) {
        if (!it->is_string())
            throw UserError(where + ": device identity field \"" + key + "\" is not a string");
    } else {
        if (!it->is_number_integer() || it->template get<int64_t>() < 0 ||
            it->template get<int64_t>() > static_cast<int64_t>(std::numeric_limits<T>::max()))
            throw UserError(where + ": device identity field \"" + key +
                            "\" is not a non-negative integer");
    }
    return it->template get<T>();
}

} // namespace

DeviceIdentity identityFromJson(const util::Json& json, const std::string& where) {
    if (!json.is_object())
        throw UserError(where + ": the device identity is not an object");
    DeviceIdentity d;
    d.name = field<std::string>(json, "name", where);
    d.computeCapability = field<std::string>(json, "compute_capability", where);
    d.smCount = field<int>(json, "sm_count", where);
    d.smClockMHz = field<int>(json, "sm_clock_mhz", where);
    d.memoryClockMHz = field<int>(json, "memory_clock_mhz", where);
    d.memoryBytes = field<int64_t>(json, "memory_bytes", where);
    d.driver = field<std::string>(json, "driver", where);
    d.cuda = field<std::string>(json, "cuda", where);
    d.cudnn = field<std::string>(json, "cudnn", where);
    d.mathMode = field<std::string>(json, "math_mode", where);
    if (d.name.empty())
        throw UserError(where + ": the device identity's \"name\" is empty");
    return d;
}

} // namespace ios::cost
