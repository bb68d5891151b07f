// SPDX-License-Identifier: Apache-2.0
#include "store/postgres_store.h"

#include "cost/stage_signature.h"
#include "store/postgres_sql.h"
#include "store/sqlite_rows.h"
#include "util/error.h"
#include "util/json_text.h"

#include <algorithm>
#include <map>
#include <mutex>
#include <pqxx/pqxx>
#include <set>
#include <tuple>
#include <unordered_map>

namespace ios::store {

namespace {

using sqlite_rows::checkMeasurement;
using sqlite_rows::decodeStage;
using sqlite_rows::encodeStage;

// Rows per multi-row INSERT or IN (...) list: few round trips, statements of a few hundred
// kilobytes at most.
constexpr size_t kChunk = 500;
// An add() that loses a deadlock or serialization race to a concurrent writer is retried
// from the start (nothing of it was committed).
constexpr int kAddAttempts = 8;

class PostgresStore final : public MeasurementStore {
public:
    PostgresStore(std::string url, OpenMode mode)
        : url_(std::move(url)), shown_(redactedUrl(url_)), readOnly_(mode == OpenMode::ReadOnly) {
        guard("cannot connect", [&] { connect(mode); });
    }

    int64_t add(const std::vector<Measurement>& measurements) override {
        const std::lock_guard lock(mutex_);
        refuseReadOnly("add measurements to");
        for (size_t i = 0; i < measurements.size(); ++i)
            checkMeasurement(measurements[i], i, shown_);
        for (int attempt = 1;; ++attempt) {
            try {
                return guard("cannot add measurements", [&] { return addOnce(measurements); });
            } catch (const pqxx::transaction_rollback&) {
                if (attempt == kAddAttempts)
                    throw UserError(where() +
                                    "cannot add measurements: " + std::to_string(kAddAttempts) +
                                    " attempts lost to concurrent writers");
            }
        }
    }

    std::optional<double> latencyMs(const Setup& setup, std::string_view signature) override {
        const std::lock_guard lock(mutex_);
        return guard("cannot read", [&]() -> std::optional<double> {
            pqxx::nontransaction tx(*conn_);
            const std::optional<std::string> stage = findStage(tx, signature);
            const std::optional<int64_t> device = deviceId(tx, setup.device);
            if (!stage || !device)
                return std::nullopt;
            const pqxx::result r =
                tx.exec_prepared("ios_medians", bytes(*stage), *device, setup.batch, setup.dtype);
            if (r.empty())
                return std::nullopt;
            return r[static_cast<pqxx::result::size_type>((r.size() - 1) / 2)][0].as<double>();
        });
    }

    std::vector<bool> has(const Setup& setup, const std::vector<std::string>& signatures) override {
        const std::lock_guard lock(mutex_);
        return guard("cannot read", [&] {
            std::vector<bool> out(signatures.size(), false);
            pqxx::work tx(*conn_); // one snapshot for the whole batch
            const std::optional<int64_t> device = deviceId(tx, setup.device);
            if (!device)
                return out;
            const std::vector<std::optional<std::string>> stages = findStages(tx, signatures);
            std::set<std::string> wanted;
            for (const std::optional<std::string>& stage : stages)
                if (stage)
                    wanted.insert(*stage);
            const std::set<std::string> present = measuredStages(tx, *device, setup, wanted);
            for (size_t i = 0; i < signatures.size(); ++i)
                out[i] = stages[i] && present.count(*stages[i]) > 0;
            tx.commit();
            return out;
        });
    }

    StoreInfo info() override {
        const std::lock_guard lock(mutex_);
        return guard("cannot read", [&] {
            pqxx::work tx(*conn_);
            StoreInfo info;
            info.url = shown_;
            info.backend = "postgresql";
            info.samples = count(tx, "SELECT COUNT(*) FROM ios_samples");
            info.entries = count(tx, "SELECT COUNT(*) FROM (SELECT DISTINCT stage, device, batch, "
                                     "dtype FROM ios_samples) e");
            info.stages =
                count(tx, "SELECT COUNT(*) FROM (SELECT DISTINCT stage FROM ios_samples) s");
            info.operators = count(tx, "SELECT COUNT(*) FROM ios_operators");
            info.bytes = count(tx, postgres_sql::kTotalBytes);
            for (const pqxx::row& row : tx.exec(postgres_sql::kSetupCounts)) {
                StoreInfo::DeviceCount& c = info.setups.emplace_back();
                c.device = identityOf(row[0].as<std::string>());
                c.batch = row[1].as<int>();
                c.dtype = row[2].as<std::string>();
                c.entries = row[3].as<int64_t>();
            }
            tx.commit();
            return info;
        });
    }

