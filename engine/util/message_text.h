// SPDX-License-Identifier: Apache-2.0
// Numbers and names inside user-facing messages: the one place that formats them, so every
// message prints numbers compactly and shows hostile names (ESC, NUL, newlines, invalid
// UTF-8) visibly instead of sending them raw to a terminal.
#pragma once

#include <string>
#include <string_view>

namespace ios::util {

// "%.6g" style: 1e+300, 0.1, 123456, 1.23457e+06; -0 prints as 0; "nan", "inf", "-inf".
std::string formatNumber(double v);

// `text` on one line: control characters (C0, DEL, the C1 range U+0080..U+009F) and bytes
// that are not valid UTF-8 become \xNN (\u0085 for a C1 character); everything else is kept.
std::string escapeControl(std::string_view text);

} // namespace ios::util
