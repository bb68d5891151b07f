# SPDX-License-Identifier: Apache-2.0
"""The rows of docs/reproduction.md (tools/reproduction.py): per row the paper, where in it
the number stands, the number, the ios-sched command and the rule that turns the command's
result into a tool value and a verdict."""

THREADED = {"compare", "optimize", "specialize", "metaflow", "streams"}

BENCHMARKS = ["inception_v3", "squeezenet", "nasnet_large", "randwire_large"]
FIG6_STRATEGIES = ["sequential", "greedy", "ios-merge", "ios-parallel", "ios-both"]


def takes_threads(args):
    return args[0] in THREADED


def rel(tool, paper):
    """Signed relative difference of the tool's value to the paper's, in per cent."""
    return (tool / paper - 1.0) * 100.0


def pct(value):
    return "%+.1f %%" % value


def within(tool, paper, tolerance, why):
    delta = rel(tool, paper)
    if abs(delta) <= tolerance:
        return "reproduced (%s, tolerance ±%d %%)" % (pct(delta), tolerance)
    return "not reproduced (%s, tolerance ±%d %%): %s" % (pct(delta), tolerance, why)


def latencies(result, names):
    by_name = {s["strategy"]: s for s in result["strategies"]}
    return [by_name[n]["latency_ms"] for n in names]


def order_agrees(paper, tool, tie=0.01):
    """Pairs whose paper values differ by more than tie must be ordered alike."""
    bad = []
    for i in range(len(paper)):
        for j in range(i + 1, len(paper)):
            if abs(paper[i] - paper[j]) <= tie * max(paper[i], paper[j]):
                continue
            if (paper[i] < paper[j]) != (tool[i] < tool[j]):
                bad.append((i, j))
    return bad


def fmt(values, digits=2):
    return " / ".join("%.*f" % (digits, v) for v in values)


# --- IOS -------------------------------------------------------------------------------------

TABLE1 = {  # [IOS] §4.2 Table 1: largest block n, d, transitions, schedules (rounded)
    "inception_v3": (11, 6, 4.9e3, 3.8e6),
    "squeezenet": (6, 3, 51, 1.3e2),
    "nasnet_large": (18, 8, 3.1e5, 7.2e12),
    "randwire_large": (33, 8, 1.2e6, 9.2e22),
}


def two_digits(x):
    return float("%.2g" % x)


def table1(model):
    n, d, transitions, schedules = TABLE1[model]

    def check(run):
        result = run(table1_cmd(model))
        part = max(result["parts"], key=lambda p: p["transitions"])
        got = (part["n"], part["width"], part["transitions"], int(part["schedules"]))
        tool = "n %d, d %d, %d transitions, %.2g schedules" % (got[0], got[1], got[2], got[3])
        same = (got[0] == n and got[1] == d and two_digits(got[2]) == transitions
                and two_digits(got[3]) == schedules)
        verdict = ("reproduced (equal at the paper's two significant digits)" if same else
                   "not reproduced: the largest part differs from the paper's largest block")
        return tool, verdict

    return {"paper": "IOS", "where": "§4.2 Table 1", "what": "%s: largest block" % model,
            "cmd": table1_cmd(model),
            "paper_value": "n %d, d %d, %.2g transitions, %.2g schedules"
                           % (n, d, transitions, schedules),
            "check": check}


def table1_cmd(model):
    # Counts do not depend on the cost model; the analytic one keeps the search fast.
    return ["optimize", model, "--strategy", "ios-parallel", "-r", "100", "-s", "100",
            "--stats", "--json", "--cost-model", "analytic"]


TABLE2 = {  # [IOS] §5 Table 2: blocks, operators
    "inception_v3": (11, 119), "randwire_large": (3, 120),
    "nasnet_large": (13, 374), "squeezenet": (10, 50),
}


TABLE2_WHY = {
    "inception_v3": "the stem and the lone output operator are blocks of their own (11 + 2)",
    "squeezenet": "the stem, the head and the two lone max pools are blocks of their own "
                  "(8 fire modules + 4)",
    "nasnet_large": "the cell stack is one block (a single-tensor cut point exists only at "
                    "the ends), searched in the 25 explicit parts of nasnet_large.parts.json",
    "randwire_large": "the stem convolution, the 17-operator stage before the three random "
                      "stages and the head are blocks of their own (3 + 3)",
}


