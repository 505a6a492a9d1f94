// Runs a wasm32-wasip1 program (a cargo test or bench binary) under Node's WASI preview1:
//
//   node scripts/wasi-runner.mjs PROGRAM.wasm [ARGS...]
//
// Cargo calls it as the target runner (CARGO_TARGET_WASM32_WASIP1_RUNNER, see `make
// test-wasm-simd`). The program sees ARGS as its arguments (after its own name), this process's
// environment, and the crate directory at its own absolute path (so paths built from
// `env!("CARGO_MANIFEST_DIR")`, such as `nets/` or `tests/data/`, resolve) and as the current
// directory (so relative paths do too). The crate directory is CARGO_MANIFEST_DIR when cargo sets
// it, else the parent of this script's folder. The exit status is the program's; a trap (a
// panic under panic=abort, an out-of-bounds access) prints the error and exits with 101, the
// status of a failed Rust test.
//
// Node 20 crashes (SIGSEGV or a V8 check, after the program has finished) while exiting from a
// program that grew its memory to a few hundred MB, as the NNUE tests do, unless its garbage
// collector runs on the main thread. That is a flag V8 takes only at start-up, so the runner
// starts itself again with it (and without the notice that WASI is experimental).

import { spawnSync } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { constants } from 'node:os';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const GC_FLAG = '--single-threaded-gc';
const [program, ...args] = process.argv.slice(2);
if (program === undefined) {
  process.stderr.write('usage: node scripts/wasi-runner.mjs PROGRAM.wasm [ARGS...]\n');
  process.exit(2);
}

if (!process.execArgv.includes(GC_FLAG)) {
  const flags = [GC_FLAG, '--disable-warning=ExperimentalWarning'];
  const child = spawnSync(process.execPath, [...flags, fileURLToPath(import.meta.url), program, ...args], {
    stdio: 'inherit',
  });
  if (child.error) {
    process.stderr.write(`wasi-runner: cannot start ${process.execPath}: ${child.error.message}\n`);
    process.exit(101);
  }
  // A child killed by a signal reports it the way a shell does.
  process.exit(child.status ?? 128 + (constants.signals[child.signal] ?? 0));
}

const { WASI } = await import('node:wasi');
const crateDir = resolve(
  process.env.CARGO_MANIFEST_DIR ?? resolve(dirname(fileURLToPath(import.meta.url)), '..'),
);
const wasi = new WASI({
  version: 'preview1',
  args: [program, ...args],
  env: process.env,
  // wasi-libc resolves relative paths against the preopen named '.'.
  preopens: { '.': crateDir, [crateDir]: crateDir },
  returnOnExit: true,
});

let status;
try {
  const module = await WebAssembly.compile(await readFile(program));
  const instance = await WebAssembly.instantiate(module, wasi.getImportObject());
  status = wasi.start(instance);
} catch (e) {
  process.stderr.write(`wasi-runner: ${program}: ${e?.stack ?? e}\n`);
  status = 101;
}
process.exit(status);
