// SPDX-License-Identifier: Apache-2.0
// The measurement store's default backend (docs/formats.md "Measurement store"): one SQLite
// file in WAL mode, safe for any number of reading and writing processes on one host. Opened
// through store::openStore with "sqlite:PATH" or a bare PATH (registered from
// sqlite_store.cpp).
//
// Schema (version kSqliteSchemaVersion, in table meta): operator signatures once each
// (operators), device setups by canonical identity text (devices), tool versions (tools), and
// the samples, keyed WITHOUT ROWID by (stage, device, batch, dtype, median, spread, count) so
// adding a sample twice changes nothing; a stage is a compact blob of its kind and operator
// ids (inline: no stages table, see sqlite_store.cpp). Ids are AUTOINCREMENT, never reused.
#pragma once

#include "store/measurement_store.h"

#include <memory>
#include <string>

namespace ios::store {

inline constexpr int kSqliteSchemaVersion = 1;
// What meta.format holds: a SQLite file without it is not a measurement store.
inline constexpr const char* kSqliteStoreFormat = "ios-explorer-measurement-store";

// The file a "sqlite:PATH" or bare PATH URL names.
std::string sqlitePath(const std::string& url);

// Opens (or, with CreateIfMissing, creates) the store. Throws ios::UserError naming the URL
// for a missing file (ReadOnly, ReadWrite), a path that cannot be opened or created, a file
// that is not SQLite, a SQLite file that is not a measurement store, or a newer schema.
// The handle is thread-safe (one mutex; SQLite's own locks between processes).
std::unique_ptr<MeasurementStore> openSqliteStore(const std::string& url, OpenMode mode);

} // namespace ios::store
