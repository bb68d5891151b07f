// SPDX-License-Identifier: Apache-2.0
// A comparison's row that cannot run: a scheduler refused by the chosen cost model (MetaFlow's
// rewritten graph under replayed measurements, which are keyed by the original operators) or
// by the settings (a stage the measurements lack, a memory budget nothing fits). The row says
// why and the other rows still run (`compare`, the GUI's comparison tab).
#pragma once

#include "util/error.h"

#include <functional>
#include <optional>
#include <string>

namespace ios::schedulers {

struct NotApplicable {
    std::string reason;     // the refusal's one line (UserError::what(), escaped)
    Hint hint = Hint::None; // for the front end to word, as for any UserError
};

// Runs `row`. A UserError it throws is returned as the row's NotApplicable, except the work and
// time limits (WorkLimitReached: they bound the whole comparison, and the front ends word
// their knobs), which are rethrown like Cancelled and every other exception.
std::optional<NotApplicable> runOrNotApplicable(const std::function<void()>& row);

} // namespace ios::schedulers
