// SPDX-License-Identifier: Apache-2.0
#include "store/sqlite_store.h"

#include "cost/cost_model.h"
#include "cost/stage_signature.h"
#include "store/sqlite_rows.h"
#include "store/sqlite_statement.h"
#include "util/error.h"
#include "util/json_text.h"

#include <chrono>
#include <cmath>
#include <filesystem>
#include <map>
#include <mutex>
#include <set>
#include <tuple>
#include <unordered_map>

namespace ios::store {

namespace {

using namespace sqlite_rows;

class SqliteStore final : public MeasurementStore {
public:
    SqliteStore(std::string url, std::string path, OpenMode mode)
        : url_(std::move(url)), path_(std::move(path)), db_(url_),
          readOnly_(mode == OpenMode::ReadOnly) {
        open(mode);
    }

    int64_t add(const std::vector<Measurement>& measurements) override {
        const std::lock_guard lock(mutex_);
        refuseReadOnly("add measurements to");
        endSnapshot();
        for (size_t i = 0; i < measurements.size(); ++i)
            checkMeasurement(measurements[i], i, url_);
        SqliteTransaction tx(db_, true);
        std::unordered_map<std::string, int64_t> devices;
        std::unordered_map<std::string, int64_t> operators;
        std::unordered_map<std::string, int64_t> tools;
        std::set<std::tuple<int64_t, int, std::string>> setups;
        int64_t added = 0;
        for (const Measurement& m : measurements) {
            const std::string identity = cost::canonicalText(m.key.device);
            auto dev = devices.find(identity);
            if (dev == devices.end())
                dev = devices.emplace(identity, internDevice(identity)).first;
            const std::string stage = stageBlob(m.key.signature, operators);
            auto tool = tools.find(m.sample.toolVersion);
            if (tool == tools.end())
                tool = tools.emplace(m.sample.toolVersion, internTool(m.sample.toolVersion)).first;
            SqliteStatement& insert = db_.statement(
                "INSERT OR IGNORE INTO samples(stage, device, batch, dtype, median, spread, count,"
                " tool, measured_at) VALUES(?, ?, ?, ?, ?, ?, ?, ?, ?)");
            insert.bindBlob(1, stage).bind(2, dev->second).bind(3, int64_t{m.key.batch});
            insert.bindText(4, m.key.dtype).bind(5, m.sample.medianMs).bind(6, m.sample.spreadMs);
            insert.bind(7, int64_t{m.sample.count}).bind(8, tool->second);
            insert.bind(9, m.sample.measuredAt);
            insert.run();
            added += db_.changes();
            setups.emplace(dev->second, m.key.batch, m.key.dtype);
        }
        for (const auto& [device, batch, dtype] : setups)
            db_.statement("INSERT OR IGNORE INTO setups(device, batch, dtype) VALUES(?, ?, ?)")
                .bind(1, device)
                .bind(2, int64_t{batch})
                .bindText(3, dtype)
                .run();
        tx.commit();
        return added;
    }

    // One indexed query per call (its own read transaction), with operator and device ids
    // remembered between calls: ids are never reused (AUTOINCREMENT), so a remembered id is
    // either right or of a row pruned since, which finds nothing — a miss is then looked up
    // afresh once.
    std::optional<double> latencyMs(const Setup& setup, std::string_view signature) override {
        const std::lock_guard lock(mutex_);
        useSnapshot();
        for (int attempt = 0; attempt < 2; ++attempt) {
            bool remembered = false;
            const std::optional<int64_t> device = deviceId(setup.device, true, remembered);
            const std::optional<std::string> stage =
                device ? findStage(signature, true, remembered) : std::nullopt;
            if (stage) {
                SqliteStatement& q =
                    db_.statement("SELECT median FROM samples WHERE stage = ? AND "
                                  "device = ? AND batch = ? AND dtype = ? ORDER BY median");
                q.bindBlob(1, *stage).bind(2, *device).bind(3, int64_t{setup.batch});
                q.bindText(4, setup.dtype);
                std::vector<double> medians;
                while (q.step())
                    medians.push_back(q.real(0));
                if (!medians.empty())
                    return medians[(medians.size() - 1) / 2]; // the lower middle: measured
            }
            if (!remembered)
                return std::nullopt;
            forget();
        }
        return std::nullopt;
    }

