// SPDX-License-Identifier: Apache-2.0
// Errors that cross the engine's boundary: a user-facing message with file/node/field context.
#pragma once

#include "util/message_text.h"

#include <cstdint>
#include <stdexcept>
#include <string>

namespace ios {

// What the user can do about a UserError, for each front end to word with its own controls
// (the CLI names a flag, app/cli/error_hints.cpp; the GUI a menu item or a setting,
// app/gui/error_hints.cpp). Engine messages describe the problem neutrally and never name a
// front end's option (tests/tst_error_hints.cpp checks the engine's string literals).
enum class Hint : uint8_t {
    None,
    AllowOpaque,       // import the operators the IR cannot describe as opaque ones
    InputShape,        // give the model input's shape N x C x H x W
    LowerPartSize,     // cut the blocks into smaller parts
    ExplicitParts,     // the block's parts are the model's own: the part size does not apply
    LowerBatch,        // a smaller batch or fewer bytes per element
    ChooseCostModel,   // the cost-model choice is not one the program knows
    MeasureOnGpu,      // measure the stages with the measured cost model on a GPU
    ChooseCacheDevice, // pick one device of a measurement cache that holds several
    RaiseBudget,       // a larger memory budget
    StoreFallback,     // price the stages a store lacks on the simulated GPU
    CudaBackend,       // the GPU backend is missing something: install it, or dry-run on the mock
};

// A problem with the user's input (bad file, bad parameter). Front ends print what() and exit 1.
// what() is one line of text safe for a terminal: control characters and invalid UTF-8 of the
// file, node and message (names read from files) are escaped there (util::escapeControl), so
// a name holding ESC, NUL or a newline is shown as \x1B, \x00, \x0A and never cuts the text.
class UserError : public std::runtime_error {
public:
    UserError(std::string message, std::string file = {}, std::string node = {},
              Hint hint = Hint::None)
        : std::runtime_error(compose(message, file, node)), message_(std::move(message)),
          file_(std::move(file)), node_(std::move(node)), hint_(hint) {}
    UserError(std::string message, Hint hint) : UserError(std::move(message), {}, {}, hint) {}

    const std::string& message() const { return message_; }
    const std::string& file() const { return file_; }
    const std::string& node() const { return node_; }
    Hint hint() const { return hint_; }

    // The same error, now known to come from `file` (added by the loaders).
    UserError inFile(const std::string& file) const {
        return UserError(message_, file, node_, hint_);
    }

private:
    static std::string compose(const std::string& message, const std::string& file,
                               const std::string& node) {
        std::string out;
        if (!file.empty())
            out += (file == "-" ? std::string("standard input") : file) + ": ";
        if (!node.empty())
            out += "node '" + node + "': ";
        return util::escapeControl(out + message);
    }

    std::string message_;
    std::string file_;
    std::string node_;
    Hint hint_ = Hint::None;
};

// Thrown by long computations when their cancel token is set; never a user-visible failure.
class Cancelled : public std::runtime_error {
public:
    Cancelled() : std::runtime_error("cancelled") {}
};

} // namespace ios
