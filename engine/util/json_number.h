// SPDX-License-Identifier: Apache-2.0
// Numbers read from JSON documents (caches, results files, traces): an exact integer in a
// range or a finite number in a range, else a UserError naming the file and the field and
// giving the allowed range. nlohmann's get<int>() would narrow 2^32+1 to 1 silently.
#pragma once

#include "util/json_text.h"

#include <cstdint>
#include <string>

namespace ios::util {

// `v` as an integer in [lo, hi]; floats (1.0), booleans, strings and out-of-range values are
// refused: "FILE: FIELD must be an integer in [lo, hi] (got V)".
int64_t jsonInteger(const Json& v, int64_t lo, int64_t hi, const std::string& field,
                    const std::string& file);

// `v` as a finite number in [lo, hi] (an integer is accepted as a number).
double jsonNumber(const Json& v, double lo, double hi, const std::string& field,
                  const std::string& file);

// The one versioning rule of every file format the tools read (native models, schedules,
// measurement caches, device profiles): `doc` must hold "version" as the JSON integer
// `supported` exactly; 1.0, 1e0, "1" and true are refused like 2 is, with one message:
// "FILE: \"version\" must be the integer 1 (the WHAT version this build reads; got 1.0)".
void requireFormatVersion(const Json& doc, int supported, const std::string& what,
                          const std::string& file);

// value.dump(indent) for every JSON document the tools write (--json output, caches), with DEL
// and the C1 controls escaped too (\u007f, \u0080..\u009f: nlohmann escapes only C0), refusing
// a NaN or infinite number (nlohmann would write it as null) with a UserError naming its path
// ("/rows/0/latency_ms"), and invalid UTF-8 like parseJsonText does.
std::string dumpJson(const Json& value, int indent);

} // namespace ios::util