    std::vector<bool> has(const Setup& setup, const std::vector<std::string>& signatures) override {
        const std::lock_guard lock(mutex_);
        std::vector<bool> out(signatures.size(), false);
        std::optional<SqliteTransaction> tx; // one snapshot for the whole batch
        if (!useSnapshot())
            tx.emplace(db_, false);
        bool remembered = false;
        const std::optional<int64_t> device = deviceId(setup.device, false, remembered);
        if (!device)
            return out;
        SqliteStatement& q = db_.statement("SELECT 1 FROM samples WHERE stage = ? AND device = ? "
                                           "AND batch = ? AND dtype = ? LIMIT 1");
        for (size_t i = 0; i < signatures.size(); ++i) {
            const std::optional<std::string> stage = findStage(signatures[i], false, remembered);
            if (!stage)
                continue;
            q.bindBlob(1, *stage).bind(2, *device).bind(3, int64_t{setup.batch});
            q.bindText(4, setup.dtype);
            out[i] = q.step();
            q.reset();
        }
        return out;
    }

    StoreInfo info() override {
        const std::lock_guard lock(mutex_);
        std::optional<SqliteTransaction> tx;
        if (!useSnapshot())
            tx.emplace(db_, false);
        StoreInfo info;
        info.url = url_;
        info.backend = "sqlite";
        info.samples = db_.count("SELECT COUNT(*) FROM samples");
        info.entries = db_.count(
            "SELECT COUNT(*) FROM (SELECT DISTINCT stage, device, batch, dtype FROM samples)");
        info.stages = db_.count("SELECT COUNT(*) FROM (SELECT DISTINCT stage FROM samples)");
        info.operators = db_.count("SELECT COUNT(*) FROM operators");
        std::error_code ec;
        const auto main = std::filesystem::file_size(path_, ec);
        info.bytes = ec ? -1 : static_cast<int64_t>(main);
        if (const auto wal = std::filesystem::file_size(path_ + "-wal", ec); !ec && info.bytes >= 0)
            info.bytes += static_cast<int64_t>(wal);
        SqliteStatement& q = db_.statement(
            "SELECT d.identity, s.batch, s.dtype, COUNT(*) FROM (SELECT DISTINCT stage, device, "
            "batch, dtype FROM samples) s JOIN devices d ON d.id = s.device GROUP BY s.device, "
            "s.batch, s.dtype ORDER BY d.identity, s.batch, s.dtype");
        while (q.step()) {
            StoreInfo::DeviceCount& c = info.setups.emplace_back();
            c.device = identityOf(q.text(0));
            c.batch = static_cast<int>(q.integer(1));
            c.dtype = q.text(2);
            c.entries = q.integer(3);
        }
        q.reset();
        return info;
    }

    std::vector<Setup> setups() override {
        const std::lock_guard lock(mutex_);
        useSnapshot();
        std::vector<Setup> out;
        SqliteStatement& q = db_.statement(
            "SELECT d.identity, s.batch, s.dtype FROM setups s JOIN devices d ON d.id = s.device "
            "ORDER BY d.identity, s.batch, s.dtype");
        while (q.step())
            out.push_back(Setup{identityOf(q.text(0)), static_cast<int>(q.integer(1)), q.text(2)});
        return out;
    }

    void forEach(const std::function<void(const Measurement&)>& visit) override {
        const std::lock_guard lock(mutex_);
        std::optional<SqliteTransaction> tx;
        if (!useSnapshot())
            tx.emplace(db_, false);
        // Signature bytes per stage in a temporary table, so SQLite sorts by them (spilling
        // to disk for a large store) and the store is never held in memory.
        db_.exec("CREATE TEMP TABLE IF NOT EXISTS signature_order(stage BLOB PRIMARY KEY, "
                 "bytes BLOB NOT NULL) WITHOUT ROWID");
        db_.exec("DELETE FROM temp.signature_order");
        fillSignatureOrder();
        SqliteStatement& q = db_.statement(
            "SELECT d.identity, s.batch, s.dtype, o.bytes, s.median, s.spread, s.count, t.version, "
            "s.measured_at FROM samples s JOIN devices d ON d.id = s.device JOIN tools t ON t.id = "
            "s.tool JOIN temp.signature_order o ON o.stage = s.stage ORDER BY d.identity, s.batch, "
            "s.dtype, "
            "o.bytes, s.median, s.spread, s.count");
        std::map<std::string, cost::DeviceIdentity> devices;
        Measurement m;
        try {
            while (q.step()) {
                std::string identity = q.text(0);
                auto dev = devices.find(identity);
                if (dev == devices.end())
                    dev = devices.emplace(identity, identityOf(identity)).first;
                m.key.device = dev->second;
                m.key.batch = static_cast<int>(q.integer(1));
                m.key.dtype = q.text(2);
                m.key.signature = q.blob(3);
                m.sample.medianMs = q.real(4);
                m.sample.spreadMs = q.real(5);
                m.sample.count = static_cast<int>(q.integer(6));
                m.sample.toolVersion = q.text(7);
                m.sample.measuredAt = q.integer(8);
                visit(m);
            }
        } catch (...) {
            q.reset();
            throw;
        }
        q.reset();
        db_.exec("DELETE FROM temp.signature_order");
    }

