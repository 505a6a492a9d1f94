#!/bin/sh
# Builds target/wasm/hayate/, Hayate as a WebAssembly engine for ShogiHome's web app and other
# pages (see wasm/README.md): the module (SIMD128, a 32 MiB stack for the deepest searches),
# binaryen's asyncify pass, so that a search can pause and resume (wasm-opt: Debian's binaryen),
# the glue module and the manifest, which lists the options the module itself declares.
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
# asyncify: only the import `hayate_pause` unwinds; -O3 after it keeps the cost down.
wasm-opt "$BUILD/wasm32-unknown-unknown/release/hayate_wasm.wasm" \
  --enable-simd --enable-bulk-memory --enable-nontrapping-float-to-int --enable-sign-ext \
  --enable-mutable-globals --enable-multivalue --enable-reference-types \
  --asyncify --pass-arg=asyncify-imports@env.hayate_pause -O3 \
  -o "$OUT/hayate.wasm"
cp wasm/js/hayate.js "$OUT/hayate.js"
node wasm/js/manifest.mjs "$OUT"
ls -l "$OUT"