def table2(model):
    blocks, operators = TABLE2[model]

    def check(run):
        info = run(["info", model, "--json"])
        tool = "blocks %d (parts %d), operators %d" % (info["blocks"], info["parts"],
                                                        info["operators"])
        if info["operators"] != operators:
            return tool, "not reproduced: the bundled model has another operator count"
        if info["blocks"] == blocks:
            return tool, "reproduced (equal)"
        return tool, "differs by design: operators equal; " + TABLE2_WHY[model]

    return {"paper": "IOS", "where": "§5 Table 2", "what": "%s: blocks, operators" % model,
            "cmd": ["info", model, "--json"],
            "paper_value": "%d blocks, %d operators" % (blocks, operators), "check": check}


FIG6 = {  # [IOS] §6.1 Figure 6, V100 batch 1 (ms): sequential, greedy, merge, parallel, both
    "inception_v3": [6.51, 4.62, 5.39, 4.11, 4.03],
    "squeezenet": [0.86, 0.98, 0.74, 0.82, 0.73],
    "nasnet_large": [22.95, 16.78, 22.94, 16.04, 16.04],
    "randwire_large": [8.49, 6.27, 8.54, 6.02, 6.02],
}


def fig6_speedup(model, device="V100", where="§6.1 Figure 6"):
    paper = FIG6[model]

    def check(run):
        tool = latencies(run(compare_cmd(model, device)), FIG6_STRATEGIES)
        speedup = tool[0] / tool[4]
        bad = order_agrees(paper, tool)
        text = "%.3f× (order %s)" % (speedup, "as the paper's" if not bad else "differs")
        if bad:
            names = ", ".join("%s/%s" % (FIG6_STRATEGIES[i], FIG6_STRATEGIES[j]) for i, j in bad)
            return text, "not reproduced: strategy order differs for %s" % names
        return text, within(speedup, paper[0] / paper[4], 15,
                            "concurrency gain of the simulated GPU differs")

    return {"paper": "IOS", "where": where,
            "what": "%s: IOS-Both speedup over sequential and strategy order" % model,
            "cmd": compare_cmd(model, device),
            "paper_value": "%.3f×" % (paper[0] / paper[4]), "check": check}


def fig6_absolute(model):
    paper = FIG6[model]

    def check(run):
        tool = latencies(run(compare_cmd(model)), FIG6_STRATEGIES)
        deltas = [rel(t, p) for t, p in zip(tool, paper)]
        worst = max(range(5), key=lambda i: abs(deltas[i]))
        text = fmt(tool)
        if abs(deltas[worst]) <= 15:
            return text, "reproduced (%s … %s, tolerance ±15 %%)" % (pct(min(deltas)),
                                                                    pct(max(deltas)))
        return text, ("not reproduced (%s %s, tolerance ±15 %%): the simulator's absolute "
                      "latencies are calibrated once for all models, not per model"
                      % (FIG6_STRATEGIES[worst], pct(deltas[worst])))

    return {"paper": "IOS", "where": "§6.1 Figure 6",
            "what": "%s: V100 ms, sequential / greedy / merge / parallel / both" % model,
            "cmd": compare_cmd(model), "paper_value": fmt(paper), "check": check}


def compare_cmd(model, device="V100", extra=()):
    cmd = ["compare", model, "--json"] + list(extra)
    return cmd if device == "V100" else cmd + ["--device", device]


def fig2(kind):
    paper = [0.48, 0.37, 0.33]  # [IOS] §1 Figure 2: sequential, greedy, IOS (ms)
    names = ["sequential", "greedy", "ios-both"]
    cmd = compare_cmd("demo_figure2")

    def check(run):
        tool = latencies(run(cmd), names)
        if kind == "order":
            ok = tool[0] > tool[1] > tool[2]
            return fmt(tool, 3), ("reproduced (sequential > greedy > IOS)" if ok else
                                  "not reproduced: order differs")
        deltas = [rel(t, p) for t, p in zip(tool, paper)]
        if max(abs(d) for d in deltas) <= 15:
            return fmt(tool, 3), "reproduced (%s … %s)" % (pct(min(deltas)), pct(max(deltas)))
        return fmt(tool, 3), ("not reproduced (%s … %s, tolerance ±15 %%): four small "
                              "convolutions at batch 1, where the simulator's per-kernel "
                              "costs, calibrated on the four networks, are too low"
                              % (pct(min(deltas)), pct(max(deltas))))

    what = ("demo graph: latency order" if kind == "order"
            else "demo graph: ms, sequential / greedy / IOS")
    return {"paper": "IOS", "where": "§1 Figure 2", "what": what, "cmd": cmd,
            "paper_value": fmt(paper), "check": check}


