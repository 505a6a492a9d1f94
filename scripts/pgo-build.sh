#!/usr/bin/env bash
# Profile-guided optimised build of the engine (`make build`): an instrumented build runs a
# training workload (the bench with the embedded net, searches in material and linear mode, two
# threads, `go mate`, perft), llvm-profdata merges the counts, and the final build uses them; its
# bench signature must equal the instrumented build's. Without an llvm-profdata of rustc's own
# LLVM version (rustup's llvm-tools component, added here when rustup can), or with PGO=0, it
# makes the plain optimised build instead, and says so on stderr.
#
# usage: scripts/pgo-build.sh TARGET_DIR   (the engine lands in TARGET_DIR/release/hayate)
set -euo pipefail

out=${1:?usage: scripts/pgo-build.sh TARGET_DIR}
cargo=${CARGO:-cargo}
flags="-C target-cpu=native"
work=target/pgo

plain() {
    echo "pgo-build: $1; building without profile guidance" >&2
    RUSTFLAGS="$flags" "$cargo" build --release --target-dir "$out"
    exit 0
}

[[ ${PGO:-1} == 0 ]] && plain "PGO=0"

host=$(rustc -vV | sed -n 's/^host: //p')
profdata="$(rustc --print sysroot)/lib/rustlib/$host/bin/llvm-profdata"
if [[ ! -x $profdata ]] && command -v rustup >/dev/null; then
    echo "pgo-build: adding rustup's llvm-tools component (llvm-profdata)" >&2
    rustup component add llvm-tools >&2 || true
fi
[[ -x $profdata ]] || plain "no llvm-profdata for this rustc (rustup component add llvm-tools)"

# 1. Instrumented build (its own target directory, so the final build's cache stays valid).
rm -rf "$work/raw"
mkdir -p "$work/raw"
raw=$(cd "$work/raw" && pwd)
RUSTFLAGS="$flags -C profile-generate=$raw" "$cargo" build --release --target-dir "$work/gen"
gen="$work/gen/release/hayate"
# Build scripts ran instrumented as well; only the engine's own runs below count.
rm -f "$raw"/*.profraw

# 2. Training: every path a user runs hot.
signature() { "$1" bench 2>&1 | sed -n 's/^Nodes searched *: *//p'; }
expected=$(signature "$gen")
[[ -n $expected ]] || { echo "pgo-build: the instrumented bench printed no node count" >&2; exit 1; }
"$gen" perft 5 >/dev/null
"$gen" perft 3 --sfen "l6nl/5+P1gk/2np1S3/p1p4Pp/3P2Sp1/1PPb2P1P/P5GS1/R8/LN4bKL w RGgsn5p 1" >/dev/null
coproc ENGINE { "$gen" 2>/dev/null; }
send() { echo "$1" >&"${ENGINE[1]}"; }
# Waits for the line starting with $1 (a new `go` or `position` would stop a running search).
await() {
    local line
    while IFS= read -r line <&"${ENGINE[0]}"; do
        [[ $line == "$1"* ]] && return 0
    done
    echo "pgo-build: the engine ended before '$1'" >&2
    exit 1
}
search() {
    send "position $1"
    send "go $2"
    await bestmove
}
send usi
await usiok
send "setoption name USI_Hash value 16"
for mode in Material Linear; do
    send "setoption name EvalType value $mode"
    send isready
    await readyok
    while read -r line; do
        send usinewgame
        search "$line" "nodes 60000"
    done < <(head -n 10 tests/data/openings.txt)
done
send "setoption name EvalType value NNUE"
send "setoption name Threads value 2"
send isready
await readyok
search "startpos moves 7g7f 3c3d 2g2f 8c8d 2f2e 8d8e" "nodes 300000"
send "setoption name Threads value 1"
while read -r sfen; do
    send "position sfen $sfen"
    send "go mate 2000"
    await checkmate
done < <(tail -n +2 tests/data/mate.tsv | head -n 40 | cut -f2)
send quit
wait "$ENGINE_PID" || true
compgen -G "$raw/*.profraw" >/dev/null || { echo "pgo-build: the training wrote no profile" >&2; exit 1; }

# 3. Merge; the profile's name carries its hash so that cargo rebuilds when it changes.
"$profdata" merge -o "$work/merged.profdata" "$raw"
sum=$(cksum <"$work/merged.profdata" | cut -d' ' -f1)
prof="$(cd "$work" && pwd)/hayate-$sum.profdata"
rm -f "$work"/hayate-*.profdata
mv "$work/merged.profdata" "$prof"

# 4. The final build, and its check.
RUSTFLAGS="$flags -C profile-use=$prof" "$cargo" build --release --target-dir "$out"
got=$(signature "$out/release/hayate")
if [[ $got != "$expected" ]]; then
    echo "pgo-build: bench signature $got differs from the instrumented build's $expected" >&2
    rm -f "$out/release/hayate"
    exit 1
fi
echo "pgo-build: profile-guided build done, bench $got (as instrumented)" >&2
