#!/bin/sh
# Runs the WebAssembly build's tests: `run.sh node` (conformance, the game against the native
# engine, the stdio bridge), `run.sh browser` (the example page in headless Chromium), `run.sh all`
# (both, the default), or `run.sh FILE.test.mjs...`. Installs the pinned packages first (npm ci)
# when node_modules is missing. Without Node.js it says so and exits 0; the browser test skips
# itself when no Chromium is found, unless HAYATE_REQUIRE_BROWSER=1.
#
# Environment: HAYATE_WASM_DIR (the engine folder; default target/wasm/hayate), HAYATE_NATIVE
# (default target/release/hayate), HAYATE_CHROMIUM (default /usr/bin/chromium).
set -eu

if ! command -v node >/dev/null 2>&1; then
  echo "tests/wasm: Node.js is not installed: the WebAssembly tests are skipped"
  exit 0
fi
major=$(node -p 'process.versions.node.split(".")[0]')
if [ "$major" -lt 20 ]; then
  echo "tests/wasm: Node.js $(node --version) is older than 20: the WebAssembly tests are skipped"
  exit 0
fi

here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)

case "${1:-all}" in
  node) set -- lib.test.mjs conformance.test.mjs game.test.mjs bridge.test.mjs ;;
  browser) set -- browser.test.mjs ;;
  all) set -- lib.test.mjs conformance.test.mjs game.test.mjs bridge.test.mjs browser.test.mjs ;;
  *) ;;
esac

# A path as given, or from the repository root when relative.
absolute() {
  case "$1" in
    /*) echo "$1" ;;
    *) echo "$repo/$1" ;;
  esac
}

wasm_dir=$(absolute "${HAYATE_WASM_DIR:-target/wasm/hayate}")
if [ ! -f "$wasm_dir/engine.json" ]; then
  echo "tests/wasm: no engine.json in $wasm_dir: build the engine with 'make wasm' or set HAYATE_WASM_DIR" >&2
  exit 1
fi
for file in "$@"; do
  if [ "$file" = game.test.mjs ]; then
    native=$(absolute "${HAYATE_NATIVE:-target/release/hayate}")
    if [ ! -x "$native" ]; then
      echo "tests/wasm: no native engine at $native: 'cargo build --release' or set HAYATE_NATIVE" >&2
      exit 1
    fi
  fi
done

if [ ! -d "$here/node_modules" ]; then
  if ! command -v npm >/dev/null 2>&1; then
    echo "tests/wasm: npm is not installed (needed once for the pinned packages): skipped"
    exit 0
  fi
  (cd "$here" && npm ci --no-audit --no-fund)
fi

echo "tests/wasm: engine folder $wasm_dir"
cd "$here"
status=0
for file in "$@"; do
  echo "== $file"
  node --test-reporter=spec "$file" || status=1
done
exit $status