    int64_t prune(std::optional<int64_t> before, const std::optional<Setup>& setup) override {
        const std::lock_guard lock(mutex_);
        refuseReadOnly("prune");
        endSnapshot();
        SqliteTransaction tx(db_, true);
        std::optional<int64_t> device;
        if (setup) {
            bool remembered = false;
            device = deviceId(setup->device, false, remembered);
            if (!device)
                return 0;
        }
        SqliteStatement& del = db_.statement(
            "DELETE FROM samples WHERE (?1 IS NULL OR measured_at < ?1) AND (?2 IS NULL OR "
            "(device = ?2 AND batch = ?3 AND dtype = ?4))");
        before ? del.bind(1, *before) : del.bindNull(1);
        if (setup)
            del.bind(2, *device).bind(3, int64_t{setup->batch}).bindText(4, setup->dtype);
        else
            del.bindNull(2).bindNull(3).bindNull(4);
        del.run();
        const int64_t removed = db_.changes();
        collectGarbage();
        forget();
        tx.commit();
        return removed;
    }

    void holdSnapshot(bool hold) override {
        const std::lock_guard lock(mutex_);
        holdSnapshot_ = hold;
        if (!hold)
            endSnapshot();
    }

private:
    // With holdSnapshot(true): opens the held read transaction (renewed after 5 s) and
    // returns true; reads then run in it.
    bool useSnapshot() {
        if (!holdSnapshot_)
            return false;
        const auto now = std::chrono::steady_clock::now();
        if (snapshotOpen_ && now - snapshotSince_ > std::chrono::seconds(5))
            endSnapshot();
        if (!snapshotOpen_) {
            db_.exec("BEGIN");
            snapshotOpen_ = true;
            snapshotSince_ = now;
        }
        return true;
    }
    void endSnapshot() {
        if (snapshotOpen_)
            db_.exec("COMMIT");
        snapshotOpen_ = false;
    }

    void open(OpenMode mode);
    void createOrCheckSchema();
    void checkSchema();
    void refuseReadOnly(const std::string& what) const {
        if (readOnly_)
            throw UserError("measurement store '" + url_ + "': opened read-only, cannot " + what +
                            " it");
    }

    cost::DeviceIdentity identityOf(const std::string& text) const {
        const util::JsonDocument doc = util::parseJsonDocument(text, url_);
        return cost::identityFromJson(doc.root(), "measurement store '" + url_ + "'");
    }

    int64_t internDevice(const std::string& identity) {
        db_.statement("INSERT OR IGNORE INTO devices(identity) VALUES(?)")
            .bindText(1, identity)
            .run();
        SqliteStatement& q = db_.statement("SELECT id FROM devices WHERE identity = ?");
        return q.bindText(1, identity).single();
    }

    int64_t internTool(const std::string& version) {
        db_.statement("INSERT OR IGNORE INTO tools(version) VALUES(?)").bindText(1, version).run();
        return db_.statement("SELECT id FROM tools WHERE version = ?")
            .bindText(1, version)
            .single();
    }

    // The stage blob of a signature, its operators added to the store where new.
    std::string stageBlob(const std::string& signature,
                          std::unordered_map<std::string, int64_t>& operators) {
        const cost::StageSignature s = *cost::parseSignatureBytes(signature);
        std::vector<std::vector<int64_t>> groups;
        for (const std::vector<std::string>& group : s.groups) {
            std::vector<int64_t>& ids = groups.emplace_back();
            for (const std::string& op : group) {
                auto it = operators.find(op);
                if (it == operators.end()) {
                    db_.statement("INSERT OR IGNORE INTO operators(signature) VALUES(?)")
                        .bindBlob(1, op)
                        .run();
                    SqliteStatement& q =
                        db_.statement("SELECT id FROM operators WHERE signature = ?");
                    it = operators.emplace(op, q.bindBlob(1, op).single()).first;
                }
                ids.push_back(it->second);
            }
        }
        return encodeStage(s.kind, groups);
    }

