// SPDX-License-Identifier: Apache-2.0
#include "util/json_number.h"

#include "util/error.h"
#include "util/message_text.h"

#include <cmath>
#include <cstdio>

namespace ios::util {

namespace {

// The offending value, short: numbers compactly, anything else as its JSON type.
std::string gotText(const Json& v) {
    if (v.is_number_unsigned())
        return std::to_string(v.get<uint64_t>());
    if (v.is_number_integer())
        return std::to_string(v.get<int64_t>());
    if (v.is_number())
        return formatNumber(v.get<double>());
    return std::string("a ") + v.type_name();
}

} // namespace

int64_t jsonInteger(const Json& v, int64_t lo, int64_t hi, const std::string& field,
                    const std::string& file) {
    bool ok = false;
    int64_t out = 0;
    if (v.is_number_unsigned()) {
        const uint64_t u = v.get<uint64_t>();
        ok = hi >= 0 && u <= static_cast<uint64_t>(hi) && static_cast<int64_t>(u) >= lo;
        out = ok ? static_cast<int64_t>(u) : 0;
    } else if (v.is_number_integer()) {
        out = v.get<int64_t>();
        ok = out >= lo && out <= hi;
    }
    if (!ok)
        throw UserError(field + " must be an integer in [" + std::to_string(lo) + ", " +
                            std::to_string(hi) + "] (got " + gotText(v) + ")",
                        file);
    return out;
}

double jsonNumber(const Json& v, double lo, double hi, const std::string& field,
                  const std::string& file) {
    const double d = v.is_number() ? v.get<double>() : std::nan("");
    if (!(d >= lo && d <= hi)) // false for NaN
        throw UserError(field + " must be a number in [" + formatNumber(lo) + ", " +
                            formatNumber(hi) + "] (got " + gotText(v) + ")",
                        file);
    return d;
}

namespace {

// A version as it was written: an integral float keeps a ".0" so that 1.0 and 1e0 do not read
// as the 1 they are refused for being.
std::string versionText(const Json& v) {
    if (v.is_number_float()) {
        const double d = v.get<double>();
        const std::string text = formatNumber(d);
        const bool integral = std::isfinite(d) && d == std::floor(d) && std::fabs(d) < 1e15;
        return integral ? text + ".0" : text;
    }
    if (v.is_string())
        return "a string";
    return gotText(v);
}

} // namespace

void requireFormatVersion(const Json& doc, int supported, const std::string& what,
                          const std::string& file) {
    const auto version = doc.is_object() ? doc.find("version") : doc.end();
    const bool present = doc.is_object() && version != doc.end();
    const bool ok = present && (version->is_number_integer() || version->is_number_unsigned()) &&
                    *version == Json(supported);
    if (!ok)
        throw UserError("\"version\" must be the integer " + std::to_string(supported) + " (the " +
                            what + " version this build reads; got " +
                            (present ? versionText(*version) : std::string("none")) + ")",
                        file);
}

namespace {

void requireFinite(const Json& v, const std::string& path) {
    if (v.is_number_float() && !std::isfinite(v.get<double>()))
        throw UserError("cannot write " + formatNumber(v.get<double>()) + " at " +
                        (path.empty() ? "/" : path) +
                        " as JSON: a number must be finite (this is a bug; please report it)");
    if (v.is_object())
        for (auto it = v.begin(); it != v.end(); ++it)
            requireFinite(it.value(), path + "/" + it.key());
    else if (v.is_array())
        for (size_t i = 0; i < v.size(); ++i)
            requireFinite(v[i], path + "/" + std::to_string(i));
}

// nlohmann escapes C0 controls only: DEL and the C1 range (U+0080..U+009F, 0xC2 0x80..0x9F in
// valid UTF-8) are escaped here too, so no control character of a name reaches a terminal that
// shows the JSON. Outside strings JSON text is ASCII without them: a byte scan is exact.
std::string escapeDelAndC1(std::string text) {
    std::string out;
    out.reserve(text.size());
    for (size_t i = 0; i < text.size(); ++i) {
        const auto b = static_cast<unsigned char>(text[i]);
        const auto next = i + 1 < text.size() ? static_cast<unsigned char>(text[i + 1]) : 0u;
        if (b == 0x7F) {
            out += "\\u007f";
        } else if (b == 0xC2 && next >= 0x80 && next <= 0x9F) {
            char buf[8];
            std::snprintf(buf, sizeof buf, "\\u%04x", next);
            out += buf;
            ++i;
        } else {
            out += text[i];
        }
    }
    return out;
}

} // namespace

std::string dumpJson(const Json& value, int indent) {
    requireFinite(value, "");
    try {
        return escapeDelAndC1(value.dump(indent, ' ', false, Json::error_handler_t::strict));
    } catch (const Json::exception&) {
        throw UserError("cannot write a string that is not valid UTF-8 as JSON");
    }
}

} // namespace ios::util
