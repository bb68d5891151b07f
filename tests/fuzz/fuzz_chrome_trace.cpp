// SPDX-License-Identifier: Apache-2.0
// libFuzzer target for the Chrome trace importer (io/trace_import.h): any input either loads
// or throws ios::UserError. A trace that loads must export (io/trace_export.h) to a trace
// that loads again with the same stages and kernels (a UserError there escapes: a finding).
#include "io/trace_export.h"
#include "io/trace_import.h"
#include "util/error.h"

#include <cstdint>
#include <cstdlib>
#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    const std::string_view text(reinterpret_cast<const char*>(data), size);
    ios::io::TraceInfo info;
    ios::eval::Timeline tl;
    try {
        tl = ios::io::parseChromeTrace(text, "fuzz", &info);
    } catch (const ios::UserError&) {
        return 0; // rejected with a message: the expected outcome for malformed input
    }
    const ios::eval::Timeline again =
        ios::io::parseChromeTrace(ios::io::chromeTraceJson(tl, info), "fuzz-exported");
    if (again.stages.size() != tl.stages.size() || again.kernels.size() != tl.kernels.size())
        std::abort(); // an imported trace that does not export and load back is a finding
    (void)ios::io::timelineCsv(tl);
    return 0;
}
