#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# tst_diff_view_window: drives the real ios-explorer window under Xvfb at 1280x800 with xdotool
# through issue 32's question, "which of two schedules is faster and why", for each MODEL:
# open it, action 1: click the Comparison tab, action 2: Ctrl+click the Sequential bar (the Diff
# tab then compares it with the fastest). It passes when the window's title carries each step's
# answer (views::ResultView::titleNote): "fastest: …" on the Comparison tab, then "… is N×
# faster than Sequential — MODEL — Diff — IOS Explorer". The clicks are at the positions the
# default layout gives at 1280x800 (tab bar, first bar of the latency panel): a changed layout
# fails here first. With SCREENS set, a screenshot after each step goes there.
# Usage: diff_view_window.sh EXPLORER MODEL...
set -eu
unset QT_QPA_PLATFORM # the real X server, not offscreen
explorer=$1
shift
config=$(mktemp -d)
xvfb=
app=
cleanup() {
    [ -n "$app" ] && kill "$app" 2>/dev/null || true
    [ -n "$xvfb" ] && kill "$xvfb" 2>/dev/null || true
    rm -rf "$config"
}
trap cleanup EXIT INT TERM
# A free display: Xvfb picks it and writes its number to fd 3. -noreset: by default the server
# resets when its last client leaves (the explorer closing between two models), and a client
# connecting during the reset fails ("could not connect to display").
Xvfb -displayfd 3 -screen 0 1280x800x24 -nolisten tcp -noreset 3>"$config/display" >/dev/null 2>&1 &
xvfb=$!
# Under a loaded ctest -j2 Xvfb may take seconds to come up: wait for its number, then for a
# client to connect, before the explorer starts (it exits at once without a display).
for _ in $(seq 1 300); do
    [ -s "$config/display" ] && break
    sleep 0.1
done
[ -s "$config/display" ] || { echo "FAIL: Xvfb gave no display in 30 s" >&2; exit 1; }
DISPLAY=:$(cat "$config/display")
export DISPLAY
for _ in $(seq 1 300); do
    xdotool getdisplaygeometry >/dev/null 2>&1 && break
    sleep 0.1
done
xdotool getdisplaygeometry >/dev/null 2>&1 || { echo "FAIL: no client could connect to $DISPLAY in 30 s" >&2; exit 1; }

# Waits up to $2 seconds for the window's title to contain $1; prints the title.
wait_title() {
    title=
    end=$(($(date +%s) + $2))
    while [ "$(date +%s)" -le "$end" ]; do
        title=$(xdotool getwindowname "$win" 2>/dev/null || true)
        case $title in *"$1"*) echo "$title"; return 0 ;; esac
        sleep 0.2
    done
    echo "FAIL: the title never said '$1' (it says '$title')" >&2
    return 1
}

shot() {
    if [ -n "${SCREENS:-}" ] && command -v import >/dev/null; then
        mkdir -p "$SCREENS"
        import -window root "$SCREENS/$1.png"
    fi
}

for model in "$@"; do
    XDG_CONFIG_HOME=$config/$model "$explorer" "$model" >"$config/$model.log" 2>&1 &
    app=$!
    win=
    for _ in $(seq 1 100); do
        win=$(xdotool search --onlyvisible --name "IOS Explorer" 2>/dev/null | head -1) || true
        [ -n "$win" ] && break
        sleep 0.2
    done
    [ -n "$win" ] || { echo "FAIL: no window for $model" >&2; cat "$config/$model.log" >&2; exit 1; }
    xdotool windowmove "$win" 0 0 windowsize "$win" 1280 800
    wait_title "$model" 30 >/dev/null
    sleep 1 # the layout after the resize
    shot "$model-open"
    # Action 1: the Comparison tab (it computes every registered scheduler when shown).
    xdotool mousemove 839 32 click 1
    wait_title "fastest:" 120
    shot "$model-comparison"
    # Action 2: Ctrl+click the Sequential bar (the first row of the latency panel).
    xdotool mousemove 550 148 keydown ctrl click 1 keyup ctrl
    wait_title "faster than Sequential — $model — Diff" 120
    shot "$model-diff"
    kill "$app"
    wait "$app" 2>/dev/null || true
    app=
done
echo "PASS: $*"
