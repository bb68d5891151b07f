#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The whole H100 measurement of issue 16 in one command (docs/gpu.md "Stage profiling at
# scale"; results go into docs/performance.md): builds ios-sched with the carried nlohmann
# header (.deps/), then
#   1. profiles every distinct stage the IOS-both DP (r 3, s 8, batch 1) meets, and the stages
#      of the greedy and sequential schedules (greedy's may span DP parts), per model, into
#      OUTDIR/cache_MODEL.json (wall seconds per model in OUTDIR/profile_seconds.txt; the
#      profile's own summary in OUTDIR/profile_MODEL.json). A run cut off resumes: run the
#      script again with SKIP_BUILD=1, the journals beside the caches keep what was measured;
#   2. per model, times sequential, greedy and IOS-both from the measured DP (--cost-model
#      cache:FILE), then IOS-both from the simulated H100 DP: CUDA-graph replay, median of
#      REPEAT (>= 50) replays, active warps, numeric check against sequential;
#   3. Chrome traces of CUDA-graph replays with active warps for InceptionV3 (sequential, greedy,
#      IOS-both), drawn side by side as the paper's Figure 8 (OUTDIR/figure8.svg, and a PNG when
#      ImageMagick can read SVG), and an eager kernel trace of SqueezeNet.
#   tools/gpu_measure.sh OUTDIR            (IOS_PROFILING_MOCK=1: dry run without a GPU)
set -u -o pipefail
OUT=${1:?usage: tools/gpu_measure.sh OUTDIR}
REPEAT=${REPEAT:-50}
BUILD=${BUILD:-build-gpu-release}
MODELS=${MODELS:-inception_v3 squeezenet nasnet_large randwire_large}
mkdir -p "$OUT"
if [ -z "${SKIP_BUILD:-}" ]; then
  cmake -S . -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=Release -DIOS_WITH_GUI=OFF \
    -DBUILD_TESTING=OFF -DIOS_WITH_CUDA=ON -DIOS_NLOHMANN_INCLUDE_DIR="$PWD/.deps" >"$OUT/build.log" 2>&1 &&
    ninja -C "$BUILD" ios-sched >>"$OUT/build.log" 2>&1 || { tail -40 "$OUT/build.log"; exit 1; }
fi
SCHED="$BUILD/app/ios-sched"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv 2>&1 | tee "$OUT/gpu.txt"
status=0

# 1. Stage profiling: every model's measured-cost search, timed.
: >"$OUT/profile_seconds.txt"
for m in $MODELS; do
  echo "== profile $m"
  start=$(date +%s.%N)
  "$SCHED" profile "$m" --strategy ios-both,greedy,sequential -r 3 -s 8 --batch 1 \
    --cache "$OUT/cache_$m.json" --json >"$OUT/profile_$m.json" || { echo "profile $m failed"; status=1; continue; }
  end=$(date +%s.%N)
  seconds=$(awk -v a="$start" -v b="$end" 'BEGIN { printf "%.1f", b - a }')
  echo "$m $seconds" | tee -a "$OUT/profile_seconds.txt"
done
awk '{ s += $2 } END { printf "total %.1f\n", s }' "$OUT/profile_seconds.txt" | tee -a "$OUT/profile_seconds.txt"

# 2. The schedules on the GPU, CUDA-graph replay.
run() { echo "== measure $*"; "$SCHED" measure "$@" --repeat "$REPEAT" --device H100 --cuda-graph --warps || status=1; }
for m in $MODELS; do
  trace=()
  [ "$m" = inception_v3 ] && trace=(--trace-prefix "$OUT/trace_$m")
  if [ -f "$OUT/cache_$m.json" ]; then
    run "$m" --strategy sequential,greedy,ios-both --cost-model "cache:$OUT/cache_$m.json" \
      "${trace[@]}" -o "$OUT/$m.json"
  fi
  run "$m" --strategy ios-both --cost-model simulated -o "$OUT/${m}_simdp.json"
done

# 3. Figure 8 from the replay traces, and a kernel trace through the eager path.
if [ -f "$OUT/trace_inception_v3-sequential.json" ]; then
  echo "== warps"
  "$SCHED" warps "$OUT"/trace_inception_v3-{sequential,greedy,ios-both}.json -o "$OUT/figure8.svg" || status=1
  convert "$OUT/figure8.svg" "$OUT/figure8.png" 2>/dev/null || echo "(no SVG reader for a PNG: open figure8.svg)"
fi
echo "== trace --gpu"
"$SCHED" trace squeezenet --strategy greedy --gpu --device H100 -o "$OUT/trace_squeezenet_greedy.csv" || status=1
exit $status
