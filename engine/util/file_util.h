// SPDX-License-Identifier: Apache-2.0
// Reading text files; the write side (outputs, atomic writes) is util/output_file.h.
#pragma once

#include "util/output_file.h" // the write side: checkOutputPath, writeFileAtomically

#include <filesystem>
#include <string>
#include <string_view>

namespace ios::util {

// readInputFile(path, InputKind::Text) (util/input_file.h): the checked reader under a
// general cap, for files of no particular kind. Throws ios::UserError naming the file.
std::string readTextFile(const std::filesystem::path& path);

} // namespace ios::util
