#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Scaling of the search (issue 36; docs/performance.md "Scaling"): wall time, CPU time, peak RSS
# and latency of `ios-sched` against batch, graph size and threads. Needs bash, coreutils, sed
# and grep only: the RSS and CPU time come from `ios-sched ... --usage` (getrusage), not from
# /usr/bin/time.
#
#   tools/bench_scaling.sh OUTDIR [--quick]
#
# Writes OUTDIR/scaling.csv (one row per run: table, model, batch, ops, threads, wall_s, cpu_s,
# max_rss_mib, latency_ms, status, command), OUTDIR/scaling.md (the tables, ready to paste) and
# OUTDIR/logs/ (each run's stdout and stderr, numbered as the runs). Tables:
#   batch   optimize MODEL --batch B --threads 1, B = 1 2 4 ... 256, the four bundled models;
#   size    optimize random_dag:N --threads 1, N = 100 300 1000 3000, and every *.onnx in
#           $IOS_SCALING_ONNX_DIR (sample_models/onnx/export_torchvision.py writes them);
#   threads optimize nasnet_large / randwire_large --batch 1 and 64, and compare nasnet_large,
#           on 1, 2 and $(nproc) threads (the last when more than 2).
# Every run is the default search (latency_ms: optimize's, or compare's ios-both row) under a
# limit of IOS_SCALING_TIMEOUT seconds (`timeout`; default 120). A run that times out or exits
# non-zero (a work bound's refusal) is still a row: its status says so with the first error
# line, and its table lists it.
# --quick runs a subset (the batch table at batch 1, 16 and 256; random DAGs of 100, 300 and
# 1000 operators; the whole threads table) with 20 s per run: 30 runs on 3 thread counts, for
# scarce GPU-machine time. Here (2-core VM shared with other builds, load 4-7, before the batch-independent
# simulator): full mode 25 min (72 runs with 23 ONNX files; 11 timeouts or refusals),
# --quick 3.5 min (25 runs; 8 timeouts or refusals).
#
# Environment (lists space- or comma-separated):
#   IOS_SCHED                the binary (default: build/app/ios-sched of this checkout)
#   IOS_SCALING_TABLES       tables to run (default: batch size threads)
#   IOS_SCALING_MODELS       the batch table's models;  IOS_SCALING_BATCHES  its batches
#   IOS_SCALING_SIZES        the size table's random DAG sizes
#   IOS_SCALING_ONNX_DIR     the size table's ONNX files (default: none)
#   IOS_SCALING_THREAD_MODELS, IOS_SCALING_THREAD_BATCHES, IOS_SCALING_THREADS
#                            the threads table's models, batches and thread counts
#   IOS_SCALING_COMPARE      the model `compare` runs on in the threads table ('' = none)
#   IOS_SCALING_TIMEOUT      seconds per run
set -u -o pipefail
export LC_ALL=C # decimal points in printf and sed

usage() {
    echo "usage: tools/bench_scaling.sh OUTDIR [--quick]" >&2
    exit 1
}

