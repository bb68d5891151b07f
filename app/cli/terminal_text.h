// SPDX-License-Identifier: Apache-2.0
// Everything a command prints on stdout passes through util::escapeControl, the escaping that
// error messages use: names read from files (launch names, a program's policy, a device
// profile's or a cache's device, a trace's strategy, model and node names) can hold ESC, BEL or
// OSC sequences, and none of them reaches the terminal raw. Line breaks and tabs are the only
// control characters kept. JSON output passes unchanged (util::dumpJson escapes every control
// character itself), so the filter sits under every command instead of at each print.
#pragma once

#include <iosfwd>
#include <streambuf>
#include <string>

namespace ios::cli {

// A streambuf that escapes what it is given, line by line, into `target`. A partial line is
// written on flush, less a UTF-8 sequence still incomplete (kept for the next write).
class EscapingStreambuf : public std::streambuf {
public:
    explicit EscapingStreambuf(std::streambuf* target) : target_(target) {}
    ~EscapingStreambuf() override;
    EscapingStreambuf(const EscapingStreambuf&) = delete;
    EscapingStreambuf& operator=(const EscapingStreambuf&) = delete;
    // Forwards what is pending to the old target, then writes to `target`.
    void retarget(std::streambuf* target);

protected:
    int_type overflow(int_type ch) override;
    std::streamsize xsputn(const char* s, std::streamsize n) override;
    int sync() override;

private:
    // Escapes and forwards the pending text up to `keep` bytes from its end.
    void forward(size_t keep);

    std::streambuf* target_;
    std::string pending_;
};

// For its lifetime, `stream` (std::cout for runCommandLine) writes through an EscapingStreambuf
// over the buffer it had; the buffer is restored (and the rest flushed) on destruction.
class EscapedStream {
public:
    explicit EscapedStream(std::ostream& stream);
    ~EscapedStream();
    EscapedStream(const EscapedStream&) = delete;
    EscapedStream& operator=(const EscapedStream&) = delete;
    // From now on the escaped text goes to `target` (runCommandLine: std::cerr's buffer once a
    // data output claims standard output).
    void retarget(std::streambuf* target) { filter_.retarget(target); }

private:
    std::ostream& stream_;
    std::streambuf* original_;
    EscapingStreambuf filter_;
};

} // namespace ios::cli
