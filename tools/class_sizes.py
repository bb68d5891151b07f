#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Lines per C++ class, counted over every file that defines its members (docs/architecture.md
"Review habits": no class over 600 lines, however its members are spread over files).

A class's size is the lines of its definition in a header (`class X ... { ... };`) plus the
lines of every out-of-line member definition `... X::member(...) ... { ... }` in any source
file. Nested classes count in their own right (and inside their outer class's definition).

    tools/class_sizes.py [--limit 600] [--top 15] [DIR ...]   (default: app engine views profiling)

Exits 1 when a class is over the limit, listing those; --top also lists the largest.
"""
import argparse
import os
import re
import sys
from collections import defaultdict

SOURCE_EXT = (".h", ".hpp", ".cpp", ".cc")


def strip(text):
    """Comments and string/char literals blanked, newlines kept (line numbers stay)."""
    out = []
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if text.startswith("//", i):
            j = text.find("\n", i)
            i = n if j < 0 else j
        elif text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            out.append("\n" * text.count("\n", i, j))
            i = j
        elif text.startswith('R"', i):
            m = re.match(r'R"([^(\s]*)\(', text[i:])
            if not m:
                out.append(c)
                i += 1
                continue
            end = ")" + m.group(1) + '"'
            j = text.find(end, i)
            j = n if j < 0 else j + len(end)
            out.append('""' + "\n" * text.count("\n", i, j))
            i = j
        elif c in "\"'":
            j = i + 1
            while j < n and text[j] != c:
                j += 2 if text[j] == "\\" else 1
            out.append(c + c)
            i = j + 1
        else:
            out.append(c)
            i += 1
    return "".join(out)


def matching_brace(text, open_at):
    depth = 0
    for j in range(open_at, len(text)):
        if text[j] == "{":
            depth += 1
        elif text[j] == "}":
            depth -= 1
            if depth == 0:
                return j
    return len(text) - 1


CLASS_RE = re.compile(r"\b(?:class|struct)\s+(?:\w+\s+)*?(\w+)\s*(?:final\s*)?(?::[^;{()]*)?\{")
MEMBER_RE = re.compile(r"\b(\w+)::(~?\w+|operator\s*[^\s(]+)\s*\(")


def count(path, sizes, where):
    with open(path, encoding="utf-8", errors="replace") as f:
        text = strip(f.read())
    line_of = lambda pos: text.count("\n", 0, pos) + 1
    for m in CLASS_RE.finditer(text):
        name = m.group(1)
        end = matching_brace(text, m.end() - 1)
        lines = line_of(end) - line_of(m.start()) + 1
        sizes[name] += lines
        where[name].add(path)
    for m in MEMBER_RE.finditer(text):
        cls, member = m.group(1), m.group(2)
        if cls in ("std", "ios", "Qt", "QObject") or cls[0].islower():
            continue
        # A definition: the parameter list closes, then (qualifiers, an initialiser list)
        # a body opens before any ';'.
        depth, j = 0, m.end() - 1
        while j < len(text):
            if text[j] == "(":
                depth += 1
            elif text[j] == ")":
                depth -= 1
                if depth == 0:
                    break
            j += 1
        rest = text[j + 1 :]
        stop = re.search(r"[;{]", rest)
        if not stop or stop.group(0) != "{":
            continue
        # Skip calls inside a function body (X::f(...) { can only be a definition at depth 0).
        if text.count("{", 0, m.start()) - text.count("}", 0, m.start()) > nesting(text, m.start()):
            continue
        open_at = j + 1 + stop.start()
        end = matching_brace(text, open_at)
        sizes[cls] += line_of(end) - line_of(m.start()) + 1
        where[cls].add(path)


def nesting(text, pos):
    """Brace depth allowed for a definition at `pos`: namespaces' braces."""
    depth = 0
    for m in re.finditer(r"\bnamespace\b[^{;]*\{", text[:pos]):
        end = matching_brace(text, m.end() - 1)
        if end > pos:
            depth += 1
    return depth


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("dirs", nargs="*", default=["app", "engine", "views", "profiling"])
    ap.add_argument("--limit", type=int, default=600)
    ap.add_argument("--top", type=int, default=0)
    args = ap.parse_args()
    sizes, where = defaultdict(int), defaultdict(set)
    for d in args.dirs:
        for root, _, files in os.walk(d):
            for name in sorted(files):
                if name.endswith(SOURCE_EXT):
                    count(os.path.join(root, name), sizes, where)
    ranked = sorted(sizes.items(), key=lambda kv: -kv[1])
    for name, lines in ranked[: args.top]:
        print(f"{lines:6d}  {name}  ({len(where[name])} files)")
    over = [(n, l) for n, l in ranked if l > args.limit]
    for name, lines in over:
        files = ", ".join(sorted(where[name]))
        print(f"over {args.limit}: {name} {lines} lines in {files}", file=sys.stderr)
    return 1 if over else 0


if __name__ == "__main__":
    sys.exit(main())
