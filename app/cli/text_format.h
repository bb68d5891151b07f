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

} // namespace ios::cli
