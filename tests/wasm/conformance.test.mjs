// Hayate's WebAssembly build against ShogiHome's engine contract (specs/wasm-engine-abi.md,
// `shogihome-wasm-engine/1`): the manifest and the folder, the handshake, the presets, and every
// search command twice: with the host calling poll() every 10 ms as ShogiHome does, and with the
// host never calling it (the engine then has to advance its search by itself).
//
// node --test-reporter=spec conformance.test.mjs   (engine folder: HAYATE_WASM_DIR)
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { after, describe, it } from "node:test";
import { isResult, sleep } from "./lib/lines.mjs";
import { PROBE_SEARCH_MS, longestEventLoopGap } from "./lib/first-search-probe.mjs";
import { REPO, WASM_DIR } from "./lib/paths.mjs";
import { checkLine, checkMateLine } from "./lib/rules.mjs";
import { handshake, ready, search } from "./lib/session.mjs";
import {
  normaliseManifestOption,
  parseBestmove,
  parseInfoLine,
  parseOptionLine,
} from "./lib/usi-text.mjs";
import { launchWasm, readManifest } from "./lib/wasm-engine.mjs";

const ABI = "shogihome-wasm-engine/1";
const SIZE_LIMIT = 8 * 1024 * 1024;
const PRESET_ID = /^[a-z0-9-]+$/;
const STOP_LATENCY_LIMIT_MS = 500;
// A mate in 3 (tests/data/mate.tsv, antma_tsume3_3): G*5c, then G*4b or G*6b.
const MATE_IN_3 = "9/4k4/9/4P4/9/9/9/9/9 b 2G2r2b4s4n4l17p 1";
const MODES = [
  { name: "host polls every 10 ms", poll: true },
  { name: "host never polls", poll: false },
];

/** Prints a measurement where the test report shows it. */
function report(text) {
  console.log(`# measured: ${text}`);
}

/** Every engine a test starts, so that one failing midway still gets terminated. */
const started = new Set();

async function launch(poll = true) {
  const engine = await launchWasm(WASM_DIR, { poll });
  started.add(engine);
  return engine;
}

/** A fresh engine past `usi` and `isready`. */
async function readyEngine(poll, options = []) {
  const engine = await launch(poll);
  await handshake(engine);
  for (const line of options) {
    engine.send(line);
  }
  await ready(engine);
  return engine;
}

/** An engine 50 ms into a long search from the start position. */
async function midSearch(poll) {
  const engine = await readyEngine(poll);
  engine.send("position startpos");
  engine.send("go btime 600000 wtime 600000 byoyomi 300000");
  await sleep(50);
  return engine;
}

function done(engine) {
  if (started.delete(engine)) {
    engine.terminate();
  }
}

/** The bestmove of `result`, checked legal after `position`'s moves. */
function assertLegalBestmove(result, sfen, moves = []) {
  const best = parseBestmove(result);
  assert.ok(best, `not a bestmove: ${result}`);
  assert.notEqual(best.move, "resign", "resigned a playable position");
  assert.equal(checkLine(sfen, [...moves, best.move]), null);
  if (best.ponder) {
    assert.equal(checkLine(sfen, [...moves, best.move, best.ponder]), null, "the ponder move");
  }
  return best;
}

/** Every `info ... pv` of a search is a legal line from the searched position. */
function assertLegalPvs(lines, sfen, moves = []) {
  for (const line of lines) {
    const info = parseInfoLine(line);
    if (info?.pv) {
      assert.equal(checkLine(sfen, [...moves, ...info.pv]), null, line);
    }
  }
}

/** No line at all (output or printErr) while the host polls 20 times at 10 ms, then 300 ms. */
async function assertSilent(engine, poll, what) {
  const from = engine.log.mark();
  for (let i = 0; i < 20; i++) {
    if (poll) {
      engine.instance.poll();
    }
    await sleep(10);
  }
  await sleep(300);
  assert.deepEqual(engine.log.linesFrom(from), [], `lines after ${what}`);
}

after(() => {
  for (const engine of started) {
    done(engine);
  }
  // Nothing of a terminated engine may keep Node's event loop alive: a timer or a port left
  // open would hang every host that runs the engine in a loop of its own.
  setTimeout(() => {
    console.error("the event loop is still busy 3 s after every engine was terminated");
    process.exit(1);
  }, 3000).unref();
});

