// SPDX-License-Identifier: Apache-2.0
// The measurement store on a PostgreSQL server (docs/store.md "A team server"): the same
// semantics as the SQLite store — one transaction per add, idempotent samples, the median
// rule, the canonical export order — for many hosts writing at once. Opened through
// store::openStore with "postgresql://…" or "postgres://…" (libpq connection URIs; registered
// from postgres_store.cpp, built where libpqxx is found: IOS_WITH_POSTGRESQL).
//
// Schema (version kPostgresSchemaVersion, in ios_meta): the SQLite schema's tables with an
// "ios_" prefix (a team database may hold other tables): ios_operators, ios_devices,
// ios_setups, ios_tools and ios_samples, whose primary key (stage, device, batch, dtype,
// median, spread, count) makes adding a sample twice change nothing. A stage is the same
// compact blob of kind and operator ids as in SQLite (sqlite_rows.h).
#pragma once

#include "store/measurement_store.h"

#include <memory>
#include <string>

namespace ios::store {

inline constexpr int kPostgresSchemaVersion = 1;

// The URL as messages show it: a password in it replaced by "***".
std::string redactedUrl(const std::string& url);

// Opens (or, with CreateIfMissing, creates the tables of) the store. Throws ios::UserError
// naming the URL for a server that cannot be reached, a database without the store's tables
// (ReadOnly, ReadWrite), tables of another kind or a newer schema. The handle is thread-safe
// (one connection behind a mutex); concurrent writers in other processes are safe (unique
// keys, ON CONFLICT DO NOTHING, inserts in one canonical order, retried on deadlock).
std::unique_ptr<MeasurementStore> openPostgresStore(const std::string& url, OpenMode mode);

} // namespace ios::store
