// SPDX-License-Identifier: Apache-2.0
#include "store/sqlite_rows.h"

#include "cost/cost_model.h"
#include "cost/stage_signature.h"
#include "util/error.h"

#include <cmath>
#include <stdexcept>

namespace ios::store::sqlite_rows {

const char* const kSchema = R"(
CREATE TABLE meta(key TEXT PRIMARY KEY, value TEXT NOT NULL) WITHOUT ROWID;
CREATE TABLE operators(id INTEGER PRIMARY KEY AUTOINCREMENT, signature BLOB NOT NULL UNIQUE);
CREATE TABLE devices(id INTEGER PRIMARY KEY AUTOINCREMENT, identity TEXT NOT NULL UNIQUE);
CREATE TABLE setups(device INTEGER NOT NULL, batch INTEGER NOT NULL, dtype TEXT NOT NULL,
                    PRIMARY KEY(device, batch, dtype)) WITHOUT ROWID;
CREATE TABLE tools(id INTEGER PRIMARY KEY AUTOINCREMENT, version TEXT NOT NULL UNIQUE);
CREATE TABLE samples(stage BLOB NOT NULL, device INTEGER NOT NULL, batch INTEGER NOT NULL,
                     dtype TEXT NOT NULL, median REAL NOT NULL, spread REAL NOT NULL,
                     count INTEGER NOT NULL, tool INTEGER NOT NULL, measured_at INTEGER NOT NULL,
                     PRIMARY KEY(stage, device, batch, dtype, median, spread, count))
                     WITHOUT ROWID;
)";

// A stage as a compact blob: its kind byte, then per group its size and its operator ids, each
// an unsigned LEB128 varint (ids are small: one to three bytes each). Stages are stored inline
// in the sample key, not in a table of their own: a stages table with its unique index costs
// about 30 bytes per stage and would save only the 4 or so bytes of a blob over an integer id
// per further sample of the stage (docs/formats.md "Measurement store").
namespace {

void appendVarint(std::string& out, uint64_t v) {
    do {
        auto byte = static_cast<unsigned char>(v & 0x7fU);
        v >>= 7;
        if (v)
            byte |= 0x80U;
        out += static_cast<char>(byte);
    } while (v);
}

bool readVarint(std::string_view& in, uint64_t& v) {
    v = 0;
    for (int shift = 0; shift < 64 && !in.empty(); shift += 7) {
        const auto byte = static_cast<unsigned char>(in.front());
        in.remove_prefix(1);
        v |= static_cast<uint64_t>(byte & 0x7fU) << shift;
        if (!(byte & 0x80U))
            return true;
    }
    return false;
}

} // namespace

std::string encodeStage(schedule::StageKind kind, const std::vector<std::vector<int64_t>>& groups) {
    std::string out(1, static_cast<char>(kind));
    for (const std::vector<int64_t>& group : groups) {
        appendVarint(out, group.size());
        for (int64_t id : group)
            appendVarint(out, static_cast<uint64_t>(id));
    }
    return out;
}

// The kind and the operator ids per group of a stage blob.
std::vector<std::vector<int64_t>> decodeStage(std::string_view blob, schedule::StageKind& kind) {
    if (blob.empty())
        throw std::runtime_error("a stage's operator list is corrupt");
    kind = static_cast<schedule::StageKind>(blob.front());
    blob.remove_prefix(1);
    std::vector<std::vector<int64_t>> groups;
    while (!blob.empty()) {
        uint64_t size = 0;
        if (!readVarint(blob, size) || size > blob.size())
            throw std::runtime_error("a stage's operator list is corrupt");
        std::vector<int64_t>& group = groups.emplace_back();
        for (uint64_t i = 0; i < size; ++i) {
            uint64_t id = 0;
            if (!readVarint(blob, id))
                throw std::runtime_error("a stage's operator list is corrupt");
            group.push_back(static_cast<int64_t>(id));
        }
    }
    return groups;
}

// Refuses what no measurement can be: the store only ever holds valid samples.
void checkMeasurement(const Measurement& m, size_t index, const std::string& url) {
    const std::string where =
        "measurement store '" + url + "': measurement " + std::to_string(index) + ": ";
    const Sample& s = m.sample;
    if (!cost::parseSignatureBytes(m.key.signature))
        throw UserError(where + "the stage signature is not well-formed");
    if (m.key.device.name.empty())
        throw UserError(where + "the device has no name");
    if (m.key.batch < 1 || m.key.batch > cost::kMaxBatch)
        throw UserError(where + "batch " + std::to_string(m.key.batch) + " is out of range");
    if (m.key.dtype.empty())
        throw UserError(where + "the data type is empty");
    if (!std::isfinite(s.medianMs) || s.medianMs <= 0 || s.medianMs > cost::kMaxStageLatencyMs)
        throw UserError(where + "the median must be a finite latency greater than 0 ms");
    if (!std::isfinite(s.spreadMs) || s.spreadMs < 0 || s.spreadMs > cost::kMaxStageLatencyMs)
        throw UserError(where + "the spread must be a finite latency of at least 0 ms");
    if (s.count < 1)
        throw UserError(where + "the sample count must be at least 1");
}

} // namespace ios::store::sqlite_rows
