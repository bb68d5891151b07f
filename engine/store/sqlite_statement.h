// SPDX-License-Identifier: Apache-2.0
// A thin RAII layer over SQLite's C API for the SQLite store (sqlite_store.cpp): one
// connection, its prepared statements (prepared once, reused), transactions. Every failure
// is an ios::UserError naming the store's URL and SQLite's message.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>

struct sqlite3;
struct sqlite3_stmt;

namespace ios::store {

class SqliteDb;

class SqliteStatement {
public:
    SqliteStatement(SqliteDb& db, const char* sql);
    ~SqliteStatement();
    SqliteStatement(const SqliteStatement&) = delete;
    SqliteStatement& operator=(const SqliteStatement&) = delete;

    // Parameters are 1-based, as in SQL.
    SqliteStatement& bind(int index, int64_t value);
    SqliteStatement& bind(int index, double value);
    SqliteStatement& bindText(int index, std::string_view text);
    SqliteStatement& bindBlob(int index, std::string_view bytes);
    SqliteStatement& bindNull(int index);

    // The next row: true when there is one; false at the end (the statement is then reset).
    bool step();
    // Runs a statement that returns no rows, then resets it.
    void run();
    // Resets it for the next use (bindings are replaced by the next binds).
    void reset();

    // Columns of the current row, 0-based.
    int64_t integer(int column) const;
    double real(int column) const;
    std::string text(int column) const;
    std::string blob(int column) const;

    // The first column of the only row, then reset: single() and singleBlob() throw when
    // there is no row; optionalSingle() gives nullopt.
    int64_t single();
    std::string singleBlob();
    std::optional<int64_t> optionalSingle();

private:
    SqliteDb& db_;
    sqlite3_stmt* stmt_ = nullptr;
};

class SqliteDb {
public:
    explicit SqliteDb(std::string url) : url_(std::move(url)) {}
    ~SqliteDb();
    SqliteDb(const SqliteDb&) = delete;
    SqliteDb& operator=(const SqliteDb&) = delete;

    // Throws a UserError naming the URL when the file cannot be opened or created.
    void open(const std::string& path, bool readOnly, bool create);
    // Runs SQL that returns no rows (one or more statements).
    void exec(const char* sql);
    // The first column of the only row of `sql` as an integer / as text (nullopt: no row).
    int64_t count(const char* sql);
    std::optional<std::string> optionalText(const char* sql);
    // The prepared statement for `sql` (a string literal: statements are cached by address).
    SqliteStatement& statement(const char* sql);
    // Rows changed by the last INSERT, UPDATE or DELETE.
    int64_t changes() const;

    // Throws a UserError naming the URL, `what` failed and SQLite's message for `code`.
    [[noreturn]] void fail(int code, const std::string& what) const;
    sqlite3* handle() const { return db_; }

private:
    std::string url_;
    sqlite3* db_ = nullptr;
    std::unordered_map<const char*, std::unique_ptr<SqliteStatement>> statements_;
};

// BEGIN IMMEDIATE (a writer: takes the write lock at once, waiting up to the busy timeout)
// or BEGIN (a reader's snapshot); rolled back unless commit() was called.
class SqliteTransaction {
public:
    SqliteTransaction(SqliteDb& db, bool write);
    ~SqliteTransaction();
    SqliteTransaction(const SqliteTransaction&) = delete;
    SqliteTransaction& operator=(const SqliteTransaction&) = delete;
    void commit();

private:
    SqliteDb& db_;
    bool open_ = true;
};

// Creates the SQLite database `path` whole or not at all: `initialise` fills a private file
// (PATH.new-PID, WAL mode) in one transaction, which is then hard-linked into place. link()
// never replaces, so of processes creating it at once one wins and the others find its file;
// a process killed meanwhile leaves its private file (removed by the next creator of that
// name), never an empty database. Where hard links are not supported nothing is created and
// the caller creates the file in place. Throws UserError naming `url` on other errors.
void createDatabaseAtomically(const std::string& path, const std::string& url,
                              const std::function<void(SqliteDb&)>& initialise);

} // namespace ios::store
