// SPDX-License-Identifier: Apache-2.0
// libFuzzer target for the native model loader (and its explicit parts): any input either
// loads or throws ios::UserError; anything that loads round-trips to the same graph.
#include "io/native_json.h"
#include "ir/block_dag.h"
#include "util/error.h"

#include <cstdint>
#include <cstdlib>
#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    const std::string_view text(reinterpret_cast<const char*>(data), size);
    try {
        const ios::ir::Graph graph = ios::io::parseNativeJson(text, "fuzz");
        const std::string written = ios::io::writeNativeJson(graph);
        if (!(ios::io::parseNativeJson(written, "fuzz-rewritten") == graph))
            std::abort(); // a round trip that loses information is a finding
        // Accepted parts must be usable by the schedulers as they are.
        for (const ios::ir::BlockDag& dag : ios::ir::buildDags(graph))
            if (dag.partOf.size() != dag.ops.size())
                std::abort();
    } catch (const ios::UserError&) {
        // Rejected with a message: the expected outcome for malformed input.
    }
    return 0;
}
