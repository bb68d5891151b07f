// SPDX-License-Identifier: Apache-2.0
#include "util/file_util.h"

#include "util/input_file.h"

namespace ios::util {

std::string readTextFile(const std::filesystem::path& path) {
    return readInputFile(path, InputKind::Text);
}

} // namespace ios::util
