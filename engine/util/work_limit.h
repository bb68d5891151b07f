// SPDX-License-Identifier: Apache-2.0
// Refusals of work past a limit (docs/architecture.md "Work bounds"): every layer that bounds
// its work (the stream program verifier in schedule, the searches in schedulers) throws these,
// and each front end words the knob for its users (schedulers/search_control.h: SearchControl).
#pragma once

#include "util/error.h"

#include <cstdint>
#include <string>
#include <utility>

namespace ios {

// What bounds the work of one algorithm. A refusal carries the knob that applies to the
// algorithm that refused, and each front end words it for its users (a flag on the CLI, a
// field in the GUI); the engine never names a front end's option.
enum class WorkKnob : uint8_t {
    IosPruning,       // the IOS DP: r, s, part size, batch
    RafIos,           // RAF-IOS's chunk DP: operators per chunk / part size
    Metaflow,         // MetaFlow: search budget, region size, rules
    MemoryExpansions, // Serenity's memory DP: expansion limit, part size
    Specialization,   // specialization: batch sizes, devices
    ProgramSize,      // a stream program: launches, streams
};

// A search refused because its work (counted up front or while it runs) exceeds a limit: the
// time limit (TimeLimitReached) or a cap on states, candidates or memory. A UserError: front
// ends print it as one line, followed by their words for knob().
class WorkLimitReached : public UserError {
public:
    explicit WorkLimitReached(const std::string& message, WorkKnob knob = WorkKnob::IosPruning,
                              std::string file = {})
        : UserError(message, std::move(file)), knob_(knob) {}
    WorkKnob knob() const { return knob_; }

private:
    WorkKnob knob_;
};

// A search stopped at SearchControl::deadline, or refused because its estimate cannot end
// before it.
class TimeLimitReached : public WorkLimitReached {
public:
    using WorkLimitReached::WorkLimitReached;
};

} // namespace ios
