// tools/wasm/usi.mjs, the bridge that makes the WebAssembly engine a stdio USI engine: the
// handshake and a search through the pipe, silence and exit after quit (idle and mid-search),
// exit at the end of input, a message for a folder without an engine.
//
// node --test-reporter=spec bridge.test.mjs   (HAYATE_WASM_DIR)
import assert from "node:assert/strict";
import path from "node:path";
import { after, describe, it } from "node:test";
import { sleep } from "./lib/lines.mjs";
import { ProcessEngine } from "./lib/native-engine.mjs";
import { REPO, WASM_DIR } from "./lib/paths.mjs";
import { checkLine } from "./lib/rules.mjs";
import { handshake, ready, search } from "./lib/session.mjs";
import { parseBestmove } from "./lib/usi-text.mjs";
import { readManifest } from "./lib/wasm-engine.mjs";

const BRIDGE = path.join(REPO, "tools", "wasm", "usi.mjs");

const bridges = [];

function startBridge(...args) {
  const bridge = new ProcessEngine(process.execPath, [BRIDGE, "--engine", WASM_DIR, ...args]);
  bridges.push(bridge);
  return bridge;
}

// A bridge a failed test left running would keep this process waiting on its pipes.
after(() => {
  for (const bridge of bridges) {
    if (bridge.child.exitCode === null && bridge.child.signalCode === null) {
      bridge.child.kill("SIGKILL");
    }
  }
});

/** The bridge's exit status, or a failure when it has not exited within `ms`. */
async function exitWithin(bridge, ms) {
  const status = await Promise.race([bridge.exited, sleep(ms).then(() => null)]);
  if (status === null) {
    bridge.child.kill("SIGKILL");
    assert.fail(`the bridge had not exited ${ms} ms later`);
  }
  return status;
}

for (const args of [[], ["--no-poll"]]) {
  describe(`the bridge ${args.join(" ") || "(polling)"}`, { timeout: 30000 }, () => {
    it("speaks USI over stdio, then exits silently after quit", async () => {
      const bridge = startBridge(...args);
      const lines = await handshake(bridge);
      assert.ok(lines.includes(`id name ${readManifest(WASM_DIR).name}`), lines.join(" / "));
      await ready(bridge);
      const { result } = await search(
        bridge,
        "position startpos moves 2g2f",
        "go btime 0 wtime 0 byoyomi 300",
        5000,
      );
      const best = parseBestmove(result);
      assert.ok(best, result);
      assert.equal(checkLine("startpos", ["2g2f", best.move]), null);
      // The engine is idle: nothing may follow quit, and the bridge exits.
      const from = bridge.log.mark();
      bridge.send("quit");
      const status = await exitWithin(bridge, 3000);
      assert.deepEqual(status, { code: 0, signal: null });
      assert.deepEqual(bridge.log.linesFrom(from), [], "lines after quit");
      assert.deepEqual(
        bridge.log.linesFrom(0).filter((line) => line.startsWith("ERR ")),
        [],
      );
    });

    // (Lines printed just before the quit may still be in the pipe, so silence mid-search is
    // checked in conformance.test.mjs, in the engine's own process.)
    it("exits after quit sent mid-search", async () => {
      const bridge = startBridge(...args);
      await handshake(bridge);
      await ready(bridge);
      bridge.send("position startpos");
      bridge.send("go infinite");
      await bridge.log.waitFor((line) => line.startsWith("info depth"), { label: "an info line" });
      const sent = performance.now();
      bridge.send("quit");
      assert.deepEqual(await exitWithin(bridge, 3000), { code: 0, signal: null });
      console.log(
        `# measured: bridge ${args.join(" ") || "(polling)"} exit ${(performance.now() - sent).toFixed(0)} ms after quit mid-search`,
      );
    });

    it("exits when its input ends", async () => {
      const bridge = startBridge(...args);
      await handshake(bridge);
      bridge.child.stdin.end();
      assert.deepEqual(await exitWithin(bridge, 3000), { code: 0, signal: null });
    });
  });
}

it("fails with a message on a folder without an engine", async () => {
  const bridge = new ProcessEngine(process.execPath, [BRIDGE, "--engine", REPO]);
  const status = await exitWithin(bridge, 5000);
  assert.equal(status.code, 1);
  assert.ok(
    bridge.log.linesFrom(0).some((line) => line.startsWith("ERR cannot start the engine")),
    bridge.log.linesFrom(0).join(" / "),
  );
});