    // The id of a device (remembered ones first when `remember`; `remembered` is set when
    // one was used); nullopt when the store has none.
    std::optional<int64_t> deviceId(const cost::DeviceIdentity& device, bool remember,
                                    bool& remembered) {
        if (remember && known_.device && known_.device->first == device) {
            remembered = true;
            return known_.device->second;
        }
        const std::optional<int64_t> id = db_.statement("SELECT id FROM devices WHERE identity = ?")
                                              .bindText(1, cost::canonicalText(device))
                                              .optionalSingle();
        if (id && remember)
            known_.device = std::make_pair(device, *id);
        return id;
    }

    // The stage blob of a signature in this store's operator ids; nullopt when an operator
    // is not in the store (or the bytes are no signature).
    std::optional<std::string> findStage(std::string_view signature, bool remember,
                                         bool& remembered) {
        const std::optional<cost::StageSignature> s = cost::parseSignatureBytes(signature);
        if (!s)
            return std::nullopt;
        std::vector<std::vector<int64_t>> groups;
        SqliteStatement& op = db_.statement("SELECT id FROM operators WHERE signature = ?");
        for (const std::vector<std::string>& group : s->groups) {
            std::vector<int64_t>& ids = groups.emplace_back();
            for (const std::string& bytes : group) {
                if (remember)
                    if (const auto it = known_.operators.find(bytes);
                        it != known_.operators.end()) {
                        remembered = true;
                        ids.push_back(it->second);
                        continue;
                    }
                const std::optional<int64_t> id = op.bindBlob(1, bytes).optionalSingle();
                if (!id)
                    return std::nullopt;
                if (remember)
                    known_.operators.emplace(bytes, *id);
                ids.push_back(*id);
            }
        }
        return encodeStage(s->kind, groups);
    }

    void forget() {
        known_.device.reset();
        known_.operators.clear();
    }

    void fillSignatureOrder();
    void collectGarbage();

