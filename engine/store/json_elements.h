// SPDX-License-Identifier: Apache-2.0
// Reading a large JSON document incrementally (store imports, docs/formats.md "Measurement
// store"): the document is one object whose big arrays (a store's "samples", a legacy
// cache's "entries") are handed over one element at a time and never held whole, so a file
// of any size the disk holds is read in bounded memory. Everything else (the header: format,
// version, ...) is built as usual. SAX over an std::ifstream: no input cap applies, the
// elements are validated by the caller.
#pragma once

#include "util/json_text.h"

#include <cstddef>
#include <filesystem>
#include <functional>
#include <set>
#include <string>

namespace ios::store {

struct JsonElementHandlers {
    // Keys of the top-level object whose array values are streamed.
    std::set<std::string> streamed;
    // Called when a streamed array starts, with the header read so far (keys before it).
    std::function<void(const std::string& key, const util::Json& header)> arrayStart;
    // Called for each element of a streamed array, with its index.
    std::function<void(const std::string& key, size_t index, const util::Json& element)> element;
};

// Reads `file`; returns the header (the top-level object without the streamed arrays; each
// streamed key holds its element count). Throws ios::UserError naming the file for an
// unreadable file, a syntax error (with the byte offset), a top level that is not an object,
// a repeated key, nesting deeper than util::kMaxJsonDepth, and a streamed key whose value is
// not an array; the handlers' own UserErrors pass through.
util::Json readJsonElements(const std::filesystem::path& file, const JsonElementHandlers& handlers);

} // namespace ios::store
