// SPDX-License-Identifier: Apache-2.0
// libFuzzer target for the measurement-results loader (analysis/measured_validation.h,
// `ios-sched validate`): any input either loads or throws ios::UserError; every schedule it
// yields has a name, a batch >= 1 and a latency in (0, kMaxStageLatencyMs], and its schedule
// file name stays inside the results' folder or is refused with a UserError.
#include "analysis/measured_validation.h"
#include "cost/cost_model.h"
#include "util/error.h"

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <string_view>

namespace fs = std::filesystem;

// A folder that does not exist (so no link inside it can point elsewhere).
const char* const kFolder = "fuzz-results-folder";

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    const std::string_view text(reinterpret_cast<const char*>(data), size);
    try {
        for (const ios::analysis::MeasuredSchedule& m :
             ios::analysis::parseMeasuredResults(text, "fuzz")) {
            if (!(m.measuredMs > 0 && m.measuredMs <= ios::cost::kMaxStageLatencyMs) ||
                m.batch < 1 || (m.model.empty() && m.run.empty()))
                std::abort(); // a schedule without a latency or a name is a finding
            const fs::path file =
                fs::weakly_canonical(fs::absolute(ios::analysis::scheduleFileFor(kFolder, m)));
            const fs::path root = fs::weakly_canonical(fs::absolute(kFolder));
            if (std::mismatch(root.begin(), root.end(), file.begin(), file.end()).first !=
                root.end())
                std::abort(); // a results file must not choose where its schedules are read
        }
    } catch (const ios::UserError&) {
        // Rejected with a message: the expected outcome for malformed input.
    }
    return 0;
}
