// SPDX-License-Identifier: Apache-2.0
// The CLI's wording of what the engine's errors leave to the front end (ios::Hint): the flag
// that does it, appended to the engine's neutral message.
#pragma once

#include "util/error.h"

#include <string>

namespace ios::cli {

// " (pass --allow-opaque ...)" for Hint::AllowOpaque, ...; empty for Hint::None.
std::string cliHintText(Hint hint);

} // namespace ios::cli