def fig8():
    def check(run):
        run(["warps", "--help"])
        return "—", ("not reproduced: needs measured traces from a CUDA GPU (`trace "
                     "demo_figure2 --gpu --cuda-graph`, then `warps`); none was run for this "
                     "page, and the simulator's warp occupancy (`trace --stages`) is its own "
                     "quantity, not CUPTI's active warps")

    return {"paper": "IOS", "where": "§6.3 Figure 8",
            "what": "active warps, IOS vs sequential (demo graph)", "cmd": ["warps", "--help"],
            "paper_value": "+58 % active warps on average", "check": check}


FIG9 = {"inception_v3": 1.59, "nasnet_large": 1.37}  # [IOS] §7.1 Figure 9, r = 1, s = 8


def fig9(model):
    r1 = ["optimize", model, "-r", "1", "-s", "8", "--stats", "--json"]
    r3 = ["optimize", model, "-r", "3", "-s", "8", "--stats", "--json"]

    def check(run):
        seq = latencies(run(compare_cmd(model)), ["sequential"])[0]
        a, b = run(r1)["total"], run(r3)["total"]
        speedup = seq / a["latency_ms"]
        text = ("r1: %.3f×, %d transitions; r3: %.3f×, %d transitions"
                % (speedup, a["transitions"], seq / b["latency_ms"], b["transitions"]))
        if not (a["latency_ms"] >= b["latency_ms"] and a["transitions"] < b["transitions"]):
            return text, "not reproduced: smaller r did not trade latency for search cost"
        return text, within(speedup, FIG9[model], 15,
                            "concurrency gain of the simulated GPU differs")

    return {"paper": "IOS", "where": "§7.1 Figure 9",
            "what": "%s: pruning r = 1, s = 8 against r = 3" % model,
            "cmd": r1, "paper_value": "%.2f× at r = 1, s = 8; fewer transitions"
                                      % FIG9[model], "check": check}


SPEC_BATCH = [1, 32, 128]
SPEC_DIAG = [4.03, 27.44, 103.29]  # [IOS] §7.2 Table 3, batch specialisation diagonal (ms)
SPEC_BATCH_CMD = ["specialize", "inception_v3", "--batches", "1,32,128", "--json"]
SPEC_DEV_CMD = ["specialize", "inception_v3", "--devices", "V100,K80", "--json"]


def diagonal_best(matrix):
    return all(matrix[j][j] <= min(row[j] for row in matrix) for j in range(len(matrix)))


TABLE3_CELLS = ["V100 run of the V100-optimised schedule", "V100 run of the K80-optimised "
                "schedule", "K80 run of the V100-optimised schedule",
                "K80 run of the K80-optimised schedule"]
_SAME_SPECS = ("the K80 profile differs from the V100's in its specifications only (Kepler's "
               "weaker latency hiding and older cuDNN kernels are not modelled)")
TABLE3_WHY = [
    "the simulated V100 is faster than the paper's at batch 1 (Figure 6 rows)",
    "the schedule the simulated K80 prefers runs well on the simulated V100: " + _SAME_SPECS
    + ", so the two devices favour more similar schedules than the real ones did",
    _SAME_SPECS, _SAME_SPECS,
]