    std::string url_;
    std::string path_;
    SqliteDb db_;
    bool readOnly_;
    std::mutex mutex_;
    bool holdSnapshot_ = false;
    bool snapshotOpen_ = false;
    std::chrono::steady_clock::time_point snapshotSince_;
    struct Known { // ids remembered by latencyMs
        std::optional<std::pair<cost::DeviceIdentity, int64_t>> device;
        std::unordered_map<std::string, int64_t> operators;
    } known_;
};

namespace {

void writeSchema(SqliteDb& db) {
    db.exec(kSchema);
    db.statement("INSERT INTO meta(key, value) VALUES('format', ?)")
        .bindText(1, kSqliteStoreFormat)
        .run();
    db.statement("INSERT INTO meta(key, value) VALUES('schema_version', ?)")
        .bindText(1, std::to_string(kSqliteSchemaVersion))
        .run();
}

} // namespace

void SqliteStore::open(OpenMode mode) {
    std::error_code ec;
    const bool exists = std::filesystem::exists(path_, ec);
    if (!exists && mode != OpenMode::CreateIfMissing)
        throw UserError("measurement store '" + url_ + "' does not exist");
    if (exists && std::filesystem::is_directory(path_, ec))
        throw UserError("measurement store '" + url_ + "' is a directory, not a store file");
    if (!exists && mode == OpenMode::CreateIfMissing) // a new store appears whole or not at all
        createDatabaseAtomically(path_, url_, writeSchema);
    db_.open(path_, mode == OpenMode::ReadOnly, mode == OpenMode::CreateIfMissing);
    db_.exec("PRAGMA busy_timeout = 60000");
    createOrCheckSchema();
    if (!readOnly_) {
        // Durable against a killed process (WAL + NORMAL: a committed transaction survives
        // anything but a power loss or OS crash, which may lose the last few).
        db_.exec("PRAGMA synchronous = NORMAL");
    }
}

void SqliteStore::createOrCheckSchema() {
    // Reading the schema is where a file that is not SQLite is found out.
    const int64_t tables = db_.count("SELECT COUNT(*) FROM sqlite_master");
    if (tables > 0) {
        checkSchema();
        if (!readOnly_)
            db_.exec("PRAGMA journal_mode = WAL");
        return;
    }
    if (readOnly_)
        throw UserError("measurement store '" + url_ + "' is empty, not a measurement store");
    db_.exec("PRAGMA journal_mode = WAL"); // persistent: every later connection uses WAL
    SqliteTransaction tx(db_, true);
    // Another process may have created it between the check and the lock.
    if (db_.count("SELECT COUNT(*) FROM sqlite_master") > 0) {
        tx.commit();
        checkSchema();
        return;
    }
    writeSchema(db_);
    tx.commit();
}

void SqliteStore::checkSchema() {
    const std::string notStore = "measurement store '" + url_ +
                                 "' is a SQLite database of another kind, not a measurement store";
    if (db_.count("SELECT COUNT(*) FROM sqlite_master WHERE type = 'table' AND name = 'meta'") == 0)
        throw UserError(notStore + " (it has no meta table)");
    std::optional<std::string> format, version;
    try {
        format = db_.optionalText("SELECT value FROM meta WHERE key = 'format'");
        version = db_.optionalText("SELECT value FROM meta WHERE key = 'schema_version'");
    } catch (const UserError&) {
        throw UserError(notStore + " (its meta table is of another shape)");
    }
    if (format != kSqliteStoreFormat)
        throw UserError(notStore + " (meta.format is not '" + kSqliteStoreFormat + "')");
    int schema = 0;
    try {
        schema = version ? std::stoi(*version) : 0;
    } catch (const std::exception&) {
        schema = 0;
    }
    if (schema < 1)
        throw UserError("measurement store '" + url_ + "' has no valid schema version");
    if (schema > kSqliteSchemaVersion)
        throw UserError("measurement store '" + url_ + "' has schema version " +
                        std::to_string(schema) + ", newer than this build reads (" +
                        std::to_string(kSqliteSchemaVersion) + "); use a newer ios-sched");
}

void SqliteStore::fillSignatureOrder() {
    std::unordered_map<int64_t, std::string> operators; // op signatures: few, reused widely
    SqliteStatement& op = db_.statement("SELECT signature FROM operators WHERE id = ?");
    SqliteStatement& insert =
        db_.statement("INSERT INTO temp.signature_order(stage, bytes) VALUES(?, ?)");
    SqliteStatement& stages = db_.statement("SELECT DISTINCT stage FROM samples");
    while (stages.step()) {
        cost::StageSignature s;
        const std::string blob = stages.blob(0);
        for (const std::vector<int64_t>& group : decodeStage(blob, s.kind)) {
            std::vector<std::string>& ops = s.groups.emplace_back();
            for (int64_t id : group) {
                auto it = operators.find(id);
                if (it == operators.end())
                    it = operators.emplace(id, op.bind(1, id).singleBlob()).first;
                ops.push_back(it->second);
            }
        }
        insert.bindBlob(1, blob).bindBlob(2, cost::signatureBytes(s)).run();
    }
}

void SqliteStore::collectGarbage() {
    // Setups, devices, tools and operators no sample refers to any more.
    db_.exec("DELETE FROM setups WHERE NOT EXISTS (SELECT 1 FROM samples s WHERE s.device = "
             "setups.device AND s.batch = setups.batch AND s.dtype = setups.dtype)");
    db_.exec("DELETE FROM devices WHERE NOT EXISTS (SELECT 1 FROM samples WHERE samples.device = "
             "devices.id)");
    std::set<int64_t> used;
    db_.exec("DELETE FROM tools WHERE NOT EXISTS (SELECT 1 FROM samples WHERE samples.tool = "
             "tools.id)");
    SqliteStatement& stages = db_.statement("SELECT DISTINCT stage FROM samples");
    schedule::StageKind kind{};
    while (stages.step())
        for (const std::vector<int64_t>& group : decodeStage(stages.blob(0), kind))
            used.insert(group.begin(), group.end());
    std::vector<int64_t> unused;
    SqliteStatement& ops = db_.statement("SELECT id FROM operators");
    while (ops.step())
        if (!used.count(ops.integer(0)))
            unused.push_back(ops.integer(0));
    ops.reset();
    for (int64_t id : unused)
        db_.statement("DELETE FROM operators WHERE id = ?").bind(1, id).run();
}

} // namespace

std::string sqlitePath(const std::string& url) {
    constexpr std::string_view prefix = "sqlite:";
    std::string path = url.rfind(prefix, 0) == 0 ? url.substr(prefix.size()) : url;
    if (path.empty())
        throw UserError("measurement store '" + url + "': no file named (sqlite:PATH)");
    return path;
}

std::unique_ptr<MeasurementStore> openSqliteStore(const std::string& url, OpenMode mode) {
    return std::make_unique<SqliteStore>(url, sqlitePath(url), mode);
}

IOS_REGISTER_STORE_BACKEND(sqlite, StoreBackend{"sqlite", {"sqlite:", ""}, openSqliteStore});

} // namespace ios::store
