// The test helpers themselves, without an engine: reading USI lines, the rules' mate check, the
// line log's waits and the static server's refusals.
//
// node --test-reporter=spec lib.test.mjs
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, it } from "node:test";
import { LineLog } from "./lib/lines.mjs";
import { checkLine, checkMateLine, legalMoves, positionOf } from "./lib/rules.mjs";
import { startServer } from "./lib/static-server.mjs";
import {
  normaliseManifestOption,
  parseBestmove,
  parseInfoLine,
  parseOptionLine,
} from "./lib/usi-text.mjs";

describe("reading USI lines", () => {
  it("reads each option type as the manifest writes it", () => {
    assert.deepEqual(parseOptionLine("option name USI_Hash type spin default 64 min 1 max 256"), {
      name: "USI_Hash",
      type: "spin",
      default: 64,
      min: 1,
      max: 256,
    });
    assert.deepEqual(parseOptionLine("option name USI_Ponder type check default false"), {
      name: "USI_Ponder",
      type: "check",
      default: "false",
    });
    assert.deepEqual(
      parseOptionLine("option name EvalType type combo default NNUE var Auto var NNUE var Linear"),
      { name: "EvalType", type: "combo", default: "NNUE", vars: ["Auto", "NNUE", "Linear"] },
    );
    assert.deepEqual(parseOptionLine("option name EvalFile type filename default <empty>"), {
      name: "EvalFile",
      type: "filename",
      default: "",
    });
    // A string's default is the rest of the line, even a word that is a keyword elsewhere.
    assert.deepEqual(parseOptionLine("option name Note type string default a var b"), {
      name: "Note",
      type: "string",
      default: "a var b",
    });
    assert.deepEqual(parseOptionLine("option name Clear type button"), {
      name: "Clear",
      type: "button",
    });
    assert.equal(parseOptionLine("option type spin"), null);
    assert.equal(parseOptionLine("id name Hayate"), null);
    assert.deepEqual(
      normaliseManifestOption({ name: "F", type: "filename", default: "<empty>" }),
      { name: "F", type: "filename", default: "" },
    );
  });

  it("reads info and bestmove lines", () => {
    const info = parseInfoLine(
      "info depth 5 seldepth 9 time 12 nodes 3400 nps 283333 hashfull 1 score cp -31 " +
        "lowerbound multipv 1 pv 7g7f 3c3d",
    );
    assert.deepEqual(info, {
      depth: 5,
      seldepth: 9,
      time: 12,
      nodes: 3400,
      nps: 283333,
      hashfull: 1,
      score: { cp: -31, bound: "lowerbound" },
      multipv: 1,
      pv: ["7g7f", "3c3d"],
    });
    assert.deepEqual(parseInfoLine("info score mate -3 pv 5a4b").score, { mate: "-3" });
    assert.equal(parseInfoLine("info string a b c").string, "a b c");
    assert.deepEqual(parseBestmove("bestmove 7g7f ponder 3c3d"), { move: "7g7f", ponder: "3c3d" });
    assert.deepEqual(parseBestmove("bestmove resign"), { move: "resign", ponder: undefined });
    assert.equal(parseBestmove("bestmove"), null);
  });
});

describe("the rules", () => {
  const mateIn3 = "9/4k4/9/4P4/9/9/9/9/9 b 2G2r2b4s4n4l17p 1";

  it("counts the legal moves of known positions", () => {
    assert.equal(legalMoves(positionOf("startpos")).length, 30);
    const matsuri = "l6nl/5+P1gk/2np1S3/p1p4Pp/3P2Sp1/1PPb2P1P/P5GS1/R8/LN4bKL w RGgsn5p 1";
    assert.equal(legalMoves(positionOf(matsuri)).length, 207);
  });

  it("tells legal lines and real mates from the rest", () => {
    assert.equal(checkLine("startpos", ["7g7f", "3c3d", "8h2b+"]), null);
    assert.match(checkLine("startpos", ["7g7f", "7g7f"]), /move 2/);
    assert.match(checkLine("startpos", ["7g7f", "x"]), /cannot be read/);
    assert.equal(checkMateLine(mateIn3, ["G*5c", "5b4a", "G*4b"]), null);
    assert.match(checkMateLine(mateIn3, ["G*5c", "5b4a", "G*3b"]), /still has/);
    assert.match(checkMateLine(mateIn3, ["G*5c", "5b4a"]), /even number/);
    assert.match(checkMateLine(mateIn3, ["G*5e", "5b4a", "G*4b"]), /no check/);
  });
});

describe("the line log", () => {
  it("finds a line already there, waits for a later one, and times out", async () => {
    const log = new LineLog();
    log.push("usiok");
    assert.equal((await log.waitFor((line) => line === "usiok")).line, "usiok");
    const mark = log.mark();
    const later = log.waitFor((line) => line.startsWith("bestmove"), { from: mark });
    log.push("info depth 1");
    log.push("bestmove 7g7f");
    assert.equal((await later).index, mark + 1);
    await assert.rejects(
      log.waitFor((line) => line === "readyok", { from: log.mark(), timeoutMs: 20 }),
      /no a line within 20 ms/,
    );
  });
});

describe("the static server", () => {
  it("serves the mounted files with their types and nothing outside them", async () => {
    const root = fs.mkdtempSync(path.join(os.tmpdir(), "hayate-web-"));
    fs.mkdirSync(path.join(root, "site"));
    fs.writeFileSync(path.join(root, "site", "index.html"), "<p>hi</p>");
    fs.writeFileSync(path.join(root, "site", "engine.wasm"), Buffer.from([0, 97, 115, 109]));
    fs.writeFileSync(path.join(root, "secret.txt"), "no");
    const server = await startServer({ "/site/": path.join(root, "site") });
    try {
      const get = (url) => fetch(`${server.origin}${url}`, { redirect: "manual" });
      const page = await get("/site/");
      assert.equal(page.status, 200);
      assert.equal(await page.text(), "<p>hi</p>");
      const wasm = await get("/site/engine.wasm");
      assert.equal(wasm.headers.get("content-type"), "application/wasm");
      assert.equal((await wasm.arrayBuffer()).byteLength, 4);
      assert.equal((await get("/site")).status, 301);
      assert.equal((await get("/site/..%2fsecret.txt")).status, 404);
      assert.equal((await get("/site/%2e%2e/secret.txt")).status, 404);
      assert.equal((await get("/site/%E0%A4%A")).status, 400);
      assert.equal((await get("/secret.txt")).status, 404);
      assert.equal((await fetch(`${server.origin}/site/`, { method: "POST" })).status, 405);
    } finally {
      await server.close();
      fs.rmSync(root, { recursive: true, force: true });
    }
  });
});
