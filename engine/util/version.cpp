// SPDX-License-Identifier: Apache-2.0
#include "util/version.h"

// Defined for this file only (engine/CMakeLists.txt), so a version bump rebuilds one object.
#ifndef IOS_VERSION
#error "IOS_VERSION must be defined by the build (PROJECT_VERSION)"
#endif

namespace ios::util {

std::string toolVersion() {
    return IOS_VERSION;
}

std::string toolNameAndVersion() {
    return std::string("ios-explorer ") + IOS_VERSION;
}

} // namespace ios::util
