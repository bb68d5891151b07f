#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# Checks exported Chrome traces with a real consumer: Chrome DevTools' trace engine (npm package
# @paulirish/trace_engine). Not part of the build or the tests (they never need npm); install the
# package outside the repository first, e.g.
#   mkdir -p /tmp/consumer && (cd /tmp/consumer && npm install @paulirish/trace_engine)
# Usage: tools/check_trace_consumer.sh TRACE.json... (IOS_TRACE_ENGINE: the package's folder,
# default /tmp/consumer/node_modules/@paulirish/trace_engine). Exit 0: every flow drawn between
# the two kernels it connects; 1: not; 77: node or the package is missing (skipped).
set -eu
engine=${IOS_TRACE_ENGINE:-/tmp/consumer/node_modules/@paulirish/trace_engine}
if ! command -v node >/dev/null 2>&1 || [ ! -f "$engine/models/trace/trace.js" ]; then
    echo "check_trace_consumer: node or $engine missing; skipped" >&2
    exit 77
fi
IOS_TRACE_ENGINE=$(cd "$engine" && pwd) exec node "$(dirname "$0")/check_trace_consumer.mjs" "$@"
