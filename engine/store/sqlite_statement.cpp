// SPDX-License-Identifier: Apache-2.0
#include "store/sqlite_statement.h"

#include "util/error.h"

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <sqlite3.h>
#include <unistd.h>

namespace ios::store {

SqliteStatement::SqliteStatement(SqliteDb& db, const char* sql) : db_(db) {
    const int rc =
        sqlite3_prepare_v3(db.handle(), sql, -1, SQLITE_PREPARE_PERSISTENT, &stmt_, nullptr);
    if (rc != SQLITE_OK)
        db.fail(rc, "preparing a query");
}

SqliteStatement::~SqliteStatement() {
    sqlite3_finalize(stmt_);
}

namespace {

void checkBind(SqliteDb& db, int rc) {
    if (rc != SQLITE_OK)
        db.fail(rc, "binding a query parameter");
}

} // namespace

SqliteStatement& SqliteStatement::bind(int index, int64_t value) {
    checkBind(db_, sqlite3_bind_int64(stmt_, index, value));
    return *this;
}

SqliteStatement& SqliteStatement::bind(int index, double value) {
    checkBind(db_, sqlite3_bind_double(stmt_, index, value));
    return *this;
}

SqliteStatement& SqliteStatement::bindText(int index, std::string_view text) {
    checkBind(db_, sqlite3_bind_text64(stmt_, index, text.data(), text.size(), SQLITE_TRANSIENT,
                                       SQLITE_UTF8));
    return *this;
}

SqliteStatement& SqliteStatement::bindBlob(int index, std::string_view bytes) {
    // A zero-length blob must still be a blob, not NULL: SQLite takes a non-null pointer.
    static const char empty = 0;
    checkBind(db_, sqlite3_bind_blob64(stmt_, index, bytes.empty() ? &empty : bytes.data(),
                                       bytes.size(), SQLITE_TRANSIENT));
    return *this;
}

SqliteStatement& SqliteStatement::bindNull(int index) {
    checkBind(db_, sqlite3_bind_null(stmt_, index));
    return *this;
}

bool SqliteStatement::step() {
    const int rc = sqlite3_step(stmt_);
    if (rc == SQLITE_ROW)
        return true;
    sqlite3_reset(stmt_);
    if (rc != SQLITE_DONE)
        db_.fail(rc, "running a query");
    return false;
}

void SqliteStatement::run() {
    while (step()) {
    }
}

void SqliteStatement::reset() {
    sqlite3_reset(stmt_);
}

int64_t SqliteStatement::integer(int column) const {
    return sqlite3_column_int64(stmt_, column);
}

double SqliteStatement::real(int column) const {
    return sqlite3_column_double(stmt_, column);
}

std::string SqliteStatement::text(int column) const {
    const auto* p = sqlite3_column_text(stmt_, column);
    const int n = sqlite3_column_bytes(stmt_, column);
    return p ? std::string(reinterpret_cast<const char*>(p), static_cast<size_t>(n))
             : std::string();
}

std::string SqliteStatement::blob(int column) const {
    const void* p = sqlite3_column_blob(stmt_, column);
    const int n = sqlite3_column_bytes(stmt_, column);
    return p ? std::string(static_cast<const char*>(p), static_cast<size_t>(n)) : std::string();
}

int64_t SqliteStatement::single() {
    const std::optional<int64_t> v = optionalSingle();
    if (!v)
        db_.fail(SQLITE_CORRUPT, "reading a row the store must have");
    return *v;
}

std::string SqliteStatement::singleBlob() {
    if (!step())
        db_.fail(SQLITE_CORRUPT, "reading a row the store must have");
    std::string out = blob(0);
    reset();
    return out;
}

std::optional<int64_t> SqliteStatement::optionalSingle() {
    if (!step())
        return std::nullopt;
    const int64_t v = integer(0);
    reset();
    return v;
}

SqliteDb::~SqliteDb() {
    statements_.clear(); // finalised before the connection closes
    sqlite3_close_v2(db_);
}

void SqliteDb::open(const std::string& path, bool readOnly, bool create) {
    int flags = readOnly ? SQLITE_OPEN_READONLY : SQLITE_OPEN_READWRITE;
    if (create && !readOnly)
        flags |= SQLITE_OPEN_CREATE;
    flags |= SQLITE_OPEN_NOMUTEX; // the store's own mutex guards the connection
    const int rc = sqlite3_open_v2(path.c_str(), &db_, flags, nullptr);
    if (rc != SQLITE_OK)
        fail(rc, create ? "cannot open or create it" : "cannot open it");
    sqlite3_extended_result_codes(db_, 1);
}

void SqliteDb::exec(const char* sql) {
    const int rc = sqlite3_exec(db_, sql, nullptr, nullptr, nullptr);
    if (rc != SQLITE_OK)
        fail(rc, "running a query");
}

int64_t SqliteDb::count(const char* sql) {
    return statement(sql).single();
}

std::optional<std::string> SqliteDb::optionalText(const char* sql) {
    SqliteStatement& q = statement(sql);
    if (!q.step())
        return std::nullopt;
    std::string out = q.text(0);
    q.reset();
    return out;
}

SqliteStatement& SqliteDb::statement(const char* sql) {
    auto it = statements_.find(sql);
    if (it == statements_.end())
        it = statements_.emplace(sql, std::make_unique<SqliteStatement>(*this, sql)).first;
    return *it->second;
}

int64_t SqliteDb::changes() const {
    return sqlite3_changes64(db_);
}

void SqliteDb::fail(int code, const std::string& what) const {
    std::string detail = db_ ? sqlite3_errmsg(db_) : sqlite3_errstr(code);
    const int primary = code & 0xff;
    if (primary == SQLITE_NOTADB)
        throw UserError("measurement store '" + url_ +
                        "' is not a SQLite database (not a measurement store)");
    if (primary == SQLITE_BUSY)
        detail += " (another process held the store for over a minute)";
    if (primary == SQLITE_READONLY)
        detail += " (the file or its folder is not writable)";
    throw UserError("measurement store '" + url_ + "': " + what + ": " + detail);
}

SqliteTransaction::SqliteTransaction(SqliteDb& db, bool write) : db_(db) {
    db_.exec(write ? "BEGIN IMMEDIATE" : "BEGIN");
}

SqliteTransaction::~SqliteTransaction() {
    if (open_)
        sqlite3_exec(db_.handle(), "ROLLBACK", nullptr, nullptr, nullptr);
}

void SqliteTransaction::commit() {
    db_.exec("COMMIT");
    open_ = false;
}

void createDatabaseAtomically(const std::string& path, const std::string& url,
                              const std::function<void(SqliteDb&)>& initialise) {
    const std::string fresh = path + ".new-" + std::to_string(::getpid());
    std::error_code ec;
    for (const char* suffix : {"", "-wal", "-shm", "-journal"})
        std::filesystem::remove(fresh + suffix, ec); // a killed creator's, same pid
    {
        SqliteDb db(url);
        db.open(fresh, false, true);
        db.exec("PRAGMA journal_mode = WAL"); // persistent: every later connection uses WAL
        SqliteTransaction tx(db, true);
        initialise(db);
        tx.commit();
    } // closed: the WAL is checkpointed into the file and removed
    const int rc = ::link(fresh.c_str(), path.c_str());
    const int error = errno;
    std::filesystem::remove(fresh, ec);
    if (rc != 0 && error != EEXIST && error != EPERM && error != ENOTSUP && error != EXDEV)
        throw UserError("measurement store '" + url +
                        "' cannot be created: " + std::strerror(error));
}

} // namespace ios::store
