#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Snapshot of every CLI command's JSON output on the bundled models and the ONNX samples.
# Usage: tools/cli_snapshot.sh PATH/TO/ios-sched OUTDIR   (timing fields are removed)
# A refactoring must leave the snapshot unchanged: diff -r -x "*.err" BEFORE AFTER is empty
# (stderr carries progress estimates that vary run to run). Needs jq.
set -uo pipefail
src=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
bin=$(realpath "$1"); out=$2; mkdir -p "$out"; cd "$out"
norm() { jq -S 'walk(if type == "object" then with_entries(select(.key | test("seconds|elapsed|wall|_s$|rss|cpu_s|time_ms_search|generated|timestamp|ns_per") | not)) else . end)' 2>/dev/null || cat; }
run() { # name, args...
  local n=$1; shift
  "$bin" "$@" > "$n.raw" 2> "$n.err"; echo "rc=$?" > "$n.rc"
  norm < "$n.raw" > "$n.json"; rm -f "$n.raw"
}
"$bin" models --json | norm > models.json
"$bin" strategies --json | norm > strategies.json
models="squeezenet inception_v3 nasnet_large randwire_large"
onnx="$src/sample_models/onnx/squeezenet1_1.onnx $src/sample_models/onnx/mobilenet_v2.onnx $src/sample_models/onnx/shufflenet_v2_x1_0.onnx $src/sample_models/onnx/densenet121.onnx"
strats=$("$bin" strategies --json | jq -r '.[].key')
for m in $models $onnx; do
  t=$(basename "$m" .onnx)
  run "$t.info" info "$m" --json
  for s in $strats; do run "$t.opt.$s" optimize "$m" --strategy "$s" --json --stats; done
  run "$t.opt.analytic" optimize "$m" --cost-model analytic --json
  run "$t.opt.a100b16" optimize "$m" --device A100 --batch 16 --json
  run "$t.compare" compare "$m" --json
  run "$t.memory" memory "$m" --json
  run "$t.metaflow" metaflow "$m" --json
  run "$t.streams" streams "$m" --policy raf-asap --json
  "$bin" convert "$m" "$t.native.json" >/dev/null 2>&1 || true
  "$bin" convert "$m" "$t.ios.json" >/dev/null 2>&1 || true
  "$bin" trace "$m" --strategy ios-both --output "$t.trace.json" >/dev/null 2>&1 || true
  "$bin" trace "$m" --strategy ios-both --output "$t.trace.csv" >/dev/null 2>&1 || true
done
run squeezenet.pareto pareto squeezenet --json
run inception.specialize specialize inception_v3 --batches 1,16 --devices V100,K80 --json
run squeezenet.bench bench squeezenet --json
for f in *.json; do case $f in *.trace.json|*.native.json|*.ios.json) jq -S 'walk(if type == "object" then with_entries(select(.key | test("generated|version|created") | not)) else . end)' "$f" > "$f.n" 2>/dev/null && mv "$f.n" "$f";; esac; done
echo "snapshot in $out: $(ls | wc -l) files"
