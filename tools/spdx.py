#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""SPDX licence headers of the repository's own files (LICENSE: Apache-2.0).

  tools/spdx.py --check   list tracked source files without the header; exit 1 if any
  tools/spdx.py --fix     add the header where it is missing

Sources are C++ (.cpp .h .mjs), CMake (CMakeLists.txt, .cmake), shell (.sh) and Python (.py)
files tracked by git, outside tests/data and third-party test fixtures. The header is the
first line, or the second after a #! line.
"""
import subprocess
import sys
from pathlib import Path

TAG = "SPDX-License-Identifier: Apache-2.0"
COMMENT = {".cpp": "// ", ".h": "// ", ".mjs": "// ", ".cmake": "# ", ".sh": "# ", ".py": "# ",
           ".txt": "# "}
SKIP = ("tests/data/",)


def sources(root):
    names = subprocess.run(["git", "ls-files"], cwd=root, check=True, capture_output=True,
                           text=True).stdout.split("\n")
    for name in names:
        if not name or name.startswith(SKIP):
            continue
        path = Path(name)
        if path.suffix == ".txt" and path.name != "CMakeLists.txt":
            continue
        if path.suffix in COMMENT:
            yield root / path


def has_header(lines):
    return any(TAG in line for line in lines[:3])


def fix(path):
    text = path.read_text(encoding="utf-8")
    lines = text.split("\n")
    if has_header(lines):
        return False
    header = COMMENT[path.suffix] + TAG
    at = 1 if lines and lines[0].startswith("#!") else 0
    lines.insert(at, header)
    path.write_text("\n".join(lines), encoding="utf-8")
    return True


def main():
    root = Path(__file__).resolve().parent.parent
    mode = sys.argv[1] if len(sys.argv) > 1 else "--check"
    missing = [p for p in sources(root)
               if not has_header(p.read_text(encoding="utf-8").split("\n"))]
    if mode == "--fix":
        for p in missing:
            fix(p)
        print(f"added the header to {len(missing)} files")
        return 0
    for p in missing:
        print(f"{p.relative_to(root)}: no '{TAG}' line", file=sys.stderr)
    return 1 if missing else 0


if __name__ == "__main__":
    sys.exit(main())
