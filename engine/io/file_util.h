// File reading and atomic writing (temp file in the same directory + rename).
#pragma once

#include <filesystem>
#include <string>
#include <string_view>

namespace ios::io {

// Throws ios::UserError naming the file when it cannot be read.
std::string readTextFile(const std::filesystem::path& path);

// Writes `content` to a temporary file beside `path`, flushes it, then renames it over
// `path`; on any failure the temporary is removed and `path` is untouched.
void writeFileAtomically(const std::filesystem::path& path, std::string_view content);

} // namespace ios::io
