// Run as a script by conformance.test.mjs: the first search of a fresh Node.js process, where the
// engine's code is as cold as in a page that has just loaded it. Prints one JSON line: how long
// `postMessage("go infinite")` took, the longest the host's event loop was held during 1.5 s of
// search, and how long after it was due a timer-sent `stop` was answered.
//
//   node lib/first-search-probe.mjs DIR poll|self
import path from "node:path";
import { fileURLToPath } from "node:url";
import { isResult, sleep } from "./lines.mjs";
import { handshake, ready } from "./session.mjs";
import { launchWasm } from "./wasm-engine.mjs";

export const PROBE_SEARCH_MS = 1500;

/** The longest time between two ticks of a 1 ms timer over `ms` (what the engine held back). */
export async function longestEventLoopGap(ms) {
  let last = performance.now();
  let longest = 0;
  const ticker = setInterval(() => {
    const now = performance.now();
    longest = Math.max(longest, now - last);
    last = now;
  }, 1);
  await sleep(ms);
  clearInterval(ticker);
  return Math.max(longest, performance.now() - last);
}

async function probe(dir, poll) {
  const engine = await launchWasm(dir, { poll });
  await handshake(engine);
  await ready(engine);
  engine.send("position startpos");
  const sent = performance.now();
  engine.send("go infinite");
  const goMs = performance.now() - sent;
  const gapMs = await longestEventLoopGap(PROBE_SEARCH_MS);
  const due = performance.now() + 5;
  await sleep(5);
  const entry = await engine.request("stop", isResult, { label: "bestmove after stop" });
  engine.terminate();
  return { goMs, gapMs, stopMs: entry.at - due, bestmove: entry.line };
}

if (fileURLToPath(import.meta.url) === path.resolve(process.argv[1])) {
  const [dir, mode] = process.argv.slice(2);
  const result = await probe(dir, mode === "poll");
  process.stdout.write(`${JSON.stringify(result)}\n`);
  process.exit(0);
}