describe("the engine folder", () => {
  it("has a manifest of the ABI, its module and the module's .wasm beside it", () => {
    const manifest = readManifest(WASM_DIR);
    assert.equal(manifest.abi, ABI);
    assert.equal(typeof manifest.module, "string");
    assert.match(manifest.module, /^[A-Za-z0-9._-]+\.js$/);
    assert.equal(manifest.moduleFormat, "esm");
    assert.ok(fs.statSync(path.join(WASM_DIR, manifest.module)).isFile());
    const wasm = manifest.module.replace(/\.js$/, ".wasm");
    assert.ok(fs.statSync(path.join(WASM_DIR, wasm)).isFile(), `${wasm} beside the module`);
    for (const file of manifest.dataFiles || []) {
      assert.ok(fs.statSync(path.join(WASM_DIR, file.url)).isFile(), file.url);
    }
    assert.equal(typeof manifest.name, "string");
    assert.equal(typeof manifest.author, "string");
  });

  it("has one or more presets with unique ids of [a-z0-9-]", () => {
    const { presets } = readManifest(WASM_DIR);
    assert.ok(Array.isArray(presets) && presets.length > 0, "presets");
    const ids = new Set();
    for (const preset of presets) {
      assert.match(preset.id, PRESET_ID);
      assert.ok(!ids.has(preset.id), `preset id ${preset.id} twice`);
      ids.add(preset.id);
      assert.equal(typeof preset.displayName, "string");
      assert.ok(preset.displayName.length > 0, `${preset.id} has a display name`);
    }
  });

  it("is under 8 MB", () => {
    const size = (dir) =>
      fs.readdirSync(dir, { withFileTypes: true }).reduce((sum, entry) => {
        const child = path.join(dir, entry.name);
        return sum + (entry.isDirectory() ? size(child) : fs.statSync(child).size);
      }, 0);
    const total = size(WASM_DIR);
    report(`engine folder ${total} bytes (${(total / 1048576).toFixed(2)} MiB) in ${WASM_DIR}`);
    assert.ok(total < SIZE_LIMIT, `${total} bytes`);
  });
});

describe("the handshake", () => {
  it("answers usi with the manifest's name, author and options, usiok last", async () => {
    const engine = await launch();
    const lines = await handshake(engine);
    // Wait a little: nothing may follow usiok.
    await sleep(100);
    const { manifest } = engine;
    const all = engine.log.linesFrom(0).filter((line) => !line.startsWith("ERR "));
    assert.equal(lines.at(-1), "usiok");
    assert.equal(all.at(-1), "usiok", `usiok is the last line: ${all.slice(-3).join(" / ")}`);
    assert.ok(lines.includes(`id name ${manifest.name}`), `id name ${manifest.name}`);
    assert.ok(lines.includes(`id author ${manifest.author}`), `id author ${manifest.author}`);
    const declared = lines.filter((line) => line.startsWith("option ")).map(parseOptionLine);
    assert.ok(!declared.includes(null), "every option line reads");
    assert.deepEqual((manifest.options || []).map(normaliseManifestOption), declared);
    done(engine);
  });

  it("answers isready with readyok (factory call to readyok timed)", async () => {
    const engine = await launch();
    await handshake(engine);
    const entry = await ready(engine);
    report(`factory call to readyok ${(entry.at - engine.createdAt).toFixed(0)} ms`);
    assert.deepEqual(
      engine.log.linesFrom(0).filter((line) => line.startsWith("ERR ")),
      [],
      "printErr output",
    );
    done(engine);
  });
});

describe("the search", () => {
  it("is the native engine's: bench gives the signature of tests/bench_signature.rs", async () => {
    // One source for the number: the native test's constant.
    const source = fs.readFileSync(path.join(REPO, "tests", "bench_signature.rs"), "utf8");
    const expected = Number(/const EXPECTED_NODES: u64 = ([0-9_]+);/.exec(source)[1].replaceAll("_", ""));
    const engine = await launch();
    await handshake(engine);
    const entry = await engine.request("bench", (line) => line.startsWith("Nodes/second"), {
      timeoutMs: 120000,
      label: "the end of bench",
    });
    const lines = engine.log.linesFrom(0);
    const nodes = Number(/^Nodes searched\s*: ([0-9]+)$/.exec(lines.find((l) => l.startsWith("Nodes searched")))[1]);
    report(`bench ${nodes} nodes, ${entry.line.replace(/\s+/g, " ")}`);
    assert.equal(nodes, expected, "the bench signature (the search and the evaluation differ from native)");
    done(engine);
  });
});

