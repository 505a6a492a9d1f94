// The WebAssembly engine in this process, loaded the way ShogiHome's test driver loads it: the
// manifest's module imported by file URL, its default export called with printErr and locateFile.
import fs from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { LineLog, isResult } from "./lines.mjs";

/** The methods ShogiHome calls on an engine instance (`poll` is optional in the ABI). */
export const ENGINE_METHODS = [
  "postMessage",
  "addMessageListener",
  "removeMessageListener",
  "terminate",
  "poll",
];

/** How often the host calls `poll()` while a search is on, as ShogiHome's worker does (ms). */
export const POLL_INTERVAL_MS = 10;

/** The parsed `engine.json` of an engine folder; throws with the file's name on a problem. */
export function readManifest(dir) {
  const file = path.join(dir, "engine.json");
  let text;
  try {
    text = fs.readFileSync(file, "utf8");
  } catch (error) {
    throw new Error(`cannot read ${file} (build the engine with \`make wasm\`): ${error.message}`);
  }
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new Error(`${file} is not JSON: ${error.message}`);
  }
}

/**
 * Starts the engine of folder `dir`. With `poll: true` the host calls `poll()` every 10 ms from a
 * `go` or `ponderhit` until the `bestmove` or `checkmate`, as ShogiHome does; with `poll: false`
 * it never calls it and the engine must advance its search by itself.
 */
export async function launchWasm(dir, { poll = true } = {}) {
  const manifest = readManifest(dir);
  const modulePath = path.join(dir, manifest.module);
  const moduleURL = pathToFileURL(modulePath);
  const factory = (await import(moduleURL.href)).default;
  if (typeof factory !== "function") {
    throw new Error(`${modulePath} has no default export that is a function`);
  }
  const log = new LineLog();
  const createdAt = performance.now();
  const instance = await factory({
    printErr: (line) => log.push(`ERR ${line}`),
    locateFile: (file) => new URL(file, moduleURL).href,
  });
  const missing = ENGINE_METHODS.filter((name) => typeof instance?.[name] !== "function");
  if (missing.length > 0) {
    throw new Error(`the engine instance lacks ${missing.join(", ")}`);
  }
  for (const file of manifest.dataFiles || []) {
    const data = fs.readFileSync(path.join(dir, file.url));
    const parent = file.path.slice(0, file.path.lastIndexOf("/"));
    if (parent) {
      instance.FS.mkdirTree(parent);
    }
    instance.FS.writeFile(file.path, new Uint8Array(data));
  }
  return new WasmEngine({ manifest, instance, log, createdAt, poll });
}

export class WasmEngine {
  constructor({ manifest, instance, log, createdAt, poll }) {
    this.manifest = manifest;
    this.instance = instance;
    this.log = log;
    /** `performance.now()` just before the factory was called. */
    this.createdAt = createdAt;
    this.polls = poll;
    this.timer = null;
    this.listener = (line) => {
      log.push(line);
      if (isResult(line)) {
        this.stopPolling();
      }
    };
    instance.addMessageListener(this.listener);
  }

  /** Sends one USI line; a `go` or `ponderhit` starts the host's polling in polling mode. */
  send(line) {
    const starts = line === "go" || line.startsWith("go ") || line.startsWith("ponderhit");
    const mark = this.log.mark();
    this.instance.postMessage(line);
    // A result given inside postMessage needs no polling.
    const answered = this.log.linesFrom(mark).some(isResult);
    if (starts && this.polls && !answered && this.timer === null) {
      this.timer = setInterval(() => this.instance.poll(), POLL_INTERVAL_MS);
    }
  }

  /** Sends `line` and waits for the first line after it that satisfies `match`. */
  request(line, match, options = {}) {
    const from = this.log.mark();
    this.send(line);
    return this.log.waitFor(match, { from, ...options });
  }

  stopPolling() {
    if (this.timer !== null) {
      clearInterval(this.timer);
      this.timer = null;
    }
  }

  /** `quit`, with the host's polling stopped (the caller polls by hand if it wants to). */
  quit() {
    this.stopPolling();
    this.instance.postMessage("quit");
  }

  /** The instance's `terminate()`, with the host's polling stopped. */
  terminate() {
    this.stopPolling();
    this.instance.terminate();
  }
}
