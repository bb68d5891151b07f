// SPDX-License-Identifier: Apache-2.0
// The PostgreSQL store's SQL (postgres_store.cpp): its schema, its queries and the literals
// of its multi-row inserts.
#pragma once

#include "store/measurement_store.h"

#include <cstdint>
#include <string>
#include <tuple>
#include <vector>

namespace pqxx {
class transaction_base;
}

namespace ios::store::postgres_sql {

// What ios_meta.format holds (the SQLite store's format name: one kind of store).
extern const char* const kFormat;
// The advisory lock the creator of the tables holds.
inline constexpr int64_t kSchemaLock = 0x10517e5705e;

// CREATE TABLE IF NOT EXISTS for every table, in one string.
extern const char* const kSchema;
// Bytes of every table and index of the store.
extern const char* const kTotalBytes;
// Identity text, batch, dtype, entries per setup, in canonical (byte) order.
extern const char* const kSetupCounts;
// Identity text, batch, dtype of every setup, in canonical order.
extern const char* const kSetups;
// Every sample in the canonical order of MeasurementStore::forEach, joined with the
// temporary ios_signature_order(stage, bytes).
extern const char* const kAllSamples;
// Deletes the setups, devices and tools no sample refers to.
extern const char* const kDeleteUnusedRows;

// A sample row to insert; ordered canonically so concurrent writers insert in one order.
struct SampleRow {
    std::string stage; // the stage blob (sqlite_rows::encodeStage)
    int64_t device = 0;
    int batch = 1;
    std::string dtype;
    Sample sample;
    int64_t tool = 0;
    friend bool operator<(const SampleRow& a, const SampleRow& b) {
        return std::tie(a.stage, a.device, a.batch, a.dtype, a.sample.medianMs,
                        a.sample.spreadMs, a.sample.count) <
               std::tie(b.stage, b.device, b.batch, b.dtype, b.sample.medianMs,
                        b.sample.spreadMs, b.sample.count);
    }
};

// '\x…'::bytea
std::string byteaLiteral(const std::string& bytes);

// INSERT … VALUES (rows[begin, end)) ON CONFLICT DO NOTHING.
std::string insertSamples(pqxx::transaction_base& tx, const std::vector<SampleRow>& rows,
                          size_t begin, size_t end);

} // namespace ios::store::postgres_sql
