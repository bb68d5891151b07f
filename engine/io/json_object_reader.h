// SPDX-License-Identifier: Apache-2.0
// Strict reading of one JSON object of a model file (node_json.cpp): typed fields with ranges,
// errors naming the file path, the node and the field. Internal to engine/io.
#pragma once

#include "util/error.h"
#include "util/json_text.h"

#include <array>
#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace ios::io::detail {

using util::Json;

// An integer in [0, hi]. Floats, booleans and values beyond int64 (nlohmann stores those as
// unsigned or double) are rejected here, so nothing downstream can overflow.
inline bool toInt(const Json& v, int64_t hi, int64_t& out) {
    if (v.is_number_unsigned()) {
        const uint64_t u = v.get<uint64_t>();
        if (u > static_cast<uint64_t>(hi))
            return false;
        out = static_cast<int64_t>(u);
        return true;
    }
    if (!v.is_number_integer())
        return false;
    out = v.get<int64_t>();
    return out >= 0 && out <= hi;
}

inline std::string rangeText(int64_t hi) {
    return "[0, " + std::to_string(hi) + "]";
}

// The fields of one JSON object, with errors that say where: the node's name once it is
// known, else the path from the document root ("blocks[2].inner_nodes[5]").
class ObjectReader {
public:
    ObjectReader(const Json& object, std::string path) : j_(object), path_(std::move(path)) {
        if (!j_.is_object())
            fail("must be an object");
    }

    void setNode(std::string name) { node_ = std::move(name); }

    [[noreturn]] void fail(const std::string& what) const {
        if (node_.empty())
            throw UserError(path_ + ": " + what);
        throw UserError(what, {}, node_);
    }
    [[noreturn]] void failField(const char* key, const std::string& what) const {
        fail("field '" + std::string(key) + "' " + what);
    }

    const Json& field(const char* key) const {
        const auto it = j_.find(key);
        if (it == j_.end())
            fail("missing field '" + std::string(key) + "'");
        return *it;
    }
    std::string string(const char* key) const {
        const Json& v = field(key);
        if (!v.is_string())
            failField(key, "must be a string");
        return v.get<std::string>();
    }
    const Json& array(const char* key) const {
        const Json& v = field(key);
        if (!v.is_array())
            failField(key, "must be an array");
        return v;
    }
    int64_t integer(const char* key, int64_t hi) const {
        int64_t out = 0;
        if (!toInt(field(key), hi, out))
            failField(key, "must be an integer in " + rangeText(hi));
        return out;
    }
    // An optional integer in [0, hi]: `fallback` when the field is absent.
    int64_t integer(const char* key, int64_t hi, int64_t fallback) const {
        return j_.contains(key) ? integer(key, hi) : fallback;
    }
    // A fixed-length array of integers in [0, hi].
    template <size_t N> std::array<int64_t, N> integers(const char* key, int64_t hi) const {
        const Json& v = field(key);
        std::array<int64_t, N> out{};
        const bool ok = v.is_array() && v.size() == N && [&] {
            for (size_t i = 0; i < N; ++i)
                if (!toInt(v[i], hi, out[i]))
                    return false;
            return true;
        }();
        if (!ok)
            failField(key,
                      "must be an array of " + std::to_string(N) + " integers in " + rangeText(hi));
        return out;
    }
    // A non-empty array of integers in [lo, hi] (lo may be negative), at most `most` long.
    std::vector<int64_t> integerList(const char* key, int64_t lo, int64_t hi, size_t most) const {
        const Json& v = field(key);
        std::vector<int64_t> out;
        bool ok = v.is_array() && !v.empty() && v.size() <= most;
        for (size_t i = 0; ok && i < v.size(); ++i) {
            ok = v[i].is_number_integer() && v[i].get<int64_t>() >= lo && v[i].get<int64_t>() <= hi;
            if (ok)
                out.push_back(v[i].get<int64_t>());
        }
        if (!ok)
            failField(key, "must be an array of 1 to " + std::to_string(most) + " integers in [" +
                               std::to_string(lo) + ", " + std::to_string(hi) + "]");
        return out;
    }
    // A finite number in [lo, hi].
    double real(const char* key, double lo, double hi) const {
        const Json& v = field(key);
        if (!v.is_number() || !(v.get<double>() >= lo && v.get<double>() <= hi))
            failField(key,
                      "must be a number in [" + Json(lo).dump() + ", " + Json(hi).dump() + "]");
        return v.get<double>();
    }
    // An optional boolean: `fallback` when the field is absent.
    bool boolean(const char* key, bool fallback) const {
        const auto it = j_.find(key);
        if (it == j_.end())
            return fallback;
        if (!it->is_boolean())
            failField(key, "must be true or false");
        return it->get<bool>();
    }
    template <typename Enum>
    Enum enumeration(const char* key, std::optional<Enum> (*parse)(std::string_view),
                     const char* allowed) const {
        const std::optional<Enum> e = parse(string(key));
        if (!e)
            failField(key, std::string("must be one of ") + allowed);
        return *e;
    }
    // Strict: an unknown field would be lost on writing, so it is an error, not a warning.
    void allowOnly(std::initializer_list<const char*> keys) const {
        for (const auto& item : j_.items()) {
            bool known = false;
            for (const char* k : keys)
                known = known || item.key() == k;
            if (!known)
                fail("unknown field '" + item.key() + "'");
        }
    }

private:
    const Json& j_;
    std::string path_;
    std::string node_;
};

} // namespace ios::io::detail
