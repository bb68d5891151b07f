#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Counts the flow arrows of an exported Chrome trace that a trace viewer binds to the wrong kernel.

Usage: tools/trace_flow_check.py TRACE.json [...]

Binding follows the Trace Event Format's flow events (v1) as Perfetto and the catapult viewer read
them: an "s" (and an "f" with "bp": "e") binds to the slice enclosing its timestamp on its own
track (pid, tid); an "f" without "bp": "e" binds to the next slice that begins on its track.

An arrow's head is meant for the work the wait guards: the first kernel that starts on the
waiting stream at or after the "f" event's time. Its tail is meant for a kernel of the recording
stream that has finished when the head starts (a dependency points forward in time). Exit status 1
when an arrow is bound to anything else or to nothing.
"""
import json
import sys

EPS = 1e-3  # µs: the traces round times to ns


def slices_by_track(events):
    tracks = {}
    for e in events:
        if e.get("ph") == "X" and e.get("cat") == "kernel":
            tracks.setdefault((e.get("pid"), e.get("tid")), []).append(e)
    for t in tracks.values():
        t.sort(key=lambda e: e["ts"])
    return tracks


def enclosing(track, ts):
    found = None
    for s in track:  # the latest-starting slice that is open at ts
        if s["ts"] <= ts + EPS and ts < s["ts"] + s["dur"] - EPS / 2 or abs(s["ts"] - ts) < EPS:
            found = s
    return found


def next_slice(track, ts):
    return next((s for s in track if s["ts"] >= ts - EPS), None)


def check(path):
    with open(path, encoding="utf-8") as f:
        events = json.load(f)["traceEvents"]
    tracks = slices_by_track(events)
    flows = {}
    for e in events:
        if e.get("ph") in ("s", "f"):
            flows.setdefault(e["id"], {})[e["ph"]] = e
    wrong_heads = wrong_tails = 0
    for ends in flows.values():
        s, f = ends.get("s"), ends.get("f")
        if s is None or f is None:
            wrong_heads += 1
            continue
        src = tracks.get((s["pid"], s["tid"]), [])
        dst = tracks.get((f["pid"], f["tid"]), [])
        tail = enclosing(src, s["ts"])
        head = enclosing(dst, f["ts"]) if f.get("bp") == "e" else next_slice(dst, f["ts"])
        meant_head = next_slice(dst, f["ts"])
        if head is None or head is not meant_head:
            wrong_heads += 1
        if tail is None or meant_head is None or tail["ts"] + tail["dur"] > meant_head["ts"] + EPS:
            wrong_tails += 1
    print(f"{path}: {len(flows)} flows, {wrong_heads} heads and {wrong_tails} tails bound to "
          f"a kernel they do not connect")
    return wrong_heads + wrong_tails


if __name__ == "__main__":
    bad = sum(check(p) for p in sys.argv[1:])
    sys.exit(1 if bad else 0)
