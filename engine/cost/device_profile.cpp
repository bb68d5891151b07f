// SPDX-License-Identifier: Apache-2.0
#include "cost/device_profile.h"

#include "util/error.h"
#include "util/input_file.h"
#include "util/json_number.h"
#include "util/json_text.h"
#include "util/message_text.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <span>
#include <system_error>
#include <utility>

namespace ios::resources::embedded {
// Every profile listed in resources/CMakeLists.txt, in menu order (file name, JSON text).
extern const std::span<const std::pair<std::string_view, std::string_view>> kFiles;
} // namespace ios::resources::embedded

namespace ios::cost {

namespace {

constexpr std::string_view kFormat = "ios-explorer-device";
constexpr int kVersion = 1;

std::string lower(std::string_view s) {
    std::string out(s);
    std::transform(out.begin(), out.end(), out.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    return out;
}

class FieldReader {
public:
    FieldReader(const util::Json& doc, const std::string& source) : doc_(doc), source_(source) {}

    std::string text(const char* key, bool required) const {
        auto it = doc_.find(key);
        if (it == doc_.end()) {
            if (required)
                fail(key, "is missing");
            return {};
        }
        if (!it->is_string())
            fail(key, "must be a string");
        return it->get<std::string>();
    }

    // A number in [min, max]; both bounds are generous plausibility limits, not spec checks.
    double number(const char* key, double min, double max) const {
        auto it = doc_.find(key);
        if (it == doc_.end())
            fail(key, "is missing");
        if (!it->is_number())
            fail(key, "must be a number");
        const double v = it->get<double>();
        if (!std::isfinite(v) || v < min || v > max)
            fail(key,
                 "must be between " + trim(min) + " and " + trim(max) + " (got " + trim(v) + ")");
        return v;
    }

    // An optional number: `fallback` when the key is absent.
    double optionalNumber(const char* key, double min, double max, double fallback) const {
        return doc_.contains(key) ? number(key, min, max) : fallback;
    }

    // An optional boolean (false when absent).
    bool flag(const char* key) const {
        auto it = doc_.find(key);
        if (it == doc_.end())
            return false;
        if (!it->is_boolean())
            fail(key, "must be true or false");
        return it->get<bool>();
    }

    // An optional list of strings (empty when absent).
    std::vector<std::string> texts(const char* key) const {
        std::vector<std::string> out;
        auto it = doc_.find(key);
        if (it == doc_.end())
            return out;
        if (!it->is_array())
            fail(key, "must be an array of strings");
        for (const util::Json& v : *it) {
            if (!v.is_string())
                fail(key, "must be an array of strings");
            out.push_back(v.get<std::string>());
        }
        return out;
    }

    int integer(const char* key, int min, int max) const {
        const double v = number(key, min, max);
        if (v != std::floor(v))
            fail(key, "must be an integer");
        return static_cast<int>(v);
    }

    [[noreturn]] void fail(const std::string& key, const std::string& what) const {
        throw UserError("device profile field '" + key + "' " + what, source_);
    }

private:
    static std::string trim(double v) { return util::formatNumber(v); }

    const util::Json& doc_;
    const std::string& source_;
};

// "fp32" or "tf32"; TF32 needs a TF32 peak. `fail` throws with the reason.
template <class Fail>
DeviceProfile::ConvMath parseConvMath(const std::string& text, const DeviceProfile& p,
                                      const Fail& fail) {
    if (text == "fp32")
        return DeviceProfile::ConvMath::Fp32;
    if (text != "tf32")
        fail("must be \"fp32\" or \"tf32\" (got \"" + text + "\")");
    if (p.tf32PeakTflops <= 0)
        fail("is \"tf32\" but the device has no TF32 tensor cores (tf32_peak_tflops)");
    return DeviceProfile::ConvMath::Tf32;
}

const char* convMathName(DeviceProfile::ConvMath m) {
    return m == DeviceProfile::ConvMath::Tf32 ? "tf32" : "fp32";
}

DeviceProfile parseBundled(std::string_view text, std::string_view file) {
    return parseDeviceProfile(text, "<bundled>/resources/devices/" + std::string(file));
}

} // namespace

DeviceProfile parseDeviceProfile(std::string_view jsonText, const std::string& source) {
    const util::JsonDocument parsed = util::parseJsonDocument(jsonText, source);
    const util::Json& doc = parsed.root();
    if (!doc.is_object())
        throw UserError("a device profile must be a JSON object", source);
    // Strict like the model formats: a misspelt field would silently keep its default.
    util::refuseUnknownFields(doc,
                              {"format",
                               "version",
                               "name",
                               "full_name",
                               "architecture",
                               "sm_count",
                               "max_ctas_per_sm",
                               "max_threads_per_sm",
                               "max_registers_per_sm",
                               "max_shared_memory_per_sm_kb",
                               "fp32_peak_tflops",
                               "tensor_peak_tflops",
                               "tf32_peak_tflops",
                               "conv_math",
                               "dram_bandwidth_gbs",
                               "l2_cache_mb",
                               "launch_overhead_us",
                               "launch_latency_us",
                               "sync_overhead_us",
                               "compute_efficiency",
                               "warp_schedulers_per_sm",
                               "ffma_latency_cycles",
                               "sources",
                               "validation",
                               "concat_in_place"},
                              "the device profile", source);
    const FieldReader f(doc, source);
    if (f.text("format", true) != kFormat)
        f.fail("format", "must be \"" + std::string(kFormat) + "\"");
    util::requireFormatVersion(doc, kVersion, "device profile", source);

    DeviceProfile p;
    p.name = f.text("name", true);
    if (p.name.empty() || p.name.size() > 64)
        f.fail("name", "must be 1 to 64 characters");
    p.fullName = f.text("full_name", false);
    if (p.fullName.empty())
        p.fullName = p.name;
    p.architecture = f.text("architecture", false);
    p.smCount = f.integer("sm_count", 1, 10'000);
    p.maxCtasPerSm = f.integer("max_ctas_per_sm", 1, 1024);
    p.maxThreadsPerSm = f.integer("max_threads_per_sm", 32, 65'536);
    p.maxRegistersPerSm = f.integer("max_registers_per_sm", 1024, 16'777'216);
    p.maxSharedMemPerSm =
        static_cast<int64_t>(f.number("max_shared_memory_per_sm_kb", 1, 1'048'576) * 1024);
    p.fp32PeakTflops = f.number("fp32_peak_tflops", 0.01, 1e6);
    p.tensorPeakTflops = f.number("tensor_peak_tflops", 0, 1e7);
    p.tf32PeakTflops = f.optionalNumber("tf32_peak_tflops", 0, 1e7, 0);
    p.convMath =
        p.tf32PeakTflops > 0 ? DeviceProfile::ConvMath::Tf32 : DeviceProfile::ConvMath::Fp32;
    if (doc.contains("conv_math"))
        p.convMath = parseConvMath(f.text("conv_math", true), p,
                                   [&](const std::string& why) { f.fail("conv_math", why); });
    p.dramBandwidthGBs = f.number("dram_bandwidth_gbs", 1, 1e7);
    p.l2Bytes = static_cast<int64_t>(f.number("l2_cache_mb", 0, 1e6) * 1024 * 1024);
    p.launchOverheadUs = f.number("launch_overhead_us", 0, 1e4);
    p.launchLatencyUs = f.number("launch_latency_us", 0, 1e4);
    p.syncOverheadUs = f.number("sync_overhead_us", 0, 1e4);
    p.sm.computeEfficiency =
        f.optionalNumber("compute_efficiency", 0.01, 1, kSmModel.computeEfficiency);
    const DeviceProfile defaults;
    if (doc.contains("warp_schedulers_per_sm"))
        p.warpSchedulersPerSm = f.integer("warp_schedulers_per_sm", 1, 64);
    p.ffmaLatencyCycles =
        f.optionalNumber("ffma_latency_cycles", 1, 64, defaults.ffmaLatencyCycles);
    p.concatInPlace = f.flag("concat_in_place");
    p.sources = f.texts("sources");
    p.validation = f.text("validation", false);
    return p;
}

std::string writeDeviceProfile(const DeviceProfile& p) {
    util::Json doc;
    doc["format"] = kFormat;
    doc["version"] = kVersion;
    doc["name"] = p.name;
    doc["full_name"] = p.fullName;
    doc["architecture"] = p.architecture;
    doc["sm_count"] = p.smCount;
    doc["max_ctas_per_sm"] = p.maxCtasPerSm;
    doc["max_threads_per_sm"] = p.maxThreadsPerSm;
    doc["max_registers_per_sm"] = p.maxRegistersPerSm;
    doc["max_shared_memory_per_sm_kb"] = static_cast<double>(p.maxSharedMemPerSm) / 1024;
    doc["fp32_peak_tflops"] = p.fp32PeakTflops;
    doc["tensor_peak_tflops"] = p.tensorPeakTflops;
    if (p.tf32PeakTflops > 0) {
        doc["tf32_peak_tflops"] = p.tf32PeakTflops;
        doc["conv_math"] = convMathName(p.convMath);
    }
    doc["dram_bandwidth_gbs"] = p.dramBandwidthGBs;
    doc["l2_cache_mb"] = p.l2Megabytes();
    doc["launch_overhead_us"] = p.launchOverheadUs;
    doc["launch_latency_us"] = p.launchLatencyUs;
    doc["sync_overhead_us"] = p.syncOverheadUs;
    // The optional kernel-model field, only where the profile differs from the default.
    if (p.sm.computeEfficiency != kSmModel.computeEfficiency)
        doc["compute_efficiency"] = p.sm.computeEfficiency;
    const DeviceProfile defaults;
    if (p.warpSchedulersPerSm != defaults.warpSchedulersPerSm)
        doc["warp_schedulers_per_sm"] = p.warpSchedulersPerSm;
    if (p.ffmaLatencyCycles != defaults.ffmaLatencyCycles)
        doc["ffma_latency_cycles"] = p.ffmaLatencyCycles;
    if (p.concatInPlace)
        doc["concat_in_place"] = true;
    if (!p.sources.empty())
        doc["sources"] = p.sources;
    if (!p.validation.empty())
        doc["validation"] = p.validation;
    return util::dumpPythonStyle(doc) + "\n";
}

const std::vector<DeviceProfile>& bundledDevices() {
    static const std::vector<DeviceProfile> devices = [] {
        std::vector<DeviceProfile> all;
        for (const auto& [file, text] : resources::embedded::kFiles)
            all.push_back(parseBundled(text, file));
        return all;
    }();
    return devices;
}

std::vector<std::string> bundledDeviceNames() {
    std::vector<std::string> names;
    for (const DeviceProfile& d : bundledDevices())
        names.push_back(d.name);
    return names;
}

const DeviceProfile* findBundledDevice(std::string_view name) {
    const std::string key = lower(name);
    for (const DeviceProfile& d : bundledDevices())
        if (lower(d.name) == key)
            return &d;
    return nullptr;
}

DeviceProfile withConvMath(DeviceProfile profile, DeviceProfile::ConvMath math) {
    profile.convMath = profile.tf32PeakTflops > 0 ? math : DeviceProfile::ConvMath::Fp32;
    return profile;
}

namespace {

DeviceProfile loadDeviceProfile(const std::string& nameOrPath) {
    if (const DeviceProfile* d = findBundledDevice(nameOrPath))
        return *d;
    // Not a bundled name and nothing at that path: say both. Whatever is there (a FIFO, a
    // device, a directory) is checked by the input layer.
    if (!util::inputExists(nameOrPath)) {
        std::string names;
        for (const std::string& n : bundledDeviceNames())
            names += (names.empty() ? "" : ", ") + n;
        throw UserError("unknown device '" + nameOrPath + "': give a bundled device (" + names +
                        ") or a profile JSON file");
    }
    return parseDeviceProfile(util::readInputFile(nameOrPath, util::InputKind::DeviceProfile),
                              nameOrPath);
}

} // namespace

DeviceProfile loadDevice(const std::string& argument) {
    const size_t at = argument.rfind('@');
    const std::string suffix = at == std::string::npos ? "" : argument.substr(at + 1);
    if (suffix != "fp32" && suffix != "tf32")
        return loadDeviceProfile(argument);
    DeviceProfile p = loadDeviceProfile(argument.substr(0, at));
    p.convMath = parseConvMath(suffix, p, [&](const std::string& why) -> void {
        throw UserError("device '" + argument + "': the math " + why);
    });
    p.name += "@" + suffix;
    p.fullName += " (" + suffix + " convolutions)";
    return p;
}

} // namespace ios::cost
