#!/usr/bin/env node
// The WebAssembly build as a stdio USI engine, for GUIs and match tools that start engines as
// processes: each stdin line goes to the engine's postMessage(), each line it prints goes to
// stdout, its printErr to stderr. From a `go` or `ponderhit` to the `bestmove`/`checkmate` the
// bridge calls poll() every 10 ms, as ShogiHome's worker does (`--no-poll`: never, and the
// engine advances its search by itself). After `quit` (or the end of stdin) it terminates the
// engine and exits. Plain Node.js (20 or later), no packages.
//
//   node tools/wasm/usi.mjs [--engine DIR] [--no-poll]
//
// DIR is the engine folder (engine.json, the module, the .wasm): by default HAYATE_WASM_DIR, else
// target/wasm/hayate in the repository.
import fs from "node:fs";
import path from "node:path";
import readline from "node:readline";
import { fileURLToPath, pathToFileURL } from "node:url";

const POLL_INTERVAL_MS = 10;
const USAGE = "usage: node tools/wasm/usi.mjs [--engine DIR] [--no-poll]\n";

function parseArguments(argv) {
  const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
  const settings = {
    dir: path.resolve(process.env.HAYATE_WASM_DIR || path.join(repo, "target", "wasm", "hayate")),
    poll: true,
  };
  for (let i = 0; i < argv.length; i++) {
    const argument = argv[i];
    if (argument === "--engine" && i + 1 < argv.length) {
      settings.dir = path.resolve(argv[++i]);
    } else if (argument === "--no-poll") {
      settings.poll = false;
    } else if (argument === "--help" || argument === "-h") {
      process.stdout.write(USAGE);
      process.exit(0);
    } else {
      process.stderr.write(`unknown argument ${argument}\n${USAGE}`);
      process.exit(2);
    }
  }
  return settings;
}

/** Imports the folder's module and creates the engine as ShogiHome does. */
async function createEngine(dir, printErr) {
  const manifestFile = path.join(dir, "engine.json");
  const manifest = JSON.parse(fs.readFileSync(manifestFile, "utf8"));
  if (typeof manifest.module !== "string") {
    throw new Error(`${manifestFile} names no module`);
  }
  const moduleURL = pathToFileURL(path.join(dir, manifest.module));
  const factory = (await import(moduleURL.href)).default;
  if (typeof factory !== "function") {
    throw new Error(`${manifest.module} has no default export that is a function`);
  }
  const engine = await factory({
    printErr,
    locateFile: (file) => new URL(file, moduleURL).href,
  });
  for (const method of ["postMessage", "addMessageListener", "terminate"]) {
    if (typeof engine?.[method] !== "function") {
      throw new Error(`the engine has no ${method}()`);
    }
  }
  for (const file of manifest.dataFiles || []) {
    const parent = file.path.slice(0, file.path.lastIndexOf("/"));
    if (parent) {
      engine.FS.mkdirTree(parent);
    }
    engine.FS.writeFile(file.path, new Uint8Array(fs.readFileSync(path.join(dir, file.url))));
  }
  return engine;
}

async function main() {
  const settings = parseArguments(process.argv.slice(2));
  // Lines that arrive while the module loads wait here.
  const pending = [];
  let engine = null;
  let timer = null;
  let finished = false;

  const stopPolling = () => {
    if (timer !== null) {
      clearInterval(timer);
      timer = null;
    }
  };

  const finish = (status) => {
    if (finished) {
      return;
    }
    finished = true;
    stopPolling();
    engine?.terminate();
    // Exit once what was written has reached the pipe.
    process.stdout.write("", () => process.exit(status));
  };

  const deliver = (line) => {
    if (line.trim() === "quit") {
      engine.postMessage(line);
      finish(0);
      return;
    }
    const starts = /^\s*(go|ponderhit)(\s|$)/.test(line);
    engine.postMessage(line);
    if (starts && settings.poll && timer === null && typeof engine.poll === "function") {
      timer = setInterval(() => engine.poll(), POLL_INTERVAL_MS);
    }
  };

  const input = readline.createInterface({ input: process.stdin, crlfDelay: Infinity });
  input.on("line", (line) => {
    if (finished) {
      return;
    }
    if (engine) {
      deliver(line);
    } else {
      pending.push(line);
    }
  });
  input.on("close", () => {
    if (engine) {
      deliver("quit");
    } else {
      pending.push("quit");
    }
  });

  try {
    engine = await createEngine(settings.dir, (line) => process.stderr.write(`${line}\n`));
  } catch (error) {
    process.stderr.write(`cannot start the engine in ${settings.dir}: ${error.message}\n`);
    process.exit(1);
  }
  engine.addMessageListener((line) => {
    if (finished) {
      return;
    }
    process.stdout.write(`${line}\n`);
    if (line.startsWith("bestmove ") || line.startsWith("checkmate ")) {
      stopPolling();
    }
  });
  while (pending.length > 0 && !finished) {
    deliver(pending.shift());
  }
}

main();
