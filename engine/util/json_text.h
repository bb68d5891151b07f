// SPDX-License-Identifier: Apache-2.0
// JSON text in and out, safe on hostile input: the one place the io code calls nlohmann's
// parser and serialiser.
#pragma once

#include <cstddef>
#include <initializer_list>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

namespace ios::util {

// Insertion-ordered, so written files keep the key order of the reference files.
using Json = nlohmann::ordered_json;

// Deeper nesting is rejected before parsing. IOS models nest about 10 levels; the limit keeps
// any recursive walk over the document (ours or nlohmann's) far from the stack limit.
inline constexpr int kMaxJsonDepth = 64;

// The parsed form of a document may take at most kJsonMemoryFactor x its text size plus
// kJsonMemoryBase bytes (estimated while parsing: 16-byte values, doubled for vector growth,
// heap strings and containers); a document of many tiny values beyond that is refused.
// Real files use 5-15x.
inline constexpr size_t kJsonMemoryFactor = 32;
inline constexpr size_t kJsonMemoryBase = size_t{1} << 20;

// Parses one JSON document in time linear in the text. Throws ios::UserError naming `source`
// for empty text, nesting deeper than kMaxJsonDepth, syntax errors, invalid UTF-8, trailing
// garbage, a key repeated in one object, the memory bound above, and running out of memory.
Json parseJsonText(std::string_view text, const std::string& source);

// Empties `value` without allocating. nlohmann's destructor allocates a stack to free a
// non-empty container, and an allocation failure in a destructor ends the process: release
// large documents with this (or hold them in a JsonDocument) on paths that may unwind.
void releaseJson(Json& value) noexcept;

// A parsed document released by releaseJson() when it goes out of scope, so an exception
// thrown while a loader walks it (std::bad_alloc included) unwinds without allocating.
class JsonDocument {
public:
    explicit JsonDocument(Json root) noexcept : root_(std::move(root)) {}
    JsonDocument(JsonDocument&& other) noexcept : root_(std::move(other.root_)) {}
    JsonDocument(const JsonDocument&) = delete;
    JsonDocument& operator=(const JsonDocument&) = delete;
    JsonDocument& operator=(JsonDocument&&) = delete;
    ~JsonDocument();

    const Json& root() const { return root_; }

private:
    Json root_;
};

// parseJsonText() into a JsonDocument: what the loaders use.
JsonDocument parseJsonDocument(std::string_view text, const std::string& source);

// nlohmann's exception text without its "[json.exception...] " prefix, printable: for
// loaders that turn a type error inside a field into a UserError naming the field.
std::string jsonErrorText(const std::exception& e);

// Strict formats: throws ios::UserError naming `source` and the first key of `object` that is
// not in `known` ("unknown field 'x' in <where> (known: a, b); remove it or fix its name").
// Linear in the object's size. `object` must be an object.
void refuseUnknownFields(const Json& object, std::initializer_list<std::string_view> known,
                         const std::string& where, const std::string& source);

// Serialises exactly like Python's json.dumps(value, indent=1): one-space indent, "," at line
// ends, ": " between key and value, non-ASCII escaped as \uXXXX, no trailing newline.
// Throws ios::UserError when a string is not valid UTF-8.
std::string dumpPythonStyle(const Json& value);

} // namespace ios::util
