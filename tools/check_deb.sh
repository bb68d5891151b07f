#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# tools/check_deb.sh BUILD_DIR [WORK_DIR]
# Packs BUILD_DIR with CPack (DEB), unpacks each package into an empty root (dpkg -x, as a
# clean install would lay it out) and runs the installed programs from there, with a bare
# environment and no CUDA library on the search path. Exit 0 when every check passes.
set -euo pipefail

build=$(cd "${1:?usage: tools/check_deb.sh BUILD_DIR [WORK_DIR]}" && pwd)
work=${2:-$(mktemp -d)}
mkdir -p "$work"
work=$(cd "$work" && pwd)
fail() { echo "check_deb: $*" >&2; exit 1; }

rm -rf "$work/packages" "$work/root"
mkdir -p "$work/packages" "$work/root"
cpack --config "$build/CPackConfig.cmake" -B "$work/packages" >"$work/cpack.log" 2>&1 ||
    { cat "$work/cpack.log" >&2; fail "cpack failed"; }
shopt -s nullglob
debs=("$work"/packages/*.deb)
[ ${#debs[@]} -gt 0 ] || fail "cpack made no .deb"
main=""
for deb in "${debs[@]}"; do
    name=$(dpkg-deb -f "$deb" Package)
    echo "== $name $(dpkg-deb -f "$deb" Version) ($(du -k "$deb" | cut -f1) KiB)"
    echo "   Depends: $(dpkg-deb -f "$deb" Depends)"
    dpkg-deb -f "$deb" Depends | grep -qi 'cuda\|cudnn\|cupti' && [ "$name" != ios-explorer-cuda ] &&
        fail "$name depends on CUDA"
    [ "$name" = ios-explorer ] && main=$deb
    dpkg -x "$deb" "$work/root"
done
[ -n "$main" ] || fail "no ios-explorer package"

root=$work/root
bare() { env -i PATH=/usr/bin:/bin HOME="$work" QT_QPA_PLATFORM=offscreen LANG=C.UTF-8 "$@"; }
for exe in "$root"/usr/bin/*; do
    if ldd "$exe" | grep -q 'not found'; then ldd "$exe" >&2; fail "$exe: missing libraries"; fi
    ldd "$exe" | grep -qiE 'libcuda|libcudnn|libcupti' && fail "$exe links CUDA libraries"
done
version=$(bare "$root/usr/bin/ios-sched" --version)
echo "   $version"
[[ "$version" =~ ^ios-sched\ [0-9]+\.[0-9]+\.[0-9]+ ]] || fail "ios-sched --version: '$version'"
bare "$root/usr/bin/ios-sched" models | grep -q inception_v3 || fail "ios-sched models"
bare "$root/usr/bin/ios-sched" optimize inception_v3 >/dev/null || fail "ios-sched optimize"
if [ -x "$root/usr/bin/ios-explorer" ]; then
    gui=$(bare "$root/usr/bin/ios-explorer" --version 2>/dev/null)
    [ "$gui" = "ios-explorer ${version#ios-sched }" ] || fail "ios-explorer --version: '$gui'"
    echo "   $gui"
fi
for page in "$root"/usr/share/man/man1/*.1*; do
    MANWIDTH=80 man -l "$page" >/dev/null 2>&1 || fail "$page does not render"
done
bash -c "source '$root/usr/share/bash-completion/completions/ios-sched'" ||
    fail "bash completion does not load"
[ -f "$root/usr/share/zsh/vendor-completions/_ios-sched" ] || fail "no zsh completion"
[ -f "$root/usr/share/doc/ios-explorer/LICENSE" ] || fail "no LICENSE in the package"
[ -n "$(ls "$root"/usr/share/ios-explorer/models/*.ios.json)" ] || fail "no bundled models"
site=$(ls -d "$root"/usr/lib/python3*/dist-packages 2>/dev/null | head -n 1)
if [ -n "$site" ] && [ -d "$site/ios_explorer" ]; then
    latency=$(bare env PYTHONPATH="$site" /usr/bin/python3 -c \
        "import ios_explorer as ie; m = ie.load('inception_v3'); print(ie.schedule(m, 'ios-both').latency_ms)") ||
        fail "the Python module does not import from the package"
    echo "   python3: ios_explorer ios-both on inception_v3: $latency ms"
fi
echo "check_deb: all checks passed (${#debs[@]} package(s), unpacked in $root)"
