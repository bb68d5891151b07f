// SPDX-License-Identifier: Apache-2.0
// libFuzzer target for the ONNX loader (docs/onnx.md): any input either imports into a valid
// IR graph or throws ios::UserError. The first byte picks the options, so --allow-opaque and
// --input-shape paths are fuzzed too. Seeds: tests/fuzz/onnx_seeds (make_onnx_seeds.py).
#include "io/onnx_import.h"
#include "ir/validate.h"
#include "util/error.h"

#include <cstdint>
#include <cstdlib>
#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    if (size == 0)
        return 0;
    ios::io::ModelLoadOptions options;
    options.allowOpaque = (data[0] & 1) != 0;
    if ((data[0] & 2) != 0)
        options.inputShape = {1, 3 + (data[0] >> 6), 8 + ((data[0] >> 2) & 15), 8};
    const std::string_view bytes(reinterpret_cast<const char*>(data + 1), size - 1);
    try {
        ios::ir::Graph graph = ios::io::parseOnnx(bytes, "fuzz.onnx", options);
        if (graph.blocks.empty() || graph.operatorCount() == 0)
            std::abort();                       // an import must have operators
        ios::ir::validateAndInferShapes(graph); // already valid: must stay valid
    } catch (const ios::UserError&) {
        // Rejected with a message: the expected outcome for malformed input.
    }
    return 0;
}
