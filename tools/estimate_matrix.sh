#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# The estimate-against-actual matrix of docs/performance.md "Estimates": every long job of the
# explorer (search, comparison, sweep, specialization, memory, MetaFlow) on the bundled and ONNX
# sample models x devices x batches, run in one process per group as a session would
# (bench_gui_jobs matrix), then the distribution of actual / estimate.
# Usage: tools/estimate_matrix.sh [BUILD_DIR] [OUT_CSV] [THREADS]
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$root/build}
out=${2:-$build/estimate-matrix.csv}
threads=${3:-2}
bench=$build/tests/bench_gui_jobs
kinds=optimize,compare,memory,metaflow,sweep,specialize
onnx=$root/sample_models/onnx
{
    "$bench" matrix "squeezenet,inception_v3,$onnx/resnet50.onnx,$onnx/densenet121.onnx,$onnx/mobilenet_v2.onnx" \
        V100,A100,K80 1,16 "$kinds" "$threads"
    "$bench" matrix nasnet_large,randwire_large V100,A100,K80 1 "$kinds" "$threads" | tail -n +2
    "$bench" matrix nasnet_large,randwire_large V100 4 optimize,compare,memory,metaflow,sweep \
        "$threads" | tail -n +2
} >"$out"
# ratio = actual / estimate (the range's geometric mean); jobs of 0.5 s or more apart.
awk -F, 'NR > 1 {
    n++; r = $9; if (r >= 0.5 && r <= 2) in2++; if (r < 0.25 || r > 4) out4++
    if ($8 >= 0.5) { ln++; if (r >= 0.5 && r <= 2) lin2++; if (r < 0.25 || r > 4) lout4++ }
    if ($8 >= $5 && $8 <= $6) inrange++
    if (min == "" || r < min) min = r; if (max == "" || r > max) max = r
}
END {
    printf "jobs %d: within [0.5, 2] %d (%.1f %%), outside [0.25, 4] %d, ratio %.3f .. %.3f, actual within the shown range %d\n", n, in2, 100 * in2 / n, out4, min, max, inrange
    printf "jobs of 0.5 s or more %d: within [0.5, 2] %d, outside [0.25, 4] %d\n", ln, lin2, lout4
}' "$out"
