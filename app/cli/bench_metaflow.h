// SPDX-License-Identifier: Apache-2.0
// `ios-sched bench --metaflow`: MetaFlow's search cost with the paper preset and the
// composition table per model (docs/performance.md "MetaFlow search", docs/metaflow.md
// "Composition with IOS").
#pragma once

#include "args.h"

#include <string>
#include <vector>

namespace ios::cli {

// Per model: the paper preset's search (seconds, expanded, generated, substitutions) under
// the command's cost model, then Sequential and IOS-both (r 3, s 8) on the original and the
// rewritten graph.
int benchMetaflow(const ArgParser& parser, const std::vector<std::string>& models, bool json);

} // namespace ios::cli