    std::vector<Setup> setups() override {
        const std::lock_guard lock(mutex_);
        return guard("cannot read", [&] {
            pqxx::nontransaction tx(*conn_);
            std::vector<Setup> out;
            for (const pqxx::row& row : tx.exec(postgres_sql::kSetups))
                out.push_back(Setup{identityOf(row[0].as<std::string>()), row[1].as<int>(),
                                    row[2].as<std::string>()});
            return out;
        });
    }

    void forEach(const std::function<void(const Measurement&)>& visit) override {
        const std::lock_guard lock(mutex_);
        guard("cannot read", [&] {
            pqxx::work tx(*conn_);
            tx.exec("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ");
            tx.exec("CREATE TEMP TABLE ios_signature_order(stage BYTEA PRIMARY KEY, bytes BYTEA "
                    "NOT NULL) ON COMMIT DROP");
            fillSignatureOrder(tx);
            tx.exec(std::string("DECLARE ios_all NO SCROLL CURSOR FOR ") +
                    postgres_sql::kAllSamples);
            std::map<std::string, cost::DeviceIdentity> devices;
            Measurement m;
            for (;;) {
                const pqxx::result r = tx.exec("FETCH 10000 FROM ios_all");
                if (r.empty())
                    break;
                for (const pqxx::row& row : r) {
                    const std::string identity = row[0].as<std::string>();
                    auto dev = devices.find(identity);
                    if (dev == devices.end())
                        dev = devices.emplace(identity, identityOf(identity)).first;
                    m.key.device = dev->second;
                    m.key.batch = row[1].as<int>();
                    m.key.dtype = row[2].as<std::string>();
                    m.key.signature = pqxx::binarystring(row[3]).str();
                    m.sample.medianMs = row[4].as<double>();
                    m.sample.spreadMs = row[5].as<double>();
                    m.sample.count = row[6].as<int>();
                    m.sample.toolVersion = row[7].as<std::string>();
                    m.sample.measuredAt = row[8].as<int64_t>();
                    visit(m);
                }
            }
            tx.commit();
        });
    }

    int64_t prune(std::optional<int64_t> before, const std::optional<Setup>& setup) override {
        const std::lock_guard lock(mutex_);
        refuseReadOnly("prune");
        return guard("cannot prune", [&]() -> int64_t {
            pqxx::work tx(*conn_);
            std::optional<int64_t> device;
            if (setup && !(device = deviceId(tx, setup->device)))
                return 0;
            std::string sql = "DELETE FROM ios_samples WHERE TRUE";
            if (before)
                sql += " AND measured_at < " + std::to_string(*before);
            if (setup)
                sql += " AND device = " + std::to_string(*device) +
                       " AND batch = " + std::to_string(setup->batch) +
                       " AND dtype = " + tx.quote(setup->dtype);
            const int64_t removed = tx.exec(sql).affected_rows();
            collectGarbage(tx);
            tx.commit();
            knownOperators_.clear();
            knownDevices_.clear();
            return removed;
        });
    }

private:
    std::string where() const { return "measurement store '" + shown_ + "': "; }

    // Runs `f`, turning the server's and the connection's errors into a UserError naming the
    // store (deadlocks and serialization failures pass through: add() retries them).
    template <class F> auto guard(const char* what, F&& f) -> decltype(f()) {
        try {
            return f();
        } catch (const UserError&) {
            throw;
        } catch (const pqxx::transaction_rollback&) {
            throw;
        } catch (const std::exception& e) {
            std::string message = e.what();
            if (const size_t nl = message.find('\n'); nl != std::string::npos)
                message.resize(nl);
            throw UserError(where() + what + ": " + message);
        }
    }

    void refuseReadOnly(const std::string& what) const {
        if (readOnly_)
            throw UserError(where() + "opened read-only, cannot " + what + " it");
    }

