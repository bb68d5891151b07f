// SPDX-License-Identifier: Apache-2.0
#include "message_mode.h"

#include <algorithm>
#include <iostream>
#include <unistd.h>

namespace ios::cli {

namespace {

MessageMode& mode() {
    static MessageMode m;
    return m;
}

class NullBuffer final : public std::streambuf {
protected:
    int_type overflow(int_type c) override { return traits_type::not_eof(c); }
    std::streamsize xsputn(const char*, std::streamsize n) override { return n; }
};

} // namespace

MessageMode takeMessageOptions(std::vector<std::string>& args) {
    MessageMode m;
    const auto end = std::find(args.begin(), args.end(), "--");
    const auto kept = std::remove_if(args.begin(), end, [&m](const std::string& a) {
        if (a == "--quiet" || a == "-q")
            return m.quiet = true;
        if (a == "--progress")
            return m.forceProgress = true;
        return false;
    });
    args.erase(kept, end);
    return m;
}

void setMessageMode(MessageMode m) {
    mode() = m;
}

const MessageMode& messageMode() {
    return mode();
}

bool progressOnTerminal() {
    return isatty(STDERR_FILENO) == 1;
}

bool showProgress() {
    return !mode().quiet && (mode().forceProgress || progressOnTerminal());
}

std::ostream& notes() {
    static NullBuffer buffer;
    static std::ostream dropped(&buffer);
    return mode().quiet ? dropped : std::cerr;
}

} // namespace ios::cli
