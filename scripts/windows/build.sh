#!/usr/bin/env bash
# Builds Windows executables of Hayate on Linux: the project's Rust toolchain with its
# x86_64-pc-windows-gnu standard library (`rustup target add`), and MinGW-w64 as the linker
# (Debian's gcc-mingw-w64-x86-64). Installs both when missing.
#
# (Debian's rustc-web with -Zbuild-std is the other route; its 1.85 is older than the 1.89 this
# code needs: AVX-512 intrinsics and File::try_lock.)
#
#   scripts/windows/build.sh [LEVEL...]     LEVEL: avx2 (x86-64-v3: AVX2, BMI2 -> PEXT sliders)
#                                                  sse42 (x86-64-v2: SSE4.2, POPCNT; magic sliders)
# Writes target/windows/hayate-<LEVEL>.exe. The NNUE code picks AVX2/VNNI (else SSE4.1) at run
# time in both.
set -euo pipefail
cd "$(dirname "$0")/../.."

levels=("$@")
[ ${#levels[@]} -gt 0 ] || levels=(avx2 sse42)

target=x86_64-pc-windows-gnu
if ! rustup target list --installed | grep -qx "$target"; then
    rustup target add "$target"
fi
if ! command -v x86_64-w64-mingw32-gcc >/dev/null 2>&1; then
    echo "installing gcc-mingw-w64-x86-64" >&2
    if [ "$(id -u)" = 0 ]; then sudo=(); else sudo=(sudo); fi
    "${sudo[@]}" apt-get update -qq
    DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get install -y -qq gcc-mingw-w64-x86-64
fi

mkdir -p target/windows
for level in "${levels[@]}"; do
    case "$level" in
        avx2) cpu=x86-64-v3 ;;
        sse42) cpu=x86-64-v2 ;;
        *) echo "unknown level '$level' (avx2 or sse42)" >&2; exit 2 ;;
    esac
    echo "building hayate-$level.exe (target-cpu=$cpu)" >&2
    CARGO_TARGET_X86_64_PC_WINDOWS_GNU_LINKER=x86_64-w64-mingw32-gcc \
        RUSTFLAGS="-C target-cpu=$cpu" \
        cargo build --release --locked --bin hayate --target "$target" --target-dir "target/windows-$level"
    cp "target/windows-$level/$target/release/hayate.exe" "target/windows/hayate-$level.exe"
done
ls -l target/windows/*.exe
