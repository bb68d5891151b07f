// SPDX-License-Identifier: Apache-2.0
#include "util/message_text.h"

#include <cmath>
#include <cstdio>

namespace ios::util {

std::string formatNumber(double v) {
    if (std::isnan(v))
        return "nan";
    if (std::isinf(v))
        return v > 0 ? "inf" : "-inf";
    if (v == 0)
        return "0"; // also -0
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.6g", v);
    return buf;
}

namespace {

void appendHex(std::string& out, const char* prefix, unsigned value, int digits) {
    char buf[16];
    std::snprintf(buf, sizeof buf, "%s%0*X", prefix, digits, value);
    out += buf;
}

// Length of the valid UTF-8 sequence at s[i] (1..4) and its code point, or 0 when invalid.
size_t utf8Sequence(std::string_view s, size_t i, unsigned& cp) {
    const auto b = static_cast<unsigned char>(s[i]);
    size_t len = 0;
    unsigned min = 0;
    if (b < 0x80) {
        cp = b;
        return 1;
    }
    if (b >= 0xC2 && b <= 0xDF) {
        len = 2, cp = b & 0x1Fu, min = 0x80;
    } else if (b >= 0xE0 && b <= 0xEF) {
        len = 3, cp = b & 0x0Fu, min = 0x800;
    } else if (b >= 0xF0 && b <= 0xF4) {
        len = 4, cp = b & 0x07u, min = 0x10000;
    } else {
        return 0;
    }
    if (i + len > s.size())
        return 0;
    for (size_t k = 1; k < len; ++k) {
        const auto c = static_cast<unsigned char>(s[i + k]);
        if ((c & 0xC0u) != 0x80u)
            return 0;
        cp = (cp << 6) | (c & 0x3Fu);
    }
    if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF))
        return 0; // overlong, beyond Unicode, or a surrogate
    return len;
}

} // namespace

std::string escapeControl(std::string_view text) {
    std::string out;
    out.reserve(text.size());
    for (size_t i = 0; i < text.size();) {
        unsigned cp = 0;
        const size_t len = utf8Sequence(text, i, cp);
        if (len == 0) {
            appendHex(out, "\\x", static_cast<unsigned char>(text[i]), 2);
            ++i;
            continue;
        }
        if (cp < 0x20 || cp == 0x7F)
            appendHex(out, "\\x", cp, 2);
        else if (cp >= 0x80 && cp <= 0x9F)
            appendHex(out, "\\u", cp, 4);
        else
            out.append(text.substr(i, len));
        i += len;
    }
    return out;
}

} // namespace ios::util
