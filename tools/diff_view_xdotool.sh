#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# Drives the real ios-explorer window under Xvfb at 1280x800 through issue 32's question,
# "which of two schedules is faster and why", in two actions after opening the model: click
# the Comparison tab, Ctrl+click the Sequential bar (the Diff tab then compares it with the
# fastest). Takes a screenshot after each step: DIR/MODEL-{open,comparison,diff}.png.
# The clicks are at the positions the default layout gives at 1280x800 (tab bar, first bar of
# the latency panel); a changed layout needs them measured again from the screenshots.
# Usage: tools/diff_view_xdotool.sh [BUILD_DIR] [DIR] [MODEL] [DISPLAY_NUMBER]
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$root/build}
out=${2:-$root/build/diff-screens}
model=${3:-inception_v3}
display=:${4:-94}
mkdir -p "$out"
config=$(mktemp -d)
Xvfb "$display" -screen 0 1280x800x24 >/dev/null 2>&1 &
xvfb=$!
app=
cleanup() {
    [ -n "$app" ] && kill "$app" 2>/dev/null
    kill "$xvfb" 2>/dev/null
    rm -rf "$config"
}
trap cleanup EXIT
export DISPLAY="$display"
sleep 1
XDG_CONFIG_HOME=$config "$build/app/gui/ios-explorer" "$model" >"$out/$model.log" 2>&1 &
app=$!
# The window, then its first result (the status bar's latency; a few seconds at most).
for _ in $(seq 1 60); do
    xdotool search --onlyvisible --name "IOS Explorer" >/dev/null 2>&1 && break
    sleep 0.5
done
win=$(xdotool search --onlyvisible --name "IOS Explorer" | head -1)
xdotool windowmove "$win" 0 0 windowsize "$win" 1280 800
sleep 6
import -window root "$out/$model-open.png"
# Action 1: the Comparison tab (it computes every registered scheduler on showing).
xdotool mousemove 839 32 click 1
sleep 15
import -window root "$out/$model-comparison.png"
# Action 2: Ctrl+click the Sequential bar (the first row of the latency panel).
xdotool mousemove 550 148 keydown ctrl click 1 keyup ctrl
sleep 10
import -window root "$out/$model-diff.png"
echo "screenshots in $out"
