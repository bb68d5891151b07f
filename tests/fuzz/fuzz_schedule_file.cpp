// SPDX-License-Identifier: Apache-2.0
// libFuzzer target for the schedule-file loader (io/schedule_file.h): any input either loads
// for one of three bundled models or throws ios::UserError; a schedule that loads writes back
// to text that loads to the same schedule (a UserError there escapes: a finding). The models
// are read once (fuzz_support.h).
#include "fuzz_support.h"
#include "io/schedule_file.h"
#include "util/error.h"

#include <cstdint>
#include <cstdlib>
#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    const std::string_view text(reinterpret_cast<const char*>(data), size);
    // The file names its model; each is tried, so a mutated name reaches the other checks.
    for (const char* name : {"demo_inception_module", "squeezenet", "inception_v3"}) {
        const ios::fuzz::LoadedModel& m = ios::fuzz::sampleModel(name);
        ios::schedule::Schedule s;
        try {
            s = ios::io::parseScheduleFile(text, "fuzz", m.graph, m.dags);
        } catch (const ios::UserError&) {
            continue; // rejected with a message: the expected outcome for malformed input
        }
        const std::string written = ios::io::writeScheduleFile(m.graph, m.dags, s, "fuzz");
        if (!(ios::io::parseScheduleFile(written, "fuzz-rewritten", m.graph, m.dags) == s))
            std::abort(); // a round trip that changes the schedule is a finding
    }
    return 0;
}
