// SPDX-License-Identifier: Apache-2.0
// Options for loading a model file that only some formats use (today: ONNX import).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace ios::io {

struct ModelLoadOptions {
    // ONNX: N x C x H x W for the model input, overriding its declared (or dynamic) dims;
    // empty = use the declared dims. The IR is per sample, so N only has to be positive.
    std::vector<int64_t> inputShape;
    // ONNX: import operators the IR cannot describe as opaque operators (zero FLOPs, real
    // memory traffic) instead of failing with the list of them.
    bool allowOpaque = false;
    // Where a reader says what it read otherwise than the file literally says (IOS JSON: an
    // element-wise sum of different widths, read as the IOS authors' runtime computes it).
    // nullptr: not said.
    std::vector<std::string>* warnings = nullptr;
};

// "1x3x224x224" (also with ',' separators) → {1, 3, 224, 224}; token sequences "1x128x768"
// and "1xD" too (2 to 4 dims); throws ios::UserError.
std::vector<int64_t> parseInputShape(std::string_view text);

} // namespace ios::io
