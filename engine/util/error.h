// Errors that cross the engine's boundary: a user-facing message with file/node/field context.
#pragma once

#include "util/message_text.h"

#include <stdexcept>
#include <string>

namespace ios {

// A problem with the user's input (bad file, bad parameter). Front ends print what() and exit 1.
// what() is one line of text safe for a terminal: control characters and invalid UTF-8 of the
// file, node and message (names read from files) are escaped there (util::escapeControl), so
// a name holding ESC, NUL or a newline is shown as \x1B, \x00, \x0A and never cuts the text.
class UserError : public std::runtime_error {
public:
    UserError(std::string message, std::string file = {}, std::string node = {})
        : std::runtime_error(compose(message, file, node)), message_(std::move(message)),
          file_(std::move(file)), node_(std::move(node)) {}

    const std::string& message() const { return message_; }
    const std::string& file() const { return file_; }
    const std::string& node() const { return node_; }

    // The same error, now known to come from `file` (added by the loaders).
    UserError inFile(const std::string& file) const { return UserError(message_, file, node_); }

private:
    static std::string compose(const std::string& message, const std::string& file,
                               const std::string& node) {
        std::string out;
        if (!file.empty())
            out += file + ": ";
        if (!node.empty())
            out += "node '" + node + "': ";
        return util::escapeControl(out + message);
    }

    std::string message_;
    std::string file_;
    std::string node_;
};

// Thrown by long computations when their cancel token is set; never a user-visible failure.
class Cancelled : public std::runtime_error {
public:
    Cancelled() : std::runtime_error("cancelled") {}
};

} // namespace ios
