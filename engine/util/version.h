// SPDX-License-Identifier: Apache-2.0
// The tool's version, from one place: CMake's project(VERSION ...) in the top CMakeLists.txt.
// Both programs print it (--version), and every file they write records it (io/provenance.h).
#pragma once

#include <string>

namespace ios::util {

// "0.1.0": PROJECT_VERSION at configure time.
std::string toolVersion();

// "ios-explorer 0.1.0": the name files record as their writer.
std::string toolNameAndVersion();

} // namespace ios::util