if [ $# -lt 1 ] || [ $# -gt 2 ]; then
    usage
fi
OUT=$1
QUICK=0
if [ $# -eq 2 ]; then
    [ "$2" = --quick ] || usage
    QUICK=1
fi
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
SCHED=${IOS_SCHED:-$ROOT/build/app/ios-sched}
if [ ! -x "$SCHED" ]; then
    echo "bench_scaling: no ios-sched at $SCHED (build it or set IOS_SCHED)" >&2
    exit 1
fi
CORES=$(nproc)

list() { echo "${1//,/ }"; }
if [ $QUICK -eq 1 ]; then
    default_batches="1 16 256" default_sizes="100 300 1000" default_thread_batches="1 64"
    default_timeout=20
else
    default_batches="1 2 4 8 16 32 64 128 256" default_sizes="100 300 1000 3000"
    default_thread_batches="1 64" default_timeout=120
fi
default_threads="1 2"
[ "$CORES" -gt 2 ] && default_threads="1 2 $CORES"
TABLES=$(list "${IOS_SCALING_TABLES:-batch size threads}")
MODELS=$(list "${IOS_SCALING_MODELS:-inception_v3 squeezenet nasnet_large randwire_large}")
BATCHES=$(list "${IOS_SCALING_BATCHES:-$default_batches}")
SIZES=$(list "${IOS_SCALING_SIZES:-$default_sizes}")
ONNX_DIR=${IOS_SCALING_ONNX_DIR:-}
THREAD_MODELS=$(list "${IOS_SCALING_THREAD_MODELS:-nasnet_large randwire_large}")
THREAD_BATCHES=$(list "${IOS_SCALING_THREAD_BATCHES:-$default_thread_batches}")
THREADS=$(list "${IOS_SCALING_THREADS:-$default_threads}")
COMPARE=${IOS_SCALING_COMPARE-nasnet_large}
TIMEOUT=${IOS_SCALING_TIMEOUT:-$default_timeout}

mkdir -p "$OUT/logs" || exit 1
CSV=$OUT/scaling.csv
echo "table,model,batch,ops,threads,wall_s,cpu_s,max_rss_mib,latency_ms,status,command" >"$CSV"
declare -A CELL  # "table|row|column" -> a run's markdown cell (batch and threads tables)
declare -A OPS   # model -> operator count
SIZE_LINES=()    # the size table's markdown rows
NOTES=()         # "table|what failed: status"
RUNS=0

csv_field() { printf '"%s"' "${1//\"/\"\"}"; }

# decimal VALUE DIGITS: VALUE in units of 10^-DIGITS as a decimal ("12345" 3 -> "12.345").
decimal() {
    local scale=$((10 ** $2))
    printf '%d.%0*d' $(($1 / scale)) "$2" $(($1 % scale))
}

# The operator count of MODEL from `ios-sched info` (empty when it does not load).
operators() {
    if [ -z "${OPS[$1]+set}" ]; then
        OPS[$1]=$("$SCHED" info "$1" --json 2>/dev/null |
            sed -n 's/^  "operators": \([0-9]*\),$/\1/p' | head -n 1)
    fi
    echo "${OPS[$1]}"
}

# The latency in an optimize --json output, or in compare --json's ios-both row.
latency_of() {
    if [ "$1" = compare ]; then
        sed -n '/"strategy": "ios-both"/,/"latency_ms"/ s/^ *"latency_ms": \([^,]*\),$/\1/p' "$2"
    else
        sed -n 's/^    "latency_ms": \([^,]*\),$/\1/p' "$2" | head -n 1
    fi
}

# run TABLE MODEL BATCH THREADS ARGS...: one run of `ios-sched ARGS... --usage` under the time
# limit; appends its CSV row and leaves WALL, CPU, RSS, LATENCY and STATUS set.
run() {
    local table=$1 model=$2 batch=$3 threads=$4
    shift 4
    RUNS=$((RUNS + 1))
    local log="$OUT/logs/$RUNS" cmd="ios-sched $* --usage" start end rc usage
    echo "[$RUNS] $cmd" >&2
    start=$(date +%s%N)
    timeout -k 10 "$TIMEOUT" "$SCHED" "$@" --usage >"$log.out" 2>"$log.err"
    rc=$?
    end=$(date +%s%N)
    WALL=$(decimal $(((end - start) / 1000000)) 3)
    CPU="" RSS=""
    usage=$(sed -n 's/.*: usage: max_rss_kib \([0-9]*\) cpu_seconds \([0-9.]*\)$/\1 \2/p' "$log.err")
    if [ -n "$usage" ]; then
        RSS=$(decimal $((${usage% *} * 10 / 1024)) 1)
        CPU=${usage#* }
    fi
    LATENCY=$(latency_of "$1" "$log.out")
    if [ $rc -eq 0 ]; then
        STATUS=ok
    elif [ $rc -eq 124 ] || [ $rc -eq 137 ]; then
        STATUS="timeout after $TIMEOUT s"
    else
        STATUS="exit $rc: $(grep -m 1 'error' "$log.err" || tail -n 1 "$log.err")"
    fi
    local fields=("$table" "$(csv_field "$model")" "$batch" "$(operators "$model")" "$threads"
        "$WALL" "$CPU" "$RSS" "$LATENCY" "$(csv_field "$STATUS")" "$(csv_field "$cmd")")
    (IFS=,; echo "${fields[*]}") >>"$CSV"
}

# The status for a markdown table: at most 240 characters.
short_status() {
    if [ ${#STATUS} -le 240 ]; then
        echo "$STATUS"
    else
        echo "${STATUS:0:240} …"
    fi
}

# cell TABLE ROW COLUMN WHAT: stores the last run's cell, "wall s (CPU s) / RSS MiB"; a failed
# run's cell is its status up to the first colon, and its status, after WHAT, goes to the
# table's notes.
cell() {
    local key="$1|$2|$3"
    if [ "$STATUS" = ok ]; then
        CELL[$key]="$WALL ($CPU) / $RSS"
    else
        NOTES+=("$1|$4: $(short_status)")
        CELL[$key]=${STATUS%%:*}
    fi
}

batch_table() {
    local m b
    for m in $MODELS; do
        for b in $BATCHES; do
            run batch "$m" "$b" 1 optimize "$m" --batch "$b" --threads 1 --json
            cell batch "$m" "$b" "$m --batch $b"
        done
    done
}

size_row() {
    local model=$1
    run size "$model" 1 1 optimize "$model" --threads 1 --json
    local status latency=$LATENCY
    status=$(short_status)
    [ "$status" = ok ] && status=""
    [ -n "$latency" ] && latency=$(printf '%.3f' "$latency")
    SIZE_LINES+=("| ${model##*/} | $(operators "$model") | $WALL | $CPU | $RSS | $latency | $status |")
}

size_table() {
    local n f
    for n in $SIZES; do
        size_row "random_dag:$n"
    done
    [ -n "$ONNX_DIR" ] || return 0
    for f in "$ONNX_DIR"/*.onnx; do
        [ -e "$f" ] && size_row "$f"
    done
}

# Rows of the threads table are "optimize:MODEL:BATCH" and "compare:MODEL".
threads_table() {
    local m b t
    for m in $THREAD_MODELS; do
        for b in $THREAD_BATCHES; do
            for t in $THREADS; do
                run threads "$m" "$b" "$t" optimize "$m" --batch "$b" --threads "$t" --json
                cell threads "optimize:$m:$b" "$t" "$m --batch $b --threads $t"
            done
        done
    done
    [ -n "$COMPARE" ] || return 0
    for t in $THREADS; do
        run threads "$COMPARE" 1 "$t" compare "$COMPARE" --threads "$t" --json
        cell threads "compare:$COMPARE" "$t" "compare $COMPARE --threads $t"
    done
}

# A row key as the table shows it: "optimize:m:64" -> "optimize m --batch 64".
row_label() {
    local key=$1
    case $key in
    optimize:*) key=${key#optimize:} && echo "optimize ${key%:*} --batch ${key##*:}" ;;
    compare:*) echo "compare ${key#compare:}" ;;
    *) echo "$key" ;;
    esac
}

notes_md() {
    local n
    for n in "${NOTES[@]}"; do
        [ "${n%%|*}" = "$1" ] && printf -- '- %s\n' "${n#*|}"
    done
    printf '\n'
}

# pivot_md TABLE "ROWS" COLUMN_WORD "COLUMNS": a markdown table of the stored cells.
pivot_md() {
    local table=$1 rows=$2 word=$3 cols=$4 r c
    printf 'Wall s (CPU s, user + system) / max RSS MiB.\n\n'
    printf '| |'
    for c in $cols; do printf ' %s %s |' "$word" "$c"; done
    printf '\n|---|'
    for c in $cols; do printf -- '---:|'; done
    printf '\n'
    for r in $rows; do
        printf '| %s |' "$(row_label "$r")"
        for c in $cols; do printf ' %s |' "${CELL["$table|$r|$c"]:-}"; done
        printf '\n'
    done
    printf '\n'
    notes_md "$table"
}

batch_md() {
    printf '### Search against batch\n\n'
    printf '    ios-sched optimize MODEL --batch B --threads 1 --json --usage\n\n'
    pivot_md batch "$MODELS" batch "$BATCHES"
}

size_md() {
    local line
    printf '### Search against graph size\n\n'
    printf '    ios-sched optimize MODEL --threads 1 --json --usage\n\n'
    printf '| model | operators | wall s | CPU s | max RSS MiB | latency ms | status |\n'
    printf '|---|---:|---:|---:|---:|---:|---|\n'
    for line in "${SIZE_LINES[@]}"; do
        echo "$line"
    done
    printf '\n'
}

threads_md() {
    local rows="" m b
    for m in $THREAD_MODELS; do
        for b in $THREAD_BATCHES; do
            rows+=" optimize:$m:$b"
        done
    done
    [ -n "$COMPARE" ] && rows+=" compare:$COMPARE"
    printf '### Search against threads\n\n'
    printf '    ios-sched optimize MODEL --batch B --threads T --json --usage\n'
    printf '    ios-sched compare MODEL --threads T --json --usage\n\n'
    pivot_md threads "$rows" threads "$THREADS"
}

write_md() {
    local t
    printf '## Scaling runs (tools/bench_scaling.sh%s)\n\n' "$([ $QUICK -eq 1 ] && echo ' --quick')"
    printf -- '- machine: %s cores, %s\n' "$CORES" \
        "$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo 2>/dev/null | head -n 1)"
    printf -- '- %s, %s runs, %s s limit per run\n\n' "$(date -u '+%Y-%m-%d %H:%M UTC')" \
        "$RUNS" "$TIMEOUT"
    for t in $TABLES; do
        "${t}_md"
    done
}

for t in $TABLES; do
    case $t in
    batch | size | threads) ;;
    *) echo "bench_scaling: unknown table '$t' (batch, size, threads)" >&2 && exit 1 ;;
    esac
done
for t in $TABLES; do
    "${t}_table"
done
write_md >"$OUT/scaling.md"
echo "bench_scaling: $RUNS runs; $OUT/scaling.csv, $OUT/scaling.md" >&2
