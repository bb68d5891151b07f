// SPDX-License-Identifier: Apache-2.0
// Number formatting shared by the subcommands' text and JSON output.
#pragma once

#include <cstdarg>
#include <cstdio>
#include <string>

namespace ios::cli {

// printf's formatting into a string, for text that goes to std::cout (whose buffer escapes
// what files said, terminal_text.h), never straight to stdout with printf.
#if defined(__GNUC__)
__attribute__((format(printf, 1, 2)))
#endif
inline std::string
formatted(const char* format, ...) {
    va_list args;
    va_start(args, format);
    va_list again;
    va_copy(again, args);
    const int n = std::vsnprintf(nullptr, 0, format, args);
    va_end(args);
    std::string out(n > 0 ? static_cast<size_t>(n) : 0, '\0');
    if (n > 0)
        std::vsnprintf(out.data(), out.size() + 1, format, again);
    va_end(again);
    return out;
}

// `v` with exactly `decimals` digits after the point ("%.*f").
inline std::string fixed(double v, int decimals) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.*f", decimals, v);
    return buf;
}

// A byte count for people: "812 B", "96.0 KiB", "1.50 MiB", "2.25 GiB".
inline std::string bytesText(long long bytes) {
    const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
    double v = static_cast<double>(bytes);
    int u = 0;
    while (v >= 1024 && u < 4) {
        v /= 1024;
        ++u;
    }
    return u == 0 ? std::to_string(bytes) + " B" : fixed(v, v < 10 ? 2 : 1) + " " + units[u];
}

} // namespace ios::cli