    void connect(OpenMode mode) {
        conn_ = std::make_unique<pqxx::connection>(url_);
        {
            pqxx::nontransaction tx(*conn_);
            tx.exec("SET client_min_messages = warning");
        }
        createOrCheckSchema(mode);
        conn_->prepare("ios_operator", "SELECT id FROM ios_operators WHERE signature = $1");
        conn_->prepare("ios_device", "SELECT id FROM ios_devices WHERE identity = $1");
        conn_->prepare("ios_medians", "SELECT median FROM ios_samples WHERE stage = $1 AND "
                                      "device = $2 AND batch = $3 AND dtype = $4 ORDER BY median");
    }

    void createOrCheckSchema(OpenMode mode) {
        pqxx::work tx(*conn_);
        if (!tx.exec1("SELECT to_regclass('ios_meta') IS NOT NULL")[0].as<bool>()) {
            if (mode != OpenMode::CreateIfMissing)
                throw UserError(where() + "the database holds no measurement store (no ios_meta "
                                          "table)");
            // One creator at a time; the others wait here and find the tables made.
            tx.exec("SELECT pg_advisory_xact_lock(" + std::to_string(postgres_sql::kSchemaLock) +
                    ")");
            tx.exec(postgres_sql::kSchema);
            tx.exec("INSERT INTO ios_meta(key, value) VALUES('format', " +
                    tx.quote(std::string(postgres_sql::kFormat)) + ") ON CONFLICT DO NOTHING");
            tx.exec("INSERT INTO ios_meta(key, value) VALUES('schema_version', '" +
                    std::to_string(kPostgresSchemaVersion) + "') ON CONFLICT DO NOTHING");
        }
        checkSchema(tx);
        tx.commit();
    }

    void checkSchema(pqxx::work& tx) {
        std::map<std::string, std::string> meta;
        try {
            pqxx::subtransaction sub(tx, "meta");
            for (const pqxx::row& row : sub.exec("SELECT key, value FROM ios_meta"))
                meta[row[0].as<std::string>()] = row[1].as<std::string>();
            sub.commit();
        } catch (const pqxx::sql_error&) {
            throw UserError(where() + "its ios_meta table is of another kind, not a measurement "
                                      "store's");
        }
        if (meta["format"] != postgres_sql::kFormat)
            throw UserError(where() + "ios_meta.format is not '" + postgres_sql::kFormat +
                            "': not a measurement store");
        int schema = 0;
        try {
            schema = std::stoi(meta["schema_version"]);
        } catch (const std::exception&) {
            schema = 0;
        }
        if (schema < 1)
            throw UserError(where() + "no valid schema version in ios_meta");
        if (schema > kPostgresSchemaVersion)
            throw UserError(where() + "schema version " + std::to_string(schema) +
                            ", newer than this build reads (" +
                            std::to_string(kPostgresSchemaVersion) + "); use a newer ios-sched");
    }

    int64_t addOnce(const std::vector<Measurement>& measurements);
    std::map<std::string, int64_t> intern(pqxx::work& tx, const char* table, const char* column,
                                          const std::set<std::string>& values, bool binary);
    std::optional<std::string> findStage(pqxx::transaction_base& tx, std::string_view signature);
    std::vector<std::optional<std::string>> findStages(pqxx::transaction_base& tx,
                                                       const std::vector<std::string>& signatures);
    void learnOperators(pqxx::transaction_base& tx, const std::set<std::string>& operators);
    std::set<std::string> measuredStages(pqxx::transaction_base& tx, int64_t device,
                                         const Setup& setup, const std::set<std::string>& stages);
    std::optional<int64_t> deviceId(pqxx::transaction_base& tx, const cost::DeviceIdentity& d);
    void fillSignatureOrder(pqxx::work& tx);
    void collectGarbage(pqxx::work& tx);

    static pqxx::binarystring bytes(const std::string& s) {
        return pqxx::binarystring(s.data(), s.size());
    }
    static int64_t count(pqxx::transaction_base& tx, const char* sql) {
        return tx.exec1(sql)[0].as<int64_t>();
    }
    cost::DeviceIdentity identityOf(const std::string& text) const {
        const util::JsonDocument doc = util::parseJsonDocument(text, shown_);
        return cost::identityFromJson(doc.root(), "measurement store '" + shown_ + "'");
    }

