#!/usr/bin/env node
// The WebAssembly engine's speed next to the native engine's, on the same positions: `bench` (the
// bench positions to depth 9, the same nodes everywhere: the signature) in rounds, the engines in
// turn: the native binary, the module in Node.js, and the module in headless Chromium (in the
// example page's worker). Prints each round's nodes per second and the medians and ratios.
//
//   node tools/wasm/speed.mjs NATIVE_BINARY [--rounds N] [--engine DIR] [--chromium PATH]
import { execFileSync } from "node:child_process";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { optionIn, playwright, repo } from "./cli.mjs";

const args = process.argv.slice(2);
const option = (name, fallback) => optionIn(args, name, fallback);
const native = args[0];
if (!native || native.startsWith("--")) {
  console.error("usage: node tools/wasm/speed.mjs NATIVE_BINARY [--rounds N] [--engine DIR] [--chromium PATH]");
  process.exit(2);
}
const rounds = Number(option("--rounds", "3"));
const dir = path.resolve(option("--engine", path.join(repo, "target", "wasm", "hayate")));
const chromiumPath = option("--chromium", "/usr/bin/chromium");

/** Nodes per second from bench's output lines. */
function nps(lines) {
  const line = lines.find((l) => l.startsWith("Nodes/second"));
  if (!line) throw new Error(`no bench result in:\n${lines.join("\n")}`);
  return Number(line.split(":")[1]);
}

function benchNative() {
  const out = execFileSync(native, ["bench"], { encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] });
  return nps(out.split("\n"));
}

async function benchNode() {
  const modulePath = path.join(dir, "hayate.js");
  const glue = await import(pathToFileURL(modulePath).href);
  const engine = await glue.default({ locateFile: (f) => new URL(f, pathToFileURL(modulePath)).href });
  await glue.writeDataFiles(engine, pathToFileURL(`${dir}/`).href);
  const lines = [];
  engine.addMessageListener((l) => lines.push(l));
  engine.postMessage("bench"); // in slices, like a search
  while (!lines.some((l) => l.startsWith("Nodes/second"))) {
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  engine.terminate();
  return nps(lines);
}

async function browserBench() {
  const { chromium } = await playwright();
  const { startServer } = await import(pathToFileURL(path.join(repo, "tests", "wasm", "lib", "static-server.mjs")).href);
  const server = await startServer({ "/wasm/example/": path.join(repo, "wasm", "example"), "/target/wasm/hayate/": dir });
  const browser = await chromium.launch({ executablePath: chromiumPath, headless: true });
  return {
    async run() {
      const page = await browser.newPage();
      await page.goto(`${server.origin}/wasm/example/index.html`);
      await page.waitForFunction(() => window.hayatePage?.state() === "ready", null, { timeout: 30000 });
      await page.evaluate(() => window.hayatePage.send("bench"));
      await page.waitForFunction(() => window.hayatePage.lines.some((l) => l.startsWith("Nodes/second")), null, {
        timeout: 120000,
      });
      const lines = await page.evaluate(() => window.hayatePage.lines);
      await page.close();
      return nps(lines);
    },
    async close() {
      await browser.close();
      await server.close();
    },
  };
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const results = { native: [], node: [], chromium: [] };
const chromium = await browserBench();
for (let r = 1; r <= rounds; r++) {
  results.native.push(benchNative());
  results.node.push(await benchNode());
  results.chromium.push(await chromium.run());
  console.log(`round ${r}: native ${results.native.at(-1)}, node ${results.node.at(-1)}, chromium ${results.chromium.at(-1)}`);
}
await chromium.close();
const n = median(results.native);
for (const [name, xs] of Object.entries(results)) {
  console.log(`${name}: median ${median(xs)} nps (${(median(xs) / n).toFixed(3)}x native)`);
}
