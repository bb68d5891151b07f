// File reading and atomic writing (temp file in the same directory + rename).
#pragma once

#include <filesystem>
#include <string>
#include <string_view>

namespace ios::util {

// Throws ios::UserError naming the file when it cannot be read.
std::string readTextFile(const std::filesystem::path& path);

// Writes `content` to a temporary file beside `path`, flushes it, then renames it over
// `path`; on any failure the temporary is removed and `path` is untouched.
void writeFileAtomically(const std::filesystem::path& path, std::string_view content);

// Throws ios::UserError naming `path` when writeFileAtomically() is bound to fail there for a
// reason known now (empty path, a directory, a missing parent folder): front ends call it
// before long work, so that a bad -o fails at once rather than after the work.
void checkOutputPath(const std::filesystem::path& path);

} // namespace ios::util
