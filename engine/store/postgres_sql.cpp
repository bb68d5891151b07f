// SPDX-License-Identifier: Apache-2.0
#include "store/postgres_sql.h"

#include <pqxx/pqxx>

#include <cstdio>

namespace ios::store::postgres_sql {

const char* const kFormat = "ios-explorer-measurement-store";

const char* const kSchema = R"(
CREATE TABLE IF NOT EXISTS ios_meta(key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS ios_operators(id BIGSERIAL PRIMARY KEY, signature BYTEA NOT NULL UNIQUE);
CREATE TABLE IF NOT EXISTS ios_devices(id BIGSERIAL PRIMARY KEY, identity TEXT NOT NULL UNIQUE);
CREATE TABLE IF NOT EXISTS ios_setups(device BIGINT NOT NULL, batch INTEGER NOT NULL,
                                      dtype TEXT NOT NULL, PRIMARY KEY(device, batch, dtype));
CREATE TABLE IF NOT EXISTS ios_tools(id BIGSERIAL PRIMARY KEY, version TEXT NOT NULL UNIQUE);
CREATE TABLE IF NOT EXISTS ios_samples(stage BYTEA NOT NULL, device BIGINT NOT NULL,
                                       batch INTEGER NOT NULL, dtype TEXT NOT NULL,
                                       median DOUBLE PRECISION NOT NULL,
                                       spread DOUBLE PRECISION NOT NULL, count INTEGER NOT NULL,
                                       tool BIGINT NOT NULL, measured_at BIGINT NOT NULL,
                                       PRIMARY KEY(stage, device, batch, dtype, median, spread,
                                                   count));
)";

const char* const kTotalBytes =
    "SELECT COALESCE(SUM(pg_total_relation_size(c.oid)), 0)::BIGINT FROM pg_class c WHERE "
    "c.relname IN ('ios_meta', 'ios_operators', 'ios_devices', 'ios_setups', 'ios_tools', "
    "'ios_samples') AND c.relkind = 'r' AND pg_table_is_visible(c.oid)";

const char* const kSetupCounts =
    "SELECT d.identity, s.batch, s.dtype, COUNT(*) FROM (SELECT DISTINCT stage, device, batch, "
    "dtype FROM ios_samples) s JOIN ios_devices d ON d.id = s.device GROUP BY d.identity, "
    "s.batch, s.dtype ORDER BY d.identity COLLATE \"C\", s.batch, s.dtype COLLATE \"C\"";

const char* const kSetups =
    "SELECT d.identity, s.batch, s.dtype FROM ios_setups s JOIN ios_devices d ON d.id = "
    "s.device ORDER BY d.identity COLLATE \"C\", s.batch, s.dtype COLLATE \"C\"";

const char* const kAllSamples =
    "SELECT d.identity, s.batch, s.dtype, o.bytes, s.median, s.spread, s.count, t.version, "
    "s.measured_at FROM ios_samples s JOIN ios_devices d ON d.id = s.device JOIN ios_tools t ON "
    "t.id = s.tool JOIN ios_signature_order o ON o.stage = s.stage ORDER BY d.identity COLLATE "
    "\"C\", s.batch, s.dtype COLLATE \"C\", o.bytes, s.median, s.spread, s.count";

const char* const kDeleteUnusedRows =
    "DELETE FROM ios_setups WHERE NOT EXISTS (SELECT 1 FROM ios_samples s WHERE s.device = "
    "ios_setups.device AND s.batch = ios_setups.batch AND s.dtype = ios_setups.dtype); "
    "DELETE FROM ios_devices WHERE NOT EXISTS (SELECT 1 FROM ios_samples s WHERE s.device = "
    "ios_devices.id); "
    "DELETE FROM ios_tools WHERE NOT EXISTS (SELECT 1 FROM ios_samples s WHERE s.tool = "
    "ios_tools.id)";

std::string byteaLiteral(const std::string& bytes) {
    static const char* const hex = "0123456789abcdef";
    std::string out = "'\\x";
    out.reserve(bytes.size() * 2 + 12);
    for (char c : bytes) {
        const auto b = static_cast<unsigned char>(c);
        out += hex[b >> 4];
        out += hex[b & 0xfU];
    }
    out += "'::bytea";
    return out;
}

namespace {

// Every digit a double needs to read back as itself.
std::string exactDouble(double v) {
    char text[32];
    std::snprintf(text, sizeof text, "%.17g", v);
    return text;
}

} // namespace

std::string insertSamples(pqxx::transaction_base& tx, const std::vector<SampleRow>& rows,
                          size_t begin, size_t end) {
    std::string sql = "INSERT INTO ios_samples(stage, device, batch, dtype, median, spread, count, "
                      "tool, measured_at) VALUES ";
    for (size_t i = begin; i < end; ++i) {
        const SampleRow& r = rows[i];
        sql += (i == begin ? "(" : ", (") + byteaLiteral(r.stage) + ", " +
               std::to_string(r.device) + ", " + std::to_string(r.batch) + ", " +
               tx.quote(r.dtype) + ", " + exactDouble(r.sample.medianMs) + ", " +
               exactDouble(r.sample.spreadMs) + ", " + std::to_string(r.sample.count) + ", " +
               std::to_string(r.tool) + ", " + std::to_string(r.sample.measuredAt) + ")";
    }
    sql += " ON CONFLICT DO NOTHING";
    return sql;
}

} // namespace ios::store::postgres_sql
