// A short game between the WebAssembly engine (black, polled every 10 ms as ShogiHome does) and
// the native binary (white, USI over a pipe), both at byoyomi 200 ms: every move checked legal
// by tsshogi, the game printed.
//
// node --test-reporter=spec game.test.mjs   (HAYATE_WASM_DIR, HAYATE_NATIVE)
import assert from "node:assert/strict";
import { after, it } from "node:test";
import { JishogiDeclarationResult, JishogiDeclarationRule, judgeJishogiDeclaration } from "tsshogi";
import { ProcessEngine } from "./lib/native-engine.mjs";
import { NATIVE_ENGINE, REPO, WASM_DIR } from "./lib/paths.mjs";
import { legalMoves, playUsi, positionOf } from "./lib/rules.mjs";
import { handshake, ready, search } from "./lib/session.mjs";
import { parseBestmove } from "./lib/usi-text.mjs";
import { launchWasm } from "./lib/wasm-engine.mjs";

const PLIES = 32;
const BYOYOMI_MS = 200;
// Time a move may take beyond the byoyomi before the test calls it a hang (a loaded machine
// delays the answer; a lost time-out is still reported in the measurements).
const SLACK_MS = 1000;

const engines = [];

after(async () => {
  for (const engine of engines) {
    if (engine instanceof ProcessEngine) {
      await engine.quit();
    } else {
      engine.terminate();
    }
  }
});

it(`plays ${PLIES} plies against the native engine at byoyomi ${BYOYOMI_MS} ms`, async () => {
  const wasm = await launchWasm(WASM_DIR, { poll: true });
  engines.push(wasm);
  const native = new ProcessEngine(NATIVE_ENGINE, [], { cwd: REPO });
  engines.push(native);
  const players = [
    { name: "wasm", engine: wasm, times: [] },
    { name: "native", engine: native, times: [] },
  ];
  await handshake(wasm);
  await handshake(native);
  // The native engine's defaults take 256 MB of table: a little is enough here.
  native.send("setoption name USI_Hash value 64");
  native.send("setoption name Threads value 1");
  for (const { engine } of players) {
    await ready(engine);
    engine.send("usinewgame");
  }

  const position = positionOf("startpos");
  const moves = [];
  let ending = `${PLIES} plies played`;
  for (let ply = 0; ply < PLIES; ply++) {
    const player = players[ply % 2];
    const { result, ms } = await search(
      player.engine,
      moves.length ? `position startpos moves ${moves.join(" ")}` : "position startpos",
      `go btime 0 wtime 0 byoyomi ${BYOYOMI_MS}`,
      BYOYOMI_MS + SLACK_MS + 5000,
    );
    player.times.push(ms);
    const best = parseBestmove(result);
    assert.ok(best, `${player.name} at ply ${ply + 1}: ${result}`);
    const hasMoves = legalMoves(position).length > 0;
    if (best.move === "win") {
      const verdict = judgeJishogiDeclaration(
        JishogiDeclarationRule.GENERAL27,
        position,
        position.color,
      );
      assert.equal(
        verdict,
        JishogiDeclarationResult.WIN,
        `${player.name} declared at ply ${ply + 1}`,
      );
    }
    if (best.move === "resign" || best.move === "win") {
      ending = `${player.name} answered ${best.move} at ply ${ply + 1}`;
      break;
    }
    assert.ok(hasMoves, `${player.name} moved ${best.move} in a position without a legal move`);
    assert.equal(playUsi(position, best.move), null, `${player.name} at ply ${ply + 1}`);
    moves.push(best.move);
    assert.ok(
      ms < BYOYOMI_MS + SLACK_MS,
      `${player.name} took ${ms.toFixed(0)} ms at ply ${ply + 1}`,
    );
  }

  console.log(`# game: position startpos moves ${moves.join(" ")}`);
  console.log(`# game: ${ending}; final position ${position.sfen}`);
  for (const { name, times } of players) {
    const max = Math.max(...times);
    const mean = times.reduce((a, b) => a + b, 0) / times.length;
    console.log(
      `# measured: ${name} ${times.length} moves, mean ${mean.toFixed(0)} ms, max ${max.toFixed(0)} ms`,
    );
  }
  const errors = [...wasm.log.linesFrom(0), ...native.log.linesFrom(0)].filter((line) =>
    line.startsWith("ERR "),
  );
  assert.deepEqual(errors, [], "stderr/printErr output");
});
