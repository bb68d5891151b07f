// SPDX-License-Identifier: Apache-2.0
// The text of the ios::UserError a call throws (empty when it throws none): for tests that
// check what a refusal says.
#pragma once

#include "util/error.h"

#include <QString>
#include <functional>

namespace ios::testing {

inline QString userErrorOf(const std::function<void()>& f) {
    try {
        f();
    } catch (const UserError& e) {
        return QString::fromStdString(e.what());
    }
    return {};
}

} // namespace ios::testing
