// JSON text in and out, safe on hostile input: the one place the io code calls nlohmann's
// parser and serialiser.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

namespace ios::util {

// Insertion-ordered, so written files keep the key order of the reference files.
using Json = nlohmann::ordered_json;

// Deeper nesting is rejected before parsing. IOS models nest about 10 levels; the limit keeps
// any recursive walk over the document (ours or nlohmann's) far from the stack limit.
inline constexpr int kMaxJsonDepth = 64;

// Parses one JSON document. Throws ios::UserError naming `source` for empty text, nesting
// deeper than kMaxJsonDepth, syntax errors, invalid UTF-8 and trailing garbage.
Json parseJsonText(std::string_view text, const std::string& source);

// Serialises exactly like Python's json.dumps(value, indent=1): one-space indent, "," at line
// ends, ": " between key and value, non-ASCII escaped as \uXXXX, no trailing newline.
// Throws ios::UserError when a string is not valid UTF-8.
std::string dumpPythonStyle(const Json& value);

} // namespace ios::util
