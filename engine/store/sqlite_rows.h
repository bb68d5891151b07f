// SPDX-License-Identifier: Apache-2.0
// The SQLite store's rows (sqlite_store.cpp): its schema, the compact stage blob and the
// checks every measurement passes before it is added.
#pragma once

#include "schedule/schedule.h"
#include "store/measurement_store.h"

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace ios::store::sqlite_rows {

// The tables of schema version 1 (docs/formats.md "Measurement store").
extern const char* const kSchema;

// A stage as stored: its kind byte, then per group its size and its operator ids (LEB128).
std::string encodeStage(schedule::StageKind kind, const std::vector<std::vector<int64_t>>& groups);
// The inverse; throws std::runtime_error for a corrupt blob.
std::vector<std::vector<int64_t>> decodeStage(std::string_view blob, schedule::StageKind& kind);

// Throws ios::UserError naming the store and the measurement's index for what no measurement
// can be: a malformed signature, a nameless device, batch out of range, an empty data type, a
// latency that is not finite and positive, a negative spread, a count below 1.
void checkMeasurement(const Measurement& m, size_t index, const std::string& url);

} // namespace ios::store::sqlite_rows