def table3(kind):
    if kind == "best":
        def check(run):
            batch = run(SPEC_BATCH_CMD)["batch_matrix"]["latency_ms"]
            device = run(SPEC_DEV_CMD)["device_matrix"]["latency_ms"]
            ok = diagonal_best(batch) and diagonal_best(device)
            return ("diagonal best in both matrices" if ok else "an off-diagonal entry wins",
                    "reproduced (the specialised schedule is the fastest of each column)" if ok
                    else "not reproduced: a schedule optimised elsewhere wins a column")
        return {"paper": "IOS", "where": "§7.2 Table 3",
                "what": "InceptionV3: specialised schedules best where specialised",
                "cmd": SPEC_BATCH_CMD, "paper_value": "diagonal best (batch and device)",
                "check": check}
    if kind == "batch":
        def check(run):
            batch = run(SPEC_BATCH_CMD)["batch_matrix"]["latency_ms"]
            diag = [batch[i][i] for i in range(3)]
            deltas = [rel(t, p) for t, p in zip(diag, SPEC_DIAG)]
            if max(abs(d) for d in deltas) <= 15:
                return fmt(diag), "reproduced (%s … %s)" % (pct(min(deltas)), pct(max(deltas)))
            return fmt(diag), ("not reproduced (%s at batch 32, %s at 128, tolerance ±15 %%): "
                               "tile efficiencies are calibrated at batch 1; cuDNN's large-batch "
                               "kernels (FFT, Winograd, better tiles) are not modelled"
                               % (pct(deltas[1]), pct(deltas[2])))
        return {"paper": "IOS", "where": "§7.2 Table 3",
                "what": "InceptionV3: ms at batch 1 / 32 / 128 (own schedule)",
                "cmd": SPEC_BATCH_CMD, "paper_value": fmt(SPEC_DIAG), "check": check}
    paper = [4.03, 4.49, 14.65, 13.87]  # V100 (V100-opt, K80-opt), K80 (V100-opt, K80-opt)

    def check(run):
        m = run(SPEC_DEV_CMD)["device_matrix"]["latency_ms"]
        tool = [m[0][0], m[1][0], m[0][1], m[1][1]]
        deltas = [rel(t, p) for t, p in zip(tool, paper)]
        if max(abs(d) for d in deltas) <= 15:
            return fmt(tool), "reproduced (%s … %s)" % (pct(min(deltas)), pct(max(deltas)))
        worst = max(range(4), key=lambda i: abs(deltas[i]))
        return fmt(tool), ("not reproduced (%s %s, tolerance ±15 %%): %s"
                           % (TABLE3_CELLS[worst], pct(deltas[worst]), TABLE3_WHY[worst]))

    return {"paper": "IOS", "where": "§7.2 Table 3",
            "what": "InceptionV3 ms: V100 (V100-opt / K80-opt), K80 (V100-opt / K80-opt)",
            "cmd": SPEC_DEV_CMD, "paper_value": fmt(paper), "check": check}


def fig10_last_block():
    cmd = ["specialize", "inception_v3", "--block", "11", "--batches", "1,32", "--json"]

    def check(run):
        m = run(cmd)["batch_matrix"]["latency_ms"]
        at1 = (m[1][0] / m[0][0] - 1) * 100  # schedule (1) faster than (2) at batch 1
        at32 = (m[0][1] / m[1][1] - 1) * 100  # schedule (2) faster than (1) at batch 32
        text = "(1) %.0f %% faster at batch 1; (2) %.0f %% faster at batch 32" % (at1, at32)
        if at1 > 0 and at32 > 0:
            return text, "reproduced (same direction both ways; sizes differ: %+.0f / %+.0f " \
                         "points)" % (at1 - 28, at32 - 8)
        return text, "not reproduced: a specialised schedule loses where it was specialised"

    return {"paper": "IOS", "where": "§7.2 Figure 10",
            "what": "last InceptionV3 block: schedules for batch 1 (1) and 32 (2)", "cmd": cmd,
            "paper_value": "(1) 28 % faster at batch 1; (2) 8 % faster at batch 32",
            "check": check}


def fig11(batch):
    cmd = ["optimize", "inception_v3", "--batch", str(batch), "--json"]
    seq = ["optimize", "inception_v3", "--strategy", "sequential", "--batch", str(batch),
           "--json"]

    def check(run):
        ios = run(cmd)["total"]["latency_ms"]
        base = run(seq)["total"]["latency_ms"]
        speedup = base / ios
        text = "IOS %.0f img/s, sequential %.0f img/s (%.3f×)" % (
            batch * 1000 / ios, batch * 1000 / base, speedup)
        if speedup > 1.0:
            return text, "reproduced (IOS above sequential)"
        return text, "not reproduced: IOS not faster than sequential at this batch size"

    return {"paper": "IOS", "where": "§7.3 Figure 11",
            "what": "InceptionV3 throughput, batch %d: IOS vs sequential (the same command "
                    "with `--strategy sequential`)" % batch, "cmd": cmd,
            "paper_value": "IOS above sequential at every batch size", "check": check}