    std::string url_;
    std::string shown_;
    bool readOnly_;
    std::mutex mutex_;
    std::unique_ptr<pqxx::connection> conn_;
    // Committed ids (never reused: BIGSERIAL), remembered between lookups; a prune forgets.
    std::unordered_map<std::string, int64_t> knownOperators_;
    std::map<std::string, int64_t> knownDevices_;
};

int64_t PostgresStore::addOnce(const std::vector<Measurement>& measurements) {
    pqxx::work tx(*conn_);
    // Every insert in one canonical order (sorted values, sorted rows), so two writers that
    // meet the same new rows wait for each other instead of deadlocking.
    std::set<std::string> identities, tools, operators;
    for (const Measurement& m : measurements) {
        identities.insert(cost::canonicalText(m.key.device));
        tools.insert(m.sample.toolVersion);
        const cost::StageSignature s = *cost::parseSignatureBytes(m.key.signature);
        for (const std::vector<std::string>& group : s.groups)
            operators.insert(group.begin(), group.end());
    }
    const auto devices = intern(tx, "ios_devices", "identity", identities, false);
    const auto toolIds = intern(tx, "ios_tools", "version", tools, false);
    const auto operatorIds = intern(tx, "ios_operators", "signature", operators, true);

    std::vector<postgres_sql::SampleRow> rows;
    rows.reserve(measurements.size());
    std::set<std::tuple<int64_t, int, std::string>> setups;
    for (const Measurement& m : measurements) {
        const cost::StageSignature s = *cost::parseSignatureBytes(m.key.signature);
        std::vector<std::vector<int64_t>> groups;
        for (const std::vector<std::string>& group : s.groups) {
            std::vector<int64_t>& ids = groups.emplace_back();
            for (const std::string& op : group)
                ids.push_back(operatorIds.at(op));
        }
        const int64_t device = devices.at(cost::canonicalText(m.key.device));
        rows.push_back({encodeStage(s.kind, groups), device, m.key.batch, m.key.dtype, m.sample,
                        toolIds.at(m.sample.toolVersion)});
        setups.emplace(device, m.key.batch, m.key.dtype);
    }
    std::sort(rows.begin(), rows.end());
    int64_t added = 0;
    for (size_t begin = 0; begin < rows.size(); begin += kChunk) {
        const size_t end = std::min(rows.size(), begin + kChunk);
        added += tx.exec(postgres_sql::insertSamples(tx, rows, begin, end)).affected_rows();
    }
    for (const auto& [device, batch, dtype] : setups)
        tx.exec("INSERT INTO ios_setups(device, batch, dtype) VALUES(" + std::to_string(device) +
                ", " + std::to_string(batch) + ", " + tx.quote(dtype) + ") ON CONFLICT DO NOTHING");
    tx.commit();
    return added;
}

std::map<std::string, int64_t> PostgresStore::intern(pqxx::work& tx, const char* table,
                                                     const char* column,
                                                     const std::set<std::string>& values,
                                                     bool binary) {
    const std::vector<std::string> all(values.begin(), values.end());
    std::map<std::string, int64_t> ids;
    auto literal = [&](const std::string& v) {
        return binary ? postgres_sql::byteaLiteral(v) : tx.quote(v);
    };
    for (size_t begin = 0; begin < all.size(); begin += kChunk) {
        const size_t end = std::min(all.size(), begin + kChunk);
        std::string list;
        for (size_t i = begin; i < end; ++i)
            list += (i == begin ? "(" : ", (") + literal(all[i]) + ")";
        tx.exec(std::string("INSERT INTO ") + table + "(" + column + ") VALUES " + list +
                " ON CONFLICT DO NOTHING");
        std::string in;
        for (size_t i = begin; i < end; ++i)
            in += (i == begin ? "" : ", ") + literal(all[i]);
        for (const pqxx::row& row : tx.exec(std::string("SELECT ") + column + ", id FROM " + table +
                                            " WHERE " + column + " IN (" + in + ")"))
            ids[binary ? pqxx::binarystring(row[0]).str() : row[0].as<std::string>()] =
                row[1].as<int64_t>();
    }
    return ids;
}

std::optional<std::string> PostgresStore::findStage(pqxx::transaction_base& tx,
                                                    std::string_view signature) {
    return findStages(tx, {std::string(signature)})[0];
}

// The stage blobs of `signatures` (nullopt for one with an operator the store has never
// seen), with the unknown operators looked up in a few IN (...) queries, not one per operator.
std::vector<std::optional<std::string>>
PostgresStore::findStages(pqxx::transaction_base& tx, const std::vector<std::string>& signatures) {
    std::vector<std::optional<cost::StageSignature>> parsed;
    parsed.reserve(signatures.size());
    std::set<std::string> unknown;
    for (const std::string& signature : signatures) {
        parsed.push_back(cost::parseSignatureBytes(signature));
        if (parsed.back())
            for (const std::vector<std::string>& group : parsed.back()->groups)
                for (const std::string& op : group)
                    if (!knownOperators_.count(op))
                        unknown.insert(op);
    }
    learnOperators(tx, unknown);
    std::vector<std::optional<std::string>> out(signatures.size());
    for (size_t i = 0; i < parsed.size(); ++i) {
        if (!parsed[i])
            continue;
        std::vector<std::vector<int64_t>> groups;
        bool known = true;
        for (const std::vector<std::string>& group : parsed[i]->groups) {
            std::vector<int64_t>& ids = groups.emplace_back();
            for (const std::string& op : group) {
                const auto it = knownOperators_.find(op);
                known = known && it != knownOperators_.end();
                ids.push_back(known ? it->second : 0);
            }
        }
        if (known)
            out[i] = encodeStage(parsed[i]->kind, groups);
    }
    return out;
}

void PostgresStore::learnOperators(pqxx::transaction_base& tx,
                                   const std::set<std::string>& operators) {
    const std::vector<std::string> all(operators.begin(), operators.end());
    for (size_t begin = 0; begin < all.size(); begin += kChunk) {
        std::string in;
        for (size_t i = begin; i < std::min(all.size(), begin + kChunk); ++i)
            in += (i == begin ? "" : ", ") + postgres_sql::byteaLiteral(all[i]);
        for (const pqxx::row& row :
             tx.exec("SELECT signature, id FROM ios_operators WHERE signature IN (" + in + ")"))
            knownOperators_[pqxx::binarystring(row[0]).str()] = row[1].as<int64_t>();
    }
}

// Which of `stages` have a sample under (device, setup's batch and dtype).
std::set<std::string> PostgresStore::measuredStages(pqxx::transaction_base& tx, int64_t device,
                                                    const Setup& setup,
                                                    const std::set<std::string>& stages) {
    const std::vector<std::string> all(stages.begin(), stages.end());
    std::set<std::string> present;
    for (size_t begin = 0; begin < all.size(); begin += kChunk) {
        std::string in;
        for (size_t i = begin; i < std::min(all.size(), begin + kChunk); ++i)
            in += (i == begin ? "" : ", ") + postgres_sql::byteaLiteral(all[i]);
        for (const pqxx::row& row : tx.exec(
                 "SELECT DISTINCT stage FROM ios_samples WHERE device = " + std::to_string(device) +
                 " AND batch = " + std::to_string(setup.batch) +
                 " AND dtype = " + tx.quote(setup.dtype) + " AND stage IN (" + in + ")"))
            present.insert(pqxx::binarystring(row[0]).str());
    }
    return present;
}

std::optional<int64_t> PostgresStore::deviceId(pqxx::transaction_base& tx,
                                               const cost::DeviceIdentity& d) {
    const std::string identity = cost::canonicalText(d);
    if (const auto it = knownDevices_.find(identity); it != knownDevices_.end())
        return it->second;
    const pqxx::result r = tx.exec_prepared("ios_device", identity);
    if (r.empty())
        return std::nullopt;
    return knownDevices_.emplace(identity, r[0][0].as<int64_t>()).first->second;
}

// Operator signatures remembered while the export order is computed, at most.
constexpr size_t kOperatorMemo = 200000;

std::set<int64_t> allIds(const std::vector<std::vector<std::vector<int64_t>>>& stages) {
    std::set<int64_t> all;
    for (const auto& groups : stages)
        for (const std::vector<int64_t>& group : groups)
            all.insert(group.begin(), group.end());
    return all;
}

// The signatures of operators `ids`, in one IN (...) query per kChunk * 20 ids.
void loadOperators(pqxx::work& tx, const std::set<int64_t>& ids,
                   std::unordered_map<int64_t, std::string>& operators) {
    const std::vector<int64_t> all(ids.begin(), ids.end());
    for (size_t begin = 0; begin < all.size(); begin += kChunk * 20) {
        std::string in;
        for (size_t i = begin; i < std::min(all.size(), begin + kChunk * 20); ++i)
            in += (i == begin ? "" : ",") + std::to_string(all[i]);
        for (const pqxx::row& row :
             tx.exec("SELECT id, signature FROM ios_operators WHERE id IN (" + in + ")"))
            operators[row[0].as<int64_t>()] = pqxx::binarystring(row[1]).str();
    }
}

void PostgresStore::fillSignatureOrder(pqxx::work& tx) {
    std::unordered_map<int64_t, std::string> operators;
    std::vector<std::pair<std::string, std::string>> pending; // stage blob, signature bytes
    auto flush = [&] {
        if (pending.empty())
            return;
        std::string values;
        for (const auto& [stage, sig] : pending)
            values += (values.empty() ? "(" : ", (") + postgres_sql::byteaLiteral(stage) + ", " +
                      postgres_sql::byteaLiteral(sig) + ")";
        tx.exec("INSERT INTO ios_signature_order(stage, bytes) VALUES " + values);
        pending.clear();
    };
    tx.exec("DECLARE ios_stages NO SCROLL CURSOR FOR SELECT DISTINCT stage FROM ios_samples");
    for (;;) {
        const pqxx::result r = tx.exec("FETCH 10000 FROM ios_stages");
        if (r.empty())
            break;
        std::vector<std::pair<std::string, cost::StageSignature>> stages; // blob, ids as text
        std::vector<std::vector<std::vector<int64_t>>> ids;
        std::set<int64_t> unknown;
        for (const pqxx::row& row : r) {
            stages.emplace_back(pqxx::binarystring(row[0]).str(), cost::StageSignature{});
            ids.push_back(decodeStage(stages.back().first, stages.back().second.kind));
            for (const std::vector<int64_t>& group : ids.back())
                for (int64_t id : group)
                    if (!operators.count(id))
                        unknown.insert(id);
        }
        if (operators.size() + unknown.size() > kOperatorMemo)
            operators.clear(); // bounded memory: forget, then look up this chunk's again
        loadOperators(tx, operators.empty() ? allIds(ids) : unknown, operators);
        for (size_t i = 0; i < stages.size(); ++i) {
            cost::StageSignature& sig = stages[i].second;
            for (const std::vector<int64_t>& group : ids[i]) {
                std::vector<std::string>& ops = sig.groups.emplace_back();
                for (int64_t id : group)
                    ops.push_back(operators.at(id));
            }
            pending.emplace_back(std::move(stages[i].first), cost::signatureBytes(sig));
            if (pending.size() == kChunk)
                flush();
        }
    }
    flush();
    tx.exec("CLOSE ios_stages");
}

void PostgresStore::collectGarbage(pqxx::work& tx) {
    tx.exec(postgres_sql::kDeleteUnusedRows);
    std::set<int64_t> used;
    schedule::StageKind kind{};
    for (const pqxx::row& row : tx.exec("SELECT DISTINCT stage FROM ios_samples"))
        for (const std::vector<int64_t>& group :
             decodeStage(pqxx::binarystring(row[0]).str(), kind))
            used.insert(group.begin(), group.end());
    std::string unused;
    for (const pqxx::row& row : tx.exec("SELECT id FROM ios_operators"))
        if (!used.count(row[0].as<int64_t>()))
            unused += (unused.empty() ? "" : ", ") + row[0].as<std::string>();
    if (!unused.empty())
        tx.exec("DELETE FROM ios_operators WHERE id IN (" + unused + ")");
}

} // namespace

std::string redactedUrl(const std::string& url) {
    // scheme://user:password@host/...: the password hidden; a "password=" parameter too.
    std::string out = url;
    const size_t scheme = out.find("://");
    if (scheme != std::string::npos) {
        const size_t start = scheme + 3;
        const size_t at = out.find('@', start);
        const size_t slash = out.find('/', start);
        if (at != std::string::npos && (slash == std::string::npos || at < slash)) {
            const size_t colon = out.find(':', start);
            if (colon != std::string::npos && colon < at)
                out.replace(colon + 1, at - colon - 1, "***");
        }
    }
    for (size_t p = out.find("password="); p != std::string::npos;
         p = out.find("password=", p + 1)) {
        const size_t end = out.find('&', p);
        out.replace(p + 9, (end == std::string::npos ? out.size() : end) - p - 9, "***");
    }
    return out;
}

std::unique_ptr<MeasurementStore> openPostgresStore(const std::string& url, OpenMode mode) {
    return std::make_unique<PostgresStore>(url, mode);
}

IOS_REGISTER_STORE_BACKEND(postgresql, StoreBackend{"postgresql",
                                                    {"postgresql://", "postgres://"},
                                                    openPostgresStore});

} // namespace ios::store
