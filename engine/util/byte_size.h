// SPDX-License-Identifier: Apache-2.0
// Byte sizes as people type them ("24 MiB", "19.25MiB", "512k", "64 MB", "1048576"): the one
// parser behind the CLI's --memory-budget and the GUI's memory budget field.
#pragma once

#include <cstdint>
#include <string_view>

namespace ios::util {

inline constexpr int64_t kMaxByteSize = int64_t{1} << 50;

struct ByteSize {
    enum class Status : uint8_t { Ok, Malformed, TooLarge };
    Status status = Status::Malformed;
    int64_t bytes = 0;
};

// A non-negative number (digits, optionally a fraction) and an optional unit, case-insensitive,
// spaces allowed around both: none or B = bytes; K, M, G, T or KiB, MiB, GiB, TiB = powers of
// 1024; KB, MB, GB, TB = powers of 1000 ("Ki" without its B is refused). Rounded to whole
// bytes; more than kMaxByteSize is TooLarge.
ByteSize parseByteSize(std::string_view text);

} // namespace ios::util
