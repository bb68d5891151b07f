// SPDX-License-Identifier: Apache-2.0
// Checked 64-bit integer arithmetic: the one place that decides whether a sum, difference,
// product or quotient of sizes, counts or folded ONNX values fits in int64. Every result is
// std::nullopt where the exact value does not fit (or is undefined: division by zero,
// INT64_MIN / -1); callers turn that into a UserError that names the node or field.
#pragma once

#include <cstdint>
#include <limits>
#include <optional>

namespace ios::checked {

inline std::optional<int64_t> add(int64_t a, int64_t b) {
    int64_t r = 0;
    if (__builtin_add_overflow(a, b, &r))
        return std::nullopt;
    return r;
}

inline std::optional<int64_t> sub(int64_t a, int64_t b) {
    int64_t r = 0;
    if (__builtin_sub_overflow(a, b, &r))
        return std::nullopt;
    return r;
}

inline std::optional<int64_t> mul(int64_t a, int64_t b) {
    int64_t r = 0;
    if (__builtin_mul_overflow(a, b, &r))
        return std::nullopt;
    return r;
}

// Truncating division (C++ and ONNX integer Div); none for b == 0 and INT64_MIN / -1.
inline std::optional<int64_t> div(int64_t a, int64_t b) {
    if (b == 0 || (a == std::numeric_limits<int64_t>::min() && b == -1))
        return std::nullopt;
    return a / b;
}

// Optionals chain: an absent operand gives an absent result.
inline std::optional<int64_t> add(std::optional<int64_t> a, int64_t b) {
    return a ? add(*a, b) : std::nullopt;
}
inline std::optional<int64_t> mul(std::optional<int64_t> a, int64_t b) {
    return a ? mul(*a, b) : std::nullopt;
}

// Product of a range of integers (1 for an empty range), none on overflow.
template <class Range> std::optional<int64_t> product(const Range& values) {
    std::optional<int64_t> p = 1;
    for (int64_t v : values)
        if (!(p = mul(p, v)))
            return std::nullopt;
    return p;
}

} // namespace ios::checked
