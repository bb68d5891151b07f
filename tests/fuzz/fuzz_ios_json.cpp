// SPDX-License-Identifier: Apache-2.0
// libFuzzer target for the IOS JSON loader: any input either loads or throws ios::UserError;
// anything that loads writes back to text that loads to the same graph.
#include "io/dot_export.h"
#include "io/ios_json.h"
#include "util/error.h"

#include <cstdint>
#include <cstdlib>
#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    const std::string_view text(reinterpret_cast<const char*>(data), size);
    try {
        const ios::ir::Graph graph = ios::io::parseIosJson(text, "fuzz");
        const std::string written = ios::io::writeIosJson(graph);
        if (!(ios::io::parseIosJson(written, "fuzz-rewritten") == graph))
            std::abort(); // a round trip that loses information is a finding
        if (ios::io::writeDot(graph).empty())
            std::abort();
    } catch (const ios::UserError&) {
        // Rejected with a message: the expected outcome for malformed input.
    }
    return 0;
}