def fig14():
    def check(run):
        speedups, losers = [], []
        for model in BENCHMARKS:
            tool = latencies(run(compare_cmd(model, "RTX2080Ti")), FIG6_STRATEGIES)
            speedups.append(tool[0] / tool[4])
            if tool[4] > min(tool) * 1.0001:
                losers.append(model)
        text = "%.2f× … %.2f× (%s)" % (min(speedups), max(speedups),
                                       ", ".join("%.2f" % s for s in speedups))
        if losers:
            return text, "not reproduced: IOS-Both not the fastest on %s" % ", ".join(losers)
        low, high = min(speedups), max(speedups)
        if low >= 1.1 * 0.9 and high <= 1.5 * 1.15:
            return text, "reproduced (IOS-Both fastest everywhere; range within ±15 % of " \
                         "1.1–1.5×)"
        return text, "not reproduced: speedup range outside 1.1–1.5× ±15 %"

    return {"paper": "IOS", "where": "App. B Figure 14",
            "what": "RTX 2080 Ti: IOS-Both fastest, speedup over sequential (MODEL: the four "
                    "networks)",
            "cmd": compare_cmd("MODEL", "RTX2080Ti"),
            "paper_value": "IOS-Both fastest; 1.1–1.5×", "check": check}


def fig16():
    def check(run):
        speedups = []
        for block in range(run(["info", "inception_v3", "--json"])["blocks"]):
            seq, both = latencies(run(compare_cmd("inception_v3", extra=("--block", str(block)))),
                                  ["sequential", "ios-both"])
            speedups.append(seq / both)
        whole = latencies(run(compare_cmd("inception_v3")), ["sequential", "ios-both"])
        text = "blocks %.2f× … %.2f×, end to end %.2f×" % (min(speedups), max(speedups),
                                                          whole[0] / whole[1])
        if min(speedups) < 1.0:
            return text, "not reproduced: a block is slower under IOS"
        return text, within(max(speedups), 2.3, 15,
                            "the largest per-block gain of the simulated GPU differs")

    return {"paper": "IOS", "where": "App. C Figure 16",
            "what": "InceptionV3 per block: IOS-Both over sequential (B: every block)",
            "cmd": compare_cmd("inception_v3", extra=("--block", "B")),
            "paper_value": "every block faster, up to 2.3×; 1.6× end to end", "check": check}


# --- Serenity --------------------------------------------------------------------------------

SERENITY_CELLS = ["darts_v2_cells", "swiftnet_cell"]


def memory_cmd(model, order, rewrite):
    return ["memory", model, "--order", order, "--rewrite", rewrite, "--arena", "tflite",
            "--json"]


def serenity_reduction(model, rewrite):
    paper = 1.86 if rewrite == "best" else 1.68  # [S] abstract and §4.2, vs TensorFlow Lite
    cmd = memory_cmd(model, "serenity", rewrite)

    def check(run):
        tflite = run(memory_cmd(model, "file", "none"))["arena_bytes"]
        peak = run(cmd)["peak_bytes"]
        if rewrite == "best":
            unrewritten = run(memory_cmd(model, "serenity", "none"))["peak_bytes"]
            if peak > unrewritten:
                return "%.2f×" % (tflite / peak), "not reproduced: rewriting raised the peak"
        ratio = tflite / peak
        text = "%.2f× (%d → %d B)" % (ratio, tflite, peak)
        if ratio < 1.0:
            return text, "not reproduced: above the TFLite arena"
        return text, ("differs by design: [S]'s number is over its own CIFAR-size cells, "
                      "which are not bundled; this is a bundled cell of the same kind "
                      "(docs/memory.md), the direction (below TFLite%s) holds"
                      % (", lower still with rewriting" if rewrite == "best" else ""))

    what = "%s: peak vs TFLite arena, %s" % (
        model, "DP + identity rewriting" if rewrite == "best" else "DP alone")
    return {"paper": "Serenity", "where": "Abstract, §4.2" if rewrite == "best" else "§4.2",
            "what": what, "cmd": cmd, "paper_value": "%.2f× (average)" % paper,
            "check": check}


