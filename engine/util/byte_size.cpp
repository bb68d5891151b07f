// SPDX-License-Identifier: Apache-2.0
#include "util/byte_size.h"

#include <cctype>
#include <cmath>
#include <string>

namespace ios::util {

namespace {

std::string_view trim(std::string_view s) {
    while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front())) != 0)
        s.remove_prefix(1);
    while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back())) != 0)
        s.remove_suffix(1);
    return s;
}

} // namespace

ByteSize parseByteSize(std::string_view text) {
    ByteSize out;
    std::string_view s = trim(text);
    size_t i = 0;
    std::string number;
    bool digits = false;
    while (i < s.size() && std::isdigit(static_cast<unsigned char>(s[i])) != 0) {
        number += s[i++];
        digits = true;
    }
    if (i < s.size() && s[i] == '.') {
        number += s[i++];
        while (i < s.size() && std::isdigit(static_cast<unsigned char>(s[i])) != 0) {
            number += s[i++];
            digits = true;
        }
    }
    if (!digits)
        return out;
    std::string unit;
    for (char c : trim(s.substr(i)))
        unit += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    double scale = 1;
    if (!unit.empty() && unit != "b") {
        const size_t power = std::string_view("kmgt").find(unit.front()) + 1;
        const std::string rest = unit.substr(1);
        if (power == 0 || (rest != "" && rest != "b" && rest != "ib"))
            return out;
        scale = std::pow(rest == "b" ? 1000.0 : 1024.0, static_cast<double>(power));
    }
    const double bytes = std::stod(number) * scale;
    if (!std::isfinite(bytes) || bytes > static_cast<double>(kMaxByteSize)) {
        out.status = ByteSize::Status::TooLarge;
        return out;
    }
    out.status = ByteSize::Status::Ok;
    out.bytes = static_cast<int64_t>(std::llround(bytes));
    return out;
}

} // namespace ios::util
