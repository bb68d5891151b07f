// SPDX-License-Identifier: Apache-2.0
// Which GPU setup a measurement was taken on (docs/formats.md "Measurement store"): not only
// the device's name but everything that changes a kernel's time — compute capability, SM
// count, clocks, memory, driver, CUDA and cuDNN versions and the math mode (strict fp32 or
// TF32). Two measurements are of the same setup only when every field is equal; the store
// keys by the identity's canonical text and never mixes setups.
#pragma once

#include "util/json_text.h"

#include <cstdint>
#include <string>

namespace ios::cost {

struct DeviceIdentity {
    std::string name;              // the driver's device name, "NVIDIA H100 80GB HBM3"
    std::string computeCapability; // "9.0"
    int smCount = 0;
    int smClockMHz = 0;     // peak SM clock
    int memoryClockMHz = 0; // peak memory clock
    int64_t memoryBytes = 0;
    std::string driver;          // "580.65.06" (empty where there is no driver: the mock)
    std::string cuda;            // CUDA runtime version, "13.0"
    std::string cudnn;           // "9.10.2"
    std::string mathMode = "fp32"; // "fp32" (strict) or "tf32"
    friend bool operator==(const DeviceIdentity&, const DeviceIdentity&) = default;
};

// Every field, in a fixed order with fixed key names: the text the store keys by (equal
// identities give equal texts and only they).
std::string canonicalText(const DeviceIdentity& identity);
// A short stable id of the identity ("h" + 12 hex digits of stableHash64 of the canonical
// text), for listings and for choosing one device ("store:URL@ID").
std::string identityId(const DeviceIdentity& identity);

util::Json toJson(const DeviceIdentity& identity);
// Throws ios::UserError naming `where` and the field for a missing or mistyped field.
DeviceIdentity identityFromJson(const util::Json& json, const std::string& where);

} // namespace ios::cost