def serenity_budget():
    budget = ["memory", "nasnet_large", "--exact-expansions", "0", "--json"]
    exact = ["memory", "nasnet_large", "--limit-expansions", "0", "--exact-expansions", "0",
             "--json"]

    def check(run):
        a, b = run(budget), run(exact)
        text = "soft budget %.1f s, no budget %.1f s (peaks %d / %d B)" % (
            a["seconds"], b["seconds"], a["peak_bytes"], b["peak_bytes"])
        if a["peak_bytes"] != b["peak_bytes"]:
            return text, "not reproduced: the budgeted search missed the optimum"
        if a["seconds"] < b["seconds"]:
            return text, "reproduced (soft budgeting is faster, same peak)"
        return text, ("not reproduced (direction): here the unbudgeted DP fits in memory and "
                      "ends first, while soft-budget runs of 2^24 expansions time out before "
                      "one solves; the CLI's default therefore runs the exact DP first")

    return {"paper": "Serenity", "where": "§4.2 Table 2",
            "what": "scheduling time: divide and conquer with and without soft budgeting",
            "cmd": budget, "paper_value": "56.53 s → 37.9 s (SwiftNet)", "check": check}


# --- MetaFlow --------------------------------------------------------------------------------

MF_TABLE2 = {  # [MF] §6 Table 2, V100: TensorRT → MetaFlow ms and launched kernels
    "inception_v3": (5.51, 5.00, 138, 115),
    "squeezenet": (0.94, 0.75, 50, 40),
    "sample_models/onnx/resnet50.onnx": (1.97, 1.86, 70, 67),
}

MF_WHY = {
    "inception_v3": "larger gain: the baseline is the unrewritten graph under the simulator, "
                    "not TensorRT with its own fusions, and R5's in-place concatenations "
                    "save copies TensorRT does not make; the 1×3/3×1 merge of Figure 7 is "
                    "not taken on the simulated V100 (docs/metaflow.md)",
    "squeezenet": "",
    "sample_models/onnx/resnet50.onnx": "the residual fusion is found (R7 + R5 on "
                    "layer1.0), but R7's fused conv costs five times the conv's FLOPs plus a "
                    "concatenation under this cost model, so on V100 only that block gains "
                    "(docs/metaflow.md)",
}


def metaflow_row(model):
    before, after, k0, k1 = MF_TABLE2[model]
    cmd = ["metaflow", model, "--json"]

    def check(run):
        r = run(cmd)
        speedup = r["cost_before_ms"] / r["cost_after_ms"]
        text = "%.3f×, %d → %d kernels" % (speedup, r["kernels_before"], r["kernels_after"])
        verdict = within(speedup, before / after, 5, MF_WHY[model])
        if verdict.startswith("reproduced"):
            verdict += "; kernel counts are MetaFlow's count of this IR, not TensorRT's"
        return text, verdict

    return {"paper": "MetaFlow", "where": "§6 Table 2",
            "what": "%s: speedup of the rewritten graph, kernels" % model.split("/")[-1],
            "cmd": cmd, "paper_value": "%.2f×, %d → %d kernels" % (before / after, k0, k1),
            "check": check}


def metaflow_alpha(device):
    cmd = ["metaflow", "sample_models/onnx/resnet50.onnx", "--alpha-sweep", "1,1.05,1.1,1.2",
           "--json"]
    if device != "V100":
        cmd += ["--device", device]

    def check(run):
        r = run(cmd)
        costs = [p["cost_ms"] for p in r["sweep"]]
        text = " / ".join("%.4f" % c for c in costs) + " ms"
        monotone = all(b <= a + 1e-9 for a, b in zip(costs, costs[1:]))
        if monotone and costs[-1] < costs[0]:
            return text, "reproduced (best cost falls as α grows, then stays)"
        if monotone:
            return text, "not reproduced: flat, no relaxed step pays on this device"
        return text, "not reproduced: best cost rises with α"

    return {"paper": "MetaFlow", "where": "§6 Figure 10",
            "what": "ResNet-50 α sweep, best cost at α 1 / 1.05 / 1.1 / 1.2 (%s)" % device,
            "cmd": cmd, "paper_value": "cost falls with α; α ≈ 1.05 enough",
            "check": check}


