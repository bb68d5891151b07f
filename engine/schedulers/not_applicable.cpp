// SPDX-License-Identifier: Apache-2.0
#include "schedulers/not_applicable.h"

#include "util/work_limit.h"

namespace ios::schedulers {

std::optional<NotApplicable> runOrNotApplicable(const std::function<void()>& row) {
    try {
        row();
    } catch (const WorkLimitReached&) {
        throw;
    } catch (const UserError& e) {
        return NotApplicable{e.what(), e.hint()};
    }
    return std::nullopt;
}

} // namespace ios::schedulers
