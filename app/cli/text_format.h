// Number formatting shared by the subcommands' text and JSON output.
#pragma once

#include <cstdio>
#include <string>

namespace ios::cli {

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
