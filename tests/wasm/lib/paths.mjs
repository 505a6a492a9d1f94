// Where the tests find the repository, the WebAssembly engine folder and the native binary.
import path from "node:path";
import { fileURLToPath } from "node:url";

/** The repository root (tests/wasm/lib is three levels below it). */
export const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../..");

/** The engine folder: `HAYATE_WASM_DIR`, else `target/wasm/hayate` in the repository. */
export const WASM_DIR = path.resolve(
  REPO,
  process.env.HAYATE_WASM_DIR || path.join("target", "wasm", "hayate"),
);

/** The native engine: `HAYATE_NATIVE`, else the repository's `target/release/hayate`. */
export const NATIVE_ENGINE = path.resolve(
  REPO,
  process.env.HAYATE_NATIVE || path.join("target", "release", "hayate"),
);

/** Where the browser test leaves its screenshot. */
export const SCREENSHOT = path.join(REPO, "target", "wasm", "screenshot.png");
