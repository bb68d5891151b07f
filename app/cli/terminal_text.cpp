// SPDX-License-Identifier: Apache-2.0
#include "terminal_text.h"

#include "util/message_text.h"

#include <ostream>

namespace ios::cli {

namespace {

// Bytes at the end of `text` that begin a UTF-8 sequence not yet complete (0 to 3).
size_t incompleteUtf8Tail(const std::string& text) {
    const size_t n = text.size();
    for (size_t back = 1; back <= 3 && back <= n; ++back) {
        const auto b = static_cast<unsigned char>(text[n - back]);
        if ((b & 0xC0u) == 0x80u)
            continue; // a continuation byte: look further back for its lead
        const size_t need = b >= 0xF0 ? 4 : b >= 0xE0 ? 3 : b >= 0xC0 ? 2 : 1;
        return need > back ? back : 0;
    }
    return 0;
}

} // namespace

EscapingStreambuf::~EscapingStreambuf() {
    forward(0);
    target_->pubsync();
}

void EscapingStreambuf::forward(size_t keep) {
    const size_t end = pending_.size() - keep;
    std::string out;
    size_t from = 0;
    while (from < end) {
        const size_t cut = pending_.find_first_of("\n\t", from);
        const size_t stop = cut == std::string::npos || cut >= end ? end : cut;
        out += util::escapeControl(std::string_view(pending_).substr(from, stop - from));
        if (stop < end)
            out += pending_[stop];
        from = stop + (stop < end ? 1 : 0);
    }
    target_->sputn(out.data(), static_cast<std::streamsize>(out.size()));
    pending_.erase(0, end);
}

EscapingStreambuf::int_type EscapingStreambuf::overflow(int_type ch) {
    if (traits_type::eq_int_type(ch, traits_type::eof()))
        return traits_type::not_eof(ch);
    const char c = traits_type::to_char_type(ch);
    xsputn(&c, 1);
    return ch;
}

std::streamsize EscapingStreambuf::xsputn(const char* s, std::streamsize n) {
    pending_.append(s, static_cast<size_t>(n));
    const size_t lastBreak = pending_.find_last_of('\n');
    if (lastBreak != std::string::npos)
        forward(pending_.size() - lastBreak - 1); // whole lines now, the rest with the next
    return n;
}

int EscapingStreambuf::sync() {
    forward(incompleteUtf8Tail(pending_));
    return target_->pubsync();
}

void EscapingStreambuf::retarget(std::streambuf* target) {
    forward(0);
    target_->pubsync();
    target_ = target;
}

EscapedStream::EscapedStream(std::ostream& stream)
    : stream_(stream), original_(stream.rdbuf()), filter_(original_) {
    stream_.rdbuf(&filter_);
}

EscapedStream::~EscapedStream() {
    stream_.flush();
    stream_.rdbuf(original_);
}

} // namespace ios::cli