describe("the presets", () => {
  const { presets } = readManifest(WASM_DIR);
  for (const preset of presets) {
    it(`${preset.id}: its setoption lines, then readyok, no printErr output`, async () => {
      const engine = await launch();
      const declared = (await handshake(engine))
        .filter((line) => line.startsWith("option "))
        .map(parseOptionLine);
      const values = Object.entries(preset.values || {});
      for (const [name, value] of values) {
        const option = declared.find((o) => o?.name === name);
        assert.ok(option, `${name} is an option the engine declares`);
        if (option.type === "spin") {
          assert.equal(typeof value, "number", `${name} is a number`);
          assert.ok(value >= option.min && value <= option.max, `${name} ${value} in range`);
        } else if (option.type === "combo") {
          assert.ok(option.vars.includes(value), `${name} ${value} is one of its vars`);
        } else if (option.type === "check") {
          assert.ok(value === "true" || value === "false", `${name} ${value}`);
        }
        engine.send(`setoption name ${name} value ${value}`);
      }
      // The ABI has no threads: a Threads option must stay at 1.
      const threads = declared.find((o) => o?.name === "Threads");
      if (threads) {
        const value = preset.values?.Threads ?? threads.default;
        assert.equal(Number(value), 1, "Threads");
      }
      await ready(engine);
      assert.deepEqual(
        engine.log.linesFrom(0).filter((line) => line.startsWith("ERR ")),
        [],
        "printErr output",
      );
      done(engine);
    });
  }
});

