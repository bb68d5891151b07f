// SPDX-License-Identifier: Apache-2.0
// libFuzzer target for the stream-program file loader (io/program_json.h): any input either
// loads for one of four bundled models or throws ios::UserError; a program that loads passes
// the happens-before verifier, simulates on the simulated V100 to a finite latency, and writes
// back to text that loads to the same program (a UserError there escapes: a finding).
#include "cost/device_profile.h"
#include "cost/simulated_gpu_cost_model.h"
#include "eval/program_eval.h"
#include "fuzz_support.h"
#include "io/program_json.h"
#include "schedule/program_verify.h"
#include "util/error.h"

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    const std::string_view text(reinterpret_cast<const char*>(data), size);
    for (const char* name :
         {"demo_inception_module", "demo_random_dag", "squeezenet", "inception_v3"}) {
        const ios::fuzz::LoadedModel& m = ios::fuzz::sampleModel(name);
        ios::schedule::Program p;
        try {
            p = ios::io::parseProgramFile(text, "fuzz", m.dags);
        } catch (const ios::UserError&) {
            continue; // rejected with a message: the expected outcome for malformed input
        }
        for (size_t b = 0; b < m.dags.size(); ++b)
            if (!ios::schedule::programProblem(m.dags[b], p[b]).empty())
                std::abort(); // loaded but not valid
        static const ios::cost::DeviceProfile v100 = ios::cost::loadDevice("V100");
        const ios::cost::SimulatedGpuCostModel cost(m.graph, v100);
        const double ms = ios::eval::programLatencyMs(m.dags, p, cost);
        if (!std::isfinite(ms) || ms < 0)
            std::abort();
        const std::string written = ios::io::programFileText(m.graph.name, "fuzz", ms, m.dags, p);
        if (!(ios::io::parseProgramFile(written, "fuzz-rewritten", m.dags) == p))
            std::abort(); // a round trip that changes the program is a finding
    }
    return 0;
}
