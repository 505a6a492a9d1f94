#!/usr/bin/env bash
# What the search reaches in a fixed time: for the start position and the first three bench
# positions, the last `info` line of `go movetime MS` (depth, seldepth, nodes, nps), with the
# given thread counts. Compares builds when given several engines (run on an idle machine: every
# engine gets the same positions in turn).
#   tools/search-report.sh [-t MS] [-j "1 2"] ENGINE...
set -euo pipefail
ms=10000
threads="1"
while getopts "t:j:" o; do
    case $o in
        t) ms=$OPTARG ;;
        j) threads=$OPTARG ;;
        *) echo "usage: tools/search-report.sh [-t MS] [-j \"1 2\"] ENGINE..." >&2; exit 2 ;;
    esac
done
shift $((OPTIND - 1))
(($# > 0)) || { echo "usage: tools/search-report.sh [-t MS] [-j \"1 2\"] ENGINE..." >&2; exit 2; }
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
mapfile -t bench < <(grep -v '^#' "$here/../tests/data/bench.sfen" | grep -v '^$' | head -3)
positions=("startpos" "${bench[@]/#/sfen }")

printf '%-28s %-9s %3s %6s %8s %12s %10s\n' engine position thr depth seldepth nodes nps
# Thread counts and engines alternate within each position, so that a change in the machine's
# speed during the run (shared hosts drift) falls on all of them alike.
for i in "${!positions[@]}"; do
    for t in $threads; do
        for engine in "$@"; do
            out=$({
                printf 'usi\nsetoption name Threads value %s\nsetoption name USI_Hash value 256\nisready\n' "$t"
                printf 'usinewgame\nposition %s\ngo movetime %s\n' "${positions[$i]}" "$ms"
                sleep $((ms / 1000 + 2))
                printf 'quit\n'
            } | "$engine" 2>/dev/null | grep '^info depth')
            # Depth: the last completed iteration; nodes and nps: the last report (at the stop).
            done_line=$(grep -v 'bound' <<<"$out" | tail -1)
            last_line=$(grep ' nps ' <<<"$out" | tail -1)
            field() { sed -n "s/.* $2 \([0-9-]*\).*/\1/p" <<<"$1"; }
            name=$(basename "$engine")
            label=$([[ $i == 0 ]] && echo start || echo "bench$i")
            printf '%-28s %-9s %3s %6s %8s %12s %10s\n' "${name:0:28}" "$label" "$t" \
                "$(field "$done_line" depth)" "$(field "$done_line" seldepth)" \
                "$(field "$last_line" nodes)" "$(field "$last_line" nps)"
        done
    done
done