for (const mode of MODES) {
  describe(`searching, ${mode.name}`, { timeout: 60000 }, () => {
    it("go btime 10000 wtime 10000 byoyomi 1000: a legal bestmove within 5 s", async () => {
      const engine = await readyEngine(mode.poll);
      engine.send("usinewgame");
      const { result, lines, ms } = await search(
        engine,
        "position startpos",
        "go btime 10000 wtime 10000 byoyomi 1000",
        5000,
      );
      report(`${mode.name}: bestmove after ${ms.toFixed(0)} ms at byoyomi 1000 (${result})`);
      assertLegalBestmove(result, "startpos");
      assertLegalPvs(lines, "startpos");
      done(engine);
    });

    it("a long go, then stop at once: bestmove in under 500 ms", async () => {
      const engine = await readyEngine(mode.poll);
      engine.send("position startpos");
      engine.send("go btime 600000 wtime 600000 byoyomi 300000");
      const stopped = performance.now();
      const entry = await engine.request("stop", isResult, { label: "bestmove after stop" });
      const latency = entry.at - stopped;
      report(`${mode.name}: stop latency ${latency.toFixed(1)} ms (${entry.line})`);
      assertLegalBestmove(entry.line, "startpos");
      assert.ok(latency < STOP_LATENCY_LIMIT_MS, `${latency} ms`);
      done(engine);
    });

    it("go infinite thinks until stop, and the host hears stop in time", async () => {
      const engine = await readyEngine(mode.poll);
      engine.send("position startpos");
      const from = engine.log.mark();
      engine.send("go infinite");
      // A host handles `stop` (a worker message, a line on stdin) between the engine's slices,
      // so the longest the engine holds the event loop is how late a stop can be heard.
      const longest = await longestEventLoopGap(PROBE_SEARCH_MS);
      const before = engine.log.linesFrom(from);
      assert.ok(!before.some(isResult), "no answer before stop");
      assert.ok(
        before.some((line) => parseInfoLine(line)?.depth >= 1),
        `an info line with a depth: ${before.join(" / ")}`,
      );
      // The stop comes from a timer, as it would from a message: due at `due`, heard later if
      // the engine holds the loop then.
      const due = performance.now() + 5;
      await sleep(5);
      const entry = await engine.request("stop", isResult, { label: "bestmove after stop" });
      const latency = entry.at - due;
      report(
        `${mode.name}: go infinite, longest event-loop gap ${longest.toFixed(0)} ms in ` +
          `${PROBE_SEARCH_MS} ms, timer-sent stop answered ${latency.toFixed(1)} ms after due`,
      );
      assertLegalBestmove(entry.line, "startpos");
      assertLegalPvs(engine.log.linesFrom(from), "startpos");
      assert.ok(longest < STOP_LATENCY_LIMIT_MS, `the engine held the event loop ${longest} ms`);
      assert.ok(latency < STOP_LATENCY_LIMIT_MS, `${latency} ms`);
      done(engine);
    });

    it("in a fresh process, the first search holds the event loop under 500 ms", async () => {
      // Each page (each ShogiHome game) starts the engine cold: its first search runs before
      // the JavaScript engine has optimised the module's code.
      const probe = fileURLToPath(new URL("lib/first-search-probe.mjs", import.meta.url));
      const { stdout } = await promisify(execFile)(process.execPath, [
        probe,
        WASM_DIR,
        mode.poll ? "poll" : "self",
      ]);
      const { goMs, gapMs, stopMs, bestmove } = JSON.parse(stdout);
      report(
        `${mode.name}: fresh process, go infinite returned after ${goMs.toFixed(0)} ms, ` +
          `longest event-loop gap ${gapMs.toFixed(0)} ms in ${PROBE_SEARCH_MS} ms, ` +
          `timer-sent stop answered ${stopMs.toFixed(1)} ms after due`,
      );
      assertLegalBestmove(bestmove, "startpos");
      assert.ok(goMs < STOP_LATENCY_LIMIT_MS, `postMessage("go infinite") took ${goMs} ms`);
      assert.ok(gapMs < STOP_LATENCY_LIMIT_MS, `the engine held the event loop ${gapMs} ms`);
      assert.ok(stopMs < STOP_LATENCY_LIMIT_MS, `${stopMs} ms`);
    });

    it("go ponder waits for ponderhit, then answers", async () => {
      const engine = await readyEngine(mode.poll, ["setoption name USI_Ponder value true"]);
      engine.send("position startpos moves 7g7f");
      const from = engine.log.mark();
      engine.send("go ponder btime 10000 wtime 10000 byoyomi 1000");
      await sleep(300);
      assert.ok(!engine.log.linesFrom(from).some(isResult), "no answer before ponderhit");
      const hit = performance.now();
      const entry = await engine.request("ponderhit", isResult, {
        timeoutMs: 5000,
        label: "bestmove after ponderhit",
      });
      report(`${mode.name}: bestmove ${(entry.at - hit).toFixed(0)} ms after ponderhit`);
      assertLegalBestmove(entry.line, "startpos", ["7g7f"]);
      done(engine);
    });

    it("go mate on a mate in 3: a checkmate line that mates", async () => {
      const engine = await readyEngine(mode.poll);
      const { result, ms } = await search(
        engine,
        `position sfen ${MATE_IN_3}`,
        "go mate 5000",
        6000,
      );
      report(`${mode.name}: ${result} after ${ms.toFixed(0)} ms`);
      assert.match(result, /^checkmate /);
      const moves = result.split(/\s+/).slice(1);
      assert.notDeepEqual(moves, ["nomate"], "a mate exists");
      assert.notDeepEqual(moves, ["timeout"], "found in time");
      assert.notDeepEqual(moves, ["notimplemented"], "go mate implemented");
      assert.equal(checkLine(MATE_IN_3, moves.slice(0, 1)), null, "the first move");
      assert.equal(checkMateLine(MATE_IN_3, moves), null, "the whole line");
      done(engine);
    });

    it("says nothing after quit sent mid-search", async () => {
      const engine = await midSearch(mode.poll);
      engine.quit();
      await assertSilent(engine, mode.poll, "quit");
      done(engine);
    });

    it("says nothing after terminate() mid-search", async () => {
      const engine = await midSearch(mode.poll);
      started.delete(engine);
      engine.terminate();
      await assertSilent(engine, mode.poll, "terminate()");
    });
  });
}
