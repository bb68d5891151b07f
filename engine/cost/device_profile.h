// SPDX-License-Identifier: Apache-2.0
// A GPU described by the public figures the simulated cost model needs (docs/cost-model.md
// cites the source of each bundled value). Bundled profiles are embedded into the binaries;
// users can load their own JSON profile with the same fields.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

namespace ios::cost {

// Calibration constants of the kernel model (kernel_model.h; docs/cost-model.md explains each
// choice). The defaults are the V100 calibration against the IOS paper and apply to every
// profile; a profile may override the field named in quotes (an optional JSON field).
struct SmModel {
    // Latency hiding (IOS §6.3): the fp32 pipelines saturate when every warp scheduler has
    // this many ready warps per cycle of the dependent FFMA latency resident
    // (DeviceProfile::computeSaturationWarps; the V100: 1 × 4 schedulers × 4 cycles = 16 of its
    // 64 warps). The memory system saturates at a fraction of the SM's maximum warps.
    double warpsPerSchedulerCycle = 1.0;
    double memorySaturationOccupancy = 0.5;
    double bandwidthEfficiency = 0.8; // achievable fraction of the DRAM peak
    double ctaLatencyUs = 1.5;        // fixed per-CTA time: prologue, first loads, epilogue
    double kernelGapUs = 1.0;         // GPU-side gap between dependent kernels of one stream
    // "compute_efficiency": scales every kernel's fraction of the fp32 peak (how well the
    // library's fp32 kernels use this architecture's peak; 1 = as calibrated on the V100).
    double computeEfficiency = 1.0;
};

inline constexpr SmModel kSmModel{};

struct DeviceProfile {
    std::string name;         // short key: "V100"
    std::string fullName;     // "NVIDIA Tesla V100 SXM2 16 GB"
    std::string architecture; // free text
    int smCount = 0;
    int maxCtasPerSm = 0;
    int maxThreadsPerSm = 0;
    int maxRegistersPerSm = 0;     // 32-bit registers
    int64_t maxSharedMemPerSm = 0; // bytes
    double fp32PeakTflops = 0;
    double tensorPeakTflops = 0; // 0 = no tensor cores (informational)
    // Dense TF32 tensor-core peak (Ampere and later; 0 = no TF32) and the math the modelled
    // library uses for fp32 convolutions: TF32 tensor-core kernels among its candidates
    // (cuDNN's default math on such GPUs, and PyTorch's and TensorFlow's defaults) or strict
    // FFMA ("conv_math": "fp32"; IOS's runtime, this project's executor without --tf32).
    double tf32PeakTflops = 0;
    enum class ConvMath { Fp32, Tf32 };
    ConvMath convMath = ConvMath::Fp32;
    double dramBandwidthGBs = 0;
    int64_t l2Bytes = 0;
    double launchOverheadUs = 0; // host time to issue one kernel (library call + launch)
    double launchLatencyUs = 0;  // issue → start of the kernel on an idle GPU
    double syncOverheadUs = 0;   // one device/stream synchronisation (host wake-up included)
    // Optional architecture facts (defaults: Volta's): warp schedulers per SM and the latency in
    // cycles of a dependent FFMA (microbenchmark studies; docs/cost-model.md).
    int warpSchedulersPerSm = 4;
    double ffmaLatencyCycles = 4;
    // The executor the timing fields describe writes every producer of a concatenation into
    // the concatenated tensor (this project's CUDA executor), instead of the IOS runtime's
    // copy per concatenated input.
    bool concatInPlace = false;
    std::vector<std::string> sources; // where the figures come from (shown by `devices`)
    std::string validation;           // what it was checked against; empty = unvalidated
    SmModel sm; // kernel-model constants (defaults unless the profile sets them)

    int maxWarpsPerSm() const { return maxThreadsPerSm / 32; }
    // Resident warps per SM at which its fp32 pipelines saturate: a pipeline stays busy when
    // each scheduler finds a ready warp every cycle of the dependent-issue latency. Turing's
    // half-size SMs (32 warps) need as many as the V100's; Kepler (9 cycles) needs 36.
    double computeSaturationWarps() const {
        return sm.warpsPerSchedulerCycle * warpSchedulersPerSm * ffmaLatencyCycles;
    }
    // FP32 flop/s of one SM at full issue rate.
    double smPeakFlops() const { return fp32PeakTflops * 1e12 / smCount; }
    // Convolutions may use TF32 tensor-core kernels.
    bool tf32Convolutions() const { return convMath == ConvMath::Tf32 && tf32PeakTflops > 0; }
    double dramBytesPerSecond() const { return dramBandwidthGBs * 1e9; }
    double l2Megabytes() const { return static_cast<double>(l2Bytes) / (1024.0 * 1024.0); }
};

// Parses a profile ("format": "ios-explorer-device", "version": 1). Throws ios::UserError
// naming `source` and the offending field for malformed JSON, missing or non-numeric fields
// and values outside plausible ranges.
DeviceProfile parseDeviceProfile(std::string_view jsonText, const std::string& source);

// Serialises a profile in the bundled layout (round-trips through parseDeviceProfile).
std::string writeDeviceProfile(const DeviceProfile& profile);

// The bundled profiles, in menu order (V100 first: the default device).
const std::vector<DeviceProfile>& bundledDevices();
std::vector<std::string> bundledDeviceNames();

// A bundled device by name, case-insensitive ("v100", "H100"); nullptr when unknown.
const DeviceProfile* findBundledDevice(std::string_view name);

// A CLI/GUI device argument: a bundled name, else a path to a profile JSON file; either may end
// in "@fp32" or "@tf32" to choose the convolution math ("A100@fp32": strict fp32 on an A100;
// the suffix joins the profile's name). Throws ios::UserError listing the bundled names when it
// is neither, and for a math the device does not have.
DeviceProfile loadDevice(const std::string& nameOrPath);

// The profile with its convolutions in `math` where the device has it (TF32 on a device without
// TF32 tensor cores stays fp32, as cuDNN's default math does there).
DeviceProfile withConvMath(DeviceProfile profile, DeviceProfile::ConvMath math);

inline constexpr std::string_view kDefaultDeviceName = "V100";

} // namespace ios::cost
