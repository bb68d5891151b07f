#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# Regenerates docs/screenshots/*.png (every view at 1920x1080 and 1280x800) from the real
# application on the offscreen platform, with default settings on InceptionV3.
# Usage: tools/screenshots.sh [BUILD_DIR]   (default: build)
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$root/build}
config=$(mktemp -d)
trap 'rm -rf "$config"' EXIT
mkdir -p "$root/docs/screenshots"
QT_QPA_PLATFORM=offscreen XDG_CONFIG_HOME=$config \
    "$build/app/gui/ios-explorer" --screenshots "$root/docs/screenshots" inception_v3
ls "$root/docs/screenshots"
