// SPDX-License-Identifier: Apache-2.0
// An exact unsigned integer of any size: schedule counts reach 9.2e22 per part and their
// product over parts exceeds 128 bits (docs/algorithms.md §3 "Statistics").
#pragma once

#include <compare>
#include <cstdint>
#include <string>
#include <vector>

namespace ios {

// 128-bit unsigned arithmetic (a GCC/Clang extension; __extension__ keeps -Wpedantic quiet).
__extension__ typedef unsigned __int128 UInt128;

// Decimal text of a 128-bit value.
std::string toDecimal(UInt128 v);

class BigUint {
public:
    BigUint() = default;
    BigUint(uint64_t v); // NOLINT(google-explicit-constructor): counts convert freely
    static BigUint fromU128(UInt128 v);

    BigUint& operator+=(const BigUint& o);
    BigUint& operator*=(const BigUint& o);
    friend BigUint operator+(BigUint a, const BigUint& b) { return a += b; }
    friend BigUint operator*(BigUint a, const BigUint& b) { return a *= b; }
    friend bool operator==(const BigUint&, const BigUint&) = default;
    friend std::strong_ordering operator<=>(const BigUint& a, const BigUint& b);

    bool isZero() const { return limbs_.empty(); }
    std::string toString() const; // decimal, no separators
    // Parses a decimal string of digits; returns false (and leaves *out alone) otherwise.
    static bool fromString(const std::string& s, BigUint* out);
    double toDouble() const;

private:
    void trim();
    std::vector<uint32_t> limbs_; // little-endian base 2^32, no leading zero limbs
};

} // namespace ios
