// SPDX-License-Identifier: Apache-2.0
// The one way the tool reads a file (models, parts, device profiles, measurement caches, results,
// schedules, traces; CLI and GUI): regular files only, refused by size before reading.
#pragma once

#include <cstddef>
#include <filesystem>
#include <istream>
#include <memory>
#include <string>

namespace ios::util {

// "-" names standard input wherever a file is read (isStandardInput): it is read once, to its
// end, and kept, so every reader of "-" in the process sees the same bytes; the size caps
// below apply to it as to files. Messages name it "standard input" (ios::UserError).
inline bool isStandardInput(const std::filesystem::path& path) {
    return path.native() == "-";
}

// What a file is read as: decides the size cap and the words of the messages.
enum class InputKind {
    Model,            // IOS JSON or native JSON model
    OnnxModel,        // ONNX protobuf (weights included, so far larger caps)
    Parts,            // <model>.parts.json beside an IOS JSON model
    DeviceProfile,    // --device FILE
    MeasurementCache, // --cost-model cache:FILE, --measure-cache FILE
    Results,          // validate's results.json
    Schedule,         // --schedule FILE, validate's schedule files
    Trace,            // Chrome trace opened for comparison
    Text,             // anything else the tool reads (tests, tools)
};

// The cap for `kind` in bytes (docs/formats.md "Input files" lists them).
size_t maxInputBytes(InputKind kind);
// "model", "device profile", ...: the words used in messages.
const char* inputKindName(InputKind kind);

// Opens `path` without blocking (O_NONBLOCK: a FIFO cannot hang us), fstat()s the open file,
// refuses anything that is not a regular file (FIFO, device, socket, directory; symlinks are
// followed, so a link to /dev/zero is a device) and a size over maxInputBytes(kind) before
// reading one byte, then reads at most that many bytes. Throws ios::UserError naming `path`.
std::string readInputFile(const std::filesystem::path& path, InputKind kind);

// `path` as a stream, opened and checked as readInputFile does (regular files only, never
// blocking on a FIFO) but with no size cap: for the tool's own files, read incrementally
// whatever their size (measurement caches, the profiling journal). A read error throws
// ios::UserError naming `path`.
std::unique_ptr<std::istream> openInputStream(const std::filesystem::path& path, InputKind kind);

// The first `maxBytes` bytes (or fewer) of `path`, with the same checks (the GUI's sniffing of
// a dropped file's kind).
std::string readInputHead(const std::filesystem::path& path, size_t maxBytes);

// A file named by another file (a results file's "model", a schedule named after its "run"):
// `reference` must be a plain relative path that, with every symlink resolved, stays inside
// `folder`. Returns folder / reference. Throws ios::UserError naming `source` and `field` for
// an empty, absolute or escaping reference ("../x", a symlink out of the folder).
std::filesystem::path resolveInside(const std::filesystem::path& folder,
                                    const std::string& reference, const std::string& field,
                                    const std::string& source);

// Whether `path` exists at all (as anything: a FIFO or a dangling link counts), without
// opening it: optional inputs (the parts file beside a model) are read through
// readInputFile() when present, so a FIFO there is refused rather than skipped.
bool inputExists(const std::filesystem::path& path);

} // namespace ios::util
