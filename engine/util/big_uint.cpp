// SPDX-License-Identifier: Apache-2.0
#include "util/big_uint.h"

#include <algorithm>

namespace ios {

std::string toDecimal(UInt128 v) {
    if (v == 0)
        return "0";
    std::string out;
    while (v != 0) {
        out.push_back(static_cast<char>('0' + static_cast<int>(v % 10)));
        v /= 10;
    }
    std::reverse(out.begin(), out.end());
    return out;
}

BigUint::BigUint(uint64_t v) {
    while (v != 0) {
        limbs_.push_back(static_cast<uint32_t>(v));
        v >>= 32;
    }
}

BigUint BigUint::fromU128(UInt128 v) {
    BigUint b;
    while (v != 0) {
        b.limbs_.push_back(static_cast<uint32_t>(v));
        v >>= 32;
    }
    return b;
}

void BigUint::trim() {
    while (!limbs_.empty() && limbs_.back() == 0)
        limbs_.pop_back();
}

BigUint& BigUint::operator+=(const BigUint& o) {
    if (limbs_.size() < o.limbs_.size())
        limbs_.resize(o.limbs_.size(), 0);
    uint64_t carry = 0;
    for (size_t i = 0; i < limbs_.size(); ++i) {
        uint64_t sum = uint64_t{limbs_[i]} + carry + (i < o.limbs_.size() ? o.limbs_[i] : 0);
        limbs_[i] = static_cast<uint32_t>(sum);
        carry = sum >> 32;
    }
    if (carry != 0)
        limbs_.push_back(static_cast<uint32_t>(carry));
    return *this;
}

BigUint& BigUint::operator*=(const BigUint& o) {
    if (isZero() || o.isZero()) {
        limbs_.clear();
        return *this;
    }
    std::vector<uint32_t> out(limbs_.size() + o.limbs_.size(), 0);
    for (size_t i = 0; i < limbs_.size(); ++i) {
        uint64_t carry = 0;
        for (size_t j = 0; j < o.limbs_.size(); ++j) {
            uint64_t cur = uint64_t{out[i + j]} + uint64_t{limbs_[i]} * o.limbs_[j] + carry;
            out[i + j] = static_cast<uint32_t>(cur);
            carry = cur >> 32;
        }
        out[i + o.limbs_.size()] = static_cast<uint32_t>(carry);
    }
    limbs_ = std::move(out);
    trim();
    return *this;
}

std::strong_ordering operator<=>(const BigUint& a, const BigUint& b) {
    if (a.limbs_.size() != b.limbs_.size())
        return a.limbs_.size() <=> b.limbs_.size();
    for (size_t i = a.limbs_.size(); i-- > 0;)
        if (a.limbs_[i] != b.limbs_[i])
            return a.limbs_[i] <=> b.limbs_[i];
    return std::strong_ordering::equal;
}

std::string BigUint::toString() const {
    if (isZero())
        return "0";
    // Repeated division by 10^9 of a copy; fine for the few hundred bits counts reach.
    std::vector<uint32_t> n = limbs_;
    std::vector<uint32_t> chunks;
    while (!n.empty()) {
        uint64_t rem = 0;
        for (size_t i = n.size(); i-- > 0;) {
            uint64_t cur = (rem << 32) | n[i];
            n[i] = static_cast<uint32_t>(cur / 1'000'000'000u);
            rem = cur % 1'000'000'000u;
        }
        chunks.push_back(static_cast<uint32_t>(rem));
        while (!n.empty() && n.back() == 0)
            n.pop_back();
    }
    std::string out = std::to_string(chunks.back());
    for (size_t i = chunks.size() - 1; i-- > 0;) {
        std::string part = std::to_string(chunks[i]);
        out += std::string(9 - part.size(), '0') + part;
    }
    return out;
}

bool BigUint::fromString(const std::string& s, BigUint* out) {
    if (s.empty() || !std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; }))
        return false;
    BigUint v;
    const BigUint ten(10);
    for (char c : s) {
        v *= ten;
        v += BigUint(static_cast<uint64_t>(c - '0'));
    }
    *out = std::move(v);
    return true;
}

double BigUint::toDouble() const {
    double d = 0;
    for (size_t i = limbs_.size(); i-- > 0;)
        d = d * 4294967296.0 + limbs_[i];
    return d;
}

} // namespace ios
