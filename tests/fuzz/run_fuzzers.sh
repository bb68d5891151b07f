#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# Runs the loader fuzz targets one after the other (docs/testing.md "Fuzzing every loader").
# usage: tests/fuzz/run_fuzzers.sh BUILD_DIR CORPUS_ROOT RUNS [TARGET...]
# Each target keeps its corpus in CORPUS_ROOT/TARGET (seeded from its seed folder), crash
# inputs in CORPUS_ROOT/artifacts-TARGET/ and its log in CORPUS_ROOT/TARGET.log. Exits non-zero
# when a target stops on a finding.
set -u
if [ $# -lt 3 ]; then
    echo "usage: $0 BUILD_DIR CORPUS_ROOT RUNS [TARGET...]" >&2
    exit 2
fi
src=$(cd "$(dirname "$0")/../.." && pwd)
build=$1 root=$2 runs=$3
shift 3
# target:max_len:seed folder (relative to the source tree, or @ for the build's seeds)
specs=(fuzz_ios_json:8192:@/ios fuzz_native_json:8192:@/native fuzz_onnx:4096:tests/fuzz/onnx_seeds
       fuzz_device_profile:8192:resources/devices fuzz_measurement_cache:8192:tests/fuzz/seeds_cache
       fuzz_measured_results:8192:tests/fuzz/seeds_results
       fuzz_schedule_file:8192:tests/fuzz/seeds_schedule
       fuzz_chrome_trace:8192:tests/fuzz/seeds_trace
       fuzz_program_json:8192:tests/fuzz/seeds_program)
status=0
for spec in "${specs[@]}"; do
    IFS=: read -r target maxlen seeds <<<"$spec"
    if [ $# -gt 0 ] && [[ " $* " != *" $target "* ]]; then
        continue
    fi
    case $seeds in
    @*) seeds=$build/tests/fuzz/seeds${seeds#@} ;;
    *) seeds=$src/$seeds ;;
    esac
    mkdir -p "$root/$target" "$root/artifacts-$target"
    echo "== $target $(date -u '+%F %T') UTC"
    nice -n 10 "$build/tests/fuzz/$target" -runs="$runs" -max_len="$maxlen" -seed=1 -timeout=10 \
        -rss_limit_mb=2048 -print_final_stats=1 -dict="$src/tests/fuzz/json.dict" \
        -artifact_prefix="$root/artifacts-$target/" "$root/$target" "$seeds" \
        >"$root/$target.log" 2>&1 || status=1
    grep -E "INITED|DONE|Done|ERROR|SUMMARY|deadly|peak_rss" "$root/$target.log" | tail -5
done
exit $status
