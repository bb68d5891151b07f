// SPDX-License-Identifier: Apache-2.0
// `ios-sched devices`: the simulated devices, their published figures, where each figure comes
// from and what each profile was checked against (docs/cost-model.md).
#include "args.h"
#include "command.h"
#include "cost/device_profile.h"
#include "util/json_number.h"
#include "util/message_text.h"

#include <algorithm>
#include <iostream>
#include <nlohmann/json.hpp>
#include <sstream>

namespace ios::cli {

namespace {

constexpr std::string_view kUnvalidated = "unvalidated: public specifications only, never "
                                          "checked against a measurement";

std::string validationText(const cost::DeviceProfile& d) {
    return d.validation.empty() ? std::string(kUnvalidated) : "validated: " + d.validation;
}

// The convolution math the simulation models for this profile.
std::string convMath(const cost::DeviceProfile& d) {
    return d.tf32Convolutions() ? "tf32" : "fp32";
}

nlohmann::ordered_json deviceJson(const cost::DeviceProfile& d) {
    return {{"name", d.name},
            {"full_name", d.fullName},
            {"architecture", d.architecture},
            {"sm_count", d.smCount},
            {"warp_schedulers_per_sm", d.warpSchedulersPerSm},
            {"ffma_latency_cycles", d.ffmaLatencyCycles},
            {"fp32_peak_tflops", d.fp32PeakTflops},
            {"tf32_peak_tflops", d.tf32PeakTflops},
            {"conv_math", convMath(d)},
            {"dram_bandwidth_gbs", d.dramBandwidthGBs},
            {"l2_cache_mb", d.l2Megabytes()},
            {"max_warps_per_sm", d.maxWarpsPerSm()},
            {"compute_saturation_warps", d.computeSaturationWarps()},
            {"validated", !d.validation.empty()},
            {"validation", d.validation},
            {"sources", d.sources}};
}

// One line per device: name, figures, whether it was ever checked against measurements.
void printTable(const std::vector<cost::DeviceProfile>& devices) {
    size_t width = 4;
    for (const cost::DeviceProfile& d : devices)
        width = std::max(width, d.name.size());
    for (const cost::DeviceProfile& d : devices) {
        std::ostringstream figures;
        figures << d.smCount << " SMs, " << util::formatNumber(d.fp32PeakTflops)
                << " TFLOP/s fp32, " << util::formatNumber(d.dramBandwidthGBs) << " GB/s, "
                << util::formatNumber(d.l2Megabytes()) << " MB L2, " << convMath(d)
                << " convolutions";
        std::cout << d.name << std::string(width + 2 - d.name.size(), ' ') << d.fullName << " ("
                  << figures.str() << ")" << (d.validation.empty() ? " [unvalidated]" : "") << "\n";
    }
}

void printDetails(const cost::DeviceProfile& d) {
    std::cout << d.name << ": " << d.fullName << "\n  architecture: " << d.architecture << "\n"
              << "  " << d.smCount << " SMs, " << util::formatNumber(d.fp32PeakTflops)
              << " TFLOP/s fp32, " << util::formatNumber(d.dramBandwidthGBs) << " GB/s DRAM\n";
    if (d.tf32PeakTflops > 0)
        std::cout << "  " << util::formatNumber(d.tf32PeakTflops) << " TFLOP/s TF32 (dense); "
                  << "convolutions modelled in " << convMath(d) << " (NAME@fp32 or NAME@tf32 "
                  << "to choose)\n";
    std::cout << "  fp32 pipelines saturate at " << util::formatNumber(d.computeSaturationWarps())
              << " resident warps per SM (of " << d.maxWarpsPerSm() << ")\n  " << validationText(d)
              << "\n";
    if (d.sources.empty())
        std::cout << "  sources: none given\n";
    for (const std::string& s : d.sources)
        std::cout << "  source: " << s << "\n";
}

int runDevices(const std::vector<std::string>& args) {
    ArgParser parser("ios-sched devices [--device D] [--sources] [--json]",
                     "List the simulated devices: their published figures, the sources of "
                     "those figures and what each profile was validated against. Profiles "
                     "never checked against a measurement are marked unvalidated.");
    parser.option("--device", "D", "Show one device: a bundled name or a device profile JSON file");
    parser.flag("--sources", "Show every device's sources and validation, not one line each");
    parser.flag("--json", "Print a JSON array of the devices with their figures, sources and "
                          "validation");
    if (!parser.parse(args))
        return kExitOk;
    std::vector<cost::DeviceProfile> devices;
    if (parser.has("device"))
        devices.push_back(cost::loadDevice(parser.get("device")));
    else
        devices = cost::bundledDevices();
    if (parser.has("json")) {
        nlohmann::ordered_json out = nlohmann::ordered_json::array();
        for (const cost::DeviceProfile& d : devices)
            out.push_back(deviceJson(d));
        std::cout << util::dumpJson(out, 2) << "\n";
        return kExitOk;
    }
    if (parser.has("sources") || parser.has("device")) {
        for (const cost::DeviceProfile& d : devices)
            printDetails(d);
        return kExitOk;
    }
    printTable(devices);
    return kExitOk;
}

} // namespace

IOS_REGISTER_COMMAND(devices, "devices", "List the simulated devices and their sources",
                     runDevices);

} // namespace ios::cli
