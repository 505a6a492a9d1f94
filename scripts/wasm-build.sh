#!/bin/sh
# Builds target/wasm/hayate/, Hayate as a WebAssembly engine for ShogiHome's web app and other
# pages (see wasm/README.md): the module (SIMD128, a 32 MiB stack for the deepest searches),
# binaryen's asyncify pass, so that a search can pause and resume (wasm-opt: Debian's binaryen),
# the glue module, the net as a data file, and the manifest, which lists the options the module
# itself declares.
set -eu
CARGO=${CARGO:-cargo}
OUT=target/wasm/hayate
BUILD=target/wasm/cargo
STACK_BYTES=33554432
# What the build needs, installed when missing: rustup's wasm32 standard library, Debian's
# binaryen (wasm-opt). Node.js writes the manifest (it runs the module).
if command -v rustup >/dev/null 2>&1 && ! rustup target list --installed | grep -qx wasm32-unknown-unknown; then
  rustup target add wasm32-unknown-unknown
fi
if ! command -v wasm-opt >/dev/null 2>&1; then
  echo "wasm-build: installing binaryen (wasm-opt)" >&2
  if [ "$(id -u)" = 0 ]; then sudo=""; else sudo=sudo; fi
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq binaryen
fi
command -v node >/dev/null 2>&1 || { echo "wasm-build: Node.js is needed to write the manifest" >&2; exit 1; }
RUSTFLAGS="-C target-feature=+simd128 -C link-arg=-zstack-size=$STACK_BYTES" \
  $CARGO build --release --target wasm32-unknown-unknown -p hayate-wasm --target-dir "$BUILD"
mkdir -p "$OUT"
# asyncify: only the import `hayate_pause` unwinds, and never through an indirect call (every
# call on the way to it is direct, see src/sys/host_yield.rs), so that only the functions on that
# way are instrumented; -O3 after it keeps the cost down.
wasm-opt "$BUILD/wasm32-unknown-unknown/release/hayate_wasm.wasm" \
  --enable-simd --enable-bulk-memory --enable-nontrapping-float-to-int --enable-sign-ext \
  --enable-mutable-globals --enable-multivalue --enable-reference-types \
  --asyncify --pass-arg=asyncify-imports@env.hayate_pause --pass-arg=asyncify-ignore-indirect -O3 \
  -o "$OUT/hayate.wasm"
cp wasm/js/hayate.js "$OUT/hayate.js"
# The net as a data file (the manifest's dataFiles): the compact net deflated, after its length
# (8 bytes, little-endian), named after the embedded net (src/eval/nnue/embedded_net.rs, NAME
# and WEB_FILE). Beside the module rather than in it: ShogiHome's PWA precaches each .wasm, up
# to 2 MiB, and fetches a .bin at its first use.
NET=$(sed -n 's/^pub const NAME: &str = "\(.*\)";$/\1/p' src/eval/nnue/embedded_net.rs)
rm -f "$OUT"/*.bin
python3 - "nets/$NET.hnnc" "$OUT/$NET.bin" <<'PY'
import struct
import sys
import zlib

net = open(sys.argv[1], "rb").read()
deflate = zlib.compressobj(9, zlib.DEFLATED, -15)
with open(sys.argv[2], "wb") as out:
    out.write(struct.pack("<Q", len(net)) + deflate.compress(net) + deflate.flush())
PY
node wasm/js/manifest.mjs "$OUT" "$NET.bin:/eval/$NET.bin"
ls -l "$OUT"
