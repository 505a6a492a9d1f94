#!/usr/bin/env bash
# Runs a Windows build of Hayate under Wine and checks it against the Linux build: perft 5, the
# bench signature (it must equal tests/bench_signature.rs), a USI session with \r\n line ends,
# engine-options.toml found next to the .exe while the working directory is elsewhere, a
# Shift-JIS EvalFile path with a drive letter, and tests/usi_session.rs (with the recorded GUI
# sessions) run against the .exe.
#
#   scripts/windows/test.sh [LEVEL]     (default sse42; builds it first)
set -euo pipefail
cd "$(dirname "$0")/../.."
root=$(pwd)
level=${1:-sse42}
exe="target/windows/hayate-$level.exe"

scripts/windows/build.sh "$level"  # cargo rebuilds only what changed
for pkg in wine64 gcc-mingw-w64-x86-64 locales; do
    if ! dpkg -s "$pkg" >/dev/null 2>&1; then
        if [ "$(id -u)" = 0 ]; then sudo=(); else sudo=(sudo); fi
        "${sudo[@]}" apt-get update -qq
        DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get install -y -qq "$pkg"
    fi
done

# The test folder: the exe, the ProcessPrng stand-in Wine 8 lacks, an options file.
dir="$root/target/windows/test-$level"
rm -rf "$dir"
mkdir -p "$dir"
cp "$exe" "$dir/hayate.exe"
x86_64-w64-mingw32-gcc -O2 -shared -o "$dir/bcryptprimitives.dll" scripts/windows/prng-standin.c -ladvapi32
printf 'MultiPV = 3\n' >"$dir/engine-options.toml"

export WINEPREFIX="$root/target/windows/wineprefix" WINEDEBUG=-all WINEDLLOVERRIDES="bcryptprimitives=n,b"
# A new prefix keeps wineserver busy for a while after wineboot returns; an engine started then
# could exit before answering `usi`, so wait for the server to finish first.
[ -d "$WINEPREFIX" ] || { echo "creating the Wine prefix (once)" >&2; wineboot --init >/dev/null 2>&1 || true; wineserver -w || true; }
run_env=()  # extra environment for wine (a locale)
run() { (cd "$1" && shift && timeout 300 env "${run_env[@]}" wine "$dir/hayate.exe" "$@"); }

fail=0
check() { # name, wanted line, output
    if grep -qxF -- "$2" <<<"$3"; then echo "ok: $1"; else echo "FAILED: $1: no line '$2' in:"; echo "$3" | tail -20; fail=1; fi
}

out=$(run "$dir" perft 5 | tr -d '\r')
check "perft 5" "Nodes searched: 19861490" "$out"
echo "$out" | grep Time

want=$(grep -oE 'EXPECTED_NODES: u64 = [0-9_]+' tests/bench_signature.rs | grep -oE '[0-9_]+$' | tr -d _)
out=$(run "$dir" bench | tr -d '\r')
check "bench signature" "Nodes searched  : $want" "$out"
echo "$out" | grep -E "Total time|Nodes/second"

# A GUI's session, \r\n line ends, started from another folder (the GUI's).
out=$({
    printf 'usi\r\nisready\r\nusinewgame\r\nposition startpos moves 7g7f 3c3d\r\ngo btime 0 wtime 0 byoyomi 300\r\n'
    sleep 5
    printf 'quit\r\n'
} | run "$root/target" | tr -d '\r')
check "usiok" "usiok" "$out"
check "readyok" "readyok" "$out"
check "options file next to the exe" "option name MultiPV type spin default 3 min 1 max 800" "$out"
if grep -qE '^bestmove [1-9][a-i][1-9][a-i]\+?$' <<<"$out"; then echo "ok: bestmove"; else echo "FAILED: bestmove"; fail=1; fi
grep '^id name' <<<"$out"

# A Japanese Windows GUI sends path options in Shift-JIS (CP932): EvalFile ...\評価\nn.bin as
# its bytes. Under a Japanese locale Wine's ANSI code page is 932; the engine must
# find the file (a stand-in that is not a net, so the answer names its header) instead of
# reporting no file there.
mkdir -p "$dir/評価" "$root/target/windows/locale"
printf 'not a net' >"$dir/評価/nn.bin"
[ -d "$root/target/windows/locale/ja_JP.UTF-8" ] ||
    localedef -i ja_JP -f UTF-8 "$root/target/windows/locale/ja_JP.UTF-8"
# The path is absolute, with Wine's drive letter for / and backslashes, and the engine runs in
# another folder.
run_env=(LOCPATH="$root/target/windows/locale" LANG=ja_JP.UTF-8 LC_ALL=ja_JP.UTF-8)
winpath="Z:$(tr / '\\' <<<"$dir")\\"
out=$({
    printf 'setoption name EvalType value NNUE\r\n'
    printf 'setoption name EvalFile value %s\x95\x5d\x89\xbf\\nn.bin\r\n' "$winpath"
    printf 'isready\r\nquit\r\n'
} | run "$root/target" | tr -d '\r')
if grep -q 'not a YaneuraOu NNUE file' <<<"$out" && grep -qx readyok <<<"$out"; then
    echo "ok: Shift-JIS EvalFile path"
else
    echo "FAILED: Shift-JIS EvalFile path:"; echo "$out"; fail=1
fi

# The USI session tests (the scripted sessions and the 34 recorded GUI sessions) against the
# Windows executable, through scripts/windows/wine-hayate; the options file is taken away first.
rm -f "$dir/engine-options.toml"
if HAYATE_WINDOWS_LEVEL="$level" HAYATE_USI_ENGINE="$root/scripts/windows/wine-hayate" \
    cargo test --release --test usi_session; then
    echo "ok: USI session tests under Wine"
else
    echo "FAILED: USI session tests under Wine"; fail=1
fi

ls -l "$exe"
[ $fail = 0 ] && echo "all Windows checks passed" || echo "Windows checks FAILED"
exit $fail
