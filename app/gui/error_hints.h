// SPDX-License-Identifier: Apache-2.0
// The GUI's wording of what the engine's errors leave to the front end (ios::Hint): the menu
// item or setting that does it, appended to the engine's neutral message. The GUI decides by
// the hint, never by the message's text.
#pragma once

#include "util/error.h"

#include <QString>

namespace ios::gui {

// " (open it with File ▸ Import Unsupported ONNX Operators as Opaque ...)" for
// Hint::AllowOpaque, ...; empty for Hint::None.
QString guiHintText(Hint hint);

// The error's text for GUI users: what() and the hint's wording.
QString forGuiUsers(const UserError& error);

} // namespace ios::gui
