#include "util/json_text.h"

#include "util/error.h"

namespace ios::util {

namespace {

// Finds the first place where brackets outside strings nest deeper than kMaxJsonDepth.
// Linear and non-recursive, so a 200 000-deep document costs one pass and no stack.
void checkNesting(std::string_view text, const std::string& source) {
    int depth = 0;
    bool inString = false;
    bool escaped = false;
    for (size_t i = 0; i < text.size(); ++i) {
        const char ch = text[i];
        if (inString) {
            if (escaped)
                escaped = false;
            else if (ch == '\\')
                escaped = true;
            else if (ch == '"')
                inString = false;
            continue;
        }
        if (ch == '"') {
            inString = true;
        } else if (ch == '[' || ch == '{') {
            if (++depth > kMaxJsonDepth)
                throw UserError("JSON nests deeper than " + std::to_string(kMaxJsonDepth) +
                                    " levels (at byte " + std::to_string(i) + ")",
                                source);
        } else if ((ch == ']' || ch == '}') && depth > 0) {
            --depth; // unbalanced closers are left to the parser to report
        }
    }
}

// nlohmann prefixes its messages with "[json.exception.parse_error.101] ", which users need not
// see, and quotes the offending bytes raw; those become \xNN so the message stays printable.
std::string userMessage(const std::string& what) {
    const size_t close = what.find("] ");
    const size_t start =
        what.rfind("[json.exception.", 0) == 0 && close != std::string::npos ? close + 2 : 0;
    std::string out;
    for (size_t i = start; i < what.size(); ++i) {
        const auto ch = static_cast<unsigned char>(what[i]);
        if (ch >= 0x20 && ch < 0x7f) {
            out += static_cast<char>(ch);
        } else {
            constexpr const char* kHex = "0123456789abcdef";
            out += {'\\', 'x', kHex[ch >> 4], kHex[ch & 15]};
        }
    }
    return out;
}

} // namespace

Json parseJsonText(std::string_view text, const std::string& source) {
    if (text.find_first_not_of(" \t\r\n") == std::string_view::npos)
        throw UserError("the file is empty", source);
    checkNesting(text, source);
    try {
        return Json::parse(text.begin(), text.end(), /*cb=*/nullptr, /*allow_exceptions=*/true,
                           /*ignore_comments=*/false);
    } catch (const Json::exception& e) {
        throw UserError("not valid JSON: " + userMessage(e.what()), source);
    }
}

std::string dumpPythonStyle(const Json& value) {
    try {
        return value.dump(1, ' ', /*ensure_ascii=*/true, Json::error_handler_t::strict);
    } catch (const Json::exception& e) {
        throw UserError("cannot write JSON: " + userMessage(e.what()));
    }
}

} // namespace ios::util
