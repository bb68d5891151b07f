#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The device-ordering table of docs/cost-model.md: sequential latency (ms, batch 1) of three
# models on every bundled device in its default convolution math, then the TF32 devices in
# strict fp32. Usage: tools/device_table.sh [IOS_SCHED]   (default: build/app/ios-sched)
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
ios=${1:-$root/build/app/ios-sched}
models=(inception_v3 "$root/sample_models/onnx/resnet50.onnx" nasnet_large)
mapfile -t devices < <("$ios" devices --json | python3 -c '
import json, sys
for d in json.load(sys.stdin):
    print(d["name"])')
mapfile -t strict < <("$ios" devices --json | python3 -c '
import json, sys
for d in json.load(sys.stdin):
    if d["conv_math"] == "tf32":
        print(d["name"] + "@fp32")')
latency() { # model device
    "$ios" optimize "$1" --strategy sequential --device "$2" --json |
        python3 -c 'import json, sys; print("%.2f" % json.load(sys.stdin)["total"]["latency_ms"])'
}
header="| model |"
rule="|---|"
for d in "${devices[@]}" "${strict[@]}"; do
    header+=" $d |"
    rule+="---:|"
done
echo "$header"
echo "$rule"
for m in "${models[@]}"; do
    row="| $(basename "$m" .onnx) |"
    for d in "${devices[@]}" "${strict[@]}"; do
        row+=" $(latency "$m" "$d") |"
    done
    echo "$row"
done