# --- RAF -------------------------------------------------------------------------------------

def raf_speedup(device):
    cmd = compare_cmd("inception_v3", device)

    def check(run):
        seq, wave, asap = latencies(run(cmd), ["sequential", "raf-wavefront", "raf-asap"])
        lo, hi = sorted([seq / wave, seq / asap])
        text = "wavefront %.2f×, ASAP %.2f×" % (seq / wave, seq / asap)
        if lo >= 1.2 * 0.9 and hi <= 1.3 * 1.1:
            return text, "reproduced (within 1.2–1.3× ±10 %)"
        return text, ("not reproduced (above the band): the simulator charges no runtime "
                      "overhead beyond kernel launches, while RAF runs its programs through a "
                      "VM; IOS-Both's gain here is above the IOS paper's too")

    return {"paper": "RAF", "where": "design doc, introduction",
            "what": "InceptionV3 batch 1 multi-stream speedup (%s)" % device, "cmd": cmd,
            "paper_value": "1.2–1.3×", "check": check}


def raf_program(policy):
    cmd = ["streams", "demo_inception_module", "--policy", policy, "--json"]

    def check(run):
        block = run(cmd)["blocks"][0]
        ops = [p["op"] for p in block["program"]]
        barriers, waits = ops.count("barrier"), ops.count("wait")
        text = "%d streams, %d events, %d waits, %d barriers" % (
            block["streams"], block["events"], waits, barriers)
        if policy == "raf-asap":
            ok = barriers == 0 and block["events"] == block["streams"] - 1
            claim = "a stream per heavy chain, events only on light edges, no barriers"
        else:
            ok = block["events"] == 0 and barriers == 1 and block["streams"] == 4
            claim = "the four branches one wave on four streams, a barrier before the concat"
        return text, ("reproduced (%s)" % claim) if ok else "not reproduced: %s" % claim

    what = ("ASAP program of one Inception module" if policy == "raf-asap"
            else "wavefront program of one Inception module")
    paper = ("heavy chains on own streams; events for light edges" if policy == "raf-asap"
             else "waves of chains, chains on separate streams")
    return {"paper": "RAF", "where": "design doc, %s" % ("ASAP" if policy == "raf-asap"
                                                        else "Wavefront"),
            "what": what, "cmd": cmd, "paper_value": paper, "check": check}


ROWS = (
    [table1(m) for m in BENCHMARKS]
    + [table2(m) for m in BENCHMARKS]
    + [fig2("order"), fig2("absolute")]
    + [fig6_speedup(m) for m in BENCHMARKS]
    + [fig6_absolute(m) for m in BENCHMARKS]
    + [fig8()]
    + [fig9(m) for m in FIG9]
    + [table3("best"), table3("batch"), table3("device"), fig10_last_block()]
    + [fig11(b) for b in (1, 32, 128)]
    + [fig14(), fig16()]
    + [serenity_reduction(m, r) for m in SERENITY_CELLS for r in ("none", "best")]
    + [serenity_budget()]
    + [metaflow_row(m) for m in MF_TABLE2]
    + [metaflow_alpha(d) for d in ("V100", "RTX2080Ti")]
    + [raf_speedup(d) for d in ("V100", "RTX2080Ti")]
    + [raf_program("raf-wavefront"), raf_program("raf-asap")]
)

NOTES = """## What the rows do not cover

- [IOS] Figures 7 and 15 and the framework comparisons (TVM, TASO, TensorRT, TensorFlow):
  those frameworks are not part of this project; `compare` lists this project's schedulers.
- [IOS] Figure 12 (intra- and inter-operator parallelism with TVM's kernels): no TVM.
- [S] off-chip traffic (1.76×) and its RandWire CIFAR cells: no traffic model of an edge device
  and the paper's RandWire seeds are unknown.
- [MF] training graphs, RNNTC and NMT (Table 2): the IR is a CNN inference graph.
- Measured (GPU) counterparts of these rows need a CUDA machine: docs/gpu.md and
  docs/gpu-commands.md (`measure`, `validate`, `trace --gpu`, `warps`).
"""
