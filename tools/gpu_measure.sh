#!/usr/bin/env bash
# Measurements for docs/performance.md on a CUDA GPU machine (no Qt there): builds ios-sched
# with the carried nlohmann header (.deps/), then per network times sequential, greedy and
# IOS-both (median of REPEAT runs, numeric check against sequential, simulator estimate) and
# writes Chrome traces with active warps for InceptionV3.
#   tools/gpu_measure.sh OUTDIR            (IOS_PROFILING_MOCK=1: dry run without a GPU)
# IOS-both uses the measured cost model where the DP asks for few enough distinct stages
# (InceptionV3 ≈ 5.5k, SqueezeNet ≈ 230); NasNet-A and RandWire ask for > 200k, so their DP
# runs on the simulated H100 profile.
set -u -o pipefail
OUT=${1:?usage: tools/gpu_measure.sh OUTDIR}
REPEAT=${REPEAT:-50}
BUILD=${BUILD:-build-gpu-release}
mkdir -p "$OUT"
if [ -z "${SKIP_BUILD:-}" ]; then
  cmake -S . -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=Release -DIOS_WITH_GUI=OFF \
    -DBUILD_TESTING=OFF -DIOS_WITH_CUDA=ON -DIOS_NLOHMANN_INCLUDE_DIR="$PWD/.deps" >"$OUT/build.log" 2>&1 &&
    ninja -C "$BUILD" ios-sched >>"$OUT/build.log" 2>&1 || { tail -40 "$OUT/build.log"; exit 1; }
fi
SCHED="$BUILD/app/ios-sched"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv 2>&1 | tee "$OUT/gpu.txt"
run() { echo "== $*"; "$SCHED" measure "$@" --repeat "$REPEAT" --device H100 --cuda-graph --warps; }
run inception_v3 --strategy sequential,greedy,both --cost measured \
  --measure-cache "$OUT/measured_cache.json" --trace-prefix "$OUT/trace_inception_v3" \
  -o "$OUT/inception_v3.json"
run squeezenet --strategy sequential,greedy,both --cost measured \
  --measure-cache "$OUT/measured_cache.json" -o "$OUT/squeezenet.json"
run inception_v3 --strategy both --cost simulated -o "$OUT/inception_v3_simdp.json"
run nasnet_large --strategy sequential,greedy,both --cost simulated -o "$OUT/nasnet_large.json"
run randwire_large --strategy sequential,greedy,both --cost simulated -o "$OUT/randwire_large.json"
echo "== trace --gpu"
"$SCHED" trace squeezenet --strategy greedy --gpu --device H100 -o "$OUT/trace_squeezenet_greedy.csv"
