// What the Node.js tools of tools/wasm share: the repository's root, their `--name value`
// options, and playwright-core as the browser test installs it (tests/wasm/node_modules).
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

export const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");

/** The value after `name` in `args`, else `fallback`. */
export function optionIn(args, name, fallback) {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] : fallback;
}

/** playwright-core from tests/wasm's node_modules (`make test-wasm-browser` installs it). */
export async function playwright() {
  return import(
    pathToFileURL(path.join(repo, "tests", "wasm", "node_modules", "playwright-core", "index.mjs")).href
  );
}
