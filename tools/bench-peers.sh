#!/usr/bin/env bash
# Perft speed of Hayate next to the fastest other Rust shogi move generators, measured in the same
# run and interleaved (ours, then each peer, repeated) so that machine load hits all alike. Prints
# the median M nodes/s of each and our ratio to each peer. Needs ../shared/tools/peer-perft (a
# development tool, not part of `make test`).
#   tools/bench-peers.sh ENGINE [ROUNDS]
set -euo pipefail
engine=${1:?usage: tools/bench-peers.sh ENGINE [ROUNDS]}
rounds=${2:-5}
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
peer_run=${PEER_PERFT:-$here/../../shared/tools/peer-perft/run}
if [[ ! -x $peer_run ]]; then
    echo "bench-peers: no peer-perft tool at $peer_run (set PEER_PERFT)" >&2
    exit 1
fi
matsuri='l6nl/5+P1gk/2np1S3/p1p4Pp/3P2Sp1/1PPb2P1P/P5GS1/R8/LN4bKL w RGgsn5p 1'
peers=(haitaka rsshogi rshogi)

median() { sort -g | awk '{v[NR]=$1} END {print (NR%2) ? v[(NR+1)/2] : (v[NR/2]+v[NR/2+1])/2}'; }

ours() { # POS DEPTH MODE -> M nodes/s (wall)
    local sfen=() flags=()
    [[ $1 == matsuri ]] && sfen=(--sfen "$matsuri")
    [[ $3 == nobulk ]] && flags=(--no-bulk)
    "$engine" perft "$2" "${sfen[@]}" "${flags[@]}" --reps 1 | sed -n 's/.*, \([0-9.]*\) M nodes\/s;.*/\1/p'
}

peer() { # LIB POS DEPTH MODE -> M nodes/s (wall), empty if the peer cannot run it
    "$peer_run" "$1" "$2" "$3" "$4" 1 2>/dev/null | sed -n 's/.*wall_med_Mnps=\([0-9.]*\).*/\1/p' | head -1
}

for spec in "startpos 6 bulk" "matsuri 4 bulk" "startpos 5 nobulk"; do
    read -r pos depth mode <<<"$spec"
    declare -A runs=()
    for ((r = 0; r < rounds; r++)); do
        runs[hayate]+="$(ours "$pos" "$depth" "$mode") "
        for p in "${peers[@]}"; do
            v=$(peer "$p" "$pos" "$depth" "$mode")
            [[ -n $v ]] && runs[$p]+="$v "
        done
    done
    ours_med=$(tr ' ' '\n' <<<"${runs[hayate]}" | grep . | median)
    echo "== $pos depth $depth $mode: median of $rounds interleaved runs (M nodes/s, wall)"
    printf '  %-8s %8.1f\n' hayate "$ours_med"
    for p in "${peers[@]}"; do
        [[ -z ${runs[$p]:-} ]] && { printf '  %-8s %8s\n' "$p" "n/a"; continue; }
        m=$(tr ' ' '\n' <<<"${runs[$p]}" | grep . | median)
        printf '  %-8s %8.1f   hayate/%s = %.2fx\n' "$p" "$m" "$p" "$(awk -v a="$ours_med" -v b="$m" 'BEGIN {print a/b}')"
    done
    unset runs
done
